-- An inline note's id (`%` and 12 hex digits, a hash of its text) is no
-- name to find it by; its name is empty, so it still counts among the
-- names' rows (as every note does on PostgreSQL) and matches no word.
DROP VIEW note_names;
CREATE VIEW note_names AS
SELECT rid, CASE
    WHEN length(id) = 13
         AND id GLOB '%[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'
        THEN ''
    WHEN id GLOB '*://*' AND substr(id, length(rtrim(id, replace(id, '/', ''))) + 1) != ''
        THEN substr(id, length(rtrim(id, replace(id, '/', ''))) + 1)
    ELSE id
END AS name
FROM notes;

DELETE FROM names_fts WHERE rowid IN (SELECT rid FROM note_names WHERE name = '');
INSERT INTO names_fts (rowid, name) SELECT rid, name FROM note_names WHERE name = '';
