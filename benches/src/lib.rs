//! A seeded generator of large, realistic exchange files for the benches: a statement of one
//! account with daily balance sections that add up, and ordinary, budget and third-party
//! payment orders among the documents; CP1251 and CRLF, as banks write them.

use std::fmt::Write;

use rust_decimal::Decimal;

/// SplitMix64: deterministic, dependency-free, good enough to vary test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b'0' + self.below(10) as u8))
            .collect()
    }
}

const OWN_ACCOUNT: &str = "40702810938000012345";
const OWN_INN: &str = "7701234560";
const COMPANIES: &[&str] = &[
    "ООО \"Ромашка\"",
    "АО \"Северный ветер\"",
    "ООО \"Торговый дом Волга\"",
    "ИП Иванов Иван Иванович",
    "ООО \"СтройМонтаж-Сервис\"",
    "ПАО \"Уральские заводы\"",
];
const BANKS: &[&str] = &[
    "ПАО СБЕРБАНК",
    "АО \"ТБАНК\"",
    "БАНК ВТБ (ПАО)",
    "АО \"АЛЬФА-БАНК\"",
];
const PURPOSES: &[&str] = &[
    "Оплата по счету № 9125 от 10.11.2026 за товары, в т.ч. НДС 20%",
    "Оплата по договору поставки № 17/3 от 01.02.2026, НДС не облагается",
    "Возврат излишне перечисленных средств по письму № 55",
    "Аренда офиса за ноябрь 2026 г. по договору № А-12, в т.ч. НДС",
];

/// Real banks' BIKs with their correspondent accounts, for the statement with valid
/// requisites: the name the generator writes, the BIK, the account.
const BANK_REQUISITES: &[(&str, &str, &str)] = &[
    ("ПАО СБЕРБАНК", "044525225", "30101810400000000225"),
    ("АО \"ТБАНК\"", "044525974", "30101810145250000974"),
    ("БАНК ВТБ (ПАО)", "044525187", "30101810700000000187"),
    ("АО \"АЛЬФА-БАНК\"", "044525593", "30101810200000000593"),
];

/// A statement with `documents` documents over about `documents / 40` days. Its INNs and
/// accounts are random digits, so nearly every payment has findings (wrong check digits
/// and control keys): what the reader and the commands are measured on.
pub fn statement(documents: usize, seed: u64) -> Vec<u8> {
    generate(documents, seed, false)
}

/// [`statement`] with valid requisites, as a bank's real statement has them: INNs with their
/// check digit, accounts and correspondent accounts whose control key matches their bank's
/// BIK (the own account is at the first bank of [`BANK_REQUISITES`]).
pub fn statement_with_valid_requisites(documents: usize, seed: u64) -> Vec<u8> {
    generate(documents, seed, true)
}

/// The sides of a payment, and their banks: (name, BIK, correspondent account).
struct Banks<'a> {
    own: (&'a str, &'a str, &'a str),
    other: (&'a str, &'a str, &'a str),
}

fn generate(documents: usize, seed: u64, valid: bool) -> Vec<u8> {
    let own_account = if valid {
        keyed(BANK_REQUISITES[0].1, OWN_ACCOUNT)
    } else {
        OWN_ACCOUNT.to_string()
    };
    let mut rng = Rng(seed);
    let days = documents.div_ceil(40).max(1);
    let start = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).expect("a real date");
    let mut text = String::with_capacity(documents * 1000);
    let mut docs = String::with_capacity(documents * 900);
    let mut sections = String::new();
    let mut balance = Decimal::new(100_000_000, 2);
    let per_day = documents.div_ceil(days);
    let mut written = 0;
    for day in 0..days {
        let date = (start + chrono::Days::new(day as u64))
            .format("%d.%m.%Y")
            .to_string();
        let (mut credited, mut debited) = (Decimal::ZERO, Decimal::ZERO);
        for _ in 0..per_day.min(documents - written) {
            written += 1;
            let sum = Decimal::new(rng.below(50_000_000) as i64 + 100, 2);
            let incoming = rng.below(3) == 0;
            if incoming {
                credited += sum;
            } else {
                debited += sum;
            }
            document(
                &mut docs,
                &mut rng,
                written,
                &date,
                sum,
                incoming,
                valid,
                &own_account,
            );
        }
        let opening = balance;
        balance = opening + credited - debited;
        let _ = write!(
            sections,
            "СекцияРасчСчет\r\nДатаНачала={date}\r\nДатаКонца={date}\r\nРасчСчет={own_account}\r\nНачальныйОстаток={opening:.2}\r\nВсегоПоступило={credited:.2}\r\nВсегоСписано={debited:.2}\r\nКонечныйОстаток={balance:.2}\r\nКонецРасчСчет\r\n"
        );
    }
    let end = (start + chrono::Days::new(days as u64 - 1)).format("%d.%m.%Y");
    let _ = write!(
        text,
        "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\nОтправитель=Банк\r\nПолучатель=Бухгалтерия предприятия, редакция 3.0\r\nДатаСоздания=15.11.2026\r\nВремяСоздания=08:00:00\r\nДатаНачала=01.01.2026\r\nДатаКонца={end}\r\nРасчСчет={own_account}\r\n"
    );
    text.push_str(&sections);
    text.push_str(&docs);
    text.push_str("КонецФайла\r\n");
    let (bytes, _, unmappable) = encoding_rs::WINDOWS_1251.encode(&text);
    assert!(!unmappable, "the generator writes only CP1251 text");
    bytes.into_owned()
}

#[allow(clippy::too_many_arguments)]
fn document(
    out: &mut String,
    rng: &mut Rng,
    number: usize,
    date: &str,
    sum: Decimal,
    incoming: bool,
    valid: bool,
    own_account: &str,
) {
    let kind = rng.below(10); // 0..6 ordinary, 7..8 budget, 9 third party
    let other = rng.pick(COMPANIES);
    let mut other_inn = rng.digits(10);
    let mut other_account = format!("40702810{}", rng.digits(12));
    let bank = rng.pick(BANKS);
    let bik = format!("0445{}", rng.digits(5));
    let corr = format!("30101810{}", rng.digits(12));
    // As generated, both sides are at one bank of random requisites; valid, the own side is
    // at its own bank and the other at one of the real banks, chosen by the same draw.
    let banks = if valid {
        let other_bank = BANK_REQUISITES[BANKS.iter().position(|&b| b == bank).unwrap_or(0)];
        // A real INN starts with its region's code, never 00.
        let region = char::from(b'1' + (other_inn.as_bytes()[0] - b'0') % 9);
        other_inn = with_check_digit(&format!("{region}{}", &other_inn[1..9]));
        other_account = keyed(other_bank.1, &other_account);
        Banks {
            own: BANK_REQUISITES[0],
            other: other_bank,
        }
    } else {
        Banks {
            own: (bank, &bik, &corr),
            other: (bank, &bik, &corr),
        }
    };
    let (payer, payer_inn, payer_account, recipient, recipient_inn, recipient_account) = if incoming
    {
        (
            other,
            other_inn.as_str(),
            other_account.as_str(),
            "ООО \"Ромашка\"",
            OWN_INN,
            own_account,
        )
    } else {
        (
            "ООО \"Ромашка\"",
            OWN_INN,
            own_account,
            other,
            other_inn.as_str(),
            other_account.as_str(),
        )
    };
    let ((payer_bank, payer_bik, payer_corr), (recipient_bank, recipient_bik, recipient_corr)) =
        if incoming {
            (banks.other, banks.own)
        } else {
            (banks.own, banks.other)
        };
    let (debited, credited) = if incoming { ("", date) } else { (date, "") };
    let _ = write!(
        out,
        "СекцияДокумент=Платежное поручение\r\nНомер={number}\r\nДата={date}\r\nСумма={sum:.2}\r\n\
         ПлательщикСчет={payer_account}\r\nДатаСписано={debited}\r\nПлательщик=ИНН {payer_inn} {payer}\r\nПлательщикИНН={payer_inn}\r\n\
         Плательщик1={payer}\r\nПлательщикРасчСчет={payer_account}\r\nПлательщикБанк1={payer_bank}\r\nПлательщикБанк2=г. Москва\r\n\
         ПлательщикБИК={payer_bik}\r\nПлательщикКорсчет={payer_corr}\r\n\
         ПолучательСчет={recipient_account}\r\nДатаПоступило={credited}\r\nПолучатель=ИНН {recipient_inn} {recipient}\r\nПолучательИНН={recipient_inn}\r\n\
         Получатель1={recipient}\r\nПолучательРасчСчет={recipient_account}\r\nПолучательБанк1={recipient_bank}\r\nПолучательБанк2=г. Москва\r\n\
         ПолучательБИК={recipient_bik}\r\nПолучательКорсчет={recipient_corr}\r\nВидПлатежа=\r\nВидОплаты=01\r\n"
    );
    match kind {
        7 | 8 => {
            let _ = write!(
                out,
                "Код=0\r\nНазначениеПлатежа=Единый налоговый платеж\r\nСтатусСоставителя=01\r\nПлательщикКПП=770101001\r\nПолучательКПП=770801001\r\n\
                 ПоказательКБК=18201061201010000510\r\nОКАТО=0\r\nПоказательОснования=0\r\nПоказательПериода=0\r\nПоказательНомера=0\r\nПоказательДаты=0\r\nОчередность=5\r\n"
            );
        }
        9 => {
            let _ = write!(
                out,
                "Код=0\r\nНазначениеПлатежа=Оплата за ИП Петров П.П. (ИНН {}) по договору № 7, без НДС\r\nПлательщикКПП=770101001\r\nПолучательКПП=\r\nОчередность=5\r\n",
                rng.digits(12)
            );
        }
        _ => {
            let _ = write!(
                out,
                "Код=0\r\nНазначениеПлатежа={}\r\nПлательщикКПП=770101001\r\nПолучательКПП=500101001\r\nОчередность=5\r\n",
                rng.pick(PURPOSES)
            );
        }
    }
    out.push_str("КонецДокумента\r\n");
}

/// A ten-digit INN: `first9` and its check digit.
fn with_check_digit(first9: &str) -> String {
    let weights = [2, 4, 10, 3, 5, 9, 4, 6, 8];
    let sum: u32 = first9
        .bytes()
        .zip(weights)
        .map(|(d, w)| u32::from(d - b'0') * w)
        .sum();
    format!("{first9}{}", sum % 11 % 10)
}

/// `account` with the control key (its ninth digit) that matches `bik`: the last three
/// digits of the BIK and the account, weighed 7, 1, 3 over and over, sum to a multiple of 10.
fn keyed(bik: &str, account: &str) -> String {
    let mut digits: Vec<u8> = account.bytes().map(|b| b - b'0').collect();
    digits[8] = 0;
    let weighed: u32 = bik
        .bytes()
        .skip(6)
        .map(|b| b - b'0')
        .chain(digits.iter().copied())
        .zip([7, 1, 3].into_iter().cycle())
        .map(|(d, w)| u32::from(d) * w)
        .sum();
    // The key's weight is 3 (its place, 12th of 23): 3 × 7 ≡ 1 (mod 10).
    digits[8] = ((10 - weighed % 10) * 7 % 10) as u8;
    digits.iter().map(|d| char::from(b'0' + d)).collect()
}

/// A JSON drop for the watch benches: `payments` ordinary payments from `account`, numbered
/// from `index * payments + 1`, dated today.
pub fn json_drop(account: &str, index: usize, payments: usize) -> String {
    let date = clientbank_payment::clock::today_in_moscow().format("%d.%m.%Y");
    let items: Vec<String> = (0..payments)
        .map(|k| {
            let number = index * payments + k + 1;
            format!(
                r#"{{"payment": {{"Number": "{number}", "Date": "{date}", "Sum": "{number}.00",
  "PayerAccount": "{account}", "RecipientName": "ООО \"Лютик\"",
  "RecipientINN": "5009876546", "RecipientKPP": "500901001",
  "RecipientAccount": "40702810210000054321", "RecipientBankBik": "044525974",
  "RecipientBankCorrAccount": "30101810145250000974",
  "PaymentPurpose": "Оплата по счету № {number}, НДС не облагается", "TypeIndicator": "0"}}}}"#
            )
        })
        .collect();
    format!("[{}]\n", items.join(",\n"))
}

/// The process's CPU time (user + system), from /proc (Linux).
pub fn cpu_time() -> Option<std::time::Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(std::time::Duration::from_millis(ticks * 10))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_statements_are_clean_and_add_up() {
        let bytes = statement(500, 7);
        assert_eq!(
            bytes,
            statement(500, 7),
            "seeded: the same bytes every time"
        );
        let parsed = clientbank_format::parse(&bytes[..]).unwrap();
        assert_eq!(parsed.diagnostics, [], "no finding, balances add up");
        assert_eq!(parsed.tree.documents().count(), 500);
        assert_eq!(parsed.tree.encoding(), clientbank_format::Encoding::Cp1251);
    }

    /// The statement with valid requisites reads as cleanly, and its payments have none of the
    /// findings random requisites give.
    #[test]
    fn valid_requisites_are_valid() {
        let bytes = statement_with_valid_requisites(500, 7);
        let parsed = clientbank_format::parse(&bytes[..]).unwrap();
        assert_eq!(parsed.diagnostics, []);
        let context = clientbank_payment::Context::history();
        let codes: std::collections::BTreeSet<&str> = parsed
            .tree
            .documents()
            .flat_map(|section| {
                clientbank_payment::onec::check_section(
                    &section,
                    &context,
                    clientbank_format::Encoding::Cp1251,
                    false,
                )
                .0
            })
            .map(|finding| finding.code.as_str())
            .collect();
        for code in [
            "account-key",
            "inn-check-digit",
            "corr-account-format",
            "bik-format",
        ] {
            assert!(!codes.contains(code), "{code} in {codes:?}");
        }
    }
}
