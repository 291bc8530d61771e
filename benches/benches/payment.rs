//! Payment throughput (payments per second): mapping 1C payment orders to payments, validating
//! them, both on the payment borrowed from the document (as `check` does; also on payments with
//! valid requisites), writing and reading JSON upload requests, writing a 1C file from payments.
//!
//! cargo bench -p clientbank-benches --bench payment

use std::hint::black_box;

use clientbank_format::{Encoding, parse};
use clientbank_payment::json::{PaymentJson, read_requests};
use clientbank_payment::{Context, UploadRequest, onec, validate};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let bytes = clientbank_benches::statement(10_000, 42);
    let tree = parse(&bytes[..]).unwrap().tree;
    let (orders, _) = onec::payment_orders(&tree);
    let payments: Vec<_> = orders.into_iter().map(|o| o.payment).collect();
    let requests: Vec<UploadRequest> = payments
        .iter()
        .map(|p| UploadRequest::new(PaymentJson::from_payment(p).0, false))
        .collect();
    let json = serde_json::to_vec(&requests).unwrap();

    let mut group = c.benchmark_group(format!("{}-payments", payments.len()));
    group.throughput(Throughput::Elements(payments.len() as u64));
    group.sample_size(20);
    group.bench_function("map-1c-to-payment", |b| {
        b.iter(|| onec::payment_orders(black_box(&tree)).0.len())
    });
    // What `check` does with each payment order: read it borrowed from the section (no
    // `String` per field), the mapping's findings and every rule on the view, every finding
    // made whole. Also on a statement whose INNs and accounts are valid, as a bank's are: only
    // the findings real payments have are made (the generator's random requisites give each
    // payment four or five). And as `check` does once every code is past its per-file limit
    // (a thousand findings of each): each finding a stand-in, counted, with no message.
    let valid = parse(clientbank_benches::statement_with_valid_requisites(
        10_000, 42,
    ))
    .unwrap()
    .tree;
    for (name, statement, past_limits) in [
        ("map-and-validate-borrowed", &tree, false),
        ("map-and-validate-borrowed-valid-requisites", &valid, false),
        ("map-and-validate-past-limits", &tree, true),
    ] {
        group.bench_function(name, |b| {
            let context = Context::history();
            b.iter(|| {
                black_box(statement)
                    .documents()
                    .map(|section| {
                        let (made, counted) =
                            onec::check_section(&section, &context, Encoding::Cp1251, past_limits);
                        made.len() + counted
                    })
                    .sum::<usize>()
            })
        });
    }
    group.bench_function("validate", |b| {
        let context = Context::history();
        b.iter(|| {
            black_box(&payments)
                .iter()
                .map(|p| validate(p, &context).len())
                .sum::<usize>()
        })
    });
    group.bench_function("payment-to-json-text", |b| {
        b.iter(|| {
            let requests: Vec<UploadRequest> = black_box(&payments)
                .iter()
                .map(|p| UploadRequest::new(PaymentJson::from_payment(p).0, false))
                .collect();
            serde_json::to_vec(&requests).unwrap()
        })
    });
    group.bench_function("json-text-to-payment", |b| {
        b.iter(|| {
            let (requests, _) = read_requests(black_box(&json)).unwrap();
            requests
                .iter()
                .map(|r| r.payment.to_payment())
                .collect::<Vec<_>>()
        })
    });
    group.bench_function("payment-to-1c-file", |b| {
        b.iter(|| {
            let (exchange, _) = onec::to_exchange(black_box(&payments), Encoding::Cp1251);
            exchange.to_bytes(Encoding::Cp1251).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
