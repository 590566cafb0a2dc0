//! Builds a [`Plan`] on the system, and owns everything it built: dropping the [`Topology`]
//! (on success, on error, while a panic unwinds) stops the user-space links, closes their TUN
//! devices and deletes the run's namespaces in reverse order, which takes their veths, ifb
//! devices, qdiscs and sockets with them. What is already gone is skipped.

use std::time::Instant;

use anyhow::Context;

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
        for &node in &nodes {
            t.add_namespace(node)?;
        }
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
                veth(&rns, &rif, &hns, names::HOST_IF, &mtu)?;
                up(&hns, names::HOST_IF, &subnet.first().to_string())?;
                up(&rns, &rif, &subnet.second().to_string())?;
            }
        }

        for (l, (link, lp)) in scenario.links.iter().zip(&plan.links).enumerate() {
            t.add_link(l, link, lp, scenario)?;
        }

        for r in plan.routes().map_err(anyhow::Error::msg)? {
            let ns = t.node_ns(r.node);
            let dst = r.dst.map_or("default".to_string(), |a| format!("{a}/32"));
            let via = r.via.to_string();
            sys::ip(
                Some(&ns),
                &["route", "add", &dst, "via", &via, "dev", &r.dev],
            )
            .with_context(|| format!("routing in {ns}"))?;
        }
        Ok(t)
    }

    /// What the kernel has of the tc engine's qdiscs, actions and devices, probed on the
    /// loopback of one of the run's own namespaces, which nothing else uses.
    fn probe_kernel(&self) -> tc::KernelShaping {
        let ns = self.node_ns(Node::Router(0));
        let ip = |args: &[String]| {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            sys::ip(Some(&ns), &args).is_ok()
        };
        tc::KernelShaping::probe(
            "lo",
            names::PROBE_IFB,
            |args| sys::tc(&ns, args).is_ok(),
            ip,
        )
    }

    /// The namespace of `node`, recorded for the teardown as soon as it exists.
    fn add_namespace(&mut self, node: Node) -> anyhow::Result<()> {
        let ns = self.node_ns(node);
        sys::ip(None, &["netns", "add", &ns])?;
        self.namespaces.push(ns.clone());
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
        sys::ip(Some(&ns), &["link", "set", "lo", "up"])?;
        Ok(())
    }

    /// Scenario link `l` between its routers, on its engine.
    fn add_link(
        &mut self,
        l: usize,
        link: &Link,
        lp: &LinkPlan,
        scenario: &Scenario,
    ) -> anyhow::Result<()> {
        let head = self.node_ns(Node::Router(lp.head));
        let tail = self.node_ns(Node::Router(lp.tail));
        let dev = names::link_if(l);
        let mtu = scenario.mtu.to_string();
        match self.engines[l] {
            Engine::Netem => {
                veth(&head, &dev, &tail, &dev, &mtu)?;
                // Each end receives one direction: the head the reverse, the tail the forward.
                // The ifb lives in the router's namespace, so deleting that removes it too.
                let ifb = names::ifb_if(l);
                for (ns, received) in [(&head, &link.reverse_loss), (&tail, &link.loss)] {
                    sys::ip(Some(ns), &["link", "add", &ifb, "mtu", &mtu, "type", "ifb"])?;
                    sys::ip(Some(ns), &["link", "set", &ifb, "up"])?;
                    let cmds = tc::end_commands(&dev, &ifb, link, received, scenario.mtu)
                        .map_err(anyhow::Error::msg)?;
                    for c in cmds {
                        sys::tc(ns, &c)?;
                    }
                }
                let awake = Instant::now() + tc::aqm_wakes_after(link);
                self.aqms_awake_at = self.aqms_awake_at.max(awake);
                self.user_links.push(None);
            }
            Engine::UserSpace => {
                let hf = sys::in_netns(&head, || tun::open(&dev))?;
                let tf = sys::in_netns(&tail, || tun::open(&dev))?;
                sys::ip(Some(&head), &["link", "set", &dev, "mtu", &mtu])?;
                sys::ip(Some(&tail), &["link", "set", &dev, "mtu", &mtu])?;
                self.user_links
                    .push(Some(UserLink::start(l, link, scenario.seed, hf, tf)?));
            }
        }
        up(&head, &dev, &lp.subnet.first().to_string())?;
        up(&tail, &dev, &lp.subnet.second().to_string())?;
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

    /// Removes everything; errors are collected, not fatal (the rest is still removed).
    pub fn teardown(&mut self) -> Vec<String> {
        self.user_links.clear();
        let mut errors = Vec::new();
        while let Some(ns) = self.namespaces.pop() {
            if let Err(e) = sys::delete_namespace(&ns) {
                errors.push(format!("{e:#}"));
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

/// A veth pair from `a_if` in namespace `a` to `b_if` in namespace `b`.
///
/// Both ends send one packet per buffer (`gso_max_segs 1`): a UDP or TCP sender on a veth would
/// otherwise hand the routers' qdiscs and policer segmentation-offload buffers of several
/// packets each, which a qdisc's limit counts as one, PIE and CoDel drop as one, and a policer
/// passes or drops whole. A wire carries single packets, and so does the simulator's link.
fn veth(a: &str, a_if: &str, b: &str, b_if: &str, mtu: &str) -> anyhow::Result<()> {
    sys::ip(
        Some(a),
        &[
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
        ],
    )
    .map(|_| ())
}

/// Gives `dev` in `ns` the address `addr`/30 and brings it up.
fn up(ns: &str, dev: &str, addr: &str) -> anyhow::Result<()> {
    sys::ip(
        Some(ns),
        &["addr", "add", &format!("{addr}/30"), "dev", dev],
    )?;
    sys::ip(Some(ns), &["link", "set", dev, "up"])?;
    Ok(())
}
