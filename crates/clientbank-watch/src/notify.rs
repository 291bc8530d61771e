//! Telling a person (`[notify]`): the configured command is run with one event as a JSON object
//! on its standard input — a file gone to review/ or rejected/, payments awaiting a signature
//! too long — so that mail, a messenger or a desktop notice can be plugged in. The command runs
//! beside the daemon (it never holds a payment up); what it fails at is logged.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

use clientbank_bank::config::Notify;
use clientbank_format::{say, tr};

/// Runs `notify`'s command with `event` on its standard input, in the background.
pub fn tell(notify: &Notify, event: &Value) {
    let Some((program, args)) = notify.command.split_first() else {
        return;
    };
    let mut line = event.to_string();
    line.push('\n');
    let spawned = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            say!(
                warn,
                tr!(
                    "the notify command `{program}` cannot run: {e}" ;
                    "команда уведомления `{program}` не запускается: {e}"
                )
            );
            return;
        }
    };
    let program = program.clone();
    std::thread::spawn(move || {
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(line.as_bytes());
        }
        match child.wait_with_output() {
            Ok(out) if out.status.success() => {}
            Ok(out) => {
                let (status, said) = (out.status, String::from_utf8_lossy(&out.stderr));
                let said = said.trim();
                say!(
                    warn,
                    tr!(
                        "the notify command `{program}` failed ({status}): {said}" ;
                        "команда уведомления `{program}` завершилась с ошибкой ({status}): {said}"
                    )
                );
            }
            Err(e) => say!(
                warn,
                tr!(
                    "the notify command `{program}` failed: {e}" ;
                    "команда уведомления `{program}` завершилась с ошибкой: {e}"
                )
            ),
        }
    });
}
