//! Tables for people and CSV for Excel, as `accounts` and `history` print them.

use std::io::{self, Write};

use crate::exit::Failure;
use crate::term::tr;

/// An optional text, empty when absent.
pub(crate) fn opt(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("")
}

/// A CSV's headers in the user's language (`--lang`, or the locale).
pub(crate) fn headers(names: &[(&str, &str)]) -> Vec<String> {
    names.iter().map(|&(en, ru)| tr(en, ru)).collect()
}

pub(crate) fn csv_error(e: csv::Error) -> Failure {
    Failure::Output(io::Error::other(e.to_string()))
}

/// The text cut to `width` characters (an ellipsis marks the cut), on one line.
pub(crate) fn cut(text: &str, width: usize) -> String {
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().count() <= width {
        return text;
    }
    let mut short: String = text.chars().take(width.saturating_sub(1)).collect();
    short.push('…');
    short
}

/// An aligned table: columns as wide as their widest cell (in characters), the columns of
/// `right` (amounts) aligned right.
pub(crate) fn table(
    out: &mut impl Write,
    head: &[String],
    rows: &[Vec<String>],
    right: &[usize],
) -> io::Result<()> {
    let width = |text: &str| text.chars().count();
    let mut widths: Vec<usize> = head.iter().map(|h| width(h)).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(cell));
        }
    }
    let line = |out: &mut dyn Write, cells: &[String]| -> io::Result<()> {
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            let pad = " ".repeat(w.saturating_sub(width(cell)));
            if right.contains(&i) {
                text.push_str(&pad);
                text.push_str(cell);
            } else {
                text.push_str(cell);
                if i + 1 < cells.len() {
                    text.push_str(&pad);
                }
            }
        }
        writeln!(out, "{}", text.trim_end())
    };
    line(out, head)?;
    for row in rows {
        line(out, row)?;
    }
    Ok(())
}

/// What a code of the bank means, in the user's language: `words` pairs each code with its
/// Russian; English, and a code the table does not know, as the bank says it.
fn bank_word(code: &str, words: &[(&str, &str)]) -> String {
    match words.iter().find(|(c, _)| *c == code) {
        Some((_, ru)) if crate::term::lang() == crate::term::Lang::Ru => ru.to_string(),
        _ => code.to_string(),
    }
}

/// An account's kind (`AccountCategory`).
pub(crate) fn account_category(code: &str) -> String {
    bank_word(
        code,
        &[
            ("CheckingAccount", "расчётный"),
            ("DepositAccount", "депозитный"),
            ("CardAccount", "карточный"),
            ("DepositRateAccount", "депозитный (ставка)"),
            ("ReservationAccounting", "резервирование"),
            ("TransitAccount", "транзитный"),
        ],
    )
}

/// An account's state (`AccountStatus`).
pub(crate) fn account_status(code: &str) -> String {
    bank_word(
        code,
        &[
            ("New", "открыт"),
            ("Deleted", "удалён"),
            ("Closed", "закрыт"),
            ("Freezed", "заморожен"),
            ("ToClosed", "закрывается"),
            ("ToOpen", "открывается"),
        ],
    )
}

/// An operation's state (`OperationStatus`).
pub(crate) fn operation_status(code: &str) -> String {
    bank_word(
        code,
        &[
            ("Draft", "черновик"),
            ("SendToBank", "отправлена в банк"),
            ("Executed", "исполнена"),
            ("RejectByBank", "отклонена банком"),
            ("Canceled", "отменена"),
            ("Received", "получена"),
            ("PayReceived", "оплата получена"),
            ("ClarifyRequiredOutcome", "требует уточнения"),
        ],
    )
}

/// An operation's direction (`in`, `out`) in the user's language.
pub(crate) fn direction(code: &str) -> String {
    match code {
        "in" => tr("in", "приход"),
        "out" => tr("out", "расход"),
        other => other.to_string(),
    }
}

/// A moment (`YYYY-MM-DDTHH:MM:SS`) as Excel of the user's language reads a date and time:
/// `26.11.2026 11:32:18` in Russian, `2026-11-26 11:32:18` in English.
pub(crate) fn excel_moment(at: &str) -> String {
    let Ok(at) = chrono::NaiveDateTime::parse_from_str(at, "%Y-%m-%dT%H:%M:%S") else {
        return at.to_string();
    };
    match crate::term::lang() {
        crate::term::Lang::Ru => at.format("%d.%m.%Y %H:%M:%S").to_string(),
        _ => at.format("%Y-%m-%d %H:%M:%S").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_by_characters_and_amounts_right() {
        let mut out = Vec::new();
        let head = ["счёт".to_string(), "sum".to_string(), "x".to_string()];
        let rows = vec![
            vec!["Ромашка".to_string(), "1.50".to_string(), "a".to_string()],
            vec!["b".to_string(), "1000.00".to_string(), "b".to_string()],
        ];
        table(&mut out, &head, &rows, &[1]).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "счёт         sum  x\nРомашка     1.50  a\nb        1000.00  b\n"
        );
        assert_eq!(cut("абвгдеж", 4), "абв…");
        assert_eq!(cut("a\nb", 4), "a b");
    }
}
