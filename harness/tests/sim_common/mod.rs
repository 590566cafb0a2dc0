//! Scenario builders shared by the simulator tests.
#![allow(dead_code)]

use std::time::Duration;

use quinn_discern_harness::scenario::{Flow, Link, LossModel, Scenario};
use quinn_discern_harness::units::{BitRate, Bytes};

pub fn link(name: &str, mbit: f64, delay_ms: u64, queue: usize, loss: LossModel) -> Link {
    Link {
        name: name.into(),
        rate: BitRate((mbit * 1e6) as u64),
        delay: Duration::from_millis(delay_ms),
        queue,
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

pub fn flow(controller: &str, start_ms: u64, bytes: Option<u64>) -> Flow {
    Flow {
        controller: controller.parse().expect("controller id"),
        path: vec![0],
        start: Duration::from_millis(start_ms),
        bytes: bytes.map(Bytes),
        count: 1,
        receive_window: None,
        max_ack_delay: None,
        ack_every: None,
        receiver: Default::default(),
        under_test: false,
        receiver_lies: None,
    }
}

pub fn scenario(name: &str, secs: f64, seed: u64, links: Vec<Link>, flows: Vec<Flow>) -> Scenario {
    Scenario {
        name: name.into(),
        description: String::new(),
        duration: Duration::from_secs_f64(secs),
        seed,
        mtu: 1500,
        timer_granularity: None,
        links,
        flows,
        source: None,
    }
}

/// Queue of one bandwidth-delay product, in 1500-byte packets.
pub fn bdp_packets(mbit: f64, rtt_ms: u64) -> usize {
    ((mbit * 1e6 / 8.0 * rtt_ms as f64 / 1000.0) / 1500.0).ceil() as usize
}
