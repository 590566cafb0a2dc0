//! The scenario format's reference, as `discern keys` prints it: every table's keys with what
//! each holds, whether it is required, whether `--set` may name it, and what it means. It is
//! read from the key lists of [`super::keys`], which the parser and the overrides read too, so
//! the reference cannot fall behind the format.

use std::fmt::Write as _;

use super::keys::{self, Holds, Key, Variant};

/// What a key of kind `holds` takes, units included.
fn unit(holds: Holds) -> &'static str {
    match holds {
        Holds::Text => "text",
        Holds::Duration => "duration: ns, us, ms, s, min (\"50ms\")",
        Holds::Integer => "integer",
        Holds::Rate => {
            "rate: bit, kbit, Mbit, Gbit, bps, kbps, Mbps, Gbps, or bytes Bps, kBps, MBps, GBps \
             (x8); at least 10kbit"
        }
        Holds::Size => "size: B, KB, MB, GB (10^3), KiB, MiB, GiB (2^10)",
        Holds::Probability => "probability from 0 to 1",
        Holds::Bool => "true or false",
        Holds::Path => "array of link names",
        Holds::Queue => "packets, or a table",
        Holds::LossModel => "table",
        Holds::Table => "table",
        Holds::Tables => "array of tables",
    }
}

/// One table's keys, under `title`.
fn table(out: &mut String, title: &str, keys: &[Key]) {
    let _ = writeln!(out, "{title}");
    let width = keys.iter().map(|k| k.name.len()).max().unwrap_or(0);
    for k in keys {
        let need = if k.required { "required" } else { "optional" };
        let set = if k.settable { ", --set" } else { "" };
        let _ = writeln!(
            out,
            "  {:width$}  {need}{set}; {}\n  {:width$}    {}",
            k.name,
            unit(k.holds),
            "",
            k.doc
        );
    }
    let _ = writeln!(out);
}

/// The models of a table with a `model` key, each with the keys it takes.
fn variants(out: &mut String, title: &str, variants: &[Variant]) {
    for v in variants {
        table(out, &format!("{title}, model = \"{}\":", v.model), v.keys);
    }
}

/// The whole reference.
pub fn reference() -> String {
    let mut out = String::from(
        "Scenario files are TOML. Every key below, by table: required or optional (with its \
         default), whether --set may name it (--set KEY=VALUE, --vary KEY=V1,V2; KEY as in \
         `link.NAME.FIELD`, `flow.INDEX.FIELD`, `flow.*.FIELD`), what it takes, and what it \
         means.\n\n",
    );
    table(&mut out, "Top level:", keys::TOP);
    table(
        &mut out,
        "[[link]] (one per link; flows name them in `path`):",
        keys::LINK,
    );
    table(
        &mut out,
        "A link's rate as a capacity trace, rate = { ... }:",
        keys::TRACE,
    );
    table(
        &mut out,
        "A link's queue as a table, queue = { ... }:",
        keys::QUEUE,
    );
    table(&mut out, "queue.codel = { ... } (RFC 8289):", keys::CODEL);
    table(&mut out, "queue.pie = { ... } (RFC 8033):", keys::PIE);
    table(
        &mut out,
        "queue.fq_codel = { ... } (RFC 8290):",
        keys::FQ_CODEL,
    );
    table(
        &mut out,
        "A link's ecn = { ... } (step marking):",
        keys::ECN,
    );
    table(
        &mut out,
        "A link's police = { ... } (token bucket):",
        keys::POLICE,
    );
    table(&mut out, "A link's reorder = { ... }:", keys::REORDER);
    variants(&mut out, "A link's jitter = { ... }", keys::JITTER_MODELS);
    variants(
        &mut out,
        "A link's loss or reverse_loss = { ... }",
        keys::LOSS_MODELS,
    );
    let _ = writeln!(
        out,
        "Gilbert-Elliott: a two-state channel, good and bad. Each packet is delivered with \
         probability k in the good state and h in the bad one, then the state turns bad with \
         probability p (from good) or good with probability r (from bad). A bad spell lasts \
         1/r packets on average, and the mean loss rate is (p (1 - h) + r (1 - k)) / (p + r). \
         With h = 0 and k = 1 (the defaults) it is Gilbert's model: every packet of a bad spell \
         lost, none of a good one.\n"
    );
    table(
        &mut out,
        "[[flow]] (one per sender and receiver; `count` copies it):",
        keys::FLOW,
    );
    let _ = writeln!(
        out,
        "Flows are numbered in file order after `count` expansion (flow 0, 1, ...) in outputs; \
         `flow.INDEX` in --set and --vary counts [[flow]] tables. --controller sets the flows \
         marked under_test = true, or flow 0 when none is."
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_of_every_table_is_in_the_reference() {
        let text = reference();
        let tables = [
            keys::TOP,
            keys::LINK,
            keys::TRACE,
            keys::QUEUE,
            keys::CODEL,
            keys::PIE,
            keys::FQ_CODEL,
            keys::ECN,
            keys::POLICE,
            keys::REORDER,
            keys::JITTER,
            keys::LOSS,
            keys::FLOW,
        ];
        for k in tables.iter().flat_map(|t| t.iter()) {
            assert!(
                text.contains(&format!("\n  {} ", k.name)),
                "{} is missing",
                k.name
            );
            assert!(text.contains(k.doc), "{}'s meaning is missing", k.name);
        }
        for model in [
            "bernoulli",
            "gilbert-elliott",
            "burst",
            "uniform",
            "exponential",
        ] {
            assert!(text.contains(&format!("model = \"{model}\"")), "{model}");
        }
        assert!(text.contains("P(delivery | good)"));
        assert!(text.contains("mean loss rate is (p (1 - h) + r (1 - k)) / (p + r)"));
    }

    #[test]
    fn required_keys_say_so() {
        let text = reference();
        let line = |name: &str| {
            text.lines()
                .find(|l| l.trim_start().starts_with(&format!("{name} ")))
                .unwrap_or_else(|| panic!("no line for {name}"))
                .to_string()
        };
        assert!(line("description").contains("required"));
        assert!(line("seed").contains("optional"));
        assert!(line("mtu").contains("optional"));
        assert!(line("start").contains("optional"));
    }
}
