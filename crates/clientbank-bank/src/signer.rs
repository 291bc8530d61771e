//! The signer command: an argv list with `{input}` and `{output}` placeholders, run without a
//! shell; the signed string goes in the input file, the output file holds the detached
//! signature (DER), which is Base64-encoded for the bank.

use std::process::Command;

use base64::Engine;
use clientbank_diagnostic::os;
use clientbank_format::{Message, tr};

use crate::Error;

/// Signs `content` with the command `argv`; the signature, Base64.
pub fn sign(argv: &[String], content: &str) -> Result<String, Error> {
    let Some(program) = argv.first() else {
        return Err(Error::Signer(Message::new(
            "the signer command is empty",
            "команда подписи пуста",
        )));
    };
    let dir = tempfile::tempdir().map_err(|e| {
        let e = os::io_error(&e);
        Error::Signer(tr!(
            "cannot make a temporary folder: {e}" ;
            "не удалось создать временную папку: {}", e.ru()
        ))
    })?;
    let input = dir.path().join("content.txt");
    let output = dir.path().join("signature.der");
    std::fs::write(&input, content).map_err(|e| {
        let (what, e) = (
            os::cannot(os::Act::Write, input.display()),
            os::io_error(&e),
        );
        Error::Signer(tr!("{what}: {e}" ; "{}: {}", what.ru(), e.ru()))
    })?;
    let args: Vec<String> = argv[1..]
        .iter()
        .map(|a| {
            a.replace("{input}", &input.to_string_lossy())
                .replace("{output}", &output.to_string_lossy())
        })
        .collect();
    let ran = Command::new(program)
        .args(&args)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| {
            not_run(program, &e, || {
                tr!(
                    "the signer program `{program}` is not found: install it or fix the signer \
                     command in the configuration" ;
                    "программа подписи `{program}` не найдена: установите её или исправьте \
                     команду подписи в настройках"
                )
            })
        })?;
    succeeded(
        &ran,
        tr!(
            "the signer `{program}` failed" ;
            "программа подписи `{program}` завершилась с ошибкой"
        ),
    )?;
    let der = std::fs::read(&output).map_err(|e| {
        let e = os::io_error(&e);
        Error::Signer(tr!(
            "the signer `{program}` wrote no signature to {{output}}: {e}" ;
            "программа подписи `{program}` не записала подпись в {{output}}: {}", e.ru()
        ))
    })?;
    if der.is_empty() {
        return Err(Error::Signer(tr!(
            "the signer `{program}` wrote an empty signature" ;
            "программа подписи `{program}` записала пустую подпись"
        )));
    }
    Ok(base64::engine::general_purpose::STANDARD.encode(der))
}

/// A throwaway EC key and self-signed certificate naming the company's INN (as the bank wants
/// it: a 10-digit INN of a legal entity written `00` + INN), made with `openssl` in `dir`, valid
/// from the day before `valid_on` to two days after it (on the bank's clock, which need not be
/// this machine's: `openssl req -x509` would date it from this machine's now, so the
/// certificate is issued with `openssl ca -selfsign`, which takes its dates); the signer
/// command that signs with them (`openssl cms -sign`, detached, DER).
pub fn throwaway_openssl(
    dir: &std::path::Path,
    inn: &str,
    valid_on: chrono::NaiveDate,
) -> Result<Vec<String>, Error> {
    let io = |e: std::io::Error| {
        let e = os::io_error(&e);
        Error::Signer(tr!(
            "cannot make a demo certificate: {e}" ;
            "не удалось сделать сертификат для примера: {}", e.ru()
        ))
    };
    // openssl runs in the CA folder: every path it is given is absolute.
    let dir = std::path::absolute(dir).map_err(io)?;
    let key = dir.join(format!("{inn}.key.pem"));
    let cert = dir.join(format!("{inn}.cert.pem"));
    let ca = dir.join(format!("{inn}.ca"));
    let subject_inn = if inn.len() == 10 {
        format!("00{inn}")
    } else {
        inn.to_string()
    };
    std::fs::create_dir_all(&ca).map_err(io)?;
    std::fs::write(ca.join("index.txt"), "").map_err(io)?;
    std::fs::write(ca.join("serial"), "01\n").map_err(io)?;
    // Paths in the configuration are relative to `ca`, where openssl runs: an absolute path
    // there would need openssl's escapes (a Windows path's backslashes).
    std::fs::write(
        ca.join("ca.cnf"),
        "[ca]\ndefault_ca = demo\n[demo]\ndatabase = index.txt\nnew_certs_dir = .\n\
         serial = serial\ndefault_md = sha256\npolicy = any\npreserve = yes\n\
         unique_subject = no\nemail_in_dn = no\n[any]\ncommonName = supplied\nINN = optional\n",
    )
    .map_err(io)?;
    let day = |d: Option<chrono::NaiveDate>| d.unwrap_or(valid_on).format("%Y%m%d000000Z");
    let (from, till) = (
        day(valid_on.pred_opt()).to_string(),
        day(valid_on.checked_add_days(chrono::Days::new(3))).to_string(),
    );
    let request = ca.join("request.csr");
    let subject = format!("/CN=Demo signer/INN={subject_inn}");
    let os = std::ffi::OsStr::new;
    let steps: [Vec<&std::ffi::OsStr>; 2] = [
        vec![
            os("req"),
            os("-new"),
            os("-newkey"),
            os("ec"),
            os("-pkeyopt"),
            os("ec_paramgen_curve:prime256v1"),
            os("-nodes"),
            os("-utf8"),
            os("-subj"),
            os(&subject),
            os("-keyout"),
            key.as_os_str(),
            os("-out"),
            request.as_os_str(),
        ],
        vec![
            os("ca"),
            os("-batch"),
            os("-selfsign"),
            os("-notext"),
            os("-utf8"),
            os("-config"),
            os("ca.cnf"),
            os("-keyfile"),
            key.as_os_str(),
            os("-in"),
            request.as_os_str(),
            os("-out"),
            cert.as_os_str(),
            os("-startdate"),
            os(&from),
            os("-enddate"),
            os(&till),
        ],
    ];
    for args in steps {
        openssl(&args, &ca)?;
    }
    Ok(vec![
        "openssl".into(),
        "cms".into(),
        "-sign".into(),
        "-binary".into(),
        "-outform".into(),
        "DER".into(),
        "-signer".into(),
        cert.to_string_lossy().into_owned(),
        "-inkey".into(),
        key.to_string_lossy().into_owned(),
        "-in".into(),
        "{input}".into(),
        "-out".into(),
        "{output}".into(),
    ])
}

/// Whether a program that ran succeeded; else `what` failed, with how it ended.
fn succeeded(ran: &std::process::Output, what: Message) -> Result<(), Error> {
    if ran.status.success() {
        return Ok(());
    }
    let how = os::failed_run(ran.status, &ran.stderr);
    Err(Error::Signer(
        tr!("{what} ({how})" ; "{} ({})", what.ru(), how.ru()),
    ))
}

/// A program that could not be started: `missing` when it is not found, else the system's
/// reason.
fn not_run(program: &str, e: &std::io::Error, missing: impl FnOnce() -> Message) -> Error {
    if e.kind() == std::io::ErrorKind::NotFound {
        return Error::Signer(missing());
    }
    let e = os::io_error(e);
    Error::Signer(tr!(
        "cannot run `{program}`: {e}" ;
        "не удалось запустить `{program}`: {}", e.ru()
    ))
}

/// Runs one `openssl` step of the demo certificate in `dir`.
fn openssl(args: &[&std::ffi::OsStr], dir: &std::path::Path) -> Result<(), Error> {
    let ran = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| {
            not_run("openssl", &e, || {
                Message::new(
                    "the `openssl` program is not found: the demo signs with it (install openssl)",
                    "программа `openssl` не найдена: пример подписывает ею (установите openssl)",
                )
            })
        })?;
    succeeded(
        &ran,
        Message::new(
            "openssl could not make a demo certificate",
            "openssl не смог сделать сертификат для примера",
        ),
    )
}

/// Tries every signer of `settings` on a test string, before anything is uploaded: a signer
/// that cannot run (a program missing, a certificate not found, a wrong password) stops the
/// command at its start, not after the payments went to the bank. The error names the signer.
pub fn try_signers(settings: &crate::Settings) -> Result<(), Error> {
    let named = settings
        .signer
        .iter()
        .map(|argv| ("signer".to_string(), argv))
        .chain(
            settings
                .signers
                .iter()
                .map(|(company, argv)| (format!("signers.\"{company}\""), argv)),
        );
    for (name, argv) in named {
        sign(argv, "clientbank: a signer check, not a payment").map_err(|e| {
            let e = match e {
                Error::Signer(why) => why,
                other => other.message(),
            };
            Error::Signer(tr!(
                "{name} cannot sign ({e}): nothing goes to the bank until it can; fix the signer \
                 command in the configuration (paths in it are relative to the configuration \
                 file)" ;
                "{name} не может подписать ({}): в банк ничего не отправляется, пока не сможет; \
                 исправьте команду подписи в настройках (пути в ней — относительно файла \
                 настроек)", e.ru()
            ))
        })?;
    }
    Ok(())
}

impl crate::Settings {
    /// Refuses settings that cannot send: no bank to reach ([`crate::Settings::client`]), or a
    /// signer that cannot sign ([`try_signers`]); said before a folder is touched and anything
    /// is uploaded.
    pub fn ready_to_send(&self) -> Result<(), Error> {
        self.client()?;
        try_signers(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_is_named() {
        let e = sign(&["no-such-signer-program-x".into()], "a,b").unwrap_err();
        assert!(e.to_string().contains("no-such-signer-program-x"), "{e}");
        assert!(e.to_string().contains("not found"), "{e}");
        // Issue 19: said in Russian whole, the program's name kept.
        let ru = e.message().ru().to_string();
        assert_eq!(
            ru,
            "подпись: программа подписи `no-such-signer-program-x` не найдена: установите её \
             или исправьте команду подписи в настройках"
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_output_file_is_encoded() {
        // `cp {input} {output}`: the "signature" is the content itself.
        let argv: Vec<String> = ["cp", "{input}", "{output}"].map(String::from).to_vec();
        let b64 = sign(&argv, "id1,id2").unwrap();
        assert_eq!(
            b64,
            base64::engine::general_purpose::STANDARD.encode("id1,id2")
        );
        let e = sign(&["false".into()], "x").unwrap_err();
        assert!(e.to_string().contains("failed"), "{e}");
        assert!(
            e.message().ru().contains("завершилась с ошибкой"),
            "{:?}",
            e.message()
        );
        let e = sign(&["true".into()], "x").unwrap_err();
        assert!(e.message().ru().contains("не записала подпись"), "{e}");
        assert!(e.message().ru().contains("нет такого файла"), "{e}");
    }
}
