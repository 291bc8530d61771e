//! What is written beside a file: `FILE.report.csv`, `FILE.errors.txt`, `FILE.review.txt`.

use std::fmt::Write as _;

use crate::journal::PaymentRow;
use crate::state::{PaymentState, Standing};

/// A payment's state for people (the report's `state` column).
pub fn state_label(row: &PaymentRow) -> String {
    standing(row).report_label().0.into()
}

/// [`state_label`] in `lang`, for people.
pub fn state_label_in(row: &PaymentRow, lang: clientbank_format::Lang) -> &'static str {
    let (en, ru) = standing(row).report_label();
    match lang {
        clientbank_format::Lang::Ru => ru,
        _ => en,
    }
}

fn standing(row: &PaymentRow) -> Standing {
    Standing {
        state: row.outcome.state,
        sign: row.outcome.sign,
    }
}

/// What a row of a `FILE.report.csv` says of its payment, for a journal started anew, from its
/// machine-readable `code` and its bank id: at the bank (a bank id, or uploaded, already there,
/// twice), not sent (refused, never sent), or else in doubt — a report without a code (written
/// before codes were) or with one this version does not know too: the safe side.
pub fn state_of_report_row(code: Option<&str>, bank_id: &str) -> PaymentState {
    use PaymentState as P;
    if !bank_id.trim().is_empty() {
        return P::Uploaded;
    }
    match code
        .and_then(|c| Standing::from_code(c).ok())
        .map(|s| s.state)
    {
        Some(P::Uploaded | P::Already | P::Duplicate) => P::Uploaded,
        Some(P::NotSent | P::Refused | P::Planned | P::Held | P::Queued) => P::NotSent,
        Some(P::Doubt | P::Sending) | None => P::Doubt,
    }
}

/// The columns of `FILE.report.csv`: the English name and the Russian one.
pub const COLUMNS: [(&str, &str); 9] = [
    ("number", "номер"),
    ("date", "дата"),
    ("sum", "сумма"),
    ("recipient", "получатель"),
    ("recipient_account", "счёт получателя"),
    ("id", "id"),
    ("state", "состояние"),
    ("code", "код"),
    ("message", "сообщение"),
];

/// The byte order mark that tells Excel a CSV file is UTF-8.
pub const BOM: &str = "\u{feff}";

/// A CSV writer as Excel reads a file by double-click in a Russian Windows: the [`BOM`] first,
/// `;` between columns (a `;` or quote inside a value is quoted). Write text cells through
/// [`excel_cell`] and sums through [`sum_in`].
pub fn excel_writer<W: std::io::Write>(mut out: W) -> std::io::Result<csv::Writer<W>> {
    out.write_all(BOM.as_bytes())?;
    Ok(csv::WriterBuilder::new().delimiter(b';').from_writer(out))
}

/// A text cell for a spreadsheet: one that starts like a formula (`=`, `+`, `-`, `@`, a tab or
/// a line break — a payee's name or a purpose someone else wrote) gets a leading `'`, so that
/// the spreadsheet shows it instead of running it; digits that Excel would turn into a number
/// and so change (an account's 20 digits become `4,07028E+19`, `0402` becomes `402`) are
/// written `="…"`, which Excel shows as the text it is ([`excel_unwrap`] reads it back).
pub fn excel_cell(text: &str) -> std::borrow::Cow<'_, str> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if digits && (text.len() > 15 || (text.len() > 1 && text.starts_with('0'))) {
        std::borrow::Cow::Owned(format!("=\"{text}\""))
    } else if text.starts_with(['=', '+', '-', '@', '\t', '\r', '\n']) {
        std::borrow::Cow::Owned(format!("'{text}"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// A cell as [`excel_cell`] wrote it, read back: `="0402"` is `0402`.
pub fn excel_unwrap(cell: &str) -> &str {
    cell.strip_prefix("=\"")
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or(cell)
}

/// A note for people (`FILE.errors.txt`, `FILE.review.txt`) as its file holds it: UTF-8 after
/// a BOM, lines ending in CRLF, which every Windows Notepad opens as it is (one before Windows
/// 10 1903 takes UTF-8 without a BOM for the ANSI code page, and LF for no line break).
pub fn note_bytes(text: &str) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(text.len() + text.len() / 32 + 3);
    bytes.extend_from_slice("\u{feff}".as_bytes());
    let mut lines = text.split('\n').peekable();
    while let Some(line) = lines.next() {
        bytes.extend_from_slice(line.strip_suffix('\r').unwrap_or(line).as_bytes());
        if lines.peek().is_some() {
            bytes.extend_from_slice(b"\r\n");
        }
    }
    bytes
}

/// A sum as people of `lang` read it, in a note or a spreadsheet: a decimal comma in Russian.
pub fn sum_in(sum: &str, lang: clientbank_payment::Lang) -> String {
    if lang == clientbank_payment::Lang::Ru {
        sum.replace('.', ",")
    } else {
        sum.to_string()
    }
}

/// The CSV report as Excel opens it by double-click in a Russian Windows: UTF-8 with a BOM,
/// `;` between columns, the headers and states in `lang`, sums with a decimal comma in
/// Russian; the machine-readable state `code` ([`Standing::code`]) the same in both
/// languages. Columns: [`COLUMNS`].
pub fn csv(rows: &[PaymentRow], lang: clientbank_payment::Lang) -> Vec<u8> {
    let ru = lang == clientbank_payment::Lang::Ru;
    // Writing into a Vec cannot fail.
    let Ok(mut writer) = excel_writer(Vec::new()) else {
        return Vec::new();
    };
    let _ = writer.write_record(COLUMNS.map(|(en, ru_name)| if ru { ru_name } else { en }));
    for row in rows {
        let (label_en, label_ru) = standing(row).report_label();
        let _ = writer.write_record([
            excel_cell(row.payment.shown_number()).as_ref(),
            row.payment.date.as_str(),
            sum_in(&row.payment.sum, lang).as_str(),
            excel_cell(&row.payment.recipient).as_ref(),
            excel_cell(&row.payment.recipient_account).as_ref(),
            row.outcome.bank_id.as_deref().unwrap_or(""),
            if ru { label_ru } else { label_en },
            standing(row).code().as_str(),
            excel_cell(said(row, lang)).as_ref(),
        ]);
    }
    writer.into_inner().unwrap_or_default()
}

/// Reads a `FILE.report.csv` of any version: with or without the BOM, `;` or `,` between
/// columns, headers in either language. Each row as (number, id, code), in file order; the
/// code is `None` in a report written before codes were. Empty when it cannot be read.
pub fn read_csv(bytes: &[u8]) -> Vec<(String, String, Option<String>)> {
    let bytes = bytes.strip_prefix(BOM.as_bytes()).unwrap_or(bytes);
    let header = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let delimiter = if header.contains(&b';') { b';' } else { b',' };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .from_reader(bytes);
    let Ok(headers) = reader.headers().cloned() else {
        return Vec::new();
    };
    let column = |name: &str| {
        let (en, ru) = COLUMNS.into_iter().find(|(en, _)| *en == name)?;
        headers.iter().position(|h| h == en || h == ru)
    };
    let (Some(number), Some(id)) = (column("number"), column("id")) else {
        return Vec::new();
    };
    let code = column("code");
    let cell =
        |r: &csv::StringRecord, i: usize| excel_unwrap(r.get(i).unwrap_or_default()).to_string();
    reader
        .records()
        .map_while(Result::ok)
        .map(|r| (cell(&r, number), cell(&r, id), code.map(|c| cell(&r, c))))
        .collect()
}

fn line(row: &PaymentRow) -> String {
    format!(
        "№ {} of {}, {} to {} ({})",
        row.payment.shown_number(),
        row.payment.date,
        row.payment.sum,
        row.payment.recipient,
        row.payment.recipient_account
    )
}

fn line_ru(row: &PaymentRow) -> String {
    format!(
        "№ {} от {}, {} получателю {} ({})",
        row.payment.shown_number(),
        row.payment.date,
        sum_in(&row.payment.sum, clientbank_payment::Lang::Ru),
        row.payment.recipient,
        row.payment.recipient_account
    )
}

/// `FILE.errors.txt` of a file some of whose payments the bank refused, in `lang`.
pub fn refusals(name: &str, rows: &[PaymentRow], lang: clientbank_payment::Lang) -> String {
    let ru = lang == clientbank_payment::Lang::Ru;
    let describe = |row: &PaymentRow| if ru { line_ru(row) } else { line(row) };
    let mut out = if ru {
        format!("{name}: банк отклонил платёж(и); в остальном файл в порядке\n\n")
    } else {
        format!("{name}: the bank refused payment(s); nothing else is wrong with it\n\n")
    };
    for row in rows
        .iter()
        .filter(|r| r.outcome.state == PaymentState::Refused)
    {
        let _ = writeln!(
            out,
            "{}: {} {} — {}\n  {}",
            if ru { "отклонён" } else { "refused" },
            if ru { "платёж" } else { "payment" },
            row.position + 1,
            describe(row),
            said(row, lang)
        );
    }
    let uploaded: Vec<_> = rows
        .iter()
        .filter(|r| {
            r.outcome.state == PaymentState::Uploaded || r.outcome.state == PaymentState::Already
        })
        .collect();
    if !uploaded.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            if ru {
                format!(
                    "\nУже в банке (см. {name}.report.csv), повторно не отправляются, если файл \
                     положить снова:"
                )
            } else {
                format!(
                    "\nAt the bank (see {name}.report.csv), not sent again if the file is dropped \
                     anew:"
                )
            }
        );
        for row in uploaded {
            let _ = writeln!(
                out,
                "  {} {} — {}: id {}",
                if ru { "платёж" } else { "payment" },
                row.position + 1,
                describe(row),
                row.outcome.bank_id.as_deref().unwrap_or(if ru {
                    "не назван"
                } else {
                    "not named"
                })
            );
        }
    }
    out.push_str(if ru {
        "\nИсправьте отклонённые платежи в учётной программе и выгрузите снова: платежи, уже \
         находящиеся в банке, будут узнаны и не уйдут дважды.\n"
    } else {
        "\nFix the refused payment(s) in the accounting software and export again: payments \
         already at the bank are recognised and not sent twice.\n"
    });
    out
}

/// `FILE.review.txt` of a file of `dir`/review, in `lang`: which payments may be at the bank,
/// and how to settle it (the command to run, with `dir`).
pub fn review(
    dir: &std::path::Path,
    name: &str,
    why: Option<&str>,
    rows: &[PaymentRow],
    lang: clientbank_payment::Lang,
) -> String {
    let ru = lang == clientbank_payment::Lang::Ru;
    let tr = |en: &'static str, ru_text: &'static str| if ru { ru_text } else { en };
    let in_doubt: Vec<&PaymentRow> = rows.iter().filter(|r| r.outcome.state.in_doubt()).collect();
    let mut out = match (in_doubt.is_empty(), ru) {
        (false, true) => format!(
            "{name} требует решения человека: часть его платежей, возможно, уже в банке.\n\
             clientbank никогда не отправляет такой платёж повторно сам.\n"
        ),
        (false, false) => format!(
            "{name} needs a person: some of its payments may or may not be at the bank.\n\
             clientbank never sends such a payment again by itself.\n"
        ),
        (true, true) => format!(
            "{name} требует решения человека: ни один его платёж не под сомнением, но не все \
             могли быть отправлены из него (ниже сказано почему).\n"
        ),
        (true, false) => format!(
            "{name} needs a person: none of its payments is in doubt, but not all could be sent \
             from it (below, why).\n"
        ),
    };
    if let Some(why) = why {
        let _ = writeln!(out, "\n{}", crate::journal::note::in_lang(why, lang));
    }
    let group = |out: &mut String, title: &str, states: &[PaymentState]| {
        let chosen: Vec<_> = rows
            .iter()
            .filter(|r| states.contains(&r.outcome.state))
            .collect();
        if chosen.is_empty() {
            return;
        }
        let _ = writeln!(out, "\n{title}");
        for row in chosen {
            let _ = write!(
                out,
                "  {} {} — {}",
                tr("payment", "платёж"),
                row.position + 1,
                if ru { line_ru(row) } else { line(row) }
            );
            if let Some(id) = &row.outcome.bank_id {
                let _ = write!(out, ": id {id}");
            }
            if row.outcome.message.is_some() {
                let _ = write!(out, "\n      {}", said(row, lang));
            }
            out.push('\n');
        }
    };
    group(
        &mut out,
        tr(
            "MAY BE AT THE BANK (check these):",
            "ВОЗМОЖНО, УЖЕ В БАНКЕ (проверьте их):",
        ),
        &[PaymentState::Doubt, PaymentState::Sending],
    );
    group(
        &mut out,
        tr("Held (not sent):", "Задержаны (не отправлены):"),
        &[PaymentState::Held, PaymentState::Queued],
    );
    group(
        &mut out,
        tr("At the bank (uploaded):", "В банке (загружены):"),
        &[PaymentState::Uploaded, PaymentState::Already],
    );
    group(
        &mut out,
        tr("Refused by the bank:", "Отклонены банком:"),
        &[PaymentState::Refused],
    );
    group(
        &mut out,
        tr("Not sent:", "Не отправлены:"),
        &[PaymentState::Planned, PaymentState::NotSent],
    );
    out.push_str(&how_to_settle(dir, name, &in_doubt, ru));
    out
}

/// The end of a review note: how to check the payments at the bank, and the commands that
/// settle the file (payment by payment when several are in doubt).
fn how_to_settle(dir: &std::path::Path, name: &str, in_doubt: &[&PaymentRow], ru: bool) -> String {
    let mut out = String::new();
    let quoted = shell_quote(name);
    let dir = shell_quote(&dir.display().to_string());
    // Numbers to settle payment by payment, when the payments in doubt are several.
    let numbers: Vec<&str> = in_doubt.iter().map(|r| r.payment.shown_number()).collect();
    let each = (numbers.len() > 1).then(|| {
        let first = numbers[0];
        let rest = numbers[1..].join(" ");
        if ru {
            format!(
                "  clientbank resolve {dir} {quoted} --sent {first} --not-sent {rest}\n      \
                 по каждому платежу (номера), когда одни в банке, а другие нет\n"
            )
        } else {
            format!(
                "  clientbank resolve {dir} {quoted} --sent {first} --not-sent {rest}\n      \
                 payment by payment (numbers), when some are at the bank and some are not\n"
            )
        }
    });
    if ru {
        let _ = write!(
            out,
            "\nКак проверить: найдите эти платежи (номер, дата, сумма) среди черновиков и платежей, \
             ждущих подписи, в интернет-банке или в выписке по счёту. Затем:\n  \
             clientbank resolve {dir} {quoted} --sent       они в банке: файл уйдёт в done/ \
             (ещё не отправленные платежи пройдут через inbox)\n  \
             clientbank resolve {dir} {quoted} --not-sent   их там нет: файл вернётся в inbox, \
             и они будут отправлены один раз\n"
        );
    } else {
        let _ = write!(
            out,
            "\nHow to check: look for these payments (number, date, sum) among the drafts and the \
             payments awaiting signature in the bank's cabinet, or in the account's operation \
             history. Then:\n  clientbank resolve {dir} {quoted} --sent       they are at the \
             bank: the file goes to done/ (payments not sent yet go back through the inbox)\n  \
             clientbank resolve {dir} {quoted} --not-sent   they are not: the file goes back to \
             the inbox and they are sent once\n"
        );
    }
    out.extend(each);
    out.push_str(if ru {
        "  (resolve работает с папкой один: сначала остановите службу или `clientbank watch` \
         этой папки, затем запустите её снова)\n"
    } else {
        "  (resolve works on the folder alone: stop the service or `clientbank watch` of this \
         folder first, then start it again)\n"
    });
    out
}

/// What the journal says of a payment, in `lang` (see [`crate::journal::note`]).
fn said(row: &PaymentRow, lang: clientbank_payment::Lang) -> &str {
    row.outcome
        .message
        .as_deref()
        .map_or("", |m| crate::journal::note::in_lang(m, lang))
}

/// A word for a command line people copy: as it is when it holds only characters no shell
/// treats specially, else quoted (POSIX shells: `'…'`, a `'` inside as `'\''`; Windows:
/// `"…"`).
pub fn shell_quote(word: &str) -> String {
    let plain = |c: char| c.is_alphanumeric() || "-_./:=+,@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    if cfg!(windows) {
        format!("\"{}\"", word.replace('"', "\"\""))
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::{PaymentRow, shell_quote};
    use crate::state::{PaymentState, SignState};

    /// A report row is read back by its code, never its label: at the bank, not sent, or in
    /// doubt — a code it does not know, or none (a report written before codes), too.
    #[test]
    fn a_report_row_is_read_back_by_its_code() {
        use super::state_of_report_row as read;
        assert_eq!(read(Some("uploaded:awaiting"), ""), PaymentState::Uploaded);
        assert_eq!(read(Some("already"), ""), PaymentState::Uploaded);
        assert_eq!(read(Some("duplicate"), ""), PaymentState::Uploaded);
        assert_eq!(read(Some("doubt"), ""), PaymentState::Doubt);
        assert_eq!(read(Some("sending"), ""), PaymentState::Doubt);
        assert_eq!(read(Some("refused"), ""), PaymentState::NotSent);
        assert_eq!(read(Some("refused"), "an-id"), PaymentState::Uploaded);
        assert_eq!(read(Some("not-sent"), ""), PaymentState::NotSent);
        assert_eq!(read(Some("something else"), ""), PaymentState::Doubt);
        assert_eq!(read(None, ""), PaymentState::Doubt);
        // The label is for people: read as it is, it says nothing.
        assert_eq!(read(Some("refused by the bank"), ""), PaymentState::Doubt);
    }

    #[test]
    fn what_the_journal_says_of_a_payment_is_in_the_reader_s_language() {
        let mut row = PaymentRow::example(1, "7", PaymentState::Doubt);
        row.outcome.message = Some(crate::journal::note::both(
            "sent, but the answer was lost",
            "отправлен, но ответ потерян",
        ));
        let rows = [row];
        let ru = String::from_utf8(super::csv(&rows, clientbank_payment::Lang::Ru)).unwrap();
        assert!(ru.contains("отправлен, но ответ потерян"), "{ru}");
        assert!(
            !ru.contains("answer was lost") && !ru.contains('\u{1f}'),
            "{ru}"
        );
        let en = String::from_utf8(super::csv(&rows, clientbank_payment::Lang::En)).unwrap();
        assert!(
            en.contains("sent, but the answer was lost") && !en.contains("ответ"),
            "{en}"
        );
        let dir = std::path::Path::new("exchange");
        let note = super::review(dir, "a.json", None, &rows, clientbank_payment::Lang::Ru);
        assert!(note.contains("отправлен, но ответ потерян"), "{note}");
        // A message of an earlier journal (one language) is shown as it is.
        let mut old = PaymentRow::example(1, "7", PaymentState::Refused);
        old.outcome.message = Some("refused by the bank: no".into());
        let text = super::refusals("a.json", &[old], clientbank_payment::Lang::Ru);
        assert!(text.contains("refused by the bank: no"), "{text}");
    }

    #[test]
    fn a_note_is_written_for_any_notepad() {
        assert_eq!(
            super::note_bytes("a\nб\r\n\nend\n"),
            "\u{feff}a\r\nб\r\n\r\nend\r\n".as_bytes()
        );
        assert_eq!(super::note_bytes(""), "\u{feff}".as_bytes());
    }

    /// A note for people says a sum as the CSV beside it does: a decimal comma in Russian.
    #[test]
    fn a_note_says_sums_in_the_language() {
        use clientbank_payment::Lang;
        let mut row = uploaded_row();
        row.outcome.state = PaymentState::Doubt;
        let dir = std::path::Path::new("exchange");
        let ru = super::review(dir, "a.txt", None, std::slice::from_ref(&row), Lang::Ru);
        let en = super::review(dir, "a.txt", None, std::slice::from_ref(&row), Lang::En);
        assert!(
            ru.contains("175000,50") && !ru.contains("175000.50"),
            "{ru}"
        );
        assert!(en.contains("175000.50"), "{en}");
    }

    fn uploaded_row() -> PaymentRow {
        let mut row = PaymentRow::example(1, "7", PaymentState::Uploaded);
        row.payment.date = "20.11.2026".into();
        row.payment.sum = "175000.50".into();
        row.payment.recipient = "ООО \"Лютик\"; филиал".into();
        row.payment.recipient_account = "40702810210000054321".into();
        row.outcome.bank_id = Some("id-7".into());
        row.outcome.sign = Some(SignState::Awaiting);
        row
    }

    /// Issue 19 item 7: the report opens in Russian Excel by double-click — read here as Excel
    /// reads it there: UTF-8 after a BOM, `;` between columns, a decimal comma.
    #[test]
    fn the_report_is_read_as_russian_excel_reads_it() {
        use clientbank_payment::Lang;
        let bytes = super::csv(&[uploaded_row()], Lang::Ru);
        let text = std::str::from_utf8(&bytes).unwrap();
        let body = text.strip_prefix('\u{feff}').expect("a BOM first");
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(b';')
            .from_reader(body.as_bytes());
        let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(
            headers,
            super::COLUMNS.map(|(_, ru)| ru.to_string()),
            "every column, in Russian"
        );
        let row = reader.records().next().unwrap().unwrap();
        assert_eq!(&row[0], "7");
        assert_eq!(&row[1], "20.11.2026");
        let sum: rust_decimal::Decimal = row[2].replace(',', ".").parse().unwrap();
        assert!(row[2].contains(','), "a decimal comma: {}", &row[2]);
        assert_eq!(sum, rust_decimal::Decimal::new(17_500_050, 2));
        assert_eq!(
            &row[3], "ООО \"Лютик\"; филиал",
            "a `;` inside a value is quoted"
        );
        // Excel turns a cell of digits into a number (20 digits lose theirs, a leading zero goes)
        // and shows `="…"` as the text it holds.
        let shown = |cell: &str| match cell.strip_prefix("=\"").and_then(|c| c.strip_suffix('"')) {
            Some(text) => text.to_string(),
            None if !cell.is_empty() && cell.bytes().all(|b| b.is_ascii_digit()) => {
                format!("{}", cell.parse::<f64>().unwrap())
            }
            None => cell.to_string(),
        };
        assert_eq!(shown(&row[4]), "40702810210000054321");
        assert_eq!(&row[5], "id-7");
        assert_eq!(&row[6], "загружен, ждёт подписи");
        assert_eq!(
            &row[7], "uploaded:awaiting",
            "the code is the same in both languages"
        );
        let mut zero = uploaded_row();
        zero.payment.number = "0402".into();
        let bytes = super::csv(&[zero], Lang::Ru);
        let body = std::str::from_utf8(&bytes)
            .unwrap()
            .trim_start_matches('\u{feff}');
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(b';')
            .from_reader(body.as_bytes());
        let row = reader.records().next().unwrap().unwrap();
        assert_eq!(shown(&row[0]), "0402", "a leading zero kept");
        let read = super::read_csv(&bytes);
        assert_eq!(read[0].0, "0402", "read back as written");
        let en = super::csv(&[uploaded_row()], Lang::En);
        let en = String::from_utf8(en).unwrap();
        assert!(en.starts_with("\u{feff}number;date;sum;"), "{en}");
        assert!(
            en.contains(";175000.50;") && en.contains(";uploaded:awaiting;"),
            "{en}"
        );
    }

    #[test]
    fn a_cell_that_looks_like_a_formula_is_shown_not_run() {
        use super::excel_cell as cell;
        assert_eq!(
            cell("=HYPERLINK(\"http://x\")"),
            "'=HYPERLINK(\"http://x\")"
        );
        for start in ["+1", "-1", "@SUM(A1)", "\tx"] {
            assert!(cell(start).starts_with('\''), "{start}");
        }
        assert_eq!(cell("ООО \"Лютик\""), "ООО \"Лютик\"");
        assert_eq!(cell(""), "");
        // In the report too: a payee named like a formula.
        let mut row = uploaded_row();
        row.payment.recipient = "=cmd|' /C calc'!A0".into();
        let text = String::from_utf8(super::csv(&[row], clientbank_payment::Lang::En)).unwrap();
        assert!(text.contains(";'=cmd|"), "{text}");
    }

    /// A report is read back (by a new journal) whatever its version and language.
    #[test]
    fn reports_of_every_version_are_read_back() {
        use clientbank_payment::Lang;
        let want = vec![(
            "7".to_string(),
            "id-7".to_string(),
            Some("uploaded:awaiting".to_string()),
        )];
        for lang in [Lang::Ru, Lang::En] {
            assert_eq!(super::read_csv(&super::csv(&[uploaded_row()], lang)), want);
        }
        let old = "number,date,sum,recipient,recipient_account,id,state,message\n\
                   7,20.11.2026,1.00,x,y,id-7,\"uploaded, signed\",\n";
        assert_eq!(
            super::read_csv(old.as_bytes()),
            vec![("7".to_string(), "id-7".to_string(), None)]
        );
        assert!(super::read_csv(b"nonsense").is_empty());
    }

    #[test]
    fn the_refusals_speak_both_languages() {
        use clientbank_payment::Lang;
        let en = super::refusals("a.txt", &[], Lang::En);
        let ru = super::refusals("a.txt", &[], Lang::Ru);
        assert!(en.contains("the bank refused"), "{en}");
        assert!(ru.contains("банк отклонил"), "{ru}");
        assert!(ru.contains("не уйдут дважды"), "{ru}");
    }

    #[test]
    fn the_review_file_speaks_both_languages() {
        use clientbank_payment::Lang;
        let dir = std::path::Path::new("Обмен с банком");
        let en = super::review(dir, "a b.txt", Some("the answer was lost"), &[], Lang::En);
        let ru = super::review(dir, "a b.txt", Some("the answer was lost"), &[], Lang::Ru);
        assert!(en.starts_with("a b.txt needs a person"), "{en}");
        assert!(ru.starts_with("a b.txt требует решения человека"), "{ru}");
        for text in [&en, &ru] {
            let command = if cfg!(windows) {
                "clientbank resolve \"Обмен с банком\" \"a b.txt\""
            } else {
                "clientbank resolve 'Обмен с банком' 'a b.txt'"
            };
            assert!(text.contains(command), "{text}");
            assert!(text.contains("--not-sent"), "{text}");
        }
    }

    /// Issue 17 item 9: a review note says "may or may not be at the bank" only when a payment
    /// is in doubt; with several in doubt it shows how to settle them payment by payment.
    #[test]
    fn the_review_file_opens_with_doubt_only_when_a_payment_is_in_doubt() {
        use clientbank_payment::Lang;
        let row = |number: &str, state: PaymentState| PaymentRow::example(1, number, state);
        let dir = std::path::Path::new("exchange");
        let held = [
            row("7", PaymentState::Held),
            row("8", PaymentState::Uploaded),
        ];
        for lang in [Lang::En, Lang::Ru] {
            let text = super::review(dir, "a.txt", None, &held, lang);
            assert!(
                !text.contains("may or may not") && !text.contains("возможно"),
                "{text}"
            );
        }
        let doubt = [
            row("7", PaymentState::Doubt),
            row("8", PaymentState::Doubt),
            row("9", PaymentState::Uploaded),
        ];
        let text = super::review(dir, "a.txt", None, &doubt, Lang::En);
        assert!(
            text.starts_with("a.txt needs a person: some of its payments may"),
            "{text}"
        );
        assert!(text.contains("--sent 7 --not-sent 8"), "{text}");
    }

    #[cfg(unix)]
    #[test]
    fn command_hints_are_shell_quoted() {
        assert_eq!(shell_quote("/srv/exchange"), "/srv/exchange");
        assert_eq!(shell_quote("платёжки.txt"), "платёжки.txt");
        assert_eq!(shell_quote("Обмен с банком"), "'Обмен с банком'");
        assert_eq!(shell_quote("a'b $(rm).txt"), "'a'\\''b $(rm).txt'");
        assert_eq!(shell_quote(""), "''");
    }
}
