# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_keep_global_optspecs
    string join \n store= json ids h/help V/version
end

function __fish_keep_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_keep_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_keep_using_subcommand
    set -l cmd (__fish_keep_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c keep -n "__fish_keep_needs_command" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_needs_command" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_needs_command" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_needs_command" -s V -l version -d 'Print version'
complete -c keep -n "__fish_keep_needs_command" -f -a "put" -d 'Store text, standard input, files, folders or web pages as notes'
complete -c keep -n "__fish_keep_needs_command" -f -a "get" -d 'Show notes, an archived version (ID@V{N}) or a part (ID@P{N})'
complete -c keep -n "__fish_keep_needs_command" -f -a "list" -d 'List notes, most recently updated first'
complete -c keep -n "__fish_keep_needs_command" -f -a "find" -d 'Find notes by meaning and by keyword, best first'
complete -c keep -n "__fish_keep_needs_command" -f -a "tag" -d 'Add or remove tags on notes'
complete -c keep -n "__fish_keep_needs_command" -f -a "del" -d 'Put notes in the trash, delete them for good, or delete one archived version of a note'
complete -c keep -n "__fish_keep_needs_command" -f -a "restore" -d 'Take notes out of the trash'
complete -c keep -n "__fish_keep_needs_command" -f -a "log" -d 'Show who changed what: every write, newest first'
complete -c keep -n "__fish_keep_needs_command" -f -a "stats" -d 'Show what the store holds: notes, versions, parts, vectors, the commonest tag keys, what each source added, each agent\'s writes, and its size'
complete -c keep -n "__fish_keep_needs_command" -f -a "revert" -d 'Undo the last change of notes: restore the previous version'
complete -c keep -n "__fish_keep_needs_command" -f -a "rate" -d 'Rate a note as useful or wrong'
complete -c keep -n "__fish_keep_needs_command" -f -a "supersede" -d 'Accept a note as the successor of the notes it replaces'
complete -c keep -n "__fish_keep_needs_command" -f -a "conflicts" -d 'List pairs of live notes that look like two values for one subject'
complete -c keep -n "__fish_keep_needs_command" -f -a "context" -d 'Print what a session should start with, within a token budget'
complete -c keep -n "__fish_keep_needs_command" -f -a "now" -d 'Show or replace the working-intentions note, \'now\''
complete -c keep -n "__fish_keep_needs_command" -f -a "move" -d 'Move the version history of \'now\' (or of another note) into a named note'
complete -c keep -n "__fish_keep_needs_command" -f -a "export" -d 'Export every note, with tags, full history and parts, as JSON Lines'
complete -c keep -n "__fish_keep_needs_command" -f -a "import" -d 'Import notes from a file written by \'keep export\', or conversations (--format chat)'
complete -c keep -n "__fish_keep_needs_command" -f -a "why" -d 'Say why a note is, or is not, among the hits of a search'
complete -c keep -n "__fish_keep_needs_command" -f -a "reindex" -d 'Embed everything that has no vector yet, with the configured model'
complete -c keep -n "__fish_keep_needs_command" -f -a "analyze" -d 'Cut a note into meaningful parts with a language model'
complete -c keep -n "__fish_keep_needs_command" -f -a "check" -d 'Verify the store: the database file, indexes, vectors, numbering'
complete -c keep -n "__fish_keep_needs_command" -f -a "repair" -d 'Make the indexes, vectors and codes again, without changing a note'
complete -c keep -n "__fish_keep_needs_command" -f -a "backup" -d 'Write a consistent copy of the store to a new file'
complete -c keep -n "__fish_keep_needs_command" -f -a "models" -d 'List, install, verify or remove the files keep runs on'
complete -c keep -n "__fish_keep_needs_command" -f -a "doctor" -d 'Check the runtime, the models, the store, a server, watched folders and the config file'
complete -c keep -n "__fish_keep_needs_command" -f -a "connect" -d 'Give an MCP client (Claude Code, Cursor, VS Code, ...) keep\'s memory'
complete -c keep -n "__fish_keep_needs_command" -f -a "hook" -d 'Run by a client\'s session hooks (keep connect CLIENT --hooks installs them)'
complete -c keep -n "__fish_keep_needs_command" -f -a "token" -d 'Tokens for the clients of keep serve, each with its own rights'
complete -c keep -n "__fish_keep_needs_command" -f -a "watch" -d 'Keep the registered folders indexed until interrupted'
complete -c keep -n "__fish_keep_needs_command" -f -a "ui" -d 'Browse, search, read and tag notes in a full-screen terminal browser'
complete -c keep -n "__fish_keep_needs_command" -f -a "mcp" -d 'Serve keep\'s memory to agents over the Model Context Protocol'
complete -c keep -n "__fish_keep_needs_command" -f -a "serve" -d 'Serve the store to many MCP clients, scripts and commands at once'
complete -c keep -n "__fish_keep_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keep -n "__fish_keep_using_subcommand put" -l text -d 'Store TEXT as text, even if it looks like a path or starts with \'-\'' -r
complete -c keep -n "__fish_keep_using_subcommand put" -l id -d 'Store under this id instead of the one derived from the content (one input only)' -r
complete -c keep -n "__fish_keep_using_subcommand put" -s t -l tag -d 'Add a tag (repeatable)' -r
complete -c keep -n "__fish_keep_using_subcommand put" -l summary -d 'Use this summary instead of one made from the content' -r
complete -c keep -n "__fish_keep_using_subcommand put" -l at -d 'When it happened or began to hold (default: a file\'s own date, else now): a duration back from now (P2D), a date, a timestamp or a spoken day (yesterday)' -r
complete -c keep -n "__fish_keep_using_subcommand put" -l expires -d 'The note stops being true after this: an ISO 8601 duration from now (from --at when given: P30D), a date or a timestamp' -r
complete -c keep -n "__fish_keep_using_subcommand put" -l importance -d 'How much the note matters, 1 to 5 (3 is usual): recall ranks it up to a fifth higher or lower' -r
complete -c keep -n "__fish_keep_using_subcommand put" -l supersedes -d 'This note replaces note ID, which recall then hides (repeatable)' -r
complete -c keep -n "__fish_keep_using_subcommand put" -s x -l exclude -d 'Leave out files and folders matching GLOB (gitignore syntax; repeatable)' -r
complete -c keep -n "__fish_keep_using_subcommand put" -l max-files -d 'Take at most N files from each folder' -r
complete -c keep -n "__fish_keep_using_subcommand put" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand put" -l update -d 'When the text restates or probably updates an existing note, store it as that note\'s next version'
complete -c keep -n "__fish_keep_using_subcommand put" -l allow-duplicate -d 'Store the text even when it restates an existing note'
complete -c keep -n "__fish_keep_using_subcommand put" -l allow-secrets -d 'Keep secrets (private keys, tokens, passwords in URLs and configuration) as written instead of replacing each with a marker'
complete -c keep -n "__fish_keep_using_subcommand put" -s r -l recursive -d 'Also take the files in subfolders of a folder'
complete -c keep -n "__fish_keep_using_subcommand put" -l watch -d 'Also register the folders to be kept indexed by \'keep watch\''
complete -c keep -n "__fish_keep_using_subcommand put" -l timings -d 'When files were read, say on stderr where the time went: reading and extracting (OCR included), summarising, storing, embedding'
complete -c keep -n "__fish_keep_using_subcommand put" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand put" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand put" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand get" -s V -l at-version -d 'Show version N: 0 current, 1 previous, negative counts from the oldest (-1 = oldest)' -r
complete -c keep -n "__fish_keep_using_subcommand get" -l as-of -d 'Show the state that held then (the latest begun by WHEN): a date, a timestamp, a duration back from now or a spoken day' -r
complete -c keep -n "__fish_keep_using_subcommand get" -s n -l limit -d 'With --similar, show at most N notes' -r
complete -c keep -n "__fish_keep_using_subcommand get" -s t -l tag -d 'Only show notes that have this tag (KEY or KEY=VALUE, repeatable)' -r
complete -c keep -n "__fish_keep_using_subcommand get" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand get" -l history -d 'List the note\'s versions (current first) instead of showing it'
complete -c keep -n "__fish_keep_using_subcommand get" -l parts -d 'List the note\'s parts (ID@P{N} and the start of each) instead of showing it'
complete -c keep -n "__fish_keep_using_subcommand get" -l text -d 'Print each note\'s whole text (its parts joined by a blank line, or its summary when it has none) instead of showing it; a text of more than 1000 parts (about 1.5 MB) keeps only those, and put said so'
complete -c keep -n "__fish_keep_using_subcommand get" -l similar -d 'List the notes most similar in meaning to each note instead of showing it'
complete -c keep -n "__fish_keep_using_subcommand get" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand get" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand get" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand list" -s t -l tag -d 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)' -r
complete -c keep -n "__fish_keep_using_subcommand list" -l since -d 'Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp' -r
complete -c keep -n "__fish_keep_using_subcommand list" -l until -d 'Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp' -r
complete -c keep -n "__fish_keep_using_subcommand list" -l as-of -d 'Only what held then, each note as it stood (superseded and expired ones included while they held): a date, a timestamp, a duration back from now or a spoken day' -r
complete -c keep -n "__fish_keep_using_subcommand list" -l when -d 'Only notes whose event time (put --at), or a date their text speaks of, falls in PERIOD: 2023, 2023-05, 2023-05-07, last week, P7D or FROM..UNTIL' -r
complete -c keep -n "__fish_keep_using_subcommand list" -l from -d 'Only notes whose text came from these origins (_origin): typed (by a person on the command line or the browser), agent (put through MCP or the JSON API), document (a file), web (a URL), imported (a chat or an export); comma-separated' -r
complete -c keep -n "__fish_keep_using_subcommand list" -l sort -d 'Sort order' -r -f -a "updated\t'Most recently updated first'
accessed\t'Most recently read first'
created\t'Most recently created first'
id\t'By id'"
complete -c keep -n "__fish_keep_using_subcommand list" -s n -l limit -d 'Show at most N notes' -r
complete -c keep -n "__fish_keep_using_subcommand list" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand list" -s a -l all -d 'Include system notes (ids starting with \'.\'), expired notes and notes in the trash'
complete -c keep -n "__fish_keep_using_subcommand list" -l expired -d 'Only notes whose expiry time (put --expires) has passed'
complete -c keep -n "__fish_keep_using_subcommand list" -l deleted -d 'Only notes in the trash (keep del; keep restore brings one back)'
complete -c keep -n "__fish_keep_using_subcommand list" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand list" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand find" -l id -d 'Find notes similar to this note instead of matching a query' -r
complete -c keep -n "__fish_keep_using_subcommand find" -s t -l tag -d 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)' -r
complete -c keep -n "__fish_keep_using_subcommand find" -l since -d 'Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp' -r
complete -c keep -n "__fish_keep_using_subcommand find" -l until -d 'Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp' -r
complete -c keep -n "__fish_keep_using_subcommand find" -l as-of -d 'Only what held then, each note as it stood (superseded and expired ones included while they held): a date, a timestamp, a duration back from now or a spoken day' -r
complete -c keep -n "__fish_keep_using_subcommand find" -l when -d 'Only notes whose event time (put --at), or a date their text speaks of, falls in PERIOD: 2023, 2023-05, 2023-05-07, last week, P7D or FROM..UNTIL' -r
complete -c keep -n "__fish_keep_using_subcommand find" -l from -d 'Only notes whose text came from these origins (_origin): typed (by a person on the command line or the browser), agent (put through MCP or the JSON API), document (a file), web (a URL), imported (a chat or an export); comma-separated' -r
complete -c keep -n "__fish_keep_using_subcommand find" -s S -l id-pattern -d 'Only ids matching this prefix or glob' -r
complete -c keep -n "__fish_keep_using_subcommand find" -l scope -d 'Old name of --id-pattern, kept for one release' -r
complete -c keep -n "__fish_keep_using_subcommand find" -s n -l limit -d 'Show at most N notes (deep recall adds up to N more, at least 10)' -r
complete -c keep -n "__fish_keep_using_subcommand find" -l hops -d 'How many links deep recall follows, 1 to 5 [default: 2]; implies --deep' -r
complete -c keep -n "__fish_keep_using_subcommand find" -l mode -d 'Which candidates to rank: both fused, keywords only (no model is loaded) or embeddings only' -r -f -a "hybrid\t''
keyword\t''
semantic\t''"
complete -c keep -n "__fish_keep_using_subcommand find" -l max-tokens -d 'Return whole results, best first, until their JSON forms reach N tokens of the embedding model\'s tokenizer; say on stderr how many were left out' -r
complete -c keep -n "__fish_keep_using_subcommand find" -l half-life -d 'Recency half-life in days; 0 turns decay off [default: 30, or half_life_days in the config file]' -r
complete -c keep -n "__fish_keep_using_subcommand find" -s C -l around -d 'Show N parts before and after each part found (the turns around a turn of a conversation)' -r
complete -c keep -n "__fish_keep_using_subcommand find" -l floor -d 'The relevance floor, 0 to 1: when every hit is below it, none is shown; 0 shows the nearest, however far [default: 0.23]' -r
complete -c keep -n "__fish_keep_using_subcommand find" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand find" -s a -l all -d 'Include system notes (ids starting with \'.\'), expired notes and notes in the trash'
complete -c keep -n "__fish_keep_using_subcommand find" -l deep -d 'Also follow edges and shared tags from the top hits (two links deep unless --hops says)'
complete -c keep -n "__fish_keep_using_subcommand find" -l all-versions -d 'Also find notes superseded by newer ones (ranked below them)'
complete -c keep -n "__fish_keep_using_subcommand find" -l parts -d 'Find each part of a document on its own, as each turn of a conversation always is'
complete -c keep -n "__fish_keep_using_subcommand find" -l explain -d 'Say what made each hit\'s score: its keyword and meaning shares, and each factor (recency, feedback, importance, superseded, time), the reply credited to it or the link that reached it'
complete -c keep -n "__fish_keep_using_subcommand find" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand find" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand find" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand tag" -s t -l tag -d 'Add a tag (repeatable)' -r
complete -c keep -n "__fish_keep_using_subcommand tag" -l remove -d 'Remove a key with all its values (repeatable)' -r
complete -c keep -n "__fish_keep_using_subcommand tag" -l remove-value -d 'Remove one value of a key (repeatable)' -r
complete -c keep -n "__fish_keep_using_subcommand tag" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand tag" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand tag" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand tag" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand del" -l reason -d 'Why, kept with the note in the trash' -r
complete -c keep -n "__fish_keep_using_subcommand del" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand del" -l purge -d 'Delete for good now instead of putting in the trash'
complete -c keep -n "__fish_keep_using_subcommand del" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand del" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand del" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand restore" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand restore" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand restore" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand restore" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand log" -l agent -d 'Only writes by this agent (cli, browser, watch, api, keep, or an MCP client\'s name/version)' -r
complete -c keep -n "__fish_keep_using_subcommand log" -l since -d 'Only writes since: an ISO 8601 duration back from now (P7D), a date or a timestamp' -r
complete -c keep -n "__fish_keep_using_subcommand log" -s n -l limit -d 'Show at most N entries' -r
complete -c keep -n "__fish_keep_using_subcommand log" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand log" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand log" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand stats" -l waiting -d 'Also name up to N notes waiting for a vector, the most recently updated first' -r
complete -c keep -n "__fish_keep_using_subcommand stats" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand stats" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand stats" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand revert" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand revert" -l delete -d 'Delete a note that has no earlier version instead of refusing'
complete -c keep -n "__fish_keep_using_subcommand revert" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand revert" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand revert" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand rate" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand rate" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand rate" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand rate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand supersede" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand supersede" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand supersede" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand supersede" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand conflicts" -s t -l tag -d 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)' -r
complete -c keep -n "__fish_keep_using_subcommand conflicts" -l since -d 'Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp' -r
complete -c keep -n "__fish_keep_using_subcommand conflicts" -l until -d 'Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp' -r
complete -c keep -n "__fish_keep_using_subcommand conflicts" -l as-of -d 'Only what held then, each note as it stood (superseded and expired ones included while they held): a date, a timestamp, a duration back from now or a spoken day' -r
complete -c keep -n "__fish_keep_using_subcommand conflicts" -l when -d 'Only notes whose event time (put --at), or a date their text speaks of, falls in PERIOD: 2023, 2023-05, 2023-05-07, last week, P7D or FROM..UNTIL' -r
complete -c keep -n "__fish_keep_using_subcommand conflicts" -l from -d 'Only notes whose text came from these origins (_origin): typed (by a person on the command line or the browser), agent (put through MCP or the JSON API), document (a file), web (a URL), imported (a chat or an export); comma-separated' -r
complete -c keep -n "__fish_keep_using_subcommand conflicts" -s n -l limit -d 'Show at most N pairs' -r
complete -c keep -n "__fish_keep_using_subcommand conflicts" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand conflicts" -s a -l all -d 'Include system notes (ids starting with \'.\'), expired notes and notes in the trash'
complete -c keep -n "__fish_keep_using_subcommand conflicts" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand conflicts" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand conflicts" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand context" -l project -d 'Look for the notes of this project (words; default: the git repository\'s name and the folders below it)' -r
complete -c keep -n "__fish_keep_using_subcommand context" -l since -d 'List what changed since the last session: a date, a timestamp or a duration back (P1D)' -r
complete -c keep -n "__fish_keep_using_subcommand context" -l max-tokens -d 'Keep the whole block within N tokens' -r
complete -c keep -n "__fish_keep_using_subcommand context" -l name -d 'Use the note \'now:NAME\' instead of \'now\'' -r
complete -c keep -n "__fish_keep_using_subcommand context" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand context" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand context" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand context" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand now" -l name -d 'Use the note \'now:NAME\'' -r
complete -c keep -n "__fish_keep_using_subcommand now" -l scope -d 'Old name of --name, kept for one release' -r
complete -c keep -n "__fish_keep_using_subcommand now" -s t -l tag -d 'Add a tag when setting (repeatable)' -r
complete -c keep -n "__fish_keep_using_subcommand now" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand now" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand now" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand now" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand move" -l source -d 'Move from this note instead of \'now\'' -r
complete -c keep -n "__fish_keep_using_subcommand move" -l now-name -d 'Move from \'now:NAME\' instead of \'now\'' -r
complete -c keep -n "__fish_keep_using_subcommand move" -l scope -d 'Old name of --now-name, kept for one release' -r
complete -c keep -n "__fish_keep_using_subcommand move" -s t -l tag -d 'Only move states with this tag: KEY or KEY=VALUE (repeatable)' -r
complete -c keep -n "__fish_keep_using_subcommand move" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand move" -l only -d 'Only move the current state'
complete -c keep -n "__fish_keep_using_subcommand move" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand move" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand move" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand export" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand export" -l no-vectors -d 'Leave the vectors out (a file about a third the size; an import then embeds everything again)'
complete -c keep -n "__fish_keep_using_subcommand export" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand export" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand import" -l format -d 'What FILE holds: a \'keep export\' file (export), a chat export (chat), or agent transcripts (claude-code, codex)' -r -f -a "export\t'A file written by \'keep export\''
chat\t'A chat export: ChatGPT or Claude conversations.json, JSON Lines of turns, a Markdown chat log, an agent\'s transcript'
claude-code\t'Claude Code transcripts: a session\'s .jsonl file, or a folder of them'
codex\t'Codex transcripts: a rollout .jsonl file, or a folder of them'"
complete -c keep -n "__fish_keep_using_subcommand import" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand import" -s v -l verbose -d 'Also list the ids that were skipped, one per line on stderr'
complete -c keep -n "__fish_keep_using_subcommand import" -l allow-secrets -d 'Keep secrets (private keys, tokens, passwords) in a chat export as written instead of replacing each with a marker'
complete -c keep -n "__fish_keep_using_subcommand import" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand import" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand why" -s t -l tag -d 'Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)' -r
complete -c keep -n "__fish_keep_using_subcommand why" -l since -d 'Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp' -r
complete -c keep -n "__fish_keep_using_subcommand why" -l until -d 'Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp' -r
complete -c keep -n "__fish_keep_using_subcommand why" -l as-of -d 'Only what held then, each note as it stood (superseded and expired ones included while they held): a date, a timestamp, a duration back from now or a spoken day' -r
complete -c keep -n "__fish_keep_using_subcommand why" -l when -d 'Only notes whose event time (put --at), or a date their text speaks of, falls in PERIOD: 2023, 2023-05, 2023-05-07, last week, P7D or FROM..UNTIL' -r
complete -c keep -n "__fish_keep_using_subcommand why" -l from -d 'Only notes whose text came from these origins (_origin): typed (by a person on the command line or the browser), agent (put through MCP or the JSON API), document (a file), web (a URL), imported (a chat or an export); comma-separated' -r
complete -c keep -n "__fish_keep_using_subcommand why" -s S -l id-pattern -d 'Only ids matching this prefix or glob' -r
complete -c keep -n "__fish_keep_using_subcommand why" -s n -l limit -d 'How many hits the search shows' -r
complete -c keep -n "__fish_keep_using_subcommand why" -l mode -d 'Which candidates to rank: both fused, keywords only or embeddings only' -r -f -a "hybrid\t''
keyword\t''
semantic\t''"
complete -c keep -n "__fish_keep_using_subcommand why" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand why" -s a -l all -d 'Include system notes (ids starting with \'.\'), expired notes and notes in the trash'
complete -c keep -n "__fish_keep_using_subcommand why" -l all-versions -d 'Also find notes superseded by newer ones'
complete -c keep -n "__fish_keep_using_subcommand why" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand why" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand why" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand reindex" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand reindex" -l all -d 'Drop every vector and embed everything again'
complete -c keep -n "__fish_keep_using_subcommand reindex" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand reindex" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand reindex" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand analyze" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand analyze" -l heuristic -d 'Cut by headings and paragraphs instead of asking a model'
complete -c keep -n "__fish_keep_using_subcommand analyze" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand analyze" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand analyze" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand check" -l residue -d 'Where TEXT is left in the store\'s rows and files (\'-\': read it from standard input)' -r
complete -c keep -n "__fish_keep_using_subcommand check" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand check" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand check" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand repair" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand repair" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand repair" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand repair" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand backup" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand backup" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand backup" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand backup" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand models; and not __fish_seen_subcommand_from list install verify remove help" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand models; and not __fish_seen_subcommand_from list install verify remove help" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand models; and not __fish_seen_subcommand_from list install verify remove help" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand models; and not __fish_seen_subcommand_from list install verify remove help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand models; and not __fish_seen_subcommand_from list install verify remove help" -f -a "list" -d 'What is installed, where, its size and sha256 (the default)'
complete -c keep -n "__fish_keep_using_subcommand models; and not __fish_seen_subcommand_from list install verify remove help" -f -a "install" -d 'Install components (the runtime, the default model and OCR when none is named)'
complete -c keep -n "__fish_keep_using_subcommand models; and not __fish_seen_subcommand_from list install verify remove help" -f -a "verify" -d 'Check every installed file against its pinned sha256'
complete -c keep -n "__fish_keep_using_subcommand models; and not __fish_seen_subcommand_from list install verify remove help" -f -a "remove" -d 'Remove components'
complete -c keep -n "__fish_keep_using_subcommand models; and not __fish_seen_subcommand_from list install verify remove help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from list" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from list" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from list" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from install" -l from -d 'Take the packages from this folder of wheels instead of downloading them' -r -F
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from install" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from install" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from install" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from verify" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from verify" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from verify" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from remove" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from remove" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from remove" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from help" -f -a "list" -d 'What is installed, where, its size and sha256 (the default)'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from help" -f -a "install" -d 'Install components (the runtime, the default model and OCR when none is named)'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Check every installed file against its pinned sha256'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Remove components'
complete -c keep -n "__fish_keep_using_subcommand models; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keep -n "__fish_keep_using_subcommand doctor" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand doctor" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand doctor" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand connect" -l project -d 'Use the client\'s file in project folder DIR instead of the user\'s [default DIR: this folder]' -r -F
complete -c keep -n "__fish_keep_using_subcommand connect" -l file -d 'Use this file instead of the client\'s usual one' -r -F
complete -c keep -n "__fish_keep_using_subcommand connect" -l http -d 'Call the keep serve at URL (e.g. http://127.0.0.1:7377/mcp) instead of starting keep mcp' -r
complete -c keep -n "__fish_keep_using_subcommand connect" -l name -d 'The server\'s name in the client' -r
complete -c keep -n "__fish_keep_using_subcommand connect" -l allow -d 'Let put_file read files under DIR (passed to keep mcp; repeatable)' -r -F
complete -c keep -n "__fish_keep_using_subcommand connect" -l scope -d 'Confine the server to notes tagged KEY=VALUE (passed to keep mcp; with --http --project, the rights of the project\'s token; repeatable)' -r
complete -c keep -n "__fish_keep_using_subcommand connect" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand connect" -l write -d 'Merge the entry into the file (the old file kept as FILE.keep.bak) instead of printing it'
complete -c keep -n "__fish_keep_using_subcommand connect" -l hooks -d 'Also run keep at the start and end of each session (Claude Code\'s hooks; other clients: print what to add to their instructions)'
complete -c keep -n "__fish_keep_using_subcommand connect" -l remove -d 'Take keep\'s entry (and with --hooks, its hooks) out of the client\'s files'
complete -c keep -n "__fish_keep_using_subcommand connect" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand connect" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand connect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand hook" -l import -d 'Import this transcript (what the end hooks start in the background)' -r -F
complete -c keep -n "__fish_keep_using_subcommand hook" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand hook" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand hook" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand hook" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand token; and not __fish_seen_subcommand_from add list revoke rotate help" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand token; and not __fish_seen_subcommand_from add list revoke rotate help" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand token; and not __fish_seen_subcommand_from add list revoke rotate help" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand token; and not __fish_seen_subcommand_from add list revoke rotate help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand token; and not __fish_seen_subcommand_from add list revoke rotate help" -f -a "add" -d 'Make a token and print its secret (shown this once)'
complete -c keep -n "__fish_keep_using_subcommand token; and not __fish_seen_subcommand_from add list revoke rotate help" -f -a "list" -d 'The tokens: name, rights, scope, when made, last used and expires (never a secret)'
complete -c keep -n "__fish_keep_using_subcommand token; and not __fish_seen_subcommand_from add list revoke rotate help" -f -a "revoke" -d 'Refuse a token from its next request on'
complete -c keep -n "__fish_keep_using_subcommand token; and not __fish_seen_subcommand_from add list revoke rotate help" -f -a "rotate" -d 'Give a token a new secret, its rights unchanged, and print it'
complete -c keep -n "__fish_keep_using_subcommand token; and not __fish_seen_subcommand_from add list revoke rotate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from add" -l scope -d 'Sees and writes only notes tagged KEY=VALUE (repeatable)' -r
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from add" -l expires -d 'Stops being accepted then: a duration (P30D) or a date' -r
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from add" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from add" -l read-only -d 'May only read: every tool and route that writes is refused'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from add" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from add" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from list" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from list" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from list" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from revoke" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from revoke" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from revoke" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from revoke" -s h -l help -d 'Print help'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from rotate" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from rotate" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from rotate" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from rotate" -s h -l help -d 'Print help'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from help" -f -a "add" -d 'Make a token and print its secret (shown this once)'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from help" -f -a "list" -d 'The tokens: name, rights, scope, when made, last used and expires (never a secret)'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from help" -f -a "revoke" -d 'Refuse a token from its next request on'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from help" -f -a "rotate" -d 'Give a token a new secret, its rights unchanged, and print it'
complete -c keep -n "__fish_keep_using_subcommand token; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keep -n "__fish_keep_using_subcommand watch" -l remove -d 'Stop watching DIR (its notes stay)' -r -F
complete -c keep -n "__fish_keep_using_subcommand watch" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand watch" -l list -d 'List the watched folders and which process holds the watch'
complete -c keep -n "__fish_keep_using_subcommand watch" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand watch" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand watch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand ui" -l theme -d 'Colour theme: dark, light, high-contrast, monochrome or a user theme [default: the config file\'s, else dark]' -r
complete -c keep -n "__fish_keep_using_subcommand ui" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand ui" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand ui" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand ui" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand mcp" -l allow -d 'Let put_file read files under DIR (repeatable)' -r -F
complete -c keep -n "__fish_keep_using_subcommand mcp" -l scope -d 'Confine every tool to notes tagged KEY=VALUE, and tag every note written with it (repeatable; all apply)' -r
complete -c keep -n "__fish_keep_using_subcommand mcp" -l tools -d 'Which tools clients are shown: core (the tools of every session, compact) or all (every tool, with output schemas)' -r -f -a "core\t'The tools agents use every session, in a compact form (about 16 KB)'
all\t'Every tool, with its output schema'"
complete -c keep -n "__fish_keep_using_subcommand mcp" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand mcp" -l allow-hidden -d 'Let put_file read hidden files and folders (names starting with \'.\') under the folders allowed'
complete -c keep -n "__fish_keep_using_subcommand mcp" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand mcp" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand serve" -l listen -d 'Address to listen on (port 0: any free port)' -r
complete -c keep -n "__fish_keep_using_subcommand serve" -l allow -d 'Let put_file read files under DIR (repeatable)' -r -F
complete -c keep -n "__fish_keep_using_subcommand serve" -l scope -d 'Confine every tool to notes tagged KEY=VALUE, and tag every note written with it (repeatable)' -r
complete -c keep -n "__fish_keep_using_subcommand serve" -l tools -d 'Which tools MCP clients are shown: core (the tools of every session, compact) or all (every tool, with output schemas)' -r -f -a "core\t'The tools agents use every session, in a compact form (about 16 KB)'
all\t'Every tool, with its output schema'"
complete -c keep -n "__fish_keep_using_subcommand serve" -l tls-cert -d 'Serve HTTPS with this certificate chain (PEM; read again when it changes)' -r -F
complete -c keep -n "__fish_keep_using_subcommand serve" -l tls-key -d 'The private key of --tls-cert (PEM)' -r -F
complete -c keep -n "__fish_keep_using_subcommand serve" -l session-timeout -d 'Close an MCP session after SECONDS without a request' -r
complete -c keep -n "__fish_keep_using_subcommand serve" -l store -d 'Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]' -r -F
complete -c keep -n "__fish_keep_using_subcommand serve" -l allow-hidden -d 'Let put_file read hidden files and folders (names starting with \'.\') under the folders allowed'
complete -c keep -n "__fish_keep_using_subcommand serve" -l require-token -d 'Ask for a token on a loopback address too (without it, a request with no token from this user on this machine is the owner\'s)'
complete -c keep -n "__fish_keep_using_subcommand serve" -l token -d 'Print the store\'s token (made on first use, kept with mode 0600) and exit'
complete -c keep -n "__fish_keep_using_subcommand serve" -l status -d 'Ask the store\'s server how it is: store reachable, model, backlog, uptime (exit 1 when none answers or the store is unreachable)'
complete -c keep -n "__fish_keep_using_subcommand serve" -l json -d 'Print one JSON document instead of text'
complete -c keep -n "__fish_keep_using_subcommand serve" -l ids -d 'Print only ids, one per line (for xargs)'
complete -c keep -n "__fish_keep_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "put" -d 'Store text, standard input, files, folders or web pages as notes'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "get" -d 'Show notes, an archived version (ID@V{N}) or a part (ID@P{N})'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "list" -d 'List notes, most recently updated first'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "find" -d 'Find notes by meaning and by keyword, best first'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "tag" -d 'Add or remove tags on notes'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "del" -d 'Put notes in the trash, delete them for good, or delete one archived version of a note'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "restore" -d 'Take notes out of the trash'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "log" -d 'Show who changed what: every write, newest first'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "stats" -d 'Show what the store holds: notes, versions, parts, vectors, the commonest tag keys, what each source added, each agent\'s writes, and its size'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "revert" -d 'Undo the last change of notes: restore the previous version'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "rate" -d 'Rate a note as useful or wrong'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "supersede" -d 'Accept a note as the successor of the notes it replaces'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "conflicts" -d 'List pairs of live notes that look like two values for one subject'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "context" -d 'Print what a session should start with, within a token budget'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "now" -d 'Show or replace the working-intentions note, \'now\''
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "move" -d 'Move the version history of \'now\' (or of another note) into a named note'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "export" -d 'Export every note, with tags, full history and parts, as JSON Lines'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "import" -d 'Import notes from a file written by \'keep export\', or conversations (--format chat)'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "why" -d 'Say why a note is, or is not, among the hits of a search'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "reindex" -d 'Embed everything that has no vector yet, with the configured model'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "analyze" -d 'Cut a note into meaningful parts with a language model'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "check" -d 'Verify the store: the database file, indexes, vectors, numbering'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "repair" -d 'Make the indexes, vectors and codes again, without changing a note'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "backup" -d 'Write a consistent copy of the store to a new file'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "models" -d 'List, install, verify or remove the files keep runs on'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "doctor" -d 'Check the runtime, the models, the store, a server, watched folders and the config file'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "connect" -d 'Give an MCP client (Claude Code, Cursor, VS Code, ...) keep\'s memory'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "hook" -d 'Run by a client\'s session hooks (keep connect CLIENT --hooks installs them)'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "token" -d 'Tokens for the clients of keep serve, each with its own rights'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "watch" -d 'Keep the registered folders indexed until interrupted'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "ui" -d 'Browse, search, read and tag notes in a full-screen terminal browser'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "mcp" -d 'Serve keep\'s memory to agents over the Model Context Protocol'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "serve" -d 'Serve the store to many MCP clients, scripts and commands at once'
complete -c keep -n "__fish_keep_using_subcommand help; and not __fish_seen_subcommand_from put get list find tag del restore log stats revert rate supersede conflicts context now move export import why reindex analyze check repair backup models doctor connect hook token watch ui mcp serve help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keep -n "__fish_keep_using_subcommand help; and __fish_seen_subcommand_from models" -f -a "list" -d 'What is installed, where, its size and sha256 (the default)'
complete -c keep -n "__fish_keep_using_subcommand help; and __fish_seen_subcommand_from models" -f -a "install" -d 'Install components (the runtime, the default model and OCR when none is named)'
complete -c keep -n "__fish_keep_using_subcommand help; and __fish_seen_subcommand_from models" -f -a "verify" -d 'Check every installed file against its pinned sha256'
complete -c keep -n "__fish_keep_using_subcommand help; and __fish_seen_subcommand_from models" -f -a "remove" -d 'Remove components'
complete -c keep -n "__fish_keep_using_subcommand help; and __fish_seen_subcommand_from token" -f -a "add" -d 'Make a token and print its secret (shown this once)'
complete -c keep -n "__fish_keep_using_subcommand help; and __fish_seen_subcommand_from token" -f -a "list" -d 'The tokens: name, rights, scope, when made, last used and expires (never a secret)'
complete -c keep -n "__fish_keep_using_subcommand help; and __fish_seen_subcommand_from token" -f -a "revoke" -d 'Refuse a token from its next request on'
complete -c keep -n "__fish_keep_using_subcommand help; and __fish_seen_subcommand_from token" -f -a "rotate" -d 'Give a token a new secret, its rights unchanged, and print it'
