//! The kernel shaping engine: `tc` argument lists for a link direction, the probe of what the
//! kernel has of them, the choice of engine per link, and the parsing of `tc -s qdisc`
//! statistics.
//!
//! Each impairment acts where the link model (`link/`) applies it. One direction of a link is
//! shaped on the egress of the router it leaves, in the order a packet meets them there:
//! - the policer, a `police` action on the device's `clsact` egress hook, which runs before the
//!   root qdisc: packets beyond the bucket are dropped before they reach the queue;
//! - the queue and the rate, a `tbf` root qdisc with a drop-tail queue of `queue` packets (its
//!   byte limit is `queue` full-size packets), or, for a link with an AQM, a `codel`, `pie` or
//!   `fq_codel` qdisc under the tbf (its `limit` in packets, its parameters, and `ecn` where the
//!   queue marks): CoDel drops at dequeue, PIE on arrival, as in `link/`.
//!
//! Then, on the router it reaches, the `clsact` ingress hook redirects every packet (`matchall`,
//! `mirred egress redirect`) through an `ifb` device whose `netem` root qdisc applies the
//! channel loss and the propagation delay: a packet is lost after it has used the queue and the
//! link, as `link/` loses it when it leaves the server. Gilbert-Elliott maps to netem's
//! `gemodel`.
//!
//! A link runs on the user-space engine, which runs every feature of the link model (FQ-CoDel
//! included), where the kernel lacks a qdisc, action or device the link needs ([`KernelShaping`]),
//! and where the kernel has no faithful form for one of its features: the burst (handover) loss
//! model, capacity traces, ECN step marking (only `red`/`fq_codel` mark, not at a packet
//! threshold), jitter that keeps order (netem's jitter reorders) and our reordering model
//! (netem's `reorder` sends packets early, not late).

use std::time::Duration;

use crate::scenario::{AqmKind, Link, LossModel};

/// What shapes one link (both directions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// `tc`: tbf (rate, queue) on the sender's egress, netem (loss, delay) on the receiver's
    /// ingress, in the kernel.
    Netem,
    /// The simulator's link model run in real time between two TUN devices.
    UserSpace,
}

impl Engine {
    /// The name `summary.json` gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Netem => "tc netem+tbf",
            Engine::UserSpace => "user-space link (TUN)",
        }
    }
}

fn has_netem_form(model: &LossModel) -> bool {
    !matches!(model, LossModel::Burst { .. })
}

/// Which of the qdiscs and actions the tc engine emits this kernel has: probed once a run
/// ([`KernelShaping::probe`]), as a kernel may have sch_netem and lack, say, sch_pie, and a
/// link that needs it then fails at `tc qdisc add`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KernelShaping {
    pub netem: bool,
    pub tbf: bool,
    pub codel: bool,
    pub pie: bool,
    pub fq_codel: bool,
    /// The `clsact` qdisc, the `matchall` classifier and the `police` action.
    pub police: bool,
    /// An `ifb` device, and the `clsact` qdisc, the `matchall` classifier and the `mirred`
    /// action that redirect a device's ingress through it.
    pub ifb: bool,
}

impl KernelShaping {
    /// A kernel with all of them.
    pub const ALL: Self = Self {
        netem: true,
        tbf: true,
        codel: true,
        pie: true,
        fq_codel: true,
        police: true,
        ifb: true,
    };

    /// Probes each by adding it to `dev` and deleting it again. `tc` runs a list of commands
    /// (argument lists after `tc`) whatever fails among them, as `tc -force -batch` does, and
    /// says which succeeded: one process for the whole probe, where a command each took eighteen.
    /// Every deletion runs (one of what was never added fails, and is passed over), so nothing a
    /// probe added is left behind, `clsact` without its filter included. `ip` runs one command
    /// and says whether it succeeded: it adds the `ifb` device the redirect probe needs (named
    /// `ifb`) before the batch and deletes it after.
    pub fn probe(
        dev: &str,
        ifb: &str,
        tc: impl FnOnce(&[Vec<String>]) -> Vec<bool>,
        mut ip: impl FnMut(&[String]) -> bool,
    ) -> Self {
        let root = |qdisc: &[&str]| {
            let mut cmd = words(&["qdisc", "add", "dev", dev, "root"]);
            cmd.extend(words(qdisc));
            vec![cmd]
        };
        let del_root = words(&["qdisc", "del", "dev", dev, "root"]);
        let del_clsact = words(&["qdisc", "del", "dev", dev, "clsact"]);
        let police = crate::scenario::Policer {
            rate: crate::units::BitRate(1_000_000),
            burst: crate::units::Bytes(10_000),
        };
        let ifb_added = ip(&words(&["link", "add", ifb, "type", "ifb"]));
        let mut probes = vec![
            (root(&["netem", "delay", "1ms"]), del_root.clone()),
            (
                root(&["tbf", "rate", "1mbit", "burst", "10000", "limit", "10000"]),
                del_root.clone(),
            ),
            (root(&["codel"]), del_root.clone()),
            (root(&["pie"]), del_root.clone()),
            (root(&["fq_codel"]), del_root),
            (police_commands(dev, police), del_clsact.clone()),
        ];
        if ifb_added {
            probes.push((vec![clsact(dev), redirect_filter(dev, ifb)], del_clsact));
        }
        let mut lines = Vec::new();
        let mut adds = Vec::new();
        for (add, del) in probes {
            adds.push(lines.len()..lines.len() + add.len());
            lines.extend(add);
            lines.push(del);
        }
        let ok = tc(&lines);
        let has = |k: usize| {
            adds.get(k)
                .is_some_and(|r| r.clone().all(|i| ok.get(i).copied().unwrap_or(false)))
        };
        if ifb_added {
            ip(&words(&["link", "del", ifb]));
        }
        Self {
            netem: has(0),
            tbf: has(1),
            codel: has(2),
            pie: has(3),
            fq_codel: has(4),
            police: has(5),
            ifb: ifb_added && has(6),
        }
    }

    /// Whether the kernel has every qdisc, action and device [`end_commands`] needs for `link`.
    pub fn shapes(&self, link: &Link) -> bool {
        let aqm = match link.aqm.map(|a| a.kind) {
            None => true,
            Some(AqmKind::CoDel(_)) => self.codel,
            Some(AqmKind::Pie(_)) => self.pie,
            Some(AqmKind::FqCoDel(_)) => self.fq_codel,
        };
        self.netem && self.tbf && self.ifb && aqm && (link.police.is_none() || self.police)
    }
}

/// How long after a tc link is made its AQM first acts. Linux's `sch_pie` arms its first
/// probability update half a second after the qdisc is made (`pie_init`: `jiffies + HZ / 2`),
/// and drops nothing until then; a flow that started sooner would meet a plain drop-tail queue
/// of PIE's `limit` for the rest of that half second, where RFC 8033's PIE (and the simulator's)
/// updates from the first `tupdate`. CoDel and FQ-CoDel act from the first packet.
pub fn aqm_wakes_after(link: &Link) -> Duration {
    match link.aqm.map(|a| a.kind) {
        Some(AqmKind::Pie(_)) => Duration::from_millis(500),
        _ => Duration::ZERO,
    }
}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

/// The engine for `link` on a kernel with `kernel`'s shaping: the tc engine where the kernel
/// has all the link needs and each of its features has a faithful kernel form, the user-space
/// engine (which runs them all) otherwise.
pub fn engine_for(link: &Link, kernel: KernelShaping) -> Engine {
    let kernel_form = has_netem_form(&link.loss)
        && has_netem_form(&link.reverse_loss)
        && link.trace.is_none()
        && link.ecn.is_none()
        && link.jitter.is_none()
        && link.reorder.is_none();
    if kernel_form && kernel.shapes(link) {
        Engine::Netem
    } else {
        Engine::UserSpace
    }
}

fn pct(p: f64) -> String {
    format!("{}%", p * 100.0)
}

/// netem's `loss ...` arguments for a model (empty for none).
pub fn netem_loss(model: &LossModel) -> Result<Vec<String>, String> {
    Ok(match *model {
        LossModel::None => Vec::new(),
        LossModel::Bernoulli { rate } if rate <= 0.0 => Vec::new(),
        LossModel::Bernoulli { rate } => vec!["loss".into(), "random".into(), pct(rate)],
        // netem's gemodel takes p, r, then the loss probabilities in the bad (1-h) and good (1-k)
        // states, which is our model with h, k the delivery probabilities.
        LossModel::GilbertElliott { p, r, h, k } => vec![
            "loss".into(),
            "gemodel".into(),
            pct(p),
            pct(r),
            pct(1.0 - h),
            pct(1.0 - k),
        ],
        LossModel::Burst { .. } => {
            return Err("the burst loss model has no netem form".into());
        }
    })
}

/// The `tc` invocations (each an argument list after `tc`) at one end of `link`, for packets of
/// at most `mtu` bytes: the egress of `dev` shapes the direction this end sends (policer,
/// queue, rate), and its ingress, redirected through the `ifb` device `ifb` (which must exist),
/// applies the channel loss `received_loss` and the delay of the direction it receives.
pub fn end_commands(
    dev: &str,
    ifb: &str,
    link: &Link,
    received_loss: &LossModel,
    mtu: u16,
) -> Result<Vec<Vec<String>>, String> {
    let mut cmds = vec![tbf_command(dev, link, mtu)];
    cmds.push(match link.aqm {
        Some(aqm) => aqm_command(dev, link.queue, aqm.kind, aqm.ecn),
        None => drop_tail_command(dev, link.queue),
    });
    cmds.push(clsact(dev));
    if let Some(police) = link.police {
        cmds.push(police_filter(dev, police));
    }
    cmds.push(netem_command(ifb, link, received_loss, mtu)?);
    cmds.push(redirect_filter(dev, ifb));
    Ok(cmds)
}

/// The rate and the queue: a tbf root qdisc. The bucket holds two packets, or a millisecond at
/// the rate, whichever is more; the queue `queue` full-size packets waiting besides the one being
/// sent.
fn tbf_command(dev: &str, link: &Link, mtu: u16) -> Vec<String> {
    let mtu = u64::from(mtu);
    let rate = link.rate.0;
    let burst = (2 * mtu).max(rate / 8 / 1000);
    let limit = (link.queue as u64 + 1) * mtu;
    let mut cmd = words(&["qdisc", "add", "dev", dev, "root", "handle", "1:", "tbf"]);
    cmd.extend([
        "rate".into(),
        format!("{rate}bit"),
        "burst".into(),
        burst.to_string(),
        "limit".into(),
        limit.to_string(),
    ]);
    cmd
}

/// The drop-tail queue under tbf: a `pfifo` of `queue` packets besides the one tbf holds back
/// for its tokens, counted in packets as the simulator counts them (and as the AQMs' `limit`
/// counts). tbf's own `limit`, which sizes its default child, is in bytes of the frame on the
/// device, Ethernet header included, so it holds a different number of packets for every
/// datagram size.
fn drop_tail_command(dev: &str, queue: usize) -> Vec<String> {
    let mut cmd = tbf_child(dev);
    cmd.extend(["pfifo".into(), "limit".into(), packet_limit(queue)]);
    cmd
}

/// `qdisc add` of the queue under tbf's class (the drop-tail `pfifo` or an AQM), without its kind.
fn tbf_child(dev: &str) -> Vec<String> {
    words(&["qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:"])
}

/// The `limit` of the queue under tbf: `queue` packets waiting besides the one tbf holds back.
fn packet_limit(queue: usize) -> String {
    (queue + 1).to_string()
}

/// The channel loss and the propagation delay: a netem root qdisc on the receiving end's `ifb`.
fn netem_command(
    ifb: &str,
    link: &Link,
    loss: &LossModel,
    mtu: u16,
) -> Result<Vec<String>, String> {
    let mtu = u64::from(mtu);
    let delay_us = link.delay.as_micros() as u64;
    // netem's own limit counts every packet in its delay line: make it far above a
    // bandwidth-delay product, so only the tbf queue ever overflows.
    let bdp_packets =
        (link.rate.0 as f64 / 8.0 * link.delay.as_secs_f64() / mtu as f64).ceil() as u64;
    let netem_limit = (4 * bdp_packets + 2 * link.queue as u64).max(1000);
    let mut cmd = words(&["qdisc", "add", "dev", ifb, "root", "handle", "1:", "netem"]);
    cmd.extend([
        "limit".into(),
        netem_limit.to_string(),
        "delay".into(),
        format!("{delay_us}us"),
    ]);
    cmd.extend(netem_loss(loss)?);
    Ok(cmd)
}

/// The `clsact` qdisc, whose hooks hold the policer (egress) and the redirect (ingress).
fn clsact(dev: &str) -> Vec<String> {
    words(&["qdisc", "add", "dev", dev, "clsact"])
}

/// Every packet arriving on `dev` goes through `ifb` first.
fn redirect_filter(dev: &str, ifb: &str) -> Vec<String> {
    words(&[
        "filter", "add", "dev", dev, "ingress", "matchall", "action", "mirred", "egress",
        "redirect", "dev", ifb,
    ])
}

/// The AQM qdisc under the tbf. tbf's own limit then only bounds what it holds besides its
/// child; the child queues `queue` packets besides the one being sent.
///
/// Every parameter whose Linux default differs from what the scenario means, or from what the
/// simulator's model does, is written out, so that the qdisc runs the scenario and not the
/// kernel's defaults:
/// - `ecn` or `noecn` always: fq_codel marks by default, codel and pie drop, and the scenario
///   alone decides (`ecn = true` or not);
/// - CoDel's and FQ-CoDel's `ce_threshold` is left out, which is Linux's "off": the simulator
///   has no shallow marking threshold, and iproute2 has no word to say "off";
/// - PIE: `alpha 2 beta 20` are RFC 8033's 0.125 and 1.25 in Linux's units of 1/16;
///   `nobytemode`, as the simulator drops every packet with the same probability whatever its
///   size; `dq_rate_estimator`, as the simulator reads the queueing delay as the time the
///   backlog takes to drain (backlog / departure rate, RFC 8033 section 4.1), where Linux's
///   default takes the sojourn of the last packet dequeued, a delay older by that sojourn;
/// - FQ-CoDel: `flows 1024` (RFC 8290's buckets, as the simulator hashes into), and
///   `drop_batch 1`: at the limit the simulator drops one packet from the fattest flow, as the
///   RFC says, where Linux would drop up to 64 at once.
fn aqm_command(dev: &str, queue: usize, kind: AqmKind, ecn: bool) -> Vec<String> {
    let us = |d: std::time::Duration| format!("{}us", d.as_micros());
    let limit = packet_limit(queue);
    let mut cmd = tbf_child(dev);
    match kind {
        AqmKind::CoDel(c) => cmd.extend([
            "codel".into(),
            "limit".into(),
            limit,
            "target".into(),
            us(c.target),
            "interval".into(),
            us(c.interval),
        ]),
        AqmKind::Pie(p) => {
            cmd.extend([
                "pie".into(),
                "limit".into(),
                limit,
                "target".into(),
                us(p.target),
                "tupdate".into(),
                us(p.tupdate),
            ]);
            cmd.extend(words(&[
                "alpha",
                "2",
                "beta",
                "20",
                "nobytemode",
                "dq_rate_estimator",
            ]));
        }
        AqmKind::FqCoDel(f) => cmd.extend([
            "fq_codel".into(),
            "limit".into(),
            limit,
            "flows".into(),
            "1024".into(),
            "target".into(),
            us(f.codel.target),
            "interval".into(),
            us(f.codel.interval),
            "quantum".into(),
            f.quantum.to_string(),
            "drop_batch".into(),
            "1".into(),
        ]),
    }
    cmd.push(if ecn { "ecn" } else { "noecn" }.into());
    cmd
}

/// A token-bucket policer on `dev`'s egress, ahead of its root qdisc: `clsact`, then a
/// `matchall` filter whose `police` action drops what exceeds the bucket.
fn police_commands(dev: &str, police: crate::scenario::Policer) -> Vec<Vec<String>> {
    vec![clsact(dev), police_filter(dev, police)]
}

fn police_filter(dev: &str, police: crate::scenario::Policer) -> Vec<String> {
    let mut cmd = words(&[
        "filter", "add", "dev", dev, "egress", "matchall", "action", "police",
    ]);
    cmd.extend([
        "rate".into(),
        format!("{}bit", police.rate.0),
        "burst".into(),
        police.burst.0.to_string(),
        "conform-exceed".into(),
        "drop/pipe".into(),
    ]);
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::BitRate;

    fn link(loss: LossModel) -> Link {
        Link {
            name: "b".into(),
            rate: BitRate(20_000_000),
            delay: Duration::from_millis(15),
            queue: 40,
            loss,
            reverse_loss: LossModel::None,
            trace: None,
            aqm: None,
            police: None,
            ecn: None,
            jitter: None,
            reorder: None,
        }
    }

    fn joined(cmds: &[Vec<String>]) -> Vec<String> {
        cmds.iter().map(|c| c.join(" ")).collect()
    }

    /// `link/` loses a packet as it leaves the server, after the queue: here the loss is on the
    /// receiving end, behind the sender's tbf.
    #[test]
    fn bernoulli_link_is_tbf_then_netem_on_the_receivers_ifb() {
        let l = link(LossModel::Bernoulli { rate: 0.02 });
        // The tail: it receives the forward direction, with its loss.
        let cmds = end_commands("l0", "i0", &l, &l.loss, 1500).unwrap();
        assert_eq!(
            joined(&cmds),
            vec![
                "qdisc add dev l0 root handle 1: tbf rate 20000000bit burst 3000 limit 61500",
                "qdisc add dev l0 parent 1:1 handle 10: pfifo limit 41",
                "qdisc add dev l0 clsact",
                "qdisc add dev i0 root handle 1: netem limit 1000 delay 15000us loss random 2%",
                "filter add dev l0 ingress matchall action mirred egress redirect dev i0",
            ]
        );
        // The head receives the reverse direction: same rate, delay and queue, its own (here
        // no) loss.
        let rev = end_commands("l0", "i0", &l, &l.reverse_loss, 1500).unwrap();
        assert_eq!(
            rev[3].join(" "),
            "qdisc add dev i0 root handle 1: netem limit 1000 delay 15000us"
        );
    }

    #[test]
    fn gilbert_elliott_maps_to_gemodel() {
        let m = LossModel::GilbertElliott {
            p: 0.01,
            r: 0.25,
            h: 0.0,
            k: 1.0,
        };
        assert_eq!(
            netem_loss(&m).unwrap().join(" "),
            "loss gemodel 1% 25% 100% 0%"
        );
        assert!(netem_loss(&LossModel::Bernoulli { rate: 0.0 })
            .unwrap()
            .is_empty());
    }

    #[test]
    fn fast_links_get_a_bigger_bucket_and_netem_limit() {
        let mut l = link(LossModel::None);
        l.rate = BitRate(1_000_000_000);
        l.delay = Duration::from_millis(50);
        let cmds = end_commands("l3", "i3", &l, &l.loss, 1500).unwrap();
        // 1 Gbit/s x 50 ms / 1500 B = 4167 packets in flight; x4 + 2 queues.
        assert!(cmds[3].join(" ").contains("limit 16748 "));
        assert!(cmds[0].join(" ").contains("burst 125000 "));
    }

    #[test]
    fn burst_model_needs_user_space() {
        let burst = LossModel::Burst {
            every: Duration::from_millis(500),
            drops: 4,
            start: Duration::ZERO,
            count: None,
        };
        assert_eq!(
            engine_for(&link(burst.clone()), KernelShaping::ALL),
            Engine::UserSpace
        );
        assert!(netem_loss(&burst).is_err());
        let mut l = link(LossModel::None);
        l.reverse_loss = burst;
        assert_eq!(engine_for(&l, KernelShaping::ALL), Engine::UserSpace);
        assert_eq!(
            engine_for(&link(LossModel::None), KernelShaping::ALL),
            Engine::Netem
        );
        assert_eq!(
            engine_for(&link(LossModel::None), KernelShaping::default()),
            Engine::UserSpace
        );
    }

    #[test]
    fn codel_link_puts_codel_under_tbf() {
        let mut l = link(LossModel::Bernoulli { rate: 0.01 });
        l.aqm = Some(crate::scenario::Aqm {
            kind: crate::scenario::AqmKind::CoDel(crate::scenario::CoDel {
                target: Duration::from_millis(5),
                interval: Duration::from_millis(100),
            }),
            ecn: false,
        });
        assert_eq!(engine_for(&l, KernelShaping::ALL), Engine::Netem);
        assert_eq!(
            joined(&end_commands("r0-l0", "i0", &l, &l.loss, 1500).unwrap()),
            vec![
                "qdisc add dev r0-l0 root handle 1: tbf rate 20000000bit burst 3000 limit 61500",
                "qdisc add dev r0-l0 parent 1:1 handle 10: codel limit 41 target 5000us interval 100000us noecn",
                "qdisc add dev r0-l0 clsact",
                "qdisc add dev i0 root handle 1: netem limit 1000 delay 15000us loss random 1%",
                "filter add dev r0-l0 ingress matchall action mirred egress redirect dev i0",
            ]
        );
    }

    #[test]
    fn pie_with_ecn_and_a_policer_are_a_pie_qdisc_and_a_police_action() {
        let mut l = link(LossModel::None);
        l.aqm = Some(crate::scenario::Aqm {
            kind: crate::scenario::AqmKind::Pie(crate::scenario::Pie {
                target: Duration::from_millis(15),
                tupdate: Duration::from_millis(15),
            }),
            ecn: true,
        });
        l.police = Some(crate::scenario::Policer {
            rate: BitRate(8_000_000),
            burst: crate::units::Bytes(60_000),
        });
        assert_eq!(
            joined(&end_commands("r0-l0", "i0", &l, &l.loss, 1500).unwrap()),
            vec![
                "qdisc add dev r0-l0 root handle 1: tbf rate 20000000bit burst 3000 limit 61500",
                "qdisc add dev r0-l0 parent 1:1 handle 10: pie limit 41 target 15000us tupdate 15000us alpha 2 beta 20 nobytemode dq_rate_estimator ecn",
                "qdisc add dev r0-l0 clsact",
                "filter add dev r0-l0 egress matchall action police rate 8000000bit burst 60000 conform-exceed drop/pipe",
                "qdisc add dev i0 root handle 1: netem limit 1000 delay 15000us",
                "filter add dev r0-l0 ingress matchall action mirred egress redirect dev i0",
            ]
        );
    }

    fn fq_codel(l: &mut Link) {
        l.aqm = Some(crate::scenario::Aqm {
            kind: crate::scenario::AqmKind::FqCoDel(crate::scenario::FqCoDel {
                codel: crate::scenario::CoDel {
                    target: Duration::from_millis(5),
                    interval: Duration::from_millis(100),
                },
                quantum: 1514,
            }),
            ecn: false,
        });
    }

    #[test]
    fn fq_codel_is_an_fq_codel_qdisc() {
        let mut l = link(LossModel::None);
        fq_codel(&mut l);
        let lines = joined(&end_commands("r0-l0", "i0", &l, &l.loss, 1500).unwrap());
        assert_eq!(
            lines[1],
            "qdisc add dev r0-l0 parent 1:1 handle 10: fq_codel limit 41 flows 1024 target 5000us interval 100000us quantum 1514 drop_batch 1 noecn"
        );
        assert_eq!(engine_for(&l, KernelShaping::ALL), Engine::Netem);
        let no_fq_codel = KernelShaping {
            fq_codel: false,
            ..KernelShaping::ALL
        };
        assert_eq!(engine_for(&l, no_fq_codel), Engine::UserSpace);
    }

    /// Linux's fq_codel marks by default and codel and pie drop: each line says what the
    /// scenario says, `ecn` with `ecn = true`, `noecn` without.
    #[test]
    fn every_aqm_line_says_ecn_or_noecn_as_the_scenario_does() {
        let codel = crate::scenario::CoDel {
            target: Duration::from_millis(5),
            interval: Duration::from_millis(100),
        };
        let kinds = [
            AqmKind::CoDel(codel),
            AqmKind::Pie(crate::scenario::Pie {
                target: Duration::from_millis(15),
                tupdate: Duration::from_millis(15),
            }),
            AqmKind::FqCoDel(crate::scenario::FqCoDel {
                codel,
                quantum: 1514,
            }),
        ];
        for kind in kinds {
            for ecn in [false, true] {
                let line = aqm_command("d", 40, kind, ecn);
                let said: Vec<&str> = line
                    .iter()
                    .map(String::as_str)
                    .filter(|w| *w == "ecn" || *w == "noecn")
                    .collect();
                assert_eq!(said, [if ecn { "ecn" } else { "noecn" }], "{line:?}");
                assert!(!line.iter().any(|w| w == "ce_threshold"), "{line:?}");
            }
        }
    }

    /// Linux's PIE acts only half a second after its qdisc is made; a run waits that long
    /// before its flows start, and only for a PIE link.
    #[test]
    fn flows_wait_for_a_pie_qdisc_to_act_and_for_no_other() {
        let mut l = link(LossModel::None);
        assert_eq!(aqm_wakes_after(&l), Duration::ZERO);
        let codel = crate::scenario::CoDel {
            target: Duration::from_millis(5),
            interval: Duration::from_millis(100),
        };
        for (kind, wait) in [
            (AqmKind::CoDel(codel), Duration::ZERO),
            (
                AqmKind::FqCoDel(crate::scenario::FqCoDel {
                    codel,
                    quantum: 1514,
                }),
                Duration::ZERO,
            ),
            (
                AqmKind::Pie(crate::scenario::Pie {
                    target: Duration::from_millis(15),
                    tupdate: Duration::from_millis(15),
                }),
                Duration::from_millis(500),
            ),
        ] {
            l.aqm = Some(crate::scenario::Aqm { kind, ecn: false });
            assert_eq!(aqm_wakes_after(&l), wait, "{kind:?}");
        }
    }

    #[test]
    fn the_tc_engine_needs_every_qdisc_and_action_the_link_uses() {
        let mut pie = link(LossModel::Bernoulli { rate: 0.01 });
        pie.aqm = Some(crate::scenario::Aqm {
            kind: crate::scenario::AqmKind::Pie(crate::scenario::Pie {
                target: Duration::from_millis(15),
                tupdate: Duration::from_millis(15),
            }),
            ecn: false,
        });
        let netem_only = KernelShaping {
            netem: true,
            tbf: true,
            ifb: true,
            ..KernelShaping::default()
        };
        let with = |k: KernelShaping| engine_for(&pie, k);
        assert_eq!(with(netem_only), Engine::UserSpace);
        assert_eq!(
            with(KernelShaping {
                pie: true,
                ..netem_only
            }),
            Engine::Netem
        );
        // CoDel's or FQ-CoDel's qdisc is no help to PIE.
        let others = KernelShaping {
            pie: false,
            ..KernelShaping::ALL
        };
        assert_eq!(with(others), Engine::UserSpace);
        // Nor is PIE without netem or tbf.
        assert_eq!(
            with(KernelShaping {
                netem: false,
                ..KernelShaping::ALL
            }),
            Engine::UserSpace
        );
        assert_eq!(
            with(KernelShaping {
                tbf: false,
                ..KernelShaping::ALL
            }),
            Engine::UserSpace
        );

        let mut policed = link(LossModel::None);
        policed.police = Some(crate::scenario::Policer {
            rate: BitRate(8_000_000),
            burst: crate::units::Bytes(60_000),
        });
        assert_eq!(engine_for(&policed, netem_only), Engine::UserSpace);
        let police = KernelShaping {
            police: true,
            ..netem_only
        };
        assert_eq!(engine_for(&policed, police), Engine::Netem);
        // A plain link needs netem, tbf and the ifb alone.
        assert_eq!(
            engine_for(&link(LossModel::None), netem_only),
            Engine::Netem
        );
    }

    /// The exact `tc` lines of a scenario file's links, both directions, as the tc engine would
    /// run them on the tail (which receives the forward direction) and the head (the reverse).
    #[test]
    fn tc_lines_of_a_scenario() {
        let text = r#"
            name = "tc"
            description = ""
            duration = "10s"
            [[link]]
            name = "access"
            rate = "1Gbit"
            delay = "1ms"
            queue = 1000
            [[link]]
            name = "radio"
            rate = "8Mbit"
            delay = "30ms"
            queue = { limit = 200, codel = { target = "10ms", interval = "150ms" } }
            loss = { model = "gilbert-elliott", p = 0.01, r = 0.5, h = 0.1 }
            reverse_loss = { model = "bernoulli", rate = 0.001 }
            [[flow]]
            controller = "newreno"
            path = ["access", "radio"]
        "#;
        let s = crate::scenario::Scenario::from_toml(text, "tc.toml", &[]).unwrap();
        let lines =
            |l: &Link, loss: &LossModel| joined(&end_commands("d", "i", l, loss, s.mtu).unwrap());
        let (access, radio) = (&s.links[0], &s.links[1]);
        assert!(s
            .links
            .iter()
            .all(|l| engine_for(l, KernelShaping::ALL) == Engine::Netem));
        assert_eq!(
            lines(access, &access.loss),
            vec![
                "qdisc add dev d root handle 1: tbf rate 1000000000bit burst 125000 limit 1501500",
                "qdisc add dev d parent 1:1 handle 10: pfifo limit 1001",
                "qdisc add dev d clsact",
                "qdisc add dev i root handle 1: netem limit 2336 delay 1000us",
                "filter add dev d ingress matchall action mirred egress redirect dev i",
            ]
        );
        assert_eq!(
            lines(radio, &radio.loss),
            vec![
                "qdisc add dev d root handle 1: tbf rate 8000000bit burst 3000 limit 301500",
                "qdisc add dev d parent 1:1 handle 10: codel limit 201 target 10000us interval 150000us noecn",
                "qdisc add dev d clsact",
                "qdisc add dev i root handle 1: netem limit 1000 delay 30000us loss gemodel 1% 50% 90% 0%",
                "filter add dev d ingress matchall action mirred egress redirect dev i",
            ]
        );
        assert_eq!(
            lines(radio, &radio.reverse_loss)[3],
            "qdisc add dev i root handle 1: netem limit 1000 delay 30000us loss random 0.1%"
        );
    }

    #[test]
    fn features_without_a_kernel_form_need_user_space() {
        let mut ecn = link(LossModel::None);
        ecn.ecn = Some(crate::scenario::EcnMarking { threshold: 10 });
        let mut jitter = link(LossModel::None);
        jitter.jitter = Some(crate::scenario::Jitter::Uniform {
            max: Duration::from_millis(5),
        });
        let mut reorder = link(LossModel::None);
        reorder.reorder = Some(crate::scenario::Reorder {
            probability: 0.01,
            displacement: Duration::from_millis(5),
        });
        let mut trace = link(LossModel::None);
        trace.trace = Some(crate::scenario::CapacityTrace {
            file: "t.down".into(),
            millis: std::sync::Arc::new(vec![1, 2]),
        });
        for l in [ecn, jitter, reorder, trace] {
            assert_eq!(
                engine_for(&l, KernelShaping::ALL),
                Engine::UserSpace,
                "{l:?}"
            );
        }
    }

    /// Probes against a kernel that refuses every command containing one of `missing`: the
    /// result, and the command lines run (`ip`'s prefixed).
    fn probe(missing: &[&str]) -> (KernelShaping, Vec<String>) {
        let ran = std::cell::RefCell::new(Vec::new());
        let run = |tool: &str, cmd: &[String]| {
            ran.borrow_mut().push(format!("{tool}{}", cmd.join(" ")));
            !missing.iter().any(|m| cmd.iter().any(|w| w == m))
        };
        let k = KernelShaping::probe(
            "lo",
            "p0",
            |lines| lines.iter().map(|c| run("", c)).collect(),
            |c| run("ip ", c),
        );
        (k, ran.into_inner())
    }

    #[test]
    fn probe_commands() {
        let (k, ran) = probe(&[]);
        assert_eq!(k, KernelShaping::ALL);
        assert_eq!(
            ran,
            vec![
                "ip link add p0 type ifb",
                "qdisc add dev lo root netem delay 1ms",
                "qdisc del dev lo root",
                "qdisc add dev lo root tbf rate 1mbit burst 10000 limit 10000",
                "qdisc del dev lo root",
                "qdisc add dev lo root codel",
                "qdisc del dev lo root",
                "qdisc add dev lo root pie",
                "qdisc del dev lo root",
                "qdisc add dev lo root fq_codel",
                "qdisc del dev lo root",
                "qdisc add dev lo clsact",
                "filter add dev lo egress matchall action police rate 1000000bit burst 10000 conform-exceed drop/pipe",
                "qdisc del dev lo clsact",
                "qdisc add dev lo clsact",
                "filter add dev lo ingress matchall action mirred egress redirect dev p0",
                "qdisc del dev lo clsact",
                "ip link del p0",
            ]
        );
    }

    #[test]
    fn a_missing_qdisc_or_action_is_recorded_and_nothing_is_left_behind() {
        let (k, ran) = probe(&["pie", "police"]);
        assert_eq!(
            k,
            KernelShaping {
                pie: false,
                police: false,
                ..KernelShaping::ALL
            }
        );
        // Every probe's deletion runs: clsact, added before its filter failed, is deleted, and
        // the root that pie never took is asked to go too (and the kernel says it has none).
        let after = |line: &str| {
            let i = ran.iter().position(|l| l == line).unwrap();
            ran.get(i + 1).cloned()
        };
        assert_eq!(
            after("qdisc add dev lo root pie").as_deref(),
            Some("qdisc del dev lo root")
        );
        assert_eq!(
            after("filter add dev lo egress matchall action police rate 1000000bit burst 10000 conform-exceed drop/pipe").as_deref(),
            Some("qdisc del dev lo clsact")
        );
        let (none, ran) = probe(&["add"]);
        assert_eq!(none, KernelShaping::default());
        assert_eq!(ran[0], "ip link add p0 type ifb");
        assert!(
            !ran.iter()
                .any(|l| l.contains("mirred") || l == "ip link del p0"),
            "without the ifb nothing redirects through it, and nothing deletes it: {ran:?}"
        );
    }

    /// Without `mirred` the ifb the probe added is deleted again, with the `clsact` it added,
    /// and the tc engine takes no link: the user-space engine does.
    #[test]
    fn a_kernel_without_ifb_or_mirred_gets_the_user_space_engine() {
        let (k, ran) = probe(&["mirred"]);
        assert_eq!(
            k,
            KernelShaping {
                ifb: false,
                ..KernelShaping::ALL
            }
        );
        assert_eq!(
            ran[ran.len() - 4..],
            [
                "qdisc add dev lo clsact",
                "filter add dev lo ingress matchall action mirred egress redirect dev p0",
                "qdisc del dev lo clsact",
                "ip link del p0",
            ]
        );
        let (no_ifb, ran) = probe(&["ifb"]);
        assert!(!no_ifb.ifb);
        assert_eq!(
            ran.first().map(String::as_str),
            Some("ip link add p0 type ifb")
        );
        assert!(
            !ran.iter()
                .any(|l| l.contains("mirred") || l.starts_with("ip link del")),
            "{ran:?}"
        );
        assert_eq!(engine_for(&link(LossModel::None), k), Engine::UserSpace);
        assert_eq!(
            engine_for(&link(LossModel::None), no_ifb),
            Engine::UserSpace
        );
    }
}
