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
        println!("sandbox bank at {}", sandbox.url());
        println!(
            "  sandbox mode: header `sandbox: on`, token sandboxtoken (app sandboxapp / sandboxappsecret)"
        );
        println!(
            "  admin: http://{}/admin (maintenance, faults, clock, webhook, payments)",
            sandbox.addr()
        );
        println!(
            "  admin token: {} (send `Authorization: Bearer TOKEN`, JSON bodies)",
            sandbox.admin_token()
        );
        tokio::select! {
            _ = sandbox.wait() => {}
            _ = tokio::signal::ctrl_c() => println!("stopped"),
        }
        Ok(Outcome::Clean)
    })
}
