//! The one tokio runtime of the process, made when a command first needs it (reading and
//! checking files needs none).

use std::future::Future;
use std::sync::OnceLock;

use tokio::runtime::Runtime;

use crate::exit::Failure;

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

/// Runs `work` to its end on the process's runtime.
pub(crate) fn block_on<F: Future>(work: F) -> Result<F::Output, Failure> {
    let runtime = match RUNTIME.get() {
        Some(runtime) => runtime,
        None => {
            let made = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?;
            RUNTIME.get_or_init(|| made)
        }
    };
    Ok(runtime.block_on(work))
}

/// Runs a command's `work` to its end on the process's runtime: its failure, or the runtime's.
pub(crate) fn run<T>(work: impl Future<Output = Result<T, Failure>>) -> Result<T, Failure> {
    block_on(work)?
}
