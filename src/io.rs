//! File input and output shared by every reader: decompression by content and the input
//! limits (see [`crate::input`]), SHA-256 of files, and atomic writes (write
//! to a temporary file in the same directory, fsync, rename).

use crate::error::{Error, Result};
use crate::input::{Input, Limits};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::Path;

/// Reads a whole file, decompressing gzip, zstd, bzip2 or xz recognised by content (see
/// [`crate::input`]), within the default limits ([`Limits::DEFAULT`]).
///
/// Errors: a missing or unreadable file, a corrupt compressed stream, a file over the size limit
/// (exit 2, naming the file).
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    Ok(Input::from_path(path, Limits::default())?.into_bytes())
}

/// Reads a (possibly compressed) UTF-8 text file, removing a leading UTF-8 BOM.
///
/// Line endings are left as they are; use [`lines`] to iterate with CRLF handled.
/// Errors: as [`read_bytes`], plus invalid UTF-8 (reported with its line number).
pub fn read_text(path: &Path) -> Result<String> {
    Input::from_path(path, Limits::default())?.text().map(str::to_owned)
}

/// Iterates over `(line_number, line)` with 1-based line numbers and a trailing `\r` removed.
pub fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
}

/// Lower-case hex SHA-256 of a byte slice.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Lower-case hex SHA-256 of a file's raw bytes as stored (not decompressed), read in pieces
/// (the file is never held whole).
///
/// Errors: a missing or unreadable file (exit 2).
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path).map_err(|e| Error::io("reading", path, e))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(|e| Error::io("reading", path, e))?;
    Ok(hex::encode(hasher.finalize()))
}

/// A new temporary file in `dir`, to be renamed over an output file. It is created with mode
/// 0666 less the process's umask (as `open(2)` and every shell redirection do), so the renamed
/// output has the permissions the user expects (0644 under umask 022), not the 0600 a temporary
/// file gets by default.
///
/// Errors: the directory is not writable (exit 2, naming it, not the temporary file).
pub fn temp_file_in(dir: &Path) -> Result<tempfile::NamedTempFile> {
    let mut b = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b.tempfile_in(dir)
        .map_err(|e| Error::io("creating a file in", dir, without_temp_path(e)))
}

/// An error of the `tempfile` crate without the temporary file's random name it appends
/// (` at path "DIR/.tmpXXXX"`, meaningless to a user): the operating system's words and the
/// error kind; other errors as they are.
fn without_temp_path(e: std::io::Error) -> std::io::Error {
    if e.raw_os_error().is_some() {
        return e;
    }
    let text = e.to_string();
    match text.split_once(" at path \"") {
        Some((os, _)) => std::io::Error::new(e.kind(), os.to_string()),
        None => e,
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory is written,
/// fsynced and renamed over `path`, so a reader sees the old or the new file, never half of one.
///
/// Errors (exit 2, naming `path`): its directory does not exist or is not writable.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(Error::in_file(
            path,
            format!("cannot be written: the directory {} does not exist", dir.display()),
        )
        .with_hint("create the directory first, or name a file in an existing one"));
    }
    let mut tmp = temp_file_in(dir)?;
    tmp.write_all(bytes).map_err(|e| Error::io("writing", path, e))?;
    tmp.as_file().sync_all().map_err(|e| Error::io("syncing", path, e))?;
    tmp.persist(path).map_err(|e| Error::io("writing", path, e.error))?;
    Ok(())
}

/// Writes a cache file atomically (temporary file renamed over `path`) without syncing it to
/// disk: a reader sees the old or the new file, and a cache lost in a crash is only rebuilt.
///
/// Errors: the directory is not writable (exit 2, naming the path).
pub fn write_cache(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = temp_file_in(dir)?;
    tmp.write_all(bytes).map_err(|e| Error::io("writing", path, e))?;
    tmp.persist(path).map_err(|e| Error::io("writing", path, e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_and_crlf() {
        assert_eq!(crate::input::strip_bom(b"\xEF\xBB\xBFa"), b"a");
        let v: Vec<_> = lines("a\r\nb\nc").collect();
        assert_eq!(v, vec![(1, "a"), (2, "b"), (3, "c")]);
    }

    #[test]
    fn sha256_known_value() {
        // FIPS 180-2 example: SHA-256("abc").
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn gzip_is_transparent() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all("\u{feff}héllo\n".as_bytes()).unwrap();
        std::fs::write(&p, enc.finish().unwrap()).unwrap();
        assert_eq!(read_text(&p).unwrap(), "héllo\n");
        let missing = read_text(&dir.path().join("nope")).unwrap_err();
        assert!(missing.message.contains("no such file"), "{}", missing);
    }

    #[test]
    fn a_write_into_a_missing_directory_names_the_path_given() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("nodir/x.html");
        let e = write_atomic(&p, b"x").unwrap_err();
        assert_eq!(
            e.message,
            format!(
                "{}: cannot be written: the directory {} does not exist",
                p.display(),
                dir.path().join("nodir").display()
            )
        );
        assert_eq!(e.causes(), Vec::<String>::new());
        // An error of the tempfile crate loses the temporary name but keeps the OS error.
        let tf = tempfile::Builder::new()
            .tempfile_in(dir.path().join("nodir"))
            .unwrap_err();
        assert!(tf.to_string().contains(".tmp"), "{}", tf);
        let plain = without_temp_path(tf);
        assert_eq!(plain.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(plain.to_string(), std::io::Error::from_raw_os_error(2).to_string());
    }
}
