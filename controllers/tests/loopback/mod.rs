//! A real quinn server and client on loopback with a self-signed certificate: the client
//! uploads bytes with the given transport config.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use quinn::crypto::rustls::QuicClientConfig;
use quinn::{ClientConfig, Endpoint, ServerConfig, TransportConfig};
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
