//! Input bytes for every reader: from a file, from a reader the caller owns (standard input is
//! read by the CLI only, never by the library), or from bytes in memory; with a size limit,
//! decompression recognised by content, and the SHA-256 of exactly the bytes read.
//!
//! # Compression by content
//! The first bytes decide, never the file name: gzip (`1f 8b`, RFC 1952, multi-member streams
//! read whole; a truncated file and bytes after the last member are errors of their own, naming
//! the last complete line read), zstd (`28 b5 2f fd`, RFC 8878, several frames read whole), bzip2 (`BZh`,
//! multi-stream) and xz (`fd 37 7a 58 5a 00`, several streams read whole). The decompressed
//! bytes are what the readers see; [`Input::sha256`] hashes the raw bytes as read (what the ledger
//! records). A name ending in `.gz` whose bytes are not gzip is reported as such.
//!
//! # Containers
//! ZIP (`PK\x03\x04`, e.g. inspect_ai `.eval` logs) and Parquet (`PAR1`) are kept as bytes for
//! their readers; [`Input::kind`] tells which.
//!
//! # Size limit
//! [`Limits::max_bytes`] bounds both the raw input and the decompressed bytes (default
//! [`DEFAULT_MAX_BYTES`], 4 GiB); a larger input is an error naming the limit, read no further
//! than one byte past it, so `--scores /dev/zero` stops at once (NUL bytes in what should be text
//! are refused after the first 64 KiB block) and an endless pipe stops at the limit.

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Default size limit of one input, raw and decompressed: 4 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 4 << 30;

/// The name by which a user asks for standard input (`--scores -`).
pub const STDIN_ARG: &str = "-";

/// The name standard input is shown by in messages (`<stdin>:3: ...`).
pub const STDIN_NAME: &str = "<stdin>";

/// Whether `path` is the standard-input argument `-`.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN_ARG
}

/// Size limits of the readers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    /// Largest accepted input in bytes, applied to the raw bytes and again to the decompressed
    /// bytes (a small compressed file can expand without bound).
    pub max_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

impl Limits {
    /// Whether these are the default limits (used to keep recorded options unchanged).
    pub fn is_default(&self) -> bool {
        *self == Limits::default()
    }
}

/// A compression recognised by its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (RFC 1952).
    Gzip,
    /// Zstandard (RFC 8878).
    Zstd,
    /// bzip2.
    Bzip2,
    /// xz (LZMA2).
    Xz,
}

impl Compression {
    /// Recognises the compression of `bytes` from their first bytes (via the `infer` crate's
    /// magic numbers).
    pub fn detect(bytes: &[u8]) -> Compression {
        if bytes.starts_with(&[0x1f, 0x8b]) {
            return Compression::Gzip;
        }
        match infer::get(bytes).map(|t| t.mime_type()) {
            Some("application/zstd") => Compression::Zstd,
            Some("application/x-bzip2") => Compression::Bzip2,
            Some("application/x-xz") => Compression::Xz,
            Some("application/gzip") => Compression::Gzip,
            _ => Compression::None,
        }
    }

    /// Lower-case name (`gzip`, `zstd`, `bzip2`, `xz`, `none`).
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
        }
    }
}

/// What the (decompressed) bytes hold, as far as magic bytes tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Text (UTF-8 expected by the readers).
    Text,
    /// A ZIP archive (`PK\x03\x04`), e.g. an inspect_ai `.eval` log.
    Zip,
    /// An Apache Parquet file (`PAR1` at both ends).
    Parquet,
}

impl Kind {
    fn detect(bytes: &[u8]) -> Kind {
        if bytes.len() >= 8 && bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1") {
            Kind::Parquet
        } else if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            Kind::Zip
        } else {
            Kind::Text
        }
    }
}

/// One input, read whole: its raw bytes (hashed) and its decompressed content.
#[derive(Clone, PartialEq)]
pub struct Input {
    name: PathBuf,
    raw: Vec<u8>,
    /// Decompressed content when compressed; `None` when `raw` is the content.
    decoded: Option<Vec<u8>>,
    compression: Compression,
    kind: Kind,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("name", &self.name)
            .field("raw_bytes", &self.raw.len())
            .field("bytes", &self.bytes().len())
            .field("compression", &self.compression)
            .field("kind", &self.kind)
            .finish()
    }
}

const SNIFF: usize = 64 * 1024;

/// Opens the file at `path`, refusing a directory and a regular file larger than the limit
/// before anything is read. Errors (exit 2, naming the file).
fn open_file(path: &Path, limits: Limits) -> Result<std::fs::File> {
    let file = std::fs::File::open(path).map_err(|e| Error::io("reading", path, e))?;
    if let Ok(meta) = file.metadata() {
        if meta.is_file() && meta.len() > limits.max_bytes {
            return Err(too_large(path, limits, "is"));
        }
        if meta.is_dir() {
            return Err(Error::in_file(path, "is a directory (expected a file)"));
        }
    }
    Ok(file)
}

impl Input {
    /// Reads the file at `path` (a regular file larger than the limit is refused before reading).
    ///
    /// Errors (exit 2, naming the file): missing or unreadable, over the limit, a corrupt
    /// compressed stream, NUL bytes in what is neither compressed nor a ZIP/Parquet file.
    pub fn from_path(path: &Path, limits: Limits) -> Result<Input> {
        let file = open_file(path, limits)?;
        Input::from_reader(path, file, limits)
    }

    /// Reads everything `reader` gives (e.g. standard input, which only the CLI opens); `name` is
    /// used in messages (pass [`STDIN_NAME`] for standard input).
    ///
    /// Errors: as [`Input::from_path`].
    pub fn from_reader(name: impl Into<PathBuf>, reader: impl Read, limits: Limits) -> Result<Input> {
        let name = name.into();
        let mut raw = Vec::new();
        let mut limited = reader.take(limits.max_bytes.saturating_add(1));
        // The first block decides whether the rest is worth reading.
        let mut block = vec![0u8; SNIFF];
        let mut filled = 0;
        while filled < SNIFF {
            match limited.read(&mut block[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io("reading", &name, e)),
            }
        }
        block.truncate(filled);
        check_binary(&name, &block)?;
        raw.extend_from_slice(&block);
        drop(block);
        limited
            .read_to_end(&mut raw)
            .map_err(|e| Error::io("reading", &name, e))?;
        if raw.len() as u64 > limits.max_bytes {
            return Err(too_large(&name, limits, "is"));
        }
        Input::from_bytes(name, raw, limits)
    }

    /// Wraps bytes already in memory (decompressing them when compressed).
    ///
    /// Errors: as [`Input::from_path`].
    pub fn from_bytes(name: impl Into<PathBuf>, raw: Vec<u8>, limits: Limits) -> Result<Input> {
        let name = name.into();
        if raw.len() as u64 > limits.max_bytes {
            return Err(too_large(&name, limits, "is"));
        }
        let compression = Compression::detect(&raw);
        let decoded = match compression {
            Compression::None => {
                check_binary(&name, &raw[..raw.len().min(SNIFF)])?;
                if name.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz")) {
                    return Err(Error::in_file(
                        &name,
                        "not a valid gzip stream (the name ends in .gz but the file does not start with the gzip magic bytes)",
                    ));
                }
                None
            }
            c => Some(decompress(&name, &raw, c, limits)?),
        };
        let content = decoded.as_deref().unwrap_or(&raw);
        let kind = Kind::detect(content);
        if decoded.is_some() && kind == Kind::Text {
            let head = &content[..content.len().min(SNIFF)];
            check_binary(&name, head)?;
        }
        Ok(Input {
            name,
            raw,
            decoded,
            compression,
            kind,
        })
    }

    /// The name shown in messages: the path given, or [`STDIN_NAME`].
    pub fn path(&self) -> &Path {
        &self.name
    }

    /// The raw bytes as read (what [`Input::sha256`] hashes).
    pub fn raw(&self) -> &[u8] {
        &self.raw
    }

    /// The content: decompressed when the input was compressed.
    pub fn bytes(&self) -> &[u8] {
        self.decoded.as_deref().unwrap_or(&self.raw)
    }

    /// The content, consuming the input.
    pub fn into_bytes(self) -> Vec<u8> {
        self.decoded.unwrap_or(self.raw)
    }

    /// The compression recognised.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// What the content is, by its magic bytes.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Lower-case hex SHA-256 of the raw bytes (RFC 6234 / FIPS 180-4).
    pub fn sha256(&self) -> String {
        hex::encode(Sha256::digest(&self.raw))
    }

    /// The content as UTF-8 text with a leading BOM removed.
    ///
    /// Errors (exit 2): invalid UTF-8 (naming the line), or a ZIP/Parquet file (naming which).
    pub fn text(&self) -> Result<&str> {
        match self.kind {
            Kind::Text => {}
            Kind::Zip => {
                return Err(Error::in_file(
                    &self.name,
                    "is a ZIP archive, expected a text file (inspect_ai `.eval` logs are read by the score readers)",
                ))
            }
            Kind::Parquet => {
                return Err(Error::in_file(
                    &self.name,
                    "is a Parquet file, expected a text file here",
                ))
            }
        }
        let bytes = crate::io::strip_bom(self.bytes());
        std::str::from_utf8(bytes).map_err(|e| {
            let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
            Error::at(&self.name, line, "invalid UTF-8 (expected a UTF-8 text file)")
        })
    }
}

/// The raw bytes read so far: their SHA-256 and count (shared by the decoder's reader and the
/// final drain of a [`Stream`]).
struct Tapped {
    reader: Box<dyn Read + Send>,
    hasher: Sha256,
    bytes: u64,
}

/// A reader of the raw bytes that hashes and counts them as they pass.
#[derive(Clone)]
struct Tap(std::sync::Arc<std::sync::Mutex<Tapped>>);

impl Read for Tap {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut t = self
            .0
            .lock()
            .map_err(|_| std::io::Error::other("a reading thread failed"))?;
        let n = t.reader.read(buf)?;
        t.hasher.update(&buf[..n]);
        t.bytes += n as u64;
        Ok(n)
    }
}

/// One input read as a stream: its content (decompressed when compressed) in pieces, with the
/// SHA-256 of the raw bytes computed as they pass, so neither the raw bytes nor the content are
/// ever held whole. [`Stream::sha256`] at the end is the hash [`Input::sha256`] gives of the same
/// file.
///
/// The compression is recognised by content as for [`Input`]; the raw bytes are bounded by
/// [`Limits::max_bytes`], the content is not (it is never held whole: the reader decides what
/// it keeps).
pub struct Stream {
    name: PathBuf,
    compression: Compression,
    head: Vec<u8>,
    content: Box<dyn Read + Send>,
    tap: Tap,
    limits: Limits,
    /// Newlines in the content handed out so far (the line reached, for errors).
    lines: u64,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("name", &self.name)
            .field("compression", &self.compression)
            .finish()
    }
}

impl Stream {
    /// Opens the file at `path` and reads its first block (to recognise compression and what
    /// the content holds).
    ///
    /// Errors (exit 2, naming the file): as [`Input::from_path`] for the first block.
    pub fn open(path: &Path, limits: Limits) -> Result<Stream> {
        let file = open_file(path, limits)?;
        Stream::from_reader(path, Box::new(file), limits)
    }

    /// Streams what `reader` gives; `name` is used in messages.
    ///
    /// Errors: as [`Stream::open`].
    pub fn from_reader(name: impl Into<PathBuf>, reader: Box<dyn Read + Send>, limits: Limits) -> Result<Stream> {
        let name = name.into();
        let mut tap = Tap(std::sync::Arc::new(std::sync::Mutex::new(Tapped {
            reader,
            hasher: Sha256::new(),
            bytes: 0,
        })));
        let block = fill(&mut tap, SNIFF).map_err(|e| Error::io("reading", &name, e))?;
        check_binary(&name, &block)?;
        let compression = Compression::detect(&block);
        if compression == Compression::None && name.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz")) {
            return Err(Error::in_file(
                &name,
                "not a valid gzip stream (the name ends in .gz but the file does not start with the gzip magic bytes)",
            ));
        }
        let raw = std::io::Cursor::new(block).chain(tap.clone());
        let mut content: Box<dyn Read + Send> = match compression {
            Compression::None => Box::new(raw),
            Compression::Gzip => Box::new(Gunzip::new(std::io::BufReader::with_capacity(SNIFF, raw))),
            Compression::Zstd => Box::new(
                zstd::stream::read::Decoder::new(raw)
                    .map_err(|e| Error::in_file(&name, "not a valid zstd stream").caused_by(e))?,
            ),
            Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(raw)),
            Compression::Xz => Box::new(xz2::read::XzDecoder::new_multi_decoder(raw)),
        };
        let mut s = Stream {
            name,
            compression,
            head: Vec::new(),
            content: Box::new(std::io::empty()),
            tap,
            limits,
            lines: 0,
        };
        let mut head = Vec::new();
        fill_into(&mut content, &mut head, SNIFF).map_err(|e| s.read_error(e, count_lines(&head)))?;
        if compression != Compression::None && Kind::detect(&head) == Kind::Text {
            check_binary(&s.name, &head)?;
        }
        s.head = head;
        s.content = content;
        Ok(s)
    }

    /// The name shown in messages.
    pub fn path(&self) -> &Path {
        &self.name
    }

    /// The compression recognised.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// The size limits it is read under.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The first bytes of the content (up to 64 KiB; all of it when shorter): what it holds.
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// Whether the content starts like a ZIP or Parquet container (which is read whole).
    pub fn is_container(&self) -> bool {
        self.head.starts_with(b"PAR1") || self.head.starts_with(b"PK\x03\x04") || self.head.starts_with(b"PK\x05\x06")
    }

    /// The error of a failed read of the content, `more` newlines after those handed out.
    fn read_error(&self, e: std::io::Error, more: u64) -> Error {
        if self.raw_bytes() > self.limits.max_bytes {
            return too_large(&self.name, self.limits, "is");
        }
        match self.compression {
            Compression::None => Error::io("reading", &self.name, e),
            c => decode_error(&self.name, c, self.lines + more, e),
        }
    }

    fn raw_bytes(&self) -> u64 {
        self.tap.0.lock().map_or(0, |t| t.bytes)
    }

    /// The next piece of the content into `buf` (cleared first; the first call gives the head
    /// and more): at most about `want` bytes, empty at the end.
    ///
    /// Errors (exit 2, naming the file): a read error, a corrupt compressed stream, raw bytes
    /// past the size limit.
    pub fn next_piece(&mut self, buf: &mut Vec<u8>, want: usize) -> Result<()> {
        buf.clear();
        if !self.head.is_empty() {
            buf.append(&mut self.head);
        }
        let start = buf.len();
        buf.resize(want.max(start + 1), 0);
        let mut filled = start;
        while filled < buf.len() {
            match self.content.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.read_error(e, count_lines(&buf[..filled]))),
            }
        }
        buf.truncate(filled);
        self.lines += count_lines(buf);
        if self.raw_bytes() > self.limits.max_bytes {
            return Err(too_large(&self.name, self.limits, "is"));
        }
        Ok(())
    }

    /// Ends the stream: reads (and hashes) whatever raw bytes follow the end of the content,
    /// and returns the lower-case hex SHA-256 of all raw bytes, as [`Input::sha256`].
    ///
    /// Errors (exit 2): a read error, raw bytes past the size limit.
    pub fn sha256(self) -> Result<String> {
        let mut rest = self.tap.clone();
        std::io::copy(&mut rest, &mut std::io::sink()).map_err(|e| Error::io("reading", &self.name, e))?;
        if self.raw_bytes() > self.limits.max_bytes {
            return Err(too_large(&self.name, self.limits, "is"));
        }
        drop(self.content);
        let t = self
            .tap
            .0
            .lock()
            .map_err(|_| Error::internal("a reading thread failed"))?;
        Ok(hex::encode(t.hasher.clone().finalize()))
    }
}

/// What is wrong with a gzip stream that did not decode to its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum GzipFault {
    /// The input ends inside a member (header, deflate data or trailer).
    #[error("the gzip stream ends early: the file is truncated")]
    Truncated,
    /// After a complete member come bytes that do not start another member.
    #[error("bytes after the end of the gzip stream")]
    Trailing,
}

/// A multi-member gzip decoder (RFC 1952 §2.2: a gzip file is a series of members, read as the
/// concatenation of their contents, as `gzip -d` does) that tells a truncated file and bytes
/// after the last member from other corruption: each member is read by flate2's
/// `bufread::GzDecoder`; an unexpected end of the input inside a member is
/// [`GzipFault::Truncated`], and bytes after a member that do not begin with the gzip magic
/// `1f 8b` are [`GzipFault::Trailing`] (`gzip -d` says "trailing garbage ignored" and exits
/// with a warning status). Other errors (a bad header, a corrupt deflate stream, a CRC or length
/// mismatch) are flate2's own.
struct Gunzip<R: std::io::BufRead> {
    member: Option<flate2::bufread::GzDecoder<R>>,
}

impl<R: std::io::BufRead> Gunzip<R> {
    fn new(raw: R) -> Self {
        Gunzip {
            member: Some(flate2::bufread::GzDecoder::new(raw)),
        }
    }
}

impl<R: std::io::BufRead> Read for Gunzip<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            let Some(member) = self.member.as_mut() else {
                return Ok(0);
            };
            match member.read(buf) {
                Ok(0) => {}
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                    self.member = None;
                    return Err(std::io::Error::other(GzipFault::Truncated));
                }
                Err(e) => {
                    self.member = None;
                    return Err(e);
                }
            }
            // The member ended (its CRC and length checked): another member, the end, or junk.
            let Some(member) = self.member.take() else {
                return Ok(0);
            };
            let mut raw = member.into_inner();
            let next = raw.fill_buf()?;
            match next {
                [] => return Ok(0),
                [0x1f] | [0x1f, 0x8b, ..] => self.member = Some(flate2::bufread::GzDecoder::new(raw)),
                _ => return Err(std::io::Error::other(GzipFault::Trailing)),
            }
        }
    }
}

/// The bad-input error of a compressed stream that failed to decode after `lines` complete
/// lines of content (newlines seen): a truncated gzip file or bytes after its end are named as
/// such, with the last complete line read; anything else is "not a valid … stream" with the
/// decoder's error as the cause.
fn decode_error(name: &Path, c: Compression, lines: u64, e: std::io::Error) -> Error {
    let fault = e.get_ref().and_then(|x| x.downcast_ref::<GzipFault>()).copied();
    let reached = if lines == 0 {
        "before the end of the first line".to_string()
    } else {
        format!("after line {lines}, the last complete line read")
    };
    match fault {
        Some(GzipFault::Truncated) => Error::in_file(name, format!("{} ({})", GzipFault::Truncated, reached))
            .with_hint("the download or copy was cut short: fetch or copy the file again (`gzip -t FILE` checks a gzip file)"),
        Some(GzipFault::Trailing) => Error::in_file(
            name,
            format!(
                "{} (the content decoded to its end, {} lines; expected another gzip member or the end of the file)",
                GzipFault::Trailing,
                lines
            ),
        )
        .with_hint("something was appended to the compressed file: re-create it, or cut it at the end of the gzip data (`gzip -t FILE` reports the trailing garbage)"),
        None => Error::in_file(name, format!("not a valid {} stream ({})", c.name(), reached)).caused_by(e),
    }
}

fn count_lines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// Reads up to `n` bytes into `block` (fewer only at the end); on an error `block` keeps what
/// was read before it.
fn fill_into(r: &mut impl Read, block: &mut Vec<u8>, n: usize) -> std::io::Result<()> {
    block.resize(n, 0);
    let mut filled = 0;
    let result = loop {
        if filled >= n {
            break Ok(());
        }
        match r.read(&mut block[filled..]) {
            Ok(0) => break Ok(()),
            Ok(k) => filled += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => break Err(e),
        }
    };
    block.truncate(filled);
    result
}

/// Reads up to `n` bytes (fewer only at the end).
fn fill(r: &mut impl Read, n: usize) -> std::io::Result<Vec<u8>> {
    let mut block = vec![0u8; n];
    let mut filled = 0;
    while filled < n {
        match r.read(&mut block[filled..]) {
            Ok(0) => break,
            Ok(k) => filled += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    block.truncate(filled);
    Ok(block)
}

/// Reads `path`, or, when it is `-`, everything `stdin` gives: the one place where the argument
/// `-` is interpreted. The caller passes its standard input (the library never opens it).
///
/// Errors: as [`Input::from_path`].
pub fn open(path: &Path, stdin: Option<&mut dyn Read>, limits: Limits) -> Result<Input> {
    match (is_stdin(path), stdin) {
        (true, Some(r)) => Input::from_reader(STDIN_NAME, r, limits),
        (true, None) => Err(Error::input("`-` (standard input) is not available here: pass a file")),
        (false, _) => Input::from_path(path, limits),
    }
}

fn too_large(name: &Path, limits: Limits, verb: &str) -> Error {
    Error::in_file(
        name,
        format!(
            "{} larger than the input size limit of {}",
            verb,
            match limits.max_bytes {
                n if n < 1024 => crate::text::bytes(n),
                n => format!("{} bytes ({})", n, crate::text::bytes(n)),
            }
        ),
    )
    .with_hint("raise the limit with --max-input-size BYTES (e.g. 8G) if the file is meant to be that large")
}

/// Parses a size such as `4G`, `512M`, `100k` or `1000` (bytes; K/M/G/T are powers of 1024,
/// an optional `iB`/`B` suffix is accepted).
///
/// Errors (exit 2): not a positive size.
pub fn parse_size(s: &str) -> Result<u64> {
    let t = s.trim();
    let t = t.strip_suffix("iB").or_else(|| t.strip_suffix('B')).unwrap_or(t);
    let (num, mult) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 1u64 << 10),
        Some('M') => (&t[..t.len() - 1], 1 << 20),
        Some('G') => (&t[..t.len() - 1], 1 << 30),
        Some('T') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    num.trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            Error::input(format!(
                "`{}` is not a size (expected e.g. 4G, 512M or a number of bytes)",
                s
            ))
        })
}

/// NUL bytes in the first block of what is neither compressed nor a known container: binary
/// data where text is expected (`/dev/zero`, an image, an executable).
fn check_binary(name: &Path, block: &[u8]) -> Result<()> {
    if Compression::detect(block) != Compression::None || block.starts_with(b"PK") || block.starts_with(b"PAR1") {
        return Ok(());
    }
    if let Some(at) = block.iter().position(|&b| b == 0) {
        let what = infer::get(block)
            .map(|t| format!(" ({} by its magic bytes)", t.mime_type()))
            .unwrap_or_default();
        return Err(Error::in_file(
            name,
            format!(
                "binary data{} with a NUL byte at offset {}: expected text, or a gzip, zstd, bzip2, xz, ZIP or Parquet file",
                what, at
            ),
        ));
    }
    Ok(())
}

fn decompress(name: &Path, raw: &[u8], c: Compression, limits: Limits) -> Result<Vec<u8>> {
    let bad = |e: std::io::Error| Error::in_file(name, format!("not a valid {} stream", c.name())).caused_by(e);
    let reader: Box<dyn Read + '_> = match c {
        Compression::Gzip => Box::new(Gunzip::new(raw)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(raw).map_err(bad)?),
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(raw)),
        Compression::Xz => Box::new(xz2::read::XzDecoder::new_multi_decoder(raw)),
        Compression::None => return Ok(raw.to_vec()),
    };
    let mut out = Vec::with_capacity(raw.len().saturating_mul(4).min(1 << 30));
    if let Err(e) = reader.take(limits.max_bytes.saturating_add(1)).read_to_end(&mut out) {
        // What was decoded before the error stays in `out`: its lines are the place reached.
        return Err(decode_error(name, c, count_lines(&out), e));
    }
    if out.len() as u64 > limits.max_bytes {
        return Err(too_large(name, limits, &format!("decompresses ({}) to", c.name())));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] = "\u{feff}topic,system,score\n1,A,0.5\n".as_bytes();

    fn compressed(c: Compression) -> Vec<u8> {
        match c {
            Compression::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(TEXT).unwrap();
                e.finish().unwrap()
            }
            Compression::Zstd => zstd::stream::encode_all(TEXT, 3).unwrap(),
            Compression::Bzip2 => {
                let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
                e.write_all(TEXT).unwrap();
                e.finish().unwrap()
            }
            Compression::Xz => {
                let mut e = xz2::write::XzEncoder::new(Vec::new(), 6);
                e.write_all(TEXT).unwrap();
                e.finish().unwrap()
            }
            Compression::None => TEXT.to_vec(),
        }
    }

    #[test]
    fn every_compression_by_content_not_name() {
        for c in [
            Compression::None,
            Compression::Gzip,
            Compression::Zstd,
            Compression::Bzip2,
            Compression::Xz,
        ] {
            let raw = compressed(c);
            // A misleading name: content decides.
            let i = Input::from_bytes("scores.csv", raw.clone(), Limits::default()).unwrap();
            assert_eq!(i.compression(), c, "{:?}", c);
            assert_eq!(i.text().unwrap(), "topic,system,score\n1,A,0.5\n");
            assert_eq!(i.sha256(), crate::io::sha256_hex(&raw));
            assert_eq!(i.kind(), Kind::Text);
        }
    }

    #[test]
    fn concatenated_members_are_read_whole() {
        let mut two = compressed(Compression::Gzip);
        two.extend(compressed(Compression::Gzip));
        let i = Input::from_bytes("x", two, Limits::default()).unwrap();
        assert_eq!(i.bytes().len(), 2 * (TEXT.len()));
        let mut z = compressed(Compression::Zstd);
        z.extend(compressed(Compression::Zstd));
        assert_eq!(
            Input::from_bytes("x", z, Limits::default()).unwrap().bytes().len(),
            2 * TEXT.len()
        );
    }

    #[test]
    fn limits_bound_raw_and_decompressed_bytes() {
        let small = Limits { max_bytes: 20 };
        let e = Input::from_bytes("big.csv", TEXT.to_vec(), small).unwrap_err();
        assert!(
            e.message
                .contains("big.csv: is larger than the input size limit of 20 bytes"),
            "{}",
            e.message
        );
        assert!(e.hint.unwrap().contains("--max-input-size"));
        // 1 MiB of spaces compresses to about a kilobyte: the decompressed size is checked too.
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&vec![b' '; 1 << 20]).unwrap();
        let bomb = enc.finish().unwrap();
        let e = Input::from_bytes("b.gz", bomb, Limits { max_bytes: 4096 }).unwrap_err();
        assert!(
            e.message.contains("decompresses (gzip) to larger than"),
            "{}",
            e.message
        );
        // An endless reader stops at the limit.
        let endless = std::io::repeat(b'a');
        let e = Input::from_reader(STDIN_NAME, endless, Limits { max_bytes: 100_000 }).unwrap_err();
        assert!(e.message.starts_with("<stdin>: is larger"), "{}", e.message);
    }

    #[test]
    fn nul_bytes_are_refused_in_the_first_block() {
        // As /dev/zero: an endless stream of NUL bytes fails after the first block.
        let e = Input::from_reader("/dev/zero", std::io::repeat(0), Limits::default()).unwrap_err();
        assert!(e.message.contains("NUL byte at offset 0"), "{}", e.message);
        let e = Input::from_bytes("x.csv", b"a,b\n\x00".to_vec(), Limits::default()).unwrap_err();
        assert!(e.message.contains("offset 4"), "{}", e.message);
    }

    #[test]
    fn stdin_is_only_read_through_the_callers_reader() {
        let mut r: &[u8] = b"a\n";
        let i = open(Path::new("-"), Some(&mut r), Limits::default()).unwrap();
        assert_eq!(i.path(), Path::new(STDIN_NAME));
        assert_eq!(i.sha256(), crate::io::sha256_hex(b"a\n"));
        assert!(open(Path::new("-"), None, Limits::default()).is_err());
    }

    #[test]
    fn a_stream_gives_the_content_and_the_hash_of_the_raw_bytes() {
        let long: Vec<u8> = (0..200_000u32)
            .flat_map(|i| format!("line {}\n", i).into_bytes())
            .collect();
        for c in [
            Compression::None,
            Compression::Gzip,
            Compression::Zstd,
            Compression::Bzip2,
            Compression::Xz,
        ] {
            let raw = match c {
                Compression::None => long.clone(),
                Compression::Gzip => {
                    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                    e.write_all(&long).unwrap();
                    e.finish().unwrap()
                }
                Compression::Zstd => zstd::stream::encode_all(&long[..], 1).unwrap(),
                Compression::Bzip2 => {
                    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
                    e.write_all(&long).unwrap();
                    e.finish().unwrap()
                }
                Compression::Xz => {
                    let mut e = xz2::write::XzEncoder::new(Vec::new(), 1);
                    e.write_all(&long).unwrap();
                    e.finish().unwrap()
                }
            };
            let mut s =
                Stream::from_reader("x", Box::new(std::io::Cursor::new(raw.clone())), Limits::default()).unwrap();
            assert_eq!(s.compression(), c);
            let (mut got, mut buf) = (Vec::new(), Vec::new());
            loop {
                s.next_piece(&mut buf, 10_000).unwrap();
                if buf.is_empty() {
                    break;
                }
                got.extend_from_slice(&buf);
            }
            assert_eq!(got, long, "{:?}", c);
            let whole = Input::from_bytes("x", raw, Limits::default()).unwrap();
            assert_eq!(s.sha256().unwrap(), whole.sha256(), "{:?}", c);
        }
        // Trailing bytes after the content are hashed too; a read stopped early still hashes all.
        let mut raw = compressed(Compression::Gzip);
        let s = Stream::from_reader("x", Box::new(std::io::Cursor::new(raw.clone())), Limits::default()).unwrap();
        assert_eq!(s.sha256().unwrap(), crate::io::sha256_hex(&raw));
        raw.truncate(raw.len() - 4);
        let e = Stream::from_reader("t.gz", Box::new(std::io::Cursor::new(raw)), Limits::default())
            .and_then(|mut s| s.next_piece(&mut Vec::new(), 100))
            .unwrap_err();
        assert_eq!(
            e.message,
            "t.gz: the gzip stream ends early: the file is truncated (after line 2, the last complete line read)"
        );
        let e = Stream::from_reader("p.gz", Box::new(&b"plain"[..]), Limits::default()).unwrap_err();
        assert!(
            e.message.contains("does not start with the gzip magic"),
            "{}",
            e.message
        );
        let e = Stream::from_reader("big", Box::new(std::io::repeat(b'a')), Limits { max_bytes: 100_000 })
            .and_then(|mut s| s.next_piece(&mut Vec::new(), 1 << 20))
            .unwrap_err();
        assert!(
            e.message.contains("big: is larger than the input size limit"),
            "{}",
            e.message
        );
    }

    /// Lines `line 0` … `line {n-1}`, gzip-compressed (one member).
    fn gz_lines(from: u32, to: u32) -> (Vec<u8>, Vec<u8>) {
        let text: Vec<u8> = (from..to).flat_map(|i| format!("line {}\n", i).into_bytes()).collect();
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&text).unwrap();
        (text, e.finish().unwrap())
    }

    /// Every error of reading `raw` whole and as a stream (in 1000-byte pieces).
    fn both_errors(name: &str, raw: &[u8]) -> (Error, Error) {
        let whole = Input::from_bytes(name, raw.to_vec(), Limits::default()).unwrap_err();
        let streamed = Stream::from_reader(name, Box::new(std::io::Cursor::new(raw.to_vec())), Limits::default())
            .and_then(|mut s| {
                let mut buf = Vec::new();
                loop {
                    s.next_piece(&mut buf, 1000)?;
                    if buf.is_empty() {
                        return Ok(());
                    }
                }
            })
            .unwrap_err();
        (whole, streamed)
    }

    #[test]
    fn a_truncated_gzip_file_names_the_last_complete_line() {
        let (text, gz) = gz_lines(0, 50_000);
        // Cut at half the compressed bytes: what decodes from the first half is a prefix of the
        // text; its newlines are the last complete line (the decoder hands out all it can).
        let half = &gz[..gz.len() / 2];
        let mut prefix = Vec::new();
        let _ = flate2::read::GzDecoder::new(half).read_to_end(&mut prefix);
        assert!(text.starts_with(&prefix) && prefix.len() > 100_000);
        let lines = prefix.iter().filter(|&&b| b == b'\n').count();
        let want = format!(
            "passages.jsonl.gz: the gzip stream ends early: the file is truncated (after line {lines}, the last complete line read)"
        );
        let (whole, streamed) = both_errors("passages.jsonl.gz", half);
        assert_eq!(whole.message, want);
        assert_eq!(streamed.message, want);
        assert_eq!(whole.exit_code(), 2);
        assert!(
            whole.render().contains("hint: the download or copy was cut short"),
            "{}",
            whole.render()
        );
        // Cut inside the header (3 of its 10 bytes) and inside the first line.
        let (whole, streamed) = both_errors("q.gz", &gz[..3]);
        for e in [whole, streamed] {
            assert_eq!(
                e.message,
                "q.gz: the gzip stream ends early: the file is truncated (before the end of the first line)"
            );
        }
    }

    #[test]
    fn bytes_after_the_gzip_stream_are_named_as_such() {
        let (_, mut gz) = gz_lines(0, 3000);
        gz.extend_from_slice(b"garbage!");
        let want = "qrels.gz: bytes after the end of the gzip stream (the content decoded to its end, 3000 lines; expected another gzip member or the end of the file)";
        let (whole, streamed) = both_errors("qrels.gz", &gz);
        assert_eq!(whole.message, want);
        assert_eq!(streamed.message, want);
        assert!(
            whole.render().contains("hint: something was appended"),
            "{}",
            whole.render()
        );
        // A corrupt deflate body is neither: flate2's error is the cause.
        let (_, mut gz) = gz_lines(0, 3000);
        let n = gz.len();
        for b in &mut gz[20..n - 8] {
            *b ^= 0x5a;
        }
        let (whole, streamed) = both_errors("c.gz", &gz);
        for e in [whole, streamed] {
            assert!(
                e.message.starts_with("c.gz: not a valid gzip stream ("),
                "{}",
                e.message
            );
            assert!(!e.causes().is_empty());
        }
    }

    #[test]
    fn multi_member_gzip_reads_every_member_whole_and_streamed() {
        let (a, mut gz) = gz_lines(0, 40_000);
        let (b, gz_b) = gz_lines(40_000, 80_000);
        gz.extend_from_slice(&gz_b);
        let mut want = a.clone();
        want.extend_from_slice(&b);
        let whole = Input::from_bytes("m.gz", gz.clone(), Limits::default()).unwrap();
        assert_eq!(whole.bytes(), &want[..]);
        let mut s = Stream::from_reader("m.gz", Box::new(std::io::Cursor::new(gz.clone())), Limits::default()).unwrap();
        let (mut got, mut buf) = (Vec::new(), Vec::new());
        loop {
            s.next_piece(&mut buf, 777).unwrap();
            if buf.is_empty() {
                break;
            }
            got.extend_from_slice(&buf);
        }
        assert_eq!(got, want);
        assert_eq!(s.sha256().unwrap(), crate::io::sha256_hex(&gz));
        // A second member cut in its trailer (the CRC and length, 8 bytes, and the deflate
        // stream's last 2 bytes) is a truncation, after all 80,000 lines decoded.
        let cut = &gz[..gz.len() - 10];
        let (whole, streamed) = both_errors("m.gz", cut);
        for e in [whole, streamed] {
            assert_eq!(
                e.message,
                "m.gz: the gzip stream ends early: the file is truncated (after line 80000, the last complete line read)"
            );
        }
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("4G").unwrap(), 4 << 30);
        assert_eq!(parse_size("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_size("100").unwrap(), 100);
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
    }
}
