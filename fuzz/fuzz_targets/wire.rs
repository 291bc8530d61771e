//! Any bytes as every wire type of the bank API (companies, accounts, history records and
//! pages, filters, upload answers, error bodies, sign and token requests, date-times, path
//! ids): never panics; what is read is written and read back unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    clientbank_api::fuzz::wire(data);
});
