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
//! # Limits
//! Every input is read under [`Limits`], so that no file, pipe or decompression bomb makes
//! memory grow without bound; each limit passed is a bad-input error (exit 2) naming the file,
//! the limit and the flag that raises it ([`LIMITS`] lists them all):
//! - [`Limits::max_bytes`] bounds the raw input and, again, the decompressed content (default
//!   [`DEFAULT_MAX_BYTES`], 4 GiB, `--max-input-size`); reading stops one byte past it, so an
//!   endless pipe stops at the limit;
//! - [`Limits::max_line`] bounds the longest line of a text input (default
//!   [`DEFAULT_MAX_LINE`], 256 MiB, `--max-line-length`), checked as the bytes arrive, so a
//!   gigabyte without a newline stops at the limit instead of being held whole and parsed;
//! - [`Limits::max_ratio`] bounds how many times its compressed size a gzip, zstd, bzip2 or xz
//!   input, a ZIP member or a Parquet file may decompress to, once past [`RATIO_FLOOR`] (default
//!   [`DEFAULT_MAX_RATIO`], `--max-compression-ratio`): real data compresses 3 to 20 times, a
//!   decompression bomb a thousand times, and is stopped after [`RATIO_FLOOR`] bytes.
//!
//! NUL bytes in what should be text are refused after the first 64 KiB block, so
//! `--scores /dev/zero` stops at once. A protocol is read as stored, up to the fixed
//! [`PROTOCOL_MAX_BYTES`] ([`read_small_text`]). Memory the machine refuses while an input is
//! read (e.g. under `ulimit -v`) is an error naming the file too, not an abort.

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Default size limit of one input, raw and decompressed: 4 GiB (`--max-input-size`).
pub const DEFAULT_MAX_BYTES: u64 = 4 << 30;

/// Default longest line of a text input: 256 MiB (`--max-line-length`). Long enough for a
/// one-line JSON document of a large run; short enough that a line is never most of memory.
pub const DEFAULT_MAX_LINE: u64 = 256 << 20;

/// Default largest compression ratio (decompressed bytes per compressed byte) past
/// [`RATIO_FLOOR`]: 100 (`--max-compression-ratio`), Apache POI's default for ZIP entries.
pub const DEFAULT_MAX_RATIO: u64 = 100;

/// Decompressed content up to this size (64 MiB) is never refused for its ratio: a small file of
/// repeated bytes compresses far better than 100:1 and is no bomb.
pub const RATIO_FLOOR: u64 = 64 << 20;

/// Largest protocol file: 16 MiB, fixed (a protocol is a short TOML text).
pub const PROTOCOL_MAX_BYTES: u64 = 16 << 20;

/// Largest response read from a Time-Stamping Authority, and largest TSA trust file: 1 MiB,
/// fixed (real responses are a few kilobytes).
pub const TSA_RESPONSE_MAX_BYTES: u64 = 1 << 20;

/// One limit on what pledge reads, for the reference: its name, the flag that sets it (`None`:
/// fixed), its default and what it bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LimitDoc {
    /// Short name.
    pub name: &'static str,
    /// The command-line flag that sets it, `None` when it is fixed.
    pub flag: Option<&'static str>,
    /// The default (or fixed) value in bytes, or as a ratio.
    pub default: u64,
    /// What it bounds.
    pub bounds: &'static str,
}

/// Every input limit (the reference page of limits is generated from this table).
pub const LIMITS: &[LimitDoc] = &[
    LimitDoc {
        name: "input size",
        flag: Some("--max-input-size"),
        default: DEFAULT_MAX_BYTES,
        bounds: "bytes of one input file or standard input, raw and again decompressed (scores, runs, qrels, passages, questions, pairs, exports)",
    },
    LimitDoc {
        name: "line length",
        flag: Some("--max-line-length"),
        default: DEFAULT_MAX_LINE,
        bounds: "bytes of the longest line of a text input (decompressed)",
    },
    LimitDoc {
        name: "compression ratio",
        flag: Some("--max-compression-ratio"),
        default: DEFAULT_MAX_RATIO,
        bounds: "decompressed bytes per compressed byte of a gzip, zstd, bzip2 or xz input, a ZIP member or a Parquet file, once past 64 MiB decompressed",
    },
    LimitDoc {
        name: "protocol size",
        flag: None,
        default: PROTOCOL_MAX_BYTES,
        bounds: "bytes of a protocol file",
    },
    LimitDoc {
        name: "TSA response size",
        flag: None,
        default: TSA_RESPONSE_MAX_BYTES,
        bounds: "bytes of an RFC 3161 response from a TSA, and of a TSA trust file",
    },
];

/// The name by which a user asks for standard input (`--scores -`).
pub const STDIN_ARG: &str = "-";

/// The name standard input is shown by in messages (`<stdin>:3: ...`).
pub const STDIN_NAME: &str = "<stdin>";

/// Whether `path` is the standard-input argument `-`.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN_ARG
}

/// Size limits of the readers (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    /// Largest accepted input in bytes, applied to the raw bytes and again to the decompressed
    /// bytes (a small compressed file can expand without bound).
    pub max_bytes: u64,
    /// Longest line of a text input in bytes (its newline not counted).
    #[serde(default = "default_max_line", skip_serializing_if = "is_default_max_line")]
    pub max_line: u64,
    /// Largest ratio of decompressed to compressed bytes, applied once the content passes
    /// [`RATIO_FLOOR`].
    #[serde(default = "default_max_ratio", skip_serializing_if = "is_default_max_ratio")]
    pub max_ratio: u64,
}

fn default_max_line() -> u64 {
    DEFAULT_MAX_LINE
}

fn is_default_max_line(n: &u64) -> bool {
    *n == DEFAULT_MAX_LINE
}

fn default_max_ratio() -> u64 {
    DEFAULT_MAX_RATIO
}

fn is_default_max_ratio(n: &u64) -> bool {
    *n == DEFAULT_MAX_RATIO
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

impl Limits {
    /// The default limits ([`DEFAULT_MAX_BYTES`], [`DEFAULT_MAX_LINE`], [`DEFAULT_MAX_RATIO`]).
    pub const DEFAULT: Limits = Limits {
        max_bytes: DEFAULT_MAX_BYTES,
        max_line: DEFAULT_MAX_LINE,
        max_ratio: DEFAULT_MAX_RATIO,
    };

    /// Whether these are the default limits (used to keep recorded options unchanged).
    pub fn is_default(&self) -> bool {
        *self == Limits::default()
    }

    /// Checks `out` bytes decompressed so far from `raw` compressed bytes of the input `name`
    /// against [`Limits::max_bytes`] and [`Limits::max_ratio`]; `what` names the compression
    /// (`gzip`, `ZIP member x.json`, `Parquet`).
    ///
    /// Errors (exit 2, naming the file, the limit and its flag): over either limit.
    pub fn check_expansion(&self, name: &Path, what: &str, raw: u64, out: u64) -> Result<()> {
        if out > self.max_bytes {
            return Err(too_large(name, *self, &format!("decompresses ({}) to", what)));
        }
        if out > RATIO_FLOOR && out > raw.saturating_mul(self.max_ratio) {
            return Err(Error::in_file(
                name,
                format!(
                    "decompresses ({}) to more than {} times its compressed size ({} from {}): a decompression bomb, or data far more repetitive than real data",
                    what,
                    self.max_ratio,
                    crate::text::bytes(out),
                    crate::text::bytes(raw),
                ),
            )
            .with_hint("if the file is genuine, raise the limit with --max-compression-ratio N"));
        }
        Ok(())
    }
}

/// The members of a container input (a ZIP archive) read so far, checked against the input's
/// [`Limits`] as one expansion of the archive's raw bytes: a member whose declared size passes a
/// limit is refused before it is read, and reading stops as soon as the bytes read pass one
/// (a member may declare less than it holds).
#[derive(Debug)]
pub struct Members<'a> {
    input: &'a Input,
    /// Bytes of the members read so far.
    out: u64,
}

impl<'a> Members<'a> {
    /// No member read yet of `input`.
    pub fn new(input: &'a Input) -> Members<'a> {
        Members { input, out: 0 }
    }

    /// Reads the member `member` whole from `r`, declared to hold `declared` bytes.
    ///
    /// Errors (exit 2, naming the file and the member): a limit passed, a read error.
    pub fn read(&mut self, member: &str, declared: u64, mut r: impl Read) -> Result<Vec<u8>> {
        let what = format!("ZIP member `{}`", member);
        let (name, limits, raw) = (self.input.path(), self.input.limits, self.input.raw.len() as u64);
        limits.check_expansion(name, &what, raw, self.out.saturating_add(declared))?;
        let mut out = Vec::new();
        loop {
            let n = (&mut r).take(CHUNK).read_to_end(&mut out).map_err(|e| {
                if e.kind() == std::io::ErrorKind::OutOfMemory {
                    out_of_memory(name, out.len())
                } else {
                    Error::in_file(name, format!("member `{}` cannot be read", member)).caused_by(e)
                }
            })?;
            limits.check_expansion(name, &what, raw, self.out + out.len() as u64)?;
            if n == 0 {
                self.out += out.len() as u64;
                return Ok(out);
            }
        }
    }
}

/// Finds a line longer than a limit in bytes fed in pieces: only the line still open at the end
/// of a piece is carried to the next.
#[derive(Debug, Clone, Copy)]
struct LineCheck {
    max: u64,
    /// Bytes of the line still open (since the last newline).
    open: u64,
}

impl LineCheck {
    fn new(max: u64) -> LineCheck {
        LineCheck { max, open: 0 }
    }

    /// Feeds the next piece; `Some(at)` when a line passes the limit: `at` is an offset in
    /// `piece` inside that line or at its newline (so the newlines of `piece[..at]` are those
    /// before it).
    fn feed(&mut self, piece: &[u8]) -> Option<usize> {
        let n = piece.len();
        if n as u64 <= self.max {
            // Lines that start and end inside the piece are shorter than it: only the first and
            // the last newline matter.
            let Some(first) = memchr::memchr(b'\n', piece) else {
                self.open += n as u64;
                return (self.open > self.max).then_some(n);
            };
            if self.open + first as u64 > self.max {
                return Some(first);
            }
            let last = memchr::memrchr(b'\n', piece).unwrap_or(first);
            self.open = (n - last - 1) as u64;
            return None;
        }
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', piece) {
            if self.open + (nl - start) as u64 > self.max {
                return Some(nl);
            }
            self.open = 0;
            start = nl + 1;
        }
        self.open += (n - start) as u64;
        (self.open > self.max).then_some(n)
    }
}

/// The error for a line past [`Limits::max_line`]: `line` is its 1-based number.
fn line_too_long(name: &Path, line: u64, limits: Limits) -> Error {
    Error::at(
        name,
        line as usize,
        format!(
            "the line is longer than the line-length limit of {} (expected text lines; is it a binary or a one-line file?)",
            size_text(limits.max_line)
        ),
    )
    .with_hint("raise the limit with --max-line-length SIZE (e.g. 1G) if the file is meant to have lines that long")
}

/// The error for memory the machine refused while reading `name` (`had` bytes held).
fn out_of_memory(name: &Path, had: usize) -> Error {
    Error::in_file(
        name,
        format!(
            "not enough memory to read it (refused after {} held)",
            crate::text::bytes(had as u64)
        ),
    )
    .with_hint("the machine or its memory limit (ulimit -v) cannot hold this input: free memory, or split the file")
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

/// The magic number that starts an LZ4 frame (LZ4 Frame Format, "Magic Number").
pub const LZ4_MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];

/// The continuation marker that starts every message of an Arrow IPC stream (the first is the
/// schema), as Hugging Face `Dataset.save_to_disk` writes `data-00000-of-00001.arrow`.
pub const ARROW_STREAM_MAGIC: [u8; 4] = [0xff, 0xff, 0xff, 0xff];

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
    /// An LZ4 frame (`04 22 4d 18`, LZ4 Frame Format), kept as bytes for its reader: a ranx run
    /// saved as `.lz4`.
    Lz4,
    /// An Arrow IPC stream (`ff ff ff ff`, then the schema message), kept as bytes for its
    /// reader: a Hugging Face `save_to_disk` data file.
    Arrow,
}

impl Kind {
    fn detect(bytes: &[u8]) -> Kind {
        if bytes.len() >= 8 && bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1") {
            Kind::Parquet
        } else if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            Kind::Zip
        } else if bytes.starts_with(&LZ4_MAGIC) {
            Kind::Lz4
        } else if bytes.len() >= 8 && bytes.starts_with(&ARROW_STREAM_MAGIC) {
            Kind::Arrow
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
    limits: Limits,
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

/// The piece read at a time when an input is read whole: the line and size checks run on each.
const CHUNK: u64 = 1 << 20;

/// What a text input is expected to be, for the refusal of binary data.
const EXPECT_INPUT: &str = "text, or a gzip, zstd, bzip2, xz, ZIP or Parquet file";

/// Opens the file at `path`, refusing a directory and a regular file larger than `max_bytes`
/// before anything is read; returns the file and its size when it is a regular file. Errors
/// (exit 2, naming the file).
fn open_file(path: &Path, limits: Limits, fixed: Option<&str>) -> Result<(std::fs::File, Option<u64>)> {
    let file = std::fs::File::open(path).map_err(|e| Error::io("reading", path, e))?;
    let meta = file.metadata().ok();
    if let Some(meta) = &meta {
        if meta.is_file() && meta.len() > limits.max_bytes {
            return Err(too_large_as(path, limits, "is", fixed));
        }
        if meta.is_dir() {
            return Err(Error::in_file(path, "is a directory (expected a file)"));
        }
    }
    let size = meta.filter(|m| m.is_file()).map(|m| m.len());
    Ok((file, size))
}

/// Whether a first block of content is a container (ZIP or Parquet), whose bytes are no lines.
fn is_container(head: &[u8]) -> bool {
    head.starts_with(b"PAR1")
        || head.starts_with(b"PK\x03\x04")
        || head.starts_with(b"PK\x05\x06")
        || head.starts_with(&ARROW_STREAM_MAGIC)
}

/// Reads what `reader` gives, whole, under `limits`: at most one byte past
/// [`Limits::max_bytes`]; binary data in the first block refused (`expect` says what was
/// expected instead); when the first block is plain text (not compressed, not a container), a
/// line past [`Limits::max_line`] refused as soon as it is read. `size` (a regular file's) is
/// reserved at once. `fixed`: the limit is fixed (no flag raises it), named as this kind of file.
///
/// Errors (exit 2, naming the file): a read error, a limit passed, memory refused.
fn read_whole(
    name: &Path,
    reader: impl Read,
    limits: Limits,
    size: Option<u64>,
    expect: &str,
    fixed: Option<&str>,
) -> Result<Vec<u8>> {
    let mut limited = reader.take(limits.max_bytes.saturating_add(1));
    let mut raw: Vec<u8> = Vec::new();
    let want = size.map_or(SNIFF as u64, |n| {
        n.saturating_add(1).min(limits.max_bytes.saturating_add(1))
    });
    raw.try_reserve_exact(want as usize)
        .map_err(|_| out_of_memory(name, 0))?;
    // The first block decides whether the rest is worth reading, and whether it is text.
    fill_into(&mut limited, &mut raw, SNIFF).map_err(|e| read_failed(name, e, 0))?;
    check_binary(name, &raw, expect)?;
    let mut lines = (Compression::detect(&raw) == Compression::None && !is_container(&raw))
        .then(|| LineCheck::new(limits.max_line));
    let mut from = 0;
    loop {
        if let Some(at) = lines.as_mut().and_then(|l| l.feed(&raw[from..])) {
            return Err(line_too_long(name, count_lines(&raw[..from + at]) + 1, limits));
        }
        if raw.len() as u64 > limits.max_bytes {
            return Err(too_large_as(name, limits, "is", fixed));
        }
        from = raw.len();
        let n = (&mut limited)
            .take(CHUNK)
            .read_to_end(&mut raw)
            .map_err(|e| read_failed(name, e, raw.len()))?;
        if n == 0 {
            return Ok(raw);
        }
    }
}

/// The error of a failed read of `name` after `had` bytes: memory refused, or the I/O error.
fn read_failed(name: &Path, e: std::io::Error, had: usize) -> Error {
    if e.kind() == std::io::ErrorKind::OutOfMemory {
        out_of_memory(name, had)
    } else {
        Error::io("reading", name, e)
    }
}

impl Input {
    /// Reads the file at `path` (a regular file larger than the limit is refused before reading).
    ///
    /// Errors (exit 2, naming the file): missing or unreadable, over a limit ([`Limits`]), a
    /// corrupt compressed stream, NUL bytes in what is neither compressed nor a ZIP/Parquet file.
    pub fn from_path(path: &Path, limits: Limits) -> Result<Input> {
        let (file, size) = open_file(path, limits, None)?;
        let raw = read_whole(path, file, limits, size, EXPECT_INPUT, None)?;
        Input::build(path.to_path_buf(), raw, limits, true)
    }

    /// Reads everything `reader` gives (e.g. standard input, which only the CLI opens); `name` is
    /// used in messages (pass [`STDIN_NAME`] for standard input).
    ///
    /// Errors: as [`Input::from_path`].
    pub fn from_reader(name: impl Into<PathBuf>, reader: impl Read, limits: Limits) -> Result<Input> {
        let name = name.into();
        let raw = read_whole(&name, reader, limits, None, EXPECT_INPUT, None)?;
        Input::build(name, raw, limits, true)
    }

    /// Wraps bytes already in memory (decompressing them when compressed).
    ///
    /// Errors: as [`Input::from_path`].
    pub fn from_bytes(name: impl Into<PathBuf>, raw: Vec<u8>, limits: Limits) -> Result<Input> {
        let name = name.into();
        if raw.len() as u64 > limits.max_bytes {
            return Err(too_large(&name, limits, "is"));
        }
        Input::build(name, raw, limits, false)
    }

    /// The input of `raw` bytes within the size limit, decompressed when compressed; `checked`:
    /// their first block and lines were checked as they were read.
    fn build(name: PathBuf, raw: Vec<u8>, limits: Limits, checked: bool) -> Result<Input> {
        let compression = Compression::detect(&raw);
        let decoded = match compression {
            Compression::None => {
                if !checked {
                    check_binary(&name, &raw[..raw.len().min(SNIFF)], EXPECT_INPUT)?;
                    if !is_container(&raw) {
                        if let Some(at) = LineCheck::new(limits.max_line).feed(&raw) {
                            return Err(line_too_long(&name, count_lines(&raw[..at]) + 1, limits));
                        }
                    }
                }
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
        Ok(Input {
            name,
            raw,
            decoded,
            compression,
            kind,
            limits,
        })
    }

    /// The limits it was read under (a container's reader applies them to its members).
    pub fn limits(&self) -> Limits {
        self.limits
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
            Kind::Arrow => {
                return Err(Error::in_file(
                    &self.name,
                    "is an Arrow IPC stream (a Hugging Face save_to_disk file?), expected a text file here",
                ))
            }
            Kind::Lz4 => {
                return Err(Error::in_file(
                    &self.name,
                    "is LZ4-compressed (a ranx run saved as .lz4?), expected a text file here",
                ))
            }
        }
        let bytes = strip_bom(self.bytes());
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
/// The compression is recognised by content as for [`Input`], and the same [`Limits`] apply as
/// the pieces are handed out: the raw bytes and the content are bounded by
/// [`Limits::max_bytes`], the content's expansion by [`Limits::max_ratio`], and its lines (unless
/// it is a container) by [`Limits::max_line`], so the line a reader carries from one piece to
/// the next stays bounded too.
pub struct Stream {
    name: PathBuf,
    compression: Compression,
    head: Vec<u8>,
    content: Box<dyn Read + Send>,
    tap: Tap,
    limits: Limits,
    /// Newlines in the content handed out so far (the line reached, for errors).
    lines: u64,
    /// Bytes of content read so far (the head included).
    content_bytes: u64,
    /// The line-length check of a text content (`None` for a container).
    line_check: Option<LineCheck>,
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
        let (file, _) = open_file(path, limits, None)?;
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
        check_binary(&name, &block, EXPECT_INPUT)?;
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
            content_bytes: 0,
            line_check: None,
        };
        let mut head = Vec::new();
        fill_into(&mut content, &mut head, SNIFF).map_err(|e| s.read_error(e, count_lines(&head)))?;
        if !is_container(&head) {
            if compression != Compression::None {
                check_binary(&s.name, &head, EXPECT_INPUT)?;
            }
            s.line_check = Some(LineCheck::new(limits.max_line));
        }
        s.content_bytes = head.len() as u64;
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
        is_container(&self.head)
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
    /// Errors (exit 2, naming the file): a read error, a corrupt compressed stream, a limit
    /// passed ([`Limits`]).
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
        self.content_bytes += (filled - start) as u64;
        if let Some(at) = self.line_check.as_mut().and_then(|l| l.feed(buf)) {
            return Err(line_too_long(
                &self.name,
                self.lines + count_lines(&buf[..at]) + 1,
                self.limits,
            ));
        }
        self.lines += count_lines(buf);
        let raw = self.raw_bytes();
        if raw > self.limits.max_bytes {
            return Err(too_large(&self.name, self.limits, "is"));
        }
        if self.compression != Compression::None {
            self.limits
                .check_expansion(&self.name, self.compression.name(), raw, self.content_bytes)?;
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

/// A size in messages: `N bytes (X MiB)`, or `N bytes` when under a kibibyte.
fn size_text(n: u64) -> String {
    match n {
        n if n < 1024 => crate::text::bytes(n),
        n => format!("{} bytes ({})", n, crate::text::bytes(n)),
    }
}

fn too_large(name: &Path, limits: Limits, verb: &str) -> Error {
    too_large_as(name, limits, verb, None)
}

/// The error for an input past [`Limits::max_bytes`]; `fixed`: the limit is fixed for this kind
/// of file (named), so no flag is offered.
fn too_large_as(name: &Path, limits: Limits, verb: &str, fixed: Option<&str>) -> Error {
    match fixed {
        Some(kind) => Error::in_file(
            name,
            format!(
                "{} larger than {}, the most a {} may hold",
                verb,
                size_text(limits.max_bytes),
                kind
            ),
        ),
        None => Error::in_file(
            name,
            format!(
                "{} larger than the input size limit of {}",
                verb,
                size_text(limits.max_bytes)
            ),
        )
        .with_hint("raise the limit with --max-input-size SIZE (e.g. 8G) if the file is meant to be that large"),
    }
}

/// Reads a small text file whole, as stored (never decompressed: its bytes are what is hashed
/// and parsed), e.g. a protocol: at most `max` bytes, refused past that before it is all read;
/// NUL bytes in its first block are binary data (`expect` says what was expected instead).
///
/// Errors (exit 2, naming the file): missing or unreadable, larger than `max` (`kind` names the
/// kind of file in the message; the limit is fixed), binary.
pub fn read_small_text(path: &Path, max: u64, kind: &str, expect: &str) -> Result<Vec<u8>> {
    let limits = Limits {
        max_bytes: max,
        max_line: u64::MAX,
        max_ratio: DEFAULT_MAX_RATIO,
    };
    let (file, size) = open_file(path, limits, Some(kind))?;
    read_whole(path, file, limits, size, expect, Some(kind))
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
fn check_binary(name: &Path, block: &[u8], expect: &str) -> Result<()> {
    if Compression::detect(block) != Compression::None
        || block.starts_with(b"PK")
        || block.starts_with(b"PAR1")
        || block.starts_with(&LZ4_MAGIC)
        || block.starts_with(&ARROW_STREAM_MAGIC)
    {
        return Ok(());
    }
    if let Some(at) = block.iter().position(|&b| b == 0) {
        let what = infer::get(block)
            .map(|t| format!(" ({} by its magic bytes)", t.mime_type()))
            .unwrap_or_default();
        return Err(Error::in_file(
            name,
            format!(
                "binary data{} with a NUL byte at offset {}: expected {}",
                what, at, expect
            ),
        ));
    }
    Ok(())
}

/// The content of `raw`, compressed with `c`, read in pieces: each piece checked against the
/// size and ratio limits ([`Limits::check_expansion`]) and, when the content is text, its lines
/// against [`Limits::max_line`], so a bomb stops at a limit instead of filling memory.
fn decompress(name: &Path, raw: &[u8], c: Compression, limits: Limits) -> Result<Vec<u8>> {
    let bad = |e: std::io::Error| Error::in_file(name, format!("not a valid {} stream", c.name())).caused_by(e);
    let mut reader: Box<dyn Read + '_> = match c {
        Compression::Gzip => Box::new(Gunzip::new(raw)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(raw).map_err(bad)?),
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(raw)),
        Compression::Xz => Box::new(xz2::read::XzDecoder::new_multi_decoder(raw)),
        Compression::None => return Ok(raw.to_vec()),
    };
    let mut out: Vec<u8> = Vec::new();
    let guess = (raw.len() as u64).saturating_mul(4).min(limits.max_bytes).min(1 << 30);
    out.try_reserve_exact(guess as usize)
        .map_err(|_| out_of_memory(name, 0))?;
    let mut lines: Option<LineCheck> = None;
    let mut from = 0;
    loop {
        let n = match (&mut reader).take(CHUNK).read_to_end(&mut out) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::OutOfMemory => return Err(out_of_memory(name, out.len())),
            // What was decoded before the error stays in `out`: its lines are the place reached.
            Err(e) => return Err(decode_error(name, c, count_lines(&out), e)),
        };
        if from == 0 && !out.is_empty() && !is_container(&out) {
            check_binary(name, &out[..out.len().min(SNIFF)], EXPECT_INPUT)?;
            lines = Some(LineCheck::new(limits.max_line));
        }
        if let Some(at) = lines.as_mut().and_then(|l| l.feed(&out[from..])) {
            return Err(line_too_long(name, count_lines(&out[..from + at]) + 1, limits));
        }
        limits.check_expansion(name, c.name(), raw.len() as u64, out.len() as u64)?;
        if n == 0 {
            return Ok(out);
        }
        from = out.len();
    }
}

/// Removes a leading UTF-8 byte-order mark (EF BB BF) if present.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(bytes)
}

/// The system name a per-system file stands for: its file name without a compression extension
/// (`.gz`, `.zst`, `.zstd`, `.bz2`, `.xz`) and one more extension (`results/kimi-k2.5.csv.gz` →
/// `kimi-k2.5`).
pub fn system_name_from_path(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lower = name.to_ascii_lowercase();
    let cut = [".gz", ".zst", ".zstd", ".bz2", ".xz"]
        .iter()
        .find(|x| lower.ends_with(*x))
        .map_or(0, |x| x.len());
    let name = name[..name.len() - cut].to_string();
    match name.rfind('.') {
        Some(i) if i > 0 => name[..i].to_string(),
        _ => name,
    }
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
        let small = Limits {
            max_bytes: 20,
            ..Limits::DEFAULT
        };
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
        let e = Input::from_bytes(
            "b.gz",
            bomb,
            Limits {
                max_bytes: 4096,
                ..Limits::DEFAULT
            },
        )
        .unwrap_err();
        assert!(
            e.message.contains("decompresses (gzip) to larger than"),
            "{}",
            e.message
        );
        // An endless reader stops at the limit.
        let endless = std::io::repeat(b'a');
        let e = Input::from_reader(
            STDIN_NAME,
            endless,
            Limits {
                max_bytes: 100_000,
                max_line: u64::MAX,
                ..Limits::DEFAULT
            },
        )
        .unwrap_err();
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
        let big = Limits {
            max_bytes: 100_000,
            max_line: u64::MAX,
            ..Limits::DEFAULT
        };
        let e = Stream::from_reader("big", Box::new(std::io::repeat(b'a')), big)
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

    /// Every line length found by [`LineCheck`] fed in pieces is the one a plain split finds.
    #[test]
    fn the_line_check_finds_the_first_long_line_in_any_pieces() {
        use proptest::prelude::*;
        let config = proptest::test_runner::Config {
            cases: 2000,
            failure_persistence: None,
            rng_seed: proptest::test_runner::RngSeed::Fixed(11),
            ..Default::default()
        };
        let lines = proptest::collection::vec(0usize..40, 0..12);
        let cuts = proptest::collection::vec(1usize..50, 1..8);
        proptest::test_runner::TestRunner::new(config)
            .run(&(lines, cuts, 1u64..30), |(lens, cuts, max)| {
                let text: Vec<u8> = lens
                    .iter()
                    .flat_map(|&n| std::iter::repeat_n(b'x', n).chain([b'\n']))
                    .collect();
                // The first line longer than `max` (1-based), by a plain split.
                let want = text
                    .split(|&b| b == b'\n')
                    .position(|l| l.len() as u64 > max)
                    .map(|i| i as u64 + 1);
                let mut check = LineCheck::new(max);
                let (mut at, mut k, mut got) = (0, 0, None);
                while at < text.len() && got.is_none() {
                    let end = (at + cuts[k % cuts.len()]).min(text.len());
                    if let Some(off) = check.feed(&text[at..end]) {
                        got = Some(count_lines(&text[..at + off]) + 1);
                    }
                    at = end;
                    k += 1;
                }
                prop_assert_eq!(got, want, "{:?} max {}", String::from_utf8_lossy(&text), max);
                Ok(())
            })
            .unwrap();
    }

    /// A line past the limit, in a plain and a compressed input, read whole and streamed: the
    /// file, its line and the flag are named.
    #[test]
    fn a_line_past_the_limit_is_named_with_its_number() {
        let limits = Limits {
            max_line: 10,
            ..Limits::DEFAULT
        };
        let text = b"short\nalso short\nthis line is too long\nok\n".to_vec();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&text).unwrap();
        let gz = gz.finish().unwrap();
        let want = "f.txt:3: the line is longer than the line-length limit of 10 bytes (expected text lines; is it a binary or a one-line file?)";
        for raw in [text.clone(), gz] {
            let e = Input::from_bytes("f.txt", raw.clone(), limits).unwrap_err();
            assert_eq!(e.message, want);
            assert!(e.hint.unwrap().contains("--max-line-length"));
            let e = Input::from_reader("f.txt", &raw[..], limits).unwrap_err();
            assert_eq!(e.message, want);
            let e = Stream::from_reader("f.txt", Box::new(std::io::Cursor::new(raw)), limits)
                .and_then(|mut s| loop {
                    let mut buf = Vec::new();
                    s.next_piece(&mut buf, 4)?;
                    if buf.is_empty() {
                        return Ok(());
                    }
                })
                .unwrap_err();
            assert_eq!(e.message, want);
        }
        // Within the limit, and in a container (no lines), it reads.
        assert!(Input::from_bytes("f.txt", b"0123456789\n".to_vec(), limits).is_ok());
        let mut zip = b"PK\x03\x04".to_vec();
        zip.extend(std::iter::repeat_n(b'z', 100));
        assert!(Input::from_bytes("f.eval", zip, limits).is_ok());
        // An endless line stops at the limit, not at the size limit.
        let e = Input::from_reader(STDIN_NAME, std::io::repeat(b'a'), limits).unwrap_err();
        assert!(e.message.starts_with("<stdin>:1: the line is longer"), "{}", e.message);
    }

    /// Past the 64 MiB floor, content more than `max_ratio` times its compressed size is refused
    /// with the ratio and the flag named; below it, and within the ratio, it is not.
    #[test]
    fn the_compression_ratio_is_bounded_past_the_floor() {
        let l = Limits::DEFAULT;
        let p = Path::new("bomb.gz");
        assert!(l.check_expansion(p, "gzip", 1, RATIO_FLOOR).is_ok());
        assert!(l.check_expansion(p, "gzip", 1 << 20, 100 << 20).is_ok());
        let e = l.check_expansion(p, "gzip", 1 << 20, (100 << 20) + 1).unwrap_err();
        assert_eq!(
            e.message,
            "bomb.gz: decompresses (gzip) to more than 100 times its compressed size (100.0 MiB from 1.0 MiB): a decompression bomb, or data far more repetitive than real data"
        );
        assert!(e.hint.as_deref().unwrap().contains("--max-compression-ratio N"));
        assert_eq!(e.exit_code(), 2);
        let e = l
            .check_expansion(p, "zstd", 1 << 30, DEFAULT_MAX_BYTES + 1)
            .unwrap_err();
        assert!(
            e.message
                .contains("decompresses (zstd) to larger than the input size limit"),
            "{}",
            e.message
        );
        // A real bomb: 80 MiB of short lines in about 80 KiB of gzip, read whole and streamed.
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let line = b"1 Q0 doc 1 1.0 run\n";
        for _ in 0..(80 << 20) / line.len() {
            enc.write_all(line).unwrap();
        }
        let bomb = enc.finish().unwrap();
        let e = Input::from_bytes("bomb.gz", bomb.clone(), l).unwrap_err();
        assert!(e.message.contains("more than 100 times"), "{}", e.message);
        let e = Stream::from_reader("bomb.gz", Box::new(std::io::Cursor::new(bomb)), l)
            .and_then(|mut s| loop {
                let mut buf = Vec::new();
                s.next_piece(&mut buf, 1 << 20)?;
                if buf.is_empty() {
                    return Ok(());
                }
            })
            .unwrap_err();
        assert!(e.message.contains("more than 100 times"), "{}", e.message);
    }

    /// A protocol-like small text: as stored, bounded by a fixed limit named with the kind of
    /// file and no flag, binary refused with what was expected.
    #[test]
    fn small_texts_are_read_as_stored_within_a_fixed_limit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("p.toml");
        std::fs::write(&p, b"a = 1\n").unwrap();
        assert_eq!(
            read_small_text(&p, 16, "protocol", "a TOML text file").unwrap(),
            b"a = 1\n"
        );
        std::fs::write(&p, [b'x'; 17]).unwrap();
        let e = read_small_text(&p, 16, "protocol", "a TOML text file").unwrap_err();
        assert_eq!(
            e.message,
            format!("{}: is larger than 16 bytes, the most a protocol may hold", p.display())
        );
        assert_eq!(e.hint, None);
        let e = read_small_text(Path::new("/dev/zero"), 16 << 20, "protocol", "a TOML text file").unwrap_err();
        assert_eq!(
            e.message,
            "/dev/zero: binary data with a NUL byte at offset 0: expected a TOML text file"
        );
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
