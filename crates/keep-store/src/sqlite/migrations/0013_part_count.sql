-- How many parts the store holds, kept as the note count is (0010):
-- a search weighs a word by how many notes and parts hold it against
-- this number, to tell how relevant a hit is on a scale of its own.
INSERT OR REPLACE INTO counts (name, n) SELECT 'parts', count(*) FROM parts;
CREATE TRIGGER IF NOT EXISTS parts_counted_insert AFTER INSERT ON parts BEGIN
    UPDATE counts SET n = n + 1 WHERE name = 'parts';
END;
CREATE TRIGGER IF NOT EXISTS parts_counted_delete AFTER DELETE ON parts BEGIN
    UPDATE counts SET n = n - 1 WHERE name = 'parts';
END;
