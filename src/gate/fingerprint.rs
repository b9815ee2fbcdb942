//! The keyed fingerprint of a sealed passage set: for each sealed passage, the keyed hashes of
//! its shingles, so that a candidate passage's overlap with it can be measured exactly without
//! the sealed text.
//!
//! **Shingles** are those of the near-duplicate link rule ([`crate::components::shingle`]): the
//! character n-grams of the text after Unicode normalization (a non-empty text shorter than n is
//! its own shingle; an empty text has none). **The keyed hash** of a shingle `s` is the first 8
//! bytes, read big-endian, of HMAC-SHA-256 (RFC 2104, FIPS 180-4) under the key, of the bytes
//! `"shingle\0"` followed by `s` in UTF-8; a sealed passage is named by its **fingerprint id**,
//! the same of `"passage\0"` followed by its id (16 hex digits), so that its id is not revealed
//! either. Anyone holding the key computes the same values (Python:
//! `hmac.new(key, b"shingle\0" + s.encode(), "sha256").digest()[:8]`).
//!
//! **The key** is the bytes of a key file, at least [`MIN_KEY_BYTES`] of them (e.g. 32 random
//! bytes: `head -c 32 /dev/urandom > sealed.key`); it stays with the sealed data. Its
//! **commitment** is the SHA-256 of those bytes (`sha256sum sealed.key`): the protocol registers
//! it, so the key used later can be checked, and a high-entropy key cannot be recovered from it.
//!
//! **What the fingerprint hides, and what it does not.** Without the key, a hash cannot be tied
//! to the shingle it stands for (HMAC is a pseudo-random function): the same text under two keys
//! shares no hash. The hashing is deterministic, though: equal shingles have equal hashes, so
//! how often each hash occurs in the sealed set, and how many shingles each sealed passage has,
//! are visible. Two 64-bit hashes of different shingles collide with probability about
//! d²/2⁶⁵ for d distinct shingles (for 10 million, about 3·10⁻⁶); a collision can only add
//! overlap.
//!
//! **The file** (format 1): the line `pledge-fingerprint 1`, then one line of JSON
//! ([`Header`]), then, little-endian, the sealed set's distinct hashes in ascending order (8 bytes
//! each), then one record per sealed passage in ascending fingerprint id: the id (8 bytes), the
//! number k of its distinct shingles and the k ascending positions of their hashes in that list,
//! each as the difference from the one before (the first from 0), all as unsigned LEB128. The
//! protocol pins the file by its SHA-256.

use super::memo::Memo;
use crate::components::shingle;
use crate::error::{Error, Result};
use crate::protocol::Normalization;
use hmac::{Hmac, Mac};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::path::Path;

/// The fewest bytes a key file may hold (128 bits).
pub const MIN_KEY_BYTES: usize = 16;

/// The most bytes a key file may hold.
pub const MAX_KEY_BYTES: usize = 1 << 16;

/// The first line of a fingerprint file.
pub const MAGIC: &[u8] = b"pledge-fingerprint 1\n";

/// The keyed hash a fingerprint uses, by name (recorded in the header).
pub const PRF: &str = "hmac-sha256-64";

/// A fingerprint key: the keyed hash, ready to use, and the key's commitment.
#[derive(Clone)]
pub struct Key {
    mac: Hmac<Sha256>,
    sha256: String,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Key(sha256 {})", self.sha256)
    }
}

impl Key {
    /// The key made of `bytes`, the content of the key file `path` (named in errors).
    ///
    /// Errors (exit 2): fewer than [`MIN_KEY_BYTES`] or more than [`MAX_KEY_BYTES`] bytes.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Key> {
        if bytes.len() < MIN_KEY_BYTES || bytes.len() > MAX_KEY_BYTES {
            return Err(Error::in_file(
                path,
                format!(
                    "a fingerprint key must hold {} to {} bytes, and this one holds {}",
                    MIN_KEY_BYTES,
                    MAX_KEY_BYTES,
                    bytes.len()
                ),
            )
            .with_hint(format!("make one with `head -c 32 /dev/urandom > {}`", path.display())));
        }
        let mac = Hmac::<Sha256>::new_from_slice(bytes).map_err(|e| Error::internal(format!("HMAC key: {}", e)))?;
        Ok(Key {
            mac,
            sha256: crate::io::sha256_hex(bytes),
        })
    }

    /// Reads the key file at `path`.
    ///
    /// Errors (exit 2): the file cannot be read; see [`Key::from_bytes`].
    pub fn read(path: &Path) -> Result<Key> {
        let meta = std::fs::metadata(path).map_err(|e| Error::io("reading", path, e))?;
        if meta.len() > MAX_KEY_BYTES as u64 {
            return Key::from_bytes(&vec![0; MAX_KEY_BYTES + 1], path);
        }
        // Read as raw bytes: a random key holds NUL bytes, which the text readers refuse.
        let bytes = std::fs::read(path).map_err(|e| Error::io("reading", path, e))?;
        Key::from_bytes(&bytes, path)
    }

    /// The key's commitment: the SHA-256 of its bytes, hex.
    pub fn commitment(&self) -> &str {
        &self.sha256
    }

    /// The keyed hash of `domain`, a NUL and `text`.
    fn prf(&self, domain: &[u8], text: &str) -> u64 {
        let mut m = self.mac.clone();
        m.update(domain);
        m.update(b"\0");
        m.update(text.as_bytes());
        let d = m.finalize().into_bytes();
        u64::from_be_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
    }

    /// The keyed hash of a shingle.
    pub fn shingle(&self, s: &str) -> u64 {
        self.prf(b"shingle", s)
    }

    /// The fingerprint id of a sealed passage id.
    pub fn passage_id(&self, id: &str) -> u64 {
        self.prf(b"passage", id)
    }
}

/// A fingerprint id as shown and recorded: 16 hex digits.
pub fn id_hex(id: u64) -> String {
    format!("{:016x}", id)
}

/// The JSON header line of a fingerprint file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Header {
    /// The keyed hash ([`PRF`]).
    pub prf: String,
    /// The key's commitment (SHA-256 of the key file, hex).
    pub key_sha256: String,
    /// The shingle size n (characters).
    pub shingle_size: u32,
    /// The Unicode normalization applied before shingling.
    pub normalization: Normalization,
    /// Sealed passages fingerprinted.
    pub passages: u64,
    /// Distinct shingle hashes over the sealed set.
    pub distinct: u64,
    /// Shingle hashes over all sealed passages (each passage's distinct ones).
    pub postings: u64,
}

/// A fingerprint: the sealed set's distinct hashes and, per sealed passage, its fingerprint id
/// and the positions of its shingles' hashes among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// The header.
    pub header: Header,
    /// The distinct shingle hashes, ascending.
    pub hashes: Vec<u64>,
    /// Each sealed passage's fingerprint id, ascending.
    pub ids: Vec<u64>,
    /// Passage `i`'s positions are `positions[offsets[i]..offsets[i + 1]]`.
    pub offsets: Vec<usize>,
    /// Each passage's positions into `hashes`, ascending.
    pub positions: Vec<u32>,
}

impl Fingerprint {
    /// Sealed passages.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no passage was fingerprinted.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Passage `i`'s positions into [`Fingerprint::hashes`].
    pub fn set(&self, i: usize) -> &[u32] {
        &self.positions[self.offsets[i]..self.offsets[i + 1]]
    }
}

/// The distinct keyed hashes of each text's shingles (size `n`, after normalization `norm`),
/// sorted; each distinct shingle of a chunk of texts is hashed once.
pub fn hashed_sets<S: AsRef<str> + Sync>(texts: &[S], key: &Key, n: usize, norm: Normalization) -> Vec<Vec<u64>> {
    let per = texts.len().div_ceil(rayon::current_num_threads().max(1)).max(1);
    texts
        .par_chunks(per)
        .flat_map_iter(|chunk| {
            let normalized: Vec<_> = chunk.iter().map(|t| shingle::normalized(t.as_ref(), norm)).collect();
            let mut memo = Memo::with_capacity(1 << 12);
            let sets: Vec<Vec<u64>> = normalized
                .iter()
                .map(|t| {
                    let mut v: Vec<u64> = shingle::ngrams(t, n)
                        .into_iter()
                        .map(|s| memo.get(s, |s| key.shingle(s)))
                        .collect();
                    v.sort_unstable();
                    v.dedup();
                    v
                })
                .collect();
            sets
        })
        .collect()
}

/// The fingerprint of the sealed passages `(id, text)` under `key`, shingle size `n` and
/// normalization `norm`.
///
/// Errors (exit 2): two passage ids with the same fingerprint id (a 64-bit collision, about
/// one chance in 2⁶⁴ per pair: rename one); more than 2³² − 1 distinct shingles.
pub fn make(passages: &[(&str, &str)], key: &Key, n: usize, norm: Normalization) -> Result<Fingerprint> {
    let texts: Vec<&str> = passages.iter().map(|p| p.1).collect();
    let sets = hashed_sets(&texts, key, n, norm);
    let mut hashes: Vec<u64> = sets.iter().flatten().copied().collect();
    hashes.par_sort_unstable();
    hashes.dedup();
    if hashes.len() >= u32::MAX as usize {
        return Err(Error::input("the sealed set has more than 2^32 - 1 distinct shingles"));
    }
    let mut order: Vec<(u64, usize)> = passages
        .iter()
        .enumerate()
        .map(|(i, p)| (key.passage_id(p.0), i))
        .collect();
    order.sort_unstable();
    if let Some(w) = order.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Error::input(format!(
            "sealed passages `{}` and `{}` have the same fingerprint id {}",
            passages[w[0].1].0,
            passages[w[1].1].0,
            id_hex(w[0].0)
        ))
        .with_hint("rename one of them"));
    }
    let mut offsets = vec![0usize];
    let mut positions = Vec::with_capacity(sets.iter().map(Vec::len).sum());
    for &(_, i) in &order {
        positions.extend(sets[i].iter().map(|h| hashes.partition_point(|x| x < h) as u32));
        offsets.push(positions.len());
    }
    Ok(Fingerprint {
        header: Header {
            prf: PRF.into(),
            key_sha256: key.commitment().to_string(),
            shingle_size: n as u32,
            normalization: norm,
            passages: passages.len() as u64,
            distinct: hashes.len() as u64,
            postings: positions.len() as u64,
        },
        hashes,
        ids: order.iter().map(|o| o.0).collect(),
        offsets,
        positions,
    })
}

/// The file's bytes (see the module docs).
pub fn to_bytes(fp: &Fingerprint) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC.len() + 8 * fp.hashes.len() + 3 * fp.positions.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(serde_json::to_string(&fp.header).unwrap_or_default().as_bytes());
    out.push(b'\n');
    for h in &fp.hashes {
        out.extend_from_slice(&h.to_le_bytes());
    }
    for (i, id) in fp.ids.iter().enumerate() {
        out.extend_from_slice(&id.to_le_bytes());
        let set = fp.set(i);
        leb128(&mut out, set.len() as u64);
        let mut prev = 0u32;
        for &p in set {
            leb128(&mut out, (p - prev) as u64);
            prev = p;
        }
    }
    out
}

fn leb128(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// A reader of a fingerprint file's body that names the file and the byte offset in errors.
struct Body<'a> {
    bytes: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl Body<'_> {
    fn bad(&self, what: impl std::fmt::Display) -> Error {
        Error::in_file(self.path, format!("byte {}: {}", self.at, what))
            .with_hint("make the fingerprint again with `pledge fingerprint`; a fingerprint file is not edited by hand")
    }

    fn u64(&mut self) -> Result<u64> {
        let b = self
            .bytes
            .get(self.at..self.at + 8)
            .ok_or_else(|| self.bad("the file ends inside an 8-byte value"))?;
        self.at += 8;
        Ok(u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }

    fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self
                .bytes
                .get(self.at)
                .ok_or_else(|| self.bad("the file ends inside a number"))?;
            self.at += 1;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.bad("a number longer than 64 bits"))
    }
}

/// Parses a fingerprint file's bytes; `path` names it in errors.
///
/// Errors (exit 2, naming the file and the byte): not a fingerprint file, or another format
/// version; a header that is not the JSON of [`Header`]; counts the file's size cannot hold;
/// hashes or ids not ascending; a position past the hashes or not ascending; bytes left over.
pub fn parse(bytes: &[u8], path: &Path) -> Result<Fingerprint> {
    let hint = "give the file `pledge fingerprint` wrote (its first line is `pledge-fingerprint 1`)";
    let Some(rest) = bytes.strip_prefix(MAGIC) else {
        return Err(Error::in_file(path, "not a pledge fingerprint file (format 1)").with_hint(hint));
    };
    let nl = rest
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| Error::in_file(path, "line 2: the header line does not end").with_hint(hint))?;
    let header: Header = serde_json::from_slice(&rest[..nl])
        .map_err(|e| Error::at(path, 2, format!("the header is not a fingerprint header: {}", e)).with_hint(hint))?;
    if header.prf != PRF {
        return Err(Error::at(
            path,
            2,
            format!("keyed hash `{}`, expected `{}`", header.prf, PRF),
        ));
    }
    let mut b = Body {
        bytes,
        at: MAGIC.len() + nl + 1,
        path,
    };
    let room = (bytes.len() - b.at) as u64;
    // Every hash takes 8 bytes, every passage at least 9, every position at least 1.
    if header.distinct > u32::MAX as u64
        || header.distinct.saturating_mul(8) + header.passages.saturating_mul(9) + header.postings > room
    {
        return Err(b.bad(format!(
            "the header counts {} hashes, {} passages and {} positions, more than the file's {} remaining bytes hold",
            header.distinct, header.passages, header.postings, room
        )));
    }
    let mut hashes = Vec::with_capacity(header.distinct as usize);
    for _ in 0..header.distinct {
        let h = b.u64()?;
        if hashes.last().is_some_and(|&p| p >= h) {
            return Err(b.bad("the hashes are not in ascending order"));
        }
        hashes.push(h);
    }
    let (ids, offsets, positions) = records(&mut b, &header, hashes.len())?;
    if b.at != bytes.len() {
        return Err(b.bad(format!("{} bytes after the last passage", bytes.len() - b.at)));
    }
    Ok(Fingerprint {
        header,
        hashes,
        ids,
        offsets,
        positions,
    })
}

/// The passage records of a fingerprint body: ids, offsets, positions.
type Records = (Vec<u64>, Vec<usize>, Vec<u32>);

/// Reads the header's passages from `b`, checking them against `distinct` hashes.
fn records(b: &mut Body, header: &Header, distinct: usize) -> Result<Records> {
    let mut ids = Vec::with_capacity(header.passages as usize);
    let mut offsets = Vec::with_capacity(header.passages as usize + 1);
    offsets.push(0);
    let mut positions: Vec<u32> = Vec::with_capacity(header.postings as usize);
    for _ in 0..header.passages {
        let id = b.u64()?;
        if ids.last().is_some_and(|&p| p >= id) {
            return Err(b.bad("the fingerprint ids are not in ascending order"));
        }
        ids.push(id);
        let k = b.varint()?;
        if positions.len() as u64 + k > header.postings {
            return Err(b.bad(format!("more positions than the header's {}", header.postings)));
        }
        let mut prev: u64 = 0;
        for j in 0..k {
            let d = b.varint()?;
            let p = prev.saturating_add(d);
            if (j > 0 && d == 0) || p >= distinct as u64 {
                return Err(b.bad("a position not ascending, or past the hashes"));
            }
            positions.push(p as u32);
            prev = p;
        }
        offsets.push(positions.len());
    }
    if positions.len() as u64 != header.postings {
        return Err(b.bad(format!(
            "{} positions, and the header counts {}",
            positions.len(),
            header.postings
        )));
    }
    Ok((ids, offsets, positions))
}

/// Reads the fingerprint file at `path` and its SHA-256 (hex, of the bytes read).
///
/// Errors (exit 2): the file cannot be read; see [`parse`].
pub fn read(path: &Path) -> Result<(Fingerprint, String)> {
    // Read as raw bytes (the text readers refuse binary data).
    let bytes = std::fs::read(path).map_err(|e| Error::io("reading", path, e))?;
    let sha = crate::io::sha256_hex(&bytes);
    Ok((parse(&bytes, path)?, sha))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(b: u8) -> Key {
        Key::from_bytes(&[b; 32], Path::new("k")).unwrap()
    }

    #[test]
    fn shingle_hash_is_truncated_hmac_sha256_with_its_domain() {
        // RFC 4231 test case 2 (key "Jefe", data "what do ya want for nothing?") gives the HMAC
        // 5bdcc146bf60754e...; a key of 16 bytes and the domain prefix are checked by the same
        // construction in Python (`hmac.new(b"0123456789abcdef", b"shingle\0abc", "sha256")`).
        let mut m = Hmac::<Sha256>::new_from_slice(b"Jefe").unwrap();
        m.update(b"what do ya want for nothing?");
        assert_eq!(&hex::encode(m.finalize().into_bytes())[..16], "5bdcc146bf60754e");
        let k = Key::from_bytes(b"0123456789abcdef", Path::new("k")).unwrap();
        assert_eq!(format!("{:016x}", k.shingle("abc")), "b33d96ad60d61611");
        assert_eq!(k.commitment(), crate::io::sha256_hex(b"0123456789abcdef"));
    }

    #[test]
    fn short_keys_are_refused() {
        let e = Key::from_bytes(b"short", Path::new("sealed.key")).unwrap_err();
        assert!(
            e.render().contains("must hold 16 to 65536 bytes, and this one holds 5"),
            "{}",
            e.render()
        );
    }

    #[test]
    fn same_text_under_two_keys_shares_no_hash() {
        let texts = ["the joint-penalty clause applies to every article of this act"];
        let a = hashed_sets(&texts, &key(1), 5, Normalization::Nfc);
        let b = hashed_sets(&texts, &key(2), 5, Normalization::Nfc);
        assert_eq!(a[0].len(), b[0].len());
        assert!(a[0].iter().all(|h| b[0].binary_search(h).is_err()));
    }

    #[test]
    fn file_round_trips_and_damage_is_named() {
        let p = [("a", "abcdefg"), ("b", "bcdefgh"), ("c", ""), ("d", "xyz")];
        let fp = make(&p, &key(3), 3, Normalization::Nfc).unwrap();
        assert_eq!(fp.header.passages, 4);
        assert_eq!(fp.header.distinct, 7); // abc bcd cde def efg fgh xyz
        assert_eq!(fp.header.postings, 5 + 5 + 1);
        let bytes = to_bytes(&fp);
        assert_eq!(parse(&bytes, Path::new("f")).unwrap(), fp);
        let err = |b: &[u8]| parse(b, Path::new("f")).unwrap_err().render();
        // A file cut short is refused by the header's counts before any value is read.
        let cut = err(&bytes[..bytes.len() - 1]);
        assert!(cut.contains("more than the file's 102 remaining bytes hold"), "{}", cut);
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(err(&extra).contains("1 bytes after the last passage"));
        assert!(err(b"PK\x03\x04").contains("not a pledge fingerprint file"));
        let mut swapped = bytes.clone();
        let at = MAGIC.len() + bytes[MAGIC.len()..].iter().position(|&b| b == b'\n').unwrap() + 1;
        swapped[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(err(&swapped).contains("not in ascending order"));
    }

    #[test]
    fn header_counts_past_the_file_are_refused_before_allocating() {
        let text = String::from(
            "pledge-fingerprint 1\n{\"prf\":\"hmac-sha256-64\",\"key-sha256\":\"x\",\"shingle-size\":5,\"normalization\":\"nfc\",\"passages\":1000000000000,\"distinct\":1,\"postings\":1}\n"
        );
        let e = parse(text.as_bytes(), Path::new("f")).unwrap_err().render();
        assert!(e.contains("more than the file's 0 remaining bytes hold"), "{}", e);
    }
}
