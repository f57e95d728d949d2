-- Listings are ordered by a date, newest first, then by id. An index in
-- exactly that order lets "the first twenty" stop after twenty rows even
-- when many notes share one date (a bulk import), instead of sorting
-- every note of that date.
DROP INDEX IF EXISTS notes_updated;
DROP INDEX IF EXISTS notes_created;
DROP INDEX IF EXISTS notes_accessed;
CREATE INDEX IF NOT EXISTS notes_updated_order  ON notes(updated DESC, id);
CREATE INDEX IF NOT EXISTS notes_created_order  ON notes(created DESC, id);
CREATE INDEX IF NOT EXISTS notes_accessed_order ON notes(accessed DESC, id);
