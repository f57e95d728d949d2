-- Rows inserted by one statement add one row of changes to the word
-- totals, not one each: an import inserts a thousand notes or parts to a
-- statement, and a row-level trigger ran a second insert for every row.
-- Deletions and changes stay counted row by row.

CREATE FUNCTION keep_count_inserted_note_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO text_totals (name, rows, words)
        SELECT 'notes.words_length', count(*), coalesce(sum(words_length), 0)
            FROM inserted HAVING count(*) > 0
        UNION ALL
        SELECT 'notes.name_length', count(*), coalesce(sum(name_length), 0)
            FROM inserted HAVING count(*) > 0;
    RETURN NULL;
END $$;

CREATE FUNCTION keep_count_inserted_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO text_totals (name, rows, words)
        SELECT TG_TABLE_NAME || '.length', count(*), coalesce(sum(length), 0)
            FROM inserted HAVING count(*) > 0;
    RETURN NULL;
END $$;

DROP TRIGGER notes_words_counted ON notes;
CREATE TRIGGER notes_words_counted
    AFTER DELETE OR UPDATE OF words_length, id ON notes
    FOR EACH ROW EXECUTE FUNCTION keep_count_note_words();
CREATE TRIGGER notes_words_inserted AFTER INSERT ON notes
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_inserted_note_words();

DROP TRIGGER bodies_words_counted ON bodies;
CREATE TRIGGER bodies_words_counted AFTER DELETE OR UPDATE OF length ON bodies
    FOR EACH ROW EXECUTE FUNCTION keep_count_words();
CREATE TRIGGER bodies_words_inserted AFTER INSERT ON bodies
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_inserted_words();

DROP TRIGGER parts_words_counted ON parts;
CREATE TRIGGER parts_words_counted AFTER DELETE OR UPDATE OF length ON parts
    FOR EACH ROW EXECUTE FUNCTION keep_count_words();
CREATE TRIGGER parts_words_inserted AFTER INSERT ON parts
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_inserted_words();

DROP TRIGGER versions_words_counted ON versions;
CREATE TRIGGER versions_words_counted AFTER DELETE OR UPDATE OF length ON versions
    FOR EACH ROW EXECUTE FUNCTION keep_count_words();
CREATE TRIGGER versions_words_inserted AFTER INSERT ON versions
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION keep_count_inserted_words();
