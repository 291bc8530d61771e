//! Checking a detached CMS signature with the `openssl` command (RSA, ECDSA, and GOST 2012
//! when `OPENSSL_CONF` loads the gost engine).

use std::path::Path;
use std::process::Command;

use chrono::NaiveDateTime;

/// Why a signature is not accepted.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SignProblem {
    /// Not a CMS signature over exactly this content.
    Invalid(String),
    /// The certificate is not valid at the given moment.
    Expired { subject: String, not_after: String },
    /// Not yet valid.
    NotYetValid { subject: String, not_before: String },
    /// The bank cannot check signatures: the program it checks them with cannot run (the
    /// message names it).
    Unavailable(String),
}

/// The signer's certificate, as far as the bank needs it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Signer {
    /// Its common name (or the whole subject when it has none).
    pub(crate) subject: String,
    /// The INNs it names: INNLE (OID 1.2.643.100.4) and INN (1.2.643.3.131.1.1), the latter's
    /// `00` prefix of a legal entity's 10-digit INN removed.
    pub(crate) inns: Vec<String>,
}

impl Signer {
    /// Whether the certificate is one of the company with this INN.
    pub(crate) fn is_of(&self, inn: &str) -> bool {
        !inn.is_empty() && self.inns.iter().any(|i| i == inn)
    }
}

/// OIDs of the subject attributes read (printed by number: openssl 3.0 has no name for INNLE).
const OID_CN: &str = "2.5.4.3";
const OID_INN: &str = "1.2.643.3.131.1.1";
const OID_INNLE: &str = "1.2.643.100.4";

/// Verifies `signature` (DER) as a detached CMS signature over `content`, by a certificate
/// valid at `now` (UTC); the signer.
pub(crate) fn verify(
    content: &[u8],
    signature: &[u8],
    now: NaiveDateTime,
    conf: Option<&Path>,
) -> Result<Signer, SignProblem> {
    let dir = tempfile::tempdir().map_err(|e| SignProblem::Invalid(e.to_string()))?;
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).map(|_| path)
    };
    let invalid = |e: std::io::Error| SignProblem::Invalid(e.to_string());
    let data = write("content", content).map_err(invalid)?;
    let sig = write("signature.der", signature).map_err(invalid)?;
    let certs = dir.path().join("signer.pem");
    let verified = openssl(
        conf,
        &[
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            path(&sig),
            "-content",
            path(&data),
            // The sandbox trusts any signer: there is no qualified CA to chain to here.
            "-noverify",
            "-certsout",
            path(&certs),
            "-out",
            path(&dir.path().join("out")),
        ],
    )?;
    if !verified.0 {
        return Err(SignProblem::Invalid(first_line(&verified.1)));
    }
    let (ok, text) = openssl(
        conf,
        &[
            "x509",
            "-in",
            path(&certs),
            "-noout",
            "-subject",
            "-startdate",
            "-enddate",
            "-nameopt",
            "utf8,sep_multiline,oid",
        ],
    )?;
    if !ok {
        return Err(SignProblem::Invalid(first_line(&text)));
    }
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    // The subject, one attribute a line: `    OID=value`.
    let attributes: Vec<(&str, &str)> = text
        .lines()
        .filter(|l| l.starts_with(' '))
        .filter_map(|l| l.trim().split_once('='))
        .collect();
    let subject = attributes
        .iter()
        .find(|(oid, _)| *oid == OID_CN)
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_else(|| {
            attributes
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", ")
        });
    let inns = attributes
        .iter()
        .filter(|(oid, _)| *oid == OID_INN || *oid == OID_INNLE)
        .map(|(_, v)| {
            let v = v.trim();
            match v.strip_prefix("00") {
                Some(legal) if v.len() == 12 => legal.to_string(),
                _ => v.to_string(),
            }
        })
        .collect();
    let not_before = field("notBefore=");
    let not_after = field("notAfter=");
    let parse = |text: &str| {
        NaiveDateTime::parse_from_str(text.trim_end_matches(" GMT"), "%b %e %H:%M:%S %Y").ok()
    };
    match (parse(&not_before), parse(&not_after)) {
        (Some(from), _) if now < from => Err(SignProblem::NotYetValid {
            subject,
            not_before: from.format("%d.%m.%Y").to_string(),
        }),
        (_, Some(until)) if now > until => Err(SignProblem::Expired {
            subject,
            not_after: until.format("%d.%m.%Y").to_string(),
        }),
        (Some(_), Some(_)) => Ok(Signer { subject, inns }),
        _ => Err(SignProblem::Invalid(format!(
            "cannot read the certificate's validity: {not_before} … {not_after}"
        ))),
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap_or_default()
}

fn first_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or("verification failed")
        .to_string()
}

/// The program signatures are checked with.
const OPENSSL: &str = "openssl";

/// Runs `openssl`; whether it succeeded and what it printed (stdout, then stderr).
fn openssl(conf: Option<&Path>, args: &[&str]) -> Result<(bool, String), SignProblem> {
    run(OPENSSL, conf, args)
}

/// Why `program` cannot run, naming it.
fn cannot_run(program: &str, e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::NotFound {
        format!(
            "the `{program}` program was not found on the PATH: the sandbox bank checks \
             signatures with it; install it (Debian: `apt-get install openssl`)"
        )
    } else {
        format!("cannot run the `{program}` program: {e}")
    }
}

/// Why signatures cannot be checked on this machine (`openssl` missing), if they cannot.
pub(crate) fn checker_missing() -> Option<String> {
    Command::new(OPENSSL)
        .arg("version")
        .output()
        .err()
        .map(|e| cannot_run(OPENSSL, &e))
}

fn run(program: &str, conf: Option<&Path>, args: &[&str]) -> Result<(bool, String), SignProblem> {
    let mut command = Command::new(program);
    if let Some(conf) = conf {
        command.env("OPENSSL_CONF", conf);
    }
    let output = command
        .args(args)
        .output()
        .map_err(|e| SignProblem::Unavailable(cannot_run(program, &e)))?;
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    Ok((output.status.success(), text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_is_named() {
        let program = "clientbank-test-no-such-openssl";
        let Err(SignProblem::Unavailable(why)) = run(program, None, &["version"]) else {
            panic!("a missing program is not an invalid signature");
        };
        assert!(
            why.contains(&format!("`{program}` program was not found")),
            "{why}"
        );
        assert!(why.contains("PATH"), "{why}");
    }
}
