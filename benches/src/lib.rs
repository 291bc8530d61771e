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

/// A statement with `documents` documents over about `documents / 40` days.
pub fn statement(documents: usize, seed: u64) -> Vec<u8> {
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
            document(&mut docs, &mut rng, written, &date, sum, incoming);
        }
        let opening = balance;
        balance = opening + credited - debited;
        let _ = write!(
            sections,
            "СекцияРасчСчет\r\nДатаНачала={date}\r\nДатаКонца={date}\r\nРасчСчет={OWN_ACCOUNT}\r\nНачальныйОстаток={opening:.2}\r\nВсегоПоступило={credited:.2}\r\nВсегоСписано={debited:.2}\r\nКонечныйОстаток={balance:.2}\r\nКонецРасчСчет\r\n"
        );
    }
    let end = (start + chrono::Days::new(days as u64 - 1)).format("%d.%m.%Y");
    let _ = write!(
        text,
        "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\nОтправитель=Банк\r\nПолучатель=Бухгалтерия предприятия, редакция 3.0\r\nДатаСоздания=15.11.2026\r\nВремяСоздания=08:00:00\r\nДатаНачала=01.01.2026\r\nДатаКонца={end}\r\nРасчСчет={OWN_ACCOUNT}\r\n"
    );
    text.push_str(&sections);
    text.push_str(&docs);
    text.push_str("КонецФайла\r\n");
    let (bytes, _, unmappable) = encoding_rs::WINDOWS_1251.encode(&text);
    assert!(!unmappable, "the generator writes only CP1251 text");
    bytes.into_owned()
}

fn document(
    out: &mut String,
    rng: &mut Rng,
    number: usize,
    date: &str,
    sum: Decimal,
    incoming: bool,
) {
    let kind = rng.below(10); // 0..6 ordinary, 7..8 budget, 9 third party
    let other = rng.pick(COMPANIES);
    let other_inn = rng.digits(10);
    let other_account = format!("40702810{}", rng.digits(12));
    let bank = rng.pick(BANKS);
    let bik = format!("0445{}", rng.digits(5));
    let corr = format!("30101810{}", rng.digits(12));
    let (payer, payer_inn, payer_account, recipient, recipient_inn, recipient_account) = if incoming
    {
        (
            other,
            other_inn.as_str(),
            other_account.as_str(),
            "ООО \"Ромашка\"",
            OWN_INN,
            OWN_ACCOUNT,
        )
    } else {
        (
            "ООО \"Ромашка\"",
            OWN_INN,
            OWN_ACCOUNT,
            other,
            other_inn.as_str(),
            other_account.as_str(),
        )
    };
    let (debited, credited) = if incoming { ("", date) } else { (date, "") };
    let _ = write!(
        out,
        "СекцияДокумент=Платежное поручение\r\nНомер={number}\r\nДата={date}\r\nСумма={sum:.2}\r\n\
         ПлательщикСчет={payer_account}\r\nДатаСписано={debited}\r\nПлательщик=ИНН {payer_inn} {payer}\r\nПлательщикИНН={payer_inn}\r\n\
         Плательщик1={payer}\r\nПлательщикРасчСчет={payer_account}\r\nПлательщикБанк1={bank}\r\nПлательщикБанк2=г. Москва\r\n\
         ПлательщикБИК={bik}\r\nПлательщикКорсчет={corr}\r\n\
         ПолучательСчет={recipient_account}\r\nДатаПоступило={credited}\r\nПолучатель=ИНН {recipient_inn} {recipient}\r\nПолучательИНН={recipient_inn}\r\n\
         Получатель1={recipient}\r\nПолучательРасчСчет={recipient_account}\r\nПолучательБанк1={bank}\r\nПолучательБанк2=г. Москва\r\n\
         ПолучательБИК={bik}\r\nПолучательКорсчет={corr}\r\nВидПлатежа=\r\nВидОплаты=01\r\n"
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
}
