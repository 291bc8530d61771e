//! `clientbank sandbox [--addr 127.0.0.1:PORT] [--time-scale X]`: the local sandbox bank, until
//! interrupted. It prints the per-run admin token the admin interface wants.

use crate::exit::{Failure, Outcome};

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Where to listen (loopback only).
    #[arg(long, default_value = "127.0.0.1:8800")]
    pub(crate) addr: std::net::SocketAddr,
    /// Multiplies the webhook retry delays (10 minutes, then an hour).
    #[arg(long, default_value_t = 1.0)]
    pub(crate) time_scale: f64,
}

/// This build has no sandbox bank.
#[cfg(not(feature = "sandbox"))]
pub(crate) fn run(_args: &Args) -> Result<Outcome, Failure> {
    Err(crate::sandbox_bank::missing())
}

#[cfg(feature = "sandbox")]
pub(crate) fn run(args: &Args) -> Result<Outcome, Failure> {
    let (addr, time_scale) = (args.addr, args.time_scale);
    if let Err(e) = clientbank_sandbox::check_time_scale(time_scale) {
        crate::term::error(&format!("--time-scale: {e}"));
        return Ok(Outcome::Unreadable);
    }
    if !addr.ip().is_loopback() {
        return Err(Failure::Stopped(clientbank_format::tr!(
            "--addr {addr}: the sandbox bank listens on loopback addresses only (127.0.0.1, ::1)" ;
            "--addr {addr}: песочница банка слушает только адреса этой машины (127.0.0.1, ::1)"
        )));
    }
    crate::runtime::run(async {
        use clientbank_format::Message;
        use clientbank_sandbox::{Config, Sandbox};
        let config = Config {
            addr,
            time_scale,
            ..Config::default()
        };
        let sandbox = match Sandbox::start(config).await {
            Ok(sandbox) => sandbox,
            Err(e) => {
                return Err(Failure::Stopped(Message::new(
                    format!("cannot start the sandbox bank on {addr}: {e}"),
                    format!(
                        "не удалось запустить песочницу банка на {addr}: {}",
                        clientbank_diagnostic::os::Ru(&e)
                    ),
                )));
            }
        };
        if let Some(missing) = clientbank_sandbox::signature_checker_missing() {
            crate::term::warning(&missing);
        }
        let (url, at, admin) = (sandbox.url(), sandbox.addr(), sandbox.admin_token());
        let said = clientbank_format::tr!(
            "sandbox bank at {url}\n  sandbox mode: header `sandbox: on`, token sandboxtoken \
             (app sandboxapp / sandboxappsecret)\n  admin: http://{at}/admin (maintenance, \
             faults, clock, webhook, payments)\n  admin token: {admin} (send \
             `Authorization: Bearer TOKEN`, JSON bodies)" ;
            "песочница банка: {url}\n  режим песочницы: заголовок `sandbox: on`, токен \
             sandboxtoken (приложение sandboxapp / sandboxappsecret)\n  управление: \
             http://{at}/admin (техработы, сбои, часы, вебхук, платежи)\n  токен управления: \
             {admin} (заголовок `Authorization: Bearer ТОКЕН`, тела в JSON)"
        );
        crate::term::outln!("{}", said.get(crate::term::lang()))?;
        tokio::select! {
            _ = sandbox.wait() => {}
            _ = tokio::signal::ctrl_c() => {
                crate::term::outln!("{}", crate::term::tr("stopped", "остановлена"))?;
            }
        }
        Ok(Outcome::Clean)
    })
}
