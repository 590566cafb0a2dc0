//! Tests of the scenario parser: valid files, defaults, every error message, overrides.

use std::path::Path;
use std::time::Duration;

use proptest::prelude::*;

use super::*;
use crate::units::{BitRate, Bytes};

const ORIGIN: &str = "scenarios/x.toml";

/// Two links and two flows; line numbers matter to the tests below.
const VALID: &str = r#"name = "errors-only"
description = "paper 004 topology 1: random errors, no congestion"
duration = "100s"

[[link]]
name = "access"
rate = "1Gbit"
delay = "1ms"
queue = 1000

[[link]]
name = "bottleneck"
rate = "100Mbit"
delay = "50ms"
queue = 50
loss = { model = "bernoulli", rate = 0.001 }

[[flow]]
controller = "composite"
path = ["access", "bottleneck"]

[[flow]]
controller = "reno"
path = ["bottleneck"]
start = "10s"
bytes = "1.6MB"
count = 3
"#;

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    Scenario::from_toml(text, ORIGIN, &[])
}

fn err(text: &str) -> String {
    match parse(text) {
        Ok(s) => panic!("expected an error, got {s:?}"),
        Err(e) => e.to_string(),
    }
}

fn overrides(sets: &[&str]) -> Vec<Override> {
    sets.iter().map(|s| s.parse().unwrap()).collect()
}

fn with(sets: &[&str]) -> Scenario {
    Scenario::from_toml(VALID, ORIGIN, &overrides(sets)).unwrap()
}

fn with_err(sets: &[&str]) -> String {
    match Scenario::from_toml(VALID, ORIGIN, &overrides(sets)) {
        Ok(s) => panic!("expected an error, got {s:?}"),
        Err(e) => e.to_string(),
    }
}

/// `VALID` with the first occurrence of `from` replaced by `to`.
fn edit(from: &str, to: &str) -> String {
    assert!(VALID.contains(from), "{from:?} is not in the test scenario");
    VALID.replacen(from, to, 1)
}

#[test]
fn parses_a_valid_scenario() {
    let s = parse(VALID).unwrap();
    assert_eq!(s.name, "errors-only");
    assert_eq!(
        s.description,
        "paper 004 topology 1: random errors, no congestion"
    );
    assert_eq!(s.duration, Duration::from_secs(100));
    assert_eq!(s.links.len(), 2);
    assert_eq!(
        s.links[1],
        Link {
            name: "bottleneck".into(),
            rate: BitRate(100_000_000),
            delay: Duration::from_millis(50),
            queue: 50,
            loss: LossModel::Bernoulli { rate: 0.001 },
            reverse_loss: LossModel::None,
            trace: None,
            aqm: None,
            police: None,
            ecn: None,
            jitter: None,
            reorder: None,
        }
    );
    assert_eq!(s.links[0].rate, BitRate(1_000_000_000));
    assert_eq!(
        s.flows[1],
        Flow {
            controller: "reno".parse().unwrap(),
            path: vec![1],
            start: Duration::from_secs(10),
            bytes: Some(Bytes(1_600_000)),
            count: 3,
            receive_window: None,
            max_ack_delay: None,
            ack_every: None,
            receiver: Receiver::Quinn,
            under_test: false,
            receiver_lies: None,
        }
    );
    assert_eq!(s.flows[0].path, vec![0, 1]);
    assert_eq!(s.flow_count(), 4);
    assert_eq!(s.source, None);
}

#[test]
fn optional_keys_take_their_defaults() {
    let s = parse(VALID).unwrap();
    assert_eq!(s.seed, 1);
    assert_eq!(s.mtu, 1500);
    assert_eq!(s.links[0].loss, LossModel::None);
    assert_eq!(s.links[0].reverse_loss, LossModel::None);
    assert_eq!(s.flows[0].start, Duration::ZERO);
    assert_eq!(s.flows[0].bytes, None);
    assert_eq!(s.flows[0].count, 1);
    assert_eq!(s.flows[0].receive_window, None);
    assert_eq!(s.flows[0].max_ack_delay, None);
}

#[test]
fn a_max_ack_delay_is_a_positive_duration() {
    let delay = |v: &str| edit("count = 3", &format!("count = 3\nmax_ack_delay = {v}"));
    assert_eq!(
        parse(&delay("\"1ms\"")).unwrap().flows[1].max_ack_delay,
        Some(Duration::from_millis(1))
    );
    let zero = err(&delay("\"0ms\""));
    assert!(
        zero.contains("max_ack_delay must be longer than 0s"),
        "{zero}"
    );
    let unitless = err(&delay("5"));
    assert!(unitless.contains("max_ack_delay"), "{unitless}");
}

#[test]
fn an_ack_eliciting_threshold_is_a_positive_packet_count() {
    let every = |v: &str| {
        edit(
            "count = 3",
            &format!("count = 3\nack_eliciting_threshold = {v}"),
        )
    };
    assert_eq!(parse(&every("10")).unwrap().flows[1].ack_every, Some(10));
    assert_eq!(parse(VALID).unwrap().flows[1].ack_every, None);
    let zero = err(&every("0"));
    assert!(
        zero.contains("ack_eliciting_threshold = 0 is out of range") && zero.contains("from 1 to"),
        "{zero}"
    );
    let text = err(&every("\"ten\""));
    assert!(text.contains("ack_eliciting_threshold"), "{text}");
}

#[test]
fn a_timer_granularity_is_a_host_timer_s_tick() {
    let tick = |v: &str| {
        edit(
            "duration = \"100s\"",
            &format!("duration = \"100s\"\ntimer_granularity = {v}"),
        )
    };
    assert_eq!(
        parse(&tick("\"1ms\"")).unwrap().timer_granularity,
        Some(Duration::from_millis(1))
    );
    assert_eq!(parse(VALID).unwrap().timer_granularity, None);
    assert_eq!(
        with(&["timer_granularity=\"500us\""]).timer_granularity,
        Some(Duration::from_micros(500))
    );
    let zero = err(&tick("\"0ms\""));
    assert!(
        zero.contains("timer_granularity must be longer than 0s"),
        "{zero}"
    );
    let long = err(&tick("\"1s\""));
    assert!(
        long.contains("timer_granularity = \"1s\" is longer than 100ms")
            && long.contains("leave it out"),
        "{long}"
    );
}

#[test]
fn a_receive_window_is_a_positive_size() {
    let window = |v: &str| edit("count = 3", &format!("count = 3\nreceive_window = {v}"));
    assert_eq!(
        parse(&window("\"75KB\"")).unwrap().flows[1].receive_window,
        Some(Bytes(75_000))
    );
    assert_eq!(
        parse(&window("73600")).unwrap().flows[1].receive_window,
        Some(Bytes(73_600))
    );
    assert_eq!(
        parse(&window("\"64KiB\"")).unwrap().flows[0].receive_window,
        None
    );
    assert_eq!(
        err(&window("\"75Kb\"")),
        "scenarios/x.toml:28:18: flow 1: bad receive_window \"75Kb\": \"Kb\" with a lower-case b \
         means bits; sizes are in bytes (B), such as 1500, 64KB, 1.6MB or 20MiB"
    );
    assert_eq!(
        err(&window("0")),
        "scenarios/x.toml:28:18: flow 1: receive_window = 0 is zero; expected a receive window of \
         at least 1 byte, such as \"75KB\" (leave receive_window out for no cap)"
    );
    assert_eq!(
        err(&window("\"0KB\"")),
        "scenarios/x.toml:28:18: flow 1: receive_window = \"0KB\" is zero; expected a receive \
         window of at least 1 byte, such as \"75KB\" (leave receive_window out for no cap)"
    );
    assert_eq!(
        err(&window("-1")),
        "scenarios/x.toml:28:18: flow 1: bad receive_window \"-1\": a size must be positive, \
         such as 1500, 64KB, 1.6MB or 20MiB"
    );
    assert_eq!(
        err(&window("7.5")),
        "scenarios/x.toml:28:18: flow 1: receive_window = 7.5 is a float; expected a size in bytes, \
         such as 1500 or \"1.6MB\" or \"20MiB\""
    );
    assert_eq!(
        err(&edit("count = 3", "count = 3\nrecieve_window = 1")),
        "scenarios/x.toml:28:1: unknown key \"recieve_window\" in [[flow]] 1; expected one of: \
         controller, path, start, bytes, count, receive_window, max_ack_delay, ack_eliciting_threshold, receiver, under_test, receiver_lies (did you mean \"receive_window\"?)"
    );
}

#[test]
fn every_loss_model_parses() {
    let text = r#"
name = "all-models"
description = "every loss model"
duration = "1min"
seed = 42
mtu = 9000

[[link]]
name = "none"
rate = "10kbit"
delay = "0s"
queue = 1
loss = { model = "none" }
reverse_loss = "none"

[[link]]
name = "bern"
rate = "2Mbps"
delay = "1.5ms"
queue = 10
loss = { model = "bernoulli", rate = 1 }
reverse_loss = { model = "bernoulli", rate = 0.5 }

[[link]]
name = "gilbert"
rate = "10kbit"
delay = "100us"
queue = 5
loss = { model = "gilbert-elliott", p = 0.01, r = 0.3 }
reverse_loss = { model = "gilbert-elliott", p = 0.1, r = 0.2, h = 0.5, k = 0.99 }

[[link]]
name = "handover"
rate = "1.5Mbit"
delay = "20ms"
queue = 100
loss = { model = "burst", every = "0.5s", drops = 4 }
reverse_loss = { model = "burst", every = "2s", drops = 1, start = "0s", count = 3 }

[[link]]
name = "dotted"
rate = "1Mbit"
delay = "1ms"
queue = 2
loss.model = "bernoulli"
loss.rate = 0.25

[[flow]]
controller = "westwood"
path = ["none", "bern", "gilbert", "handover", "dotted"]
start = "59.999999999s"
bytes = "20MiB"
"#;
    let s = parse(text).unwrap();
    assert_eq!(s.duration, Duration::from_secs(60));
    assert_eq!(s.seed, 42);
    assert_eq!(s.mtu, 9000);
    let models: Vec<_> = s
        .links
        .iter()
        .map(|l| (l.loss.clone(), l.reverse_loss.clone()))
        .collect();
    assert_eq!(models[0], (LossModel::None, LossModel::None));
    assert_eq!(
        models[1],
        (
            LossModel::Bernoulli { rate: 1.0 },
            LossModel::Bernoulli { rate: 0.5 }
        )
    );
    assert_eq!(
        models[2],
        (
            LossModel::GilbertElliott {
                p: 0.01,
                r: 0.3,
                h: 0.0,
                k: 1.0
            },
            LossModel::GilbertElliott {
                p: 0.1,
                r: 0.2,
                h: 0.5,
                k: 0.99
            }
        )
    );
    assert_eq!(
        models[3],
        (
            LossModel::Burst {
                every: Duration::from_millis(500),
                drops: 4,
                start: Duration::from_millis(500),
                count: None
            },
            LossModel::Burst {
                every: Duration::from_secs(2),
                drops: 1,
                start: Duration::ZERO,
                count: Some(3)
            }
        )
    );
    assert_eq!(models[4].0, LossModel::Bernoulli { rate: 0.25 });
    assert_eq!(s.links[0].rate, BitRate(10_000));
    assert_eq!(s.links[1].delay, Duration::from_micros(1500));
    assert_eq!(s.flows[0].path, vec![0, 1, 2, 3, 4]);
    assert_eq!(s.flows[0].bytes, Some(Bytes(20 << 20)));
    assert_eq!(s.flows[0].start, Duration::new(59, 999_999_999));
}

#[test]
fn a_zero_bernoulli_rate_means_no_loss() {
    let s = parse(&edit("rate = 0.001 }", "rate = 0.0 }")).unwrap();
    assert_eq!(s.links[1].loss, LossModel::None);
}

#[test]
fn from_file_reads_and_remembers_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ok.toml");
    std::fs::write(&path, VALID).unwrap();
    let s = Scenario::from_file(&path, &[]).unwrap();
    assert_eq!(s.source.as_deref(), Some(path.as_path()));
    assert_eq!(s.name, "errors-only");

    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, edit("queue = 50", "queue = 0")).unwrap();
    let e = Scenario::from_file(&bad, &[]).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}:15:9: link \"bottleneck\": queue = 0 is out of range; expected an integer number of packets, at least 1",
            bad.display()
        )
    );
}

#[test]
fn a_missing_file_says_so() {
    let e = Scenario::from_file(Path::new("scenarios/nope.toml"), &[]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot read scenarios/nope.toml: No such file or directory"
    );
}

#[test]
fn unknown_keys_are_named_with_the_expected_ones() {
    assert_eq!(
        err(&edit("rate = \"100Mbit\"", "rat = \"100Mbit\"")),
        "scenarios/x.toml:13:1: unknown key \"rat\" in [[link]] \"bottleneck\"; expected one of: \
         name, rate, delay, queue, loss, reverse_loss, ecn, jitter, reorder, police (did you mean \"rate\"?)"
    );
    assert_eq!(
        err(&edit(
            "duration = \"100s\"",
            "duration = \"100s\"\nsede = 2"
        )),
        "scenarios/x.toml:4:1: unknown key \"sede\" at top level; expected one of: \
         name, description, duration, seed, mtu, timer_granularity, link, flow (did you mean \"seed\"?)"
    );
    assert_eq!(
        err(&edit("count = 3", "cuont = 3")),
        "scenarios/x.toml:27:1: unknown key \"cuont\" in [[flow]] 1; expected one of: \
         controller, path, start, bytes, count, receive_window, max_ack_delay, ack_eliciting_threshold, receiver, under_test, receiver_lies (did you mean \"count\"?)"
    );
    assert_eq!(
        err(&edit("rate = 0.001 }", "rate = 0.001, p = 0.1 }")),
        "scenarios/x.toml:16:45: unknown key \"p\" in loss (bernoulli) in [[link]] \"bottleneck\"; \
         expected one of: model, rate"
    );
    // A link without a name is called by its index.
    assert_eq!(
        err(&edit("name = \"access\"\n", "").replacen("delay = \"1ms\"", "dealy = \"1ms\"", 1)),
        "scenarios/x.toml:7:1: unknown key \"dealy\" in [[link]] 0; expected one of: \
         name, rate, delay, queue, loss, reverse_loss, ecn, jitter, reorder, police (did you mean \"delay\"?)"
    );
}

#[test]
fn bad_values_say_what_was_found_and_what_is_expected() {
    assert_eq!(
        err(&edit("\"100Mbit\"", "\"-5Mbit\"")),
        "scenarios/x.toml:13:8: link \"bottleneck\": bad rate \"-5Mbit\": a rate must be positive, \
         such as 100Mbit, 1.5Mbit or 2Mbps"
    );
    assert_eq!(
        err(&edit("\"100Mbit\"", "\"fast\"")),
        "scenarios/x.toml:13:8: link \"bottleneck\": bad rate \"fast\": expected a number with a unit, \
         such as 100Mbit, 1.5Mbit or 2Mbps"
    );
    assert_eq!(
        err(&edit("\"100Mbit\"", "\"0Mbit\"")),
        "scenarios/x.toml:13:8: link \"bottleneck\": rate = \"0Mbit\" is below 10kbit, almost surely a \
         mistaken unit; a link runs at 10kbit or more, such as \"100Mbit\" or \"1.5Mbit\""
    );
    assert_eq!(
        err(&edit("\"100Mbit\"", "1e8")),
        "scenarios/x.toml:13:8: link \"bottleneck\": rate = 100000000.0 is a float; expected a rate with a \
         unit, such as \"100Mbit\", \"1.5Mbit\", \"2Mbps\" or \"2.5MBps\" (bytes)"
    );
    assert_eq!(
        err(&edit("\"100Mbit\"", "-5")),
        "scenarios/x.toml:13:8: link \"bottleneck\": bad rate \"-5\": a rate must be positive, \
         such as 100Mbit, 1.5Mbit or 2Mbps"
    );
    assert_eq!(
        err(&edit("queue = 50", "queue = \"50\"")),
        "scenarios/x.toml:15:9: link \"bottleneck\": queue = \"50\" is a string; expected an \
         integer number of packets, such as 50"
    );
    assert_eq!(
        err(&edit("\"50ms\"", "50")),
        "scenarios/x.toml:14:9: link \"bottleneck\": delay = 50 is an integer; expected a duration \
         with a unit (ns, us, ms, s, min), such as \"50ms\""
    );
    assert_eq!(
        err(&edit("\"50ms\"", "\"50\"")),
        "scenarios/x.toml:14:9: link \"bottleneck\": bad delay \"50\": a duration needs a unit \
         (ns, us, ms, s, min), such as 50ms, 1.5s or 2min"
    );
    assert_eq!(
        err(&edit("\"100s\"", "\"-1s\"")),
        "scenarios/x.toml:3:12: bad duration \"-1s\": a duration cannot be negative; expected 0s or \
         more, such as 50ms, 1.5s or 2min"
    );
    assert_eq!(
        err(&edit("\"100s\"", "\"0s\"")),
        "scenarios/x.toml:3:12: duration must be longer than 0s, such as \"100s\""
    );
    assert_eq!(
        err(&edit("\"1.6MB\"", "\"1.6Mb\"")),
        "scenarios/x.toml:26:9: flow 1: bad bytes \"1.6Mb\": \"Mb\" with a lower-case b means bits; \
         sizes are in bytes (B), such as 1500, 64KB, 1.6MB or 20MiB"
    );
    assert!(err(&edit("\"1.6MB\"", "0")).starts_with(
        "scenarios/x.toml:26:9: flow 1: bytes = 0 is zero; expected a transfer of at least 1 byte"
    ));
    assert_eq!(
        err(&edit("count = 3", "count = 0")),
        "scenarios/x.toml:27:9: flow 1: count = 0 is out of range; expected an integer number of \
         identical flows, from 1 to 4294967295"
    );
    assert_eq!(
        err(&edit("\"errors-only\"", "7")),
        "scenarios/x.toml:1:8: name = 7 is an integer; expected a name, such as \"errors-only\""
    );
    assert_eq!(
        err(&edit("\"reno\"", "\" \"")),
        "scenarios/x.toml:23:14: flow 1: controller is empty; expected a controller id, such as \"composite\""
    );
    assert_eq!(
        err(&edit("duration = \"100s\"", "duration = \"100s\"\nseed = -1")),
        "scenarios/x.toml:4:8: seed = -1 is out of range; expected a non-negative integer seed, at least 0"
    );
    assert_eq!(
        err(&edit("duration = \"100s\"", "duration = \"100s\"\nseed = \"1\"")),
        "scenarios/x.toml:4:8: seed = \"1\" is a string; expected a non-negative integer seed, such as 1"
    );
}

#[test]
fn the_mtu_must_carry_a_quic_datagram() {
    let mtu = |v: &str| {
        edit(
            "duration = \"100s\"",
            &format!("duration = \"100s\"\nmtu = {v}"),
        )
    };
    assert_eq!(parse(&mtu("1228")).unwrap().mtu, 1228);
    assert_eq!(parse(&mtu("9000")).unwrap().mtu, 9000);
    assert_eq!(
        err(&mtu("1227")),
        "scenarios/x.toml:4:7: mtu = 1227 is out of range; expected an IP MTU in bytes (QUIC needs \
         1200-byte datagrams plus 28 bytes of IPv4/UDP headers), from 1228 to 9000"
    );
    assert!(err(&mtu("9001")).contains("mtu = 9001 is out of range"));
    assert!(err(&mtu("1500.0")).contains("mtu = 1500.0 is a float; expected an IP MTU"));
}

#[test]
fn missing_keys_name_the_key_and_what_it_is_for() {
    assert_eq!(
        err(&edit("duration = \"100s\"\n", "")),
        "scenarios/x.toml:1:1: missing required key \"duration\" (how long flows send, e.g. \"100s\")"
    );
    assert_eq!(
        err(&edit("queue = 50\n", "")),
        "scenarios/x.toml:11:1: link \"bottleneck\": missing required key \"queue\" (the queue \
         limit in packets, e.g. 50, or { limit = 1000, codel = { target = \"5ms\", interval = \"100ms\" } })"
    );
    assert_eq!(
        err(&edit("path = [\"bottleneck\"]\n", "")),
        "scenarios/x.toml:22:1: flow 1: missing required key \"path\" (the links the flow crosses, \
         sender to receiver, e.g. [\"bottleneck\"])"
    );
    assert_eq!(
        err(&edit("{ model = \"bernoulli\", rate = 0.001 }", "{ rate = 0.001 }")),
        "scenarios/x.toml:16:8: link \"bottleneck\": missing required key \"model\" (one of: none, \
         bernoulli, gilbert-elliott, burst)"
    );
    let no_flows = VALID.split("[[flow]]").next().unwrap();
    assert_eq!(
        err(no_flows),
        "scenarios/x.toml:1:1: missing required key \"flow\" (at least one [[flow]] table with \
         controller and path)"
    );
    assert!(err(&edit(
        "{ model = \"bernoulli\", rate = 0.001 }",
        "{ model = \"gilbert-elliott\", r = 0.1 }"
    ))
    .starts_with("scenarios/x.toml:16:8: link \"bottleneck\": missing required key \"p\""));
    assert!(err(&edit(
        "{ model = \"bernoulli\", rate = 0.001 }",
        "{ model = \"burst\", drops = 2 }"
    ))
    .starts_with("scenarios/x.toml:16:8: link \"bottleneck\": missing required key \"every\""));
}

#[test]
fn loss_models_are_checked() {
    assert_eq!(
        err(&edit("\"bernoulli\"", "\"bernouli\"")),
        "scenarios/x.toml:16:18: link \"bottleneck\": loss model \"bernouli\" is unknown; expected \
         one of: none, bernoulli, gilbert-elliott, burst (did you mean \"bernoulli\"?)"
    );
    assert_eq!(
        err(&edit("rate = 0.001 }", "rate = 1.5 }")),
        "scenarios/x.toml:16:38: link \"bottleneck\": rate = 1.5 is out of range; expected the loss \
         rate: a probability from 0 to 1, such as 0.01"
    );
    assert!(err(&edit("rate = 0.001 }", "rate = nan }")).contains("rate = nan is out of range"));
    assert!(err(&edit("rate = 0.001 }", "rate = -0.1 }")).contains("rate = -0.1 is out of range"));
    assert!(err(&edit("rate = 0.001 }", "rate = \"1%\" }"))
        .contains("rate = \"1%\" is a string; expected the loss rate: a probability"));
    assert_eq!(
        err(&edit("loss = { model = \"bernoulli\", rate = 0.001 }", "loss = \"bernoulli\"")),
        "scenarios/x.toml:16:8: link \"bottleneck\": loss = \"bernoulli\" is a string; expected a loss \
         model such as { model = \"bernoulli\", rate = 0.01 }, or \"none\""
    );
    let burst = |fields: &str| {
        edit(
            "{ model = \"bernoulli\", rate = 0.001 }",
            &format!("{{ model = \"burst\", {fields} }}"),
        )
    };
    assert!(err(&burst("every = \"0s\", drops = 4"))
        .contains("link \"bottleneck\": every must be longer than 0s, such as \"0.5s\""));
    assert!(err(&burst("every = \"1s\", drops = 0"))
        .contains("drops = 0 is out of range; expected an integer number of packets per burst"));
    assert!(err(&burst("every = \"1s\", drops = 1, count = 0"))
        .contains("count = 0 is out of range; expected an integer number of bursts"));
    assert!(err(&burst("every = \"1s\", drops = 1, rate = 0.1"))
        .contains("unknown key \"rate\" in loss (burst) in [[link]] \"bottleneck\"; expected one of: model, every, drops, start, count"));
    assert!(err(&edit(
        "{ model = \"bernoulli\", rate = 0.001 }",
        "{ model = \"none\", rate = 0.1 }"
    ))
    .contains("unknown key \"rate\" in loss (none)"));
    assert!(err(&edit(
        "{ model = \"bernoulli\", rate = 0.001 }",
        "{ model = \"gilbert-elliott\", p = 0.1, r = 0.1, k = 2 }"
    ))
    .contains("k = 2 is out of range; expected P(delivery | good): a probability from 0 to 1"));
}

#[test]
fn paths_must_name_defined_links() {
    assert_eq!(
        err(&edit(
            "[\"access\", \"bottleneck\"]",
            "[\"access\", \"wifi\"]"
        )),
        "scenarios/x.toml:20:19: flow 0: path names link \"wifi\", which is not defined; defined \
         links: access, bottleneck"
    );
    assert_eq!(
        err(&edit("[\"access\", \"bottleneck\"]", "[]")),
        "scenarios/x.toml:20:8: flow 0: path is empty; expected an array of link names, such as [\"bottleneck\"]"
    );
    assert_eq!(
        err(&edit("[\"access\", \"bottleneck\"]", "[\"access\", \"access\"]")),
        "scenarios/x.toml:20:19: flow 0: path crosses link \"access\" twice; a path names each link once"
    );
    assert_eq!(
        err(&edit("[\"access\", \"bottleneck\"]", "[\"access\", 2]")),
        "scenarios/x.toml:20:19: flow 0: path holds 2 (an integer); expected link names, such as [\"bottleneck\"]"
    );
    assert!(err(&edit("[\"access\", \"bottleneck\"]", "{ a = 1 }"))
        .contains("flow 0: path = { a = 1 } is a table; expected an array of link names"));
    // A single name is a one-link path.
    let s = parse(&edit("[\"access\", \"bottleneck\"]", "\"access\"")).unwrap();
    assert_eq!(s.flows[0].path, vec![0]);
}

#[test]
fn a_flow_must_start_before_the_end() {
    assert_eq!(
        err(&edit("start = \"10s\"", "start = \"100s\"")),
        "scenarios/x.toml:25:9: flow 1: start = \"100s\" is not before the scenario's duration of \
         100s; the flow would never send"
    );
}

#[test]
fn link_names_are_unique_and_non_empty() {
    assert_eq!(
        err(&edit("name = \"access\"", "name = \"bottleneck\"")),
        "scenarios/x.toml:12:8: duplicate link name \"bottleneck\": already defined at line 6; link \
         names must be unique"
    );
    assert_eq!(
        err(&edit("name = \"access\"", "name = \"\"")),
        "scenarios/x.toml:6:8: link 0: name is empty; expected a link name, such as \"bottleneck\""
    );
}

#[test]
fn tables_and_arrays_of_tables_are_not_confused() {
    let text = "name = \"t\"\ndescription = \"\"\nduration = \"1s\"\n\n[link]\nname = \"a\"\n";
    assert_eq!(
        err(text),
        "scenarios/x.toml:5:1: \"link\" is a table; expected [[link]] entries (an array of tables)"
    );
    assert_eq!(
        err(&VALID.split("[[flow]]").next().unwrap().replacen(
            "duration = \"100s\"",
            "duration = \"100s\"\nflow = []",
            1
        )),
        "scenarios/x.toml:4:8: flow is empty; expected at least one [[flow]]"
    );
}

#[test]
fn syntax_errors_keep_the_toml_message_on_one_line() {
    let e = err(&edit("rate = \"100Mbit\"", "rate = \"100Mbit"));
    assert!(
        e.starts_with("scenarios/x.toml:13:16: invalid TOML: "),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
    let e = err(&edit("queue = 50\n", "queue = 50\nqueue = 60\n"));
    assert!(
        e.starts_with("scenarios/x.toml:16:1: invalid TOML: duplicate key"),
        "{e}"
    );
    let e = err("name = \n");
    assert!(e.starts_with("scenarios/x.toml:1:8: invalid TOML: "), "{e}");
}

#[test]
fn an_empty_file_is_reported_as_empty() {
    let expected =
        "scenarios/x.toml:1:1: the scenario is empty; expected name, description, duration, \
                    at least one [[link]] and one [[flow]]";
    assert_eq!(err(""), expected);
    assert_eq!(err("\n  # only a comment\n"), expected);
    let e = Scenario::from_toml("", ORIGIN, &overrides(&["name=x"])).unwrap_err();
    assert_eq!(e.to_string(), expected);
}

#[test]
fn overrides_change_top_level_values() {
    let s = with(&[
        "name=other",
        "description=\"two words\"",
        "duration=20s",
        "seed=7",
        "mtu=1280",
    ]);
    assert_eq!(s.name, "other");
    assert_eq!(s.description, "two words");
    assert_eq!(s.duration, Duration::from_secs(20));
    assert_eq!(s.seed, 7);
    assert_eq!(s.mtu, 1280);
    // A number is a valid name when the field is text.
    assert_eq!(with(&["name=42"]).name, "42");
}

#[test]
fn overrides_change_links() {
    let s = with(&[
        "link.bottleneck.rate=10Mbit",
        "link.bottleneck.delay=\"10ms\"",
        "link.access.queue=20",
        "link.access.rate=5Mbit",
    ]);
    assert_eq!(s.links[1].rate, BitRate(10_000_000));
    assert_eq!(s.links[1].delay, Duration::from_millis(10));
    assert_eq!(s.links[0].queue, 20);
    assert_eq!(s.links[0].rate, BitRate(5_000_000));
    // Untouched values stay.
    assert_eq!(s.links[1].queue, 50);
    assert_eq!(s.links[1].loss, LossModel::Bernoulli { rate: 0.001 });
}

#[test]
fn overrides_change_loss_models() {
    assert_eq!(
        with(&["link.bottleneck.loss.rate=0.01"]).links[1].loss,
        LossModel::Bernoulli { rate: 0.01 }
    );
    // A link without loss gets a Bernoulli model from a loss rate.
    assert_eq!(
        with(&["link.access.loss.rate=0.02"]).links[0].loss,
        LossModel::Bernoulli { rate: 0.02 }
    );
    assert_eq!(
        with(&["link.access.reverse_loss.rate=0.03"]).links[0].reverse_loss,
        LossModel::Bernoulli { rate: 0.03 }
    );
    // A zero rate is no loss.
    assert_eq!(
        with(&["link.bottleneck.loss.rate=0"]).links[1].loss,
        LossModel::None
    );
    // Switching model starts from the new model's own fields.
    assert_eq!(
        with(&[
            "link.bottleneck.loss.model=gilbert-elliott",
            "link.bottleneck.loss.p=0.1",
            "link.bottleneck.loss.r=0.5",
        ])
        .links[1]
            .loss,
        LossModel::GilbertElliott {
            p: 0.1,
            r: 0.5,
            h: 0.0,
            k: 1.0
        }
    );
    assert_eq!(
        with(&["link.bottleneck.loss.model=none"]).links[1].loss,
        LossModel::None
    );
    // Setting the current model again keeps its fields.
    assert_eq!(
        with(&["link.bottleneck.loss.model=bernoulli"]).links[1].loss,
        LossModel::Bernoulli { rate: 0.001 }
    );
    assert_eq!(
        with(&["link.access.loss.every=1s", "link.access.loss.drops=3"]).links[0].loss,
        LossModel::Burst {
            every: Duration::from_secs(1),
            drops: 3,
            start: Duration::from_secs(1),
            count: None
        }
    );
    assert_eq!(
        with(&["link.bottleneck.loss={ model = \"burst\", every = \"2s\", drops = 1, count = 2 }"])
            .links[1]
            .loss,
        LossModel::Burst {
            every: Duration::from_secs(2),
            drops: 1,
            start: Duration::from_secs(2),
            count: Some(2)
        }
    );
    assert_eq!(
        with(&["link.bottleneck.loss=none"]).links[1].loss,
        LossModel::None
    );
}

#[test]
fn overrides_change_flows() {
    let s = with(&[
        "flow.0.controller=modified-sack:tolerance=0.02",
        "flow.1.path=access",
        "flow.0.path=[\"bottleneck\", \"access\"]",
        "flow.0.bytes=2MB",
        "flow.1.count=5",
        "flow.0.start=1.5s",
    ]);
    assert_eq!(s.flows[0].controller, "modified-sack:tolerance=0.02");
    assert_eq!(s.flows[1].path, vec![0]);
    assert_eq!(s.flows[0].path, vec![1, 0]);
    assert_eq!(s.flows[0].bytes, Some(Bytes(2_000_000)));
    assert_eq!(s.flows[1].count, 5);
    assert_eq!(s.flows[0].start, Duration::from_millis(1500));
    assert_eq!(s.flows[1].controller, "reno");
    assert_eq!(s.flow_count(), 6);

    let s = with(&["flow.1.receive_window=75KB"]);
    assert_eq!(s.flows[0].receive_window, None);
    assert_eq!(s.flows[1].receive_window, Some(Bytes(75_000)));
    let s = with(&["flow.*.receive_window=73600"]);
    assert!(s
        .flows
        .iter()
        .all(|f| f.receive_window == Some(Bytes(73_600))));
    assert_eq!(
        with_err(&["flow.0.receive_window=0"]),
        "--set flow.0.receive_window=0: flow 0: receive_window = 0 is zero; expected a receive \
         window of at least 1 byte, such as \"75KB\" (leave receive_window out for no cap)"
    );

    let s = with(&["flow.*.controller=westwood", "flow.*.start=2s"]);
    assert!(s.flows.iter().all(|f| f.controller == "westwood"));
    assert!(s.flows.iter().all(|f| f.start == Duration::from_secs(2)));
}

#[test]
fn later_overrides_win() {
    let s = with(&["seed=2", "seed=3"]);
    assert_eq!(s.seed, 3);
}

#[test]
fn override_errors_name_the_override() {
    assert_eq!(
        with_err(&["link.wifi.rate=10Mbit"]),
        "--set link.wifi.rate=10Mbit: there is no link \"wifi\"; links: access, bottleneck"
    );
    assert_eq!(
        with_err(&["flow.3.controller=x"]),
        "--set flow.3.controller=x: there is no flow 3; the scenario has 2 [[flow]] entries (counted from 0)"
    );
    assert_eq!(
        with_err(&["flow.first.controller=x"]),
        "--set flow.first.controller=x: \"first\" is not a flow index; expected flow.INDEX.controller \
         with INDEX 0, 1, ... or flow.*.controller for every flow"
    );
    assert_eq!(
        with_err(&["flow.0.speed=x"]),
        "--set flow.0.speed=x: unknown flow field \"speed\"; expected flow.INDEX.FIELD or flow.*.FIELD \
         with FIELD one of: controller, path, start, bytes, count, receive_window, max_ack_delay, ack_eliciting_threshold, receiver, under_test, receiver_lies"
    );
    let e = with_err(&["link.bottleneck.bandwidth=1Mbit"]);
    assert!(
        e.starts_with("--set link.bottleneck.bandwidth=1Mbit: unknown link field in \"link.bottleneck.bandwidth\"; expected link.NAME.FIELD with FIELD one of: rate, delay, queue"),
        "{e}"
    );
    let e = with_err(&["durration=5s"]);
    assert!(
        e.starts_with("--set durration=5s: unknown key \"durration\"; expected one of: name, description, duration, seed, mtu, timer_granularity, link.NAME.FIELD, flow.INDEX.FIELD, flow.*.FIELD"),
        "{e}"
    );
    // Validation errors on overridden values name the override too.
    assert_eq!(
        with_err(&["link.bottleneck.rate=fast"]),
        "--set link.bottleneck.rate=fast: link \"bottleneck\": bad rate \"fast\": expected a number \
         with a unit, such as 100Mbit, 1.5Mbit or 2Mbps"
    );
    assert_eq!(
        with_err(&["link.bottleneck.queue=many"]),
        "--set link.bottleneck.queue=many: link \"bottleneck\": queue = \"many\" is a string; expected \
         an integer number of packets, such as 50"
    );
    assert_eq!(
        with_err(&["flow.1.path=wifi"]),
        "--set flow.1.path=wifi: flow 1: path names link \"wifi\", which is not defined; defined links: \
         access, bottleneck"
    );
    assert_eq!(
        with_err(&["link.bottleneck.loss.model=bernouli"]),
        "--set link.bottleneck.loss.model=bernouli: link \"bottleneck\": loss model \"bernouli\" is \
         unknown; expected one of: none, bernoulli, gilbert-elliott, burst (did you mean \"bernoulli\"?)"
    );
    assert_eq!(
        with_err(&["link.bottleneck.loss.p=0.1"]),
        "--set link.bottleneck.loss.p=0.1: unknown key \"p\" in loss (bernoulli) in [[link]] \
         \"bottleneck\"; expected one of: model, rate"
    );
    assert_eq!(
        with_err(&["link.access.loss.p=0.1"]),
        "--set link.access.loss.p=0.1: link \"access\": missing required key \"r\" (P(bad -> good) \
         per packet, e.g. 0.3)"
    );
    assert_eq!(
        with_err(&["duration=100"]),
        "--set duration=100: duration = 100 is an integer; expected a duration with a unit (ns, us, \
         ms, s, min), such as \"100s\""
    );
    // A value from the file that the override makes invalid still points at the file.
    assert_eq!(
        with_err(&["duration=5s"]),
        "scenarios/x.toml:25:9: flow 1: start = \"10s\" is not before the scenario's duration of 5s; \
         the flow would never send"
    );
    // A later, valid override of the same key repairs an earlier one.
    assert_eq!(with(&["seed=x", "seed=4"]).seed, 4);
}

#[test]
fn the_cli_controller_sets_flow_0_only() {
    let mut s = parse(VALID).unwrap();
    let before = s.flows[1].controller.clone();
    s.set_tested_controller(&"composite:granularity=2ms".parse().unwrap());
    assert_eq!(s.flows[0].controller, "composite:granularity=2ms");
    assert_eq!(s.flows[1].controller, before);
    assert_ne!(before, "composite:granularity=2ms");

    // A scenario whose flows all run the variant under test (a paper that ran one at a time)
    // marks them.
    let mut s = with(&["flow.*.under_test=true"]);
    s.set_tested_controller(&"westwood".parse().unwrap());
    assert!(s.flows.iter().all(|f| f.controller == "westwood"));
    let mut s = with(&["flow.1.under_test=true"]);
    s.set_tested_controller(&"westwood".parse().unwrap());
    assert_eq!(s.flows[1].controller, "westwood");
    assert_ne!(s.flows[0].controller, "westwood");
    assert!(with_err(&["flow.0.under_test=1"]).contains("expected true or false"));
}

#[test]
fn flow_count_expands_counts() {
    assert_eq!(parse(VALID).unwrap().flow_count(), 4);
    assert_eq!(with(&["flow.*.count=10"]).flow_count(), 20);
}

proptest! {
    /// Whatever prefix of a valid file is given, the parser answers with a scenario or one line
    /// that starts with the file name and a position.
    #[test]
    fn truncated_files_give_one_line_errors(cut in 0usize..VALID.len()) {
        let text = &VALID[..cut];
        if let Err(e) = parse(text) {
            let msg = e.to_string();
            prop_assert!(!msg.contains('\n'), "{}", msg);
            prop_assert!(msg.starts_with("scenarios/x.toml:"), "{}", msg);
            prop_assert!(e.position().is_some());
        }
    }

    /// Any single byte replaced by junk never panics.
    #[test]
    fn corrupted_files_never_panic(at in 0usize..VALID.len(), c in prop::sample::select(vec!['"', '[', '=', '-', '\n', 'x', '0', '{', '.'])) {
        let mut text = VALID.to_string();
        text.replace_range(at..at + 1, &c.to_string());
        if let Err(e) = parse(&text) {
            prop_assert!(!e.to_string().contains('\n'));
        }
    }

    /// Overridden rates and delays come back exactly as written.
    #[test]
    fn overridden_units_round_trip(rate in 1u64..u64::MAX, delay_ns in 0u64..(1u64 << 50)) {
        let delay = Duration::from_nanos(delay_ns);
        let s = with(&[
            &format!("link.access.rate={}", BitRate(rate)),
            &format!("link.access.delay={}", crate::units::format_duration(delay)),
        ]);
        prop_assert_eq!(s.links[0].rate, BitRate(rate));
        prop_assert_eq!(s.links[0].delay, delay);
    }
}

/// `VALID` in a temporary directory, with the bottleneck's rate and queue lines replaced by
/// `lines` (from line 14 on), and a trace file `lte.down` holding `trace` beside it.
fn with_link_lines(lines: &str, trace: &str) -> (tempfile::TempDir, Result<Scenario, String>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lte.down"), trace).unwrap();
    let path = dir.path().join("x.toml");
    let link = "rate = \"100Mbit\"\ndelay = \"50ms\"\nqueue = 50\n";
    std::fs::write(&path, edit(link, &format!("delay = \"50ms\"\n{lines}"))).unwrap();
    let r = Scenario::from_file(&path, &[]).map_err(|e| e.to_string());
    (dir, r)
}

#[test]
fn link_conditions_parse() {
    let (_dir, s) = with_link_lines(
        "rate = { trace = \"lte.down\" }\nqueue = { limit = 1000, codel = { target = \"5ms\", interval = \"100ms\" } }\n\
         ecn = { threshold = 20 }\njitter = { model = \"exponential\", mean = \"3ms\" }\n\
         reorder = { probability = 0.01, displacement = \"10ms\" }\n",
        "1\n1\n2\n",
    );
    let s = s.unwrap();
    let l = &s.links[1];
    let trace = l.trace.as_ref().unwrap();
    assert_eq!(
        (trace.file.as_str(), trace.millis.as_slice()),
        ("lte.down", &[1, 1, 2][..])
    );
    // Three 1500-byte opportunities in 2 ms: 18 Mbit/s.
    assert_eq!(l.rate, BitRate(18_000_000));
    assert_eq!(l.queue, 1000);
    assert_eq!(
        l.aqm.map(|a| a.kind),
        Some(AqmKind::CoDel(CoDel {
            target: Duration::from_millis(5),
            interval: Duration::from_millis(100)
        }))
    );
    assert_eq!(l.ecn, Some(EcnMarking { threshold: 20 }));
    assert_eq!(
        l.jitter,
        Some(Jitter::Exponential {
            mean: Duration::from_millis(3)
        })
    );
    assert_eq!(
        l.reorder,
        Some(Reorder {
            probability: 0.01,
            displacement: Duration::from_millis(10)
        })
    );
    // CoDel's parameters default to RFC 8289's.
    let (_dir, s) = with_link_lines(
        "rate = \"1Mbit\"\nqueue = { limit = 100, codel = {} }\n",
        "1\n",
    );
    assert_eq!(
        s.unwrap().links[1].aqm,
        Some(Aqm {
            kind: AqmKind::CoDel(CoDel {
                target: Duration::from_millis(5),
                interval: Duration::from_millis(100)
            }),
            ecn: false
        })
    );
}

#[test]
fn bad_link_conditions_name_file_line_and_key() {
    let bad = |lines: &str, trace: &str| {
        let (dir, r) = with_link_lines(lines, trace);
        let e = r.expect_err("expected an error");
        e.replace(&dir.path().display().to_string(), "DIR")
    };
    assert_eq!(
        bad("queue = 50\nrate = { trace = \"nope.down\" }\n", "1\n"),
        "DIR/x.toml:15:18: link \"bottleneck\": rate: cannot read trace file \"nope.down\": No such file or directory"
    );
    assert_eq!(
        bad("queue = 50\nrate = { trace = \"lte.down\" }\n", "\n"),
        "DIR/x.toml:15:18: link \"bottleneck\": rate: trace file \"lte.down\" is empty; expected one delivery time in milliseconds per line (mahimahi format)"
    );
    assert_eq!(
        bad("queue = 50\nrate = { trace = \"lte.down\" }\n", "1\n5\n4\n"),
        "DIR/x.toml:15:18: link \"bottleneck\": rate: trace file \"lte.down\" line 3: 4 ms comes after 5 ms on line 2; timestamps must not decrease"
    );
    assert_eq!(
        bad("rate = \"1Mbit\"\nqueue = { limit = 10, codel = { target = \"0ms\" } }\n", "1\n"),
        "DIR/x.toml:15:42: link \"bottleneck\": queue: codel: target must be longer than 0s, such as \"5ms\""
    );
    assert_eq!(
        bad("rate = \"1Mbit\"\nqueue = 50\nreorder = { probability = 1.5, displacement = \"5ms\" }\n", "1\n"),
        "DIR/x.toml:16:27: link \"bottleneck\": reorder: probability = 1.5 is out of range; expected the reordering probability: a probability from 0 to 1, such as 0.01"
    );
    assert_eq!(
        bad("rate = \"1Mbit\"\nqueue = 50\necn = { threshold = -1 }\n", "1\n"),
        "DIR/x.toml:16:21: link \"bottleneck\": ecn: threshold = -1 is out of range; expected an integer number of waiting packets, at least 0"
    );
    assert_eq!(
        bad("rate = \"1Mbit\"\nqueue = 50\njitter = { model = \"normal\", mean = \"1ms\" }\n", "1\n"),
        "DIR/x.toml:16:20: link \"bottleneck\": jitter: model \"normal\" is unknown; expected \"uniform\" or \"exponential\""
    );
}

#[test]
fn pie_ecn_and_a_policer_parse_with_the_rfc_defaults() {
    let (_dir, s) = with_link_lines(
        "rate = \"50Mbit\"\nqueue = { limit = 100, fq_codel = {} }\n",
        "1\n",
    );
    assert_eq!(
        s.unwrap().links[1].aqm.map(|a| a.kind),
        Some(AqmKind::FqCoDel(FqCoDel {
            codel: CoDel {
                target: Duration::from_millis(5),
                interval: Duration::from_millis(100)
            },
            quantum: 1514
        }))
    );
    let (_dir, s) = with_link_lines(
        "rate = \"50Mbit\"\nqueue = { limit = 100, pie = {}, ecn = true }\npolice = { rate = \"8Mbit\", burst = \"60KB\" }\n",
        "1\n",
    );
    let l = &s.unwrap().links[1];
    assert_eq!(
        l.aqm,
        Some(Aqm {
            kind: AqmKind::Pie(Pie {
                target: Duration::from_millis(15),
                tupdate: Duration::from_millis(15)
            }),
            ecn: true
        })
    );
    assert_eq!(
        l.police,
        Some(Policer {
            rate: BitRate(8_000_000),
            burst: Bytes(60_000)
        })
    );
}

#[test]
fn bad_aqm_and_policer_values_name_file_line_and_key() {
    let bad = |lines: &str| {
        let (dir, r) = with_link_lines(lines, "1\n");
        let e = r.expect_err("expected an error");
        e.replace(&dir.path().display().to_string(), "DIR")
    };
    let cases = [
        (
            "queue = { limit = 10, pie = { target = \"0ms\" } }\n",
            "pie: target must be longer than 0s",
        ),
        (
            "queue = { limit = 10, pie = { tupdate = \"0ms\" } }\n",
            "pie: tupdate must be longer than 0s",
        ),
        (
            "queue = { limit = 10, pie = { alpha = 1 } }\n",
            "unknown key \"alpha\"",
        ),
        (
            "queue = { limit = 10, pie = {}, codel = {} }\n",
            "one AQM: codel, pie or fq_codel",
        ),
        (
            "queue = { limit = 10, ecn = true }\n",
            "ecn = true marks where an AQM would drop",
        ),
        (
            "queue = { limit = 10, codel = {}, ecn = 1 }\n",
            "true or false",
        ),
        (
            "queue = 10\npolice = { rate = \"0Mbit\", burst = \"60KB\" }\n",
            "rate = \"0Mbit\" is below 10kbit",
        ),
        (
            "queue = 10\npolice = { rate = \"8Mbit\", burst = \"1KB\" }\n",
            "smaller than one 1500-byte packet",
        ),
        ("queue = 10\npolice = { rate = \"8Mbit\" }\n", "burst"),
        (
            "queue = { limit = 10, fq_codel = { quantum = 100 } }\n",
            "quantum = 100 is out of range",
        ),
        (
            "queue = { limit = 10, fq_codel = { target = \"0s\" } }\n",
            "fq_codel: target must be longer than 0s",
        ),
        (
            "queue = { limit = 10, fq_codel = {}, codel = {} }\n",
            "one AQM: codel, pie or fq_codel",
        ),
    ];
    for (lines, expected) in cases {
        let e = bad(&format!("rate = \"1Mbit\"\n{lines}"));
        assert!(e.starts_with("DIR/x.toml:1"), "{e}");
        assert!(e.contains("\"bottleneck\""), "{e}");
        assert!(e.contains(expected), "{lines}: {e}");
    }
}

#[test]
fn overrides_set_link_conditions_whole() {
    let s = with(&[
        "link.bottleneck.ecn={ threshold = 12 }",
        "link.bottleneck.queue={ limit = 300, codel = { target = \"2ms\" } }",
        "link.bottleneck.reorder={ probability = 0.02, displacement = \"4ms\" }",
    ]);
    let l = &s.links[1];
    assert_eq!(l.ecn, Some(EcnMarking { threshold: 12 }));
    assert_eq!(l.queue, 300);
    assert!(matches!(
        l.aqm.unwrap().kind,
        AqmKind::CoDel(CoDel { target, .. }) if target == Duration::from_millis(2)
    ));
    assert_eq!(l.reorder.unwrap().probability, 0.02);
    let e = with_err(&["link.bottleneck.reorder={ probability = 2, displacement = \"4ms\" }"]);
    assert!(
        e.starts_with("--set link.bottleneck.reorder=")
            && e.contains("probability = 2 is out of range"),
        "{e}"
    );
}

#[test]
fn controllers_are_resolved_when_the_scenario_loads() {
    let s = with(&[]);
    assert!(matches!(s.flows[0].controller, FlowController::Quic(_)));
    let e = err(&edit(
        "controller = \"composite\"",
        "controller = \"vegas\"",
    ));
    assert!(
        e.starts_with("scenarios/x.toml:19:14: flow 0: unknown controller \"vegas\""),
        "{e}"
    );
    let e = err(&edit(
        "controller = \"composite\"",
        "controller = \"veno:beta=-1\"",
    ));
    assert!(
        e.contains("flow 0: ") && e.contains("veno") && e.contains("beta"),
        "{e}"
    );
    let e = with_err(&["flow.1.controller=vegas"]);
    assert!(e.contains("unknown controller \"vegas\""), "{e}");
    let tcp = with(&["flow.*.controller=tcp-bbr"]);
    assert!(tcp
        .flows
        .iter()
        .all(|f| f.controller.kernel_tcp().is_some()));
}

#[test]
fn a_receiver_is_quinn_unless_named() {
    let receiver = |v: &str| edit("count = 3", &format!("count = 3\nreceiver = {v}"));
    let s = parse(&receiver("\"s2n-quic\"")).unwrap();
    assert_eq!(s.flows[1].receiver, Receiver::S2nQuic);
    assert_eq!(s.flows[0].receiver, Receiver::Quinn);
    assert_eq!(
        with(&["flow.*.receiver=s2n-quic"]).flows[0].receiver,
        Receiver::S2nQuic
    );
    assert_eq!(
        err(&receiver("\"s2n\"")),
        "scenarios/x.toml:28:12: flow 1: receiver = \"s2n\" is not a receiver; expected \"quinn\" \
         or \"s2n-quic\""
    );
    let typo = err(&receiver("\"s2n-quik\""));
    assert!(typo.ends_with("(did you mean \"s2n-quic\"?)"), "{typo}");
    let number = err(&receiver("2"));
    assert!(
        number.contains("receiver = 2 is an integer; expected a receiver"),
        "{number}"
    );
}

#[test]
fn s2n_quic_receives_quic_flows_that_ask_for_no_ack_frequency() {
    let tcp = err(&edit(
        "controller = \"reno\"",
        "controller = \"tcp-cubic\"\nreceiver = \"s2n-quic\"",
    ));
    assert!(
        tcp.starts_with(
            "scenarios/x.toml:24:12: flow 1: receiver = \"s2n-quic\" needs a QUIC flow"
        ) && tcp.contains("tcp-cubic is the kernel's TCP"),
        "{tcp}"
    );
    let noq = err(&edit(
        "controller = \"reno\"",
        "controller = \"noq-bbr3\"\nreceiver = \"s2n-quic\"",
    ));
    assert!(
        noq.starts_with("scenarios/x.toml:24:12: flow 1: receiver = \"s2n-quic\" cannot stand")
            && noq.contains("noq-bbr3, whose receiver is noq's own endpoint"),
        "{noq}"
    );
    for key in ["max_ack_delay = \"1ms\"", "ack_eliciting_threshold = 10"] {
        let e = err(&edit(
            "count = 3",
            &format!("count = 3\nreceiver = \"s2n-quic\"\n{key}"),
        ));
        let name = key.split(' ').next().unwrap();
        assert!(
            e.starts_with(&format!(
                "scenarios/x.toml:29:1: flow 1: {name} asks the receiver"
            )) && e.contains("s2n-quic does not implement")
                && e.contains("use receiver = \"quinn\""),
            "{e}"
        );
    }
}

/// `2.5MBps` was read as 2.5 Mbit/s, and a bare number as bit/s: a byte unit is 8 bits, a bare
/// number names the units, and a rate too low to be meant is refused, from the file and from
/// `--set` and `--vary` alike.
#[test]
fn rates_are_strict_about_units() {
    let s = parse(&edit("\"100Mbit\"", "\"2.5MBps\"")).unwrap();
    assert_eq!(s.links[1].rate, BitRate(20_000_000));
    assert_eq!(
        with(&["link.bottleneck.rate=2.5MBps"]).links[1].rate,
        BitRate(20_000_000)
    );
    assert_eq!(
        with(&["link.bottleneck.rate=2.5Mbps"]).links[1].rate,
        BitRate(2_500_000)
    );

    let bare = err(&edit("\"100Mbit\"", "10000000"));
    assert!(bare.starts_with("scenarios/x.toml:13:8: "), "{bare}");
    assert!(
        bare.contains("a rate needs a unit (bit, kbit, Mbit"),
        "{bare}"
    );
    let set = with_err(&["link.bottleneck.rate=10"]);
    assert!(set.starts_with("--set link.bottleneck.rate=10: "), "{set}");
    assert!(set.contains("a rate needs a unit"), "{set}");
    let varied = Override::varied("link.bottleneck.rate", "10");
    let vary = Scenario::from_toml(VALID, ORIGIN, &[varied])
        .unwrap_err()
        .to_string();
    assert!(
        vary.starts_with("--vary link.bottleneck.rate=10: "),
        "{vary}"
    );

    let slow = with_err(&["link.bottleneck.rate=9999bit"]);
    assert!(
        slow.contains("is below 10kbit, almost surely a mistaken unit"),
        "{slow}"
    );
    assert_eq!(
        with(&["link.bottleneck.rate=10kbit"]).links[1].rate,
        BitRate(10_000)
    );
}

#[test]
fn a_receiver_lies_only_where_asked_and_as_typed() {
    let lies = |v: &str| edit("count = 3", &format!("count = 3\nreceiver_lies = {v}"));
    let s = parse(&lies("{ ack_delay = \"25ms\", when = \"on_gap\" }")).unwrap();
    assert_eq!(s.flows[0].receiver_lies, None);
    assert_eq!(
        s.flows[1].receiver_lies,
        Some(ReceiverLies {
            ack_delay: LiedDelay::Constant(Duration::from_millis(25)),
            when: LieWhen::OnGap,
            length: LieLength::Keep,
            line: 28,
        })
    );
    let oracle = parse(&lies("{ ack_delay = \"queue\" }")).unwrap();
    let oracle = oracle.flows[1].receiver_lies.unwrap();
    assert_eq!(
        (oracle.ack_delay, oracle.when),
        (LiedDelay::Queue, LieWhen::Always)
    );
    assert_eq!(
        oracle.to_string(),
        "receiver_lies = { ack_delay = \"queue\", when = \"always\", length = \"keep\" }"
    );
    let grow = parse(&lies("{ ack_delay = \"25ms\", length = \"grow\" }")).unwrap();
    assert_eq!(
        grow.flows[1].receiver_lies.map(|l| l.length),
        Some(LieLength::Grow)
    );
    let set = with(&["flow.0.receiver_lies={ ack_delay = \"1ms\" }"]);
    assert_eq!(
        set.flows[0].receiver_lies.map(|l| (l.ack_delay, l.line)),
        Some((LiedDelay::Constant(Duration::from_millis(1)), 0))
    );
}

#[test]
fn a_lie_that_cannot_be_told_is_an_error_at_its_line() {
    let lies = |v: &str| edit("count = 3", &format!("count = 3\nreceiver_lies = {v}"));
    assert_eq!(
        err(&lies("{ ack_delay = \"25ms\", when = \"sometimes\" }")),
        "scenarios/x.toml:28:46: flow 1: receiver_lies: when = \"sometimes\" is not a mode; \
         expected \"always\" or \"on_gap\""
    );
    assert_eq!(
        err(&lies("{ ack_delay = \"queue\", length = \"long\" }")),
        "scenarios/x.toml:28:49: flow 1: receiver_lies: length = \"long\" is not a choice; \
         expected \"keep\" or \"grow\""
    );
    let negative = err(&lies("{ ack_delay = \"-5ms\" }"));
    assert!(
        negative.starts_with(
            "scenarios/x.toml:28:31: flow 1: receiver_lies: ack_delay = \"-5ms\" is negative"
        ),
        "{negative}"
    );
    let missing = err(&lies("{ when = \"always\" }"));
    assert!(
        missing.contains("missing required key \"ack_delay\""),
        "{missing}"
    );
    let unknown = err(&lies("{ ack_delay = \"queue\", delay = \"1ms\" }"));
    assert!(
        unknown.contains("unknown key \"delay\" in receiver_lies"),
        "{unknown}"
    );
    let word = err(&lies("{ ack_delay = \"a lot\" }"));
    assert!(word.contains("bad ack_delay \"a lot\""), "{word}");
    // Beyond what a duration holds (584 years), so beyond what the field holds (1.2 million
    // years, `lies.rs`).
    let huge = err(&lies("{ ack_delay = \"1000000000min\" }"));
    assert!(
        huge.starts_with("scenarios/x.toml:28:31: flow 1: receiver_lies: bad ack_delay")
            && huge.contains("too large"),
        "{huge}"
    );
    let s2n = err(&edit(
        "count = 3",
        "count = 3\nreceiver = \"s2n-quic\"\nreceiver_lies = { ack_delay = \"queue\" }",
    ));
    assert!(
        s2n.starts_with("scenarios/x.toml:29:1: flow 1: receiver_lies needs the simulator")
            && s2n.contains("receiver = \"s2n-quic\" runs in network namespaces only"),
        "{s2n}"
    );
    let tcp = err(&edit(
        "controller = \"reno\"",
        "controller = \"tcp-cubic\"\nreceiver_lies = { ack_delay = \"queue\" }",
    ));
    assert!(
        tcp.starts_with("scenarios/x.toml:24:1: flow 1: receiver_lies rewrites QUIC ACK frames"),
        "{tcp}"
    );
}
