
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'keep' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'keep'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'keep' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('put', 'put', [CompletionResultType]::ParameterValue, 'Store text, standard input, files, folders or web pages as notes')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show notes, an archived version (ID@V{N}) or a part (ID@P{N})')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List notes, most recently updated first')
            [CompletionResult]::new('find', 'find', [CompletionResultType]::ParameterValue, 'Find notes by meaning and by keyword, best first')
            [CompletionResult]::new('tag', 'tag', [CompletionResultType]::ParameterValue, 'Add or remove tags on notes')
            [CompletionResult]::new('del', 'del', [CompletionResultType]::ParameterValue, 'Put notes in the trash, delete them for good, or delete one archived version of a note')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Take notes out of the trash')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show who changed what: every write, newest first')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Show what the store holds: notes, versions, parts, vectors, the commonest tag keys, what each source added, each agent''s writes, and its size')
            [CompletionResult]::new('revert', 'revert', [CompletionResultType]::ParameterValue, 'Undo the last change of notes: restore the previous version')
            [CompletionResult]::new('rate', 'rate', [CompletionResultType]::ParameterValue, 'Rate a note as useful or wrong')
            [CompletionResult]::new('supersede', 'supersede', [CompletionResultType]::ParameterValue, 'Accept a note as the successor of the notes it replaces')
            [CompletionResult]::new('conflicts', 'conflicts', [CompletionResultType]::ParameterValue, 'List pairs of live notes that look like two values for one subject')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Print what a session should start with, within a token budget')
            [CompletionResult]::new('now', 'now', [CompletionResultType]::ParameterValue, 'Show or replace the working-intentions note, ''now''')
            [CompletionResult]::new('move', 'move', [CompletionResultType]::ParameterValue, 'Move the version history of ''now'' (or of another note) into a named note')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Export every note, with tags, full history and parts, as JSON Lines')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import notes from a file written by ''keep export'', or conversations (--format chat)')
            [CompletionResult]::new('why', 'why', [CompletionResultType]::ParameterValue, 'Say why a note is, or is not, among the hits of a search')
            [CompletionResult]::new('reindex', 'reindex', [CompletionResultType]::ParameterValue, 'Embed everything that has no vector yet, with the configured model')
            [CompletionResult]::new('analyze', 'analyze', [CompletionResultType]::ParameterValue, 'Cut a note into meaningful parts with a language model')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Verify the store: the database file, indexes, vectors, numbering')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Make the indexes, vectors and codes again, without changing a note')
            [CompletionResult]::new('backup', 'backup', [CompletionResultType]::ParameterValue, 'Write a consistent copy of the store to a new file')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List, install, verify or remove the files keep runs on')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the runtime, the models, the store, a server, watched folders and the config file')
            [CompletionResult]::new('connect', 'connect', [CompletionResultType]::ParameterValue, 'Give an MCP client (Claude Code, Cursor, VS Code, ...) keep''s memory')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Run by a client''s session hooks (keep connect CLIENT --hooks installs them)')
            [CompletionResult]::new('token', 'token', [CompletionResultType]::ParameterValue, 'Tokens for the clients of keep serve, each with its own rights')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Keep the registered folders indexed until interrupted')
            [CompletionResult]::new('ui', 'ui', [CompletionResultType]::ParameterValue, 'Browse, search, read and tag notes in a full-screen terminal browser')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve keep''s memory to agents over the Model Context Protocol')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the store to many MCP clients, scripts and commands at once')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keep;put' {
            [CompletionResult]::new('--text', '--text', [CompletionResultType]::ParameterName, 'Store TEXT as text, even if it looks like a path or starts with ''-''')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Store under this id instead of the one derived from the content (one input only)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Add a tag (repeatable)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Add a tag (repeatable)')
            [CompletionResult]::new('--summary', '--summary', [CompletionResultType]::ParameterName, 'Use this summary instead of one made from the content')
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'When it happened or began to hold (default: a file''s own date, else now): a duration back from now (P2D), a date, a timestamp or a spoken day (yesterday)')
            [CompletionResult]::new('--expires', '--expires', [CompletionResultType]::ParameterName, 'The note stops being true after this: an ISO 8601 duration from now (from --at when given: P30D), a date or a timestamp')
            [CompletionResult]::new('--importance', '--importance', [CompletionResultType]::ParameterName, 'How much the note matters, 1 to 5 (3 is usual): recall ranks it up to a fifth higher or lower')
            [CompletionResult]::new('--supersedes', '--supersedes', [CompletionResultType]::ParameterName, 'This note replaces note ID, which recall then hides (repeatable)')
            [CompletionResult]::new('-x', '-x', [CompletionResultType]::ParameterName, 'Leave out files and folders matching GLOB (gitignore syntax; repeatable)')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave out files and folders matching GLOB (gitignore syntax; repeatable)')
            [CompletionResult]::new('--max-files', '--max-files', [CompletionResultType]::ParameterName, 'Take at most N files from each folder')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--update', '--update', [CompletionResultType]::ParameterName, 'When the text restates or probably updates an existing note, store it as that note''s next version')
            [CompletionResult]::new('--allow-duplicate', '--allow-duplicate', [CompletionResultType]::ParameterName, 'Store the text even when it restates an existing note')
            [CompletionResult]::new('--allow-secrets', '--allow-secrets', [CompletionResultType]::ParameterName, 'Keep secrets (private keys, tokens, passwords in URLs and configuration) as written instead of replacing each with a marker')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Also take the files in subfolders of a folder')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Also take the files in subfolders of a folder')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Also register the folders to be kept indexed by ''keep watch''')
            [CompletionResult]::new('--timings', '--timings', [CompletionResultType]::ParameterName, 'When files were read, say on stderr where the time went: reading and extracting (OCR included), summarising, storing, embedding')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;get' {
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Show version N: 0 current, 1 previous, negative counts from the oldest (-1 = oldest)')
            [CompletionResult]::new('--at-version', '--at-version', [CompletionResultType]::ParameterName, 'Show version N: 0 current, 1 previous, negative counts from the oldest (-1 = oldest)')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Show the state that held then (the latest begun by WHEN): a date, a timestamp, a duration back from now or a spoken day')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'With --similar, show at most N notes')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'With --similar, show at most N notes')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only show notes that have this tag (KEY or KEY=VALUE, repeatable)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Only show notes that have this tag (KEY or KEY=VALUE, repeatable)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--history', '--history', [CompletionResultType]::ParameterName, 'List the note''s versions (current first) instead of showing it')
            [CompletionResult]::new('--parts', '--parts', [CompletionResultType]::ParameterName, 'List the note''s parts (ID@P{N} and the start of each) instead of showing it')
            [CompletionResult]::new('--text', '--text', [CompletionResultType]::ParameterName, 'Print each note''s whole text (its parts joined by a blank line, or its summary when it has none) instead of showing it; a text of more than 1000 parts (about 1.5 MB) keeps only those, and put said so')
            [CompletionResult]::new('--similar', '--similar', [CompletionResultType]::ParameterName, 'List the notes most similar in meaning to each note instead of showing it')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;list' {
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Only what held then, each note as it stood (superseded and expired ones included while they held): a date, a timestamp, a duration back from now or a spoken day')
            [CompletionResult]::new('--when', '--when', [CompletionResultType]::ParameterName, 'Only notes whose event time (put --at), or a date their text speaks of, falls in PERIOD: 2023, 2023-05, 2023-05-07, last week, P7D or FROM..UNTIL')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Only notes whose text came from these origins (_origin): typed (by a person on the command line or the browser), agent (put through MCP or the JSON API), document (a file), web (a URL), imported (a chat or an export); comma-separated')
            [CompletionResult]::new('--sort', '--sort', [CompletionResultType]::ParameterName, 'Sort order')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N notes')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N notes')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Include system notes (ids starting with ''.''), expired notes and notes in the trash')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Include system notes (ids starting with ''.''), expired notes and notes in the trash')
            [CompletionResult]::new('--expired', '--expired', [CompletionResultType]::ParameterName, 'Only notes whose expiry time (put --expires) has passed')
            [CompletionResult]::new('--deleted', '--deleted', [CompletionResultType]::ParameterName, 'Only notes in the trash (keep del; keep restore brings one back)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;find' {
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Find notes similar to this note instead of matching a query')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Only what held then, each note as it stood (superseded and expired ones included while they held): a date, a timestamp, a duration back from now or a spoken day')
            [CompletionResult]::new('--when', '--when', [CompletionResultType]::ParameterName, 'Only notes whose event time (put --at), or a date their text speaks of, falls in PERIOD: 2023, 2023-05, 2023-05-07, last week, P7D or FROM..UNTIL')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Only notes whose text came from these origins (_origin): typed (by a person on the command line or the browser), agent (put through MCP or the JSON API), document (a file), web (a URL), imported (a chat or an export); comma-separated')
            [CompletionResult]::new('-S', '-S ', [CompletionResultType]::ParameterName, 'Only ids matching this prefix or glob')
            [CompletionResult]::new('--id-pattern', '--id-pattern', [CompletionResultType]::ParameterName, 'Only ids matching this prefix or glob')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Old name of --id-pattern, kept for one release')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N notes (deep recall adds up to N more, at least 10)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N notes (deep recall adds up to N more, at least 10)')
            [CompletionResult]::new('--hops', '--hops', [CompletionResultType]::ParameterName, 'How many links deep recall follows, 1 to 5 [default: 2]; implies --deep')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Which candidates to rank: both fused, keywords only (no model is loaded) or embeddings only')
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'Return whole results, best first, until their JSON forms reach N tokens of the embedding model''s tokenizer; say on stderr how many were left out')
            [CompletionResult]::new('--half-life', '--half-life', [CompletionResultType]::ParameterName, 'Recency half-life in days; 0 turns decay off [default: 30, or half_life_days in the config file]')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Show N parts before and after each part found (the turns around a turn of a conversation)')
            [CompletionResult]::new('--around', '--around', [CompletionResultType]::ParameterName, 'Show N parts before and after each part found (the turns around a turn of a conversation)')
            [CompletionResult]::new('--floor', '--floor', [CompletionResultType]::ParameterName, 'The relevance floor, 0 to 1: when every hit is below it, none is shown; 0 shows the nearest, however far [default: 0.23]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Include system notes (ids starting with ''.''), expired notes and notes in the trash')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Include system notes (ids starting with ''.''), expired notes and notes in the trash')
            [CompletionResult]::new('--deep', '--deep', [CompletionResultType]::ParameterName, 'Also follow edges and shared tags from the top hits (two links deep unless --hops says)')
            [CompletionResult]::new('--all-versions', '--all-versions', [CompletionResultType]::ParameterName, 'Also find notes superseded by newer ones (ranked below them)')
            [CompletionResult]::new('--parts', '--parts', [CompletionResultType]::ParameterName, 'Find each part of a document on its own, as each turn of a conversation always is')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Say what made each hit''s score: its keyword and meaning shares, and each factor (recency, feedback, importance, superseded, time), the reply credited to it or the link that reached it')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;tag' {
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Add a tag (repeatable)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Add a tag (repeatable)')
            [CompletionResult]::new('--remove', '--remove', [CompletionResultType]::ParameterName, 'Remove a key with all its values (repeatable)')
            [CompletionResult]::new('--remove-value', '--remove-value', [CompletionResultType]::ParameterName, 'Remove one value of a key (repeatable)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;del' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why, kept with the note in the trash')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--purge', '--purge', [CompletionResultType]::ParameterName, 'Delete for good now instead of putting in the trash')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;restore' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;log' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only writes by this agent (cli, browser, watch, api, keep, or an MCP client''s name/version)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only writes since: an ISO 8601 duration back from now (P7D), a date or a timestamp')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N entries')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N entries')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;stats' {
            [CompletionResult]::new('--waiting', '--waiting', [CompletionResultType]::ParameterName, 'Also name up to N notes waiting for a vector, the most recently updated first')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;revert' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--delete', '--delete', [CompletionResultType]::ParameterName, 'Delete a note that has no earlier version instead of refusing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;rate' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;supersede' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;conflicts' {
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Only what held then, each note as it stood (superseded and expired ones included while they held): a date, a timestamp, a duration back from now or a spoken day')
            [CompletionResult]::new('--when', '--when', [CompletionResultType]::ParameterName, 'Only notes whose event time (put --at), or a date their text speaks of, falls in PERIOD: 2023, 2023-05, 2023-05-07, last week, P7D or FROM..UNTIL')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Only notes whose text came from these origins (_origin): typed (by a person on the command line or the browser), agent (put through MCP or the JSON API), document (a file), web (a URL), imported (a chat or an export); comma-separated')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N pairs')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N pairs')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Include system notes (ids starting with ''.''), expired notes and notes in the trash')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Include system notes (ids starting with ''.''), expired notes and notes in the trash')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;context' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Look for the notes of this project (words; default: the git repository''s name and the folders below it)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'List what changed since the last session: a date, a timestamp or a duration back (P1D)')
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'Keep the whole block within N tokens')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Use the note ''now:NAME'' instead of ''now''')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;now' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Use the note ''now:NAME''')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Old name of --name, kept for one release')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Add a tag when setting (repeatable)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Add a tag when setting (repeatable)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;move' {
            [CompletionResult]::new('--source', '--source', [CompletionResultType]::ParameterName, 'Move from this note instead of ''now''')
            [CompletionResult]::new('--now-name', '--now-name', [CompletionResultType]::ParameterName, 'Move from ''now:NAME'' instead of ''now''')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Old name of --now-name, kept for one release')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only move states with this tag: KEY or KEY=VALUE (repeatable)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Only move states with this tag: KEY or KEY=VALUE (repeatable)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only move the current state')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;export' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--no-vectors', '--no-vectors', [CompletionResultType]::ParameterName, 'Leave the vectors out (a file about a third the size; an import then embeds everything again)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;import' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'What FILE holds: a ''keep export'' file (export), a chat export (chat), or agent transcripts (claude-code, codex)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also list the ids that were skipped, one per line on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also list the ids that were skipped, one per line on stderr')
            [CompletionResult]::new('--allow-secrets', '--allow-secrets', [CompletionResultType]::ParameterName, 'Keep secrets (private keys, tokens, passwords) in a chat export as written instead of replacing each with a marker')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;why' {
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Only what held then, each note as it stood (superseded and expired ones included while they held): a date, a timestamp, a duration back from now or a spoken day')
            [CompletionResult]::new('--when', '--when', [CompletionResultType]::ParameterName, 'Only notes whose event time (put --at), or a date their text speaks of, falls in PERIOD: 2023, 2023-05, 2023-05-07, last week, P7D or FROM..UNTIL')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Only notes whose text came from these origins (_origin): typed (by a person on the command line or the browser), agent (put through MCP or the JSON API), document (a file), web (a URL), imported (a chat or an export); comma-separated')
            [CompletionResult]::new('-S', '-S ', [CompletionResultType]::ParameterName, 'Only ids matching this prefix or glob')
            [CompletionResult]::new('--id-pattern', '--id-pattern', [CompletionResultType]::ParameterName, 'Only ids matching this prefix or glob')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'How many hits the search shows')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many hits the search shows')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Which candidates to rank: both fused, keywords only or embeddings only')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Include system notes (ids starting with ''.''), expired notes and notes in the trash')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Include system notes (ids starting with ''.''), expired notes and notes in the trash')
            [CompletionResult]::new('--all-versions', '--all-versions', [CompletionResultType]::ParameterName, 'Also find notes superseded by newer ones')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;reindex' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Drop every vector and embed everything again')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;analyze' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--heuristic', '--heuristic', [CompletionResultType]::ParameterName, 'Cut by headings and paragraphs instead of asking a model')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;check' {
            [CompletionResult]::new('--residue', '--residue', [CompletionResultType]::ParameterName, 'Where TEXT is left in the store''s rows and files (''-'': read it from standard input)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;repair' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;backup' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;models' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'What is installed, where, its size and sha256 (the default)')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install components (the runtime, the default model and OCR when none is named)')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check every installed file against its pinned sha256')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove components')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keep;models;list' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'keep;models;install' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Take the packages from this folder of wheels instead of downloading them')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'keep;models;verify' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'keep;models;remove' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'keep;models;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'What is installed, where, its size and sha256 (the default)')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install components (the runtime, the default model and OCR when none is named)')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check every installed file against its pinned sha256')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove components')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keep;models;help;list' {
            break
        }
        'keep;models;help;install' {
            break
        }
        'keep;models;help;verify' {
            break
        }
        'keep;models;help;remove' {
            break
        }
        'keep;models;help;help' {
            break
        }
        'keep;doctor' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;connect' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Use the client''s file in project folder DIR instead of the user''s [default DIR: this folder]')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Use this file instead of the client''s usual one')
            [CompletionResult]::new('--http', '--http', [CompletionResultType]::ParameterName, 'Call the keep serve at URL (e.g. http://127.0.0.1:7377/mcp) instead of starting keep mcp')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The server''s name in the client')
            [CompletionResult]::new('--allow', '--allow', [CompletionResultType]::ParameterName, 'Let put_file read files under DIR (passed to keep mcp; repeatable)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Confine the server to notes tagged KEY=VALUE (passed to keep mcp; with --http --project, the rights of the project''s token; repeatable)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--write', '--write', [CompletionResultType]::ParameterName, 'Merge the entry into the file (the old file kept as FILE.keep.bak) instead of printing it')
            [CompletionResult]::new('--hooks', '--hooks', [CompletionResultType]::ParameterName, 'Also run keep at the start and end of each session (Claude Code''s hooks; other clients: print what to add to their instructions)')
            [CompletionResult]::new('--remove', '--remove', [CompletionResultType]::ParameterName, 'Take keep''s entry (and with --hooks, its hooks) out of the client''s files')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;hook' {
            [CompletionResult]::new('--import', '--import', [CompletionResultType]::ParameterName, 'Import this transcript (what the end hooks start in the background)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;token' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Make a token and print its secret (shown this once)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The tokens: name, rights, scope, when made, last used and expires (never a secret)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Refuse a token from its next request on')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Give a token a new secret, its rights unchanged, and print it')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keep;token;add' {
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Sees and writes only notes tagged KEY=VALUE (repeatable)')
            [CompletionResult]::new('--expires', '--expires', [CompletionResultType]::ParameterName, 'Stops being accepted then: a duration (P30D) or a date')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'May only read: every tool and route that writes is refused')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'keep;token;list' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'keep;token;revoke' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'keep;token;rotate' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'keep;token;help' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Make a token and print its secret (shown this once)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The tokens: name, rights, scope, when made, last used and expires (never a secret)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Refuse a token from its next request on')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Give a token a new secret, its rights unchanged, and print it')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keep;token;help;add' {
            break
        }
        'keep;token;help;list' {
            break
        }
        'keep;token;help;revoke' {
            break
        }
        'keep;token;help;rotate' {
            break
        }
        'keep;token;help;help' {
            break
        }
        'keep;watch' {
            [CompletionResult]::new('--remove', '--remove', [CompletionResultType]::ParameterName, 'Stop watching DIR (its notes stay)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List the watched folders and which process holds the watch')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;ui' {
            [CompletionResult]::new('--theme', '--theme', [CompletionResultType]::ParameterName, 'Colour theme: dark, light, high-contrast, monochrome or a user theme [default: the config file''s, else dark]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;mcp' {
            [CompletionResult]::new('--allow', '--allow', [CompletionResultType]::ParameterName, 'Let put_file read files under DIR (repeatable)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Confine every tool to notes tagged KEY=VALUE, and tag every note written with it (repeatable; all apply)')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Which tools clients are shown: core (the tools of every session, compact) or all (every tool, with output schemas)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--allow-hidden', '--allow-hidden', [CompletionResultType]::ParameterName, 'Let put_file read hidden files and folders (names starting with ''.'') under the folders allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;serve' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Address to listen on (port 0: any free port)')
            [CompletionResult]::new('--allow', '--allow', [CompletionResultType]::ParameterName, 'Let put_file read files under DIR (repeatable)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Confine every tool to notes tagged KEY=VALUE, and tag every note written with it (repeatable)')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Which tools MCP clients are shown: core (the tools of every session, compact) or all (every tool, with output schemas)')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Serve HTTPS with this certificate chain (PEM; read again when it changes)')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The private key of --tls-cert (PEM)')
            [CompletionResult]::new('--session-timeout', '--session-timeout', [CompletionResultType]::ParameterName, 'Close an MCP session after SECONDS without a request')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]')
            [CompletionResult]::new('--allow-hidden', '--allow-hidden', [CompletionResultType]::ParameterName, 'Let put_file read hidden files and folders (names starting with ''.'') under the folders allowed')
            [CompletionResult]::new('--require-token', '--require-token', [CompletionResultType]::ParameterName, 'Ask for a token on a loopback address too (without it, a request with no token from this user on this machine is the owner''s)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Print the store''s token (made on first use, kept with mode 0600) and exit')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Ask the store''s server how it is: store reachable, model, backlog, uptime (exit 1 when none answers or the store is unreachable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of text')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only ids, one per line (for xargs)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'keep;help' {
            [CompletionResult]::new('put', 'put', [CompletionResultType]::ParameterValue, 'Store text, standard input, files, folders or web pages as notes')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show notes, an archived version (ID@V{N}) or a part (ID@P{N})')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List notes, most recently updated first')
            [CompletionResult]::new('find', 'find', [CompletionResultType]::ParameterValue, 'Find notes by meaning and by keyword, best first')
            [CompletionResult]::new('tag', 'tag', [CompletionResultType]::ParameterValue, 'Add or remove tags on notes')
            [CompletionResult]::new('del', 'del', [CompletionResultType]::ParameterValue, 'Put notes in the trash, delete them for good, or delete one archived version of a note')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Take notes out of the trash')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show who changed what: every write, newest first')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Show what the store holds: notes, versions, parts, vectors, the commonest tag keys, what each source added, each agent''s writes, and its size')
            [CompletionResult]::new('revert', 'revert', [CompletionResultType]::ParameterValue, 'Undo the last change of notes: restore the previous version')
            [CompletionResult]::new('rate', 'rate', [CompletionResultType]::ParameterValue, 'Rate a note as useful or wrong')
            [CompletionResult]::new('supersede', 'supersede', [CompletionResultType]::ParameterValue, 'Accept a note as the successor of the notes it replaces')
            [CompletionResult]::new('conflicts', 'conflicts', [CompletionResultType]::ParameterValue, 'List pairs of live notes that look like two values for one subject')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Print what a session should start with, within a token budget')
            [CompletionResult]::new('now', 'now', [CompletionResultType]::ParameterValue, 'Show or replace the working-intentions note, ''now''')
            [CompletionResult]::new('move', 'move', [CompletionResultType]::ParameterValue, 'Move the version history of ''now'' (or of another note) into a named note')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Export every note, with tags, full history and parts, as JSON Lines')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import notes from a file written by ''keep export'', or conversations (--format chat)')
            [CompletionResult]::new('why', 'why', [CompletionResultType]::ParameterValue, 'Say why a note is, or is not, among the hits of a search')
            [CompletionResult]::new('reindex', 'reindex', [CompletionResultType]::ParameterValue, 'Embed everything that has no vector yet, with the configured model')
            [CompletionResult]::new('analyze', 'analyze', [CompletionResultType]::ParameterValue, 'Cut a note into meaningful parts with a language model')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Verify the store: the database file, indexes, vectors, numbering')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Make the indexes, vectors and codes again, without changing a note')
            [CompletionResult]::new('backup', 'backup', [CompletionResultType]::ParameterValue, 'Write a consistent copy of the store to a new file')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List, install, verify or remove the files keep runs on')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the runtime, the models, the store, a server, watched folders and the config file')
            [CompletionResult]::new('connect', 'connect', [CompletionResultType]::ParameterValue, 'Give an MCP client (Claude Code, Cursor, VS Code, ...) keep''s memory')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Run by a client''s session hooks (keep connect CLIENT --hooks installs them)')
            [CompletionResult]::new('token', 'token', [CompletionResultType]::ParameterValue, 'Tokens for the clients of keep serve, each with its own rights')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Keep the registered folders indexed until interrupted')
            [CompletionResult]::new('ui', 'ui', [CompletionResultType]::ParameterValue, 'Browse, search, read and tag notes in a full-screen terminal browser')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve keep''s memory to agents over the Model Context Protocol')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the store to many MCP clients, scripts and commands at once')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keep;help;put' {
            break
        }
        'keep;help;get' {
            break
        }
        'keep;help;list' {
            break
        }
        'keep;help;find' {
            break
        }
        'keep;help;tag' {
            break
        }
        'keep;help;del' {
            break
        }
        'keep;help;restore' {
            break
        }
        'keep;help;log' {
            break
        }
        'keep;help;stats' {
            break
        }
        'keep;help;revert' {
            break
        }
        'keep;help;rate' {
            break
        }
        'keep;help;supersede' {
            break
        }
        'keep;help;conflicts' {
            break
        }
        'keep;help;context' {
            break
        }
        'keep;help;now' {
            break
        }
        'keep;help;move' {
            break
        }
        'keep;help;export' {
            break
        }
        'keep;help;import' {
            break
        }
        'keep;help;why' {
            break
        }
        'keep;help;reindex' {
            break
        }
        'keep;help;analyze' {
            break
        }
        'keep;help;check' {
            break
        }
        'keep;help;repair' {
            break
        }
        'keep;help;backup' {
            break
        }
        'keep;help;models' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'What is installed, where, its size and sha256 (the default)')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install components (the runtime, the default model and OCR when none is named)')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check every installed file against its pinned sha256')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove components')
            break
        }
        'keep;help;models;list' {
            break
        }
        'keep;help;models;install' {
            break
        }
        'keep;help;models;verify' {
            break
        }
        'keep;help;models;remove' {
            break
        }
        'keep;help;doctor' {
            break
        }
        'keep;help;connect' {
            break
        }
        'keep;help;hook' {
            break
        }
        'keep;help;token' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Make a token and print its secret (shown this once)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The tokens: name, rights, scope, when made, last used and expires (never a secret)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Refuse a token from its next request on')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Give a token a new secret, its rights unchanged, and print it')
            break
        }
        'keep;help;token;add' {
            break
        }
        'keep;help;token;list' {
            break
        }
        'keep;help;token;revoke' {
            break
        }
        'keep;help;token;rotate' {
            break
        }
        'keep;help;watch' {
            break
        }
        'keep;help;ui' {
            break
        }
        'keep;help;mcp' {
            break
        }
        'keep;help;serve' {
            break
        }
        'keep;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
