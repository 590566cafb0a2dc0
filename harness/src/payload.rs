//! The bytes a flow sends: a deterministic function of (seed, flow, stream offset), so the
//! receiver can check every chunk at its offset without keeping a copy of what was sent.
//!
//! The stream is cut into blocks of 4 KiB (`BLOCK`). Every block is the same table of
//! pseudo-random bytes, shared by all flows, XOR-ed with a 64-bit mask drawn per flow and per
//! block (the mask's little-endian bytes repeat every 8 bytes). Any offset is computable without
//! state, and filling or checking a byte costs a load, an XOR and a store or an OR, which the
//! compiler turns into vector code: the receiver checks every byte the sender writes, so this runs
//! over every byte of every flow twice. A byte moved within its block meets different table bytes,
//! one moved to another block a different mask, so misplaced data is caught like corrupted data.

use std::ops::Range;

/// Bytes per block: the table stays in the first-level cache.
const BLOCK: usize = 4096;

/// The bytes every block XORs with its mask.
static TABLE: [u8; BLOCK] = table();

/// The odd constant of splitmix64's counter (the golden ratio in 64 bits).
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// The pattern of one flow.
#[derive(Debug, Clone, Copy)]
pub struct Pattern {
    key: u64,
}

const fn mix(mut z: u64) -> u64 {
    // splitmix64 finaliser
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Splitmix64 output, 8 bytes at a time, from a fixed seed.
const fn table() -> [u8; BLOCK] {
    let mut t = [0u8; BLOCK];
    let mut i = 0;
    while i < BLOCK {
        let w = mix(0x7ab1_e5ee_d000_0000 ^ ((i / 8) as u64).wrapping_mul(GOLDEN)).to_le_bytes();
        let mut j = 0;
        while j < 8 {
            t[i + j] = w[j];
            j += 1;
        }
        i += 8;
    }
    t
}

/// Eight bytes as a little-endian word (`bytes` holds exactly eight).
#[inline]
fn le(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().expect("eight bytes"))
}

/// One piece of a range cut at block boundaries: where it lies in the caller's slice, the table
/// bytes at its stream offsets, and its block's mask rotated so that its low byte belongs to the
/// piece's first byte (then every 8 bytes of the piece XOR with this word).
struct Piece {
    range: Range<usize>,
    table: &'static [u8],
    mask: u64,
}

impl Pattern {
    pub fn new(seed: u64, flow: usize) -> Self {
        Self {
            key: mix(seed ^ mix(flow as u64 ^ 0x5eed_f10e)),
        }
    }

    /// The mask of the block at stream offsets `BLOCK * block ..`.
    #[inline]
    fn mask(&self, block: u64) -> u64 {
        mix(self.key.wrapping_add(block.wrapping_mul(GOLDEN)))
    }

    /// Stream offsets `offset..offset + len` cut at block boundaries.
    fn pieces(&self, offset: u64, len: usize) -> impl Iterator<Item = Piece> + '_ {
        let mut done = 0;
        std::iter::from_fn(move || {
            if done == len {
                return None;
            }
            let at = offset + done as u64;
            let pos = (at % BLOCK as u64) as usize;
            let n = (BLOCK - pos).min(len - done);
            let piece = Piece {
                range: done..done + n,
                table: &TABLE[pos..pos + n],
                mask: self
                    .mask(at / BLOCK as u64)
                    .rotate_right(8 * (pos % 8) as u32),
            };
            done += n;
            Some(piece)
        })
    }

    /// Fills `out` with the bytes at stream offsets `offset..offset + out.len()`.
    pub fn fill(&self, offset: u64, out: &mut [u8]) {
        for p in self.pieces(offset, out.len()) {
            let out = &mut out[p.range];
            let mut words = out.chunks_exact_mut(8);
            let mut table = p.table.chunks_exact(8);
            for (o, t) in (&mut words).zip(&mut table) {
                o.copy_from_slice(&(le(t) ^ p.mask).to_le_bytes());
            }
            let mask = p.mask.to_le_bytes();
            let rest = words.into_remainder().iter_mut();
            for ((o, t), m) in rest.zip(table.remainder()).zip(mask) {
                *o = t ^ m;
            }
        }
    }

    /// Whether `data` is exactly the bytes at stream offsets `offset..`.
    pub fn check(&self, offset: u64, data: &[u8]) -> bool {
        self.mismatch(offset, data).is_none()
    }

    /// The stream offset of the first byte of `data` that differs from the bytes at stream
    /// offsets `offset..`, if any.
    ///
    /// Each piece's differences are OR-ed rather than tested per word (one branch per piece, and
    /// vector code); only a piece that differs is searched byte by byte.
    pub fn mismatch(&self, offset: u64, data: &[u8]) -> Option<u64> {
        for p in self.pieces(offset, data.len()) {
            let start = p.range.start;
            let data = &data[p.range];
            let words = data.chunks_exact(8);
            let rest = words.remainder();
            let mut table = p.table.chunks_exact(8);
            let mut diff = 0u64;
            for (d, t) in words.zip(&mut table) {
                diff |= le(d) ^ le(t) ^ p.mask;
            }
            let mask = p.mask.to_le_bytes();
            for ((d, t), m) in rest.iter().zip(table.remainder()).zip(mask) {
                diff |= u64::from(d ^ t ^ m);
            }
            if diff != 0 {
                let i = (0..data.len()).find(|&i| data[i] != p.table[i] ^ mask[i % 8]);
                return Some(offset + (start + i.expect("a differing byte")) as u64);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pattern's byte at stream offset `offset`: the definition the fast paths follow.
    fn byte(p: &Pattern, offset: u64) -> u8 {
        let pos = (offset % BLOCK as u64) as usize;
        TABLE[pos] ^ p.mask(offset / BLOCK as u64).to_le_bytes()[pos % 8]
    }

    /// The bytes at `offset..offset + len`, one at a time from the definition.
    fn bytewise(p: &Pattern, offset: u64, len: usize) -> Vec<u8> {
        (0..len as u64).map(|i| byte(p, offset + i)).collect()
    }

    /// Offsets around the start, word and block boundaries, and far into a stream.
    fn offsets() -> Vec<u64> {
        let b = BLOCK as u64;
        let mut v: Vec<u64> = (0..17).collect();
        for base in [b, 3 * b, (1 << 40) + 5 * b] {
            v.extend((base - 9..base + 9).filter(|o| o % 3 == 0 || o % 8 == 0));
        }
        v
    }

    #[test]
    fn any_split_checks_and_flips_are_caught() {
        let p = Pattern::new(3, 1);
        let mut all = vec![0u8; 3 * BLOCK + 1000];
        p.fill(0, &mut all);
        let mut part = vec![0u8; BLOCK + 333];
        p.fill(101, &mut part);
        assert_eq!(&all[101..101 + part.len()], &part[..]);
        assert!(p.check(13, &all[13..all.len() - 1]));
        let mut bad = all[13..all.len() - 1].to_vec();
        bad[500] ^= 1;
        assert!(!p.check(13, &bad));
        assert_eq!(p.mismatch(13, &bad), Some(513));
        assert!(!Pattern::new(3, 2).check(0, &all));
        assert!(!Pattern::new(4, 1).check(0, &all));
    }

    /// Fill at any offset and length, across word and block boundaries, agrees with the
    /// byte-at-a-time definition, and the result checks.
    #[test]
    fn fill_matches_the_bytewise_definition() {
        let p = Pattern::new(11, 4);
        for offset in offsets() {
            for len in (0..40).chain([BLOCK - 1, BLOCK, BLOCK + 7, 2 * BLOCK + 13]) {
                let mut out = vec![0u8; len];
                p.fill(offset, &mut out);
                assert_eq!(out, bytewise(&p, offset, len), "offset {offset} len {len}");
                assert!(p.check(offset, &out), "offset {offset} len {len}");
                assert_eq!(p.mismatch(offset, &out), None);
            }
        }
    }

    /// A flipped byte anywhere, at any alignment, is caught at its stream offset.
    #[test]
    fn flips_are_caught_at_their_offset() {
        let p = Pattern::new(7, 0);
        for offset in offsets() {
            for len in [1, 7, 8, 9, 23, 64, 2 * BLOCK + 13] {
                let good = bytewise(&p, offset, len);
                let flips = (0..len).filter(|i| len < 100 || i % 97 == 0 || (i + 1) % BLOCK < 3);
                for i in flips.chain([len - 1]) {
                    for bit in [0x01, 0x80] {
                        let mut bad = good.clone();
                        bad[i] ^= bit;
                        let at = offset + i as u64;
                        assert_eq!(
                            p.mismatch(offset, &bad),
                            Some(at),
                            "offset {offset} flip {i}"
                        );
                        assert!(!p.check(offset, &bad));
                    }
                }
            }
        }
    }

    /// A stream read in odd-sized chunks checks; the same chunk at a wrong offset (a byte or a
    /// word off, or a whole block off) does not.
    #[test]
    fn odd_chunks_check_and_misplaced_chunks_do_not() {
        let p = Pattern::new(5, 9);
        let mut stream = vec![0u8; 5 * BLOCK + 77];
        p.fill(0, &mut stream);
        let mut at = 0;
        for size in [1, 3, 1199, 7, 1452, 4095, 13, 8, 2].iter().cycle() {
            if at == stream.len() {
                break;
            }
            let end = (at + size).min(stream.len());
            assert!(p.check(at as u64, &stream[at..end]), "chunk at {at}");
            at = end;
        }
        let chunk = &stream[BLOCK + 5..2 * BLOCK + 100];
        for wrong in [1, 8, 3, BLOCK as u64, 2 * BLOCK as u64 + 8] {
            for o in [
                BLOCK as u64 + 5 + wrong,
                (BLOCK as u64 + 5).wrapping_sub(wrong),
            ] {
                assert!(!p.check(o, chunk), "placed at {o}");
            }
        }
    }
}
