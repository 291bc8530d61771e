//! `clientbank sandbox [--addr 127.0.0.1:PORT]`: the local sandbox bank, until interrupted.

use std::net::SocketAddr;

use clientbank_sandbox::{Config, Sandbox};

use crate::exit::{Failure, Outcome};

pub(crate) fn run(addr: SocketAddr, time_scale: f64) -> Result<Outcome, Failure> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let config = Config {
            addr,
            time_scale,
            ..Config::default()
        };
        let sandbox = match Sandbox::start(config).await {
            Ok(sandbox) => sandbox,
            Err(e) => {
                eprintln!("clientbank: cannot start the sandbox bank on {addr}: {e}");
                return Ok(Outcome::Unreadable);
            }
        };
        println!("sandbox bank at {}", sandbox.url());
        println!("  sandbox mode: header `sandbox: on`, token sandboxtoken (app sandboxapp / sandboxappsecret)");
        println!("  admin: http://{}/admin (maintenance, faults, clock, webhook, payments)", sandbox.addr());
        tokio::select! {
            _ = sandbox.wait() => {}
            _ = tokio::signal::ctrl_c() => println!("stopped"),
        }
        Ok(Outcome::Clean)
    })
}
