-- When each state of a note began to hold (milliseconds since the epoch):
-- the time the thing happened or became true, which `put --at`, a
-- transcript or a document's own date give. States stored before this
-- had none: a note's first state began when the note was created, each
-- later one when it was written.
ALTER TABLE notes ADD COLUMN event_at bigint NOT NULL DEFAULT 0;
ALTER TABLE versions ADD COLUMN event_at bigint NOT NULL DEFAULT 0;
UPDATE notes SET event_at = CASE
    WHEN EXISTS (SELECT 1 FROM versions v WHERE v.note = notes.rid) THEN updated
    ELSE created
END;
UPDATE versions SET event_at = CASE WHEN seq = 1 THEN created ELSE updated END;
CREATE INDEX notes_event_at ON notes(event_at);
CREATE INDEX versions_event_at ON versions(note, event_at);
