//! The signers of the configuration: `[signer]` and `[signers."INN"]`, checked as they are
//! read.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Settings, SignerConfig, Signing, beside};
use crate::Error;

impl Settings {
    /// The signers of `[signer]` and `[signers."INN"]` (paths relative to the file's folder);
    /// `signing = "auto"` needs one.
    pub(super) fn set_signers(
        &mut self,
        signer: Option<SignerConfig>,
        signers: BTreeMap<String, SignerConfig>,
        base: &Path,
        path: &Path,
    ) -> Result<(), Error> {
        let command = |key: String, signer: SignerConfig| -> Result<Vec<String>, Error> {
            if signer.command.is_empty() || signer.command[0].trim().is_empty() {
                return Err(Error::config(
                    format!(
                        "{key}.command: the signer's program is missing (an argv list such as \
                         [\"openssl\", \"cms\", \"-sign\", …, \"-in\", \"{{input}}\", \
                         \"-out\", \"{{output}}\"])"
                    ),
                    format!(
                        "{key}.command: не указана программа подписи (список аргументов, \
                         например [\"openssl\", \"cms\", \"-sign\", …, \"-in\", \
                         \"{{input}}\", \"-out\", \"{{output}}\"])"
                    ),
                ));
            }
            // The signer reads the content from {input} and writes the signature to {output}
            // (its standard input is empty): without them it can only fail at the first file.
            for placeholder in ["{input}", "{output}"] {
                if !signer.command.iter().any(|a| a.contains(placeholder)) {
                    return Err(Error::config(
                        format!(
                            "{key}.command: no argument names {placeholder}: clientbank gives the \
                             content to sign in the file {{input}} and takes the signature from \
                             {{output}} (e.g. \"-in\", \"{{input}}\", \"-out\", \"{{output}}\")"
                        ),
                        format!(
                            "{key}.command: ни один аргумент не содержит {placeholder}: clientbank \
                             передаёт подписываемое в файле {{input}} и берёт подпись из \
                             {{output}} (например \"-in\", \"{{input}}\", \"-out\", \"{{output}}\")"
                        ),
                    ));
                }
            }
            Ok(beside(base, signer.command))
        };
        self.signer = signer.map(|s| command("signer".into(), s)).transpose()?;
        for (company, signer) in signers {
            company_key(&company)?;
            let argv = command(format!("signers.{company}"), signer)?;
            self.signers.insert(company, argv);
        }
        if self.signing == Signing::Auto && self.signer.is_none() && self.signers.is_empty() {
            return Err(Error::config(
                format!(
                    "{}: signing = \"auto\" signs right after upload, but no signer is \
                     configured: add [signer] command = [...] (or [signers.\"INN\"]), or sign \
                     with `clientbank sign` (signing = \"manual\")",
                    path.display()
                ),
                format!(
                    "{}: signing = \"auto\" подписывает сразу после загрузки, но подпись не \
                     настроена: добавьте [signer] command = [...] (или [signers.\"ИНН\"]) или \
                     подписывайте командой `clientbank sign` (signing = \"manual\")",
                    path.display()
                ),
            ));
        }
        Ok(())
    }
}

/// A `[signers."…"]` key: a company's INN (10 digits, or 12 for a sole trader) or the bank's
/// id of the company; digits of another length are an INN mistyped, which no payment would
/// ever match.
fn company_key(key: &str) -> Result<(), Error> {
    let digits = !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit());
    if digits && key.len() != 10 && key.len() != 12 {
        let n = key.len();
        return Err(Error::config(
            format!(
                "[signers.\"{key}\"]: {n} digits are no INN (a company's has 10, a sole \
                 trader's 12): no payment would find this signer"
            ),
            format!(
                "[signers.\"{key}\"]: {n} цифр — не ИНН (у организации 10, у ИП 12): ни один \
                 платёж не найдёт эту подпись"
            ),
        ));
    }
    Ok(())
}
