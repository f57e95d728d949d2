//! The store's `serve.lock`: one server per store. The server holds an
//! exclusive `flock` on it while it serves; whoever only asks whether a
//! server runs reads the system's table of locks instead of taking it, so
//! asking never keeps a server from starting.

use std::os::unix::fs::MetadataExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const LOCK_FILE: &str = "serve.lock";

/// How long a starting server waits for the lock: a keep older than this
/// one takes it for a moment to ask whether a server runs.
const PATIENCE: Duration = Duration::from_secs(2);

/// The lock, held while serving (as long as the file stays open); the
/// system releases it when the process ends, however it ends.
pub struct Lock {
    _held: std::fs::File,
}

/// Who holds the lock of a store.
#[derive(Debug, PartialEq, Eq)]
pub enum Holder {
    Nobody,
    /// A process holds it; its pid when the system says it.
    Process(Option<u32>),
}

impl Lock {
    /// The lock, waiting a moment for whoever holds it only to ask; None
    /// when another process holds it after that.
    pub fn take(store: &Path) -> keep_core::Result<Option<Lock>> {
        let until = Instant::now() + PATIENCE;
        loop {
            if let Some(lock) = Self::try_take(store)? {
                return Ok(Some(lock));
            }
            if Instant::now() >= until {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    fn try_take(store: &Path) -> keep_core::Result<Option<Lock>> {
        let path = lock_path(store);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| keep_core::error::Error::io(&path, e))?;
        // SAFETY: flock on a descriptor this function owns.
        let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        Ok(taken.then_some(Lock { _held: file }))
    }
}

/// Who holds the lock of `store`, read from the system's table of locks
/// without taking it; where that table cannot be read, by taking the lock
/// for a moment.
pub fn holder(store: &Path) -> keep_core::Result<Holder> {
    let Ok(meta) = std::fs::metadata(lock_path(store)) else {
        return Ok(Holder::Nobody);
    };
    match std::fs::read_to_string("/proc/locks") {
        Ok(table) => Ok(holder_in(&table, meta.dev(), meta.ino())),
        Err(_) => Ok(match Lock::try_take(store)? {
            Some(_) => Holder::Nobody,
            None => Holder::Process(None),
        }),
    }
}

/// The holder of the exclusive `flock` on the file of device `dev` and
/// inode `ino` in a `/proc/locks` table: lines such as
/// `1: FLOCK  ADVISORY  WRITE 1819 fe:00:10445794 0 EOF`, the device as
/// hexadecimal major and minor.
fn holder_in(table: &str, dev: u64, ino: u64) -> Holder {
    let file = format!("{:02x}:{:02x}:{ino}", libc::major(dev), libc::minor(dev));
    for line in table.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // A lock others wait for is listed again after "->".
        if fields.get(1) == Some(&"->") {
            continue;
        }
        if let [_, "FLOCK", _, "WRITE", pid, on, ..] = fields.as_slice()
            && same_file(on, &file)
        {
            return Holder::Process(pid.parse().ok().filter(|pid| *pid > 0));
        }
    }
    Holder::Nobody
}

/// Whether `on` (as the table writes it) names `file`: the table may pad
/// the major and minor numbers differently.
fn same_file(on: &str, file: &str) -> bool {
    let parts = |s: &str| -> Option<(u64, u64, u64)> {
        let mut it = s.split(':');
        let major = u64::from_str_radix(it.next()?, 16).ok()?;
        let minor = u64::from_str_radix(it.next()?, 16).ok()?;
        let ino = it.next()?.parse().ok()?;
        Some((major, minor, ino))
    };
    parts(on).is_some_and(|a| Some(a) == parts(file))
}

fn lock_path(store: &Path) -> PathBuf {
    store.join(LOCK_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "1: FLOCK  ADVISORY  WRITE 1819 fe:00:10445794 0 EOF\n\
                         2: POSIX  ADVISORY  WRITE 77 fe:00:555 0 EOF\n\
                         3: FLOCK  ADVISORY  READ 1819 fe:00:10133507 0 EOF\n\
                         4: FLOCK  ADVISORY  WRITE 4242 08:01:555 0 EOF\n";

    fn dev(major: u32, minor: u32) -> u64 {
        libc::makedev(major, minor)
    }

    #[test]
    fn the_holder_is_the_flock_writer_on_that_very_file() {
        assert_eq!(
            holder_in(TABLE, dev(0xfe, 0), 10445794),
            Holder::Process(Some(1819))
        );
        assert_eq!(
            holder_in(TABLE, dev(8, 1), 555),
            Holder::Process(Some(4242))
        );
    }

    #[test]
    fn shared_posix_and_other_files_hold_nothing() {
        assert_eq!(holder_in(TABLE, dev(0xfe, 0), 10133507), Holder::Nobody);
        assert_eq!(holder_in(TABLE, dev(0xfe, 0), 555), Holder::Nobody);
        assert_eq!(holder_in(TABLE, dev(0xfe, 1), 10445794), Holder::Nobody);
        assert_eq!(holder_in("", dev(0xfe, 0), 10445794), Holder::Nobody);
    }

    #[test]
    fn a_waiter_is_not_a_holder() {
        let table = "1: FLOCK  ADVISORY  WRITE 10 fe:00:9 0 EOF\n\
                     1: -> FLOCK  ADVISORY  WRITE 11 fe:00:9 0 EOF\n";
        assert_eq!(holder_in(table, dev(0xfe, 0), 9), Holder::Process(Some(10)));
    }
}
