//! TEMPORARY: the controller ids of the design table, until the controllers crate exposes its
//! registry. Replace with the registry's catalogue once it is merged.

/// A controller the CLI accepts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ControllerInfo {
    pub id: &'static str,
    pub description: &'static str,
    /// `(name, default, meaning)`.
    pub params: &'static [(&'static str, &'static str, &'static str)],
}

pub const CONTROLLERS: &[ControllerInfo] = &[
    ControllerInfo {
        id: "tahoe",
        description: "baseline: on loss ssthresh = cwnd/2, cwnd = 1 MSS, slow start",
        params: &[],
    },
    ControllerInfo {
        id: "reno",
        description: "baseline: halves on every loss event",
        params: &[],
    },
    ControllerInfo {
        id: "newreno",
        description: "baseline: halves once per recovery period (SACK TCP's response)",
        params: &[],
    },
    ControllerInfo {
        id: "modified-tahoe",
        description: "paper 001: Tahoe, packet threshold 2, restart window 3 MSS, ssthresh 3/4",
        params: &[],
    },
    ControllerInfo {
        id: "modified-sack",
        description: "paper 000: RTT deviation within tolerance means random loss",
        params: &[("tolerance", "0.05", "allowed relative RTT deviation")],
    },
    ControllerInfo {
        id: "wnewreno",
        description: "paper 002: queueing delay below min OWD * (1 + margin) means wireless loss",
        params: &[(
            "margin",
            "0.15",
            "relative margin over the minimum one-way delay",
        )],
    },
    ControllerInfo {
        id: "sack-few",
        description: "paper 003: NewReno response, fractional window growth",
        params: &[("alpha", "0.01", "growth in MSS per window")],
    },
    ControllerInfo {
        id: "composite",
        description: "paper 004 (CTCP): single loss with RTT <= SRTT means random loss",
        params: &[],
    },
    ControllerInfo {
        id: "quinn-newreno",
        description: "quinn's NewReno, unchanged",
        params: &[],
    },
    ControllerInfo {
        id: "quinn-cubic",
        description: "quinn's Cubic, unchanged",
        params: &[],
    },
    ControllerInfo {
        id: "quinn-bbr",
        description: "quinn's BBR, unchanged",
        params: &[],
    },
];

/// Checks a controller id: each `+`-joined part is a known id, optionally followed by
/// `:name=value` parameters the controller has.
pub fn check(id: &str) -> Result<(), String> {
    for part in id.split('+') {
        let mut pieces = part.split(':');
        let base = pieces.next().unwrap_or_default();
        let Some(info) = CONTROLLERS.iter().find(|c| c.id == base) else {
            let known: Vec<&str> = CONTROLLERS.iter().map(|c| c.id).collect();
            let within = if base == id {
                String::new()
            } else {
                format!(" in `{id}`")
            };
            return Err(format!(
                "unknown controller `{base}`{within} (known: {})",
                known.join(", ")
            ));
        };
        for param in pieces {
            let Some((name, value)) = param.split_once('=') else {
                return Err(format!(
                    "controller `{id}`: parameter `{param}` is not NAME=VALUE"
                ));
            };
            if !info.params.iter().any(|p| p.0 == name) {
                return Err(format!("controller `{base}` has no parameter `{name}`"));
            }
            if value.parse::<f64>().is_err() {
                return Err(format!("controller `{id}`: `{value}` is not a number"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_design_ids_with_parameters_and_wrappers() {
        check("modified-sack:tolerance=0.02").unwrap();
        check("composite+quinn-cubic").unwrap();
        check("quinn-bbr").unwrap();
    }

    #[test]
    fn rejects_unknown_ids_and_parameters() {
        assert!(check("vegas")
            .unwrap_err()
            .contains("unknown controller `vegas`"));
        assert!(check("reno:tolerance=1")
            .unwrap_err()
            .contains("no parameter"));
        assert!(check("wnewreno:margin=x")
            .unwrap_err()
            .contains("not a number"));
    }
}
