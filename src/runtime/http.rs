//! The HTTP client of deliveries and exchanges: http:// and https:// through one connection pool,
//! with the system's root certificates and `--https-ca`, and how a failed request failed.
//! It must not depend on the state, the services, the protocols or the server.

use bytes::Bytes;
use http_body_util::Full;
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use std::path::Path;
use std::sync::Arc;

/// An HTTP request as a delivery or an exchange sends it.
pub(super) fn build_request(
    method: &str,
    url: &str,
    headers: Vec<(String, String)>,
    body: String,
) -> Result<hyper::Request<Full<Bytes>>, hyper::http::Error> {
    let mut request = hyper::Request::builder().method(method).uri(url);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    request.body(Full::new(Bytes::from(body)))
}

/// The client of HTTP/S deliveries: http:// and https:// through one connection pool, TCP_NODELAY,
/// HTTP/1.1. HTTPS trusts the system's root certificates and `extra_ca`, the certificates of
/// `--https-ca` ([`load_https_ca`], read when the runtime was made).
pub(super) fn delivery_client(
    extra_ca: &[CertificateDer<'static>],
) -> Client<HttpsConnector<HttpConnector>, Full<Bytes>> {
    let mut roots = system_roots().clone();
    roots.add_parsable_certificates(extra_ca.iter().cloned());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring supports the default TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    let mut tcp = HttpConnector::new();
    tcp.set_nodelay(true);
    tcp.enforce_http(false);
    let connector = HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .wrap_connector(tcp);
    Client::builder(TokioExecutor::new()).build(connector)
}

/// The system's trusted root certificates, read once per process (tests start many emulators).
fn system_roots() -> &'static RootCertStore {
    static ROOTS: std::sync::OnceLock<RootCertStore> = std::sync::OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        for e in &found.errors {
            tracing::warn!("system root certificates: {e}");
        }
        let mut roots = RootCertStore::empty();
        let (_, ignored) = roots.add_parsable_certificates(found.certs);
        if ignored > 0 {
            tracing::debug!("{ignored} system root certificates could not be parsed");
        }
        roots
    })
}

/// The CA certificates of a PEM file (`--https-ca`), checked to be usable as trust anchors.
pub fn load_https_ca(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let shown = path.display();
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("{shown}: {e}"))?;
    if certs.is_empty() {
        return Err(format!("{shown}: no CERTIFICATE in the PEM file"));
    }
    let mut check = RootCertStore::empty();
    for cert in &certs {
        check
            .add(cert.clone())
            .map_err(|e| format!("{shown}: not a usable CA certificate: {e}"))?;
    }
    Ok(certs)
}

/// Whether a failed request failed in the TLS handshake (untrusted certificate, wrong host name,
/// alert from the server): a rustls error somewhere in the chain, possibly inside `io::Error`s.
pub(super) fn is_tls_error(e: &(dyn std::error::Error + 'static)) -> bool {
    if e.is::<rustls::Error>() {
        return true;
    }
    if let Some(inner) = e
        .downcast_ref::<std::io::Error>()
        .and_then(|io| io.get_ref())
        && is_tls_error(inner)
    {
        return true;
    }
    e.source().is_some_and(is_tls_error)
}
