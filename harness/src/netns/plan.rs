//! The topology a scenario asks for, as pure data: which routers exist, where each link and each
//! flow attaches, the addresses and the static routes. Nothing here touches the system, so it is
//! unit-tested without root.
//!
//! Every scenario link is a one-way bottleneck with its own queue, shared by every flow whose path
//! names it, so it gets exactly one egress interface per direction: a link runs from the router at
//! its head to the router at its tail. When some path goes X then Y, the tail of X and the head of
//! Y are one router (union-find over the paths). Each flow's sender attaches to the head router of
//! its first link, its receiver to the tail router of its last link, each by its own unshaped veth.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use super::names;
use crate::scenario::Scenario;

/// Where the run's addresses come from: 10.64.0.0/10, one /30 per point-to-point link. Only ever
/// used inside the run's own namespaces.
const BASE: u32 = u32::from_be_bytes([10, 64, 0, 0]);
const SUBNETS: u32 = 1 << 20;

/// A namespace of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Node {
    Router(usize),
    Sender(usize),
    Receiver(usize),
}

/// A /30: `.1` is the first end (head router, or the host), `.2` the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subnet(u32);

impl Subnet {
    pub fn nth(k: usize) -> Result<Self, String> {
        if k as u64 >= SUBNETS as u64 {
            return Err(format!("more than {SUBNETS} point-to-point links"));
        }
        Ok(Self(BASE + 4 * k as u32))
    }
    pub fn first(self) -> Ipv4Addr {
        Ipv4Addr::from(self.0 + 1)
    }
    pub fn second(self) -> Ipv4Addr {
        Ipv4Addr::from(self.0 + 2)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkPlan {
    pub head: usize,
    pub tail: usize,
    /// `first()` on the head router's end, `second()` on the tail's.
    pub subnet: Subnet,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowPlan {
    /// Index after `count` expansion.
    pub index: usize,
    /// Index of the scenario's `[[flow]]` entry.
    pub spec: usize,
    pub path: Vec<usize>,
    /// Router the sender attaches to (head of the first link).
    pub sender_router: usize,
    /// Router the receiver attaches to (tail of the last link).
    pub receiver_router: usize,
    /// `first()` is the sender host, `second()` its router.
    pub sender_subnet: Subnet,
    /// `first()` is the receiver host, `second()` its router.
    pub receiver_subnet: Subnet,
}

impl FlowPlan {
    pub fn sender_addr(&self) -> Ipv4Addr {
        self.sender_subnet.first()
    }
    pub fn receiver_addr(&self) -> Ipv4Addr {
        self.receiver_subnet.first()
    }
}

/// A static route: in `node`, `dst`/32 via `via` on `dev` (`dst` `None` = default route).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub node: Node,
    pub dst: Option<Ipv4Addr>,
    pub via: Ipv4Addr,
    pub dev: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub routers: usize,
    pub links: Vec<LinkPlan>,
    pub flows: Vec<FlowPlan>,
}

struct UnionFind(Vec<usize>);

impl UnionFind {
    fn new(n: usize) -> Self {
        Self((0..n).collect())
    }
    fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] != x {
            self.0[x] = self.0[self.0[x]];
            x = self.0[x];
        }
        x
    }
    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            // The smaller root wins, so router numbering does not depend on union order.
            let (lo, hi) = (a.min(b), a.max(b));
            self.0[hi] = lo;
        }
    }
}

impl Plan {
    pub fn new(scenario: &Scenario) -> Result<Self, String> {
        let n_links = scenario.links.len();
        // Node 2l is the head of link l, 2l + 1 its tail.
        let mut uf = UnionFind::new(2 * n_links);
        let mut specs = Vec::new();
        for (s, f) in scenario.flows.iter().enumerate() {
            if f.path.is_empty() {
                return Err(format!("flow {s}: the path names no link"));
            }
            if let Some(&l) = f.path.iter().find(|&&l| l >= n_links) {
                return Err(format!(
                    "flow {s}: path names link {l}, which does not exist"
                ));
            }
            for w in f.path.windows(2) {
                uf.union(2 * w[0] + 1, 2 * w[1]);
            }
            for _ in 0..f.count {
                specs.push(s);
            }
        }
        let mut router_of = BTreeMap::new();
        let mut router = |uf: &mut UnionFind, node: usize| {
            let root = uf.find(node);
            let next = router_of.len();
            *router_of.entry(root).or_insert(next)
        };
        let mut links = Vec::with_capacity(n_links);
        for (l, link) in scenario.links.iter().enumerate() {
            let head = router(&mut uf, 2 * l);
            let tail = router(&mut uf, 2 * l + 1);
            if head == tail {
                return Err(format!(
                    "link `{}`: the paths make a loop through it (its tail is also its head)",
                    link.name
                ));
            }
            links.push(LinkPlan {
                head,
                tail,
                subnet: Subnet::nth(l)?,
            });
        }
        for (s, f) in scenario.flows.iter().enumerate() {
            let mut seen = vec![links[f.path[0]].head];
            for &l in &f.path {
                let next = links[l].tail;
                if seen.contains(&next) {
                    return Err(format!(
                        "flow {s}: the path comes back to a router it already crossed (at link `{}`)",
                        scenario.links[l].name
                    ));
                }
                seen.push(next);
            }
        }
        let mut flows = Vec::with_capacity(specs.len());
        for (index, &spec) in specs.iter().enumerate() {
            let path = scenario.flows[spec].path.clone();
            flows.push(FlowPlan {
                index,
                spec,
                sender_router: links[path[0]].head,
                receiver_router: links[path[path.len() - 1]].tail,
                path,
                sender_subnet: Subnet::nth(n_links + 2 * index)?,
                receiver_subnet: Subnet::nth(n_links + 2 * index + 1)?,
            });
        }
        let plan = Self {
            routers: router_of.len(),
            links,
            flows,
        };
        plan.routes()?;
        Ok(plan)
    }

    /// Every static route, both directions of every flow; an error if a router would need two
    /// different routes to one address (a path through a router twice).
    pub fn routes(&self) -> Result<Vec<Route>, String> {
        let mut out: Vec<Route> = Vec::new();
        let mut seen: BTreeMap<(Node, Option<Ipv4Addr>), usize> = BTreeMap::new();
        let mut add = |r: Route| -> Result<(), String> {
            match seen.get(&(r.node, r.dst)) {
                Some(&i) if out[i] == r => Ok(()),
                Some(_) => Err(format!(
                    "{:?} would need two routes to {:?}: a path crosses a router twice",
                    r.node, r.dst
                )),
                None => {
                    seen.insert((r.node, r.dst), out.len());
                    out.push(r);
                    Ok(())
                }
            }
        };
        for f in &self.flows {
            add(Route {
                node: Node::Sender(f.index),
                dst: None,
                via: f.sender_subnet.second(),
                dev: names::HOST_IF.into(),
            })?;
            add(Route {
                node: Node::Receiver(f.index),
                dst: None,
                via: f.receiver_subnet.second(),
                dev: names::HOST_IF.into(),
            })?;
            for &l in &f.path {
                let link = &self.links[l];
                add(Route {
                    node: Node::Router(link.head),
                    dst: Some(f.receiver_addr()),
                    via: link.subnet.second(),
                    dev: names::link_if(l),
                })?;
                add(Route {
                    node: Node::Router(link.tail),
                    dst: Some(f.sender_addr()),
                    via: link.subnet.first(),
                    dev: names::link_if(l),
                })?;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Flow, Link, LossModel};
    use crate::units::BitRate;
    use std::time::Duration;

    fn scenario(links: usize, paths: &[&[usize]]) -> Scenario {
        Scenario {
            name: "t".into(),
            description: String::new(),
            duration: Duration::from_secs(1),
            seed: 1,
            mtu: 1500,
            timer_granularity: None,
            links: (0..links)
                .map(|i| Link {
                    name: format!("l{i}"),
                    rate: BitRate(10_000_000),
                    delay: Duration::from_millis(10),
                    queue: 10,
                    loss: LossModel::None,
                    reverse_loss: LossModel::None,
                    trace: None,
                    aqm: None,
                    police: None,
                    ecn: None,
                    jitter: None,
                    reorder: None,
                })
                .collect(),
            flows: paths
                .iter()
                .map(|p| Flow {
                    controller: "newreno".parse().unwrap(),
                    path: p.to_vec(),
                    start: Duration::ZERO,
                    bytes: None,
                    count: 1,
                    receive_window: None,
                    max_ack_delay: None,
                    ack_every: None,
                    receiver: Default::default(),
                    under_test: false,
                    receiver_lies: None,
                })
                .collect(),
            source: None,
        }
    }

    #[test]
    fn one_link_has_two_routers() {
        let p = Plan::new(&scenario(1, &[&[0]])).unwrap();
        assert_eq!(p.routers, 2);
        assert_eq!((p.links[0].head, p.links[0].tail), (0, 1));
        assert_eq!(p.flows[0].sender_router, 0);
        assert_eq!(p.flows[0].receiver_router, 1);
    }

    #[test]
    fn consecutive_links_share_a_router() {
        // Parking lot: 0 -> 1 -> 2, with cross flows on each link alone.
        let p = Plan::new(&scenario(3, &[&[0, 1, 2], &[1], &[2]])).unwrap();
        assert_eq!(p.routers, 4);
        assert_eq!(p.links[0].tail, p.links[1].head);
        assert_eq!(p.links[1].tail, p.links[2].head);
        assert_eq!(p.flows[1].sender_router, p.links[1].head);
        assert_eq!(p.flows[2].receiver_router, p.links[2].tail);
        // Two flows into one link from different upstream links merge their routers.
        let p = Plan::new(&scenario(3, &[&[0, 2], &[1, 2]])).unwrap();
        assert_eq!(p.links[0].tail, p.links[2].head);
        assert_eq!(p.links[1].tail, p.links[2].head);
        assert_eq!(p.routers, 4);
        // Unused links still get their own routers.
        let p = Plan::new(&scenario(2, &[&[0]])).unwrap();
        assert_eq!(p.routers, 4);
    }

    #[test]
    fn loops_and_bad_paths_are_errors() {
        assert!(Plan::new(&scenario(1, &[&[0, 0]])).is_err());
        assert!(Plan::new(&scenario(2, &[&[0, 1, 0]])).is_err());
        assert!(Plan::new(&scenario(1, &[&[]])).is_err());
        assert!(Plan::new(&scenario(1, &[&[1]])).is_err());
    }

    #[test]
    fn addresses_are_distinct_30s() {
        let p = Plan::new(&scenario(2, &[&[0, 1], &[1]])).unwrap();
        let mut all = Vec::new();
        for l in &p.links {
            all.extend([l.subnet.first(), l.subnet.second()]);
        }
        for f in &p.flows {
            all.extend([
                f.sender_subnet.first(),
                f.sender_subnet.second(),
                f.receiver_subnet.first(),
                f.receiver_subnet.second(),
            ]);
        }
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n);
        assert_eq!(Subnet::nth(0).unwrap().first(), Ipv4Addr::new(10, 64, 0, 1));
        assert_eq!(
            Subnet::nth(64).unwrap().second(),
            Ipv4Addr::new(10, 64, 1, 2)
        );
        assert!(Subnet::nth(1 << 20).is_err());
        assert!(all.iter().all(|a| a.octets()[0] == 10));
    }

    #[test]
    fn routes_follow_the_path_both_ways() {
        let p = Plan::new(&scenario(2, &[&[0, 1]])).unwrap();
        let r = p.routes().unwrap();
        let f = &p.flows[0];
        let find = |node, dst| r.iter().find(|x| x.node == node && x.dst == dst).cloned();
        // Forward: head of link 0 -> tail of link 0 (= head of link 1) -> tail of link 1.
        let h0 = find(Node::Router(p.links[0].head), Some(f.receiver_addr())).unwrap();
        assert_eq!(
            (h0.via, h0.dev.as_str()),
            (p.links[0].subnet.second(), "l0")
        );
        let mid = find(Node::Router(p.links[1].head), Some(f.receiver_addr())).unwrap();
        assert_eq!(
            (mid.via, mid.dev.as_str()),
            (p.links[1].subnet.second(), "l1")
        );
        // Reverse: tail of link 1 -> back over link 1 -> back over link 0.
        let t1 = find(Node::Router(p.links[1].tail), Some(f.sender_addr())).unwrap();
        assert_eq!(t1.via, p.links[1].subnet.first());
        let t0 = find(Node::Router(p.links[0].tail), Some(f.sender_addr())).unwrap();
        assert_eq!(t0.via, p.links[0].subnet.first());
        // Hosts: default routes to their routers.
        let s = find(Node::Sender(0), None).unwrap();
        assert_eq!(s.via, f.sender_subnet.second());
        assert_eq!(r.len(), 6);
    }
}
