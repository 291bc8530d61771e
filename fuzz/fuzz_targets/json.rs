//! Any bytes as JSON upload requests: never panics; clean requests survive JSON → 1C → JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    clientbank_payment::fuzz::json(data);
});
