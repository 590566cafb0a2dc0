//! The run's flows, each on its stack: quinn for the registry's controllers, noq for the `noq-*`
//! peers. The simulator's loop matches on the stack once per event and then calls the flow's
//! code for that stack, which is static.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::clock::{from_duration, VTime};
use super::flow::{endpoint_seed, FlowInfo, FlowSetup, FlowState};
use super::network::{Net, Packet};
use super::stack::noq::NoqEnd;
use super::stack::quinn::QuinnEnd;
use super::stack::End;
use super::truth::Side;
use super::{null_crypto, PacketProtection, SimError};
use crate::noq::{NoqConfigs, NoqIdentity};
use crate::report::record::SenderCounts;
use crate::scenario::{Flow, Scenario};
use crate::tls::Identity;
use crate::transport::{FlowQlog, FlowTransport, Qlog};

/// One flow of the run, on its stack.
// Both states are large and live once each in the run's flow list; boxing either would put a
// pointer chase on every event of its flows, for the sake of a couple of KB per noq flow.
#[allow(clippy::large_enum_variant)]
pub enum SimFlow {
    Quinn(FlowState<QuinnEnd>),
    Noq(FlowState<NoqEnd>),
}

/// Calls `$body` with `$f` bound to the flow's state, whichever its stack.
macro_rules! on_stack {
    ($flow:expr, $f:ident => $body:expr) => {
        match $flow {
            SimFlow::Quinn($f) => $body,
            SimFlow::Noq($f) => $body,
        }
    };
}

impl SimFlow {
    pub fn info(&self) -> &FlowInfo {
        on_stack!(self, f => &f.info)
    }

    /// Opens the connection at `now`.
    pub fn start(&mut self, now: VTime, net: &mut Net) -> Result<(), SimError> {
        on_stack!(self, f => f.start(now, net))
    }

    /// A datagram reached `packet.from`'s peer at `now`.
    pub fn receive(&mut self, now: VTime, packet: Packet, net: &mut Net) -> Result<(), SimError> {
        on_stack!(self, f => f.receive(now, packet, net))
    }

    /// A timer event of `side` fired at `now` with generation `gen`.
    pub fn timeout(
        &mut self,
        side: Side,
        gen: u64,
        now: VTime,
        net: &mut Net,
    ) -> Result<(), SimError> {
        on_stack!(self, f => f.timeout(side, gen, now, net))
    }

    /// The sender's congestion window and smoothed RTT, once it has a connection.
    pub fn window_and_rtt(&self) -> Option<(u64, Duration)> {
        on_stack!(self, f => f.window_and_rtt())
    }

    /// The sender's counters, once it has a connection.
    pub fn sender_counts(&mut self) -> Option<SenderCounts> {
        on_stack!(self, f => f.sender_counts())
    }
}

/// Builds every flow of `scenario`, on its stack, with `protection` on quinn's packets; each
/// flow's endpoints write qlog traces into `qlog` when it is given, counting from `epoch`.
///
/// noq's packets always carry real protection: the simulator's null keys implement quinn's
/// crypto traits, and noq's differ (its packet keys take the path of a multipath connection).
/// Real protection keeps every packet's size, so only the speed differs.
pub fn build(
    scenario: &Scenario,
    protection: PacketProtection,
    qlog: Option<&Qlog>,
    epoch: Instant,
) -> Result<Vec<SimFlow>, SimError> {
    let identity = Identity::generate()?;
    let (server_base, client_base) = null_crypto::configs(&identity, protection)?;
    let noq_identity = match scenario.flows.iter().any(|f| f.controller.noq().is_some()) {
        true => Some(NoqIdentity::new(&identity)?),
        false => None,
    };
    let mut flows = Vec::new();
    for spec in &scenario.flows {
        let shared = match spec.controller.noq() {
            None => Some(FlowTransport::new(scenario, spec)?),
            Some(_) => None,
        };
        for _ in 0..spec.count {
            let index = flows.len();
            let flow_qlog = qlog.map(|qlog| FlowQlog {
                qlog,
                flow: index,
                start: epoch,
            });
            let seed = |side| endpoint_seed(scenario.seed, index, side);
            if let (Some(peer), Some(id)) = (spec.controller.noq(), &noq_identity) {
                let configs = NoqConfigs::new(id, scenario, spec, peer, flow_qlog)?;
                let client = NoqEnd::new(Some(seed(Side::Sender)), None);
                let server = NoqEnd::new(Some(seed(Side::Receiver)), Some(configs.server));
                let state =
                    FlowState::new(setup(scenario, spec, index, client, configs.client, server));
                flows.push(SimFlow::Noq(state));
                continue;
            }
            let transport = match (flow_qlog, &shared) {
                (None, Some(shared)) => shared.clone(),
                (q, _) => FlowTransport::with_qlog(scenario, spec, q)?,
            };
            let mut server_config = server_base.clone();
            server_config.transport = transport.receiver;
            let mut client_config = client_base.clone();
            client_config.transport_config(transport.sender);
            let client = QuinnEnd::new(seed(Side::Sender), None);
            let server = QuinnEnd::new(seed(Side::Receiver), Some(Arc::new(server_config)));
            let state = FlowState::new(setup(scenario, spec, index, client, client_config, server));
            flows.push(SimFlow::Quinn(state));
        }
    }
    Ok(flows)
}

/// The setup of flow `index`, one of `spec`'s, between `client` and `server`.
fn setup<E: End>(
    scenario: &Scenario,
    spec: &Flow,
    index: usize,
    client: E,
    client_config: E::Client,
    server: E,
) -> FlowSetup<E> {
    FlowSetup {
        index,
        controller: spec.controller.id().to_owned(),
        start: from_duration(spec.start),
        bytes: spec.bytes.map(|b| b.0),
        seed: scenario.seed,
        client,
        client_config,
        server,
    }
}

/// Every flow's path, in the flows' order.
pub fn paths(scenario: &Scenario) -> Vec<Vec<usize>> {
    scenario
        .flows
        .iter()
        .flat_map(|f: &Flow| std::iter::repeat_n(f.path.clone(), f.count as usize))
        .collect()
}
