//! `keep del`: put notes in the trash, delete them for good, or delete
//! archived versions.

use clap_complete::ArgValueCompleter;

use super::complete;
use keep_commands::trash::Delete;
use keep_core::keeper::Deleted;

use super::output::Format;
use super::{CliError, CliResult, Ctx};

/// Put notes in the trash, delete them for good, or delete one archived
/// version of a note.
///
/// 'keep del ID' puts the note in the trash: it keeps its text, tags and
/// history (the deletion is a new version, with --reason kept as
/// _deleted_reason), leaves listings and recall, is listed by 'keep list
/// --deleted', and 'keep restore ID' brings it back. Notes in the trash
/// longer than trash_days (30 unless the config file says; 0 deletes for
/// good at once) are removed for good by the next del. 'keep del --purge
/// ID' removes the note for good now, with its whole version history, its
/// parts, its tags, its outgoing edges and its index entries; notes that
/// link to it keep their tags; no text of it is left in the store's files
/// (deleted rows are overwritten with zeros, the codes of its vectors
/// zeroed in the vector index files, the word indexes merged and the
/// write-ahead log emptied), and the backups made since it was written,
/// which still hold it, are named ('keep check --residue TEXT' answers
/// where a string is left). 'keep del ID@V{N}' (N = 1 previous, -1
/// oldest, ...) removes only that archived version, for good, and leaves
/// the note and its other versions as they are. To undo the last change
/// instead, use 'keep revert'. Exits 1 if any id is unknown.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Note ids, or ID@V{N} for one archived version
    #[arg(required = true, value_name = "ID", add = ArgValueCompleter::new(complete::note_id))]
    pub ids: Vec<String>,

    /// Delete for good now instead of putting in the trash
    #[arg(long)]
    #[serde(default)]
    pub purge: bool,

    /// Why, kept with the note in the trash
    #[arg(long, value_name = "TEXT", conflicts_with = "purge")]
    #[serde(default)]
    pub reason: Option<String>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    super::for_each_id(
        ctx,
        &args.ids,
        |ctx, arg| {
            ctx.run(Delete {
                id: arg.into(),
                purge: args.purge,
                reason: args.reason.clone(),
            })
        },
        print_line,
    )
}

fn print_line(ctx: &mut Ctx, d: &Deleted) -> Result<(), CliError> {
    let (id, text) = match d {
        Deleted::Trashed { id, .. } => (
            id.clone(),
            format!(
                "moved {id} to the trash (keep restore {} brings it back)",
                super::shell_quote(id)
            ),
        ),
        Deleted::Note {
            id,
            versions,
            backups,
            log_kept,
            index_kept,
        } => {
            for backup in backups {
                ctx.out.warn(&format!(
                    "{id} is still in the backup {backup}, made since it was written"
                ));
            }
            if *log_kept {
                ctx.out.warn(&format!(
                    "{id}: another process is reading the store, so copies of its old pages stay in the write-ahead log (keep.db-wal) until that process lets go"
                ));
            }
            if *index_kept {
                ctx.out.warn(&format!(
                    "{id}: another process is refreshing the vector index, so its vectors' codes stay in an index file beside the store until that refresh finishes"
                ));
            }
            (
                id.clone(),
                format!("deleted {id} (with {versions} archived version(s))"),
            )
        }
        Deleted::Version { id, version } => (
            format!("{id}@V{{{version}}}"),
            format!("deleted {id}@V{{{version}}}"),
        ),
    };
    match ctx.format {
        Format::Json => {}
        Format::Ids => ctx.out.line(&id)?,
        Format::Text => ctx.out.line(&text)?,
    }
    Ok(())
}
