-- Feedback on notes: how often a note was rated useful or wrong, and when
-- last. Counters, not versions: a rating does not change the note.
CREATE TABLE feedback (
    note    INTEGER PRIMARY KEY REFERENCES notes(rid) ON DELETE CASCADE,
    useful  INTEGER NOT NULL DEFAULT 0,
    wrong   INTEGER NOT NULL DEFAULT 0,
    updated INTEGER NOT NULL
);
