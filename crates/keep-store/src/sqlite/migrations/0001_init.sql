-- Notes: the current state of every note. `rid` is the integer key the
-- full-text and vector indexes use; `id` is the public id.
CREATE TABLE notes (
    rid          INTEGER PRIMARY KEY,
    id           TEXT    NOT NULL UNIQUE,
    summary      TEXT    NOT NULL,
    content_hash TEXT,
    created      INTEGER NOT NULL,
    updated      INTEGER NOT NULL,
    accessed     INTEGER NOT NULL
);
CREATE INDEX notes_updated  ON notes(updated);
CREATE INDEX notes_created  ON notes(created);
CREATE INDEX notes_accessed ON notes(accessed);
CREATE INDEX notes_hash     ON notes(content_hash);

-- Tags of the current state; a key may hold several values.
CREATE TABLE tags (
    note  INTEGER NOT NULL REFERENCES notes(rid) ON DELETE CASCADE,
    key   TEXT    NOT NULL,
    value TEXT    NOT NULL,
    PRIMARY KEY (note, key, value)
) WITHOUT ROWID;
CREATE INDEX tags_key_value ON tags(key, value);

-- Archived states; seq counts from 1 (oldest) per note. Tags are a JSON
-- object of key -> [values].
CREATE TABLE versions (
    vid          INTEGER PRIMARY KEY,
    note         INTEGER NOT NULL REFERENCES notes(rid) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    summary      TEXT    NOT NULL,
    tags         TEXT    NOT NULL,
    content_hash TEXT,
    created      INTEGER NOT NULL,
    updated      INTEGER NOT NULL,
    UNIQUE (note, seq)
);

-- Parts (chunks) of long notes, numbered from 1.
CREATE TABLE parts (
    pid     INTEGER PRIMARY KEY,
    note    INTEGER NOT NULL REFERENCES notes(rid) ON DELETE CASCADE,
    number  INTEGER NOT NULL,
    summary TEXT    NOT NULL,
    tags    TEXT    NOT NULL DEFAULT '{}',
    UNIQUE (note, number)
);

-- Links made by edge tags: source note -> target id (which may be missing
-- later if the target is deleted; its source's tag still names it).
CREATE TABLE edges (
    source INTEGER NOT NULL REFERENCES notes(rid) ON DELETE CASCADE,
    key    TEXT    NOT NULL,
    target TEXT    NOT NULL,
    PRIMARY KEY (source, key, target)
) WITHOUT ROWID;
CREATE INDEX edges_target ON edges(target);

-- Facts about the store itself (embedding model, ...).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- Contentless full-text indexes: the text is indexed, not stored. A note's
-- summary and tags (rewritten on every change) and its full text (written
-- only when its content changes) live in separate tables keyed by rid.
CREATE VIRTUAL TABLE notes_fts USING fts5(
    summary, tags,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE body_fts USING fts5(
    body,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE parts_fts USING fts5(
    summary,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE versions_fts USING fts5(
    summary,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Keep the indexes in step with their rows, cascades included.
CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
    DELETE FROM notes_fts WHERE rowid = old.rid;
    DELETE FROM body_fts WHERE rowid = old.rid;
END;
CREATE TRIGGER versions_fts_insert AFTER INSERT ON versions BEGIN
    INSERT INTO versions_fts (rowid, summary) VALUES (new.vid, new.summary);
END;
CREATE TRIGGER versions_fts_delete AFTER DELETE ON versions BEGIN
    DELETE FROM versions_fts WHERE rowid = old.vid;
END;
CREATE TRIGGER parts_fts_insert AFTER INSERT ON parts BEGIN
    INSERT INTO parts_fts (rowid, summary) VALUES (new.pid, new.summary);
END;
CREATE TRIGGER parts_fts_delete AFTER DELETE ON parts BEGIN
    DELETE FROM parts_fts WHERE rowid = old.pid;
END;
