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

    fn word(&self, index: u64) -> [u8; 8] {
        mix(self
            .key
            .wrapping_add(index.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
        .to_le_bytes()
    }

    /// Fills `out` with the bytes at stream offsets `offset..offset + out.len()`.
    pub fn fill(&self, offset: u64, out: &mut [u8]) {
        let mut pos = 0;
        let mut o = offset;
        while pos < out.len() {
            let w = self.word(o / 8);
            let skip = (o % 8) as usize;
            let n = (8 - skip).min(out.len() - pos);
            out[pos..pos + n].copy_from_slice(&w[skip..skip + n]);
            pos += n;
            o += n as u64;
        }
    }

    /// Whether `data` is exactly the bytes at stream offsets `offset..`.
    pub fn check(&self, offset: u64, data: &[u8]) -> bool {
        let mut pos = 0;
        let mut o = offset;
        while pos < data.len() {
            let w = self.word(o / 8);
            let skip = (o % 8) as usize;
            let n = (8 - skip).min(data.len() - pos);
            if data[pos..pos + n] != w[skip..skip + n] {
                return false;
            }
            pos += n;
            o += n as u64;
        }
        true
    }
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
}
