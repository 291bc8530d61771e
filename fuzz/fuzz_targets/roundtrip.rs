//! Any bytes the reader accepts are written back byte for byte, and the typed view
//! written canonically reads back to the same typed view.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    clientbank_format::fuzz::roundtrip(data);
});
