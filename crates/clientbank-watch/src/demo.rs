//! `clientbank watch --demo`: the sample drops (a good 1C file, a good JSON file, a file with
//! an error) and throwaway signers for the sandbox bank's companies.

use std::collections::BTreeMap;
use std::path::Path;

use crate::{Error, signer};

/// The sample drops: name and bytes (`testdata/drops/`).
pub const DROPS: &[(&str, &[u8])] = &[
    (
        "1c_to_kl.txt",
        include_bytes!("../../../testdata/drops/1c_to_kl.txt"),
    ),
    (
        "payments.json",
        include_bytes!("../../../testdata/drops/payments.json"),
    ),
    (
        "with-error.txt",
        include_bytes!("../../../testdata/drops/with-error.txt"),
    ),
];

/// The INNs of the sandbox bank's companies that the demo signs for.
pub const SANDBOX_INNS: &[&str] = &["7701234560", "500100732259"];

/// Copies the sample drops into `inbox`.
pub fn copy_drops(inbox: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(inbox)
        .map_err(|e| Error::Io(format!("cannot create {}: {e}", inbox.display())))?;
    for (name, bytes) in DROPS {
        let path = inbox.join(name);
        std::fs::write(&path, bytes)
            .map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// A throwaway openssl key and certificate per sandbox company, made in `keys`; the signers
/// by INN.
pub fn signers(keys: &Path) -> Result<BTreeMap<String, Vec<String>>, Error> {
    let mut out = BTreeMap::new();
    for inn in SANDBOX_INNS {
        out.insert(inn.to_string(), signer::throwaway_openssl(keys, inn)?);
    }
    Ok(out)
}
