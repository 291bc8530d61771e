//! `bank_url` checked where it is read, so that a wrong address is said with where it came
//! from: the configuration's file and line, or the environment variable.

use std::path::Path;

use crate::Error;

/// Refuses an address the client would refuse, saying `place` (`FILE:LINE` or the variable).
pub(super) fn checked(url: &str, place: &str) -> Result<(), Error> {
    match clientbank_api::bank_address(url) {
        Ok(_) => Ok(()),
        Err(clientbank_api::Error::Config(said)) => Err(Error::config(
            format!("{place}: bank_url {url:?}: {}", said.en()),
            format!("{place}: bank_url {url:?}: {}", said.ru()),
        )),
        Err(e) => Err(Error::Api(e)),
    }
}

/// `FILE:LINE` of the `bank_url` key in the configuration's `text` (the file alone when the
/// key is not found on a line of its own).
pub(super) fn in_file(path: &Path, text: &str) -> String {
    let line = text.lines().position(|l| {
        l.trim_start()
            .strip_prefix("bank_url")
            .is_some_and(|rest| rest.trim_start().starts_with('='))
    });
    match line {
        Some(n) => format!("{}:{}", path.display(), n + 1),
        None => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_address_is_said_with_where_it_came_from() {
        let path = Path::new("d/clientbank.toml");
        let text = "# the bank\n\nbank_url = \"ftp://bank.example/v1\"\n";
        let place = in_file(path, text);
        assert_eq!(place, "d/clientbank.toml:3");
        for (url, en, ru) in [
            (
                "ftp://bank.example/v1",
                "unsupported scheme ftp://",
                "схема ftp:// не поддерживается",
            ),
            ("bank", "not a URL", "не URL: нет схемы и сервера"),
            (
                "http://bank.example/v1",
                "only to a loopback address",
                "только к адресу этой машины",
            ),
        ] {
            let e = checked(url, &place).unwrap_err().message();
            assert!(
                e.en().contains("d/clientbank.toml:3: bank_url ") && e.en().contains(en),
                "{}",
                e.en()
            );
            assert!(
                e.ru().contains("d/clientbank.toml:3: bank_url ") && e.ru().contains(ru),
                "{}",
                e.ru()
            );
        }
        assert!(checked("https://bank.example/v1", "CLIENTBANK_BASE_URL").is_ok());
        assert!(checked("http://127.0.0.1:8080/v1", "CLIENTBANK_BASE_URL").is_ok());
        let e = checked("127.0.0.1:8080", "CLIENTBANK_BASE_URL").unwrap_err();
        assert!(
            e.to_string().contains("CLIENTBANK_BASE_URL: bank_url"),
            "{e}"
        );
    }
}
