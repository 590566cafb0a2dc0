//! The scenario format: every table's keys, what each holds, and which ones `--set` may name.
//!
//! The parser's unknown-key and missing-key messages, the overrides' checks and the overrides'
//! help text ([`override_help`]) are all read from these lists, so a key added here is accepted
//! and documented everywhere at once. The order of each list is the order of "expected one of:"
//! in messages.

/// What a key's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holds {
    /// Free text; a bare `--set` value is always taken as the text (`--set name=2`).
    Text,
    Duration,
    Integer,
    /// A rate, or a table naming a capacity trace.
    Rate,
    /// A size in bytes.
    Size,
    Probability,
    Bool,
    /// Link names, sender to receiver.
    Path,
    /// A packet limit, or a table with a limit and an AQM.
    Queue,
    /// `"none"` or a table of one of [`LOSS_MODELS`]; `--set` may name its fields one by one.
    LossModel,
    Table,
    /// An array of tables (`[[link]]`).
    Tables,
}

/// One key of a table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Key {
    pub name: &'static str,
    pub holds: Holds,
    /// What the key is for, with an example: the hint of a "missing required key" message.
    pub doc: &'static str,
    /// Whether an override (`--set`) may name it.
    pub settable: bool,
    /// Whether its table (or, for a model's keys, its model) must have it.
    pub required: bool,
}

const fn key(name: &'static str, holds: Holds, doc: &'static str) -> Key {
    Key {
        name,
        holds,
        doc,
        settable: false,
        required: false,
    }
}

/// `k`, which its table (or its model) must have.
const fn required(k: Key) -> Key {
    Key {
        required: true,
        ..k
    }
}

const fn settable(name: &'static str, holds: Holds, doc: &'static str) -> Key {
    Key {
        settable: true,
        ..key(name, holds, doc)
    }
}

/// A table whose keys depend on its `model` key (loss models, jitter).
pub(crate) struct Variant {
    pub model: &'static str,
    pub keys: &'static [Key],
}

use Holds::*;

pub(crate) const TOP: &[Key] = &[
    required(settable(
        "name",
        Text,
        "the scenario's name, e.g. \"errors-only\"",
    )),
    required(settable(
        "description",
        Text,
        "one line saying what the scenario shows",
    )),
    required(settable(
        "duration",
        Duration,
        "how long flows send, e.g. \"100s\"",
    )),
    settable(
        "seed",
        Integer,
        "the seed of every random choice, 1 if left out",
    ),
    settable("mtu", Integer, "the IP MTU in bytes, 1500 if left out"),
    settable(
        "timer_granularity",
        Duration,
        "the tick the simulator's endpoints wake for their timers on, e.g. \"1ms\" as tokio's \
         timers (simulator only); at each deadline itself if left out",
    ),
    required(key(
        "link",
        Tables,
        "at least one [[link]] table with name, rate, delay and queue",
    )),
    required(key(
        "flow",
        Tables,
        "at least one [[flow]] table with controller and path",
    )),
];

pub(crate) const LINK: &[Key] = &[
    required(key(
        "name",
        Text,
        "a unique name that flows' paths refer to, e.g. \"bottleneck\"",
    )),
    required(settable(
        "rate",
        Rate,
        "the link's rate, e.g. \"100Mbit\", or a capacity trace, e.g. { trace = \"lte.down\" }",
    )),
    required(settable(
        "delay",
        Duration,
        "one-way propagation delay, e.g. \"50ms\", or \"0s\"",
    )),
    required(settable(
        "queue",
        Queue,
        "the queue limit in packets, e.g. 50, or { limit = 1000, codel = { target = \"5ms\", interval = \"100ms\" } }",
    )),
    settable("loss", LossModel, "packet loss on the way out, none if left out"),
    settable(
        "reverse_loss",
        LossModel,
        "packet loss on the way back, none if left out",
    ),
    settable("ecn", Table, "step ECN marking, e.g. { threshold = 20 }"),
    settable(
        "jitter",
        Table,
        "extra random delay, e.g. { model = \"uniform\", max = \"10ms\" }",
    ),
    settable(
        "reorder",
        Table,
        "packets held back, e.g. { probability = 0.01, displacement = \"10ms\" }",
    ),
    settable(
        "police",
        Table,
        "a token-bucket policer, e.g. { rate = \"8Mbit\", burst = \"60KB\" }",
    ),
];

pub(crate) const FLOW: &[Key] = &[
    required(settable(
        "controller",
        Text,
        "a controller id, e.g. \"composite\"",
    )),
    required(settable(
        "path",
        Path,
        "the links the flow crosses, sender to receiver, e.g. [\"bottleneck\"]",
    )),
    settable("start", Duration, "when the flow starts, 0s if left out"),
    settable(
        "bytes",
        Size,
        "how much the flow sends, the whole duration if left out",
    ),
    settable("count", Integer, "how many identical flows, 1 if left out"),
    settable(
        "receive_window",
        Size,
        "the receiver's window cap, none if left out",
    ),
    settable(
        "max_ack_delay",
        Duration,
        "the receiver's maximum ACK delay",
    ),
    settable(
        "ack_eliciting_threshold",
        Integer,
        "ack-eliciting packets per ACK",
    ),
    settable(
        "receiver",
        Text,
        "the receiving stack, \"quinn\" (the default) or \"s2n-quic\" (namespaces only)",
    ),
    settable(
        "under_test",
        Bool,
        "whether the CLI's --controller sets this flow's controller; if no flow says true, \
         flow 0 alone is under test",
    ),
    settable(
        "receiver_lies",
        Table,
        "a receiver that lies about its ACK Delay (simulator only), e.g. { ack_delay = \"queue\", when = \"on_gap\" }",
    ),
];

/// A lying receiver's table.
pub(crate) const RECEIVER_LIES: &[Key] = &[
    key(
        "ack_delay",
        Text,
        "the ACK Delay it reports, a duration such as \"25ms\", or \"queue\" for the true delay plus the queueing its packet met",
    ),
    key(
        "when",
        Text,
        "\"always\" (every ACK frame, the default) or \"on_gap\" (frames that reveal a loss)",
    ),
    key(
        "length",
        Text,
        "\"keep\" (the field's encoded length, capping a lie it cannot hold; the default) or \"grow\" (the packet grows by the bytes the lie needs)",
    ),
];

/// A capacity trace in place of a link's rate.
pub(crate) const TRACE: &[Key] = &[required(key(
    "trace",
    Text,
    "a mahimahi trace file, relative to the scenario file, e.g. \"lte.down\"",
))];

/// A link's queue as a table.
pub(crate) const QUEUE: &[Key] = &[
    required(key(
        "limit",
        Integer,
        "the queue limit in packets, e.g. 1000",
    )),
    key("codel", Table, "CoDel, e.g. { target = \"5ms\" }"),
    key("pie", Table, "PIE, e.g. { target = \"15ms\" }"),
    key("fq_codel", Table, "FQ-CoDel, e.g. { quantum = 1514 }"),
    key("ecn", Bool, "whether the AQM marks instead of dropping"),
];

const CODEL_TARGET: Key = key("target", Duration, "CoDel's target delay, 5ms if left out");
const CODEL_INTERVAL: Key = key("interval", Duration, "CoDel's interval, 100ms if left out");
pub(crate) const CODEL: &[Key] = &[CODEL_TARGET, CODEL_INTERVAL];
pub(crate) const FQ_CODEL: &[Key] = &[
    CODEL_TARGET,
    CODEL_INTERVAL,
    key(
        "quantum",
        Integer,
        "bytes a queue sends per round, 1514 if left out",
    ),
];
pub(crate) const PIE: &[Key] = &[
    key("target", Duration, "PIE's target delay, 15ms if left out"),
    key(
        "tupdate",
        Duration,
        "PIE's update interval, 15ms if left out",
    ),
];

pub(crate) const POLICE: &[Key] = &[
    required(key("rate", Rate, "the policed rate, e.g. \"8Mbit\"")),
    required(key("burst", Size, "the bucket size, e.g. \"60KB\"")),
];

pub(crate) const ECN: &[Key] = &[required(key(
    "threshold",
    Integer,
    "mark CE when at least this many packets wait, e.g. 20",
))];

const JITTER_MODEL: Key = required(key(
    "model",
    Text,
    "\"uniform\" (with max) or \"exponential\" (with mean)",
));
const JITTER_MAX: Key = required(key(
    "max",
    Duration,
    "the largest extra delay, e.g. \"10ms\"",
));
const JITTER_MEAN: Key = required(key("mean", Duration, "the mean extra delay, e.g. \"5ms\""));
pub(crate) const JITTER: &[Key] = &[JITTER_MODEL, JITTER_MAX, JITTER_MEAN];
pub(crate) const JITTER_MODELS: &[Variant] = &[
    Variant {
        model: "uniform",
        keys: &[JITTER_MODEL, JITTER_MAX],
    },
    Variant {
        model: "exponential",
        keys: &[JITTER_MODEL, JITTER_MEAN],
    },
];

pub(crate) const REORDER: &[Key] = &[
    required(key(
        "probability",
        Probability,
        "the probability that a packet is held back, e.g. 0.01",
    )),
    required(key(
        "displacement",
        Duration,
        "how long a reordered packet is held back, e.g. \"10ms\"",
    )),
];

const LOSS_MODEL: Key = required(settable("model", Text, "the loss model's name"));
const LOSS_RATE: Key = required(settable(
    "rate",
    Probability,
    "the probability that a packet is lost, e.g. 0.01",
));
const GE_P: Key = required(settable(
    "p",
    Probability,
    "P(good -> bad) per packet, e.g. 0.01",
));
const GE_R: Key = required(settable(
    "r",
    Probability,
    "P(bad -> good) per packet, e.g. 0.3",
));
const GE_H: Key = settable(
    "h",
    Probability,
    "P(delivery | bad): the chance a packet gets through in the bad state, 0 if left out",
);
const GE_K: Key = settable(
    "k",
    Probability,
    "P(delivery | good): the chance a packet gets through in the good state (not a loss \
     rate), 1 if left out",
);
const BURST_EVERY: Key = required(settable(
    "every",
    Duration,
    "the time between bursts, e.g. \"0.5s\"",
));
const BURST_DROPS: Key = required(settable(
    "drops",
    Integer,
    "how many packets each burst loses, e.g. 4",
));
const BURST_START: Key = settable("start", Duration, "the first burst, `every` if left out");
const BURST_COUNT: Key = settable("count", Integer, "how many bursts, no end if left out");

/// Every key of any loss model: what `--set link.NAME.loss.FIELD` may name.
pub(crate) const LOSS: &[Key] = &[
    LOSS_MODEL,
    LOSS_RATE,
    GE_P,
    GE_R,
    GE_H,
    GE_K,
    BURST_EVERY,
    BURST_DROPS,
    BURST_START,
    BURST_COUNT,
];
pub(crate) const LOSS_MODELS: &[Variant] = &[
    Variant {
        model: "none",
        keys: &[LOSS_MODEL],
    },
    Variant {
        model: "bernoulli",
        keys: &[LOSS_MODEL, LOSS_RATE],
    },
    Variant {
        model: "gilbert-elliott",
        keys: &[LOSS_MODEL, GE_P, GE_R, GE_H, GE_K],
    },
    Variant {
        model: "burst",
        keys: &[
            LOSS_MODEL,
            BURST_EVERY,
            BURST_DROPS,
            BURST_START,
            BURST_COUNT,
        ],
    },
];

/// The names of `keys`, in order.
pub(crate) fn names(keys: &[Key]) -> Vec<&'static str> {
    keys.iter().map(|k| k.name).collect()
}

/// The names of the keys an override may name, in order.
pub(crate) fn settable_names(keys: &[Key]) -> Vec<&'static str> {
    keys.iter().filter(|k| k.settable).map(|k| k.name).collect()
}

/// The link keys an override replaces whole (a loss model may also be set field by field).
pub(crate) fn link_fields() -> Vec<&'static str> {
    LINK.iter()
        .filter(|k| k.settable && k.holds != LossModel)
        .map(|k| k.name)
        .collect()
}

/// The link keys holding a loss model: `loss`, `reverse_loss`.
pub(crate) fn loss_groups() -> Vec<&'static str> {
    LINK.iter()
        .filter(|k| k.holds == LossModel)
        .map(|k| k.name)
        .collect()
}

/// The variants' model names, for messages: `none, bernoulli, gilbert-elliott, burst`.
pub(crate) fn model_names(variants: &[Variant]) -> Vec<&'static str> {
    variants.iter().map(|v| v.model).collect()
}

/// Whether an override's `field` holds text, so that a bare value is never read as TOML.
pub(crate) fn is_text(field: &str) -> bool {
    [TOP, LINK, LOSS, FLOW]
        .iter()
        .flat_map(|keys| keys.iter())
        .any(|k| k.settable && k.holds == Text && k.name == field)
}

/// Every key an override may name, for messages.
pub(crate) fn override_help() -> String {
    let groups = loss_groups();
    let (first, others) = groups.split_first().expect("a link has a loss model");
    let loss: Vec<String> = names(LOSS).iter().map(|f| format!("{first}.{f}")).collect();
    format!(
        "{}, link.NAME.FIELD, flow.INDEX.FIELD, flow.*.FIELD (link FIELD: {}, {}, and the same under {}; \
         flow FIELD: {})",
        settable_names(TOP).join(", "),
        link_fields().join(", "),
        loss.join(", "),
        others.join(", "),
        settable_names(FLOW).join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_help_lists_every_settable_key() {
        assert_eq!(
            override_help(),
            "name, description, duration, seed, mtu, timer_granularity, link.NAME.FIELD, flow.INDEX.FIELD, flow.*.FIELD \
             (link FIELD: rate, delay, queue, ecn, jitter, reorder, police, loss.model, loss.rate, \
             loss.p, loss.r, loss.h, loss.k, loss.every, loss.drops, loss.start, loss.count, and the \
             same under reverse_loss; flow FIELD: controller, path, start, bytes, count, \
             receive_window, max_ack_delay, ack_eliciting_threshold, receiver, under_test, \
             receiver_lies)"
        );
    }

    #[test]
    fn text_fields_are_the_settable_text_keys() {
        for field in ["name", "description", "controller", "model", "receiver"] {
            assert!(is_text(field), "{field}");
        }
        for field in ["duration", "path", "rate", "loss", "start", "trace"] {
            assert!(!is_text(field), "{field}");
        }
    }

    #[test]
    fn every_variant_key_is_in_its_table() {
        for (all, variants) in [(LOSS, LOSS_MODELS), (JITTER, JITTER_MODELS)] {
            for v in variants {
                assert_eq!(v.keys[0].name, "model");
                for k in v.keys {
                    assert!(names(all).contains(&k.name), "{}: {}", v.model, k.name);
                }
            }
        }
    }
}
