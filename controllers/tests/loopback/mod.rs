//! A real quinn server and client on loopback with a self-signed certificate: the client
//! uploads bytes with the given transport config; and a real quinn `RttEstimator`, which only
//! quinn-proto can build, captured from such a connection.

#![allow(dead_code)]

use std::any::Any;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use quinn::crypto::rustls::QuicClientConfig;
use quinn::{ClientConfig, Endpoint, ServerConfig, TransportConfig};
use quinn_proto::congestion::{Controller, ControllerFactory, NewRenoConfig};
use quinn_proto::RttEstimator;
use rustls::pki_types::{CertificateDer, PrivatePkcs8KeyDer};

/// Sends `data` from a client using `transport` to a fresh loopback server and returns what the
/// server received.
pub async fn upload(transport: TransportConfig, data: Arc<Vec<u8>>) -> Vec<u8> {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let cert = CertificateDer::from(certified.cert);
    let key = PrivatePkcs8KeyDer::from(certified.key_pair.serialize_der());

    let server_config = ServerConfig::with_single_cert(vec![cert.clone()], key.into()).unwrap();
    let loopback = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
    let server = Endpoint::server(server_config, loopback).unwrap();
    let server_addr = server.local_addr().unwrap();

    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert).unwrap();
    let crypto = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let mut client_config =
        ClientConfig::new(Arc::new(QuicClientConfig::try_from(crypto).unwrap()));
    client_config.transport_config(Arc::new(transport));
    let mut client = Endpoint::client(loopback).unwrap();
    client.set_default_client_config(client_config);

    let limit = data.len() + 1;
    let receiver = tokio::spawn(async move {
        let connection = server.accept().await.unwrap().await.unwrap();
        let mut stream = connection.accept_uni().await.unwrap();
        let received = stream.read_to_end(limit).await.unwrap();
        connection.close(0u32.into(), b"done");
        server.wait_idle().await;
        received
    });

    let connection = client
        .connect(server_addr, "localhost")
        .unwrap()
        .await
        .unwrap();
    let mut stream = connection.open_uni().await.unwrap();
    stream.write_all(&data).await.unwrap();
    stream.finish().unwrap();
    let received = receiver.await.unwrap();
    client.wait_idle().await;
    received
}

type Captured = Arc<Mutex<Option<RttEstimator>>>;

/// quinn's NewReno that keeps a copy of the RTT estimator it is handed (`RttEstimator` is
/// `Copy`).
struct Probe {
    inner: Box<dyn Controller>,
    captured: Captured,
}

impl Controller for Probe {
    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: &RttEstimator,
    ) {
        *self.captured.lock().unwrap() = Some(*rtt);
        self.inner.on_ack(now, sent, bytes, app_limited, rtt);
    }

    fn on_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        persistent: bool,
        lost_bytes: u64,
    ) {
        self.inner
            .on_congestion_event(now, sent, persistent, lost_bytes);
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.inner.on_mtu_update(new_mtu);
    }

    fn window(&self) -> u64 {
        self.inner.window()
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(Probe {
            inner: self.inner.clone_box(),
            captured: self.captured.clone(),
        })
    }

    fn initial_window(&self) -> u64 {
        self.inner.initial_window()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

struct ProbeFactory(Captured);

impl ControllerFactory for ProbeFactory {
    fn build(self: Arc<Self>, now: Instant, mtu: u16) -> Box<dyn Controller> {
        Box::new(Probe {
            inner: Arc::new(NewRenoConfig::default()).build(now, mtu),
            captured: self.0.clone(),
        })
    }
}

/// A real `RttEstimator`, as it stood after a loopback connection moved 1 MB.
pub fn real_rtt_estimator() -> RttEstimator {
    let captured = Captured::default();
    let mut transport = TransportConfig::default();
    transport.congestion_controller_factory(Arc::new(ProbeFactory(captured.clone())));
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(upload(transport, Arc::new(vec![7u8; 1 << 20])));
    let estimator = captured.lock().unwrap().take();
    estimator.expect("the probe saw an ACK")
}
