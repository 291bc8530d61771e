//! The batch layer: one drop read once into its payments, with every finding `check` shows.

use std::collections::HashMap;

use clientbank_format::Encoding;
use clientbank_payment::batch::{Batch, Form};
use clientbank_payment::{Code, Context, Diagnostic, Lang, NaiveDate, Severity};

fn today() -> Context {
    Context::as_of(NaiveDate::from_ymd_opt(2026, 11, 20).unwrap())
}

/// One payment order of the sample file, with `extra` lines before its end.
fn order(number: u32, extra: &str) -> String {
    format!(
        "СекцияДокумент=Платежное поручение\nНомер={number}\nДата=15.11.2026\nСумма=175000.00\n\
         ПлательщикСчет=40702810938000012345\nПлательщикИНН=7701234560\n\
         Плательщик1=ООО \"Ромашка\"\nПлательщикКПП=770101001\nПлательщикБИК=044525225\n\
         ПлательщикКорсчет=30101810400000000225\nПолучательСчет=40702810210000054321\n\
         Получатель1=ООО \"Лютик\"\nПолучательИНН=5009876546\nПолучательКПП=500101001\n\
         ПолучательБИК=044525974\nПолучательКорсчет=30101810145250000974\nВидОплаты=01\nКод=0\n\
         НазначениеПлатежа=Оплата по счету № 9125, в т.ч. НДС 20% 29166.67\n{extra}КонецДокумента\n"
    )
}

/// A CP1251 file (with LF endings: one `line-ending` warning).
fn file(body: &str) -> Vec<u8> {
    let text = format!(
        "1CClientBankExchange\nВерсияФормата=1.03\nКодировка=Windows\nДатаНачала=15.11.2026\n\
         ДатаКонца=15.11.2026\nРасчСчет=40702810938000012345\n{body}КонецФайла\n"
    );
    Encoding::Cp1251.encode(&text).unwrap().into_owned()
}

fn codes(batch: &Batch) -> Vec<&'static str> {
    batch.findings().map(|f| f.code.as_str()).collect()
}

#[test]
fn an_order_file_reports_mapping_findings_and_documents_that_are_not_orders() {
    let text = file(&format!(
        "{}{}СекцияДокумент=Банковский ордер\nНомер=3\nДата=15.11.2026\nСумма=1.00\nКонецДокумента\n",
        order(1, "Плательщик2=через банк\n"),
        order(2, "")
    ));
    let batch = Batch::read(text.clone(), &today()).unwrap();
    assert_eq!(batch.form(), Form::Orders);
    assert_eq!(
        codes(&batch),
        ["line-ending", "not-carried", "not-a-payment-order"],
        "the mapping's own finding and the other document are kept"
    );
    let items: Vec<_> = batch.items().collect();
    assert_eq!(items.len(), 3);
    assert!(items[2].payment().is_none() && items[2].request().is_none());
    assert_eq!(items[2].findings()[0].code, Code::NotAPaymentOrder);
    assert_eq!(items[2].findings()[0].payment, Some(3));
    // Located at its value: line and column in characters.
    let carried = &items[0].findings()[0];
    assert_eq!((carried.line, carried.column), (Some(26), Some(13)));
    assert_eq!(carried.payment, Some(1));
    assert!(!items[0].carried_by_json());
    assert!(items[1].carried_by_json());
    assert_eq!(items[1].line(), Some(28));
    let identity = items[1].identity();
    assert_eq!(identity.number, "2");
    assert_eq!(identity.payer_account, "40702810938000012345");
    assert_eq!(identity.recipient_account, "40702810210000054321");
    assert_eq!(
        identity.sum.map(|s| s.to_string()).as_deref(),
        Some("175000"),
        "one sum however it is written"
    );
    assert_eq!(identity.date, NaiveDate::from_ymd_opt(2026, 11, 15));
    let request = items[1].request().unwrap();
    assert_eq!(request.payment.number.as_deref(), Some("2"));
    assert!(request.parameters.is_none(), "a draft");
    let decoded = Encoding::Cp1251.decode(&text).into_owned();
    assert_eq!(batch.document_text(), Some(decoded));
    assert!(!batch.has_errors());
    assert_eq!(batch.counts(), (0, 3));
}

#[test]
fn what_only_the_json_route_loses_is_its_own_list() {
    let text = file(&order(1, "Очередность=3\nМойКлюч=1\n"));
    let batch = Batch::read(text, &today()).unwrap();
    let item = batch.items().next().unwrap();
    // `unknown-key` is the reader's; the priority is the rules' (an ordinary payment has 5):
    // in file order, whoever found them (issue 19 item 9).
    assert_eq!(
        codes(&batch),
        ["line-ending", "priority-unusual", "unknown-key"]
    );
    let route: Vec<_> = item
        .json_route()
        .iter()
        .map(|f| {
            (
                f.code,
                f.key.as_deref().unwrap_or_default().to_string(),
                f.line,
            )
        })
        .collect();
    assert_eq!(
        route,
        [
            (Code::NotCarried, "МойКлюч".to_string(), Some(27)),
            (Code::NotCarried, "Очередность".to_string(), Some(26)),
        ]
    );
    assert!(!item.carried_by_json());
}

#[test]
fn a_statement_is_history() {
    let text = file(&format!(
        "СекцияРасчСчет\nДатаНачала=01.01.2020\nДатаКонца=01.01.2020\n\
         РасчСчет=40702810938000012345\nНачальныйОстаток=0\nКонецРасчСчет\n{}\
         СекцияДокумент=Банковский ордер\nНомер=3\nДата=01.01.2020\nСумма=1.00\nКонецДокумента\n",
        order(1, "ДатаСписано=01.01.2020\n").replace("15.11.2026", "01.01.2020")
    ));
    let batch = Batch::read(text, &today()).unwrap();
    assert_eq!(batch.form(), Form::Statement);
    assert_eq!(batch.context(), Context::statement());
    // No `date-stale` for a payment of 2020, no `not-carried` for the bank's own keys, no
    // `not-a-payment-order` for its orders.
    assert_eq!(codes(&batch), ["line-ending"]);
    assert_eq!(batch.items().count(), 2);
    // Its records say nothing of the bank's own marks the JSON route would lose, but know that
    // it would; any other key they lose, `convert` tells (the items carry the upload requests):
    // a key that is not the format's on the JSON route, a format key the payment has no place
    // for among the findings. Nothing is dropped silently.
    let records = file(&format!(
        "СекцияРасчСчет\nДатаНачала=01.01.2020\nДатаКонца=01.01.2020\n\
         РасчСчет=40702810938000012345\nНачальныйОстаток=0\nКонецРасчСчет\n{}{}{}",
        order(1, "ДатаСписано=01.01.2020\n"),
        order(2, ""),
        order(3, "МойКлюч=1\nПлательщик2=р/с 123\n")
    ));
    let batch = Batch::read(records, &today()).unwrap();
    let items: Vec<_> = batch.items().collect();
    let carried: Vec<_> = items.iter().map(|i| i.carried_by_json()).collect();
    assert_eq!(carried, [false, true, false]);
    let keys = |findings: &[clientbank_diagnostic::Diagnostic]| {
        findings
            .iter()
            .filter(|f| f.code == Code::NotCarried)
            .map(|f| f.key.as_deref().unwrap_or_default().to_owned())
            .collect::<Vec<_>>()
    };
    assert!(keys(items[0].findings()).is_empty() && items[0].json_route().is_empty());
    assert_eq!(keys(items[2].findings()), ["Плательщик2"]);
    assert_eq!(keys(items[2].json_route()), ["МойКлюч"]);
    assert!(
        items[2].json_route()[0].line.is_some(),
        "located at its line"
    );
    // `check` says none of it: the records are the bank's.
    assert_eq!(codes(&batch), ["line-ending", "unknown-key"]);
    // Each of the bank's marks alone: not carried whole, and nothing said of it, whether the
    // findings are made whole or past their limit.
    let marks = [
        "ДатаСписано=01.01.2020\n",
        "ДатаПоступило=01.01.2020\n",
        "КвитанцияДата=01.01.2020\n",
        "КвитанцияВремя=10:15:00\n",
        "КвитанцияСодержание=Принят\n",
    ];
    let records: String = (0..1200)
        .map(|n| order(n + 1, marks[n as usize % marks.len()]))
        .collect();
    let batch = Batch::read(
        file(&format!(
            "СекцияРасчСчет\nДатаНачала=01.01.2020\nДатаКонца=01.01.2020\n\
             РасчСчет=40702810938000012345\nНачальныйОстаток=0\nКонецРасчСчет\n{records}"
        )),
        &today(),
    )
    .unwrap();
    let (mut carried, mut told) = (0, Vec::new());
    batch
        .conversion(true, |item| carried += usize::from(item.carried_by_json()))
        .for_each(|f| told.push(f.code.as_str()));
    assert_eq!(carried, 0);
    assert!(!told.contains(&"not-carried"), "{told:?}");
    // A statement's record lacks no bank detail it did not need: without the recipient's
    // correspondent account and name, only what a statement must carry is `missing`.
    let body = format!(
        "СекцияРасчСчет\nДатаНачала=01.01.2020\nДатаКонца=01.01.2020\n\
         РасчСчет=40702810938000012345\nНачальныйОстаток=0\nКонецРасчСчет\n{}",
        order(1, "ДатаСписано=01.01.2020\n")
            .replace("15.11.2026", "01.01.2020")
            .replace("ПолучательКорсчет=30101810145250000974\n", "")
            .replace("Получатель1=ООО \"Лютик\"\n", "")
    );
    let batch = Batch::read(file(&body), &today()).unwrap();
    assert_eq!(codes(&batch), ["line-ending"]);
    let without_sum = body.replace("Сумма=175000.00\n", "");
    let batch = Batch::read(file(&without_sum), &today()).unwrap();
    // The reader's `missing-key` is the one finding, an error as the rules' `missing` was.
    assert_eq!(codes(&batch), ["line-ending", "missing-key"]);
    assert!(
        batch
            .findings()
            .any(|f| f.code == Code::MissingKey && f.is_error())
    );
    // The same order in a file to the bank is stale.
    let orders = file(&order(1, "").replace("15.11.2026", "01.01.2020"));
    let batch = Batch::read(orders, &today()).unwrap();
    assert!(codes(&batch).contains(&"date-stale"));
}

#[test]
fn json_is_read_request_by_request() {
    let json =
        "\u{FEFF}  [{\"payment\": {\"Number\": \"1\", \"Sum\": \"1,5\"}}, 42,\n{\"payment\": {}}]";
    let batch = Batch::read(json, &today()).unwrap();
    assert_eq!(batch.form(), Form::Json);
    assert!(batch.document_text().is_none());
    let items: Vec<_> = batch.items().collect();
    assert_eq!(items.len(), 3);
    assert!(items[0].payment().is_some() && items[0].carried_by_json());
    assert!(items[1].payment().is_none() && !items[1].carried_by_json());
    assert_eq!(items[1].findings().len(), 1);
    assert_eq!(items[1].findings()[0].code, Code::JsonInvalid);
    assert_eq!(items[2].line(), Some(2));
    assert!(
        items
            .iter()
            .all(|i| i.findings().iter().all(|f| f.payment == Some(i.position())))
    );
    assert!(batch.has_errors());
    // Refusals: no upload at all, and no exchange file.
    for bad in [&b"[1,"[..], b"{\"payment\": \"\xff\"}"] {
        let refusal = Batch::read(bad, &today()).unwrap_err();
        assert_eq!(refusal.form(), Form::Json);
        assert_eq!(refusal.diagnostic.code, Code::JsonInvalid);
        assert!(
            refusal
                .render("a.json", Lang::Ru)
                .starts_with("ошибка[json-invalid]")
        );
    }
    let refusal = Batch::read(Vec::new(), &today()).unwrap_err();
    assert_eq!(refusal.diagnostic.code, Code::EmptyInput);
    assert_eq!(
        refusal.render("a.txt", Lang::En),
        "error[empty-input]: the input is empty\n --> a.txt:1:1\n  = expected an exchange file starting with 1CClientBankExchange\n"
    );
}

#[test]
fn findings_are_limited_per_code_across_payments_and_strict_makes_errors() {
    let body: String = (1..=1005)
        .map(|n| order(n, "").replace("15.11.2026", "01.10.2026"))
        .collect();
    let batch = Batch::read(file(&body), &today()).unwrap();
    let stale: Vec<_> = batch
        .findings()
        .filter(|f| f.code == Code::DateStale)
        .collect();
    assert_eq!(stale.len(), 1001, "the first 1000 and a summary");
    assert_eq!(stale[1000].omitted, 5);
    // With the file's one `line-ending`.
    assert_eq!(batch.counts(), (0, 1006));
    assert!(!batch.has_errors());
    let strict = batch.strict(true);
    assert!(strict.findings().all(|f| f.severity == Severity::Error));
    assert_eq!(strict.counts(), (1006, 0));
    // The daemon's report is `check`'s text.
    let report = strict.render("in.txt", Lang::En);
    assert!(report.contains("error[date-stale]"), "{report}");
    assert!(report.contains("and 5 more `date-stale` finding(s)"));
}

/// A key the payment has no place for, in every order: past the limit its findings are only
/// counted (made as stand-ins), and what is said is the same as when each is made whole.
#[test]
fn not_carried_past_the_limit_is_counted_as_when_made_whole() {
    let body: String = (1..=1300)
        .map(|n| {
            order(
                n,
                "ДатаСписано=14.11.2026\nПлательщик2=Р/с 40702810000000000001\n",
            )
        })
        .collect();
    let batch = Batch::read(file(&body), &today()).unwrap();
    for ahead in [false, true] {
        let findings: Vec<_> = if ahead {
            batch.findings().made_ahead(|f| f.collect())
        } else {
            batch.findings().collect()
        };
        for key in ["ДатаСписано", "Плательщик2"] {
            let of_key: Vec<_> = findings
                .iter()
                .filter(|f| f.code == Code::NotCarried && f.key.as_deref() == Some(key))
                .collect();
            // Whole: the value found, placed at its line, in its payment.
            assert!(of_key.iter().all(|f| f.found.is_some() && f.line.is_some()));
            assert_eq!(of_key.first().and_then(|f| f.payment), Some(1));
            // The first 1,000 of the code: both keys of the first 500 payments.
            assert_eq!(of_key.len(), 500, "{key}");
        }
        let summary: Vec<_> = findings
            .iter()
            .filter(|f| f.code == Code::NotCarried && f.omitted > 0)
            .collect();
        assert_eq!(summary.len(), 1);
        assert_eq!(summary[0].omitted, 2 * 1300 - 1000);
    }
    // The conversion's own account of what the JSON route loses is not limited away.
    let mut carried = 0;
    batch
        .conversion(true, |item| carried += usize::from(item.carried_by_json()))
        .made_ahead(|findings| findings.count());
    assert_eq!(carried, 0);
}

/// Where a finding stands and what it says, for comparing two lists.
fn shown(f: &clientbank_payment::Diagnostic) -> String {
    format!(
        "{} {:?}:{:?} {:?} {:?} {:?} {}",
        f.code,
        f.line,
        f.column,
        f.key,
        f.found,
        f.payment,
        f.message.en()
    )
}

/// Every `not-carried` finding of `batch` made whole, item by item, each item's in line order:
/// what a file shows when nothing is counted instead of made.
fn not_carried_made_whole(batch: &Batch) -> Vec<Diagnostic> {
    let mut whole = Vec::new();
    for item in batch.items() {
        let mut of_item: Vec<_> = (item.findings().iter())
            .chain(item.json_route())
            .filter(|f| f.code == Code::NotCarried)
            .cloned()
            .collect();
        of_item.sort_by_key(|f| (f.line.unwrap_or(u32::MAX), f.column.unwrap_or(u32::MAX)));
        whole.extend(of_item);
    }
    whole
}

/// `convert`'s `not-carried` findings, in one thread and made ahead, are the first 1,000 of
/// `whole` and one summary of the rest where the first one left out stands.
fn assert_shown_as_made_whole(batch: &Batch, whole: &[Diagnostic]) {
    let expected: Vec<_> = whole[..1000].iter().map(shown).collect();
    for ahead in [false, true] {
        let conversion = batch.conversion(true, |_| {});
        let findings: Vec<_> = if ahead {
            conversion.made_ahead(|f| f.collect())
        } else {
            conversion.collect()
        };
        let not_carried: Vec<_> = findings
            .iter()
            .filter(|f| f.code == Code::NotCarried)
            .collect();
        let (summary, shown_here) = not_carried.split_last().unwrap();
        let shown_here: Vec<_> = shown_here.iter().map(|f| shown(f)).collect();
        assert!(shown_here == expected, "made ahead: {ahead}");
        assert_eq!(summary.omitted as usize, whole.len() - 1000);
        assert_eq!(summary.line, whole[1000].line);
    }
}

#[test]
fn not_carried_past_the_limit_within_one_document_is_counted_not_made() {
    // One document of 1,500 keys that are not the format's (some repeated), a key read in
    // another letter case, a format key it has no place for 1,200 times, and then a key
    // the JSON route loses; a second document of a few.
    let mut unknown: String = (0..1500)
        .map(|i| format!("Свой{}=v{i}\n", i % 1400))
        .collect();
    unknown.push_str("датаначала=01.01.2026\n");
    unknown.extend((0..1200).map(|i| format!("ДатаНачала={:02}.01.2026\n", i % 28 + 1)));
    unknown.push_str("Плательщик2=Р/с 40702810000000000001\n");
    let mut body = order(1, &unknown) + &order(2, "Z1=1\nZ2=2\n");
    // Past the limit: documents of a few unknown keys each, only counted.
    body.extend((3..=200).map(|n| order(n, "Z1=1\nZ2=2\nZ3=3\n")));
    let batch = Batch::read(file(&body), &today()).unwrap();
    let whole = not_carried_made_whole(&batch);
    assert_eq!(whole.len(), 1500 + 1 + 1200 + 1 + 2 + 198 * 3);
    // A key that repeats is told at each of its lines, each with its own value.
    let repeated: Vec<_> = (whole.iter())
        .filter(|f| f.key.as_deref() == Some("Свой5"))
        .map(|f| (f.line, f.found.clone()))
        .collect();
    assert_eq!(repeated.len(), 2);
    assert!(repeated[0].0 < repeated[1].0 && repeated[0].1 != repeated[1].1);
    assert_shown_as_made_whole(&batch, &whole);
    // A document whose keys were only counted is still not carried by the JSON route.
    let mut carried = 0;
    batch
        .conversion(true, |item| carried += usize::from(item.carried_by_json()))
        .count();
    assert_eq!(carried, 0);
}

#[test]
fn one_defect_is_one_finding_with_the_worse_severity() {
    // `Сумма=1,50` is the reader's `invalid-sum`, not also the rules' `missing`; an empty `Дата`
    // is the reader's `empty-value` (a warning to the reader), an error of the rules: it stays
    // one finding, an error.
    let first = order(1, "").replace("Сумма=175000.00", "Сумма=1,50");
    let second = order(2, "").replace("Дата=15.11.2026", "Дата=");
    let batch = Batch::read(file(&format!("{first}{second}{}", order(3, ""))), &today()).unwrap();
    let findings: Vec<_> = batch.findings().collect();
    let of = |code: &str| findings.iter().filter(|f| f.code.as_str() == code).count();
    assert_eq!(of("invalid-sum"), 1, "{findings:#?}");
    assert_eq!(of("empty-value"), 1, "{findings:#?}");
    assert_eq!(
        of("missing"),
        0,
        "no second finding for one defect: {findings:#?}"
    );
    let empty = findings
        .iter()
        .find(|f| f.code.as_str() == "empty-value")
        .unwrap();
    assert_eq!(
        empty.severity,
        Severity::Error,
        "the rules' severity is the worse"
    );
    let items: Vec<_> = batch.items().collect();
    assert!(items[0].findings().iter().all(|f| f.code != Code::Missing));
    assert!(
        items[0].has_errors() && items[1].has_errors(),
        "the left-out error still counts for its payment"
    );
    assert!(!items[2].has_errors());
    assert!(batch.has_errors());
    // Where the reader found nothing, the rules' findings stay.
    let third = order(4, "").replace("Сумма=175000.00", "Сумма=0");
    let batch = Batch::read(file(&third), &today()).unwrap();
    assert!(codes(&batch).contains(&"sum-not-positive"));
}

/// A key the reader finds missing from a document (`missing-key`) is not also the rules'
/// `missing` for its field: one finding, the reader's, an error as the rules' was. `check`
/// (`findings`) and `convert` (`conversion`, which shows only the reader's errors) agree; a
/// field the reader does not require keeps the rules' finding; a statement too.
#[test]
fn a_missing_key_is_one_finding_in_check_and_convert() {
    let without = order(1, "")
        .replace("Дата=15.11.2026\n", "")
        .replace("Сумма=175000.00\n", "")
        .replace("НазначениеПлатежа=", "Назначение=");
    let batch = Batch::read(file(&format!("{without}{}", order(2, ""))), &today()).unwrap();
    let shown = |findings: Vec<clientbank_diagnostic::Diagnostic>| {
        findings
            .into_iter()
            .filter(|f| matches!(f.code, Code::Missing | Code::MissingKey))
            .map(|f| {
                (
                    f.code.as_str(),
                    f.key.as_deref().map(str::to_owned),
                    f.severity,
                )
            })
            .collect::<Vec<_>>()
    };
    let check = shown(batch.findings().collect());
    let convert = shown(batch.conversion(true, |_| {}).collect());
    let key = |k: &str| Some(k.to_owned());
    assert_eq!(
        check,
        [
            ("missing-key", key("Дата"), Severity::Error),
            ("missing-key", key("Сумма"), Severity::Error),
            ("missing", key("НазначениеПлатежа"), Severity::Error),
        ],
        "one finding a missing key; the purpose, which the reader does not require, is the rules'"
    );
    assert_eq!(convert, check, "convert shows the same");
    let items: Vec<_> = batch.items().collect();
    assert!(items[0].has_errors() && !items[1].has_errors());
    assert!(
        items[0]
            .findings()
            .iter()
            .all(|f| f.code != Code::Missing || f.key.as_deref() == Some("НазначениеПлатежа")),
        "{:?}",
        items[0].findings()
    );
}

/// A file cut short inside its last document (the input ends before `КонецДокумента`) is one
/// defect: the reader's `unclosed-section`, an error, and its `missing-end-of-file`; no
/// "fill in" finding for the keys lost after the cut, and no finding for a value the cut shortened.
/// The payment counts as an error (it is never sent); the documents before it are as they were.
/// Cut at every byte of the last document.
#[test]
fn a_file_cut_short_is_one_defect_not_a_finding_per_lost_key() {
    let whole = file(&format!("{}{}", order(1, ""), order(2, "")));
    let start = Encoding::Cp1251.encode("СекцияДокумент").unwrap();
    let last = whole
        .windows(start.len())
        .rposition(|w| w == &start[..])
        .unwrap();
    let end = whole.len() - "КонецДокумента\nКонецФайла\n".len();
    let complete = Batch::read(whole.clone(), &today()).unwrap();
    let first_findings: Vec<_> = complete
        .items()
        .next()
        .unwrap()
        .findings()
        .iter()
        .map(|f| f.code)
        .collect();
    for cut in last + start.len() + 1..=end {
        let batch = Batch::read(whole[..cut].to_vec(), &today()).unwrap();
        let findings: Vec<_> = batch.findings().collect();
        let shown = || format!("cut at byte {cut}: {findings:#?}");
        let unclosed: Vec<_> = findings
            .iter()
            .filter(|f| f.code == Code::UnclosedSection)
            .collect();
        assert_eq!(unclosed.len(), 1, "{}", shown());
        assert_eq!(unclosed[0].severity, Severity::Error, "{}", shown());
        assert!(findings.iter().any(|f| f.code == Code::MissingEndOfFile));
        let items: Vec<_> = batch.items().collect();
        assert_eq!(items.len(), 2, "{}", shown());
        assert!(items[1].findings().is_empty(), "{}", shown());
        assert!(items[1].has_errors(), "{}", shown());
        let first: Vec<_> = items[0].findings().iter().map(|f| f.code).collect();
        assert_eq!(first, first_findings, "{}", shown());
        assert!(batch.has_errors());
    }
    // A document closed by the next one's start is not cut short: its lost keys are findings.
    let unclosed = order(1, "").replace("ПолучательБИК=044525974\n", "");
    let unclosed = unclosed.replace("КонецДокумента\n", "");
    let batch = Batch::read(file(&format!("{unclosed}{}", order(2, ""))), &today()).unwrap();
    let findings: Vec<_> = batch.findings().collect();
    assert!(
        findings.iter().any(|f| f.code == Code::Missing),
        "{findings:#?}"
    );
    let unclosed = findings
        .iter()
        .find(|f| f.code == Code::UnclosedSection)
        .unwrap();
    assert_eq!(unclosed.severity, Severity::Warning);
}

/// A payment's findings carry its document number (what the accounting software finds it by)
/// beside its place in the file, from 1C and from JSON alike, and the text says both.
#[test]
fn findings_name_the_payment_by_its_number_too() {
    let wrong = order(15, "").replace("Сумма=175000.00", "Сумма=0");
    // Where the sum's finding is: the payment's place and number.
    let placed = |batch: &Batch| {
        let finding = batch
            .findings()
            .find(|f| f.code == Code::SumNotPositive)
            .unwrap();
        (finding.payment, finding.number.map(String::from))
    };
    let batch = Batch::read(file(&format!("{}{wrong}", order(14, ""))), &today()).unwrap();
    assert_eq!(placed(&batch), (Some(2), Some("15".into())));
    let shown = batch.render("a.txt", Lang::En);
    assert!(shown.contains("= payment 2 (№ 15), Sum (Сумма)"), "{shown}");
    let shown = batch.render("a.txt", Lang::Ru);
    assert!(
        shown.contains("= 2-й платёж файла (№ 15), Сумма (Sum)"),
        "{shown}"
    );
    let json = r#"[{"payment": {"Number": "7", "Date": "15.11.2026", "Sum": "-5"}}]"#;
    let batch = Batch::read(json.as_bytes(), &today()).unwrap();
    assert_eq!(placed(&batch), (Some(1), Some("7".into())));
    // No number: none said.
    let none = order(1, "").replace("Номер=1\n", "");
    let batch = Batch::read(file(&none), &today()).unwrap();
    assert!(batch.findings().all(|f| f.number.is_none()));
}

/// A progress bar over a big file hears of every item, in order, also where an item has no
/// finding; and the findings are those of `findings()`.
#[test]
fn findings_with_progress_tell_every_item_read() {
    let body: String = (1..=5).map(|n| order(n, "")).collect();
    let batch = Batch::read(file(&body), &today()).unwrap();
    assert_eq!(batch.item_count(), 5);
    let mut heard = Vec::new();
    let with: Vec<_> = batch
        .findings_with_progress(|read| heard.push(read))
        .map(|d| d.code)
        .collect();
    assert_eq!(heard, [1, 2, 3, 4, 5]);
    let without: Vec<_> = batch.findings().map(|d| d.code).collect();
    assert_eq!(with, without);
}

/// Findings made ahead by other threads are the findings, in their order, with the limit per
/// code; `convert`'s pass hands every item over once, in order; a reader that stops early
/// stops the maker (the call returns: nothing waits for it).
#[test]
fn findings_made_ahead_are_the_same_and_a_reader_may_stop_early() {
    // Chunks of 16, 32, … 2048 documents: several chunks, some over the limit of 1,000 a code.
    let body: String = (1..=5000)
        .map(|n| match n % 3 {
            0 => order(n, "").replace("15.11.2026", "01.10.2026"),
            1 => order(n, "Очередность=3\n"),
            _ => order(n, ""),
        })
        .collect();
    let batch = Batch::read(file(&body), &today()).unwrap();
    let plain: Vec<_> = batch.findings().collect();
    let ahead = batch
        .findings()
        .made_ahead(|findings| findings.collect::<Vec<_>>());
    assert_eq!(ahead, plain);
    assert!(
        plain.iter().any(|f| f.omitted > 0),
        "a summary is among them"
    );
    let mut numbers = Vec::new();
    let conversion = batch
        .conversion(true, |item| {
            numbers.push(item.payment().and_then(|p| p.number.clone()));
            assert!(item.findings().is_empty(), "taken into the findings");
        })
        .made_ahead(|findings| findings.count());
    assert_eq!(numbers.len(), 5000);
    assert_eq!(numbers[4999].as_deref(), Some("5000"));
    assert!(
        conversion > plain.len(),
        "with what the JSON route would not carry"
    );
    let first = batch.findings().made_ahead(|mut findings| findings.next());
    assert_eq!(first.as_ref(), plain.first());
}

/// `convert`'s requests written where their items are made, from the file's texts, are the
/// requests the items carry otherwise, serialised: for orders (with what the JSON route cannot
/// carry), a statement's records and documents that are not payment orders, in order.
#[test]
fn requests_written_ahead_are_the_items_requests() {
    let orders: String = (1..=300)
        .map(|n| match n % 4 {
            0 => order(n, "Очередность=3\n"),
            1 => order(n, "МойКлюч=1\n"),
            2 => format!("СекцияДокумент=Банковский ордер\nНомер={n}\nКонецДокумента\n"),
            _ => order(n, "").replace("Сумма=175000.00", "Сумма=5"),
        })
        .collect();
    let statement = format!(
        "СекцияРасчСчет\nДатаНачала=01.01.2020\nДатаКонца=01.01.2020\n\
         РасчСчет=40702810938000012345\nНачальныйОстаток=0\nКонецРасчСчет\n{}",
        order(1, "ДатаСписано=01.01.2020\n")
    );
    for body in [orders, statement] {
        let batch = Batch::read(file(&body), &today()).unwrap();
        let expected: Vec<Option<Vec<u8>>> = batch
            .items()
            .map(|item| item.request().map(|r| serde_json::to_vec(r).unwrap()))
            .collect();
        assert!(expected.iter().any(Option::is_some));
        let plain = batch.conversion(true, drop).count();
        // Made ahead by two threads, and by the reader's own.
        for ahead in [true, false] {
            let mut written = Vec::new();
            let mut payments = 0;
            let write = |request: clientbank_payment::UploadRequest<&str>, text: &mut Vec<u8>| {
                serde_json::to_writer(text, &request).unwrap();
            };
            let conversion = batch
                .conversion(true, |item| {
                    payments += usize::from(item.payment().is_some() || item.request().is_some());
                    written.push(item.written().map(<[u8]>::to_vec));
                })
                .writing(write);
            let findings = if ahead {
                conversion.made_ahead(Iterator::count)
            } else {
                conversion.count()
            };
            assert_eq!(findings, plain, "the same findings");
            assert_eq!(written, expected);
            assert_eq!(
                payments, 0,
                "a written item holds neither payment nor request"
            );
        }
    }
}

/// An item moves through queues and between threads a million times in a big file: it stays
/// small (its payment and request are boxed).
#[test]
fn an_item_is_small() {
    assert!(std::mem::size_of::<clientbank_payment::batch::Item>() <= 128);
}

/// The rules' findings past the file's limit are counted, not made: every code's total (the
/// findings shown and those a summary stands for) is the number of its findings made whole
/// item by item, in one thread and made ahead, and the summary stands where the first finding
/// past the limit would.
#[test]
fn rule_findings_past_the_limit_are_counted_as_when_made_whole() {
    // Each order: a recipient KPP of the wrong form, and a priority that is not one of the five.
    let body: String = (1..=1400)
        .map(|n| {
            order(n, "Очередность=9\n").replace("ПолучательКПП=500101001", "ПолучательКПП=50010100")
        })
        .collect();
    let batch = Batch::read(file(&body), &today()).unwrap();
    let mut whole: HashMap<Code, usize> = HashMap::new();
    for item in batch.items() {
        for finding in item.findings() {
            *whole.entry(finding.code).or_default() += 1;
        }
    }
    let over: Vec<Code> = whole
        .iter()
        .filter(|&(_, &n)| n > 1000)
        .map(|(&code, _)| code)
        .collect();
    assert_eq!(over.len(), 2, "{whole:?}");
    for ahead in [false, true] {
        let findings: Vec<Diagnostic> = if ahead {
            batch.findings().made_ahead(|f| f.collect())
        } else {
            batch.findings().collect()
        };
        let mut totals: HashMap<Code, usize> = HashMap::new();
        for finding in findings.iter().filter(|f| f.code != Code::LineEnding) {
            *totals.entry(finding.code).or_default() += finding.count();
        }
        assert_eq!(totals, whole, "made ahead: {ahead}");
        for &code in &over {
            let of_code: Vec<&Diagnostic> = findings.iter().filter(|f| f.code == code).collect();
            assert_eq!(of_code.len(), 1001, "{code}");
            let summary = of_code[1000];
            assert_eq!(summary.omitted as usize, whole[&code] - 1000, "{code}");
            // The first finding past the limit is that of payment 1,001 (one a payment).
            assert!(summary.line > of_code[999].line, "{code}");
        }
    }
}

/// Documents of many keys each that are not the format's: a thread making items in file order
/// counts the `not-carried` findings past a thousand of its own instead of making them, so
/// those made ahead before the file's limit is known hold a thousand, not every one. What is
/// shown is what every finding made whole shows, in one thread and made ahead.
#[test]
fn not_carried_past_the_limit_across_documents_is_counted_as_when_made_whole() {
    let keys: String = (0..40).map(|i| format!("Своё{i}=значение {i}\n")).collect();
    let body: String = (1..=3000).map(|n| order(n, &keys)).collect();
    let batch = Batch::read(file(&body), &today()).unwrap();
    let whole = not_carried_made_whole(&batch);
    assert_eq!(whole.len(), 3000 * 40);
    assert_shown_as_made_whole(&batch, &whole);
}
