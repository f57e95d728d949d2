-- Every write, appended and never changed: when, by whom (the agent the
-- store was opened for: cli, an MCP client's name/version, ...), what,
-- to which note, and the note's version count after it (before, for a
-- purge).
CREATE TABLE IF NOT EXISTS operations (
    seq     bigserial PRIMARY KEY,
    at      bigint NOT NULL,
    agent   text   NOT NULL,
    op      text   NOT NULL,
    note    text   NOT NULL,
    version bigint NOT NULL,
    detail  text   NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS operations_note  ON operations (note, seq);
CREATE INDEX IF NOT EXISTS operations_agent ON operations (agent, seq);
