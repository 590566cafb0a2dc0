//! A receiver that lies about its ACK Delay (`receiver_lies`): the simulator rewrites the field of
//! every application-space ACK frame it should, the sender reads the lie, and the ground truth in
//! `summary.json` says what was reported against what was true. What the sender credits of the
//! lie buys `discern` no tolerance of an AQM's drops. Neither real packet protection nor the
//! namespace runner can host it, and both say why.

mod sim_common;

use std::time::Duration;

use quinn_discern_harness::report::{LiedAcks, RunOutput};
use quinn_discern_harness::scenario::{
    Aqm, AqmKind, CoDel, LieLength, LieWhen, LiedDelay, LossModel, ReceiverLies, Scenario,
};
use quinn_discern_harness::sim::{self, PacketProtection};
use sim_common::*;

/// One flow of `controller` on a 10 Mbit/s, 40 ms path with a 1 BDP drop-tail queue and 0.5 %
/// random loss (so that frames show gaps), for 6 s, its receiver lying as `lies` says.
fn scenario(controller: &str, lies: Option<(LiedDelay, LieWhen)>) -> Scenario {
    scenario_of(controller, lies.map(|l| (l, LieLength::Keep)))
}

/// [`scenario`], with how the lie is written.
fn scenario_of(controller: &str, lies: Option<((LiedDelay, LieWhen), LieLength)>) -> Scenario {
    let mut f = flow(controller, 0, None);
    f.receiver_lies = lies.map(|((ack_delay, when), length)| ReceiverLies {
        ack_delay,
        when,
        length,
        line: 0,
    });
    let queue = bdp_packets(10.0, 40);
    let loss = quinn_discern_harness::scenario::LossModel::Bernoulli { rate: 0.005 };
    sim_common::scenario(
        "liar",
        6.0,
        7,
        vec![link("l", 10.0, 20, queue, loss)],
        vec![f],
    )
}

fn run(s: &Scenario) -> RunOutput {
    let out = sim::run(s).expect("run");
    assert!(
        out.summary.flows[0].bytes_delivered > 1_000_000,
        "{}",
        s.name
    );
    out
}

fn lied(out: &RunOutput) -> &LiedAcks {
    assert_eq!(out.summary.receiver_lies.len(), 1);
    &out.summary.receiver_lies[0]
}

#[test]
fn an_honest_receiver_has_no_record_and_the_oracle_rewrites_every_frame_up_to_the_cap() {
    let honest = run(&scenario("newreno", None));
    assert!(honest.summary.receiver_lies.is_empty());
    let json = serde_json::to_string(&honest.summary).expect("summary serializes");
    assert!(!json.contains("receiver_lies"), "{json}");

    let oracle = run(&scenario(
        "newreno",
        Some((LiedDelay::Queue, LieWhen::Always)),
    ));
    let l = lied(&oracle);
    // Every receiver datagram walked to its end, every frame rewritten.
    assert_eq!(l.unparsed, 0, "{l:?}");
    assert!(l.frames > 500, "{l:?}");
    assert_eq!(l.rewritten, l.frames, "{l:?}");
    // A 1 BDP queue under NewReno holds packets: the lie adds queueing, up to quinn's 25 ms.
    assert!(l.lie_mean_us > 100.0, "{l:?}");
    assert!(l.lie_max_us <= 25_000, "{l:?}");
    assert!(l.reported_delay_mean_us > l.true_delay_mean_us, "{l:?}");
    assert_eq!(l.flow, 0);
    assert!(l.lie.contains("\"queue\""), "{}", l.lie);
}

#[test]
fn a_lie_kept_to_the_field_s_length_is_mostly_capped_and_one_that_grows_is_told_whole() {
    let oracle = (LiedDelay::Queue, LieWhen::Always);
    let kept = run(&scenario_of("newreno", Some((oracle, LieLength::Keep))));
    let grown = run(&scenario_of("newreno", Some((oracle, LieLength::Grow))));
    let (k, g) = (lied(&kept), lied(&grown));
    // quinn acknowledges at once, with a one-byte field: 504 us at most.
    assert!(k.capped * 2 > k.rewritten, "{k:?}");
    assert_eq!(k.grown_bytes, 0, "{k:?}");
    assert_eq!((g.capped, g.unparsed), (0, 0), "{g:?}");
    assert!(g.grown_bytes > 0, "{g:?}");
    assert!(
        g.lie_mean_us > 2.0 * k.lie_mean_us,
        "kept {k:?}, grown {g:?}"
    );
    assert!(g.lie_max_us <= 25_000 && g.lie_max_us > 504, "{g:?}");
}

/// `discern` beside `newreno` behind CoDel (RFC 8289 defaults), 20 Mbit/s, 40 ms, no random
/// loss, for 10 s: every loss is CoDel's, `discern`'s receiver lying as `lies` says.
fn behind_codel(lies: Option<ReceiverLies>) -> RunOutput {
    let mut l = link("l", 20.0, 20, 1000, LossModel::None);
    l.aqm = Some(Aqm {
        kind: AqmKind::CoDel(CoDel {
            target: Duration::from_millis(5),
            interval: Duration::from_millis(100),
        }),
        ecn: false,
    });
    let mut liar = flow("discern", 0, None);
    liar.receiver_lies = lies;
    let flows = vec![liar, flow("newreno", 0, None)];
    let s = sim_common::scenario("liar-codel", 10.0, 3, vec![l], flows);
    sim::run(&s).expect("run")
}

#[test]
fn a_receiver_that_claims_its_queue_as_ack_delay_buys_no_tolerance_of_codel_s_drops() {
    // The oracle liar reports, on every frame, the queueing its newest packet met. Every frame
    // of the bulk transfer acknowledges two packets, which the receiver owed at once, so the
    // sender credits none of it: CoDel's drops stay congestion, and newreno keeps its share.
    let oracle = ReceiverLies {
        ack_delay: LiedDelay::Queue,
        when: LieWhen::Always,
        length: LieLength::Grow,
        line: 0,
    };
    let honest = behind_codel(None);
    let lying = behind_codel(Some(oracle));
    assert!(lied(&lying).rewritten > 500, "{:?}", lied(&lying));
    let congestion_share = |o: &RunOutput| {
        let v = &o.summary.flows[0].verdicts;
        v.congestion as f64 / (v.congestion + v.random).max(1) as f64
    };
    // Credited up to a frame interval, the lie made most of them read as random.
    assert!(
        congestion_share(&honest) > 0.9,
        "{:?}",
        honest.summary.flows[0].verdicts
    );
    assert!(
        congestion_share(&lying) > 0.8,
        "{:?}",
        lying.summary.flows[0].verdicts
    );
    let peer = |o: &RunOutput| o.summary.flows[1].goodput_bps;
    assert!(
        peer(&lying) > 0.8 * peer(&honest),
        "newreno {} beside the liar, {} beside the honest receiver",
        peer(&lying),
        peer(&honest)
    );
}

#[test]
fn on_gap_rewrites_only_the_frames_that_reveal_a_loss() {
    let lie = (
        LiedDelay::Constant(Duration::from_millis(25)),
        LieWhen::OnGap,
    );
    let out = run(&scenario("newreno", Some(lie)));
    let l = lied(&out);
    assert_eq!(l.unparsed, 0, "{l:?}");
    // 0.5 % loss: some frames show a gap, most do not.
    assert!(l.rewritten > 0 && l.rewritten * 2 < l.frames, "{l:?}");
    // Each rewritten frame carries 25 ms, or the largest value its field's length holds.
    assert!(l.reported_delay_mean_us > l.true_delay_mean_us, "{l:?}");
    assert!(l.capped <= l.rewritten, "{l:?}");
}

#[test]
fn the_sender_reads_the_lie() {
    // discern reports each frame's ACK delay as it recovered it; the ground truth scores it
    // against the true delay, so a lie that reached the sender shows as error.
    let lie = (
        LiedDelay::Constant(Duration::from_millis(25)),
        LieWhen::Always,
    );
    let honest = run(&scenario("discern", None));
    let lying = run(&scenario("discern", Some(lie)));
    let error = |o: &RunOutput| {
        o.summary
            .delay_signals
            .expect("discern reports recovered delays")
            .ack_delay_error_mean_us
    };
    let l = lied(&lying);
    assert!(
        error(&lying) > error(&honest) + 0.5 * l.lie_mean_us,
        "honest {} us, lying {} us, lie {l:?}",
        error(&honest),
        error(&lying)
    );
}

#[test]
fn real_protection_and_the_namespaces_refuse_a_liar_saying_why() {
    let s = scenario("newreno", Some((LiedDelay::Queue, LieWhen::OnGap)));
    let Err(e) = sim::run_with(&s, PacketProtection::Real) else {
        panic!("a liar ran under real packet protection");
    };
    let e = e.to_string();
    assert!(
        e.contains("flow 0: receiver_lies") && e.contains("--real-crypto"),
        "{e}"
    );
    let Err(e) = quinn_discern_harness::netns::validate(&s) else {
        panic!("the namespace runner accepted a liar");
    };
    let e = e.to_string();
    assert!(
        e.contains("flow 0: receiver_lies") && e.contains("without --link netns"),
        "{e}"
    );
}
