//! TLS is always verified: a bank whose chain ends in a root the common stores lack is refused,
//! until that root is added from a PEM file. A real TLS server on 127.0.0.1, certificates made
//! with the `openssl` command.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use clientbank_api::{Client, Error, Retry, Token};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn openssl(dir: &Path, args: &[&str]) {
    let output = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl runs");
    assert!(
        output.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A private root and a server certificate for 127.0.0.1 issued by it.
fn certificates(dir: &Path) {
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let mut root = vec!["req", "-x509"];
    root.extend(ec);
    root.extend([
        "-keyout",
        "root.key",
        "-out",
        "root.pem",
        "-days",
        "2",
        "-subj",
        "/CN=Test Root CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign",
    ]);
    openssl(dir, &root);
    let mut request = vec!["req", "-new"];
    request.extend(ec);
    request.extend([
        "-keyout", "bank.key", "-out", "bank.csr", "-subj", "/CN=bank",
    ]);
    openssl(dir, &request);
    std::fs::write(dir.join("ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "bank.csr",
            "-CA",
            "root.pem",
            "-CAkey",
            "root.key",
            "-CAcreateserial",
            "-out",
            "bank.pem",
            "-days",
            "2",
            "-extfile",
            "ext",
        ],
    );
}

/// A bank on 127.0.0.1 over TLS that answers every request with `[]`.
async fn tls_bank(dir: &Path) -> String {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(dir.join("bank.pem"))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(dir.join("bank.key")).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(chain, key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(stream).await else {
                    return;
                };
                let mut buf = [0u8; 4096];
                let _ = tls.read(&mut buf).await;
                let _ = tls
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n[]")
                    .await;
                let _ = tls.shutdown().await;
            });
        }
    });
    format!("https://{addr}/v1")
}

#[tokio::test]
async fn a_private_root_is_trusted_only_when_added() {
    let dir = tempfile::tempdir().unwrap();
    certificates(dir.path());
    let url = tls_bank(dir.path()).await;
    let common = Client::builder(url.clone())
        .token(Token::new("t"))
        .retry(Retry::NONE)
        .build()
        .unwrap();
    let err = common.companies().await.unwrap_err();
    assert!(
        matches!(err, Error::Connect(_) | Error::Transport(_)),
        "verification refuses the unknown root: {err:?}"
    );
    let root = std::fs::read(dir.path().join("root.pem")).unwrap();
    let trusting = Client::builder(url)
        .token(Token::new("t"))
        .retry(Retry::NONE)
        .add_root_certificates_pem(&root)
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(trusting.companies().await.unwrap(), []);
}
