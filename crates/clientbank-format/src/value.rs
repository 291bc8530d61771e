//! Typed values: dates, times, amounts, versions — read from raw bytes, written canonically.
//!
//! All of them are ASCII, so they are read straight from the file's bytes in any encoding.
//! The grammar is written with nom, but for dates and amounts, which are read for every
//! document and so by hand (their nom grammars are the tests' oracle); no nom type leaves this
//! module.

use chrono::{NaiveDate, NaiveTime};
use nom::{
    IResult, Parser,
    bytes::complete::{tag, take_while_m_n},
    character::complete::{char, digit1},
    combinator::all_consuming,
    sequence::preceded,
};
use rust_decimal::Decimal;

fn digits<'a>(
    n: usize,
) -> impl Parser<&'a [u8], Output = u32, Error = nom::error::Error<&'a [u8]>> {
    take_while_m_n(n, n, |b: u8| b.is_ascii_digit()).map(|d: &[u8]| {
        d.iter()
            .fold(0u32, |acc, &b| acc * 10 + u32::from(b - b'0'))
    })
}

/// The number written by `digits`, all of them ASCII digits.
fn number(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |acc, &b| {
        b.is_ascii_digit().then(|| acc * 10 + u32::from(b - b'0'))
    })
}

/// `ДД.ММ.ГГГГ` and a real calendar date. (Read by hand: the grammar is ten bytes, and a
/// value is read for every date of every document.)
pub fn parse_date(raw: &[u8]) -> Option<NaiveDate> {
    let [d1, d2, b'.', m1, m2, b'.', y1, y2, y3, y4] = *raw.trim_ascii() else {
        return None;
    };
    let day = number(&[d1, d2])?;
    let month = number(&[m1, m2])?;
    let year = number(&[y1, y2, y3, y4])?;
    NaiveDate::from_ymd_opt(year as i32, month, day)
}

/// `ЧЧ:ММ:СС`; the flag says the time was written with dots (`ЧЧ.ММ.СС`), which some
/// generators do and 1C does not.
pub fn parse_time(raw: &[u8]) -> Option<(NaiveTime, bool)> {
    fn time(sep: char) -> impl Fn(&[u8]) -> IResult<&[u8], (u32, u32, u32)> {
        move |input| {
            all_consuming((
                digits(2),
                preceded(char(sep), digits(2)),
                preceded(char(sep), digits(2)),
            ))
            .parse(input)
        }
    }
    let raw = raw.trim_ascii();
    let (dotted, (h, m, s)) = match time(':')(raw) {
        Ok((_, parts)) => (false, parts),
        Err(_) => (true, time('.')(raw).ok()?.1),
    };
    NaiveTime::from_hms_opt(h, m, s).map(|t| (t, dotted))
}

/// An amount's parts: whether it is negative, its whole digits (at least one) and its one or
/// two digits of kopecks (none without a dot); `None` unless the value is `руб[.коп]`, with
/// spaces around it and a leading minus only when `signed`.
fn amount_parts(raw: &[u8], signed: bool) -> Option<(bool, &[u8], &[u8])> {
    let text = raw.trim_ascii();
    let (negative, unsigned) = match text {
        [b'-', rest @ ..] if signed => (true, rest),
        _ => (false, text),
    };
    let whole = unsigned.iter().take_while(|b| b.is_ascii_digit()).count();
    if whole == 0 {
        return None;
    }
    let (digits, rest) = unsigned.split_at(whole);
    let cents = match rest {
        [] => rest,
        [b'.', cents @ ..]
            if matches!(cents.len(), 1 | 2) && cents.iter().all(u8::is_ascii_digit) =>
        {
            cents
        }
        _ => return None,
    };
    Some((negative, digits, cents))
}

/// `руб[.коп]`: digits, then optionally a dot and one or two digits; a leading minus only
/// when `signed` (balances). Read exactly, never through floating point.
pub fn parse_amount(raw: &[u8], signed: bool) -> Option<Decimal> {
    let (negative, whole, cents) = amount_parts(raw, signed)?;
    // Up to 18 digits fit an i64 mantissa: the Decimal is built directly, in one pass over
    // the digits (exact, and much faster than parsing text); longer ones are its own parser's.
    if whole.len() + cents.len() > 18 {
        return std::str::from_utf8(raw.trim_ascii()).ok()?.parse().ok();
    }
    let mantissa = whole
        .iter()
        .chain(cents)
        .fold(0i64, |m, &b| m * 10 + i64::from(b - b'0'));
    let scale = cents.len() as u32;
    Some(Decimal::new(
        if negative { -mantissa } else { mantissa },
        scale,
    ))
}

/// Whether [`parse_amount`] would read the value, without building the `Decimal` when the
/// answer is plain (28 digits or fewer always fit).
pub(crate) fn is_amount(raw: &[u8], signed: bool) -> bool {
    match amount_parts(raw, signed) {
        Some((_, whole, cents)) if whole.len() + cents.len() <= 28 => true,
        Some(_) => parse_amount(raw, signed).is_some(),
        None => false,
    }
}

/// `1.01`, `1.02` or `1.03`.
pub fn parse_version(raw: &[u8]) -> Option<&'static str> {
    let version = |input| -> IResult<&[u8], &[u8]> {
        all_consuming(preceded(
            tag("1.0"),
            take_while_m_n(1, 1, |b| matches!(b, b'1'..=b'3')),
        ))
        .parse(input)
    };
    let (_, minor) = version(raw.trim_ascii()).ok()?;
    Some(match minor {
        b"1" => "1.01",
        b"2" => "1.02",
        _ => "1.03",
    })
}

/// A whole non-negative number (`СрокАкцепта`).
pub fn parse_integer(raw: &[u8]) -> Option<u32> {
    let (_, d) = all_consuming(digit1::<_, nom::error::Error<&[u8]>>)
        .parse(raw.trim_ascii())
        .ok()?;
    std::str::from_utf8(d).ok()?.parse().ok()
}

/// `ДД.ММ.ГГГГ`.
pub fn format_date(date: NaiveDate) -> String {
    let mut text = String::with_capacity(10);
    format_date_into(date, &mut text);
    text
}

/// [`format_date`] onto the end of `out`.
pub(crate) fn format_date_into(date: NaiveDate, out: &mut String) {
    use chrono::Datelike;
    use std::fmt::Write;
    let year = date.year();
    if !(0..=9999).contains(&year) {
        // chrono signs years beyond four digits.
        let _ = write!(out, "{}", date.format("%d.%m.%Y"));
        return;
    }
    let digit = |n: u32| char::from(b'0' + (n % 10) as u8);
    let (day, month, year) = (date.day(), date.month(), year as u32);
    out.extend([
        digit(day / 10),
        digit(day),
        '.',
        digit(month / 10),
        digit(month),
        '.',
        digit(year / 1000),
        digit(year / 100),
        digit(year / 10),
        digit(year),
    ]);
}

/// `ЧЧ:ММ:СС`.
pub fn format_time(time: NaiveTime) -> String {
    time.format("%H:%M:%S").to_string()
}

/// Exactly two decimals (`175000.00`). `None` when the amount has more than two.
pub fn format_amount(amount: Decimal) -> Option<String> {
    let mut text = String::new();
    format_amount_into(amount, &mut text).then_some(text)
}

/// [`format_amount`] onto the end of `out`; `false` (and nothing written) when the amount has
/// more than two decimals.
pub(crate) fn format_amount_into(amount: Decimal, out: &mut String) -> bool {
    use std::fmt::Write;
    if amount.round_dp(2) != amount {
        return false;
    }
    let mut amount = amount;
    amount.rescale(2);
    let _ = write!(out, "{amount}");
    true
}

#[cfg(test)]
mod tests {
    use nom::{
        IResult, Parser,
        bytes::complete::take_while_m_n,
        character::complete::{char, digit1},
        combinator::{all_consuming, opt, recognize},
        sequence::preceded,
    };

    /// The amount's grammar as nom reads it: what `amount_parts` reads by hand.
    fn amount(input: &[u8]) -> IResult<&[u8], &[u8]> {
        recognize((
            opt(char('-')),
            digit1,
            opt(preceded(
                char('.'),
                take_while_m_n(1, 2, |b: u8| b.is_ascii_digit()),
            )),
        ))
        .parse(input)
    }

    /// The date's grammar as nom reads it: what `parse_date` reads by hand.
    fn nom_date(raw: &[u8]) -> Option<NaiveDate> {
        let (_, (day, month, year)) = all_consuming((
            digits(2),
            preceded(char('.'), digits(2)),
            preceded(char('.'), digits(4)),
        ))
        .parse(raw.trim_ascii())
        .ok()?;
        NaiveDate::from_ymd_opt(year as i32, month, day)
    }

    /// Every string of up to five bytes from a small alphabet, and longer ones around real
    /// values: the hand-written readers agree with the nom grammars.
    #[test]
    fn hand_readers_agree_with_the_grammars() {
        let alphabet = [b'0', b'1', b'9', b'.', b'-', b' ', b'a', b'\t', 0xC0];
        let mut inputs: Vec<Vec<u8>> = vec![Vec::new()];
        let mut last = vec![Vec::new()];
        for _ in 0..5 {
            last = last
                .iter()
                .flat_map(|s: &Vec<u8>| {
                    alphabet.iter().map(move |&b| {
                        let mut s = s.clone();
                        s.push(b);
                        s
                    })
                })
                .collect();
            inputs.extend(last.iter().cloned());
        }
        for base in [
            "01.02.2026",
            "29.02.2024",
            "29.02.2023",
            "31.04.2026",
            "00.01.2026",
            "1.02.2026",
            "01.02.20260",
            " 01.02.2026 ",
            "01,02.2026",
            "0a.02.2026",
            "12345.67",
            "-12345.6",
            "1.",
            ".5",
            "1.234",
            "--1",
            "-",
            "123456789012345678901234567890.12",
        ] {
            inputs.push(base.as_bytes().to_vec());
            for i in 0..base.len() {
                for &b in &alphabet {
                    let mut s = base.as_bytes().to_vec();
                    s[i] = b;
                    inputs.push(s);
                }
            }
        }
        for input in &inputs {
            for signed in [false, true] {
                let nom = all_consuming(amount)
                    .parse(input.trim_ascii())
                    .ok()
                    .map(|(_, text)| text)
                    .filter(|text| signed || !text.starts_with(b"-"))
                    .and_then(|text| std::str::from_utf8(text).ok());
                let read = nom.and_then(|text| text.parse::<Decimal>().ok());
                assert_eq!(parse_amount(input, signed), read, "{input:?} {signed}");
                assert_eq!(
                    is_amount(input, signed),
                    read.is_some(),
                    "{input:?} {signed}"
                );
                let scale = |d: Decimal| d.scale();
                assert_eq!(parse_amount(input, signed).map(scale), read.map(scale));
            }
            assert_eq!(parse_date(input), nom_date(input), "{input:?}");
        }
    }

    use super::*;

    #[test]
    fn dates_are_written_as_chrono_writes_them() {
        for (y, m, d) in [
            (2024, 3, 28),
            (1, 1, 1),
            (0, 12, 31),
            (9999, 12, 31),
            (10000, 1, 1),
            (-5, 6, 7),
            (987, 10, 9),
        ] {
            let date = NaiveDate::from_ymd_opt(y, m, d).unwrap();
            assert_eq!(format_date(date), date.format("%d.%m.%Y").to_string());
        }
    }

    #[test]
    fn amounts_are_exact_in_every_length() {
        for text in [
            "0",
            "7",
            "-0.5",
            "1500.00",
            "1500.0",
            "-20.5",
            "123456789012345678",
            "1234567890123456.78",
            "99999999999999999.9",
            "12345678901234567890",
            "999999999999999999",
            "9999999999999999999",
            "9999999999999999.99",
            "-12345678901234567890123.45",
        ] {
            assert_eq!(
                parse_amount(text.as_bytes(), true),
                text.parse::<Decimal>().ok(),
                "{text}"
            );
            assert_eq!(
                parse_amount(text.as_bytes(), true).map(|d| d.to_string()),
                Some(text.to_string()),
                "{text} keeps its scale"
            );
        }
    }

    #[test]
    fn is_amount_agrees_with_parse_amount() {
        for raw in [
            "0",
            "1500.00",
            "-20.5",
            "1.234",
            "1,5",
            "",
            "99999999999999999999999999999",
            "999999999999999999999999999999",
            "12345678901234567890123456.78",
            " 7 ",
            "-",
        ] {
            for signed in [false, true] {
                assert_eq!(
                    is_amount(raw.as_bytes(), signed),
                    parse_amount(raw.as_bytes(), signed).is_some(),
                    "{raw:?} {signed}"
                );
            }
        }
    }
    use std::str::FromStr;

    #[test]
    fn dates() {
        assert_eq!(
            parse_date(b"01.04.2024"),
            NaiveDate::from_ymd_opt(2024, 4, 1)
        );
        assert_eq!(
            parse_date(b"29.02.2024"),
            NaiveDate::from_ymd_opt(2024, 2, 29)
        );
        for bad in [
            &b"29.02.2023"[..],
            b"32.01.2024",
            b"2.12.2001",
            b"01.04.24",
            b"01/04/2024",
            b"",
            b"01.04.2024x",
        ] {
            assert_eq!(parse_date(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn times() {
        assert_eq!(
            parse_time(b"15:43:31"),
            Some((NaiveTime::from_hms_opt(15, 43, 31).unwrap(), false))
        );
        assert_eq!(
            parse_time(b"12.05.01"),
            Some((NaiveTime::from_hms_opt(12, 5, 1).unwrap(), true))
        );
        assert_eq!(parse_time(b"25:00:00"), None);
        assert_eq!(parse_time(b"1:00:00"), None);
    }

    #[test]
    fn amounts_are_exact() {
        let d = |s| Decimal::from_str(s).unwrap();
        assert_eq!(parse_amount(b"1000", false), Some(d("1000")));
        assert_eq!(parse_amount(b"107728.7", false), Some(d("107728.7")));
        assert_eq!(parse_amount(b"8300.00", false), Some(d("8300.00")));
        assert_eq!(
            parse_amount(b"0.1", false).map(|a| a + d("0.2")),
            Some(d("0.3"))
        );
        assert_eq!(parse_amount(b"-5.10", true), Some(d("-5.10")));
        for bad in [
            &b"-5.10"[..],
            b"1 000",
            b"100,50",
            b"1.234",
            b"1.",
            b".5",
            b"",
            b"1e5",
        ] {
            assert_eq!(
                parse_amount(bad, false),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn versions_and_integers() {
        assert_eq!(parse_version(b"1.03"), Some("1.03"));
        assert_eq!(parse_version(b"1.01"), Some("1.01"));
        assert_eq!(parse_version(b"2.00"), None);
        assert_eq!(parse_version(b"1.04"), None);
        assert_eq!(parse_integer(b"10"), Some(10));
        assert_eq!(parse_integer(b"-1"), None);
    }

    #[test]
    fn canonical_forms() {
        assert_eq!(
            format_amount(Decimal::from_str("175000").unwrap()).as_deref(),
            Some("175000.00")
        );
        assert_eq!(
            format_amount(Decimal::from_str("0.5").unwrap()).as_deref(),
            Some("0.50")
        );
        assert_eq!(format_amount(Decimal::from_str("0.505").unwrap()), None);
        assert_eq!(
            format_date(NaiveDate::from_ymd_opt(2024, 4, 1).unwrap()),
            "01.04.2024"
        );
    }
}
