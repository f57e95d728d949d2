-- How many notes the store holds, kept by triggers in the writes'
-- own transactions. Keyword search weighs words by how many notes hold
-- them against this number on every query, and counting a million rows
-- takes 50 ms.
CREATE TABLE IF NOT EXISTS counts (
    name TEXT PRIMARY KEY,
    n    INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR REPLACE INTO counts (name, n) SELECT 'notes', count(*) FROM notes;
CREATE TRIGGER IF NOT EXISTS notes_counted_insert AFTER INSERT ON notes BEGIN
    UPDATE counts SET n = n + 1 WHERE name = 'notes';
END;
CREATE TRIGGER IF NOT EXISTS notes_counted_delete AFTER DELETE ON notes BEGIN
    UPDATE counts SET n = n - 1 WHERE name = 'notes';
END;
