//! TLS 1.3 identities for a run, in either runner: one self-signed certificate, trusted by every
//! client and by nothing else. Ed25519 keeps signatures (and so handshake packet sizes) the same
//! length in every run, which determinism needs; the serial number is fixed for the same reason.

use std::sync::Arc;

use quinn_proto::crypto::rustls::QuicClientConfig;
use quinn_proto::{ClientConfig, ServerConfig};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A certificate or TLS configuration could not be built.
#[derive(Debug, thiserror::Error)]
#[error("TLS set-up: {0}")]
pub struct TlsError(String);

impl TlsError {
    pub fn new(reason: String) -> Self {
        Self(reason)
    }
}

/// The name every client connects to and the certificate names.
pub const SERVER_NAME: &str = "discern.sim";

pub struct Identity {
    cert: CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
}

impl Identity {
    pub fn generate() -> Result<Self, TlsError> {
        let tls = |e: rcgen::Error| TlsError(e.to_string());
        let key_pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ED25519).map_err(tls)?;
        let mut params =
            rcgen::CertificateParams::new(vec![SERVER_NAME.to_string()]).map_err(tls)?;
        params.serial_number = Some(rcgen::SerialNumber::from(1u64));
        let cert = params.self_signed(&key_pair).map_err(tls)?;
        Ok(Self {
            cert: cert.der().clone(),
            key: PrivatePkcs8KeyDer::from(key_pair.serialize_der()),
        })
    }

    pub fn server_config(&self) -> Result<ServerConfig, TlsError> {
        let mut config = ServerConfig::with_single_cert(
            vec![self.cert.clone()],
            PrivateKeyDer::Pkcs8(self.key.clone_key()),
        )
        .map_err(|e| TlsError(e.to_string()))?;
        // Address validation tokens would only add handshake noise.
        config.validation_token.sent(0);
        Ok(config)
    }

    pub fn client_config(&self) -> Result<ClientConfig, TlsError> {
        ClientConfig::with_root_certificates(self.roots()?).map_err(|e| TlsError(e.to_string()))
    }

    /// The client's TLS configuration exactly as [`ClientConfig::with_root_certificates`] builds
    /// it inside [`Identity::client_config`] (same provider, TLS 1.3 only, same verifier, early
    /// data enabled), for a caller that wraps it in a `quinn_proto::crypto` implementation of its
    /// own. Any difference would change the ClientHello, and with it the handshake's packets.
    pub fn client_crypto(&self) -> Result<QuicClientConfig, TlsError> {
        QuicClientConfig::try_from(self.rustls_client()?).map_err(|e| TlsError(e.to_string()))
    }

    /// The rustls configuration of [`Identity::client_crypto`], for a QUIC stack to wrap.
    pub fn rustls_client(&self) -> Result<rustls::ClientConfig, TlsError> {
        let tls = |e: &dyn std::fmt::Display| TlsError(e.to_string());
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = WebPkiServerVerifier::builder_with_provider(self.roots()?, provider.clone())
            .build()
            .map_err(|e| tls(&e))?;
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| tls(&e))?
            .with_webpki_verifier(verifier)
            .with_no_client_auth();
        config.enable_early_data = true;
        Ok(config)
    }

    /// The certificate and its private key, for a QUIC stack's server configuration.
    pub fn cert_and_key(&self) -> (CertificateDer<'static>, PrivateKeyDer<'static>) {
        (
            self.cert.clone(),
            PrivateKeyDer::Pkcs8(self.key.clone_key()),
        )
    }

    /// Trust in this identity's certificate alone.
    fn roots(&self) -> Result<Arc<rustls::RootCertStore>, TlsError> {
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(self.cert.clone())
            .map_err(|e| TlsError(e.to_string()))?;
        Ok(Arc::new(roots))
    }
}

/// The application protocol a flow to a foreign receiver negotiates: QUIC requires ALPN
/// (RFC 9001 section 8.1), and s2n-quic refuses a handshake without one.
pub const ALPN: &[u8] = b"discern";

/// The identity of a receiver that is not quinn (namespaces only). s2n-tls does not decode
/// Ed25519 certificates ("error decoding certificate"), so this one is ECDSA P-256; the
/// simulator's determinism, which chose Ed25519 above, does not apply on real clocks.
pub struct ForeignIdentity {
    cert: CertificateDer<'static>,
    cert_pem: String,
    key_pem: String,
}

impl ForeignIdentity {
    pub fn generate() -> Result<Self, TlsError> {
        let tls = |e: rcgen::Error| TlsError(e.to_string());
        let key_pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).map_err(tls)?;
        let params = rcgen::CertificateParams::new(vec![SERVER_NAME.to_string()]).map_err(tls)?;
        let cert = params.self_signed(&key_pair).map_err(tls)?;
        Ok(Self {
            cert: cert.der().clone(),
            cert_pem: cert.pem(),
            key_pem: key_pair.serialize_pem(),
        })
    }

    /// The certificate chain, PEM, as the receiver's TLS library loads it.
    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// The private key, PEM (PKCS #8).
    pub fn key_pem(&self) -> &str {
        &self.key_pem
    }

    /// A quinn client that trusts this identity alone and offers [`ALPN`], over TLS 1.3 with
    /// the same provider as [`Identity::client_config`].
    pub fn client_config(&self) -> Result<ClientConfig, TlsError> {
        let tls = |e: &dyn std::fmt::Display| TlsError(e.to_string());
        let mut roots = rustls::RootCertStore::empty();
        roots.add(self.cert.clone()).map_err(|e| tls(&e))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| tls(&e))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![ALPN.to_vec()];
        let crypto = QuicClientConfig::try_from(config).map_err(|e| tls(&e))?;
        Ok(ClientConfig::new(Arc::new(crypto)))
    }
}
