-- Words split where a text is not letters or digits, whatever the
-- database's locale: `[:alnum:]` in a database made with the C locale
-- knows only ASCII letters, and split "Jörg" into "J" and "rg". Space,
-- punctuation and control characters (ASCII and the common Unicode
-- dashes, quotes and bullets) separate words now; the letters of every
-- script stay together. Rows written before keep the words they were
-- indexed with until they change.
CREATE OR REPLACE FUNCTION keep_words(text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN regexp_replace($1, '[[:space:][:punct:][:cntrl:]‐‑‒–—―‘’‚‛“”„‟…•‣·«»‹›¡¿§¶†‡°±×÷]+', ' ', 'g');
