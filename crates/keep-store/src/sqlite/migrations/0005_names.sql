-- The words of each note's name, for keyword search: a note named
-- `notes/caribou-migration`, or the file `.../reindeer-plan.txt`, is found
-- by `caribou` or `reindeer` even when its text never says so. For a URI
-- only the last segment counts (a file's or page's own name: the folders
-- above it are shared by many notes and say little); any other id counts
-- whole.
CREATE VIRTUAL TABLE names_fts USING fts5(
    name,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIEW note_names AS
SELECT rid, CASE
    WHEN id GLOB '*://*' AND substr(id, length(rtrim(id, replace(id, '/', ''))) + 1) != ''
        THEN substr(id, length(rtrim(id, replace(id, '/', ''))) + 1)
    ELSE id
END AS name
FROM notes;

INSERT INTO names_fts (rowid, name) SELECT rid, name FROM note_names;

CREATE TRIGGER names_fts_insert AFTER INSERT ON notes BEGIN
    INSERT INTO names_fts (rowid, name) SELECT rid, name FROM note_names WHERE rid = new.rid;
END;
CREATE TRIGGER names_fts_rename AFTER UPDATE OF id ON notes BEGIN
    DELETE FROM names_fts WHERE rowid = old.rid;
    INSERT INTO names_fts (rowid, name) SELECT rid, name FROM note_names WHERE rid = new.rid;
END;
CREATE TRIGGER names_fts_delete AFTER DELETE ON notes BEGIN
    DELETE FROM names_fts WHERE rowid = old.rid;
END;
