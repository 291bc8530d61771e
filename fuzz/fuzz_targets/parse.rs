//! Any bytes: the reader never panics, in memory or streaming, and both agree.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    clientbank_format::fuzz::parse_agrees(data);
});
