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

-- How many texts each indexed column holds and their words, for BM25's
-- average length of an index, as FTS5 keeps its own totals. A row that
-- comes, changes or goes adds a row of changes here (its trigger below);
-- every write folds them into one row per column before it commits
-- (`keep_fold_text_totals`), so the table stays small and no row is
-- updated over and over within a transaction (a bulk import's would make
-- each update walk all the versions of that row before it). Readers sum
-- the rows of a column.
CREATE TABLE text_totals (
    name  text   NOT NULL,
    rows  bigint NOT NULL,
    words bigint NOT NULL
);
CREATE INDEX text_totals_name ON text_totals (name);
INSERT INTO text_totals (name, rows, words)
    SELECT 'notes.words_length', count(*), coalesce(sum(words_length), 0) FROM notes
    UNION ALL SELECT 'notes.name_length', count(*), coalesce(sum(name_length), 0) FROM notes
    UNION ALL SELECT 'bodies.length', count(*), coalesce(sum(length), 0) FROM bodies
    UNION ALL SELECT 'parts.length', count(*), coalesce(sum(length), 0) FROM parts
    UNION ALL SELECT 'versions.length', count(*), coalesce(sum(length), 0) FROM versions;

CREATE FUNCTION keep_fold_text_totals() RETURNS void LANGUAGE sql AS $$
    WITH gone AS (DELETE FROM text_totals RETURNING name, rows, words)
    INSERT INTO text_totals (name, rows, words)
        SELECT name, sum(rows), sum(words) FROM gone GROUP BY name
$$;

-- A note's text and name coming, changing or going.
CREATE FUNCTION keep_count_note_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO text_totals (name, rows, words) VALUES
            ('notes.words_length', -1, -OLD.words_length),
            ('notes.name_length', -1, -OLD.name_length);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO text_totals (name, rows, words) VALUES
            ('notes.words_length', 1, NEW.words_length),
            ('notes.name_length', 1, NEW.name_length);
    END IF;
    RETURN NULL;
END $$;

-- The same for a table whose texts' lengths are in `length`.
CREATE FUNCTION keep_count_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO text_totals (name, rows, words)
            VALUES (TG_TABLE_NAME || '.length', -1, -OLD.length);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO text_totals (name, rows, words)
            VALUES (TG_TABLE_NAME || '.length', 1, NEW.length);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER notes_words_counted
    AFTER INSERT OR DELETE OR UPDATE OF words_length, id ON notes
    FOR EACH ROW EXECUTE FUNCTION keep_count_note_words();
CREATE TRIGGER bodies_words_counted AFTER INSERT OR DELETE OR UPDATE OF length ON bodies
    FOR EACH ROW EXECUTE FUNCTION keep_count_words();
CREATE TRIGGER parts_words_counted AFTER INSERT OR DELETE OR UPDATE OF length ON parts
    FOR EACH ROW EXECUTE FUNCTION keep_count_words();
CREATE TRIGGER versions_words_counted AFTER INSERT OR DELETE OR UPDATE OF length ON versions
    FOR EACH ROW EXECUTE FUNCTION keep_count_words();
