//! `discern score --paths N --path-seed S`: every controller on N paths drawn at random from
//! stated distributions ([`mod@draw`]; docs/evaluation.md says why each range), so that no
//! controller can be tuned to the board, reported as distributions: per controller and metric
//! the mean, the 10th, 50th and 90th percentiles and the worst path with the command that reruns
//! it, and a CDF per metric; with a baseline, every other controller against it path by path
//! ([`paired`]); and one controller on two boards of the same draw, a change's effect path by
//! path ([`compare`]).
//!
//! Each path is rendered to a scenario the way the fixed classes are ([`render`]), its virtual
//! duration scaled by its round-trip time and capped in packets. A path with a peer of another
//! kind (`newreno`, `quinn-cubic`, `quinn-bbr`) also runs that peer against its own kind, the
//! reference of what the peer keeps ([`metrics::Metric::PeerKept`]). Efficiency alone needs no
//! reference run: it is goodput over what the path's capacity carries after its random loss.

pub mod board;
pub mod compare;
pub mod draw;
pub mod metrics;
pub mod paired;
pub mod plots;
pub mod render;
mod summary_page;

use serde::{Deserialize, Serialize};

pub use super::measure::Measures;
pub use board::PathBoard;
use draw::PeerKind;
pub use draw::{draw, draw_all, RandomPath};
pub use render::SETTLE_OF_RUN;

use crate::report::Summary;

/// The draw a board scores: `paths` paths of seed `path_seed`, or only path `only_path` of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draw {
    pub paths: usize,
    pub path_seed: u64,
    pub only_path: Option<usize>,
}

impl Draw {
    /// The paths the board runs; an error when `only_path` is not in the draw.
    pub fn paths(&self) -> anyhow::Result<Vec<RandomPath>> {
        if self.paths == 0 {
            anyhow::bail!("--paths 0 draws nothing; give the number of paths, e.g. --paths 200");
        }
        match self.only_path {
            Some(k) if k >= self.paths => anyhow::bail!(
                "--only-path {k} is not in a draw of {} paths (they are 0 to {})",
                self.paths,
                self.paths - 1
            ),
            Some(k) => Ok(vec![draw(self.path_seed, k)]),
            None => Ok(draw_all(self.path_seed, self.paths)),
        }
    }

    /// The command line that scores the whole draw.
    pub fn command(&self) -> String {
        format!(
            "discern score --paths {} --path-seed {}",
            self.paths, self.path_seed
        )
    }

    /// The command line that reruns `controller` on path `k` alone (with its reference runs).
    pub fn rerun_command(&self, k: usize, controller: &str) -> String {
        format!(
            "{} --only-path {k} --controller {controller} --out out/score-paths-{}-path-{k}",
            self.command(),
            self.path_seed
        )
    }
}

/// One run of the random-path board: path `path` with `controller` as flow 0.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PathJob {
    pub path: usize,
    pub controller: String,
}

impl PathJob {
    /// Folder under `runs/`: plan index, path, controller, made path-safe.
    pub fn dir_name(&self, index: usize, total: usize) -> String {
        let width = total.saturating_sub(1).max(1).to_string().len();
        let controller: String = self
            .controller
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '=' | '+') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{index:0width$}-path-{}-{controller}", self.path)
    }
}

/// Writes `paths.csv`, `paths.json`, the CDFs and the summary page into `dir`; returns the files.
pub fn write(
    dir: &std::path::Path,
    board: &board::PathBoard,
) -> anyhow::Result<Vec<std::path::PathBuf>> {
    let csv = dir.join("paths.csv");
    crate::output::write_table_csv(&csv, &board.csv())?;
    let json = dir.join("paths.json");
    crate::output::write_json(&json, board)?;
    let mut files = vec![csv, json];
    files.extend(plots::write(dir, board)?);
    files.extend(summary_page::write(dir, board)?);
    Ok(files)
}

/// Every run the board needs, path by path: each controller, then the peer against its own kind
/// where the peer is of another kind and not among the controllers.
pub fn plan(paths: &[RandomPath], controllers: &[String]) -> Vec<PathJob> {
    let mut jobs = Vec::new();
    for path in paths {
        let mut ids: Vec<String> = controllers.to_vec();
        if let Some(peer) = path.peer.filter(|p| p.kind != PeerKind::Copy) {
            let id = peer.kind.id("");
            if !ids.iter().any(|c| c == id) {
                ids.push(id.to_string());
            }
        }
        jobs.extend(ids.into_iter().map(|controller| PathJob {
            path: path.index,
            controller,
        }));
    }
    jobs
}

/// What one run left: its summary and the measures read from its time series.
#[derive(Debug, Clone, PartialEq)]
pub struct PathRun {
    pub summary: Summary,
    pub measures: Measures,
}

/// A run's outcome, or why it failed.
pub type Outcome = Result<PathRun, String>;
