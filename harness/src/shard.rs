//! Sharding (`--shard K/N`) and merging (`discern merge`): a sweep or scoreboard split over
//! machines by an existing engine (a Slurm job array, a Kubernetes Indexed Job, GNU parallel),
//! then put back together.
//!
//! The partition is by run index, round robin: shard K of N runs the runs whose index `i` has
//! `i mod N = K - 1`. Runs of one condition sit next to each other in a plan, so round robin
//! spreads slow conditions over every shard. Each shard writes its runs' `summary.json` under
//! `runs/` and a `manifest.json`: what ran, what failed and why, the binary's version and a hash
//! of the scenario text. `merge` checks that the manifests belong to one plan and cover every run
//! exactly once, gathers the runs into one folder, and writes from them the outputs an unsharded
//! run writes, with the same code, so the bytes are the same.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

/// `--shard K/N`: the K-th (from 1) of N parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// The whole plan as one shard.
    pub const ALL: Shard = Shard { index: 1, count: 1 };

    /// True when run `run` (0-based index in the plan) belongs to this shard.
    pub fn contains(&self, run: usize) -> bool {
        run % self.count == self.index - 1
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parse = |t: &str| t.trim().parse::<usize>().ok();
        match s.split_once('/').map(|(k, n)| (parse(k), parse(n))) {
            Some((Some(index), Some(count))) if count >= 1 && (1..=count).contains(&index) => {
                Ok(Shard { index, count })
            }
            _ => Err(format!(
                "`{s}`: expected K/N with 1 <= K <= N, e.g. 2/8 (Slurm: \
                 $((SLURM_ARRAY_TASK_ID+1))/N with --array=0-(N-1))"
            )),
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// One run as a manifest records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestRun {
    /// Index in the plan, from 0.
    pub index: usize,
    /// Its folder under `runs/` (holding `summary.json` when it succeeded).
    pub dir: String,
    /// What the run was (the command's own description: a sweep point, a scoreboard job).
    pub job: serde_json::Value,
    /// Why it failed; `None` when it succeeded.
    pub error: Option<String>,
}

/// `manifest.json` of a shard (or of a whole run, as shard 1/1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// `sweep` or `score`.
    pub command: String,
    /// The `discern` version that ran it.
    pub version: String,
    /// FNV-1a 64 of the scenario text the runs came from (a consistency check, not security).
    pub scenario_hash: String,
    /// The command's plan: everything but the partition.
    pub spec: serde_json::Value,
    pub shard: String,
    /// Runs in the whole plan.
    pub total: usize,
    pub runs: Vec<ManifestRun>,
}

pub const MANIFEST: &str = "manifest.json";

/// The version recorded in manifests.
pub fn version() -> String {
    format!("discern {}", env!("CARGO_PKG_VERSION"))
}

/// FNV-1a, 64 bits, as 16 hex digits.
pub fn hash(text: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in text {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

impl Manifest {
    pub fn read(dir: &Path) -> anyhow::Result<Manifest> {
        let path = dir.join(MANIFEST);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "reading {} (is {} the --out folder of a sweep or score shard?)",
                path.display(),
                dir.display()
            )
        })?;
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }
}

/// Shards read back and checked: one plan, every run exactly once, in plan order.
#[derive(Debug)]
pub struct Merged {
    /// The plan's manifest with every run, as shard 1/1.
    pub manifest: Manifest,
    /// The folder each run's outputs are in, by index.
    pub sources: Vec<PathBuf>,
}

/// Reads the manifests in `dirs` and checks they are shards of one plan that together hold each
/// run exactly once.
pub fn gather(dirs: &[PathBuf]) -> anyhow::Result<Merged> {
    let Some(first_dir) = dirs.first() else {
        bail!("merge needs at least one shard folder");
    };
    let first = Manifest::read(first_dir)?;
    let mut slots: Vec<Option<(ManifestRun, PathBuf)>> = vec![None; first.total];
    for dir in dirs {
        let m = Manifest::read(dir)?;
        same_plan(&first, first_dir, &m, dir)?;
        place_runs(&mut slots, m.runs, dir, first.total)?;
    }
    all_placed(&slots, first.total)?;
    let (runs, sources): (Vec<ManifestRun>, Vec<PathBuf>) = slots.into_iter().flatten().unzip();
    Ok(Merged {
        manifest: Manifest {
            shard: Shard::ALL.to_string(),
            runs,
            ..first
        },
        sources,
    })
}

/// Checks that shard `m` (in `dir`) was cut from the same plan as `first` (in `first_dir`).
fn same_plan(first: &Manifest, first_dir: &Path, m: &Manifest, dir: &Path) -> anyhow::Result<()> {
    let differs = |what: &str, a: &str, b: &str| {
        anyhow::anyhow!(
            "{} and {} are not shards of one plan: {what} differs ({a} vs {b})",
            first_dir.display(),
            dir.display()
        )
    };
    if m.command != first.command {
        return Err(differs("the command", &first.command, &m.command));
    }
    if m.version != first.version {
        return Err(differs("the discern version", &first.version, &m.version));
    }
    if m.scenario_hash != first.scenario_hash {
        return Err(differs(
            "the scenario (hash)",
            &first.scenario_hash,
            &m.scenario_hash,
        ));
    }
    if m.spec != first.spec || m.total != first.total {
        return Err(differs(
            "the plan (controllers, values, seeds)",
            &first.spec.to_string(),
            &m.spec.to_string(),
        ));
    }
    Ok(())
}

/// Puts each of a shard's runs in its slot, which no other shard may have filled.
fn place_runs(
    slots: &mut [Option<(ManifestRun, PathBuf)>],
    runs: Vec<ManifestRun>,
    dir: &Path,
    total: usize,
) -> anyhow::Result<()> {
    for run in runs {
        let Some(slot) = slots.get_mut(run.index) else {
            bail!(
                "{}: run {} is outside the plan of {} runs",
                dir.display(),
                run.index,
                total
            );
        };
        if let Some((_, other)) = slot {
            bail!(
                "run {} ({}) is in two shards: {} and {}",
                run.index,
                run.dir,
                other.display(),
                dir.display()
            );
        }
        *slot = Some((run, dir.to_path_buf()));
    }
    Ok(())
}

/// Checks that every run of the plan is in some shard.
fn all_placed(slots: &[Option<(ManifestRun, PathBuf)>], total: usize) -> anyhow::Result<()> {
    let missing: Vec<String> = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(i, _)| i.to_string())
        .collect();
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().take(20).map(String::as_str).collect();
        bail!(
            "{} of {} runs are in no shard given (indices {}{}): is a shard folder missing?",
            missing.len(),
            total,
            shown.join(", "),
            if missing.len() > shown.len() {
                ", ..."
            } else {
                ""
            }
        );
    }
    Ok(())
}

/// Copies `from` (a folder) to `to`, recursively.
pub fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).with_context(|| {
                format!("copying {} to {}", entry.path().display(), target.display())
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_run_is_in_exactly_one_shard() {
        for count in 1..=7 {
            let shards: Vec<Shard> = (1..=count).map(|index| Shard { index, count }).collect();
            for run in 0..100 {
                let holders = shards.iter().filter(|s| s.contains(run)).count();
                assert_eq!(holders, 1, "run {run} with {count} shards");
            }
            // Balanced: sizes differ by at most one.
            let sizes: Vec<usize> = shards
                .iter()
                .map(|s| (0..100).filter(|&r| s.contains(r)).count())
                .collect();
            assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
        }
    }

    #[test]
    fn shard_parses_and_rejects_nonsense() {
        assert_eq!(
            "2/8".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 8 }
        );
        assert_eq!("1/1".parse::<Shard>().unwrap().to_string(), "1/1");
        for bad in ["0/4", "5/4", "1/0", "2", "a/b", "-1/3"] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains("expected K/N"), "{bad}: {e}");
        }
    }

    #[test]
    fn fnv_hash_matches_reference_values() {
        // FNV-1a 64 test vectors (Fowler, Noll, Vo).
        assert_eq!(hash(b""), "cbf29ce484222325");
        assert_eq!(hash(b"a"), "af63dc4c8601ec8c");
        assert_eq!(hash(b"foobar"), "85944171f73967e8");
    }
}
