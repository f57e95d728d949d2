-- While the store changes embedding model, the new model's vectors wait
-- here, beside the old ones that still answer searches; `hash` is the
-- sha256 of the text each was made from. When every embedded row has its
-- new vector they replace the old in one write and this table empties.
CREATE TABLE IF NOT EXISTS next_vectors (
    kind      smallint NOT NULL,
    key       bigint   NOT NULL,
    hash      text     NOT NULL,
    embedding vector   NOT NULL,
    PRIMARY KEY (kind, key)
);
