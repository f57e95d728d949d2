-- Where each note's current text came from (`_origin`), for notes written
-- before keep recorded it: read from `_source` and the author of `_agent`
-- (the part before a 0x1f separator), as keep_model::keys::origin_of does.
INSERT OR IGNORE INTO tags (note, key, value)
SELECT s.note, '_origin',
       CASE s.value
           WHEN 'file' THEN 'document'
           WHEN 'url'  THEN 'web'
           WHEN 'chat' THEN 'imported'
           ELSE CASE
               WHEN CASE WHEN instr(a.value, char(31)) > 0
                         THEN substr(a.value, 1, instr(a.value, char(31)) - 1)
                         ELSE a.value END IN ('cli', 'browser')
               THEN 'typed'
               ELSE 'agent'
           END
       END
FROM tags s
LEFT JOIN tags a ON a.note = s.note AND a.key = '_agent'
WHERE s.key = '_source'
  AND NOT EXISTS (SELECT 1 FROM tags o WHERE o.note = s.note AND o.key = '_origin');
