//! The passages' texts: in memory while they are small, else in an unnamed spill file.
//!
//! A [`TextStore`] holds the texts one after another in one buffer with their byte offsets
//! (no allocation per text). Built with a budget ([`TextStore::with_budget`]), it moves the
//! texts to an unnamed temporary file (created unlinked, as the join's spill files in
//! [`super::ooc`], so it disappears with the process however it ends) as soon as they pass the
//! budget, and appends every later text there; in memory stay only the offsets (8 bytes per
//! text). Spilled texts are read back with positioned or sequential reads (never a memory
//! map), so what the process holds is what its resident memory shows.
//!
//! The rules read a spilled store in order, a batch at a time ([`TextStore::batches`]), and
//! single texts back when they need them ([`TextStore::get`]: the identical-passage rule
//! confirming a hash match, the sample check of listed pairs).

use crate::error::{Error, Result};
use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Where the texts are.
enum Place {
    /// All texts, concatenated.
    Memory(String),
    /// Being written to the spill file.
    Writing(BufWriter<File>),
    /// In the spill file, complete.
    Spilled(File),
}

/// Passage texts by passage index, in memory or spilled (see the module docs).
pub struct TextStore {
    place: Place,
    /// Byte offset of each text's start, and one past the last text's end (`len + 1` entries).
    offsets: Vec<u64>,
    /// Past this many bytes of text the store spills; `None`: never.
    budget: Option<u64>,
    /// Directory of the spill file.
    dir: PathBuf,
}

impl Default for TextStore {
    fn default() -> Self {
        TextStore::in_memory()
    }
}

impl std::fmt::Debug for TextStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextStore")
            .field("texts", &self.len())
            .field("bytes", &self.bytes())
            .field("spilled", &self.is_spilled())
            .finish()
    }
}

fn spill_err(dir: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| {
        Error::io("writing the passages' texts to a spill file in", dir, e)
            .with_hint("free space there, point TMPDIR elsewhere, or give a larger --memory-limit")
    }
}

impl TextStore {
    /// An empty store that keeps every text in memory.
    pub fn in_memory() -> TextStore {
        TextStore {
            place: Place::Memory(String::new()),
            offsets: vec![0],
            budget: None,
            dir: PathBuf::new(),
        }
    }

    /// An empty store that spills to an unnamed file in `dir` once its texts pass `budget`
    /// bytes.
    pub fn with_budget(budget: u64, dir: &Path) -> TextStore {
        TextStore {
            budget: Some(budget),
            dir: dir.to_path_buf(),
            ..TextStore::in_memory()
        }
    }

    /// Appends a text (its index is the number of texts before it).
    ///
    /// Errors (exit 2): the spill file cannot be created or written, naming the directory.
    pub fn push(&mut self, text: &str) -> Result<()> {
        let end = self.bytes() + text.len() as u64;
        if let (Place::Memory(buf), Some(budget)) = (&mut self.place, self.budget) {
            if end > budget {
                let file = tempfile::tempfile_in(&self.dir).map_err(spill_err(&self.dir))?;
                let mut w = BufWriter::with_capacity(1 << 20, file);
                w.write_all(buf.as_bytes()).map_err(spill_err(&self.dir))?;
                self.place = Place::Writing(w);
            }
        }
        match &mut self.place {
            Place::Memory(buf) => buf.push_str(text),
            Place::Writing(w) => w.write_all(text.as_bytes()).map_err(spill_err(&self.dir))?,
            Place::Spilled(_) => return Err(Error::internal("text store: push after finish")),
        }
        self.offsets.push(end);
        Ok(())
    }

    /// Ends the writing (flushes the spill file); nothing more can be pushed to a spilled
    /// store.
    ///
    /// Errors (exit 2): the spill file cannot be written.
    pub fn finish(&mut self) -> Result<()> {
        if matches!(self.place, Place::Writing(_)) {
            if let Place::Writing(w) = std::mem::replace(&mut self.place, Place::Memory(String::new())) {
                let f = w.into_inner().map_err(|e| spill_err(&self.dir)(e.into_error()))?;
                self.place = Place::Spilled(f);
            }
        }
        Ok(())
    }

    /// Number of texts.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no texts.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of all texts (UTF-8).
    pub fn bytes(&self) -> u64 {
        *self.offsets.last().unwrap_or(&0)
    }

    /// Bytes of text `i` (UTF-8).
    pub fn text_len(&self, i: usize) -> u64 {
        self.offsets[i + 1] - self.offsets[i]
    }

    /// Whether the texts are in a spill file rather than in memory.
    pub fn is_spilled(&self) -> bool {
        !matches!(self.place, Place::Memory(_))
    }

    /// Bytes this store holds in memory (texts in memory, offsets).
    pub fn resident_bytes(&self) -> u64 {
        let texts = match &self.place {
            Place::Memory(b) => b.capacity() as u64,
            Place::Writing(_) => 1 << 20,
            Place::Spilled(_) => 0,
        };
        texts + 8 * self.offsets.capacity() as u64
    }

    /// All texts, when they are in memory (`None` when spilled).
    pub fn as_strs(&self) -> Option<Vec<&str>> {
        match &self.place {
            Place::Memory(buf) => Some(
                self.offsets
                    .windows(2)
                    .map(|w| &buf[w[0] as usize..w[1] as usize])
                    .collect(),
            ),
            _ => None,
        }
    }

    /// Text `i`: borrowed when in memory, read back (one positioned read) when spilled.
    ///
    /// Errors (exit 2): the spill file cannot be read back.
    pub fn get(&self, i: usize) -> Result<Cow<'_, str>> {
        let (a, b) = (self.offsets[i], self.offsets[i + 1]);
        match &self.place {
            Place::Memory(buf) => Ok(Cow::Borrowed(&buf[a as usize..b as usize])),
            Place::Writing(_) => Err(Error::internal("text store: read before finish")),
            Place::Spilled(f) => {
                let mut v = vec![0u8; (b - a) as usize];
                read_at(f, &mut v, a).map_err(spill_err(&self.dir))?;
                into_string(v, &self.dir).map(Cow::Owned)
            }
        }
    }

    /// Calls `f(first, texts)` for consecutive batches of texts in order, each of about
    /// `batch_bytes` bytes (at least one text); a spilled store is read sequentially.
    ///
    /// Errors (exit 2): the spill file cannot be read back; or an error of `f`.
    pub fn batches(&self, batch_bytes: u64, mut f: impl FnMut(usize, Vec<Cow<'_, str>>) -> Result<()>) -> Result<()> {
        let n = self.len();
        let mut reader = match &self.place {
            Place::Spilled(file) => {
                let mut r = file.try_clone().map_err(spill_err(&self.dir))?;
                r.seek(SeekFrom::Start(0)).map_err(spill_err(&self.dir))?;
                Some(r)
            }
            Place::Writing(_) => return Err(Error::internal("text store: read before finish")),
            Place::Memory(_) => None,
        };
        let mut first = 0;
        while first < n {
            let mut end = first + 1;
            while end < n && self.offsets[end + 1] - self.offsets[first] <= batch_bytes {
                end += 1;
            }
            let (a, b) = (self.offsets[first], self.offsets[end]);
            let batch: Vec<Cow<'_, str>> = match (&self.place, reader.as_mut()) {
                (Place::Memory(buf), _) => (first..end)
                    .map(|i| Cow::Borrowed(&buf[self.offsets[i] as usize..self.offsets[i + 1] as usize]))
                    .collect(),
                (_, Some(r)) => {
                    let mut bytes = vec![0u8; (b - a) as usize];
                    r.read_exact(&mut bytes).map_err(spill_err(&self.dir))?;
                    let all = into_string(bytes, &self.dir)?;
                    (first..end)
                        .map(|i| {
                            let (x, y) = ((self.offsets[i] - a) as usize, (self.offsets[i + 1] - a) as usize);
                            Cow::Owned(all[x..y].to_string())
                        })
                        .collect()
                }
                _ => return Err(Error::internal("text store: no reader")),
            };
            f(first, batch)?;
            first = end;
        }
        Ok(())
    }
}

fn into_string(v: Vec<u8>, dir: &Path) -> Result<String> {
    String::from_utf8(v).map_err(|e| {
        spill_err(dir)(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("spill file read back as invalid UTF-8: {}", e),
        ))
    })
}

#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, at)
}

#[cfg(not(unix))]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    let mut f = f.try_clone()?;
    f.seek(SeekFrom::Start(at))?;
    f.read_exact(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(store: &mut TextStore, texts: &[&str]) {
        for t in texts {
            store.push(t).unwrap();
        }
        store.finish().unwrap();
    }

    #[test]
    fn memory_and_spilled_stores_give_the_same_texts() {
        let texts = ["abc", "", "법률안", "x y z", "last"];
        let dir = tempfile::tempdir().unwrap();
        let mut mem = TextStore::in_memory();
        filled(&mut mem, &texts);
        // A budget of 4 bytes: the third text spills them all.
        let mut spilled = TextStore::with_budget(4, dir.path());
        filled(&mut spilled, &texts);
        assert!(!mem.is_spilled());
        assert!(spilled.is_spilled());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "the spill file is unnamed"
        );
        for s in [&mem, &spilled] {
            assert_eq!(s.len(), 5);
            assert_eq!(s.bytes(), 3 + 9 + 5 + 4);
            for (i, t) in texts.iter().enumerate() {
                assert_eq!(s.get(i).unwrap(), *t);
            }
            for batch in [1u64, 4, 9, 1000] {
                let mut got = Vec::new();
                s.batches(batch, |first, b| {
                    assert_eq!(first, got.len());
                    got.extend(b.into_iter().map(|c| c.into_owned()));
                    Ok(())
                })
                .unwrap();
                assert_eq!(got, texts);
            }
        }
        assert_eq!(mem.as_strs().unwrap(), texts);
        assert!(spilled.as_strs().is_none());
        assert_eq!(spilled.resident_bytes(), 8 * spilled.offsets.capacity() as u64);
    }
}
