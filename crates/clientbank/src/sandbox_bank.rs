//! The built-in sandbox bank, the one place the binary names it: behind the cargo feature
//! `sandbox` (in the default build). Without the feature, `--sandbox` and `clientbank sandbox`
//! say the build has none.

use clientbank_format::Message;

use crate::exit::Failure;

#[cfg(feature = "sandbox")]
pub(crate) use clientbank_sandbox::Sandbox;

/// No sandbox bank in this build: a value of it cannot exist.
#[cfg(not(feature = "sandbox"))]
pub(crate) enum Sandbox {}

#[cfg(not(feature = "sandbox"))]
impl Sandbox {
    /// Never called: there is no sandbox bank to ask.
    pub(crate) fn url(&self) -> String {
        match *self {}
    }
}

/// Stopped when dropped, as the real one is (so callers read the same either way).
#[cfg(not(feature = "sandbox"))]
impl Drop for Sandbox {
    fn drop(&mut self) {
        match *self {}
    }
}

/// The sandbox bank, started in-process on a free loopback port, with its redirect address set
/// to `redirect_uri` when one is given; a failure is said.
#[cfg(feature = "sandbox")]
pub(crate) async fn start(redirect_uri: Option<&str>) -> Result<Sandbox, Failure> {
    let mut config = clientbank_sandbox::Config::default();
    if let Some(uri) = redirect_uri {
        config.redirect_uri = uri.to_string();
    }
    Sandbox::start(config).await.map_err(|e| {
        Failure::Stopped(Message::new(
            format!("cannot start the sandbox bank: {e}"),
            format!(
                "не удалось запустить тестовый банк: {}",
                clientbank_diagnostic::os::Ru(&e)
            ),
        ))
    })
}

/// This build has no sandbox bank: said, exit 2.
#[cfg(not(feature = "sandbox"))]
pub(crate) async fn start(_redirect_uri: Option<&str>) -> Result<Sandbox, Failure> {
    Err(missing())
}

/// This build has no sandbox bank: exit 2.
#[cfg(not(feature = "sandbox"))]
pub(crate) fn missing() -> Failure {
    Failure::Stopped(Message::new(
        "this clientbank is built without the sandbox bank (cargo feature `sandbox`)",
        "эта сборка clientbank без тестового банка (функция сборки `sandbox`)",
    ))
}
