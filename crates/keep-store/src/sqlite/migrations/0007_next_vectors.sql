-- While the store changes embedding model, the new model's vectors wait
-- here, beside the old ones that still answer searches; `hash` is the
-- sha256 of the text each was made from. When every embedded row has its
-- new vector they replace the old in one write and this table empties.
CREATE TABLE IF NOT EXISTS next_vectors (
    kind      INTEGER NOT NULL,
    key       INTEGER NOT NULL,
    hash      TEXT    NOT NULL,
    embedding BLOB    NOT NULL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;
