//! Any bytes as a webhook notification: never panics, accepted only with the right hash; the
//! same body correctly signed reaches the parser behind the hash check.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    clientbank_api::fuzz::webhook(data);
});
