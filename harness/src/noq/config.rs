//! A `noq-*` flow's endpoint configurations: the same TLS identity, MTU, windows, idle timeout
//! and ACK frequency as a quinn flow gets from [`crate::transport`], in noq's types, and noq's
//! own qlog traces.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use noq_proto::{
    AckFrequencyConfig, ClientConfig, ConnectionId, IdleTimeout, QlogConfig, QlogFactory,
    ServerConfig, Side, TransportConfig, VarInt,
};

use super::NoqPeer;
use crate::scenario::{Flow, Scenario};
use crate::tls::{Identity, TlsError};
use crate::transport::{idle_timeout, FlowQlog, TransportError, Windows, IP_UDP_OVERHEAD};

/// The run's TLS identity, as noq's client and server configurations.
pub struct NoqIdentity {
    client: ClientConfig,
    server: ServerConfig,
}

impl NoqIdentity {
    /// noq's configurations of `identity`: the same certificate, and a client built exactly as
    /// quinn's, so the handshakes have the same sizes.
    pub fn new(identity: &Identity) -> Result<Self, TlsError> {
        let tls = |e: &dyn std::fmt::Display| TlsError::new(e.to_string());
        let crypto =
            noq_proto::crypto::rustls::QuicClientConfig::try_from(identity.rustls_client()?)
                .map_err(|e| tls(&e))?;
        let (cert, key) = identity.cert_and_key();
        let mut server = ServerConfig::with_single_cert(vec![cert], key).map_err(|e| tls(&e))?;
        // Address validation tokens would only add handshake noise.
        server.validation_token.sent(0);
        Ok(Self {
            client: ClientConfig::new(Arc::new(crypto)),
            server,
        })
    }
}

/// The sender's client configuration and the receiver's server configuration of one flow.
pub struct NoqConfigs {
    pub client: ClientConfig,
    pub server: Arc<ServerConfig>,
}

impl NoqConfigs {
    /// Both sides of `flow`, whose controller is `peer`; each side writes a qlog trace when
    /// `qlog` is given.
    pub fn new(
        identity: &NoqIdentity,
        scenario: &Scenario,
        flow: &Flow,
        peer: NoqPeer,
        qlog: Option<FlowQlog<'_>>,
    ) -> Result<Self, TransportError> {
        let windows = Windows::new(scenario, flow);
        let mut sender = base(scenario)?;
        let mut receiver = base(scenario)?;
        receiver.stream_receive_window(varint(windows.receive)?);
        receiver.receive_window(varint(windows.receive)?);
        sender.stream_receive_window(varint(windows.sender_receive)?);
        sender.receive_window(varint(windows.sender_receive)?);
        sender.send_window(windows.send);
        receiver.send_window(windows.send);
        sender.congestion_controller_factory(super::factory(peer));
        if flow.max_ack_delay.is_some() || flow.ack_every.is_some() {
            sender.ack_frequency_config(Some(ack_frequency(flow)));
        }
        if let Some(q) = qlog {
            let title = format!("{} flow {}", scenario.name, q.flow);
            sender.qlog_factory(Arc::new(OneTrace::create(&q, "sender", &title, peer)?));
            receiver.qlog_factory(Arc::new(OneTrace::create(&q, "receiver", &title, peer)?));
        }
        let mut client = identity.client.clone();
        client.transport_config(Arc::new(sender));
        let mut server = identity.server.clone();
        server.transport_config(Arc::new(receiver));
        Ok(Self {
            client,
            server: Arc::new(server),
        })
    }
}

/// What both sides share, as [`crate::transport`] sets it for quinn: the scenario's MTU, no MTU
/// discovery, no keep-alives, an idle timeout longer than the run.
fn base(scenario: &Scenario) -> Result<TransportConfig, TransportError> {
    let mut tc = TransportConfig::default();
    tc.initial_mtu(scenario.mtu.saturating_sub(IP_UDP_OVERHEAD as u16));
    tc.mtu_discovery_config(None);
    let idle_ms = idle_timeout(scenario).as_millis() as u64;
    tc.max_idle_timeout(Some(IdleTimeout::from(varint(idle_ms)?)));
    tc.keep_alive_interval(None);
    Ok(tc)
}

/// The ACK frequency request of [`crate::transport`]'s, in noq's type.
fn ack_frequency(flow: &Flow) -> AckFrequencyConfig {
    let mut ack = AckFrequencyConfig::default();
    ack.max_ack_delay(flow.max_ack_delay);
    if let Some(threshold) = flow.ack_eliciting_threshold_on_wire() {
        ack.ack_eliciting_threshold(VarInt::from_u32(threshold));
    }
    ack
}

fn varint(v: u64) -> Result<VarInt, TransportError> {
    VarInt::from_u64(v).map_err(|_| TransportError::Window(v))
}

/// noq's qlog trace of one endpoint's one connection, in the file a quinn flow's would have.
struct OneTrace {
    /// Taken by the connection that opens the trace; a second connection writes none.
    writer: Mutex<Option<Box<dyn Write + Send + Sync>>>,
    title: String,
    description: String,
    start: Instant,
}

impl OneTrace {
    fn create(
        q: &FlowQlog<'_>,
        role: &str,
        title: &str,
        peer: NoqPeer,
    ) -> Result<Self, TransportError> {
        let path = q.qlog.file(q.flow, role);
        let failed = |reason: String| TransportError::Qlog {
            path: path.clone(),
            reason,
        };
        std::fs::create_dir_all(&q.qlog.dir).map_err(|e| failed(e.to_string()))?;
        let file = File::create(&path).map_err(|e| failed(e.to_string()))?;
        Ok(Self {
            // Buffered, as quinn's; flushed when the connection is dropped, at the run's end.
            writer: Mutex::new(Some(Box::new(BufWriter::new(file)))),
            title: format!("{title} {role}"),
            description: format!("{role} of a {peer} flow (noq)"),
            start: q.start,
        })
    }
}

impl QlogFactory for OneTrace {
    fn for_connection(
        &self,
        _side: Side,
        _remote: SocketAddr,
        _initial_dst_cid: ConnectionId,
        _now: Instant,
    ) -> Option<QlogConfig> {
        let writer = self.writer.lock().ok()?.take()?;
        let mut config = QlogConfig::new(writer);
        config
            .title(Some(self.title.clone()))
            .description(Some(self.description.clone()))
            .start_time(self.start);
        Some(config)
    }
}
