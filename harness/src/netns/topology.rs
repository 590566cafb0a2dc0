//! Builds a [`Plan`] on the system, and owns everything it built: dropping the [`Topology`]
//! (on success, on error, while a panic unwinds) stops the user-space links, closes their TUN
//! devices and deletes the run's namespaces in reverse order, which takes their veths, ifb
//! devices, qdiscs and sockets with them. What is already gone is skipped.

use std::time::Instant;

use super::names::{self, RunPrefix};
use super::plan::{LinkPlan, Node, Plan};
use super::sys;
use super::tc::{self, Engine};
use super::tc_stats;
use super::tun;
use super::userlink::{DirReport, UserLink};
use crate::scenario::{Link, Scenario};

pub struct Topology {
    pub prefix: RunPrefix,
    /// What the kernel has of the qdiscs and actions the tc engine emits (nothing when the run
    /// is user-space only).
    pub kernel: tc::KernelShaping,
    /// The engine of each scenario link.
    pub engines: Vec<Engine>,
    user_links: Vec<Option<UserLink>>,
    /// Namespaces created so far, in order.
    namespaces: Vec<String>,
    /// When every tc link's AQM acts ([`tc::aqm_wakes_after`]): flows start no sooner.
    pub aqms_awake_at: Instant,
}

impl Topology {
    pub fn node_ns(&self, node: Node) -> String {
        match node {
            Node::Router(k) => self.prefix.router(k),
            Node::Sender(i) => self.prefix.sender(i),
            Node::Receiver(i) => self.prefix.receiver(i),
        }
    }

    /// Creates the namespaces, links, addresses and routes of `plan`. `user_space_only` skips the
    /// kernel engine even where the kernel has what a link needs.
    ///
    /// The commands go out by phase, each namespace's commands of a phase as one `ip` or `tc`
    /// process ([`Setup`]): the devices first (a veth's far end lands in another namespace),
    /// then every namespace's addresses, links up and routes, then the qdiscs.
    pub fn build(
        prefix: RunPrefix,
        scenario: &Scenario,
        plan: &Plan,
        user_space_only: bool,
    ) -> anyhow::Result<Self> {
        let mut t = Topology {
            prefix,
            kernel: tc::KernelShaping::default(),
            engines: Vec::new(),
            user_links: Vec::new(),
            namespaces: Vec::new(),
            aqms_awake_at: Instant::now(),
        };
        let mut nodes: Vec<Node> = (0..plan.routers).map(Node::Router).collect();
        for f in &plan.flows {
            nodes.push(Node::Sender(f.index));
            nodes.push(Node::Receiver(f.index));
        }
        let mut setup = Setup::default();
        t.add_namespaces(&nodes, &mut setup)?;
        if !user_space_only {
            t.kernel = t.probe_kernel();
        }
        t.engines = scenario
            .links
            .iter()
            .map(|l| tc::engine_for(l, t.kernel))
            .collect();
        if t.engines.contains(&Engine::UserSpace) {
            sys::check_tun()?;
        }
        let mtu = scenario.mtu.to_string();

        for f in &plan.flows {
            for (role, host, subnet, router) in [
                ('s', Node::Sender(f.index), f.sender_subnet, f.sender_router),
                (
                    'd',
                    Node::Receiver(f.index),
                    f.receiver_subnet,
                    f.receiver_router,
                ),
            ] {
                let rns = t.node_ns(Node::Router(router));
                let hns = t.node_ns(host);
                let rif = names::access_if(role, f.index);
                setup
                    .create(&rns)
                    .push(&veth(&rif, &hns, names::HOST_IF, &mtu));
                up(
                    setup.configure(&hns),
                    names::HOST_IF,
                    &subnet.first().to_string(),
                );
                up(setup.configure(&rns), &rif, &subnet.second().to_string());
            }
        }

        let mut wake = std::time::Duration::ZERO;
        for (l, (link, lp)) in scenario.links.iter().zip(&plan.links).enumerate() {
            t.add_link(l, link, lp, scenario, &mut setup)?;
            if t.engines[l] == Engine::Netem {
                wake = wake.max(tc::aqm_wakes_after(link));
            }
        }

        for r in plan.routes().map_err(anyhow::Error::msg)? {
            let ns = t.node_ns(r.node);
            let dst = r.dst.map_or("default".to_string(), |a| format!("{a}/32"));
            let via = r.via.to_string();
            setup
                .configure(&ns)
                .push(&["route", "add", &dst, "via", &via, "dev", &r.dev]);
        }
        setup.run()?;
        t.aqms_awake_at = Instant::now() + wake;
        Ok(t)
    }

    /// The namespaces of `nodes`, made by one `ip` process, each recorded for the teardown
    /// before it is asked for, and set up: forwarding, no reverse-path filter, ECN for kernel
    /// TCP peers, no IPv6 chatter, and (in `setup`) the loopback up.
    fn add_namespaces(&mut self, nodes: &[Node], setup: &mut Setup) -> anyhow::Result<()> {
        let mut add = sys::Batch::ip(None);
        for &node in nodes {
            let ns = self.node_ns(node);
            add.push(&["netns", "add", &ns]);
            self.namespaces.push(ns);
        }
        add.run()?;
        for &node in nodes {
            let ns = self.node_ns(node);
            let router = matches!(node, Node::Router(_));
            sys::in_netns(&ns, || {
                if router {
                    sys::sysctl("net/ipv4/ip_forward", "1")?;
                }
                sys::sysctl("net/ipv4/conf/all/rp_filter", "0")?;
                sys::sysctl("net/ipv4/conf/default/rp_filter", "0")?;
                // Kernel TCP peers negotiate ECN (as quinn always sends ECT(0)), so a marking
                // link marks both.
                sys::sysctl("net/ipv4/tcp_ecn", "1")?;
                // No IPv6 chatter (router solicitations, MLD) on the links.
                let _ = sys::sysctl("net/ipv6/conf/default/disable_ipv6", "1");
                let _ = sys::sysctl("net/ipv6/conf/all/disable_ipv6", "1");
                Ok(())
            })?;
            setup.configure(&ns).push(&["link", "set", "lo", "up"]);
        }
        Ok(())
    }

    /// What the kernel has of the tc engine's qdiscs, actions and devices, probed on the
    /// loopback of one of the run's own namespaces, which nothing else uses. A `tc` that cannot
    /// run shows nothing.
    fn probe_kernel(&self) -> tc::KernelShaping {
        let ns = self.node_ns(Node::Router(0));
        let ip = |args: &[String]| {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            sys::ip(Some(&ns), &args).is_ok()
        };
        let tc = |lines: &[Vec<String>]| {
            let mut batch = sys::Batch::tc(&ns);
            for line in lines {
                batch.push(line);
            }
            batch
                .run_each()
                .unwrap_or_else(|_| vec![false; lines.len()])
        };
        tc::KernelShaping::probe("lo", names::PROBE_IFB, tc, ip)
    }

    /// Scenario link `l` between its routers, on its engine, into `setup`; a user-space link's
    /// TUN devices are opened (and its engine started) at once.
    fn add_link(
        &mut self,
        l: usize,
        link: &Link,
        lp: &LinkPlan,
        scenario: &Scenario,
        setup: &mut Setup,
    ) -> anyhow::Result<()> {
        let head = self.node_ns(Node::Router(lp.head));
        let tail = self.node_ns(Node::Router(lp.tail));
        let dev = names::link_if(l);
        let mtu = scenario.mtu.to_string();
        match self.engines[l] {
            Engine::Netem => {
                setup.create(&head).push(&veth(&dev, &tail, &dev, &mtu));
                // Each end receives one direction: the head the reverse, the tail the forward.
                // The ifb lives in the router's namespace, so deleting that removes it too.
                let ifb = names::ifb_if(l);
                for (ns, received) in [(&head, &link.reverse_loss), (&tail, &link.loss)] {
                    setup
                        .create(ns)
                        .push(&["link", "add", &ifb, "mtu", &mtu, "type", "ifb"]);
                    setup.configure(ns).push(&["link", "set", &ifb, "up"]);
                    let cmds = tc::end_commands(&dev, &ifb, link, received, scenario.mtu)
                        .map_err(anyhow::Error::msg)?;
                    for c in cmds {
                        setup.shape(ns).push(&c);
                    }
                }
                self.user_links.push(None);
            }
            Engine::UserSpace => {
                let hf = sys::in_netns(&head, || tun::open(&dev))?;
                let tf = sys::in_netns(&tail, || tun::open(&dev))?;
                for ns in [&head, &tail] {
                    setup
                        .configure(ns)
                        .push(&["link", "set", &dev, "mtu", &mtu]);
                }
                self.user_links
                    .push(Some(UserLink::start(l, link, scenario.seed, hf, tf)?));
            }
        }
        up(setup.configure(&head), &dev, &lp.subnet.first().to_string());
        up(
            setup.configure(&tail),
            &dev,
            &lp.subnet.second().to_string(),
        );
        Ok(())
    }

    /// Stops the user-space links and returns what each direction saw, per link (`None` for a
    /// kernel-shaped link).
    pub fn finish_user_links(&mut self) -> Vec<Option<[DirReport; 2]>> {
        self.user_links
            .iter_mut()
            .map(|u| u.as_mut().map(|u| u.finish()))
            .collect()
    }

    /// `tc -s` statistics of the qdiscs of device `dev` in the router `node`.
    pub fn qdisc_stats(&self, node: Node, dev: &str) -> anyhow::Result<Vec<tc_stats::QdiscStats>> {
        let args = ["-s", "-j", "qdisc", "show", "dev", dev].map(String::from);
        let out = sys::tc(&self.node_ns(node), &args)?;
        tc_stats::parse_qdiscs(&out).map_err(anyhow::Error::msg)
    }

    /// The packets the `police` actions on the egress of device `dev` in `node` dropped.
    pub fn police_drops(&self, node: Node, dev: &str) -> anyhow::Result<u64> {
        let args = ["-s", "-j", "filter", "show", "dev", dev, "egress"].map(String::from);
        let out = sys::tc(&self.node_ns(node), &args)?;
        tc_stats::parse_police_drops(&out).map_err(anyhow::Error::msg)
    }

    /// Removes everything, by one `ip` process that goes on past a namespace it cannot delete;
    /// what is still there afterwards is reported, not fatal (the rest is still removed).
    pub fn teardown(&mut self) -> Vec<String> {
        self.user_links.clear();
        let present = sys::namespaces();
        let existing: Vec<String> = self
            .namespaces
            .drain(..)
            .rev()
            .filter(|ns| present.contains(ns))
            .collect();
        let mut batch = sys::Batch::ip(None);
        for ns in &existing {
            batch.push(&["netns", "del", ns]);
        }
        let mut errors = Vec::new();
        if let Err(e) = batch.run_each() {
            errors.push(format!("{e:#}"));
        }
        let left = sys::namespaces();
        for ns in existing {
            if left.contains(&ns) {
                errors.push(format!(
                    "namespace {ns} could not be deleted: `discern clean` removes what a run left"
                ));
            }
        }
        errors
    }
}

impl Drop for Topology {
    fn drop(&mut self) {
        for e in self.teardown() {
            eprintln!("warning: cleaning up: {e}");
        }
    }
}

/// The `ip` command, run in the first end's namespace, that makes a veth pair from `a_if` there
/// to `b_if` in namespace `b`.
///
/// Both ends send one packet per buffer (`gso_max_segs 1`): a UDP or TCP sender on a veth would
/// otherwise hand the routers' qdiscs and policer segmentation-offload buffers of several
/// packets each, which a qdisc's limit counts as one, PIE and CoDel drop as one, and a policer
/// passes or drops whole. A wire carries single packets, and so does the simulator's link.
fn veth(a_if: &str, b: &str, b_if: &str, mtu: &str) -> [String; 18] {
    [
        "link",
        "add",
        a_if,
        "mtu",
        mtu,
        "gso_max_segs",
        "1",
        "type",
        "veth",
        "peer",
        "name",
        b_if,
        "mtu",
        mtu,
        "gso_max_segs",
        "1",
        "netns",
        b,
    ]
    .map(String::from)
}

/// Gives `dev` the address `addr`/30 and brings it up, in `batch`'s namespace.
fn up(batch: &mut sys::Batch, dev: &str, addr: &str) {
    batch.push(&["addr", "add", &format!("{addr}/30"), "dev", dev]);
    batch.push(&["link", "set", dev, "up"]);
}

/// A topology's commands by phase and namespace, in the order each namespace first appeared:
/// devices made from each namespace, then each namespace's addresses, links and routes, then its
/// qdiscs and filters. A phase's commands in one namespace depend only on that namespace's
/// earlier ones and on earlier phases, so each runs as one process ([`sys::Batch`]).
#[derive(Debug, Default)]
struct Setup(Vec<NamespaceSetup>);

/// One namespace's batches, one per phase.
#[derive(Debug)]
struct NamespaceSetup {
    create: sys::Batch,
    configure: sys::Batch,
    shape: sys::Batch,
}

impl Setup {
    /// `ns`'s batches, opened where `ns` first appears.
    fn of(&mut self, ns: &str) -> &mut NamespaceSetup {
        let i = match self.0.iter().position(|n| n.shape.namespace() == Some(ns)) {
            Some(i) => i,
            None => {
                self.0.push(NamespaceSetup {
                    create: sys::Batch::ip(Some(ns)),
                    configure: sys::Batch::ip(Some(ns)),
                    shape: sys::Batch::tc(ns),
                });
                self.0.len() - 1
            }
        };
        &mut self.0[i]
    }

    fn create(&mut self, ns: &str) -> &mut sys::Batch {
        &mut self.of(ns).create
    }

    fn configure(&mut self, ns: &str) -> &mut sys::Batch {
        &mut self.of(ns).configure
    }

    fn shape(&mut self, ns: &str) -> &mut sys::Batch {
        &mut self.of(ns).shape
    }

    /// Runs the phases in order; the first command that fails ends it.
    fn run(&self) -> anyhow::Result<()> {
        let phases: [fn(&NamespaceSetup) -> &sys::Batch; 3] =
            [|n| &n.create, |n| &n.configure, |n| &n.shape];
        for phase in phases {
            for n in &self.0 {
                phase(n).run()?;
            }
        }
        Ok(())
    }
}
