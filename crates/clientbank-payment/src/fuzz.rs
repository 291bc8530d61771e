//! The properties the fuzz targets check, callable from normal tests on stable (they replay
//! the committed fuzz corpus). Not part of the public API.

use clientbank_format::Encoding;

use crate::json::{PaymentJson, read_upload};
use crate::{Context, onec, validate};

/// Any bytes as JSON upload requests: reading, validating and mapping never panic; every
/// finding of reading names its payment and line; a request the rules find nothing to say
/// about survives JSON → 1C → JSON unchanged, in every encoding that can hold it.
pub fn json(data: &[u8]) {
    let Ok(read) = read_upload(data) else {
        return;
    };
    for (index, request) in read.iter().enumerate() {
        for finding in &request.findings {
            assert_eq!(finding.payment, Some(index as u32 + 1), "{finding}");
            assert!(finding.line.is_some_and(|l| l > 0), "{finding}");
        }
        let findings = request.validate(index, &Context::history(), Encoding::Cp1251);
        if !request.readable {
            assert_eq!(findings.len(), request.findings.len());
            continue;
        }
        let payment = request.request.payment.to_payment();
        let (canonical, _) = PaymentJson::from_payment(&payment);
        for encoding in [Encoding::Cp1251, Encoding::Cp866, Encoding::Utf8] {
            let (exchange, mapping) = onec::to_exchange(std::slice::from_ref(&payment), encoding);
            let Ok(bytes) = exchange.to_bytes(encoding) else {
                continue;
            };
            let parsed = clientbank_format::parse(bytes).expect("a written file reads back");
            let (orders, _) = onec::payment_orders(&parsed.tree);
            assert_eq!(orders.len(), 1);
            if findings.is_empty() && mapping.is_empty() {
                let (again, _) = PaymentJson::from_payment(&orders[0].payment);
                assert_eq!(again, canonical, "{encoding}");
            }
        }
    }
}

/// Any bytes as a 1C file: every payment order maps to a payment and a JSON request, and
/// validation runs, without panicking; the request's JSON reads back to itself. The batch
/// layer reads the same bytes into as many items as the file has documents, and renders every
/// finding, without panicking.
pub fn mapping(data: &[u8]) {
    if let Ok(batch) = crate::batch::Batch::read(data, &Context::history()) {
        let items = batch.items().count();
        if let Some(parsed) = batch.parsed() {
            assert_eq!(items, parsed.tree.documents().count());
        }
        let _ = batch.render("fuzz.txt", clientbank_diagnostic::Lang::Ru);
    }
    let Ok(parsed) = clientbank_format::parse(data) else {
        return;
    };
    let (orders, _) = onec::payment_orders(&parsed.tree);
    for order in orders {
        let _ = validate(&order.payment, &Context::history());
        let (json, _) = PaymentJson::from_payment(&order.payment);
        let text = serde_json::to_string(&json).expect("serialisable");
        let read: PaymentJson = serde_json::from_str(&text).expect("reads back");
        assert_eq!(read, json);
    }
}
