//! The netns runner on this machine's kernel: real transfers through shaped links, clean-up after
//! failures, panics and signals, concurrent runs, kernel TCP peers, and agreement with the
//! simulator. They need root (CI runs as root): built by another user they show as ignored;
//! built as root but run by another user, each fails saying so (`serial`).
//!
//! One binary, one lock: the runs share the machine's CPUs and the namespace list.

use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use quinn_discern_harness::netns::{self, sys, Options};
use quinn_discern_harness::report::{Outcome, RunOutput};
use quinn_discern_harness::scenario::Scenario;
use quinn_discern_harness::transport::Qlog;

static LOCK: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    // Built as root (so not ignored) but run as another user: a failure, not a silent pass.
    assert!(
        sys::is_root(),
        "the netns tests were built as root but run as another user; run `cargo test` as root"
    );
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn scenario(
    duration: &str,
    rate: &str,
    delay: &str,
    loss: f64,
    flows: &[(&str, Option<&str>)],
) -> Scenario {
    let mut text = format!(
        "name = \"netns-test\"\ndescription = \"test\"\nduration = \"{duration}\"\nseed = 7\n\
         [[link]]\nname = \"b\"\nrate = \"{rate}\"\ndelay = \"{delay}\"\nqueue = 50\n\
         loss = {{ model = \"bernoulli\", rate = {loss} }}\n"
    );
    for (controller, bytes) in flows {
        text.push_str(&format!(
            "[[flow]]\ncontroller = \"{controller}\"\npath = [\"b\"]\n"
        ));
        if let Some(b) = bytes {
            text.push_str(&format!("bytes = \"{b}\"\n"));
        }
    }
    Scenario::from_toml(&text, "test", &[]).expect("test scenario parses")
}

fn ours(prefix: &str) -> Vec<String> {
    sys::namespaces()
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .collect()
}

fn root_links() -> Vec<String> {
    let out = Command::new("ip")
        .args(["-o", "link", "show"])
        .output()
        .unwrap();
    let mut v: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split(':').nth(1).map(|s| s.trim().to_string()))
        .collect();
    v.sort();
    v
}

fn run_capturing_prefix(s: &Scenario, mut options: Options) -> (anyhow::Result<RunOutput>, String) {
    let prefix = Arc::new(Mutex::new(String::new()));
    let p = prefix.clone();
    options.on_prefix = Some(Arc::new(move |s: &str| *p.lock().unwrap() = s.to_string()));
    let r = netns::run_with(s, &options);
    let got = prefix.lock().unwrap().clone();
    (r, got)
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn shaped_link_rate_rtt_and_bytes() {
    let _g = serial();
    let s = scenario("3s", "20Mbit", "10ms", 0.0, &[("newreno", None)]);
    let out = netns::run(&s).expect("netns run");
    let f = &out.summary.flows[0];
    let link = &out.summary.links[0];
    let m = link.measured.expect("measured link");
    eprintln!(
        "lossless: goodput {:.2} Mbit/s of 20, measured rate {:.2} Mbit/s, base RTT {:.2} ms, engine {}",
        f.goodput_bps / 1e6,
        m.rate_bps / 1e6,
        m.base_rtt_s * 1e3,
        link.engine
    );
    assert!(f.verified && f.bytes_delivered > 0);
    assert!(
        f.goodput_bps <= 20e6,
        "goodput {} above the rate",
        f.goodput_bps
    );
    assert!(
        f.goodput_bps >= 0.8 * 20e6,
        "goodput {} below 80 % of the rate",
        f.goodput_bps
    );
    assert!(
        m.rate_bps <= 20e6 * 1.01 && m.rate_bps >= 0.8 * 20e6,
        "{m:?}"
    );
    assert!(
        m.base_rtt_s >= 0.0198 && m.base_rtt_s <= 0.023,
        "base RTT {} s, configured 0.020 s",
        m.base_rtt_s
    );
    assert_eq!(m.loss_rate, 0.0);
    assert!(!out.summary.link.engine.is_empty());
    assert_eq!(out.summary.link.kind, "netns");
    assert!(link.engine.contains("user-space") || link.engine.contains("netem"));
    // cwnd from the controller's events and the periodic samples.
    assert!(out.series[0].samples.len() > 100);
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn measured_loss_and_events_per_flow() {
    let _g = serial();
    // Two flows on one lossy link: NewReno (ours, emits events) and quinn's Cubic (emits none),
    // so the events must land on flow 0 alone.
    let p = 0.02;
    let s = scenario(
        "3s",
        "20Mbit",
        "10ms",
        p,
        &[("newreno", None), ("quinn-cubic", None)],
    );
    let out = netns::run(&s).expect("netns run");
    let m = out.summary.links[0].measured.unwrap();
    let drops = out.summary.drops.unwrap();
    let crossed = (drops.channel as f64 / m.loss_rate.max(1e-9)).max(1.0);
    let sigma = (p * (1.0 - p) / crossed).sqrt();
    eprintln!(
        "2 % loss: measured {:.4} over ~{crossed:.0} packets (3 sigma = {:.4}); drops {drops:?}; \
         goodputs {:.2} and {:.2} Mbit/s",
        m.loss_rate,
        3.0 * sigma,
        out.summary.flows[0].goodput_bps / 1e6,
        out.summary.flows[1].goodput_bps / 1e6
    );
    assert!(
        (m.loss_rate - p).abs() <= 3.0 * sigma,
        "loss {} vs {p}",
        m.loss_rate
    );
    for f in &out.summary.flows {
        assert!(f.verified && f.bytes_delivered > 0, "{f:?}");
        assert!(f.lost_packets > 0, "{f:?}");
    }
    let ours = &out.summary.flows[0];
    assert!(
        ours.verdicts.congestion + ours.verdicts.random > 0,
        "{ours:?}"
    );
    // quinn's own controllers are observed as in the simulator: their congestion events are
    // congestion verdicts.
    let quinn = &out.summary.flows[1];
    assert_eq!(quinn.verdicts.random, 0, "{quinn:?}");
    assert!(quinn.verdicts.congestion > 0, "{quinn:?}");
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn failure_and_panic_leave_nothing() {
    let _g = serial();
    let before = root_links();
    let s = scenario("5s", "10Mbit", "5ms", 0.0, &[("newreno", None)]);
    let (r, prefix) = run_capturing_prefix(
        &s,
        Options {
            fail_after_topology: true,
            ..Options::default()
        },
    );
    assert!(r.unwrap_err().to_string().contains("on purpose"));
    assert!(!prefix.is_empty());
    assert_eq!(ours(&prefix), Vec::<String>::new());

    let prefix = Arc::new(Mutex::new(String::new()));
    let p = prefix.clone();
    let options = Options {
        panic_after_start: true,
        on_prefix: Some(Arc::new(move |s: &str| *p.lock().unwrap() = s.to_string())),
        ..Options::default()
    };
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        netns::run_with(&s, &options)
    }));
    assert!(caught.is_err(), "the run should have panicked");
    let prefix = prefix.lock().unwrap().clone();
    assert!(!prefix.is_empty());
    assert_eq!(ours(&prefix), Vec::<String>::new());
    assert_eq!(root_links(), before);
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn sigint_to_a_running_binary_cleans_up() {
    let _g = serial();
    // Flows on the runtime and on threads (kernel TCP, noq), then only on threads: the join of
    // the threaded flows watches the signals itself.
    sigint_ends_the_run(&["newreno", "tcp-reno", "noq-cubic"]);
    sigint_ends_the_run(&["noq-bbr3"]);
}

/// Starts the binary on a 30 s run of `controllers` sharing one link, interrupts it, and checks
/// that it stops within 10 s, saying so, and leaves nothing behind.
fn sigint_ends_the_run(controllers: &[&str]) {
    let before = root_links();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.toml");
    let mut text = "name = \"long\"\ndescription = \"x\"\nduration = \"30s\"\n\
         [[link]]\nname = \"b\"\nrate = \"10Mbit\"\ndelay = \"5ms\"\nqueue = 20\n"
        .to_string();
    for c in controllers {
        text.push_str(&format!("[[flow]]\ncontroller = \"{c}\"\npath = [\"b\"]\n"));
    }
    std::fs::write(&file, text).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_discern"))
        .arg("run")
        .arg(&file)
        .args(["--link", "netns", "--out"])
        .arg(dir.path().join("out"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let prefix = format!("dsc{:x}r", child.id());
    // Wait for its namespaces (2 routers, a sender and a receiver per flow), then let the flows
    // run.
    let namespaces = 2 + 2 * controllers.len();
    let t0 = Instant::now();
    while ours(&prefix).len() < namespaces && t0.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        ours(&prefix).len(),
        namespaces,
        "the run never built its topology"
    );
    std::thread::sleep(Duration::from_millis(800));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("the run did not stop within 10 s of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    eprintln!("child: {status}, stderr: {stderr}");
    assert!(!status.success());
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_eq!(ours(&prefix), Vec::<String>::new());
    assert_eq!(root_links(), before);
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn two_runs_at_once_do_not_collide() {
    let _g = serial();
    let s = scenario("2s", "10Mbit", "5ms", 0.0, &[("newreno", Some("1MB"))]);
    let (a, b) = std::thread::scope(|sc| {
        let a = sc.spawn(|| run_capturing_prefix(&s, Options::default()));
        let b = sc.spawn(|| run_capturing_prefix(&s, Options::default()));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_ne!(a.1, b.1);
    for (r, prefix) in [a, b] {
        let out = r.expect("concurrent run");
        let f = &out.summary.flows[0];
        assert!(f.verified && f.bytes_delivered == 1_000_000, "{f:?}");
        assert!(f.completion_time_s.is_some());
        assert_eq!(ours(&prefix), Vec::<String>::new());
    }
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn kernel_tcp_peers() {
    let _g = serial();
    let s = scenario("4s", "20Mbit", "10ms", 0.0, &[("tcp-cubic", Some("2MB"))]);
    let out = netns::run(&s).expect("tcp-cubic run");
    let f = &out.summary.flows[0];
    eprintln!("tcp-cubic: {f:?}");
    assert!(f.verified && f.bytes_delivered == 2_000_000, "{f:?}");
    assert!(f.completion_time_s.is_some());
    assert!(f.goodput_bps <= 20e6);
    assert!(out.series[0].samples.iter().any(|x| x.cwnd_bytes > 0));

    let bad = scenario("1s", "20Mbit", "10ms", 0.0, &[("tcp-foo", None)]);
    let e = netns::run(&bad).unwrap_err().to_string();
    assert!(e.contains("tcp-foo") && e.contains("offers"), "{e}");
}

/// The same scenario on both runners: total goodput over `seeds` within 15 %. Printed as a
/// table. Loss-limited goodput rests on a few dozen loss events per run, so one run's figure
/// carries sampling noise of the same order as the bound; several seeds average it out.
fn sim_vs_netns(loss: f64, duration: &str, seeds: &[u64]) {
    let (mut sim_total, mut netns_total) = (0.0, 0.0);
    eprintln!("loss %   seed   sim Mbit/s   netns Mbit/s   diff");
    for &seed in seeds {
        let mut s = scenario(duration, "20Mbit", "10ms", loss, &[("newreno", None)]);
        s.seed = seed;
        let sim = quinn_discern_harness::sim::run(&s).expect("sim run");
        let net = netns::run(&s).expect("netns run");
        assert!(net.summary.flows[0].verified);
        let (a, b) = (
            sim.summary.flows[0].goodput_bps,
            net.summary.flows[0].goodput_bps,
        );
        eprintln!(
            "{:<8} {:<6} {:>10.2} {:>14.2} {:>+6.1} %",
            loss * 100.0,
            seed,
            a / 1e6,
            b / 1e6,
            (b / a - 1.0) * 100.0
        );
        sim_total += a;
        netns_total += b;
    }
    eprintln!(
        "total           {:>10.2} {:>14.2} {:>+6.1} %",
        sim_total / 1e6,
        netns_total / 1e6,
        (netns_total / sim_total - 1.0) * 100.0
    );
    assert!(
        (netns_total - sim_total).abs() <= 0.15 * sim_total,
        "loss {loss}: sim {sim_total} vs netns {netns_total}"
    );
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn sim_and_netns_agree_for_newreno_lossless() {
    let _g = serial();
    sim_vs_netns(0.0, "3s", &[7]);
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn sim_and_netns_agree_for_newreno_at_1_percent_loss() {
    let _g = serial();
    sim_vs_netns(0.01, "6s", &[7, 8, 9]);
}

/// The tc engine against the user-space engine (`link/`) on a scenario with nothing random in
/// its link: 20 Mbit/s, 10 ms, a 50-packet drop-tail queue that NewReno overflows. Both put the
/// queue before the delay and would put a loss after the queue, so goodput, base RTT and the
/// presence of queue drops agree. Where the kernel lacks what the tc engine needs (netem, ifb,
/// mirred) the first run takes the user-space engine too and there is nothing to compare: the
/// test says so and passes.
#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn tc_and_user_space_engines_agree_on_a_seedless_scenario() {
    let _g = serial();
    let s = scenario("4s", "20Mbit", "10ms", 0.0, &[("newreno", None)]);
    let tc = netns::run(&s).expect("run where the kernel shapes");
    if !tc.summary.links[0].engine.contains("netem") {
        eprintln!("this kernel lacks the tc engine's qdiscs or ifb: nothing to compare");
        return;
    }
    let user_space = Options {
        user_space_only: true,
        ..Options::default()
    };
    let user = netns::run_with(&s, &user_space).expect("run on the user-space engine");
    let goodput = |o: &RunOutput| o.summary.flows[0].goodput_bps;
    let base_rtt = |o: &RunOutput| o.summary.links[0].measured.expect("measured").base_rtt_s;
    eprintln!(
        "tc {:.2} Mbit/s, base RTT {:.2} ms; user space {:.2} Mbit/s, {:.2} ms",
        goodput(&tc) / 1e6,
        base_rtt(&tc) * 1e3,
        goodput(&user) / 1e6,
        base_rtt(&user) * 1e3
    );
    assert!(
        (goodput(&tc) - goodput(&user)).abs() <= 0.1 * goodput(&user),
        "goodput: tc {} vs user space {}",
        goodput(&tc),
        goodput(&user)
    );
    assert!((base_rtt(&tc) - base_rtt(&user)).abs() < 0.002);
    for out in [&tc, &user] {
        assert!(out.summary.flows[0].verified);
        assert!(out.summary.drops.expect("drops").queue > 0);
    }
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn clean_removes_what_a_killed_run_left() {
    let _g = serial();
    // A namespace as a run of a process that no longer exists would have left it.
    let stray = "dsc7ffffff0r0-h0";
    let _ = Command::new("ip").args(["netns", "add", stray]).status();
    assert!(sys::namespaces().iter().any(|n| n == stray));
    let o = Command::new(env!("CARGO_BIN_EXE_discern"))
        .arg("clean")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(out.contains(stray), "{out}");
    assert!(!sys::namespaces().iter().any(|n| n == stray));
}

/// One 10 Mbit/s, 10 ms link with `extra` TOML lines, `flows` (controller) over it.
fn link_scenario(duration: &str, extra: &str, rate: &str, flows: &[&str]) -> Scenario {
    let mut text = format!(
        "name = \"netns-link\"\ndescription = \"test\"\nduration = \"{duration}\"\nseed = 3\n\
         [[link]]\nname = \"b\"\nrate = {rate}\ndelay = \"10ms\"\n{extra}\n"
    );
    for c in flows {
        text.push_str(&format!("[[flow]]\ncontroller = \"{c}\"\npath = [\"b\"]\n"));
    }
    Scenario::from_toml(&text, "test", &[]).expect("test scenario parses")
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn ce_marks_reach_quinn_and_kernel_tcp_in_namespaces() {
    let _g = serial();
    let s = link_scenario(
        "3s",
        "queue = 1000\necn = { threshold = 10 }",
        "\"10Mbit\"",
        &["newreno"],
    );
    let out = netns::run(&s).expect("ecn run");
    let (f, l) = (&out.summary.flows[0], &out.summary.links[0]);
    eprintln!("{f:?}\n{l:?}");
    assert!(l.engine.contains("user-space"));
    assert!(l.ce_marks > 0);
    assert!(f.verified);
    // quinn saw the CE marks in the IP header (the checksum held), reported them in its ACKs,
    // and the controller decided on them: congestion with nothing lost.
    assert!(f.verdicts.ecn_marks > 0, "{f:?}");
    assert!(l.queue_delay.unwrap().p95_s < 0.05, "{l:?}");

    // Kernel TCP negotiates ECN (tcp_ecn = 1 in the namespaces), so its packets are marked too.
    let s = link_scenario(
        "3s",
        "queue = 1000\necn = { threshold = 10 }",
        "\"10Mbit\"",
        &["tcp-reno"],
    );
    let out = netns::run(&s).expect("tcp ecn run");
    let l = &out.summary.links[0];
    eprintln!("tcp-reno: {l:?}");
    assert!(l.ce_marks > 0, "{l:?}");
    assert!(out.summary.flows[0].verified);
}

/// A noq flow's sockets carry ECN as quinn's do: a step-marking link marks its packets, noq
/// reads the marks and its controller backs off on them, so the queue stays short with nothing
/// lost.
#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn ce_marks_reach_a_noq_flow_in_namespaces() {
    let _g = serial();
    let s = link_scenario(
        "3s",
        "queue = 1000\necn = { threshold = 10 }",
        "\"10Mbit\"",
        &["noq-cubic"],
    );
    let out = netns::run(&s).expect("noq ecn run");
    let (f, l) = (&out.summary.flows[0], &out.summary.links[0]);
    eprintln!("{f:?}\n{l:?}");
    assert!(l.ce_marks > 0, "{l:?}");
    assert!(f.verified && f.goodput_bps > 0.5 * 10e6, "{f:?}");
    // Congestion with nothing lost: the marks, not drops, slowed it.
    assert!(f.congestion_events > 0 && f.lost_packets == 0, "{f:?}");
    assert!(l.queue_delay.unwrap().p95_s < 0.05, "{l:?}");
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn a_capacity_trace_bounds_goodput_in_namespaces() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("steps.down");
    // 2 opportunities per millisecond for 1 s, then 1 (24 and 12 Mbit/s).
    let mut lines = String::new();
    for t in 1..=2000u64 {
        for _ in 0..(if t <= 1000 { 2 } else { 1 }) {
            lines.push_str(&format!("{t}\n"));
        }
    }
    std::fs::write(&path, lines).unwrap();
    let rate = format!("{{ trace = \"{}\" }}", path.display());
    let s = link_scenario("4s", "queue = 100", &rate, &["newreno"]);
    let out = netns::run(&s).expect("trace run");
    let l = &out.summary.links[0];
    let trace = l.trace.as_ref().expect("trace summary");
    eprintln!("{trace:?} {:?}", out.summary.flows[0]);
    assert!(out.summary.flows[0].verified);
    assert!(trace.goodput_fraction <= 1.0, "{trace:?}");
    assert!(trace.goodput_fraction > 0.3, "{trace:?}");
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn jitter_and_reordering_in_namespaces() {
    let _g = serial();
    let s = link_scenario(
        "3s",
        "queue = 200\njitter = { model = \"uniform\", max = \"3ms\" }\n\
         reorder = { probability = 0.01, displacement = \"20ms\" }",
        "\"10Mbit\"",
        &["newreno"],
    );
    let out = netns::run(&s).expect("reorder run");
    let (f, l) = (&out.summary.flows[0], &out.summary.links[0]);
    eprintln!("{f:?}\n{l:?}");
    assert!(l.engine.contains("user-space"));
    assert!(l.reordered > 0);
    // Held-back packets overtaken by ~16 others look lost to quinn, though none was dropped.
    let drops = out.summary.drops.unwrap();
    assert_eq!((drops.queue, drops.channel), (0, 0));
    assert!(f.verified && f.bytes_delivered > 0);
    assert!(f.lost_packets > 0, "{f:?}");
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn codel_in_namespaces_drops_early_and_keeps_the_queue_short() {
    let _g = serial();
    let s = link_scenario(
        "5s",
        "queue = { limit = 1000, codel = { target = \"5ms\", interval = \"100ms\" } }",
        "\"10Mbit\"",
        &["newreno"],
    );
    let out = netns::run(&s).expect("codel run");
    let l = &out.summary.links[0];
    eprintln!("{l:?}");
    assert!(l.engine.contains("user-space"));
    assert!(l.queue.starts_with("codel"));
    // A 1000-packet drop-tail queue would hold a second of traffic before its first drop.
    assert!(out.summary.drops.unwrap().queue > 0);
    assert!(l.queue_delay.unwrap().p95_s < 0.1, "{l:?}");
    assert!(out.summary.flows[0].verified);
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn the_recorded_lte_scenario_runs_in_namespaces() {
    let _g = serial();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/lte-tmobile.toml");
    let sets = ["duration=4s".parse().unwrap()];
    let s = match Scenario::from_file(&path, &sets) {
        Ok(s) => s,
        Err(e) if e.to_string().contains("cannot read trace file") => {
            // CI keeps the traces beside the repository: a skip there would hide a lost test.
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true, yet the recorded traces are absent ({e}); put them in ../shared/traces/"
            );
            eprintln!("SKIPPED: the recorded LTE traces are absent ({e})");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let out = netns::run(&s).expect("lte run");
    let trace = out.summary.links[0].trace.clone().expect("trace summary");
    eprintln!("{trace:?}");
    assert!(out.summary.flows[0].verified);
    assert!(trace.goodput_fraction > 0.0 && trace.goodput_fraction <= 1.0);
}

#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn fq_codel_on_the_user_space_engine_shares_the_link_between_flows() {
    let _g = serial();
    let s = link_scenario(
        "4s",
        "queue = { limit = 100, fq_codel = {} }",
        "\"10Mbit\"",
        &["newreno", "newreno"],
    );
    // The user-space engine even where the kernel has fq_codel: it is what is under test.
    let options = Options {
        user_space_only: true,
        ..Options::default()
    };
    let out = netns::run_with(&s, &options).expect("fq_codel run");
    let l = &out.summary.links[0];
    let drops = l
        .queue_drops
        .expect("the user-space engine counts queue drops");
    let goodputs: Vec<f64> = out.summary.flows.iter().map(|f| f.goodput_bps).collect();
    let sum: f64 = goodputs.iter().sum();
    eprintln!(
        "fq_codel: goodputs {:.2} and {:.2} Mbit/s (shares {:.3}, {:.3}); {drops:?}; {:?}",
        goodputs[0] / 1e6,
        goodputs[1] / 1e6,
        goodputs[0] / sum,
        goodputs[1] / sum,
        l.queue_delay
    );
    assert!(l.engine.contains("user-space"), "{}", l.engine);
    assert!(l.queue.starts_with("fq_codel"), "{}", l.queue);
    for f in &out.summary.flows {
        assert!(f.verified && f.bytes_delivered > 0, "{f:?}");
    }
    // Every drop is FQ-CoDel's (its flows' CoDel or its limit), and the parts add up.
    assert_eq!(
        drops.total,
        drops.drop_tail + drops.codel + drops.pie + drops.fq_codel + drops.police,
        "{drops:?}"
    );
    assert_eq!(drops.fq_codel, drops.total, "{drops:?}");
    assert!(drops.fq_codel > 0, "{drops:?}");
    // Deficit round robin between two backlogged flows (RFC 8290 section 4.2).
    for g in &goodputs {
        assert!(*g >= 0.25 * sum && *g <= 0.75 * sum, "{goodputs:?}");
    }
    // Each flow's CoDel keeps its queue near the 5 ms target (slow start aside); the 100-packet
    // limit alone would let it reach 120 ms.
    assert!(l.queue_delay.unwrap().mean_s < 0.04, "{l:?}");
}

/// A quinn sender and an s2n-quic receiver: the bytes arrive and check, and the ACK delay the
/// sender recovers agrees with what s2n-quic says it encoded, frame by frame (the issue's goal is
/// 95 % within 1 ms; the margin here is loose enough not to flake on a loaded machine).
#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn an_s2n_quic_receiver_reports_the_ack_delays_it_encoded() {
    let _g = serial();
    let mut s = scenario("10s", "20Mbit", "15ms", 0.002, &[("newreno", Some("3MB"))]);
    s.flows[0].receiver = quinn_discern_harness::scenario::Receiver::S2nQuic;
    let (out, prefix) = run_capturing_prefix(&s, Options::default());
    let out = out.expect("netns run with an s2n-quic receiver");
    assert!(ours(&prefix).is_empty(), "namespaces left behind");
    let f = &out.summary.flows[0];
    let acks = f.receiver_acks.expect("s2n-quic's report of its ACKs");
    eprintln!(
        "s2n-quic receiver: {} packets, {} ACK frames ({:.1} packets each, {:.0} us mean encoded \
         delay); {} frames checked, {} unmatched: {:.1} % within 1 ms, error mean {:.0} us, p95 {} us",
        acks.packets_received,
        acks.frames_sent,
        acks.packets_received as f64 / acks.frames_sent.max(1) as f64,
        acks.encoded_delay_mean_us,
        acks.frames_checked,
        acks.frames_unmatched,
        100.0 * acks.ack_delay_within_1ms,
        acks.ack_delay_error_mean_us,
        acks.ack_delay_error_p95_us
    );
    assert!(f.verified, "bytes did not check");
    assert_eq!(f.bytes_delivered, 3_000_000, "{f:?}");
    assert!(f.completion_time_s.is_some() && f.receiver_closed.is_none());
    // s2n-quic decimates: about one ACK frame per ten packets, never one per two as quinn.
    assert!(acks.packets_received >= 4 * acks.frames_sent, "{acks:?}");
    assert!(acks.frames_checked >= acks.frames_sent / 2, "{acks:?}");
    assert!(acks.ack_delay_within_1ms >= 0.8, "{acks:?}");
}

/// A noq flow (noq's CUBIC, sender and receiver on noq-proto) and a quinn flow (quinn's CUBIC)
/// share a 10 Mbit/s bottleneck on the user-space engine: both check their bytes and both get a
/// real share (CUBIC against CUBIC, so neither starves), and the noq flow has its time series
/// from noq's statistics. Nothing is left behind.
#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn a_noq_flow_shares_a_bottleneck_with_a_quinn_flow() {
    let _g = serial();
    let s = scenario(
        "5s",
        "10Mbit",
        "10ms",
        0.0,
        &[("noq-cubic", None), ("quinn-cubic", None)],
    );
    let options = Options {
        user_space_only: true,
        ..Options::default()
    };
    let (out, prefix) = run_capturing_prefix(&s, options);
    let out = out.expect("netns run with a noq flow");
    assert!(ours(&prefix).is_empty(), "namespaces left behind");
    let (noq, quinn) = (&out.summary.flows[0], &out.summary.flows[1]);
    eprintln!(
        "noq-cubic {:.2} Mbit/s, quinn-cubic {:.2} Mbit/s of 10; noq: {} lost, {} congestion \
         events, {} samples",
        noq.goodput_bps / 1e6,
        quinn.goodput_bps / 1e6,
        noq.lost_packets,
        noq.congestion_events,
        out.series[0].samples.len()
    );
    assert_eq!(noq.controller, "noq-cubic");
    assert_eq!(noq.outcome, Outcome::Unbounded, "{noq:?}");
    for f in [noq, quinn] {
        assert!(f.verified && f.bytes_delivered > 0, "{f:?}");
        assert!(f.goodput_bps > 0.1 * 10e6, "{f:?}");
    }
    assert!(noq.goodput_bps + quinn.goodput_bps <= 10e6 * 1.01);
    // A 50-packet queue under two CUBIC flows overflows: noq saw it.
    assert!(noq.congestion_events > 0, "{noq:?}");
    let series = &out.series[0];
    assert_eq!(series.controller, "noq-cubic");
    assert!(
        series.samples.len() > 100,
        "{} samples",
        series.samples.len()
    );
    assert!(series
        .samples
        .iter()
        .all(|x| x.cwnd_bytes > 0 && x.rtt_s > 0.0));
    let last = series.samples.last().unwrap();
    assert!(last.delivered_bytes > 0 && last.delivered_bytes <= noq.bytes_delivered);
    assert!(out.summary.links[0]
        .measured
        .is_some_and(|m| m.base_rtt_s > 0.0));
}

/// A finite noq-bbr3 transfer in namespaces completes with its time, both its endpoints write
/// noq's qlog, and a scenario that puts a noq flow in front of an s2n-quic receiver (which
/// `--controller` could make) is refused before anything is built.
#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn a_finite_noq_bbr3_transfer_completes_in_namespaces() {
    let _g = serial();
    let s = scenario("6s", "20Mbit", "10ms", 0.0, &[("noq-bbr3", Some("2MB"))]);
    let dir = tempfile::tempdir().unwrap();
    let qlog = Qlog {
        dir: dir.path().join("qlog"),
    };
    let options = Options {
        qlog: Some(qlog.clone()),
        ..Options::default()
    };
    let (out, prefix) = run_capturing_prefix(&s, options);
    let out = out.expect("noq-bbr3 run");
    assert!(ours(&prefix).is_empty(), "namespaces left behind");
    let f = &out.summary.flows[0];
    eprintln!("noq-bbr3, 2 MB: {f:?}");
    assert!(f.verified && f.bytes_delivered == 2_000_000, "{f:?}");
    assert_eq!(f.outcome, Outcome::Completed, "{f:?}");
    let done = f.completion_time_s.expect("a completion time");
    // 2 MB at 20 Mbit/s is 0.8 s; the handshake and startup add a few RTTs.
    assert!(done > 0.8 && done < 5.0, "completed at {done} s");
    assert!(f.goodput_bps <= 20e6);
    // The run ends with its last flow, well before the scenario's 6 s.
    assert!(out.summary.duration_s < 5.0, "{}", out.summary.duration_s);
    assert!(!out.series[0].samples.is_empty());
    for role in ["sender", "receiver"] {
        let trace = std::fs::read_to_string(qlog.file(0, role)).expect("a qlog trace");
        assert!(
            trace.contains("noq-bbr3") && trace.contains("packet_sent"),
            "{role}"
        );
    }

    let mut s2n = scenario("1s", "20Mbit", "10ms", 0.0, &[("noq-cubic", None)]);
    s2n.flows[0].receiver = quinn_discern_harness::scenario::Receiver::S2nQuic;
    let e = netns::validate(&s2n).unwrap_err().to_string();
    assert!(e.contains("noq-cubic") && e.contains("s2n-quic"), "{e}");
}

/// A noq flow on a link that loses every packet never completes its handshake: the run ends at
/// its deadline with the flow's outcome `no_handshake`, as the simulator reports it, rather than
/// an error.
#[test]
#[cfg_attr(
    not(as_root),
    ignore = "needs root: network namespaces (CI runs as root)"
)]
fn a_noq_flow_without_a_path_ends_without_a_handshake() {
    let _g = serial();
    let s = scenario("1s", "10Mbit", "5ms", 1.0, &[("noq-cubic", Some("1MB"))]);
    let t0 = Instant::now();
    let out = netns::run(&s).expect("a run whose flow gets no handshake");
    let f = &out.summary.flows[0];
    eprintln!("noq-cubic over a dead link: {f:?}");
    assert_eq!(f.outcome, Outcome::NoHandshake, "{f:?}");
    assert_eq!(f.bytes_delivered, 0);
    assert!(f.completion_time_s.is_none());
    // The flow's threads stopped at the deadline, within their poll interval.
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
}
