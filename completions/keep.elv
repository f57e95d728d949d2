
use builtin;
use str;

set edit:completion:arg-completer[keep] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'keep'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'keep'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand put 'Store text, standard input, files, folders or web pages as notes'
            cand get 'Show notes, an archived version (ID@V{N}) or a part (ID@P{N})'
            cand list 'List notes, most recently updated first'
            cand find 'Find notes by meaning and by keyword, best first'
            cand tag 'Add or remove tags on notes'
            cand del 'Put notes in the trash, delete them for good, or delete one archived version of a note'
            cand restore 'Take notes out of the trash'
            cand log 'Show who changed what: every write, newest first'
            cand stats 'Show what the store holds: notes, versions, parts, vectors, the commonest tag keys, what each source added, each agent''s writes, and its size'
            cand revert 'Undo the last change of notes: restore the previous version'
            cand rate 'Rate a note as useful or wrong'
            cand supersede 'Accept a note as the successor of the notes it replaces'
            cand conflicts 'List pairs of live notes that look like two values for one subject'
            cand context 'Print what a session should start with, within a token budget'
            cand now 'Show or replace the working-intentions note, ''now'''
            cand move 'Move the version history of ''now'' (or of another note) into a named note'
            cand export 'Export every note, with tags, full history and parts, as JSON Lines'
            cand import 'Import notes from a file written by ''keep export'', or conversations (--format chat)'
            cand why 'Say why a note is, or is not, among the hits of a search'
            cand reindex 'Embed everything that has no vector yet, with the configured model'
            cand analyze 'Cut a note into meaningful parts with a language model'
            cand check 'Verify the store: the database file, indexes, vectors, numbering'
            cand repair 'Make the indexes, vectors and codes again, without changing a note'
            cand backup 'Write a consistent copy of the store to a new file'
            cand models 'List, install, verify or remove the files keep runs on'
            cand doctor 'Check the runtime, the models, the store, a server, watched folders and the config file'
            cand connect 'Give an MCP client (Claude Code, Cursor, VS Code, ...) keep''s memory'
            cand hook 'Run by a client''s session hooks (keep connect CLIENT --hooks installs them)'
            cand token 'Tokens for the clients of keep serve, each with its own rights'
            cand watch 'Keep the registered folders indexed until interrupted'
            cand ui 'Browse, search, read and tag notes in a full-screen terminal browser'
            cand mcp 'Serve keep''s memory to agents over the Model Context Protocol'
            cand serve 'Serve the store to many MCP clients, scripts and commands at once'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keep;put'= {
            cand --text 'Store TEXT as text, even if it looks like a path or starts with ''-'''
            cand --id 'Store under this id instead of the one derived from the content (one input only)'
            cand -t 'Add a tag (repeatable)'
            cand --tag 'Add a tag (repeatable)'
            cand --summary 'Use this summary instead of one made from the content'
            cand --at 'When it happened or began to hold (default: a file''s own date, else now): a duration back from now (P2D), a date, a timestamp or a spoken day (yesterday)'
            cand --expires 'The note stops being true after this: an ISO 8601 duration from now (from --at when given: P30D), a date or a timestamp'
            cand --importance 'How much the note matters, 1 to 5 (3 is usual): recall ranks it up to a fifth higher or lower'
            cand --supersedes 'This note replaces note ID, which recall then hides (repeatable)'
            cand -x 'Leave out files and folders matching GLOB (gitignore syntax; repeatable)'
            cand --exclude 'Leave out files and folders matching GLOB (gitignore syntax; repeatable)'
            cand --max-files 'Take at most N files from each folder'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --update 'When the text restates or probably updates an existing note, store it as that note''s next version'
            cand --allow-duplicate 'Store the text even when it restates an existing note'
            cand --allow-secrets 'Keep secrets (private keys, tokens, passwords in URLs and configuration) as written instead of replacing each with a marker'
            cand -r 'Also take the files in subfolders of a folder'
            cand --recursive 'Also take the files in subfolders of a folder'
            cand --watch 'Also register the folders to be kept indexed by ''keep watch'''
            cand --timings 'When files were read, say on stderr where the time went: reading and extracting (OCR included), summarising, storing, embedding'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;get'= {
            cand -V 'Show version N: 0 current, 1 previous, negative counts from the oldest (-1 = oldest)'
            cand --at-version 'Show version N: 0 current, 1 previous, negative counts from the oldest (-1 = oldest)'
            cand --as-of 'Show the state that held then (the latest begun by WHEN): a date, a timestamp, a duration back from now or a spoken day'
            cand -n 'With --similar, show at most N notes'
            cand --limit 'With --similar, show at most N notes'
            cand -t 'Only show notes that have this tag (KEY or KEY=VALUE, repeatable)'
            cand --tag 'Only show notes that have this tag (KEY or KEY=VALUE, repeatable)'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --history 'List the note''s versions (current first) instead of showing it'
            cand --parts 'List the note''s parts (ID@P{N} and the start of each) instead of showing it'
            cand --text 'Print each note''s whole text (its parts joined by a blank line, or its summary when it has none) instead of showing it; a text of more than 1000 parts (about 1.5 MB) keeps only those, and put said so'
            cand --similar 'List the notes most similar in meaning to each note instead of showing it'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;list'= {
            cand -t 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)'
            cand --tag 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)'
            cand --since 'Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp'
            cand --until 'Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp'
            cand --as-of 'Only what held then, each note as it stood (superseded and expired ones included while they held): a date, a timestamp, a duration back from now or a spoken day'
            cand --when 'Only notes whose event time (put --at), or a date their text speaks of, falls in PERIOD: 2023, 2023-05, 2023-05-07, last week, P7D or FROM..UNTIL'
            cand --from 'Only notes whose text came from these origins (_origin): typed (by a person on the command line or the browser), agent (put through MCP or the JSON API), document (a file), web (a URL), imported (a chat or an export); comma-separated'
            cand --sort 'Sort order'
            cand -n 'Show at most N notes'
            cand --limit 'Show at most N notes'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand -a 'Include system notes (ids starting with ''.''), expired notes and notes in the trash'
            cand --all 'Include system notes (ids starting with ''.''), expired notes and notes in the trash'
            cand --expired 'Only notes whose expiry time (put --expires) has passed'
            cand --deleted 'Only notes in the trash (keep del; keep restore brings one back)'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;find'= {
            cand --id 'Find notes similar to this note instead of matching a query'
            cand -t 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)'
            cand --tag 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)'
            cand --since 'Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp'
            cand --until 'Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp'
            cand --as-of 'Only what held then, each note as it stood (superseded and expired ones included while they held): a date, a timestamp, a duration back from now or a spoken day'
            cand --when 'Only notes whose event time (put --at), or a date their text speaks of, falls in PERIOD: 2023, 2023-05, 2023-05-07, last week, P7D or FROM..UNTIL'
            cand --from 'Only notes whose text came from these origins (_origin): typed (by a person on the command line or the browser), agent (put through MCP or the JSON API), document (a file), web (a URL), imported (a chat or an export); comma-separated'
            cand -S 'Only ids matching this prefix or glob'
            cand --id-pattern 'Only ids matching this prefix or glob'
            cand --scope 'Old name of --id-pattern, kept for one release'
            cand -n 'Show at most N notes (deep recall adds up to N more, at least 10)'
            cand --limit 'Show at most N notes (deep recall adds up to N more, at least 10)'
            cand --hops 'How many links deep recall follows, 1 to 5 [default: 2]; implies --deep'
            cand --mode 'Which candidates to rank: both fused, keywords only (no model is loaded) or embeddings only'
            cand --max-tokens 'Return whole results, best first, until their JSON forms reach N tokens of the embedding model''s tokenizer; say on stderr how many were left out'
            cand --half-life 'Recency half-life in days; 0 turns decay off [default: 30, or half_life_days in the config file]'
            cand -C 'Show N parts before and after each part found (the turns around a turn of a conversation)'
            cand --around 'Show N parts before and after each part found (the turns around a turn of a conversation)'
            cand --floor 'The relevance floor, 0 to 1: when every hit is below it, none is shown; 0 shows the nearest, however far [default: 0.23]'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand -a 'Include system notes (ids starting with ''.''), expired notes and notes in the trash'
            cand --all 'Include system notes (ids starting with ''.''), expired notes and notes in the trash'
            cand --deep 'Also follow edges and shared tags from the top hits (two links deep unless --hops says)'
            cand --all-versions 'Also find notes superseded by newer ones (ranked below them)'
            cand --parts 'Find each part of a document on its own, as each turn of a conversation always is'
            cand --explain 'Say what made each hit''s score: its keyword and meaning shares, and each factor (recency, feedback, importance, superseded, time), the reply credited to it or the link that reached it'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;tag'= {
            cand -t 'Add a tag (repeatable)'
            cand --tag 'Add a tag (repeatable)'
            cand --remove 'Remove a key with all its values (repeatable)'
            cand --remove-value 'Remove one value of a key (repeatable)'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;del'= {
            cand --reason 'Why, kept with the note in the trash'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --purge 'Delete for good now instead of putting in the trash'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;restore'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;log'= {
            cand --agent 'Only writes by this agent (cli, browser, watch, api, keep, or an MCP client''s name/version)'
            cand --since 'Only writes since: an ISO 8601 duration back from now (P7D), a date or a timestamp'
            cand -n 'Show at most N entries'
            cand --limit 'Show at most N entries'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;stats'= {
            cand --waiting 'Also name up to N notes waiting for a vector, the most recently updated first'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;revert'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --delete 'Delete a note that has no earlier version instead of refusing'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;rate'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;supersede'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;conflicts'= {
            cand -t 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)'
            cand --tag 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)'
            cand --since 'Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp'
            cand --until 'Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp'
            cand --as-of 'Only what held then, each note as it stood (superseded and expired ones included while they held): a date, a timestamp, a duration back from now or a spoken day'
            cand --when 'Only notes whose event time (put --at), or a date their text speaks of, falls in PERIOD: 2023, 2023-05, 2023-05-07, last week, P7D or FROM..UNTIL'
            cand --from 'Only notes whose text came from these origins (_origin): typed (by a person on the command line or the browser), agent (put through MCP or the JSON API), document (a file), web (a URL), imported (a chat or an export); comma-separated'
            cand -n 'Show at most N pairs'
            cand --limit 'Show at most N pairs'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand -a 'Include system notes (ids starting with ''.''), expired notes and notes in the trash'
            cand --all 'Include system notes (ids starting with ''.''), expired notes and notes in the trash'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;context'= {
            cand --project 'Look for the notes of this project (words; default: the git repository''s name and the folders below it)'
            cand --since 'List what changed since the last session: a date, a timestamp or a duration back (P1D)'
            cand --max-tokens 'Keep the whole block within N tokens'
            cand --name 'Use the note ''now:NAME'' instead of ''now'''
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;now'= {
            cand --name 'Use the note ''now:NAME'''
            cand --scope 'Old name of --name, kept for one release'
            cand -t 'Add a tag when setting (repeatable)'
            cand --tag 'Add a tag when setting (repeatable)'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;move'= {
            cand --source 'Move from this note instead of ''now'''
            cand --now-name 'Move from ''now:NAME'' instead of ''now'''
            cand --scope 'Old name of --now-name, kept for one release'
            cand -t 'Only move states with this tag: KEY or KEY=VALUE (repeatable)'
            cand --tag 'Only move states with this tag: KEY or KEY=VALUE (repeatable)'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --only 'Only move the current state'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;export'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --no-vectors 'Leave the vectors out (a file about a third the size; an import then embeds everything again)'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;import'= {
            cand --format 'What FILE holds: a ''keep export'' file (export), a chat export (chat), or agent transcripts (claude-code, codex)'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand -v 'Also list the ids that were skipped, one per line on stderr'
            cand --verbose 'Also list the ids that were skipped, one per line on stderr'
            cand --allow-secrets 'Keep secrets (private keys, tokens, passwords) in a chat export as written instead of replacing each with a marker'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;why'= {
            cand -t 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)'
            cand --tag 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)'
            cand --since 'Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp'
            cand --until 'Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp'
            cand --as-of 'Only what held then, each note as it stood (superseded and expired ones included while they held): a date, a timestamp, a duration back from now or a spoken day'
            cand --when 'Only notes whose event time (put --at), or a date their text speaks of, falls in PERIOD: 2023, 2023-05, 2023-05-07, last week, P7D or FROM..UNTIL'
            cand --from 'Only notes whose text came from these origins (_origin): typed (by a person on the command line or the browser), agent (put through MCP or the JSON API), document (a file), web (a URL), imported (a chat or an export); comma-separated'
            cand -S 'Only ids matching this prefix or glob'
            cand --id-pattern 'Only ids matching this prefix or glob'
            cand -n 'How many hits the search shows'
            cand --limit 'How many hits the search shows'
            cand --mode 'Which candidates to rank: both fused, keywords only or embeddings only'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand -a 'Include system notes (ids starting with ''.''), expired notes and notes in the trash'
            cand --all 'Include system notes (ids starting with ''.''), expired notes and notes in the trash'
            cand --all-versions 'Also find notes superseded by newer ones'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;reindex'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --all 'Drop every vector and embed everything again'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;analyze'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --heuristic 'Cut by headings and paragraphs instead of asking a model'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;check'= {
            cand --residue 'Where TEXT is left in the store''s rows and files (''-'': read it from standard input)'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;repair'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;backup'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;models'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand list 'What is installed, where, its size and sha256 (the default)'
            cand install 'Install components (the runtime, the default model and OCR when none is named)'
            cand verify 'Check every installed file against its pinned sha256'
            cand remove 'Remove components'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keep;models;list'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'keep;models;install'= {
            cand --from 'Take the packages from this folder of wheels instead of downloading them'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'keep;models;verify'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'keep;models;remove'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'keep;models;help'= {
            cand list 'What is installed, where, its size and sha256 (the default)'
            cand install 'Install components (the runtime, the default model and OCR when none is named)'
            cand verify 'Check every installed file against its pinned sha256'
            cand remove 'Remove components'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keep;models;help;list'= {
        }
        &'keep;models;help;install'= {
        }
        &'keep;models;help;verify'= {
        }
        &'keep;models;help;remove'= {
        }
        &'keep;models;help;help'= {
        }
        &'keep;doctor'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;connect'= {
            cand --project 'Use the client''s file in project folder DIR instead of the user''s [default DIR: this folder]'
            cand --file 'Use this file instead of the client''s usual one'
            cand --http 'Call the keep serve at URL (e.g. http://127.0.0.1:7377/mcp) instead of starting keep mcp'
            cand --name 'The server''s name in the client'
            cand --allow 'Let put_file read files under DIR (passed to keep mcp; repeatable)'
            cand --scope 'Confine the server to notes tagged KEY=VALUE (passed to keep mcp; with --http --project, the rights of the project''s token; repeatable)'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --write 'Merge the entry into the file (the old file kept as FILE.keep.bak) instead of printing it'
            cand --hooks 'Also run keep at the start and end of each session (Claude Code''s hooks; other clients: print what to add to their instructions)'
            cand --remove 'Take keep''s entry (and with --hooks, its hooks) out of the client''s files'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;hook'= {
            cand --import 'Import this transcript (what the end hooks start in the background)'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;token'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand add 'Make a token and print its secret (shown this once)'
            cand list 'The tokens: name, rights, scope, when made, last used and expires (never a secret)'
            cand revoke 'Refuse a token from its next request on'
            cand rotate 'Give a token a new secret, its rights unchanged, and print it'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keep;token;add'= {
            cand --scope 'Sees and writes only notes tagged KEY=VALUE (repeatable)'
            cand --expires 'Stops being accepted then: a duration (P30D) or a date'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --read-only 'May only read: every tool and route that writes is refused'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'keep;token;list'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'keep;token;revoke'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'keep;token;rotate'= {
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'keep;token;help'= {
            cand add 'Make a token and print its secret (shown this once)'
            cand list 'The tokens: name, rights, scope, when made, last used and expires (never a secret)'
            cand revoke 'Refuse a token from its next request on'
            cand rotate 'Give a token a new secret, its rights unchanged, and print it'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keep;token;help;add'= {
        }
        &'keep;token;help;list'= {
        }
        &'keep;token;help;revoke'= {
        }
        &'keep;token;help;rotate'= {
        }
        &'keep;token;help;help'= {
        }
        &'keep;watch'= {
            cand --remove 'Stop watching DIR (its notes stay)'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --list 'List the watched folders and which process holds the watch'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;ui'= {
            cand --theme 'Colour theme: dark, light, high-contrast, monochrome or a user theme [default: the config file''s, else dark]'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;mcp'= {
            cand --allow 'Let put_file read files under DIR (repeatable)'
            cand --scope 'Confine every tool to notes tagged KEY=VALUE, and tag every note written with it (repeatable; all apply)'
            cand --tools 'Which tools clients are shown: core (the tools of every session, compact) or all (every tool, with output schemas)'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --allow-hidden 'Let put_file read hidden files and folders (names starting with ''.'') under the folders allowed'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;serve'= {
            cand --listen 'Address to listen on (port 0: any free port)'
            cand --allow 'Let put_file read files under DIR (repeatable)'
            cand --scope 'Confine every tool to notes tagged KEY=VALUE, and tag every note written with it (repeatable)'
            cand --tools 'Which tools MCP clients are shown: core (the tools of every session, compact) or all (every tool, with output schemas)'
            cand --tls-cert 'Serve HTTPS with this certificate chain (PEM; read again when it changes)'
            cand --tls-key 'The private key of --tls-cert (PEM)'
            cand --session-timeout 'Close an MCP session after SECONDS without a request'
            cand --store 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]'
            cand --allow-hidden 'Let put_file read hidden files and folders (names starting with ''.'') under the folders allowed'
            cand --require-token 'Ask for a token on a loopback address too (without it, a request with no token from this user on this machine is the owner''s)'
            cand --token 'Print the store''s token (made on first use, kept with mode 0600) and exit'
            cand --status 'Ask the store''s server how it is: store reachable, model, backlog, uptime (exit 1 when none answers or the store is unreachable)'
            cand --json 'Print one JSON document instead of text'
            cand --ids 'Print only ids, one per line (for xargs)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'keep;help'= {
            cand put 'Store text, standard input, files, folders or web pages as notes'
            cand get 'Show notes, an archived version (ID@V{N}) or a part (ID@P{N})'
            cand list 'List notes, most recently updated first'
            cand find 'Find notes by meaning and by keyword, best first'
            cand tag 'Add or remove tags on notes'
            cand del 'Put notes in the trash, delete them for good, or delete one archived version of a note'
            cand restore 'Take notes out of the trash'
            cand log 'Show who changed what: every write, newest first'
            cand stats 'Show what the store holds: notes, versions, parts, vectors, the commonest tag keys, what each source added, each agent''s writes, and its size'
            cand revert 'Undo the last change of notes: restore the previous version'
            cand rate 'Rate a note as useful or wrong'
            cand supersede 'Accept a note as the successor of the notes it replaces'
            cand conflicts 'List pairs of live notes that look like two values for one subject'
            cand context 'Print what a session should start with, within a token budget'
            cand now 'Show or replace the working-intentions note, ''now'''
            cand move 'Move the version history of ''now'' (or of another note) into a named note'
            cand export 'Export every note, with tags, full history and parts, as JSON Lines'
            cand import 'Import notes from a file written by ''keep export'', or conversations (--format chat)'
            cand why 'Say why a note is, or is not, among the hits of a search'
            cand reindex 'Embed everything that has no vector yet, with the configured model'
            cand analyze 'Cut a note into meaningful parts with a language model'
            cand check 'Verify the store: the database file, indexes, vectors, numbering'
            cand repair 'Make the indexes, vectors and codes again, without changing a note'
            cand backup 'Write a consistent copy of the store to a new file'
            cand models 'List, install, verify or remove the files keep runs on'
            cand doctor 'Check the runtime, the models, the store, a server, watched folders and the config file'
            cand connect 'Give an MCP client (Claude Code, Cursor, VS Code, ...) keep''s memory'
            cand hook 'Run by a client''s session hooks (keep connect CLIENT --hooks installs them)'
            cand token 'Tokens for the clients of keep serve, each with its own rights'
            cand watch 'Keep the registered folders indexed until interrupted'
            cand ui 'Browse, search, read and tag notes in a full-screen terminal browser'
            cand mcp 'Serve keep''s memory to agents over the Model Context Protocol'
            cand serve 'Serve the store to many MCP clients, scripts and commands at once'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keep;help;put'= {
        }
        &'keep;help;get'= {
        }
        &'keep;help;list'= {
        }
        &'keep;help;find'= {
        }
        &'keep;help;tag'= {
        }
        &'keep;help;del'= {
        }
        &'keep;help;restore'= {
        }
        &'keep;help;log'= {
        }
        &'keep;help;stats'= {
        }
        &'keep;help;revert'= {
        }
        &'keep;help;rate'= {
        }
        &'keep;help;supersede'= {
        }
        &'keep;help;conflicts'= {
        }
        &'keep;help;context'= {
        }
        &'keep;help;now'= {
        }
        &'keep;help;move'= {
        }
        &'keep;help;export'= {
        }
        &'keep;help;import'= {
        }
        &'keep;help;why'= {
        }
        &'keep;help;reindex'= {
        }
        &'keep;help;analyze'= {
        }
        &'keep;help;check'= {
        }
        &'keep;help;repair'= {
        }
        &'keep;help;backup'= {
        }
        &'keep;help;models'= {
            cand list 'What is installed, where, its size and sha256 (the default)'
            cand install 'Install components (the runtime, the default model and OCR when none is named)'
            cand verify 'Check every installed file against its pinned sha256'
            cand remove 'Remove components'
        }
        &'keep;help;models;list'= {
        }
        &'keep;help;models;install'= {
        }
        &'keep;help;models;verify'= {
        }
        &'keep;help;models;remove'= {
        }
        &'keep;help;doctor'= {
        }
        &'keep;help;connect'= {
        }
        &'keep;help;hook'= {
        }
        &'keep;help;token'= {
            cand add 'Make a token and print its secret (shown this once)'
            cand list 'The tokens: name, rights, scope, when made, last used and expires (never a secret)'
            cand revoke 'Refuse a token from its next request on'
            cand rotate 'Give a token a new secret, its rights unchanged, and print it'
        }
        &'keep;help;token;add'= {
        }
        &'keep;help;token;list'= {
        }
        &'keep;help;token;revoke'= {
        }
        &'keep;help;token;rotate'= {
        }
        &'keep;help;watch'= {
        }
        &'keep;help;ui'= {
        }
        &'keep;help;mcp'= {
        }
        &'keep;help;serve'= {
        }
        &'keep;help;help'= {
        }
    ]
    $completions[$command]
}
