//! `clientbank sandbox [--addr 127.0.0.1:PORT] [--time-scale X]`: the local sandbox bank, until
//! interrupted. It prints the per-run admin token the admin interface wants.

use std::net::SocketAddr;

use crate::exit::{Failure, Outcome};

/// This build has no sandbox bank.
#[cfg(not(feature = "sandbox"))]
pub(crate) fn run(_addr: SocketAddr, _time_scale: f64) -> Result<Outcome, Failure> {
    Ok(crate::sandbox_bank::missing())
}

#[cfg(feature = "sandbox")]
pub(crate) fn run(addr: SocketAddr, time_scale: f64) -> Result<Outcome, Failure> {
    if let Err(e) = clientbank_sandbox::check_time_scale(time_scale) {
        crate::term::error(&format!("--time-scale: {e}"));
        return Ok(Outcome::Unreadable);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        use clientbank_sandbox::{Config, Sandbox};
        let config = Config {
            addr,
            time_scale,
            ..Config::default()
        };
        let sandbox = match Sandbox::start(config).await {
            Ok(sandbox) => sandbox,
            Err(e) => {
                crate::term::error(&crate::term::tr(
                    format!("cannot start the sandbox bank on {addr}: {e}"),
                    format!("не удалось запустить песочницу банка на {addr}: {e}"),
                ));
                return Ok(Outcome::Unreadable);
            }
        };
        if let Some(missing) = clientbank_sandbox::signature_checker_missing() {
            crate::term::warning(&missing);
        }
        println!("sandbox bank at {}", sandbox.url());
        println!("  sandbox mode: header `sandbox: on`, token sandboxtoken (app sandboxapp / sandboxappsecret)");
        println!("  admin: http://{}/admin (maintenance, faults, clock, webhook, payments)", sandbox.addr());
        println!("  admin token: {} (send `Authorization: Bearer TOKEN`, JSON bodies)", sandbox.admin_token());
        tokio::select! {
            _ = sandbox.wait() => {}
            _ = tokio::signal::ctrl_c() => println!("stopped"),
        }
        Ok(Outcome::Clean)
    })
}
