//! A real quinn server and client on loopback: the client uploads 20 MB with Composite TCP as its
//! congestion controller, and the controller's loss decisions are printed as `tracing` log lines.
//!
//! ```text
//! cargo run -p quinn-discern --example drop_in                                # loss decisions
//! RUST_LOG=discern::cwnd=trace cargo run -p quinn-discern --example drop_in   # and every window change
//! cargo run -p quinn-discern --example drop_in -- --json 2> drop_in.log       # a log to plot:
//! discern plot drop_in.log                                              # flows.csv, cwnd, throughput
//! ```

use std::error::Error;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use quinn::crypto::rustls::QuicClientConfig;
use quinn::{ClientConfig, Endpoint, ServerConfig, TransportConfig};
use rustls::pki_types::{CertificateDer, PrivatePkcs8KeyDer};
use tracing_subscriber::EnvFilter;

const BYTES: usize = 20_000_000;

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error + Send + Sync>> {
    if std::env::args().any(|a| a == "--json") {
        // One JSON object per event, every window change included: what `discern plot` reads.
        tracing_subscriber::fmt()
            .json()
            .with_writer(std::io::stderr)
            .with_env_filter(EnvFilter::new("discern::cwnd=trace"))
            .init();
    } else {
        tracing_subscriber::fmt()
            .with_env_filter(
                EnvFilter::try_from_default_env()
                    .unwrap_or_else(|_| EnvFilter::new("discern::cwnd=debug")),
            )
            .init();
    }

    let certified = rcgen::generate_simple_self_signed(vec!["localhost".into()])?;
    let cert = CertificateDer::from(certified.cert);
    let key = PrivatePkcs8KeyDer::from(certified.key_pair.serialize_der());

    let server = Endpoint::server(
        ServerConfig::with_single_cert(vec![cert.clone()], key.into())?,
        SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
    )?;
    let server_addr = server.local_addr()?;

    // The drop-in: a discern controller in the sender's transport config.
    let mut transport = TransportConfig::default();
    transport.congestion_controller_factory(Arc::new(quinn_discern::CompositeConfig::default()));

    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert)?;
    let crypto = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let mut client_config = ClientConfig::new(Arc::new(QuicClientConfig::try_from(crypto)?));
    client_config.transport_config(Arc::new(transport));
    let mut client = Endpoint::client(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    client.set_default_client_config(client_config);

    let receiver = tokio::spawn(async move {
        let connection = server.accept().await.ok_or("server closed")?.await?;
        let mut stream = connection.accept_uni().await?;
        let received = stream.read_to_end(BYTES + 1).await?;
        connection.close(0u32.into(), b"done");
        Ok::<_, Box<dyn Error + Send + Sync>>(received)
    });

    let data: Vec<u8> = (0..BYTES).map(|i| (i % 251) as u8).collect();
    let start = Instant::now();
    let connection = client.connect(server_addr, "localhost")?.await?;
    let mut stream = connection.open_uni().await?;
    stream.write_all(&data).await?;
    stream.finish()?;
    let received = receiver.await??;
    let elapsed = start.elapsed();

    if received != data {
        return Err("received bytes differ from the bytes sent".into());
    }
    let stats = connection.stats();
    println!(
        "{} MB verified in {:.2} s ({:.0} Mbit/s); {} packets lost, {} congestion events, final cwnd {} bytes",
        BYTES / 1_000_000,
        elapsed.as_secs_f64(),
        BYTES as f64 * 8.0 / elapsed.as_secs_f64() / 1e6,
        stats.path.lost_packets,
        stats.path.congestion_events,
        stats.path.cwnd,
    );
    client.wait_idle().await;
    Ok(())
}
