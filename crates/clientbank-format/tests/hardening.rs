//! Issue 8: empty required values, the encoding decided on the whole input, markers in any
//! letter case, values in the other single-byte encoding, and findings that stay small and
//! few whatever the input. Each case is read by both readers, which must agree.

use clientbank_format::{
    Code, Diagnostic, Encoding, Key, LIMIT_PER_CODE, Reader, SectionKind, parse,
};

/// Reads `bytes` with both readers; checks they agree on sections, findings and encoding.
fn read(bytes: &[u8]) -> (clientbank_format::Parsed, Vec<Diagnostic>) {
    clientbank_format::fuzz::parse_agrees(bytes);
    let parsed = parse(bytes).unwrap_or_else(|r| panic!("refused: {r}"));
    let mut reader = Reader::new(bytes);
    let kinds: Vec<SectionKind> = reader.by_ref().map(|s| s.unwrap().kind()).collect();
    assert_eq!(
        kinds,
        parsed.tree.sections().map(|s| s.kind()).collect::<Vec<_>>()
    );
    assert_eq!(reader.diagnostics(), parsed.diagnostics);
    assert_eq!(reader.encoding(), Some(parsed.tree.encoding()));
    let diagnostics = parsed.diagnostics.clone();
    (parsed, diagnostics)
}

fn codes(diagnostics: &[Diagnostic]) -> Vec<(Code, u32, Option<&str>)> {
    diagnostics
        .iter()
        .map(|d| (d.code, d.line.unwrap_or(0), d.key.as_deref()))
        .collect()
}

fn cp1251(text: &str) -> Vec<u8> {
    Encoding::Cp1251.encode(text).unwrap().into_owned()
}

#[test]
fn an_empty_required_value_is_a_finding_in_every_section_kind() {
    let text = "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
        ДатаНачала=\r\nДатаКонца=30.11.2026\r\nРасчСчет=\r\n\
        СекцияРасчСчет\r\nДатаНачала=\r\nРасчСчет=  \r\nНачальныйОстаток=\r\nКонецРасчСчет\r\n\
        СекцияДокумент=Платежное поручение\r\nНомер=\r\nДата=\r\nСумма=\r\nНазначениеПлатежа=\r\nКонецДокумента\r\n\
        СекцияДокумент=Банковский ордер\r\nНомер=5\r\nДата=\r\nСумма=10.00\r\nКонецДокумента\r\n\
        КонецФайла\r\n";
    let (_, diagnostics) = read(&cp1251(text));
    assert_eq!(
        codes(&diagnostics),
        [
            (Code::EmptyValue, 4, Some("ДатаНачала")),
            (Code::EmptyValue, 6, Some("РасчСчет")),
            (Code::EmptyValue, 8, Some("ДатаНачала")),
            (Code::EmptyValue, 9, Some("РасчСчет")),
            (Code::EmptyValue, 10, Some("НачальныйОстаток")),
            (Code::EmptyValue, 13, Some("Номер")),
            (Code::EmptyValue, 14, Some("Дата")),
            (Code::EmptyValue, 15, Some("Сумма")),
            (Code::EmptyValue, 20, Some("Дата")),
        ],
        "an optional key (НазначениеПлатежа) may be empty"
    );
    let sum = &diagnostics[7];
    assert_eq!(sum.column, Some(7), "the caret stands after `=`");
    assert!(
        sum.message.en().contains("`Сумма` has no value"),
        "{}",
        sum.message
    );
    assert_eq!(
        sum.severity,
        clientbank_format::Severity::Warning,
        "a warning, an error with --strict"
    );
    // An empty Кодировка too.
    let (_, diagnostics) = read(&cp1251(
        "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=\r\nКонецФайла\r\n",
    ));
    assert_eq!(
        codes(&diagnostics),
        [(Code::EmptyValue, 3, Some("Кодировка"))]
    );
}

/// An exchange file whose first non-ASCII byte stands past the first `ascii` bytes.
fn late_text(ascii: usize) -> String {
    let mut text = String::from("1CClientBankExchange\r\n");
    while text.len() < ascii {
        text.push_str("\r\n");
    }
    text + "ВерсияФормата=1.03\r\nКодировка=DOS\r\nСекцияДокумент=Платежное поручение\r\n\
        Номер=7\r\nДата=01.11.2026\r\nСумма=1.00\r\nПолучатель=ООО Ромашка\r\nКонецДокумента\r\nКонецФайла\r\n"
}

#[test]
fn the_encoding_is_decided_past_an_ascii_start() {
    for ascii in [100, 70_000, 200_000] {
        let text = late_text(ascii);
        for encoding in Encoding::ALL {
            let bytes = encoding.encode(&text).unwrap().into_owned();
            let (parsed, diagnostics) = read(&bytes);
            assert_eq!(
                parsed.tree.encoding(),
                encoding,
                "{ascii} ASCII bytes first"
            );
            assert_eq!(parsed.tree.documents().count(), 1);
            let document = parsed.tree.documents().next().unwrap();
            assert_eq!(document.get(Key::Recipient).as_deref(), Some("ООО Ромашка"));
            let mut found: Vec<Code> = diagnostics.iter().map(|d| d.code).collect();
            found.dedup();
            let expected: &[Code] = match encoding {
                Encoding::Cp866 => &[Code::BlankLine],
                _ => &[Code::BlankLine, Code::EncodingMismatch],
            };
            assert_eq!(found, expected, "{encoding}, {ascii}");
        }
    }
}

#[test]
fn a_value_in_the_other_single_byte_encoding_is_a_warning() {
    for (file, other) in [
        (Encoding::Cp1251, Encoding::Cp866),
        (Encoding::Cp866, Encoding::Cp1251),
    ] {
        let mut bytes = file
            .encode(&format!(
                "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка={}\r\n\
                 СекцияДокумент=Платежное поручение\r\nНомер=7\r\nДата=01.11.2026\r\nСумма=1.00\r\n\
                 НазначениеПлатежа=Оплата по счету № 5 \"Ромашка\", НДС не облагается\r\nПолучатель=",
                file.label()
            ))
            .unwrap()
            .into_owned();
        bytes.extend_from_slice(&other.encode("ООО Ромашка").unwrap());
        bytes.extend_from_slice(&file.encode("\r\nКонецДокумента\r\nКонецФайла\r\n").unwrap());
        let (parsed, diagnostics) = read(&bytes);
        assert_eq!(parsed.tree.encoding(), file);
        assert_eq!(
            codes(&diagnostics),
            [(Code::ValueInOtherEncoding, 9, Some("Получатель"))],
            "{file}: {diagnostics:?}"
        );
        assert!(
            diagnostics[0].message.en().contains("ООО Ромашка"),
            "the message shows the value as the other encoding reads it: {}",
            diagnostics[0].message
        );
    }
}

#[test]
fn markers_in_another_letter_case_keep_the_document() {
    let text = "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
        секциярасчсчет\r\nДатаНачала=01.11.2026\r\nРасчСчет=40702810938000012345\r\nНачальныйОстаток=0\r\nконецрасчсчет\r\n\
        секциядокумент=Платежное поручение\r\nНомер=7\r\nДата=01.11.2026\r\nСумма=1.00\r\nКонецдокумента\r\n\
        КОНЕЦФАЙЛА\r\n";
    for encoding in Encoding::ALL {
        let bytes = encoding.encode(text).unwrap().into_owned();
        let (parsed, diagnostics) = read(&bytes);
        assert_eq!(parsed.tree.accounts().count(), 1);
        assert_eq!(parsed.tree.documents().count(), 1, "{encoding}");
        let document = parsed.tree.documents().next().unwrap();
        assert_eq!(document.get(Key::Number).as_deref(), Some("7"));
        assert_eq!(
            document.document_type().as_deref(),
            Some("Платежное поручение")
        );
        let found: Vec<_> = diagnostics
            .iter()
            .filter(|d| d.code != Code::EncodingMismatch)
            .map(|d| {
                (
                    d.code,
                    d.line.unwrap_or(0),
                    d.key.clone().unwrap_or_default().into_owned(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (Code::KeyCase, 4, "секциярасчсчет".to_string()),
                (Code::KeyCase, 8, "конецрасчсчет".to_string()),
                (Code::KeyCase, 9, "секциядокумент".to_string()),
                (Code::KeyCase, 13, "Конецдокумента".to_string()),
                (Code::KeyCase, 14, "КОНЕЦФАЙЛА".to_string()),
            ],
            "{encoding}"
        );
    }
    // Line 1 in another case is still an exchange file.
    let (_, diagnostics) = read(b"1cclientbankexchange\r\n");
    assert_eq!(diagnostics[0].code, Code::KeyCase);
}

#[test]
fn repeats_of_a_code_past_the_limit_become_one_summary() {
    let repeats = LIMIT_PER_CODE + 499;
    let mut text = String::from(
        "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
         СекцияДокумент=Платежное поручение\r\nДата=01.11.2026\r\nСумма=1.00\r\nНомер=1\r\n",
    );
    for _ in 0..repeats {
        text.push_str("Номер=1\r\n");
    }
    text.push_str("КонецДокумента\r\nКонецФайла\r\n");
    let (_, diagnostics) = read(&cp1251(&text));
    assert_eq!(diagnostics.len(), LIMIT_PER_CODE + 1);
    assert!(
        diagnostics[..LIMIT_PER_CODE]
            .iter()
            .all(|d| d.code == Code::DuplicateKey && d.omitted == 0)
    );
    let summary = &diagnostics[LIMIT_PER_CODE];
    assert_eq!(summary.code, Code::DuplicateKey);
    assert_eq!(summary.omitted, 499);
    assert_eq!(summary.count(), 499);
    assert_eq!(
        summary.line,
        Some(8 + LIMIT_PER_CODE as u32),
        "where the first omitted one stood"
    );
    assert!(
        summary
            .message
            .en()
            .contains("and 499 more `duplicate-key`"),
        "{}",
        summary.message
    );
    let total: usize = diagnostics.iter().map(Diagnostic::count).sum();
    assert_eq!(total, repeats, "every finding is counted");
}

#[test]
fn the_limit_holds_across_the_two_threads_of_a_large_input() {
    // A duplicate in each of many documents: the in-memory reader cuts the file in two
    // (`parse_agrees` compares the two-thread reading with one pass).
    let mut text =
        String::from("1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n");
    let documents = LIMIT_PER_CODE * 2 + 10;
    for _ in 0..documents {
        text.push_str(
            "СекцияДокумент=Платежное поручение\r\nНомер=1\r\nНомер=1\r\nДата=01.11.2026\r\nСумма=1\r\nКонецДокумента\r\n",
        );
    }
    text.push_str("КонецФайла\r\n");
    let (_, diagnostics) = read(&cp1251(&text));
    assert_eq!(diagnostics.len(), LIMIT_PER_CODE + 1);
    assert_eq!(
        diagnostics[LIMIT_PER_CODE].omitted as usize,
        documents - LIMIT_PER_CODE
    );
}

#[test]
fn findings_stay_few_and_small_whatever_the_input() {
    // Documents opened and never closed, each with no key at all: five codes per line.
    let mut text =
        String::from("1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n");
    for _ in 0..20_000 {
        text.push_str("СекцияДокумент=\r\n");
    }
    // And a key and a value of a megabyte each.
    text.push_str(&format!(
        "{}=1\r\nСумма={}\r\n",
        "Ж".repeat(1 << 20),
        "9".repeat(1 << 20)
    ));
    let bytes = cp1251(&text);
    let (_, diagnostics) = read(&bytes);
    let mut per_code = std::collections::HashMap::new();
    for d in &diagnostics {
        *per_code.entry(d.code).or_insert(0usize) += d.count();
        let held = d.message.en().len()
            + d.message.ru().len()
            + d.key.as_ref().map_or(0, |k| k.len())
            + d.found.as_deref().map_or(0, str::len)
            + d.expected
                .as_ref()
                .map_or(0, |e| e.en().len() + e.ru().len());
        assert!(held < 2_000, "a finding holds {held} bytes: {d:?}");
    }
    assert!(
        diagnostics.len() <= Code::ALL.len() * (LIMIT_PER_CODE + 1),
        "{} findings kept",
        diagnostics.len()
    );
    assert_eq!(per_code[&Code::EmptyDocumentType], 20_000);
    assert_eq!(per_code[&Code::UnclosedSection], 20_000);
    assert_eq!(
        per_code[&Code::MissingKey],
        20_000 * 3 - 1,
        "the last one has its Сумма"
    );
}

/// Russian words in a single-byte encoding can be valid UTF-8 by chance (CP866 "ток" is the
/// bytes of U+2BAA, CP1251 "СЁ" those of U+0468): such a line is the file's own text, not a
/// UTF-8 line in a single-byte file, and a whole file of them is not UTF-8 either.
#[test]
fn single_byte_words_that_happen_to_be_utf8_are_not_mixed_encoding() {
    for (encoding, word, label) in [
        (Encoding::Cp866, "ток", "DOS"),
        (Encoding::Cp866, "сок", "DOS"),
        (Encoding::Cp1251, "СЁ", "Windows"),
    ] {
        let word_bytes = encoding.encode(word).unwrap().into_owned();
        assert!(
            std::str::from_utf8(&word_bytes).is_ok(),
            "{word} in {encoding}"
        );
        let text = format!(
            "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка={label}\r\n\
             СекцияДокумент=Платежное поручение\r\nНомер=1\r\nДата=20.11.2026\r\nСумма=10.00\r\n\
             НазначениеПлатежа={word}\r\nКонецДокумента\r\nКонецФайла\r\n"
        );
        let bytes = encoding.encode(&text).unwrap().into_owned();
        let (parsed, _) = read(&bytes);
        assert_eq!(parsed.tree.encoding(), encoding, "{word}");
        let document = parsed.tree.documents().next().unwrap();
        assert_eq!(document.text(Key::Purpose).as_deref(), Some(word));
    }
    // The same word as the only non-ASCII text of a file: the known keys in the file's
    // encoding outweigh the chance UTF-8 reading.
    let text =
        "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=DOS\r\nток=1\r\nКонецФайла\r\n";
    let bytes = Encoding::Cp866.encode(text).unwrap().into_owned();
    let (parsed, _) = read(&bytes);
    assert_eq!(parsed.tree.encoding(), Encoding::Cp866);
    // A real UTF-8 line in a CP1251 file is still refused.
    let mut mixed = cp1251("1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n");
    mixed.extend_from_slice("Получатель=ООО Ромашка\r\n".as_bytes());
    let Err(refused) = parse(&mixed[..]) else {
        panic!("a UTF-8 line among CP1251 is refused")
    };
    assert_eq!(refused.diagnostic.code, Code::MixedEncoding);
}

/// What the writer writes, the reader reads: a line whose CP1251 bytes are valid UTF-8 and
/// read better so (an unknown key `РЃ`, the bytes of `Ё`) would make the file "mixed"; the
/// writer refuses it in CP1251 and writes it in UTF-8 (the roundtrip fuzzer's find).
#[test]
fn the_writer_refuses_a_line_its_reader_would_refuse() {
    use clientbank_format::{Encoding, WriteErrorKind, parse};
    let text = "1CClientBankExchange\nВерсияФормата=1.03\nСекцияДокумент=Платежное поручение\n\
                Номер=1\nРЃ=1\nКонецДокумента\nКонецФайла\n";
    let exchange = parse(text.as_bytes()).unwrap().tree.to_exchange();
    let e = exchange.to_bytes(Encoding::Cp1251).unwrap_err();
    assert!(
        matches!(
            &e.kind,
            WriteErrorKind::Unreadable {
                encoding: Encoding::Cp1251,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("key РЃ"), "{e}");
    // In CP866 too, when the bytes read as UTF-8 better than in CP1251 — the encoding a
    // reader deciding by content may take (`Єхы№` in UTF-8 is `╨Д╤Е╤ЛтДЦ` in CP866).
    let cp866 = "1CClientBankExchange\nВерсияФормата=1.03\nСекцияДокумент=Платежное поручение\n\
                 Номер=1\n╨Д╤Е╤ЛтДЦ=1\nКонецДокумента\nКонецФайла\n";
    let odd = parse(cp866.as_bytes()).unwrap().tree.to_exchange();
    let e = odd.to_bytes(Encoding::Cp866).unwrap_err();
    assert!(
        matches!(
            &e.kind,
            WriteErrorKind::Unreadable {
                encoding: Encoding::Cp866,
                ..
            }
        ),
        "{e}"
    );
    let utf8 = exchange.to_bytes(Encoding::Utf8).unwrap();
    let again = parse(&utf8[..]).unwrap().tree.to_exchange();
    assert_eq!(
        again.documents[0].extra,
        [("РЃ".to_string(), "1".to_string())]
    );
}

/// Sections of very many lines — blank ones, a key repeated, long lines and far `=` among
/// them, in every line ending — read by the scan (each section packed in parts; a document
/// of very many lines given from its words) exactly as the tree reads them, in one thread and
/// in two; and a period reversed in a section of many lines is found at its line.
#[test]
fn sections_of_very_many_lines_are_read_alike_by_every_reader() {
    let long = "x".repeat(5000);
    let far = format!("{}=1", "К".repeat(70));
    for ending in ["\r\n", "\n", "\r"] {
        let many = |line: &str, count: usize| -> String {
            std::iter::repeat_n(format!("{line}{ending}"), count).collect()
        };
        let mut text = format!("1CClientBankExchange{ending}ВерсияФормата=1.03{ending}");
        text += &format!("Кодировка=Windows{ending}ДатаНачала=30.11.2026{ending}");
        text += &many("", 9000);
        text += &format!("ДатаКонца=01.11.2026{ending}Свой={long}{ending}");
        text += &many("Q=1", 5000);
        text += &format!("СекцияРасчСчет{ending}РасчСчет=40702810900000000001{ending}");
        text += &many("Q=22", 4500);
        text += &format!("{far}{ending}КонецРасчСчет{ending}");
        for number in 1..=3 {
            text += &format!("СекцияДокумент=Платежное поручение{ending}Номер={number}{ending}");
            text += &many("Z=1", 6000 * number);
            text += &many("", 4097);
            text += &format!("Длинный={long}{ending}{far}{ending}");
            text += &many("Сумма=1.00", 4100);
            text += &format!("КонецДокумента{ending}");
        }
        text += &format!("КонецФайла{ending}");
        let bytes = cp1251(&text);
        let (parsed, diagnostics) = read(&bytes);
        assert_eq!(parsed.tree.documents().count(), 3);
        let reversed: Vec<_> = diagnostics
            .iter()
            .filter(|d| d.code == Code::PeriodReversed)
            .map(|d| d.line)
            .collect();
        assert_eq!(reversed, [Some(9005)], "{ending:?}");
        // The scan gives each document the tree's values.
        let scan = clientbank_format::scan(&bytes).unwrap();
        let numbers: Vec<_> = scan
            .documents(&bytes)
            .map(|d| d.view().get(Key::Number).unwrap().into_owned())
            .collect();
        assert_eq!(numbers, ["1", "2", "3"]);
        let fields: usize = scan
            .documents(&bytes)
            .map(|d| d.view().fields().count())
            .sum();
        assert_eq!(fields, (1..=3).map(|n| 6000 * n + 4100 + 3).sum::<usize>());
    }
}

/// A file written anew a section at a time from the scan: the bytes of the exchange written
/// whole, with many keys the model has no field for in every kind of section (more than the
/// writer holds before it hands its bytes on), and the same error, naming the same document and
/// key, for a value the target encoding cannot hold (its sections before the error written).
#[test]
fn a_file_written_a_section_at_a_time_is_the_file_written_whole() {
    let unknown = |n: usize, tag: &str| -> String {
        (0..n)
            .map(|i| format!("{tag}{i}=значение {i}\r\n"))
            .collect()
    };
    let text = format!(
        "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n{}РасчСчет=40702810900000000001\r\n\
         СекцияРасчСчет\r\nДатаНачала=01.11.2026\r\n{}НачальныйОстаток=10.00\r\nКонецРасчСчет\r\n\
         СекцияДокумент=Платежное поручение\r\nНомер=1\r\n{}Сумма=100.00\r\nПлательщикИНН=7701234560\r\nКонецДокумента\r\n\
         СекцияДокумент=Платежное поручение\r\nНомер=2\r\nСумма=1.00\r\nКонецДокумента\r\n\
         СекцияДокумент=Платежное поручение\r\nНомер=3\r\nНазначениеПлатежа=5 € за ё\r\nКонецДокумента\r\nКонецФайла\r\n",
        unknown(3_000, "Заголовок"),
        unknown(4_000, "Остаток"),
        unknown(9_000, "Ключ"),
    );
    let bytes = cp1251(&text);
    let exchange = parse(&bytes[..]).unwrap().tree.to_exchange();
    assert_eq!(exchange.documents[0].extra.len(), 9_000);
    let scanned = clientbank_format::scan(&bytes[..]).unwrap();
    for encoding in Encoding::ALL {
        let whole = exchange.to_bytes(encoding);
        let streamed = scanned
            .write_canonical(&bytes, encoding, Vec::new())
            .unwrap();
        assert!(streamed == whole, "in {encoding}");
        match (encoding, whole) {
            (Encoding::Cp866, Err(error)) => {
                assert_eq!(
                    (error.document, error.key.as_str()),
                    (Some(2), "НазначениеПлатежа")
                );
            }
            (Encoding::Cp866, Ok(_)) => panic!("a € written in CP866"),
            (_, written) => {
                let written = written.unwrap_or_else(|e| panic!("{encoding}: {e}"));
                // Handed on in many parts.
                assert!(written.len() > 4 << 16);
                let again = parse(&written[..]).unwrap().tree.to_exchange();
                assert_eq!(again.documents[0].extra, exchange.documents[0].extra);
                assert_eq!(again.header.extra.len(), 3_000);
                assert_eq!(again.accounts[0].extra.len(), 4_000);
            }
        }
    }
    // Other bytes than those scanned are not written.
    assert!(
        scanned
            .write_canonical(b"other", Encoding::Cp1251, Vec::new())
            .is_none()
    );
}
