-- Keyword ranking by BM25, as SQLite's FTS5 ranks: each indexed text keeps
-- its length in words as FTS5 counts them (stop words included; keep counts
-- them as it writes), which BM25 weighs against the average length of its
-- index.

-- The number of words of a text, split as `keep_words` splits it: the
-- length of a note's name, and of rows written before this migration
-- (which can differ from FTS5's count where a text is not ASCII).
CREATE FUNCTION keep_length(text) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN CASE
        WHEN btrim(keep_words($1)) = '' THEN 0
        ELSE array_length(regexp_split_to_array(btrim(keep_words($1)), ' '), 1)
    END;

-- The words a text held, where only its `tsvector` is kept: its last
-- position (stop words advance positions too), which can fall short by the
-- stop words at its end. Only rows indexed before this migration need it.
CREATE FUNCTION keep_positions(tsvector) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (SELECT coalesce(max(p), 0) FROM unnest($1) AS u(lexeme, positions, weights), unnest(u.positions) AS p);

-- An inline note's id (`%` and 12 hex digits, a hash of its text) is no
-- name to find it by: the text-search parser read many as a number and a
-- letter (`%3e376700632c` as '3e376700632' and 'c'), so a search for "C
-- library" found notes for their ids.
CREATE OR REPLACE FUNCTION keep_note_name(text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN CASE
        WHEN $1 ~ '^%[0-9a-f]{12}$' THEN ''
        WHEN position('://' in $1) > 0 AND regexp_replace($1, '^.*/', '') <> ''
            THEN regexp_replace($1, '^.*/', '')
        ELSE $1
    END;
UPDATE notes SET id = id WHERE id ~ '^%[0-9a-f]{12}$';

-- A note's summary and user tags ("key value"): set with its words.
ALTER TABLE notes ADD COLUMN words_length integer NOT NULL DEFAULT 0;
UPDATE notes SET words_length = keep_length(summary) + coalesce(
    (SELECT sum(keep_length(t.key || ' ' || t.value)) FROM tags t
      WHERE t.note = notes.rid AND left(t.key, 1) <> '_'), 0);
ALTER TABLE notes ADD COLUMN name_length integer
    GENERATED ALWAYS AS (keep_length(keep_note_name(id))) STORED;

ALTER TABLE bodies ADD COLUMN length integer NOT NULL DEFAULT 0;
UPDATE bodies SET length = keep_positions(words);

ALTER TABLE parts ADD COLUMN length integer NOT NULL DEFAULT 0;
UPDATE parts SET length = keep_length(summary);
ALTER TABLE versions ADD COLUMN length integer NOT NULL DEFAULT 0;
UPDATE versions SET length = keep_length(summary);

-- How many texts each indexed column holds and their words, kept by the
-- triggers below as rows come, change and go (writers take turns, so the
-- one row per column is never contended): BM25 reads the average length
-- of an index from here at any size, as FTS5 reads its own totals.
CREATE TABLE text_totals (
    name  text PRIMARY KEY,
    rows  bigint NOT NULL,
    words bigint NOT NULL
);
INSERT INTO text_totals (name, rows, words)
    SELECT 'notes.words_length', count(*), coalesce(sum(words_length), 0) FROM notes
    UNION ALL SELECT 'notes.name_length', count(*), coalesce(sum(name_length), 0) FROM notes
    UNION ALL SELECT 'bodies.length', count(*), coalesce(sum(length), 0) FROM bodies
    UNION ALL SELECT 'parts.length', count(*), coalesce(sum(length), 0) FROM parts
    UNION ALL SELECT 'versions.length', count(*), coalesce(sum(length), 0) FROM versions;

-- Adds the rows of `added` and takes away those of `removed` (transition
-- tables; an insert has no `removed`, a delete no `added`) for each length
-- column named by the trigger's arguments.
CREATE FUNCTION keep_count_words() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    length_column text;
    added_rows bigint := 0;
    added_words bigint := 0;
    removed_rows bigint := 0;
    removed_words bigint := 0;
BEGIN
    FOREACH length_column IN ARRAY TG_ARGV LOOP
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
            EXECUTE format('SELECT count(*), coalesce(sum(%I), 0) FROM added', length_column)
                INTO added_rows, added_words;
        END IF;
        IF TG_OP IN ('DELETE', 'UPDATE') THEN
            EXECUTE format('SELECT count(*), coalesce(sum(%I), 0) FROM removed', length_column)
                INTO removed_rows, removed_words;
        END IF;
        IF added_rows <> removed_rows OR added_words <> removed_words THEN
            UPDATE text_totals
               SET rows = rows + added_rows - removed_rows,
                   words = words + added_words - removed_words
             WHERE name = TG_TABLE_NAME || '.' || length_column;
        END IF;
    END LOOP;
    RETURN NULL;
END $$;

CREATE TRIGGER notes_words_added AFTER INSERT ON notes REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_words('words_length', 'name_length');
CREATE TRIGGER notes_words_changed AFTER UPDATE ON notes
    REFERENCING OLD TABLE AS removed NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_words('words_length', 'name_length');
CREATE TRIGGER notes_words_removed AFTER DELETE ON notes REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_words('words_length', 'name_length');

CREATE TRIGGER bodies_words_added AFTER INSERT ON bodies REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_words('length');
CREATE TRIGGER bodies_words_changed AFTER UPDATE ON bodies
    REFERENCING OLD TABLE AS removed NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_words('length');
CREATE TRIGGER bodies_words_removed AFTER DELETE ON bodies REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_words('length');

CREATE TRIGGER parts_words_added AFTER INSERT ON parts REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_words('length');
CREATE TRIGGER parts_words_changed AFTER UPDATE ON parts
    REFERENCING OLD TABLE AS removed NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_words('length');
CREATE TRIGGER parts_words_removed AFTER DELETE ON parts REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_words('length');

CREATE TRIGGER versions_words_added AFTER INSERT ON versions REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_words('length');
CREATE TRIGGER versions_words_changed AFTER UPDATE ON versions
    REFERENCING OLD TABLE AS removed NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_words('length');
CREATE TRIGGER versions_words_removed AFTER DELETE ON versions REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_words('length');
