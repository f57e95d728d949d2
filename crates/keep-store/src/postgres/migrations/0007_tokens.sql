-- Tokens that let a client of `keep serve` in, each with its rights: the
-- secret's SHA-256 only (the secret is shown once, when made), whether it
-- may only read, the tags it is confined to (a JSON array of "key=value"),
-- and when it was made, last used and stops being accepted (milliseconds
-- since the epoch).
-- Every server on this database accepts the same tokens.
CREATE TABLE IF NOT EXISTS tokens (
    name      text    PRIMARY KEY,
    hash      text    NOT NULL UNIQUE,
    read_only boolean NOT NULL,
    scope     text    NOT NULL DEFAULT '[]',
    created   bigint  NOT NULL,
    last_used bigint,
    expires   bigint
);
