//! What a sweep runs: the varied values, the controllers and their combinations.

use std::fmt;
use std::str::FromStr;

use anyhow::bail;

use crate::scenario::{FlowController, Override};

/// `--vary KEY=V1,V2,...`: one scenario key and the values it takes, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vary {
    pub key: String,
    pub values: Vec<String>,
}

impl FromStr for Vary {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let Some((key, values)) = s.split_once('=') else {
            return Err(format!("`{s}` has no `=`: expected KEY=V1,V2,..."));
        };
        let key = key.trim();
        if key.is_empty() {
            return Err(format!("`{s}` has an empty key: expected KEY=V1,V2,..."));
        }
        let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
        if values.iter().any(String::is_empty) {
            return Err(format!(
                "`{s}` has an empty value: expected KEY=V1,V2,... with no empty item"
            ));
        }
        Ok(Vary {
            key: key.to_string(),
            values,
        })
    }
}

impl fmt::Display for Vary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.key, self.values.join(","))
    }
}

/// Splits a `--controller` list into ids and resolves each. Ids are separated by `,`; `:`, `=` and `+` stay inside
/// an id (`modified-sack:tolerance=0.02,composite+quinn-cubic` is two ids). A controller's own
/// parameters are also separated by `,` (`wnewreno:margin=0.1,granularity=2ms`): a piece whose
/// text before its first `=` has no `:` or `+` is the next parameter of the id before it.
pub fn split_controllers(list: &str) -> anyhow::Result<Vec<FlowController>> {
    let mut ids: Vec<String> = Vec::new();
    for piece in list.split(',').map(str::trim) {
        if piece.is_empty() {
            bail!("`{list}` has an empty controller id");
        }
        let continues = piece
            .split_once('=')
            .is_some_and(|(head, _)| !head.contains([':', '+']));
        match ids.last_mut() {
            Some(last) if continues => {
                last.push(',');
                last.push_str(piece);
            }
            _ => ids.push(piece.to_string()),
        }
    }
    ids.iter()
        .map(|id| FlowController::parse(id).map_err(|e| anyhow::anyhow!("{e}")))
        .collect()
}

/// One run of a sweep.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Point {
    /// Position in the sweep, from 0.
    pub index: usize,
    /// One `(key, value)` per `--vary`, in the order given.
    pub values: Vec<(String, String)>,
    /// The controller every flow runs, or `None` to keep the scenario's own.
    pub controller: Option<FlowController>,
    /// The seed of this repetition (`--runs`), or `None` to keep the scenario's own.
    pub seed: Option<u64>,
}

impl Point {
    /// The varied values (and the seed of `--runs`) as overrides, each naming its flag.
    pub fn overrides(&self) -> Vec<Override> {
        let mut sets: Vec<Override> = self
            .values
            .iter()
            .map(|(k, v)| Override::varied(k, v))
            .collect();
        sets.extend(self.seed.map(|s| Override {
            key: "seed".into(),
            value: s.to_string(),
            flag: "--runs",
        }));
        sets
    }

    /// True when `other` is a repetition of the same condition (same values and controller).
    pub fn same_condition(&self, other: &Point) -> bool {
        self.values == other.values && self.controller == other.controller
    }

    /// Folder name under `runs/`: the zero-padded index, then values and controller made safe.
    pub fn dir_name(&self, total: usize) -> String {
        let width = total.saturating_sub(1).max(1).to_string().len();
        let mut parts: Vec<String> = self
            .values
            .iter()
            .map(|(k, v)| {
                // The last two parts of the key tell `loss.rate` from `bottleneck.rate`.
                let parts: Vec<&str> = k.rsplitn(3, '.').take(2).collect();
                let short: Vec<&str> = parts.into_iter().rev().collect();
                format!("{}={v}", short.join("."))
            })
            .collect();
        if let Some(c) = &self.controller {
            parts.push(c.id().to_owned());
        }
        if let Some(seed) = self.seed {
            parts.push(format!("seed={seed}"));
        }
        let slug: String = parts
            .join("-")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '=' | '+') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{:0width$}-{slug}", self.index)
    }
}

/// Every combination, the first `--vary` varying slowest and the controller fastest, so the runs
/// of one condition sit together.
pub fn expand(varies: &[Vary], controllers: Option<&[FlowController]>) -> Vec<Point> {
    expand_with_seeds(varies, controllers, &[])
}

/// [`expand`], each combination repeated once per seed (`--runs`), the seed fastest: the
/// repetitions of one condition sit together, and every controller runs on the same seeds. No
/// seeds keeps each scenario's own.
pub fn expand_with_seeds(
    varies: &[Vary],
    controllers: Option<&[FlowController]>,
    seeds: &[u64],
) -> Vec<Point> {
    let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for v in varies {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                v.values.iter().map(move |val| {
                    let mut c = c.clone();
                    c.push((v.key.clone(), val.clone()));
                    c
                })
            })
            .collect();
    }
    let ctrls: Vec<Option<FlowController>> = match controllers {
        Some(list) => list.iter().cloned().map(Some).collect(),
        None => vec![None],
    };
    let seeds: Vec<Option<u64>> = if seeds.is_empty() {
        vec![None]
    } else {
        seeds.iter().copied().map(Some).collect()
    };
    let mut points = Vec::new();
    for values in combos {
        for c in &ctrls {
            for seed in &seeds {
                points.push(Point {
                    index: points.len(),
                    values: values.clone(),
                    controller: c.clone(),
                    seed: *seed,
                });
            }
        }
    }
    points
}

/// The seeds of `--runs N` from the scenario's `seed`: `seed .. seed + N - 1`.
pub fn seeds(first: u64, runs: usize) -> anyhow::Result<Vec<u64>> {
    match runs {
        0 => bail!("--runs 0: expected at least 1 run"),
        n => (0..n as u64)
            .map(|i| first.checked_add(i))
            .collect::<Option<Vec<u64>>>()
            .ok_or_else(|| anyhow::anyhow!("--runs {n} from seed {first} passes u64::MAX")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctl(id: &str) -> FlowController {
        FlowController::parse(id).unwrap()
    }

    fn ids(controllers: &[FlowController]) -> Vec<&str> {
        controllers.iter().map(FlowController::id).collect()
    }

    #[test]
    fn vary_parses_key_and_values() {
        let v: Vary = "link.bottleneck.loss.rate=0.001, 0.01,0.1".parse().unwrap();
        assert_eq!(v.key, "link.bottleneck.loss.rate");
        assert_eq!(v.values, ["0.001", "0.01", "0.1"]);
        assert_eq!(v.to_string(), "link.bottleneck.loss.rate=0.001,0.01,0.1");
    }

    #[test]
    fn vary_rejects_missing_equals_empty_key_and_empty_values() {
        assert!("seed".parse::<Vary>().unwrap_err().contains("no `=`"));
        assert!("=1,2".parse::<Vary>().unwrap_err().contains("empty key"));
        assert!("seed=".parse::<Vary>().unwrap_err().contains("empty value"));
        assert!("seed=1,,2"
            .parse::<Vary>()
            .unwrap_err()
            .contains("empty value"));
    }

    #[test]
    fn controllers_split_on_commas_only() {
        assert_eq!(
            ids(&split_controllers("modified-sack:tolerance=0.02,composite+quinn-cubic").unwrap()),
            ["modified-sack:tolerance=0.02", "composite+quinn-cubic"]
        );
        assert!(split_controllers("reno,,tahoe").is_err());
        assert_eq!(
            ids(&split_controllers(
                "wnewreno:margin=0.1,granularity=2ms,reno,composite+quinn-cubic"
            )
            .unwrap()),
            [
                "wnewreno:margin=0.1,granularity=2ms",
                "reno",
                "composite+quinn-cubic"
            ]
        );
        assert_eq!(
            ids(
                &split_controllers("modified-sack:tolerance=0,granularity=1ms+newreno,tahoe")
                    .unwrap()
            ),
            ["modified-sack:tolerance=0,granularity=1ms+newreno", "tahoe"]
        );
    }

    #[test]
    fn expansion_is_the_cartesian_product_in_order() {
        let varies = vec![
            "a=1,2".parse::<Vary>().unwrap(),
            "b=x,y,z".parse::<Vary>().unwrap(),
        ];
        let ctrls = vec![ctl("reno"), ctl("composite")];
        let points = expand(&varies, Some(&ctrls));
        assert_eq!(points.len(), 2 * 3 * 2);
        for (i, p) in points.iter().enumerate() {
            assert_eq!(p.index, i);
        }
        let first = &points[0];
        assert_eq!(
            first.values,
            [("a".into(), "1".into()), ("b".into(), "x".into())]
        );
        assert_eq!(
            first.controller.as_ref().map(FlowController::id),
            Some("reno")
        );
        assert_eq!(
            points[1].controller.as_ref().map(FlowController::id),
            Some("composite")
        );
        assert_eq!(points[1].values, first.values);
        assert_eq!(points[2].values[1].1, "y");
        let last = &points[11];
        assert_eq!(
            last.values,
            [("a".into(), "2".into()), ("b".into(), "z".into())]
        );
        assert_eq!(
            last.controller.as_ref().map(FlowController::id),
            Some("composite")
        );
        // Every combination exactly once.
        let mut seen: Vec<_> = points
            .iter()
            .map(|p| {
                (
                    p.values.clone(),
                    p.controller.as_ref().map(|c| c.id().to_owned()),
                )
            })
            .collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 12);
    }

    #[test]
    fn expansion_without_controllers_keeps_the_scenarios_own() {
        let points = expand(&["a=1,2,3".parse().unwrap()], None);
        assert_eq!(points.len(), 3);
        assert!(points.iter().all(|p| p.controller.is_none()));
        assert_eq!(points[2].overrides(), [Override::varied("a", "3")]);
    }

    #[test]
    fn dir_names_are_padded_and_path_safe() {
        let p = Point {
            index: 7,
            values: vec![("link.bottleneck.loss.rate".into(), "0.01".into())],
            controller: Some(ctl("modified-sack:tolerance=0.02")),
            seed: None,
        };
        assert_eq!(
            p.dir_name(120),
            "007-loss.rate=0.01-modified-sack_tolerance=0.02"
        );
        assert_eq!(
            p.dir_name(5),
            "7-loss.rate=0.01-modified-sack_tolerance=0.02"
        );
        let p = Point {
            index: 0,
            values: vec![("seed".into(), "3".into())],
            controller: None,
            seed: None,
        };
        assert_eq!(p.dir_name(1), "0-seed=3");
        let p = Point {
            index: 3,
            values: vec![],
            controller: Some(ctl("newreno")),
            seed: Some(12),
        };
        assert_eq!(p.dir_name(20), "03-newreno-seed=12");
        let seed = &p.overrides()[0];
        assert_eq!(
            (seed.key.as_str(), seed.value.as_str(), seed.flag),
            ("seed", "12", "--runs")
        );
    }

    #[test]
    fn repetitions_run_every_controller_on_the_same_seeds() {
        let seeds = seeds(5, 3).unwrap();
        assert_eq!(seeds, [5, 6, 7]);
        let ctrls = vec![ctl("reno"), ctl("tahoe")];
        let points = expand_with_seeds(&["x=1,2".parse().unwrap()], Some(&ctrls), &seeds);
        assert_eq!(points.len(), 2 * 2 * 3);
        assert!(points.iter().enumerate().all(|(i, p)| p.index == i));
        for chunk in points.chunks(3) {
            assert!(chunk.iter().all(|p| p.same_condition(&chunk[0])));
            let s: Vec<Option<u64>> = chunk.iter().map(|p| p.seed).collect();
            assert_eq!(s, [Some(5), Some(6), Some(7)]);
        }
        assert!(!points[0].same_condition(&points[3]));
        assert_eq!(super::seeds(5, 1).unwrap(), [5]);
        assert!(super::seeds(5, 0).is_err());
        assert!(super::seeds(u64::MAX, 2).is_err());
    }
}
