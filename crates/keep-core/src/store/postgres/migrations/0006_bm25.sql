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
