//! The bytes a flow sends: a deterministic function of (seed, flow, stream offset), so the
//! receiver can check every chunk at its offset without keeping a copy of what was sent.

/// The pattern of one flow.
#[derive(Debug, Clone, Copy)]
pub struct Pattern {
    key: u64,
}

fn mix(mut z: u64) -> u64 {
    // splitmix64 finaliser
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Pattern {
    pub fn new(seed: u64, flow: usize) -> Self {
        Self {
            key: mix(seed ^ mix(flow as u64 ^ 0x5eed_f10e)),
        }
    }

    /// The 8 bytes at stream offsets `8 * index .. 8 * index + 8`, as a little-endian word.
    #[inline]
    fn word(&self, index: u64) -> u64 {
        mix(self
            .key
            .wrapping_add(index.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
    }

    /// Fills `out` with the bytes at stream offsets `offset..offset + out.len()`.
    ///
    /// Whole words are written eight bytes at a time (the receiver checks every byte the sender
    /// writes, so this runs over every byte of every flow twice).
    pub fn fill(&self, offset: u64, out: &mut [u8]) {
        let head = head_len(offset, out.len());
        let (first, body) = out.split_at_mut(head);
        let skip = (offset % 8) as usize;
        first.copy_from_slice(&self.word(offset / 8).to_le_bytes()[skip..skip + head]);
        let mut index = (offset + head as u64).div_ceil(8);
        let mut words = body.chunks_exact_mut(8);
        for w in &mut words {
            w.copy_from_slice(&self.word(index).to_le_bytes());
            index += 1;
        }
        let rest = words.into_remainder();
        let n = rest.len();
        rest.copy_from_slice(&self.word(index).to_le_bytes()[..n]);
    }

    /// Whether `data` is exactly the bytes at stream offsets `offset..`.
    pub fn check(&self, offset: u64, data: &[u8]) -> bool {
        let head = head_len(offset, data.len());
        let (first, body) = data.split_at(head);
        let skip = (offset % 8) as usize;
        if first != &self.word(offset / 8).to_le_bytes()[skip..skip + head] {
            return false;
        }
        let mut index = (offset + head as u64).div_ceil(8);
        let words = body.chunks_exact(8);
        let rest = words.remainder();
        // Differences are OR-ed rather than tested per word: one branch per chunk, not per word.
        let mut diff = 0u64;
        for w in words {
            let got = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
            diff |= got ^ self.word(index);
            index += 1;
        }
        diff == 0 && rest == &self.word(index).to_le_bytes()[..rest.len()]
    }
}

/// Bytes from `offset` to the next multiple of 8, at most `len`.
#[inline]
fn head_len(offset: u64, len: usize) -> usize {
    (((8 - offset % 8) % 8) as usize).min(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_split_checks_and_flips_are_caught() {
        let p = Pattern::new(3, 1);
        let mut all = vec![0u8; 1000];
        p.fill(0, &mut all);
        let mut part = vec![0u8; 333];
        p.fill(101, &mut part);
        assert_eq!(&all[101..434], &part[..]);
        assert!(p.check(13, &all[13..999]));
        let mut bad = all[13..999].to_vec();
        bad[500] ^= 1;
        assert!(!p.check(13, &bad));
        assert!(!Pattern::new(3, 2).check(0, &all));
    }

    /// The word-at-a-time fill and check agree with a byte-at-a-time definition at every
    /// alignment and length, and any flipped byte is caught.
    #[test]
    fn words_match_the_bytewise_definition() {
        let p = Pattern::new(11, 4);
        let byte = |o: u64| p.word(o / 8).to_le_bytes()[(o % 8) as usize];
        for offset in 0..17u64 {
            for len in 0..40usize {
                let mut out = vec![0u8; len];
                p.fill(offset, &mut out);
                let want: Vec<u8> = (0..len as u64).map(|i| byte(offset + i)).collect();
                assert_eq!(out, want, "offset {offset} len {len}");
                assert!(p.check(offset, &out));
                for i in 0..len {
                    let mut bad = out.clone();
                    bad[i] ^= 0x80;
                    assert!(!p.check(offset, &bad), "offset {offset} len {len} flip {i}");
                }
            }
        }
    }
}
