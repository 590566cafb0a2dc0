//! The scoreboard as text: `score.csv`, and the printed tables, one per family of classes
//! ([`Family`]), each derived from the class table so that a new class adds its columns.

use std::fmt::Write as _;

use super::classes::{Family, Flows, PathClass, AFTER_VISIT_SETTLE_S, CLASSES};
use super::{Figure, Scoreboard, POOLED_RANDOM};
use crate::output::table::TextTable;
use crate::stats::Estimate;

/// A column of a printed table.
struct Column {
    header: String,
    class: String,
    figure: Figure,
    help: String,
}

impl Column {
    fn of(class: &PathClass, header: &str, figure: Figure, help: String) -> Self {
        Column {
            header: format!("{header} {}", class.label),
            class: class.id.into(),
            figure,
            help,
        }
    }
}

/// The pooled random-loss figures: efficiency, `× quinn-bbr` and the random-loss verdicts.
fn pooled_columns() -> Vec<Column> {
    let pooled = |header: &str, figure, help: &str| Column {
        header: header.into(),
        class: POOLED_RANDOM.into(),
        figure,
        help: help.into(),
    };
    vec![
        pooled(
            "efficiency",
            Figure::Efficiency,
            "goodput / (lossless goodput x (1 - p)), mean over the pooled random-loss classes",
        ),
        pooled(
            "x quinn-bbr",
            Figure::VsQuinnBbr,
            "goodput / quinn-bbr's on the same seed, mean over the pooled random-loss classes",
        ),
        pooled(
            "rnd→rnd",
            Figure::RandomAsRandom,
            "share of random losses called random, pooled random-loss classes",
        ),
        pooled(
            "p95 queue s",
            Figure::QueueDelayP95S,
            "bottleneck p95 queueing delay, mean over the pooled random-loss classes",
        ),
        pooled(
            "p95/budget",
            Figure::QueueP95VsBudget,
            "p95 queueing delay / max(10 ms, base RTT / 4), mean over the pooled classes",
        ),
    ]
}

/// A flow alone: its efficiency, its queue against the budget, and on an AQM or a policer its
/// queue drops against newreno's.
fn alone_columns(class: &PathClass) -> Vec<Column> {
    let mut cols = vec![Column::of(
        class,
        "eff",
        Figure::Efficiency,
        format!(
            "goodput / (lossless goodput x (1 - p)) ({})",
            class.description
        ),
    )];
    if !class.pooled {
        cols.push(Column::of(
            class,
            "p95/budget",
            Figure::QueueP95VsBudget,
            format!(
                "p95 queueing delay / max(10 ms, base RTT / 4), {}",
                class.id
            ),
        ));
    }
    if class.is_managed() {
        cols.push(Column::of(
            class,
            "drops×ref",
            Figure::QueueDropsVsReference,
            format!(
                "queue drops / newreno's alone on the same seed, {}",
                class.id
            ),
        ));
    }
    cols
}

/// Against a peer: what the peer kept; with random loss the link's efficiency, in the AQM and
/// queue-size family the queue drops against the peer's own kind.
fn against_columns(class: &PathClass, peer: &str) -> Vec<Column> {
    let mut cols = vec![Column::of(
        class,
        "kept",
        Figure::PeerKept,
        format!(
            "{peer}'s goodput against the controller / against another {peer} ({})",
            class.description
        ),
    )];
    if !class.is_congestion_only() {
        cols.push(Column::of(
            class,
            "link eff",
            Figure::LinkEfficiency,
            format!(
                "both flows' goodput / (lossless x (1 - p)), same seed, {}",
                class.id
            ),
        ));
    }
    if class.family == Family::Queue {
        cols.push(Column::of(
            class,
            "drops×ref",
            Figure::QueueDropsVsReference,
            format!("queue drops / those of {peer} against {peer}, {}", class.id),
        ));
    }
    cols
}

/// A receiver that lies to the controller: what the peer kept beside the honest run (the goal
/// the defence is held to; the queue drops and the loss rate are in `score.csv`).
fn lying_columns(class: &PathClass, peer: &str, honest: &str) -> Vec<Column> {
    vec![Column::of(
        class,
        "kept×honest",
        Figure::PeerKeptVsHonest,
        format!(
            "{peer}'s goodput / its goodput in {honest} (same controller and seed, an honest \
             receiver), {}",
            class.id
        ),
    )]
}

/// Among flows of the controller: Jain's index, and on a congestion-only path the verdicts.
fn among_columns(class: &PathClass, n: u32) -> Vec<Column> {
    let mut cols = vec![Column::of(
        class,
        "Jain",
        Figure::Jain,
        format!(
            "Jain's index of {n} flows of the controller ({})",
            class.description
        ),
    )];
    if class.is_congestion_only() {
        cols.push(Column {
            header: "cong→cong".into(),
            class: class.id.into(),
            figure: Figure::CongestionAsCongestion,
            help: format!("share of queue losses called congestion, {}", class.id),
        });
    }
    cols
}

/// A peer that came and went: the share while it was there, and the queue kept after.
fn visited_columns(class: &PathClass, peer: &str) -> Vec<Column> {
    vec![
        Column::of(
            class,
            "share",
            Figure::ShareBesidePeer,
            format!(
                "own bytes / both flows' while {peer} was there ({})",
                class.description
            ),
        ),
        Column::of(
            class,
            "after/budget",
            Figure::QueueAfterPeerVsBudget,
            format!(
                "p95 of the RTT above its lowest, from {AFTER_VISIT_SETTLE_S} s after {peer}'s last \
                 byte to the end, / max(10 ms, base RTT / 4), {}",
                class.id
            ),
        ),
    ]
}

/// The columns of one family's table: the pooled random-loss figures first in the random-loss
/// table, then each class's headline figures, in the class table's order.
fn columns(family: Family) -> Vec<Column> {
    let mut cols = if family == Family::RandomLoss {
        pooled_columns()
    } else {
        Vec::new()
    };
    for class in CLASSES.iter().filter(|c| c.family == family) {
        match class.flows {
            Flows::Alone if class.pooled => {}
            Flows::Alone => cols.extend(alone_columns(class)),
            Flows::Against { peer } => match class.lie {
                Some(lie) => cols.extend(lying_columns(class, peer, lie.honest)),
                None => cols.extend(against_columns(class, peer)),
            },
            Flows::Among { n } => cols.extend(among_columns(class, n)),
            Flows::Visited { peer, .. } => cols.extend(visited_columns(class, peer)),
        }
    }
    cols
}

impl Scoreboard {
    /// `score.csv`: one row per controller, class and figure, with n, mean, sd and the 95 %
    /// interval (empty cells where a figure has no value, such as an unreported queue delay).
    pub fn csv(&self) -> TextTable {
        let mut t = TextTable::new(
            ["controller", "class", "figure"]
                .into_iter()
                .chain(Estimate::COLUMNS),
        );
        for s in &self.scores {
            let mut row = vec![s.controller.clone(), s.class.clone(), s.figure.to_string()];
            row.extend(Estimate::cells(s.estimate.as_ref()));
            t.push(row);
        }
        t
    }

    /// One printed table of a family: a row per controller, its headline figures with their
    /// intervals.
    pub fn table(&self, family: Family) -> TextTable {
        let columns = columns(family);
        let mut headers = vec!["controller".to_string()];
        headers.extend(columns.iter().map(|c| c.header.clone()));
        let mut t = TextTable::new(headers);
        for c in &self.controllers {
            let mut row = vec![c.clone()];
            for col in &columns {
                row.push(
                    self.get(c, &col.class, col.figure)
                        .map(|e| e.display(1.0, 3))
                        .unwrap_or_else(|| "n/a".into()),
                );
            }
            t.push(row);
        }
        t
    }

    /// Every family's table under its title.
    pub fn tables(&self) -> String {
        let mut s = String::new();
        for family in Family::ALL {
            let _ = writeln!(s, "{}:\n{}", family.title(), self.table(family).render());
        }
        s
    }

    /// The notes under the printed tables: what each column is, and every failed run.
    pub fn footer(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "mean ± 95 % CI half width over {} seed(s) ({}..{}); n/a: no value (no run had the \
             figure, e.g. a link model that does not report its queueing delay).",
            self.seeds.len(),
            self.seeds.first().copied().unwrap_or_default(),
            self.seeds.last().copied().unwrap_or_default()
        );
        for col in Family::ALL.into_iter().flat_map(columns) {
            let _ = writeln!(s, "  {}: {}", col.header, col.help);
        }
        for (run, e) in &self.failures {
            let _ = writeln!(s, "failed: {run}: {e}");
        }
        for controller in &self.controllers {
            for (figure, what) in [
                (
                    Figure::ReceiverClosed,
                    "a stock quinn receiver closed the connection",
                ),
                (
                    Figure::Unfinished,
                    "a flow did not finish (no handshake or no byte)",
                ),
            ] {
                let runs = self.runs_with(controller, figure);
                if !runs.is_empty() {
                    let _ = writeln!(s, "{controller}: {what} in {}", runs.join(", "));
                }
            }
        }
        s
    }

    /// `CLASS RUNS/N` for each class in which `figure`, a 0-or-1 per run, was 1 in some run of
    /// `controller`.
    fn runs_with(&self, controller: &str, figure: Figure) -> Vec<String> {
        self.scores
            .iter()
            .filter(|c| c.controller == controller && c.figure == figure)
            .filter_map(|c| {
                let e = c.estimate.as_ref()?;
                let runs = (e.mean * e.n as f64).round() as usize;
                (runs > 0).then(|| format!("{} {runs}/{}", c.class, e.n))
            })
            .collect()
    }
}
