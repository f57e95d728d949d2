-- Watched folders, the lease that lets one process watch at a time, and
-- the size and modification time last seen of each watched file, so a
-- catch-up scan reads only files that changed.
CREATE TABLE watches (
    dir       TEXT PRIMARY KEY,
    recursive INTEGER NOT NULL,
    excludes  TEXT    NOT NULL,
    added     INTEGER NOT NULL
);

CREATE TABLE leases (
    name     TEXT PRIMARY KEY,
    holder   TEXT    NOT NULL,
    pid      INTEGER NOT NULL,
    since    INTEGER NOT NULL,
    expires  INTEGER NOT NULL
);

CREATE TABLE file_state (
    id    TEXT PRIMARY KEY,
    size  INTEGER NOT NULL,
    mtime INTEGER NOT NULL
);
