//! Reading a file to extract: regular files only (after following links),
//! opened without blocking so a named pipe or a device can never hang the
//! read, and bounded by the bytes actually read, not by the size the file
//! claims.

use std::fs::{File, FileType, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The bytes of the regular file at `path`, at most `limit` of them; the
/// reason, one line, when it is not read.
pub fn read_regular_file(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| open_failure(path, &e))?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    if meta.len() > limit {
        return Err(format!(
            "is {:.1} MB; files over {} MB are not read",
            meta.len() as f64 / 1e6,
            limit / (1024 * 1024)
        ));
    }
    read_at_most(file, limit, meta.len())
}

fn read_at_most(file: File, limit: u64, claimed: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::with_capacity(usize::try_from(claimed.min(limit)).unwrap_or(0));
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "grew while it was read; files over {} MB are not read",
            limit / (1024 * 1024)
        ));
    }
    Ok(bytes)
}

/// Why a file could not be opened, in words for links that lead nowhere.
pub fn open_failure(path: &Path, e: &std::io::Error) -> String {
    let is_link = path
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink());
    match e.kind() {
        std::io::ErrorKind::NotFound if is_link => {
            "is a dangling link (it points to nothing)".into()
        }
        _ if e.raw_os_error() == Some(libc::ELOOP) || e.to_string().contains("(os error 40)") => {
            "is a symbolic link loop".into()
        }
        _ => e.to_string(),
    }
}

/// Why a file of this type is not read, one line.
pub fn not_regular(kind: FileType) -> String {
    let what = if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    };
    format!("is {what}, not a regular file; skipped")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_pipes_are_refused_at_once_and_files_bounded() {
        let err = read_regular_file(Path::new("/dev/zero"), 1024).unwrap_err();
        assert!(err.contains("character device"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = read_regular_file(&fifo, 1024).unwrap_err();
        assert!(err.contains("named pipe"), "{err}");
        let file = dir.path().join("big");
        std::fs::write(&file, vec![b'x'; 2048]).unwrap();
        assert!(
            read_regular_file(&file, 1024)
                .unwrap_err()
                .contains("files over")
        );
        assert_eq!(read_regular_file(&file, 4096).unwrap().len(), 2048);
    }
}
