//! What the kernel's qdiscs and police action counted on a tc link: `tc -s -j qdisc show` and
//! `tc -s -j filter show` (JSON, so that sizes such as a backlog of `15Kb` need no unit
//! parsing), turned into the counters the simulator's link model keeps ([`DirStats`]), so that
//! `summary.json` reports a tc link under the same keys as a simulated one.
//!
//! Who dropped a packet, in the kernel's terms:
//! - with an AQM under the tbf, the AQM's qdisc holds the queue: every queue drop is its own.
//!   Its `drop_overlimit` (CoDel, FQ-CoDel) or `overlimit` (PIE) are arrivals that found the
//!   queue at its `limit`, the rest its control law's drops. The simulator counts CoDel's and
//!   PIE's limit drops as drop-tail and FQ-CoDel's as FQ-CoDel's (its limit drops from the
//!   fattest flow, part of the scheduler), and so do we. tbf's own counter repeats its child's
//!   drops (the kernel adds them up the tree) and is not added again;
//! - without an AQM, the tbf's drops are drop-tail overflow;
//! - the `police` action on the egress hook counts the packets it dropped in its action stats;
//! - the netem qdisc on the receiving end's ifb counts the channel losses (its own limit is made
//!   far larger than any window, so none of them are overflow).

use serde_json::Value;

use crate::link::DirStats;

/// Counters of one qdisc from `tc -s -j qdisc show`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QdiscStats {
    pub kind: String,
    /// Whether it is the device's root qdisc (a child's `parent` is its parent's class).
    pub root: bool,
    pub sent_bytes: u64,
    pub sent_packets: u64,
    /// Every packet it dropped, its children's included.
    pub dropped: u64,
    /// Of `dropped`, the arrivals that found the queue at its limit (AQMs only).
    pub overlimit_drops: u64,
    /// Packets the AQM marked CE instead of dropping them.
    pub ecn_marks: u64,
    /// What it still held when read.
    pub backlog_bytes: u64,
    pub backlog_packets: u64,
}

fn count(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// Parses `tc -s -j qdisc show dev X`: one entry per qdisc, in the order tc lists them.
pub fn parse_qdiscs(json: &str) -> Result<Vec<QdiscStats>, String> {
    let all: Vec<Value> = serde_json::from_str(json.trim())
        .map_err(|e| format!("`tc -s -j qdisc show` gave no JSON list ({e}): {json}"))?;
    Ok(all
        .iter()
        .map(|q| QdiscStats {
            kind: q["kind"].as_str().unwrap_or_default().to_string(),
            root: q.get("root").and_then(Value::as_bool).unwrap_or(false),
            sent_bytes: count(q, "bytes"),
            sent_packets: count(q, "packets"),
            dropped: count(q, "drops"),
            // CoDel and FQ-CoDel say `drop_overlimit`, PIE `overlimit` (the basic stats'
            // `overlimits`, a tbf's waits for tokens, is another counter).
            overlimit_drops: count(q, "drop_overlimit") + count(q, "overlimit"),
            ecn_marks: count(q, "ecn_mark"),
            backlog_bytes: count(q, "backlog"),
            backlog_packets: count(q, "qlen"),
        })
        .collect())
}

/// Parses `tc -s -j filter show dev X egress`: the packets every `police` action dropped.
pub fn parse_police_drops(json: &str) -> Result<u64, String> {
    if json.trim().is_empty() {
        return Ok(0);
    }
    let filters: Vec<Value> = serde_json::from_str(json.trim())
        .map_err(|e| format!("`tc -s -j filter show` gave no JSON list ({e}): {json}"))?;
    Ok(filters
        .iter()
        .filter_map(|f| f["options"]["actions"].as_array())
        .flatten()
        .filter(|a| a["kind"] == "police")
        .map(|a| count(&a["stats"], "drops"))
        .sum())
}

/// One link direction's counters, as the link model keeps them, from the qdiscs on the egress
/// of the router it leaves (`egress`), the drops of its policer, and the netem qdisc on the
/// ifb of the router it reaches (`netem`).
pub fn dir_stats(egress: &[QdiscStats], police_drops: u64, netem: Option<&QdiscStats>) -> DirStats {
    let tbf = egress.iter().find(|q| q.kind == "tbf");
    let aqm = egress
        .iter()
        .find(|q| matches!(q.kind.as_str(), "codel" | "pie" | "fq_codel"));
    let mut s = DirStats {
        police_drops,
        channel_drops: netem.map_or(0, |n| n.dropped),
        ..DirStats::default()
    };
    let queue = match aqm {
        Some(a) => {
            let law = a.dropped.saturating_sub(a.overlimit_drops);
            match a.kind.as_str() {
                "codel" => s.codel_drops = law,
                "pie" => s.pie_drops = law,
                _ => s.fq_codel_drops = a.dropped,
            }
            s.ce_marks = a.ecn_marks;
            a.dropped
        }
        None => tbf.map_or(0, |t| t.dropped),
    };
    s.queue_drops = queue + police_drops;
    if let Some(t) = tbf {
        s.departed_packets = t.sent_packets;
        s.departed_bytes = t.sent_bytes;
    }
    s.offered = s.departed_packets + s.queue_drops;
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tc -s -j qdisc show` of a tbf with PIE under it and the clsact beside them, as
    /// iproute2 6.1 prints it (the PIE figures from a run behind two flows).
    const PIE: &str = r#"[{"kind":"tbf","handle":"1:","root":true,"refcnt":3,"options":{"rate":1000000,"burst":3000,"lat":58500},"bytes":6027000,"packets":4018,"drops":357,"overlimits":2210,"requeues":0,"backlog":4500,"qlen":3},
        {"kind":"pie","handle":"10:","parent":"1:1","options":{"limit":41,"target":15000,"tupdate":16000,"alpha":2,"beta":20,"ecn":false,"bytemode":false,"dq_rate_estimator":true},"bytes":6027000,"packets":4018,"drops":357,"overlimits":0,"requeues":0,"backlog":4500,"qlen":3,"prob":1844674407370955,"delay":12000,"avg_dq_rate":1000000,"pkts_in":4378,"overlimit":12,"dropped":357,"maxq":41,"ecn_mark":0},
        {"kind":"clsact","handle":"ffff:","parent":"ffff:fff1","options":{},"bytes":250,"packets":3,"drops":0,"overlimits":0,"requeues":0,"backlog":0,"qlen":0}]"#;

    #[test]
    fn parses_qdisc_counters_backlog_and_the_aqms_own() {
        let q = parse_qdiscs(PIE).unwrap();
        assert_eq!(q.len(), 3);
        assert_eq!(
            q[1],
            QdiscStats {
                kind: "pie".into(),
                root: false,
                sent_bytes: 6_027_000,
                sent_packets: 4018,
                dropped: 357,
                overlimit_drops: 12,
                ecn_marks: 0,
                backlog_bytes: 4500,
                backlog_packets: 3,
            }
        );
        assert!(q[0].root && q[0].kind == "tbf");
        // tbf's `overlimits` (token waits) are not drops.
        assert_eq!(q[0].overlimit_drops, 0);
    }

    #[test]
    fn an_aqm_owns_the_queue_drops_and_its_limit_drops_are_drop_tail() {
        let s = dir_stats(&parse_qdiscs(PIE).unwrap(), 0, None);
        let by = s.queue_drops_by();
        assert_eq!((by.total, by.pie, by.drop_tail), (357, 345, 12));
        assert_eq!(s.departed_packets, 4018);
        // tbf repeats its child's 357: they are not counted twice.
        assert_eq!(s.queue_drops, 357);
    }

    #[test]
    fn codel_marks_and_fq_codel_limit_drops() {
        let codel = r#"[{"kind":"tbf","root":true,"bytes":100,"packets":1,"drops":40},
            {"kind":"codel","parent":"1:1","bytes":100,"packets":1,"drops":40,"count":3,"lastcount":2,"ldelay":160,"drop_next":0,"maxpacket":1514,"ecn_mark":125,"drop_overlimit":5}]"#;
        let s = dir_stats(&parse_qdiscs(codel).unwrap(), 0, None);
        assert_eq!((s.codel_drops, s.ce_marks), (35, 125));
        assert_eq!(s.queue_drops_by().drop_tail, 5);
        let fq = codel.replace("\"codel\"", "\"fq_codel\"");
        let s = dir_stats(&parse_qdiscs(&fq).unwrap(), 0, None);
        assert_eq!((s.fq_codel_drops, s.queue_drops_by().drop_tail), (40, 0));
    }

    #[test]
    fn drop_tail_police_and_channel_drops() {
        let tbf =
            parse_qdiscs(r#"[{"kind":"tbf","root":true,"bytes":1500,"packets":1,"drops":7}]"#)
                .unwrap();
        let netem = &parse_qdiscs(r#"[{"kind":"netem","root":true,"drops":21}]"#).unwrap()[0];
        // As iproute2 6.1 prints a matchall filter with a police action.
        let filters = r#"[{"protocol":"all","pref":49152,"kind":"matchall","chain":0},{"protocol":"all","pref":49152,"kind":"matchall","chain":0,"options":{"handle":1,"not_in_hw":true,"rule_hit":2,"actions":[{"order":1,"kind":"police","index":1,"control_action":{"type":"drop"},"control_action":{"type":"pipe"},"overhead":0,"ref":1,"bind":1,"installed":0,"last_used":0,"first_used":0,"stats":{"bytes":160,"packets":2,"drops":431,"overlimits":431,"requeues":0,"backlog":0,"qlen":0}}]}}]"#;
        let police = parse_police_drops(filters).unwrap();
        assert_eq!(police, 431);
        let s = dir_stats(&tbf, police, Some(netem));
        let by = s.queue_drops_by();
        assert_eq!((by.total, by.drop_tail, by.police), (438, 7, 431));
        assert_eq!(s.channel_drops, 21);
        assert_eq!(parse_police_drops("").unwrap(), 0);
        assert!(parse_qdiscs("qdisc tbf 1: root").is_err());
    }
}
