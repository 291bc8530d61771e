//! Any bytes as a 1C file: payment orders map to payments and JSON without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    clientbank_payment::fuzz::mapping(data);
});
