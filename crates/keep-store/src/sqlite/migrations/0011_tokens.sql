-- Tokens that let a client of `keep serve` in, each with its rights: the
-- secret's SHA-256 only (the secret is shown once, when made), whether it
-- may only read, the tags it is confined to (a JSON array of "key=value"),
-- and when it was made, last used and stops being accepted (milliseconds
-- since the epoch).
CREATE TABLE IF NOT EXISTS tokens (
    name      TEXT    PRIMARY KEY,
    hash      TEXT    NOT NULL UNIQUE,
    read_only INTEGER NOT NULL,
    scope     TEXT    NOT NULL DEFAULT '[]',
    created   INTEGER NOT NULL,
    last_used INTEGER,
    expires   INTEGER
);
