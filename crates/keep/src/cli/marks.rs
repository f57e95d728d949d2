//! Read-your-writes between commands on one machine, for a store whose
//! reads go to replicas: a command that wrote leaves where the primary's
//! log stood after its write in the store's local folder, and a later
//! command (a script's next line) reads only from a replica that has
//! replayed that far, else from the primary. Commands on other machines
//! do not see the file: their reads may trail by up to `max_replica_lag`.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::PathBuf;

use keep_core::Keeper;

/// The file, in the store's local folder.
const FILE: &str = "replica-mark";

fn file_of(keeper: &Keeper) -> Option<PathBuf> {
    keeper.has_replicas().then(|| keeper.store_dir().join(FILE))
}

/// Reads through `keeper` see the writes the commands before it left.
pub fn adopt(keeper: &Keeper) {
    let Some(path) = file_of(keeper) else {
        return;
    };
    let left = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok());
    if left.is_some() {
        keeper.set_write_mark(left.max(keeper.write_mark()));
    }
}

/// Leaves where `keeper`'s last write left the primary's log, for the
/// commands after it; a later mark already left stays. A mark that cannot
/// be left costs the next command its read-your-writes, nothing more.
pub fn record(keeper: &Keeper) {
    let (Some(path), Some(mark)) = (file_of(keeper), keeper.write_mark()) else {
        return;
    };
    let _ = leave(&path, mark);
}

/// Writes `mark` into `path` unless it holds a later one, under a lock so
/// commands ending together do not put back an earlier one.
fn leave(path: &std::path::Path, mark: u64) -> std::io::Result<()> {
    let mut file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    // SAFETY: flock takes the descriptor of a file this function holds open.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    if text.trim().parse::<u64>().is_ok_and(|left| left >= mark) {
        return Ok(());
    }
    file.set_len(0)?;
    file.rewind()?;
    writeln!(file, "{mark}")
}
