//! The one way the core opens a file a user names as input (a replay's packet trace, an
//! MPI job's trace): only a regular file is read, never more than a stated size, and
//! opening it never blocks.
//!
//! The file is opened non-blocking (`O_NONBLOCK`), so a FIFO at the name does not wait in
//! `open()` for a writer that never comes, and is then checked through the open file
//! (`fstat`), so what is read is what was checked even if the name is swapped meanwhile.
//! A FIFO, device, socket or folder is refused, saying what it is (`/dev/zero` would
//! otherwise be read until memory runs out). O_NONBLOCK is left set: it has no effect on
//! reading a regular file, which never blocks.
//!
//! The limits are documented in `docs/cli.md` ("Limits").

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

/// The largest MPI trace read, bytes (256 MiB, about nine million operations at some 30
/// bytes a line): its text is held whole while it is parsed, and its parsed programs cost
/// more again, so a mistaken file stops here rather than at the memory's end.
pub const MAX_MPI_TRACE_BYTES: u64 = 256 << 20;

/// Why an input file was not read. Its `Display` follows the file's name:
/// `cannot read trace "t.pcap": it is a FIFO; expected a regular file`.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Nothing at the name.
    #[error("no such file")]
    NotFound,
    /// Something other than a regular file at the name.
    #[error("it is {0}; expected a regular file")]
    NotRegular(&'static str),
    /// A regular file larger than the limit for its kind.
    #[error("it is {size} bytes, more than the {} limit for {what}; expected a smaller file", bytes(*.limit))]
    TooLarge {
        /// The file's size, bytes.
        size: u64,
        /// The limit, bytes.
        limit: u64,
        /// What the file was to be (`an MPI trace`).
        what: &'static str,
    },
    /// The system refused to open or read it.
    #[error("{0}")]
    Io(#[source] io::Error),
}

impl From<io::Error> for InputError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::NotFound {
            InputError::NotFound
        } else {
            InputError::Io(e)
        }
    }
}

/// `n` bytes in words, in the largest binary unit that divides it (`16 MiB`).
fn bytes(n: u64) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n % (1 << shift) == 0 {
            return format!("{} {unit}", n >> shift);
        }
    }
    format!("{n} bytes")
}

/// What a non-regular file is, in words.
fn kind(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

/// Opens the regular file at `path` for reading, without blocking; refuses anything else,
/// and a file larger than `limit` bytes (`what` names its kind in the message). Returns
/// the open file and its size.
pub fn open(path: &Path, limit: Option<u64>, what: &'static str) -> Result<(File, u64), InputError> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if let Some(kind) = kind(&meta) {
        return Err(InputError::NotRegular(kind));
    }
    let size = meta.len();
    if let Some(limit) = limit.filter(|&l| size > l) {
        return Err(InputError::TooLarge { size, limit, what });
    }
    Ok((file, size))
}

/// The text of the regular file at `path`, of at most `limit` bytes (see [`open`]).
pub fn read_to_string(path: &Path, limit: u64, what: &'static str) -> Result<String, InputError> {
    let (file, size) = open(path, Some(limit), what)?;
    let mut text = String::with_capacity(size as usize);
    // The file may grow after the check: never read past the limit.
    file.take(limit + 1).read_to_string(&mut text)?;
    if text.len() as u64 > limit {
        return Err(InputError::TooLarge { size: text.len() as u64, limit, what });
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_regular_file_is_read() {
        let dir = std::env::temp_dir();
        assert!(matches!(open(&dir, None, "a test").unwrap_err(), InputError::NotRegular("a folder")));
        #[cfg(target_os = "linux")]
        {
            let err = open(Path::new("/dev/zero"), None, "a test").unwrap_err();
            assert_eq!(err.to_string(), "it is a character device; expected a regular file");
        }
        let missing = dir.join("ethersim-input-test-no-such-file");
        assert!(matches!(open(&missing, None, "a test").unwrap_err(), InputError::NotFound));
    }

    #[test]
    fn a_file_over_its_limit_is_refused_before_reading() {
        let path = std::env::temp_dir().join(format!("ethersim-input-test-{}", std::process::id()));
        std::fs::write(&path, b"0123456789").unwrap();
        let err = read_to_string(&path, 8, "a test file").unwrap_err();
        assert_eq!(
            err.to_string(),
            "it is 10 bytes, more than the 8 bytes limit for a test file; expected a smaller file"
        );
        assert_eq!(read_to_string(&path, 10, "a test file").unwrap(), "0123456789");
        std::fs::remove_file(&path).unwrap();
        assert_eq!(bytes(1 << 30), "1 GiB");
    }
}
