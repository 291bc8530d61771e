//! The properties the fuzz targets check, here so that a normal test replays the fuzz
//! corpus through exactly the same code. Each function panics when a property fails.

use crate::{Encoding, Reader, SectionKind, parse};

/// Any bytes: no panic; the in-memory and the streaming reader accept or refuse alike and
/// see the same sections; one pass and two threads agree ([`parallel_agrees`]).
pub fn parse_agrees(data: &[u8]) {
    parallel_agrees(data);
    scan_agrees(data);
    let whole = parse(data);
    let mut reader = Reader::new(data);
    let streamed: Result<Vec<_>, _> = reader.by_ref().collect();
    match (whole, streamed) {
        (Ok(parsed), Ok(sections)) => {
            assert_eq!(
                parsed.diagnostics,
                reader.diagnostics(),
                "the two readers find differently"
            );
            assert_eq!(Some(parsed.tree.encoding()), reader.encoding());
            let kinds: Vec<SectionKind> = parsed.tree.sections().map(|s| s.kind()).collect();
            let streamed_kinds: Vec<SectionKind> = sections.iter().map(|s| s.kind()).collect();
            assert_eq!(
                kinds, streamed_kinds,
                "the two readers group sections differently"
            );
            let cut: Vec<bool> = parsed.tree.sections().map(|s| s.is_cut_short()).collect();
            let streamed_cut: Vec<bool> =
                sections.iter().map(|s| s.view().is_cut_short()).collect();
            assert_eq!(
                cut, streamed_cut,
                "the two readers disagree on where the input ends"
            );
            let mut joined = data[..if parsed.tree.has_bom() { 3 } else { 0 }].to_vec();
            for section in &sections {
                joined.extend_from_slice(section.as_bytes());
            }
            assert_eq!(joined, data, "streamed sections do not give back the input");
        }
        (Err(_), Err(_)) => {}
        (whole, streamed) => panic!(
            "the readers disagree: in memory {:?}, streaming {:?}",
            whole.map(|_| "accepted"),
            streamed.map(|_| "accepted")
        ),
    }
}

/// Any bytes: reading in pieces by two threads (the file cut at `СекцияДокумент=` lines, in
/// two and in seven pieces) gives exactly what one pass gives — the same refusal, sections,
/// lines and findings.
pub fn parallel_agrees(data: &[u8]) {
    for pieces in [2, 7] {
        pieces_agree(data, pieces);
    }
}

fn pieces_agree(data: &[u8], pieces: usize) {
    let one = crate::tree::SyntaxTree::parse_with(data.to_vec(), 1);
    let two = crate::tree::SyntaxTree::parse_with(data.to_vec(), pieces);
    match (one, two) {
        (Ok(one), Ok(two)) => {
            assert_eq!(one.diagnostics, two.diagnostics, "findings differ");
            assert_eq!(
                one.tree.index_debug(),
                two.tree.index_debug(),
                "sections or lines differ"
            );
            assert_eq!(two.tree.to_bytes(), data);
        }
        (Err(one), Err(two)) => assert_eq!(one, two, "refusals differ"),
        (one, two) => panic!(
            "one pass {:?}, two threads {:?}",
            one.map(|_| "accepted"),
            two.map(|_| "accepted")
        ),
    }
}

/// Accepted bytes are written back unchanged; the typed view written canonically (in every
/// encoding that can hold it) reads back to the same typed view.
pub fn roundtrip(data: &[u8]) {
    let Ok(parsed) = parse(data) else {
        return;
    };
    assert_eq!(parsed.tree.to_bytes(), data, "lossless write differs");
    let exchange = parsed.tree.to_exchange();
    for encoding in Encoding::ALL {
        let Ok(bytes) = exchange.to_bytes(encoding) else {
            continue;
        };
        let reread = parse(&bytes[..])
            .unwrap_or_else(|r| panic!("canonical {encoding} output is refused: {r}"));
        if reread.tree.encoding() != encoding {
            // The values carry text of the other single-byte encoding (CP1251 and CP866 mixed
            // in one file cannot be told apart byte by byte), and it outweighs the known keys:
            // the reader goes by the content, and must say that it did.
            assert!(
                reread
                    .diagnostics
                    .iter()
                    .any(|d| d.code == crate::Code::EncodingMismatch),
                "canonical {encoding} output read as {} without a warning",
                reread.tree.encoding()
            );
            continue;
        }
        let again = reread.tree.to_exchange();
        assert_eq!(
            normalized(again),
            normalized(exchange.clone()),
            "canonical {encoding} output reads back differently"
        );
    }
}

/// What the canonical writer decides itself: version default, encoding label, source lines.
fn normalized(mut exchange: crate::Exchange) -> crate::Exchange {
    exchange.header.version.get_or_insert_with(|| "1.03".into());
    exchange.header.encoding = None;
    for account in &mut exchange.accounts {
        account.line = None;
    }
    for document in &mut exchange.documents {
        document.line = None;
    }
    exchange
}

/// Any bytes: [`scan`](crate::scan) (in one thread and in two) refuses as [`parse`] does, finds
/// the same findings and encoding, and its header, account sections and documents (rebuilt from
/// their packed lines) are the tree's, line for line; written canonically a section at a time,
/// it gives the bytes (or the error) of the tree's exchange written whole.
pub fn scan_agrees(data: &[u8]) {
    let whole = parse(data);
    for pieces in [1, 2, 7] {
        let scanned = crate::tree::scan_with(data, pieces);
        match (&whole, scanned) {
            (Ok(parsed), Ok(scanned)) => {
                let tree = &parsed.tree;
                assert_eq!(parsed.diagnostics, scanned.diagnostics(), "findings differ");
                assert_eq!(tree.encoding(), scanned.encoding());
                assert_eq!(tree.detection(), scanned.detection());
                assert_eq!(tree.has_bom(), scanned.has_bom());
                assert_eq!(
                    Some(tree.header().lines_debug()),
                    scanned.header(data).map(|h| h.lines_debug()),
                    "headers differ"
                );
                let accounts: Vec<String> = tree.accounts().map(|s| s.lines_debug()).collect();
                let scanned_accounts: Vec<String> =
                    scanned.accounts(data).map(|s| s.lines_debug()).collect();
                assert_eq!(accounts, scanned_accounts, "account sections differ");
                assert_eq!(tree.accounts().next().is_some(), scanned.has_accounts());
                let documents: Vec<String> = tree.documents().map(|s| s.lines_debug()).collect();
                let again: Vec<String> = scanned
                    .documents(data)
                    .map(|d| d.view().lines_debug())
                    .collect();
                assert_eq!(documents, again, "documents differ");
                assert_eq!(documents.len(), scanned.document_count());
                let exchange = tree.to_exchange();
                assert_eq!(Some(&exchange), scanned.to_exchange(data).as_ref());
                for encoding in Encoding::ALL {
                    assert_eq!(
                        scanned.write_canonical(data, encoding, Vec::new()),
                        Some(exchange.to_bytes(encoding)),
                        "written a section at a time in {encoding}, the file differs"
                    );
                }
            }
            (Err(one), Err(two)) => assert_eq!(one, &two, "refusals differ"),
            (one, two) => panic!(
                "parse {:?}, scan {:?}",
                one.as_ref().map(|_| "accepted"),
                two.map(|_| "accepted")
            ),
        }
    }
}
