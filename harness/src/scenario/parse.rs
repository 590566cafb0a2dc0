//! Validation: from the located TOML tree to a [`Scenario`]. Every problem is a [`Diag`] at the key
//! or value at fault, saying what was found and what is expected.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use super::error::{describe, Diag};
use super::keys::{self, Key, Variant};
use super::lies::{LieLength, LieWhen, LiedDelay};
use super::raw::{At, Entry, Kind, Node};
use super::{
    Aqm, AqmKind, CoDel, EcnMarking, Flow, FlowController, FqCoDel, Jitter, Link, LossModel, Pie,
    Policer, Receiver, ReceiverLies, Reorder, Scenario,
};
use crate::units::{
    format_duration, parse_duration, BitRate, Bytes, UnitError, IP_UDP_OVERHEAD, QUIC_MIN_DATAGRAM,
};

/// QUIC needs 1200-byte UDP payloads, and the links count IPv4 and UDP headers on top.
pub const MIN_MTU: u16 = (QUIC_MIN_DATAGRAM + IP_UDP_OVERHEAD) as u16;
pub const MAX_MTU: u16 = 9000;
/// The largest `ack_eliciting_threshold`: far beyond any receiver's policy, and within QUIC's
/// varint range.
const MAX_ACK_EVERY: i64 = 1 << 20;

/// The slowest link rate a scenario may give. Below it a full-size packet takes more than a
/// second to serialise, so QUIC's handshake hardly completes: a rate this low is almost surely a
/// unit mistaken (bits for kilobits, a bare number for megabits).
pub const MIN_RATE: BitRate = BitRate(10_000);

/// What a rate is, in a message about a value that is not one.
const RATE_EXPECTED: &str = "a rate with a unit, such as \"100Mbit\", \"1.5Mbit\", \"2Mbps\" or \
                             \"2.5MBps\" (bytes)";

/// A table being validated, and how to name it in messages.
struct Table<'a> {
    node: &'a Node,
    /// Prefix of every message about this table: `link "bottleneck": `, `flow 1: `, or empty.
    prefix: String,
    /// The table in an unknown-key message: `at top level`, `in [[link]] "bottleneck"`.
    place: String,
    /// The keys the table may hold.
    keys: &'static [Key],
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

    /// The entry `key`, read by `read` if the table has it.
    fn optional<T>(
        &self,
        key: &str,
        read: impl FnOnce(&'a Entry) -> Result<T, Diag>,
    ) -> Result<Option<T>, Diag> {
        self.get(key).map(read).transpose()
    }

    fn check_keys(&self) -> Result<(), Diag> {
        let allowed = keys::names(self.keys);
        for e in self.entries() {
            if !allowed.contains(&e.key.as_str()) {
                let mut msg = format!(
                    "unknown key \"{}\" {}; expected one of: {}",
                    e.key,
                    self.place,
                    allowed.join(", ")
                );
                if let Some(near) = closest(&e.key, &allowed) {
                    msg.push_str(&format!(" (did you mean \"{near}\"?)"));
                }
                return Err(Diag::new(e.key_at, msg));
            }
        }
        Ok(())
    }

    /// The entry `key`, which the table must have; its declaration says what it is for.
    fn required(&self, key: &str) -> Result<&'a Entry, Diag> {
        let declared = self.keys.iter().find(|k| k.name == key);
        self.require(key, declared.expect("a required key is declared").doc)
    }

    fn require(&self, key: &str, hint: &str) -> Result<&'a Entry, Diag> {
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

    /// A rate of at least [`MIN_RATE`], with its unit.
    fn rate(&self, e: &Entry) -> Result<BitRate, Diag> {
        let rate = match &e.value.kind {
            Kind::Str(s) => s
                .parse::<BitRate>()
                .map_err(|err| self.unit_error(e, &err))?,
            // A bare number is no rate: the unit parser says which units there are.
            Kind::Int(i) => {
                return Err(match i.to_string().parse::<BitRate>() {
                    Err(err) => self.unit_error(e, &err),
                    Ok(_) => self.type_error(e, RATE_EXPECTED),
                })
            }
            _ => return Err(self.type_error(e, RATE_EXPECTED)),
        };
        if rate < MIN_RATE {
            return Err(self.diag(
                e.value.at,
                format!(
                    "{} = {} is below {MIN_RATE}, almost surely a mistaken unit; a link runs at \
                     {MIN_RATE} or more, such as \"100Mbit\" or \"1.5Mbit\"",
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
        keys: keys::TOP,
    };
    if root.entries().is_empty() {
        return Err(empty(root_node.at));
    }
    root.check_keys()?;
    let e = root.required("name")?;
    let name = root
        .non_empty_string(e, "a name, such as \"errors-only\"")?
        .to_string();
    let e = root.required("description")?;
    let description = root.string(e, "a one-line description")?.to_string();
    let duration = root.positive_duration(root.required("duration")?, "100s")?;
    let seed = root
        .optional("seed", |e| {
            root.integer(e, "a non-negative integer seed", 1, 0, i64::MAX)
        })?
        .map_or(1, |seed| seed as u64);
    let mtu = mtu(&root)?;
    let timer_granularity = timer_granularity(&root)?;
    let links = links(&root, base, mtu)?;
    let flows = flows(&root, &links, duration)?;
    Ok(Scenario {
        name,
        description,
        duration,
        seed,
        mtu,
        timer_granularity,
        links,
        flows,
        source: None,
    })
}

/// The longest timer tick a scenario may ask for: a host whose timers fire a tenth of a second
/// late is broken, not noisy.
const MAX_TIMER_GRANULARITY: Duration = Duration::from_millis(100);

fn timer_granularity(root: &Table<'_>) -> Result<Option<Duration>, Diag> {
    root.optional("timer_granularity", |e| {
        let tick = root.positive_duration(e, "1ms")?;
        if tick > MAX_TIMER_GRANULARITY {
            return Err(root.diag(
                e.value.at,
                format!(
                    "timer_granularity = {} is longer than {}, a host timer's tick (tokio's is \
                     1 ms); expected such as \"1ms\", or leave it out for timers that fire at \
                     their deadlines",
                    e.value.render(),
                    format_duration(MAX_TIMER_GRANULARITY)
                ),
            ));
        }
        Ok(tick)
    })
}

fn mtu(root: &Table<'_>) -> Result<u16, Diag> {
    let mtu = root.optional("mtu", |e| {
        root.integer(
            e,
            "an IP MTU in bytes (QUIC needs 1200-byte datagrams plus 28 bytes of IPv4/UDP headers)",
            1500,
            MIN_MTU.into(),
            MAX_MTU.into(),
        )
    })?;
    Ok(mtu.map_or(1500, |mtu| mtu as u16))
}

/// The `[[link]]` entries, whose names must be unique.
fn links(root: &Table<'_>, base: &Path, mtu: u16) -> Result<Vec<Link>, Diag> {
    let e = root.required("link")?;
    let nodes = array_of_tables(root, e)?;
    if nodes.is_empty() {
        return Err(root.diag(e.value.at, "link is empty; expected at least one [[link]]"));
    }
    let mut links = Vec::with_capacity(nodes.len());
    let mut seen: HashMap<String, At> = HashMap::new();
    for (i, node) in nodes.iter().enumerate() {
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
    Ok(links)
}

fn flows(root: &Table<'_>, links: &[Link], duration: Duration) -> Result<Vec<Flow>, Diag> {
    let e = root.required("flow")?;
    let nodes = array_of_tables(root, e)?;
    if nodes.is_empty() {
        return Err(root.diag(e.value.at, "flow is empty; expected at least one [[flow]]"));
    }
    nodes
        .iter()
        .enumerate()
        .map(|(i, node)| flow(node, i, links, duration))
        .collect()
}

/// The table of link `index`, named by its name as soon as it has a usable one.
fn link_table(node: &Node, index: usize) -> Table<'_> {
    let name = node.get("name").and_then(|e| e.value.as_str());
    let (prefix, place) = match name {
        Some(name) if !name.trim().is_empty() => (
            format!("link \"{name}\": "),
            format!("in [[link]] \"{name}\""),
        ),
        _ => (format!("link {index}: "), format!("in [[link]] {index}")),
    };
    Table {
        node,
        prefix,
        place,
        keys: keys::LINK,
    }
}

fn link(node: &Node, index: usize, base: &Path, mtu: u16) -> Result<Link, Diag> {
    let t = link_table(node, index);
    t.check_keys()?;
    let e = t.required("name")?;
    let name = t
        .non_empty_string(e, "a link name, such as \"bottleneck\"")?
        .to_string();
    let (rate, trace) = rate_or_trace(&t, t.required("rate")?, base)?;
    let delay = t.duration(t.required("delay")?, "50ms")?;
    let (queue, aqm) = queue(&t, t.required("queue")?)?;
    let police = t.optional("police", |e| police(&t, e, mtu))?;
    let loss = t.optional("loss", |e| loss_model(&t, e))?;
    let reverse_loss = t.optional("reverse_loss", |e| loss_model(&t, e))?;
    Ok(Link {
        name,
        rate,
        delay,
        queue,
        loss: loss.unwrap_or(LossModel::None),
        reverse_loss: reverse_loss.unwrap_or(LossModel::None),
        trace,
        aqm,
        police,
        ecn: t.optional("ecn", |e| ecn(&t, e))?,
        jitter: t.optional("jitter", |e| jitter(&t, e))?,
        reorder: t.optional("reorder", |e| reorder(&t, e))?,
    })
}

/// A link's rate, or the mean rate of the capacity trace that stands in its place.
fn rate_or_trace(
    link: &Table<'_>,
    e: &Entry,
    base: &Path,
) -> Result<(BitRate, Option<crate::scenario::CapacityTrace>), Diag> {
    let Kind::Table(_) = e.value.kind else {
        return Ok((link.rate(e)?, None));
    };
    let trace = capacity_trace(link, e, base)?;
    let mean = BitRate(trace.mean_bps().round().max(1.0) as u64);
    Ok((mean, Some(trace)))
}

/// The table under `e` of a link, checked against `keys`; `example` shows the whole form.
fn sub_table<'a>(
    link: &Table<'a>,
    e: &'a Entry,
    keys: &'static [Key],
    example: &str,
) -> Result<Table<'a>, Diag> {
    if e.value.entries().is_none() {
        return Err(link.type_error(e, &format!("a table, such as {} = {example}", e.key)));
    }
    let t = Table {
        node: &e.value,
        prefix: format!("{}{}: ", link.prefix, e.key),
        place: format!("in {} {}", e.key, link.place),
        keys,
    };
    t.check_keys()?;
    Ok(t)
}

fn capacity_trace(
    link: &Table<'_>,
    e: &Entry,
    base: &Path,
) -> Result<crate::scenario::CapacityTrace, Diag> {
    let example = "{ trace = \"../traces/TMobile-LTE-short.down\" }";
    let t = sub_table(link, e, keys::TRACE, example)?;
    let f = t.required("trace")?;
    let file = t.non_empty_string(f, "a trace file name, such as \"lte.down\"")?;
    super::trace::read(&base.join(file), file).map_err(|m| t.diag(f.value.at, m))
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
    let t = sub_table(link, e, keys::QUEUE, example)?;
    let l = t.required("limit")?;
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
    let c = sub_table(queue, c, keys::CODEL, example)?;
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
    let f = sub_table(queue, f, keys::FQ_CODEL, example)?;
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
    let p = sub_table(queue, p, keys::PIE, example)?;
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
    let t = sub_table(link, e, keys::POLICE, example)?;
    let rate = t.rate(t.required("rate")?)?;
    let b = t.required("burst")?;
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
    let t = sub_table(link, e, keys::ECN, "{ threshold = 20 }")?;
    let n = t.required("threshold")?;
    let threshold = t.integer(n, "an integer number of waiting packets", 20, 0, i64::MAX)?;
    Ok(EcnMarking {
        threshold: usize::try_from(threshold).unwrap_or(usize::MAX),
    })
}

fn jitter(link: &Table<'_>, e: &Entry) -> Result<Jitter, Diag> {
    let example =
        "{ model = \"uniform\", max = \"10ms\" } or { model = \"exponential\", mean = \"5ms\" }";
    let t = sub_table(link, e, keys::JITTER, example)?;
    let m = t.required("model")?;
    let models = keys::model_names(keys::JITTER_MODELS)
        .iter()
        .map(|model| format!("\"{model}\""))
        .collect::<Vec<_>>()
        .join(" or ");
    let name = t.string(m, &models)?;
    let Some(variant) = find_variant(keys::JITTER_MODELS, name) else {
        return Err(t.diag(
            m.value.at,
            format!("model \"{name}\" is unknown; expected {models}"),
        ));
    };
    let t = Table {
        keys: variant.keys,
        ..t
    };
    t.check_keys()?;
    match variant.model {
        "uniform" => Ok(Jitter::Uniform {
            max: t.positive_duration(t.required("max")?, "10ms")?,
        }),
        "exponential" => Ok(Jitter::Exponential {
            mean: t.positive_duration(t.required("mean")?, "5ms")?,
        }),
        other => unreachable!("jitter model {other} is declared but not parsed"),
    }
}

/// The variant called `model`.
fn find_variant(variants: &'static [Variant], model: &str) -> Option<&'static Variant> {
    variants.iter().find(|v| v.model == model)
}

fn reorder(link: &Table<'_>, e: &Entry) -> Result<Reorder, Diag> {
    let example = "{ probability = 0.01, displacement = \"10ms\" }";
    let t = sub_table(link, e, keys::REORDER, example)?;
    let p = t.required("probability")?;
    let probability = t.probability(p, "the reordering probability")?;
    let displacement = t.positive_duration(t.required("displacement")?, "10ms")?;
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
    let (t, model) = loss_table(link, e)?;
    match model {
        "none" => Ok(LossModel::None),
        "bernoulli" => bernoulli(&t),
        "gilbert-elliott" => gilbert_elliott(&t),
        "burst" => burst(&t),
        other => unreachable!("loss model {other} is declared but not parsed"),
    }
}

/// The loss model table under `e`, checked against the keys of the model it names; and that
/// model's name.
fn loss_table<'a>(link: &Table<'_>, e: &'a Entry) -> Result<(Table<'a>, &'static str), Diag> {
    let t = Table {
        node: &e.value,
        prefix: link.prefix.clone(),
        place: format!("in {} {}", e.key, link.place),
        keys: keys::LOSS,
    };
    let models = keys::model_names(keys::LOSS_MODELS);
    let list = models.join(", ");
    let m = t.require("model", &format!("one of: {list}"))?;
    let model = t.string(m, &format!("a model name, one of: {list}"))?;
    let Some(variant) = find_variant(keys::LOSS_MODELS, model) else {
        let mut msg = format!(
            "{} model \"{model}\" is unknown; expected one of: {list}",
            e.key
        );
        if let Some(near) = closest(model, &models) {
            msg.push_str(&format!(" (did you mean \"{near}\"?)"));
        }
        return Err(t.diag(m.value.at, msg));
    };
    let t = Table {
        place: format!("in {} ({model}) {}", e.key, link.place),
        keys: variant.keys,
        ..t
    };
    t.check_keys()?;
    Ok((t, variant.model))
}

fn bernoulli(t: &Table<'_>) -> Result<LossModel, Diag> {
    let rate = t.probability(t.required("rate")?, "the loss rate")?;
    // A zero loss rate is a lossless link (`--set link.x.loss.rate=0`).
    if rate == 0.0 {
        Ok(LossModel::None)
    } else {
        Ok(LossModel::Bernoulli { rate })
    }
}

fn gilbert_elliott(t: &Table<'_>) -> Result<LossModel, Diag> {
    let p = t.probability(t.required("p")?, "P(good -> bad) per packet")?;
    let r = t.probability(t.required("r")?, "P(bad -> good) per packet")?;
    let h = t.optional("h", |h| t.probability(h, "P(delivery | bad)"))?;
    let k = t.optional("k", |k| t.probability(k, "P(delivery | good)"))?;
    Ok(LossModel::GilbertElliott {
        p,
        r,
        h: h.unwrap_or(0.0),
        k: k.unwrap_or(1.0),
    })
}

fn burst(t: &Table<'_>) -> Result<LossModel, Diag> {
    let every = t.positive_duration(t.required("every")?, "0.5s")?;
    let drops = t.integer(
        t.required("drops")?,
        "an integer number of packets per burst",
        4,
        1,
        u32::MAX.into(),
    )? as u32;
    let start = t.optional("start", |s| t.duration(s, "2s"))?;
    let count = t.optional("count", |c| {
        t.integer(c, "an integer number of bursts", 3, 1, u32::MAX.into())
    })?;
    Ok(LossModel::Burst {
        every,
        drops,
        start: start.unwrap_or(every),
        count: count.map(|c| c as u32),
    })
}

fn flow(node: &Node, index: usize, links: &[Link], duration: Duration) -> Result<Flow, Diag> {
    let t = Table {
        node,
        prefix: format!("flow {index}: "),
        place: format!("in [[flow]] {index}"),
        keys: keys::FLOW,
    };
    t.check_keys()?;
    let e = t.required("controller")?;
    let id = t.non_empty_string(e, "a controller id, such as \"composite\"")?;
    let controller =
        FlowController::parse(id).map_err(|err| t.diag(e.value.at, err.to_string()))?;
    let path = path(&t, t.required("path")?, links)?;
    let start = flow_start(&t, duration)?;
    let bytes = t.optional("bytes", |e| {
        t.bytes(
            e,
            "a transfer of at least 1 byte, such as \"1.6MB\" (leave bytes out to send for the whole duration)",
        )
    })?;
    let count = t.optional("count", |e| {
        t.integer(
            e,
            "an integer number of identical flows",
            2,
            1,
            u32::MAX.into(),
        )
    })?;
    let receive_window = t.optional("receive_window", |e| {
        t.bytes(
            e,
            "a receive window of at least 1 byte, such as \"75KB\" (leave receive_window out for no cap)",
        )
    })?;
    let max_ack_delay = t.optional("max_ack_delay", |e| t.positive_duration(e, "1ms"))?;
    let ack_every = t.optional("ack_eliciting_threshold", |e| {
        t.integer(
            e,
            "a whole number of ack-eliciting packets per ACK",
            10,
            1,
            MAX_ACK_EVERY,
        )
    })?;
    let receiver = t.optional("receiver", |e| receiver(&t, e, &controller))?;
    let under_test = t.optional("under_test", |e| match e.value.kind {
        Kind::Bool(on) => Ok(on),
        _ => Err(t.type_error(e, "true or false")),
    })?;
    let receiver_lies = t.optional("receiver_lies", |e| {
        receiver_lies(&t, e, receiver.unwrap_or_default(), &controller)
    })?;
    let flow = Flow {
        controller,
        path,
        start,
        bytes,
        count: count.map_or(1, |c| c as u32),
        receive_window,
        max_ack_delay,
        ack_every: ack_every.map(|n| n as u32),
        receiver: receiver.unwrap_or_default(),
        under_test: under_test.unwrap_or(false),
        receiver_lies,
    };
    if !flow.receiver.takes_ack_frequency() {
        no_ack_frequency(&t, flow.receiver)?;
    }
    Ok(flow)
}

/// The flow's receiving stack: one of [`Receiver::ALL`], for a flow that QUIC carries (a kernel
/// TCP flow's receiver is the kernel's).
fn receiver(t: &Table<'_>, e: &Entry, controller: &FlowController) -> Result<Receiver, Diag> {
    let names = Receiver::names();
    let list = names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(" or ");
    let name = t.non_empty_string(e, &format!("a receiver, {list}"))?;
    let Some(receiver) = Receiver::parse(name) else {
        let mut msg = format!("receiver = \"{name}\" is not a receiver; expected {list}");
        if let Some(near) = closest(name, &names) {
            msg.push_str(&format!(" (did you mean \"{near}\"?)"));
        }
        return Err(t.diag(e.value.at, msg));
    };
    if let (Some(tcp), Receiver::S2nQuic) = (controller.kernel_tcp(), receiver) {
        return Err(t.diag(
            e.value.at,
            format!(
                "receiver = \"{receiver}\" needs a QUIC flow, but {} is the kernel's TCP, whose \
                 receiver is the kernel's; remove receiver or choose a QUIC controller",
                tcp.id()
            ),
        ));
    }
    if let (Some(peer), Receiver::S2nQuic) = (controller.noq(), receiver) {
        return Err(t.diag(
            e.value.at,
            format!(
                "receiver = \"{receiver}\" cannot stand behind {peer}, whose receiver is noq's \
                 own endpoint; remove receiver or choose a quinn controller"
            ),
        ));
    }
    Ok(receiver)
}

/// A lying receiver: what it reports as ACK Delay and on which frames. The simulator hosts it
/// (a quinn receiver whose packets it sees in plaintext), so neither another stack nor the
/// kernel's TCP can lie.
fn receiver_lies(
    t: &Table<'_>,
    e: &Entry,
    receiver: Receiver,
    controller: &FlowController,
) -> Result<ReceiverLies, Diag> {
    let example = "{ ack_delay = \"queue\", when = \"on_gap\" }";
    let lies = sub_table(t, e, keys::RECEIVER_LIES, example)?;
    if receiver != Receiver::Quinn {
        return Err(t.diag(
            e.key_at,
            format!(
                "receiver_lies needs the simulator, which rewrites a quinn receiver's ACK frames, \
                 but receiver = \"{receiver}\" runs in network namespaces only; remove \
                 receiver_lies or receiver"
            ),
        ));
    }
    if let Some(tcp) = controller.kernel_tcp() {
        return Err(t.diag(
            e.key_at,
            format!(
                "receiver_lies rewrites QUIC ACK frames, but {} is the kernel's TCP; remove \
                 receiver_lies or choose a QUIC controller",
                tcp.id()
            ),
        ));
    }
    let d = lies.required("ack_delay")?;
    let ack_delay = lied_delay(&lies, d)?;
    let when = match lies.get("when") {
        None => LieWhen::Always,
        Some(w) => {
            let names = LieWhen::ALL.map(|w| format!("\"{}\"", w.id())).join(" or ");
            let name = lies.string(w, &names)?;
            LieWhen::parse(name).ok_or_else(|| {
                lies.diag(
                    w.value.at,
                    format!("when = \"{name}\" is not a mode; expected {names}"),
                )
            })?
        }
    };
    let length = match lies.get("length") {
        None => LieLength::Keep,
        Some(l) => {
            let names = LieLength::ALL
                .map(|l| format!("\"{}\"", l.id()))
                .join(" or ");
            let name = lies.string(l, &names)?;
            LieLength::parse(name).ok_or_else(|| {
                lies.diag(
                    l.value.at,
                    format!("length = \"{name}\" is not a choice; expected {names}"),
                )
            })?
        }
    };
    let line = match e.key_at {
        At::File { line, .. } => line,
        At::Override(_) => 0,
    };
    Ok(ReceiverLies {
        ack_delay,
        when,
        length,
        line,
    })
}

/// `"queue"`, or a delay that is not negative and that the ACK Delay field can hold.
fn lied_delay(lies: &Table<'_>, d: &Entry) -> Result<LiedDelay, Diag> {
    let expected = "a duration such as \"25ms\", or \"queue\"";
    let text = lies.string(d, expected)?;
    if text == "queue" {
        return Ok(LiedDelay::Queue);
    }
    if text.trim_start().starts_with('-') {
        return Err(lies.diag(
            d.value.at,
            format!(
                "ack_delay = \"{text}\" is negative; the ACK Delay field holds no sign, so \
                 expected {expected}"
            ),
        ));
    }
    let delay = lies.duration(d, "25ms")?;
    LiedDelay::constant(delay).map_err(|why| {
        lies.diag(
            d.value.at,
            format!("ack_delay = \"{text}\" is too long: {why}"),
        )
    })
}

/// A receiver that implements no ACK frequency extension cannot be asked how often to
/// acknowledge: either key would silently do nothing.
fn no_ack_frequency(t: &Table<'_>, receiver: Receiver) -> Result<(), Diag> {
    for key in ["max_ack_delay", "ack_eliciting_threshold"] {
        if let Some(e) = t.get(key) {
            return Err(t.diag(
                e.key_at,
                format!(
                    "{key} asks the receiver through QUIC's ACK frequency extension, which \
                     {receiver} does not implement; remove {key}, or use receiver = \"quinn\""
                ),
            ));
        }
    }
    Ok(())
}

/// When the flow starts: before the scenario ends, or it would never send.
fn flow_start(t: &Table<'_>, duration: Duration) -> Result<Duration, Diag> {
    let Some(e) = t.get("start") else {
        return Ok(Duration::ZERO);
    };
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
    Ok(start)
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
        assert_eq!(closest("rat", &keys::names(keys::LINK)), Some("rate"));
        assert_eq!(closest("dealy", &keys::names(keys::LINK)), Some("delay"));
        assert_eq!(
            closest("bernouli", &["none", "bernoulli", "burst"]),
            Some("bernoulli")
        );
        assert_eq!(closest("bandwidth", &keys::names(keys::LINK)), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
