//! Validation: from the located TOML tree to a [`Scenario`]. Every problem is a [`Diag`] at the key
//! or value at fault, saying what was found and what is expected.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use super::error::{describe, Diag};
use super::raw::{At, Entry, Kind, Node};
use super::{
    Aqm, AqmKind, CoDel, EcnMarking, Flow, FlowController, FqCoDel, Jitter, Link, LossModel, Pie,
    Policer, Reorder, Scenario,
};
use crate::units::{format_duration, parse_duration, BitRate, Bytes, UnitError};

const TOP_KEYS: [&str; 7] = [
    "name",
    "description",
    "duration",
    "seed",
    "mtu",
    "link",
    "flow",
];
const LINK_KEYS: [&str; 10] = [
    "name",
    "rate",
    "delay",
    "queue",
    "loss",
    "reverse_loss",
    "ecn",
    "jitter",
    "reorder",
    "police",
];
const FLOW_KEYS: [&str; 8] = [
    "controller",
    "path",
    "start",
    "bytes",
    "count",
    "receive_window",
    "max_ack_delay",
    "ack_eliciting_threshold",
];
const MODELS: &str = "none, bernoulli, gilbert-elliott, burst";

/// QUIC needs 1200-byte UDP payloads; IPv4 and UDP headers add 28 bytes.
pub const MIN_MTU: u16 = 1228;
pub const MAX_MTU: u16 = 9000;
/// The largest `ack_eliciting_threshold`: far beyond any receiver's policy, and within QUIC's
/// varint range.
const MAX_ACK_EVERY: i64 = 1 << 20;

/// A table being validated, and how to name it in messages.
struct Table<'a> {
    node: &'a Node,
    /// Prefix of every message about this table: `link "bottleneck": `, `flow 1: `, or empty.
    prefix: String,
    /// The table in an unknown-key message: `at top level`, `in [[link]] "bottleneck"`.
    place: String,
}

impl<'a> Table<'a> {
    fn entries(&self) -> &'a [Entry] {
        self.node.entries().unwrap_or(&[])
    }

    fn get(&self, key: &str) -> Option<&'a Entry> {
        self.entries().iter().find(|e| e.key == key)
    }

    fn diag(&self, at: At, message: impl AsRef<str>) -> Diag {
        Diag::new(at, format!("{}{}", self.prefix, message.as_ref()))
    }

    fn check_keys(&self, allowed: &[&str]) -> Result<(), Diag> {
        for e in self.entries() {
            if !allowed.contains(&e.key.as_str()) {
                let mut msg = format!(
                    "unknown key \"{}\" {}; expected one of: {}",
                    e.key,
                    self.place,
                    allowed.join(", ")
                );
                if let Some(near) = closest(&e.key, allowed) {
                    msg.push_str(&format!(" (did you mean \"{near}\"?)"));
                }
                return Err(Diag::new(e.key_at, msg));
            }
        }
        Ok(())
    }

    fn required(&self, key: &str, hint: &str) -> Result<&'a Entry, Diag> {
        self.get(key).ok_or_else(|| {
            self.diag(
                self.node.at,
                format!("missing required key \"{key}\" ({hint})"),
            )
        })
    }

    fn type_error(&self, e: &Entry, expected: &str) -> Diag {
        self.diag(
            e.value.at,
            format!(
                "{} = {} is {}; expected {expected}",
                e.key,
                e.value.render(),
                e.value.kind_name()
            ),
        )
    }

    fn string(&self, e: &'a Entry, expected: &str) -> Result<&'a str, Diag> {
        e.value.as_str().ok_or_else(|| self.type_error(e, expected))
    }

    fn non_empty_string(&self, e: &'a Entry, expected: &str) -> Result<&'a str, Diag> {
        let s = self.string(e, expected)?;
        if s.trim().is_empty() {
            return Err(self.diag(
                e.value.at,
                format!("{} is empty; expected {expected}", e.key),
            ));
        }
        Ok(s)
    }

    fn unit_error(&self, e: &Entry, err: &UnitError) -> Diag {
        self.diag(
            e.value.at,
            format!("bad {} \"{}\": {}", e.key, err.input, err.reason()),
        )
    }

    fn duration(&self, e: &Entry, example: &str) -> Result<Duration, Diag> {
        let expected =
            format!("a duration with a unit (ns, us, ms, s, min), such as \"{example}\"");
        let text = self.string(e, &expected)?;
        parse_duration(text).map_err(|err| self.unit_error(e, &err))
    }

    fn positive_duration(&self, e: &Entry, example: &str) -> Result<Duration, Diag> {
        let d = self.duration(e, example)?;
        if d.is_zero() {
            return Err(self.diag(
                e.value.at,
                format!("{} must be longer than 0s, such as \"{example}\"", e.key),
            ));
        }
        Ok(d)
    }

    fn rate(&self, e: &Entry) -> Result<BitRate, Diag> {
        let rate = match &e.value.kind {
            Kind::Str(s) => s
                .parse::<BitRate>()
                .map_err(|err| self.unit_error(e, &err))?,
            Kind::Int(i) => match u64::try_from(*i) {
                Ok(v) => BitRate(v),
                Err(_) => {
                    let err = i.to_string().parse::<BitRate>().unwrap_err();
                    return Err(self.unit_error(e, &err));
                }
            },
            _ => {
                return Err(self.type_error(
                    e,
                    "a rate with a unit, such as \"100Mbit\", \"1.5Mbit\" or \"2Mbps\"",
                ))
            }
        };
        if rate.0 == 0 {
            return Err(self.diag(
                e.value.at,
                format!(
                    "{} = {} is zero; a link needs a rate above 0, such as \"100Mbit\"",
                    e.key,
                    e.value.render()
                ),
            ));
        }
        Ok(rate)
    }

    /// A positive size; `zero` says what the size is for, in the message when it is 0.
    fn bytes(&self, e: &Entry, zero: &str) -> Result<Bytes, Diag> {
        let size = match &e.value.kind {
            Kind::Str(s) => s.parse::<Bytes>().map_err(|err| self.unit_error(e, &err))?,
            Kind::Int(i) => match u64::try_from(*i) {
                Ok(v) => Bytes(v),
                Err(_) => {
                    let err = i.to_string().parse::<Bytes>().unwrap_err();
                    return Err(self.unit_error(e, &err));
                }
            },
            _ => {
                return Err(
                    self.type_error(e, "a size in bytes, such as 1500 or \"1.6MB\" or \"20MiB\"")
                )
            }
        };
        if size.0 == 0 {
            return Err(self.diag(
                e.value.at,
                format!("{} = {} is zero; expected {zero}", e.key, e.value.render()),
            ));
        }
        Ok(size)
    }

    /// An integer in `min..=max`; `what` describes it ("an integer number of packets").
    fn integer(
        &self,
        e: &Entry,
        what: &str,
        example: i64,
        min: i64,
        max: i64,
    ) -> Result<i64, Diag> {
        let Kind::Int(v) = e.value.kind else {
            return Err(self.type_error(e, &format!("{what}, such as {example}")));
        };
        if v < min || v > max {
            let range = if max == i64::MAX {
                format!("at least {min}")
            } else {
                format!("from {min} to {max}")
            };
            return Err(self.diag(
                e.value.at,
                format!("{} = {v} is out of range; expected {what}, {range}", e.key),
            ));
        }
        Ok(v)
    }

    fn probability(&self, e: &Entry, what: &str) -> Result<f64, Diag> {
        let v = match e.value.kind {
            Kind::Float(f) => f,
            Kind::Int(i) => i as f64,
            _ => {
                return Err(self.type_error(
                    e,
                    &format!("{what}: a probability from 0 to 1, such as 0.01"),
                ))
            }
        };
        if !(0.0..=1.0).contains(&v) {
            return Err(self.diag(
                e.value.at,
                format!(
                    "{} = {} is out of range; expected {what}: a probability from 0 to 1, such as 0.01",
                    e.key,
                    e.value.render()
                ),
            ));
        }
        Ok(v)
    }
}

/// The entries of an array of tables (`[[link]]`), or an error if `key` is something else.
fn array_of_tables<'a>(root: &Table<'a>, e: &'a Entry) -> Result<&'a [Node], Diag> {
    let wrong = |at: At, found: &str| {
        root.diag(
            at,
            format!(
                "\"{}\" is {found}; expected [[{}]] entries (an array of tables)",
                e.key, e.key
            ),
        )
    };
    let Kind::Array(items) = &e.value.kind else {
        return Err(wrong(e.value.at, e.value.kind_name()));
    };
    if let Some(bad) = items.iter().find(|n| n.entries().is_none()) {
        return Err(wrong(
            bad.at,
            &format!("an array holding {}", bad.kind_name()),
        ));
    }
    Ok(items)
}

/// The error for a document without any key.
pub(crate) fn empty(at: At) -> Diag {
    Diag::new(
        at,
        "the scenario is empty; expected name, description, duration, at least one [[link]] and one [[flow]]",
    )
}

/// Validate the whole document; files it names (capacity traces) are relative to `base`.
pub(crate) fn scenario(root_node: &Node, base: &Path) -> Result<Scenario, Diag> {
    let root = Table {
        node: root_node,
        prefix: String::new(),
        place: "at top level".into(),
    };
    if root.entries().is_empty() {
        return Err(empty(root_node.at));
    }
    root.check_keys(&TOP_KEYS)?;
    let e = root.required("name", "the scenario's name, e.g. \"errors-only\"")?;
    let name = root
        .non_empty_string(e, "a name, such as \"errors-only\"")?
        .to_string();
    let e = root.required("description", "one line saying what the scenario shows")?;
    let description = root.string(e, "a one-line description")?.to_string();
    let e = root.required("duration", "how long flows send, e.g. \"100s\"")?;
    let duration = root.positive_duration(e, "100s")?;
    let seed = match root.get("seed") {
        Some(e) => root.integer(e, "a non-negative integer seed", 1, 0, i64::MAX)? as u64,
        None => 1,
    };
    let mtu = match root.get("mtu") {
        Some(e) => root.integer(
            e,
            "an IP MTU in bytes (QUIC needs 1200-byte datagrams plus 28 bytes of IPv4/UDP headers)",
            1500,
            MIN_MTU.into(),
            MAX_MTU.into(),
        )? as u16,
        None => 1500,
    };

    let e = root.required(
        "link",
        "at least one [[link]] table with name, rate, delay and queue",
    )?;
    let link_nodes = array_of_tables(&root, e)?;
    if link_nodes.is_empty() {
        return Err(root.diag(e.value.at, "link is empty; expected at least one [[link]]"));
    }
    let mut links = Vec::with_capacity(link_nodes.len());
    let mut seen: HashMap<String, At> = HashMap::new();
    for (i, node) in link_nodes.iter().enumerate() {
        let link = link(node, i, base, mtu)?;
        let name_at = node.get("name").map_or(node.at, |e| e.value.at);
        if let Some(first) = seen.get(&link.name) {
            return Err(Diag::new(
                name_at,
                format!(
                    "duplicate link name \"{}\": already defined at {}; link names must be unique",
                    link.name,
                    describe(*first, "an override")
                ),
            ));
        }
        seen.insert(link.name.clone(), name_at);
        links.push(link);
    }

    let e = root.required(
        "flow",
        "at least one [[flow]] table with controller and path",
    )?;
    let flow_nodes = array_of_tables(&root, e)?;
    if flow_nodes.is_empty() {
        return Err(root.diag(e.value.at, "flow is empty; expected at least one [[flow]]"));
    }
    let mut flows = Vec::with_capacity(flow_nodes.len());
    for (i, node) in flow_nodes.iter().enumerate() {
        flows.push(flow(node, i, &links, duration)?);
    }

    Ok(Scenario {
        name,
        description,
        duration,
        seed,
        mtu,
        links,
        flows,
        source: None,
    })
}

fn link(node: &Node, index: usize, base: &Path, mtu: u16) -> Result<Link, Diag> {
    let mut t = Table {
        node,
        prefix: format!("link {index}: "),
        place: format!("in [[link]] {index}"),
    };
    // Name the link by its name as soon as there is a usable one.
    if let Some(name) = t.get("name").and_then(|e| e.value.as_str()) {
        if !name.trim().is_empty() {
            t.prefix = format!("link \"{name}\": ");
            t.place = format!("in [[link]] \"{name}\"");
        }
    }
    t.check_keys(&LINK_KEYS)?;
    let e = t.required(
        "name",
        "a unique name that flows' paths refer to, e.g. \"bottleneck\"",
    )?;
    let name = t
        .non_empty_string(e, "a link name, such as \"bottleneck\"")?
        .to_string();
    let e = t.required(
        "rate",
        "the link's rate, e.g. \"100Mbit\", or a capacity trace, e.g. { trace = \"lte.down\" }",
    )?;
    let (rate, trace) = match e.value.kind {
        Kind::Table(_) => {
            let trace = capacity_trace(&t, e, base)?;
            (
                BitRate(trace.mean_bps().round().max(1.0) as u64),
                Some(trace),
            )
        }
        _ => (t.rate(e)?, None),
    };
    let e = t.required(
        "delay",
        "one-way propagation delay, e.g. \"50ms\", or \"0s\"",
    )?;
    let delay = t.duration(e, "50ms")?;
    let e = t.required(
        "queue",
        "the queue limit in packets, e.g. 50, or { limit = 1000, codel = { target = \"5ms\", interval = \"100ms\" } }",
    )?;
    let (queue, aqm) = queue(&t, e)?;
    let police = match t.get("police") {
        Some(e) => Some(police(&t, e, mtu)?),
        None => None,
    };
    let loss = match t.get("loss") {
        Some(e) => loss_model(&t, e)?,
        None => LossModel::None,
    };
    let reverse_loss = match t.get("reverse_loss") {
        Some(e) => loss_model(&t, e)?,
        None => LossModel::None,
    };
    let ecn = match t.get("ecn") {
        Some(e) => Some(ecn(&t, e)?),
        None => None,
    };
    let jitter = match t.get("jitter") {
        Some(e) => Some(jitter(&t, e)?),
        None => None,
    };
    let reorder = match t.get("reorder") {
        Some(e) => Some(reorder(&t, e)?),
        None => None,
    };
    Ok(Link {
        name,
        rate,
        delay,
        queue,
        loss,
        reverse_loss,
        trace,
        aqm,
        police,
        ecn,
        jitter,
        reorder,
    })
}

/// The table under `e` of a link, checked against `keys`; `example` shows the whole form.
fn sub_table<'a>(
    link: &Table<'a>,
    e: &'a Entry,
    keys: &[&str],
    example: &str,
) -> Result<Table<'a>, Diag> {
    if e.value.entries().is_none() {
        return Err(link.type_error(e, &format!("a table, such as {} = {example}", e.key)));
    }
    let t = Table {
        node: &e.value,
        prefix: format!("{}{}: ", link.prefix, e.key),
        place: format!("in {} {}", e.key, link.place),
    };
    t.check_keys(keys)?;
    Ok(t)
}

fn capacity_trace(
    link: &Table<'_>,
    e: &Entry,
    base: &Path,
) -> Result<crate::scenario::CapacityTrace, Diag> {
    let example = "{ trace = \"../traces/TMobile-LTE-short.down\" }";
    let t = sub_table(link, e, &["trace"], example)?;
    let f = t.required(
        "trace",
        "a mahimahi trace file, relative to the scenario file, e.g. \"lte.down\"",
    )?;
    let file = t.non_empty_string(f, "a trace file name, such as \"lte.down\"")?;
    crate::link::trace::read(&base.join(file), file).map_err(|m| t.diag(f.value.at, m))
}

fn queue(link: &Table<'_>, e: &Entry) -> Result<(usize, Option<Aqm>), Diag> {
    let what = "an integer number of packets";
    let limit = |t: &Table<'_>, e: &Entry| -> Result<usize, Diag> {
        let v = t.integer(e, what, 50, 1, i64::MAX)?;
        usize::try_from(v).map_err(|_| t.diag(e.value.at, "queue is too large"))
    };
    if e.value.entries().is_none() {
        return Ok((limit(link, e)?, None));
    }
    let example = "{ limit = 1000, codel = { target = \"5ms\", interval = \"100ms\" } }";
    let t = sub_table(
        link,
        e,
        &["limit", "codel", "pie", "fq_codel", "ecn"],
        example,
    )?;
    let l = t.required("limit", "the queue limit in packets, e.g. 1000")?;
    let limit = limit(&t, l)?;
    let given: Vec<&Entry> = ["codel", "pie", "fq_codel"]
        .iter()
        .filter_map(|k| t.get(k))
        .collect();
    if let [_, second, ..] = given.as_slice() {
        return Err(t.diag(
            second.value.at,
            "a queue has one AQM: codel, pie or fq_codel, not two",
        ));
    }
    let kind = match given.first() {
        Some(e) if e.key == "codel" => Some(AqmKind::CoDel(codel(&t, e)?)),
        Some(e) if e.key == "pie" => Some(AqmKind::Pie(pie(&t, e)?)),
        Some(e) => Some(AqmKind::FqCoDel(fq_codel(&t, e)?)),
        None => None,
    };
    let ecn = match t.get("ecn") {
        Some(e) => {
            let Kind::Bool(on) = e.value.kind else {
                return Err(t.type_error(e, "true or false"));
            };
            if on && kind.is_none() {
                return Err(t.diag(
                    e.value.at,
                    "ecn = true marks where an AQM would drop, and this queue has none; add \
                     codel = {}, pie = {} or fq_codel = {}, or use the link's ecn = { threshold = N } for step \
                     marking",
                ));
            }
            on
        }
        None => false,
    };
    Ok((limit, kind.map(|kind| Aqm { kind, ecn })))
}

fn codel(queue: &Table<'_>, c: &Entry) -> Result<CoDel, Diag> {
    let example = "{ target = \"5ms\", interval = \"100ms\" }";
    let c = sub_table(queue, c, &["target", "interval"], example)?;
    codel_times(&c)
}

/// CoDel's `target` and `interval` in table `t` (CoDel's own, or FQ-CoDel's), with RFC 8289's
/// defaults: 5 ms and 100 ms.
fn codel_times(t: &Table<'_>) -> Result<CoDel, Diag> {
    let target = match t.get("target") {
        Some(e) => t.positive_duration(e, "5ms")?,
        None => Duration::from_millis(5),
    };
    let interval = match t.get("interval") {
        Some(e) => t.positive_duration(e, "100ms")?,
        None => Duration::from_millis(100),
    };
    Ok(CoDel { target, interval })
}

/// FQ-CoDel's parameters; RFC 8290 section 5.1's defaults: CoDel's 5 ms / 100 ms, a quantum of
/// 1514 bytes. Linux refuses a quantum below 256 bytes.
fn fq_codel(queue: &Table<'_>, f: &Entry) -> Result<FqCoDel, Diag> {
    let example = "{ target = \"5ms\", interval = \"100ms\", quantum = 1514 }";
    let f = sub_table(queue, f, &["target", "interval", "quantum"], example)?;
    let codel = codel_times(&f)?;
    let quantum = match f.get("quantum") {
        Some(e) => f.integer(e, "a quantum in bytes", 1514, 256, 1 << 20)? as u64,
        None => 1514,
    };
    Ok(FqCoDel { codel, quantum })
}

/// PIE's parameters; RFC 8033 section 4.1's defaults: `QDELAY_REF` 15 ms, `T_UPDATE` 15 ms.
fn pie(queue: &Table<'_>, p: &Entry) -> Result<Pie, Diag> {
    let example = "{ target = \"15ms\", tupdate = \"15ms\" }";
    let p = sub_table(queue, p, &["target", "tupdate"], example)?;
    let target = match p.get("target") {
        Some(e) => p.positive_duration(e, "15ms")?,
        None => Duration::from_millis(15),
    };
    let tupdate = match p.get("tupdate") {
        Some(e) => p.positive_duration(e, "15ms")?,
        None => Duration::from_millis(15),
    };
    Ok(Pie { target, tupdate })
}

/// A policer's rate and bucket; the bucket must hold at least one packet of the link's MTU, or
/// nothing would ever pass.
fn police(link: &Table<'_>, e: &Entry, mtu: u16) -> Result<Policer, Diag> {
    let example = "{ rate = \"8Mbit\", burst = \"60KB\" }";
    let t = sub_table(link, e, &["rate", "burst"], example)?;
    let r = t.required("rate", "the policed rate, e.g. \"8Mbit\"")?;
    let rate = t.rate(r)?;
    let b = t.required("burst", "the bucket size, e.g. \"60KB\"")?;
    let burst = t.bytes(b, "a bucket of at least one packet, such as \"60KB\"")?;
    if burst.0 < u64::from(mtu) {
        return Err(t.diag(
            b.value.at,
            format!(
                "burst = {} is smaller than one {mtu}-byte packet, so nothing would pass; \
                 expected at least the MTU, such as \"60KB\"",
                b.value.render()
            ),
        ));
    }
    Ok(Policer { rate, burst })
}

fn ecn(link: &Table<'_>, e: &Entry) -> Result<EcnMarking, Diag> {
    let t = sub_table(link, e, &["threshold"], "{ threshold = 20 }")?;
    let n = t.required(
        "threshold",
        "mark CE when at least this many packets wait, e.g. 20",
    )?;
    let threshold = t.integer(n, "an integer number of waiting packets", 20, 0, i64::MAX)?;
    Ok(EcnMarking {
        threshold: usize::try_from(threshold).unwrap_or(usize::MAX),
    })
}

fn jitter(link: &Table<'_>, e: &Entry) -> Result<Jitter, Diag> {
    let t = sub_table(
        link,
        e,
        &["model", "max", "mean"],
        "{ model = \"uniform\", max = \"10ms\" } or { model = \"exponential\", mean = \"5ms\" }",
    )?;
    let m = t.required(
        "model",
        "\"uniform\" (with max) or \"exponential\" (with mean)",
    )?;
    match t.string(m, "\"uniform\" or \"exponential\"")? {
        "uniform" => {
            t.check_keys(&["model", "max"])?;
            let max = t.required("max", "the largest extra delay, e.g. \"10ms\"")?;
            Ok(Jitter::Uniform {
                max: t.positive_duration(max, "10ms")?,
            })
        }
        "exponential" => {
            t.check_keys(&["model", "mean"])?;
            let mean = t.required("mean", "the mean extra delay, e.g. \"5ms\"")?;
            Ok(Jitter::Exponential {
                mean: t.positive_duration(mean, "5ms")?,
            })
        }
        other => Err(t.diag(
            m.value.at,
            format!("model \"{other}\" is unknown; expected \"uniform\" or \"exponential\""),
        )),
    }
}

fn reorder(link: &Table<'_>, e: &Entry) -> Result<Reorder, Diag> {
    let t = sub_table(
        link,
        e,
        &["probability", "displacement"],
        "{ probability = 0.01, displacement = \"10ms\" }",
    )?;
    let p = t.required(
        "probability",
        "the probability that a packet is held back, e.g. 0.01",
    )?;
    let probability = t.probability(p, "the reordering probability")?;
    let d = t.required(
        "displacement",
        "how long a reordered packet is held back, e.g. \"10ms\"",
    )?;
    let displacement = t.positive_duration(d, "10ms")?;
    Ok(Reorder {
        probability,
        displacement,
    })
}

fn loss_model(link: &Table<'_>, e: &Entry) -> Result<LossModel, Diag> {
    let expected = "a loss model such as { model = \"bernoulli\", rate = 0.01 }, or \"none\"";
    match &e.value.kind {
        Kind::Str(s) if s == "none" => return Ok(LossModel::None),
        Kind::Table(_) => {}
        _ => return Err(link.type_error(e, expected)),
    }
    let t = Table {
        node: &e.value,
        prefix: link.prefix.clone(),
        place: format!("in {} {}", e.key, link.place),
    };
    let m = t.required("model", &format!("one of: {MODELS}"))?;
    let model = t.string(m, &format!("a model name, one of: {MODELS}"))?;
    let keys: &[&str] = match model {
        "none" => &["model"],
        "bernoulli" => &["model", "rate"],
        "gilbert-elliott" => &["model", "p", "r", "h", "k"],
        "burst" => &["model", "every", "drops", "start", "count"],
        other => {
            let mut msg = format!(
                "{} model \"{other}\" is unknown; expected one of: {MODELS}",
                e.key
            );
            if let Some(near) = closest(other, &["none", "bernoulli", "gilbert-elliott", "burst"]) {
                msg.push_str(&format!(" (did you mean \"{near}\"?)"));
            }
            return Err(t.diag(m.value.at, msg));
        }
    };
    let t = Table {
        place: format!("in {} ({model}) {}", e.key, link.place),
        ..t
    };
    t.check_keys(keys)?;
    let model = match model {
        "none" => LossModel::None,
        "bernoulli" => {
            let r = t.required("rate", "the probability that a packet is lost, e.g. 0.01")?;
            let rate = t.probability(r, "the loss rate")?;
            // A zero loss rate is a lossless link (`--set link.x.loss.rate=0`).
            if rate == 0.0 {
                LossModel::None
            } else {
                LossModel::Bernoulli { rate }
            }
        }
        "gilbert-elliott" => {
            let p = t.required("p", "P(good -> bad) per packet, e.g. 0.01")?;
            let p = t.probability(p, "P(good -> bad) per packet")?;
            let r = t.required("r", "P(bad -> good) per packet, e.g. 0.3")?;
            let r = t.probability(r, "P(bad -> good) per packet")?;
            let h = match t.get("h") {
                Some(h) => t.probability(h, "P(delivery | bad)")?,
                None => 0.0,
            };
            let k = match t.get("k") {
                Some(k) => t.probability(k, "P(delivery | good)")?,
                None => 1.0,
            };
            LossModel::GilbertElliott { p, r, h, k }
        }
        _ => {
            let every = t.required("every", "the time between bursts, e.g. \"0.5s\"")?;
            let every = t.positive_duration(every, "0.5s")?;
            let drops = t.required("drops", "how many packets each burst loses, e.g. 4")?;
            let drops = t.integer(
                drops,
                "an integer number of packets per burst",
                4,
                1,
                u32::MAX.into(),
            )? as u32;
            let start = match t.get("start") {
                Some(s) => t.duration(s, "2s")?,
                None => every,
            };
            let count = match t.get("count") {
                Some(c) => {
                    Some(t.integer(c, "an integer number of bursts", 3, 1, u32::MAX.into())? as u32)
                }
                None => None,
            };
            LossModel::Burst {
                every,
                drops,
                start,
                count,
            }
        }
    };
    Ok(model)
}

fn flow(node: &Node, index: usize, links: &[Link], duration: Duration) -> Result<Flow, Diag> {
    let t = Table {
        node,
        prefix: format!("flow {index}: "),
        place: format!("in [[flow]] {index}"),
    };
    t.check_keys(&FLOW_KEYS)?;
    let e = t.required("controller", "a controller id, e.g. \"composite\"")?;
    let id = t.non_empty_string(e, "a controller id, such as \"composite\"")?;
    let controller =
        FlowController::parse(id).map_err(|err| t.diag(e.value.at, err.to_string()))?;
    let e = t.required(
        "path",
        "the links the flow crosses, sender to receiver, e.g. [\"bottleneck\"]",
    )?;
    let path = path(&t, e, links)?;
    let start = match t.get("start") {
        Some(e) => {
            let start = t.duration(e, "0s")?;
            if start >= duration {
                return Err(t.diag(
                    e.value.at,
                    format!(
                        "start = {} is not before the scenario's duration of {}; the flow would never send",
                        e.value.render(),
                        format_duration(duration)
                    ),
                ));
            }
            start
        }
        None => Duration::ZERO,
    };
    let bytes = match t.get("bytes") {
        Some(e) => Some(t.bytes(
            e,
            "a transfer of at least 1 byte, such as \"1.6MB\" (leave bytes out to send for the whole duration)",
        )?),
        None => None,
    };
    let count = match t.get("count") {
        Some(e) => t.integer(
            e,
            "an integer number of identical flows",
            2,
            1,
            u32::MAX.into(),
        )? as u32,
        None => 1,
    };
    let receive_window = match t.get("receive_window") {
        Some(e) => Some(t.bytes(
            e,
            "a receive window of at least 1 byte, such as \"75KB\" (leave receive_window out for no cap)",
        )?),
        None => None,
    };
    let max_ack_delay = match t.get("max_ack_delay") {
        Some(e) => Some(t.positive_duration(e, "1ms")?),
        None => None,
    };
    let ack_every = match t.get("ack_eliciting_threshold") {
        Some(e) => Some(t.integer(
            e,
            "a whole number of ack-eliciting packets per ACK",
            10,
            1,
            MAX_ACK_EVERY,
        )? as u32),
        None => None,
    };
    Ok(Flow {
        controller,
        path,
        start,
        bytes,
        count,
        receive_window,
        max_ack_delay,
        ack_every,
    })
}

fn path(t: &Table<'_>, e: &Entry, links: &[Link]) -> Result<Vec<usize>, Diag> {
    let expected = "an array of link names, such as [\"bottleneck\"]";
    let names: Vec<&Node> = match &e.value.kind {
        Kind::Array(items) => items.iter().collect(),
        // A single link, as `--set flow.0.path=bottleneck` gives it.
        Kind::Str(_) => vec![&e.value],
        _ => return Err(t.type_error(e, expected)),
    };
    if names.is_empty() {
        return Err(t.diag(e.value.at, format!("path is empty; expected {expected}")));
    }
    let defined = links
        .iter()
        .map(|l| l.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let mut path = Vec::with_capacity(names.len());
    for n in names {
        let Some(name) = n.as_str() else {
            return Err(t.diag(
                n.at,
                format!(
                    "path holds {} ({}); expected link names, such as [\"bottleneck\"]",
                    n.render(),
                    n.kind_name()
                ),
            ));
        };
        let Some(i) = links.iter().position(|l| l.name == name) else {
            return Err(t.diag(
                n.at,
                format!(
                    "path names link \"{name}\", which is not defined; defined links: {defined}"
                ),
            ));
        };
        if path.contains(&i) {
            return Err(t.diag(
                n.at,
                format!("path crosses link \"{name}\" twice; a path names each link once"),
            ));
        }
        path.push(i);
    }
    Ok(path)
}

/// The allowed word nearest to `word`, if it is a plausible typo of it.
fn closest<'a>(word: &str, allowed: &[&'a str]) -> Option<&'a str> {
    allowed
        .iter()
        .map(|a| (edit_distance(&word.to_lowercase(), a), *a))
        .filter(|(d, a)| *d <= 2.min(a.len() / 2).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_key() {
        assert_eq!(closest("rat", &LINK_KEYS), Some("rate"));
        assert_eq!(closest("dealy", &LINK_KEYS), Some("delay"));
        assert_eq!(
            closest("bernouli", &["none", "bernoulli", "burst"]),
            Some("bernoulli")
        );
        assert_eq!(closest("bandwidth", &LINK_KEYS), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
