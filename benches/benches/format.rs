//! Reading, streaming and writing the exchange format at 1k and 100k documents, beside
//! odin_palace on the same bytes and a bare memchr line count (the floor).
//!
//! cargo bench -p clientbank-benches --bench format

use std::hint::black_box;

use clientbank_format::{Encoding, Key, Reader, SectionKind, parse};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rust_decimal::Decimal;

fn bench(c: &mut Criterion) {
    for documents in [1_000, 100_000] {
        let bytes = clientbank_benches::statement(documents, 42);
        let mut group = c.benchmark_group(format!("{documents}-documents"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.sample_size(if documents > 10_000 { 10 } else { 50 });

        group.bench_function("memchr-line-count", |b| {
            b.iter(|| memchr::memchr_iter(b'\n', black_box(&bytes)).count())
        });
        // `parse` takes the bytes it is given, as from `std::fs::read`: the copy of the input
        // is made outside the measurement; dropping the tree is inside it, as for odin_palace.
        group.bench_function("read-typed-view", |b| {
            b.iter_batched(
                || bytes.clone(),
                |input| {
                    let parsed = parse(black_box(input)).unwrap();
                    let mut total = Decimal::ZERO;
                    for document in parsed.tree.documents() {
                        total += document.amount(Key::Sum).unwrap_or_default();
                        black_box(document.date(Key::Date));
                    }
                    drop(parsed);
                    total
                },
                BatchSize::PerIteration,
            )
        });
        group.bench_function("read-owned-exchange", |b| {
            b.iter(|| parse(black_box(&bytes[..])).unwrap().tree.to_exchange())
        });
        group.bench_function("stream", |b| {
            b.iter(|| {
                let mut total = Decimal::ZERO;
                for section in Reader::new(black_box(&bytes[..])) {
                    let section = section.unwrap();
                    if section.kind() == SectionKind::Document {
                        total += section.view().amount(Key::Sum).unwrap_or_default();
                    }
                }
                total
            })
        });
        group.bench_function("odin_palace", |b| {
            let parser = odin_palace::parser::ParserBuilder::new().build();
            b.iter(|| parser.parse(black_box(&bytes)).unwrap())
        });
        let tree = parse(&bytes[..]).unwrap().tree;
        group.bench_function("write-lossless", |b| b.iter(|| black_box(&tree).to_bytes()));
        let exchange = tree.to_exchange();
        group.bench_function("write-canonical", |b| {
            b.iter(|| black_box(&exchange).to_bytes(Encoding::Cp1251).unwrap())
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
