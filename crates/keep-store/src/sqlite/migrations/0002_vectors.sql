-- Which text each row's vector was made from: the sha256 of the summary,
-- or NULL while the row waits for its embedding. The vector tables
-- themselves (vec0, one per kind) are created when a model is first used,
-- because their dimension comes from the model.
ALTER TABLE notes ADD COLUMN embedded TEXT;
ALTER TABLE versions ADD COLUMN embedded TEXT;
ALTER TABLE parts ADD COLUMN embedded TEXT;
CREATE INDEX notes_embedded ON notes(embedded);
CREATE INDEX versions_embedded ON versions(embedded);
CREATE INDEX parts_embedded ON parts(embedded);
