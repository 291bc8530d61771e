//! The check-digit and format algorithms of Russian payment requisites (docs/rules.md §1–§6), as
//! pure functions over text. [`validate`](crate::validate) turns their answers into findings.

/// What is wrong with a code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defect {
    /// Wrong length, or characters the code cannot contain.
    Format,
    /// The shape is right, the check digit (or control key) is not.
    CheckDigit,
}

/// The decimal digits of a value that is nothing but ASCII digits, without allocating.
/// Longer values than any rule takes (32 digits) are `None`, which every rule reads as a
/// format defect, as it would the length.
struct Digits {
    d: [u32; 32],
    len: usize,
}

impl std::ops::Deref for Digits {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        &self.d[..self.len]
    }
}

fn digits(value: &str) -> Option<Digits> {
    let b = value.as_bytes();
    if b.len() > 32 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut d = [0; 32];
    for (slot, byte) in d.iter_mut().zip(b) {
        *slot = u32::from(byte - b'0');
    }
    Some(Digits { d, len: b.len() })
}

fn weighted(digits: &[u32], weights: &[u32]) -> u32 {
    digits.iter().zip(weights).map(|(d, w)| d * w).sum()
}

/// An INN of 10 (organisation) or 12 (person) digits with its check digits (§1).
pub fn inn(value: &str) -> Result<(), Defect> {
    const W10: [u32; 9] = [2, 4, 10, 3, 5, 9, 4, 6, 8];
    const W11: [u32; 10] = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
    const W12: [u32; 11] = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
    let d = digits(value).ok_or(Defect::Format)?;
    let check = |n: usize, weights: &[u32]| weighted(&d[..n], weights) % 11 % 10 == d[n];
    let ok = match d.len() {
        10 => check(9, &W10),
        12 => check(10, &W11) && check(11, &W12),
        _ => return Err(Defect::Format),
    };
    if ok { Ok(()) } else { Err(Defect::CheckDigit) }
}

/// A KPP: four digits, two digits or capital Latin letters, three digits (§2). No check digit.
pub fn kpp(value: &str) -> Result<(), Defect> {
    let b = value.as_bytes();
    let ok = b.len() == 9
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4..6]
            .iter()
            .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
        && b[6..].iter().all(u8::is_ascii_digit);
    if ok { Ok(()) } else { Err(Defect::Format) }
}

/// A BIK: nine digits starting with `0` (§3.1). Which BIKs exist only the Bank of Russia's
/// directory knows.
pub fn bik(value: &str) -> Result<(), Defect> {
    bik_digits(value).map(|_| ()).ok_or(Defect::Format)
}

/// The digits of a BIK that is well-formed ([`bik`]).
pub(crate) fn bik_digits(value: &str) -> Option<&[u8; 9]> {
    digits_of::<9>(value).filter(|b| b[0] == b'0')
}

/// Whether a BIK belongs to a territorial body of the Federal Treasury (`0…` but not `04…`).
pub fn is_treasury_bik(bik: &str) -> bool {
    bik.len() == 9 && bik.starts_with('0') && !bik.starts_with("04")
}

/// Whether an account is a treasury account (`03…`, field 17 of budget payments since 2021),
/// which has no control key.
pub fn is_treasury_account(account: &str) -> bool {
    account.starts_with("03")
}

/// A treasury account's structure: 20 digits, `03…`, currency `643` at digits 6–8 (§3.3).
pub fn treasury_account(account: &str) -> Result<(), Defect> {
    let b = account.as_bytes();
    if b.len() == 20
        && b.iter().all(u8::is_ascii_digit)
        && b.starts_with(b"03")
        && &b[5..8] == b"643"
    {
        Ok(())
    } else {
        Err(Defect::Format)
    }
}

/// What a treasury account (`03…`) is for: its digits 2–5 are the kind of treasury account
/// (the Federal Treasury's numbering of 2021; docs/rules.md §3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreasuryKind {
    /// `03100…`: revenue of the budget system, booked and distributed by the Treasury. Budget
    /// payments; 107n applies (UIN in field 22, KBK, OKTMO and the rest in 101–109).
    Revenue,
    /// `03212…`: money in temporary custody of recipients of the federal budget (court
    /// deposits, security for bids and contracts). Not budget revenue: field 22 carries the code
    /// of the legal act (код НПА), 104–110 are `0` (приказ Минфина 119н of 23.06.2020).
    FederalCustody,
    /// `03222…`, `03232…`: the same kind of custody account of a region's or a municipality's
    /// budget recipients; their own finance body's procedure, not 119n, governs field 22.
    Custody,
    /// Any other treasury account (`03211…` budget funds, `03214…` federal budget institutions,
    /// `03224…`, `03234…` and the rest): not budget revenue; what fields 22 and 104–110 hold is
    /// what the payee asks for.
    Other,
}

/// The kind of a treasury account by its digits 1–5; `None` when it is not a treasury account.
pub fn treasury_kind(account: &str) -> Option<TreasuryKind> {
    if !is_treasury_account(account) {
        return None;
    }
    Some(match account.get(..5) {
        Some("03100") => TreasuryKind::Revenue,
        Some("03212") => TreasuryKind::FederalCustody,
        Some("03222" | "03232") => TreasuryKind::Custody,
        _ => TreasuryKind::Other,
    })
}

/// A code of a legal act (код НПА) for field 22 of a payment into temporary custody: four
/// digits, not all zeros (`0002`, `0026`; the Treasury's list of acts under 119n).
pub fn npa_code(value: &str) -> Result<(), Defect> {
    let b = value.as_bytes();
    if b.len() == 4 && b.iter().all(u8::is_ascii_digit) && b.iter().any(|&c| c != b'0') {
        Ok(())
    } else {
        Err(Defect::Format)
    }
}

/// The chief administrator of a KBK: its first three digits (`182` FNS, `153` FCS, `797` Social
/// Fund, `188` MVD, …).
pub fn kbk_administrator(kbk: &str) -> &str {
    kbk.get(..3).unwrap_or(kbk)
}

/// How a KBK stands to the single tax payment's account (`03100643000000018500`) since
/// 01.01.2024, when a payment order can no longer stand for a notification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnEnpAccount {
    /// The ЕНП's own KBK, or a payment the FNS lists as outside the ЕНП, paid with its own KBK
    /// to the same requisites.
    Allowed(&'static str),
    /// Administered by someone other than the FNS: its money does not go to this account.
    OtherAdministrator,
    /// A tax, insurance contribution, or their penalties: paid only as the ЕНП since 2024.
    PaidAsEnp,
    /// Another FNS KBK (fines, other revenue) that neither list settles.
    Unknown,
}

/// The payments the FNS lists as not part of the ЕНП (its information of 08.10.2025; НК РФ
/// art. 58 p. 1): KBK prefix and what it is.
pub const OUTSIDE_ENP: &[(&str, &str, &str)] = &[
    (
        "18210102040",
        "the fixed NDFL advance of a foreigner working under a patent",
        "фиксированный авансовый платёж по НДФЛ иностранца, работающего по патенту",
    ),
    ("182108", "a state duty", "государственная пошлина"),
    (
        "18210506",
        "the professional income tax (НПД)",
        "налог на профессиональный доход (НПД)",
    ),
    (
        "18210704",
        "a fee for the use of wildlife or aquatic biological resources",
        "сбор за пользование объектами животного мира или водных биоресурсов",
    ),
];

/// Where a KBK stands on the single tax payment's account (docs/rules.md §4.9). KBK subgroups
/// `1 01`–`1 07` and `1 09` of the FNS are taxes, insurance contributions and levies of the Tax
/// Code (and their penalties and fines): since 2024 they are paid as the ЕНП.
pub fn on_enp_account(kbk: &str) -> OnEnpAccount {
    if kbk == crate::payment::enp::KBK {
        return OnEnpAccount::Allowed("");
    }
    if kbk_administrator(kbk) != "182" {
        return OnEnpAccount::OtherAdministrator;
    }
    if let Some((_, what, _)) = OUTSIDE_ENP.iter().find(|(p, _, _)| kbk.starts_with(p)) {
        return OnEnpAccount::Allowed(what);
    }
    match kbk.get(3..6) {
        Some("101" | "102" | "103" | "104" | "105" | "106" | "107" | "109") => {
            OnEnpAccount::PaidAsEnp
        }
        _ => OnEnpAccount::Unknown,
    }
}

/// Payees whose KBK administrator we know from their published requisites: INN, the
/// administrator, the payee's name.
pub const KNOWN_PAYEES: &[(&str, &str, &str)] = &[
    ("7727406020", "182", "Казначейство России (ФНС России)"),
    (
        "7730176610",
        "153",
        "Межрегиональное операционное УФК (ФТС России)",
    ),
];

/// The administrator a payee's name points to (the agency in the name of a treasury payee:
/// `УФК по … (ИФНС …)`), when it points to exactly one we know; `None` otherwise.
pub fn administrator_by_name(name: &str) -> Option<&'static str> {
    let upper = upper(name);
    let (mut tax, mut customs, mut social, mut police) = (false, false, false, false);
    for word in upper.split(|c: char| !is_alphanumeric(c)) {
        match word {
            "ФНС" | "ИФНС" | "УФНС" | "МИФНС" => tax = true,
            "ФТС" => customs = true,
            w if w.starts_with("ТАМОЖН") => customs = true,
            "СФР" | "ОСФР" => social = true,
            "МВД" | "ГИБДД" | "ОГИБДД" | "УГИБДД" => police = true,
            _ => {}
        }
    }
    social = social
        || upper.contains("ПЕНСИОННОГО И СОЦИАЛЬНОГО СТРАХОВАНИЯ")
        || upper.contains("СОЦИАЛЬНОГО ФОНДА")
        || upper.contains("СОЦИАЛЬНЫЙ ФОНД");
    let mut found = [
        (tax, "182"),
        (customs, "153"),
        (social, "797"),
        (police, "188"),
    ]
    .into_iter()
    .filter_map(|(found, administrator)| found.then_some(administrator));
    match (found.next(), found.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// `char::is_alphanumeric`, with the letters of payment texts (ASCII, the Russian alphabet)
/// answered without the Unicode tables.
fn is_alphanumeric(c: char) -> bool {
    match c {
        'a'..='z' | 'A'..='Z' | '0'..='9' | 'А'..='я' | 'Ё' | 'ё' => true,
        '\0'..='\x7f' => false,
        _ => c.is_alphanumeric(),
    }
}

/// `text.trim()`, answered without decoding a character when the text begins and ends with
/// one no whitespace is (printable ASCII, a Cyrillic letter): what nearly every value does.
pub(crate) fn trim(text: &str) -> &str {
    let plain_start = matches!(text.as_bytes().first(), Some(0x21..=0x7F | 0xD0 | 0xD1));
    let plain_end = matches!(
        text.as_bytes(),
        [.., 0x21..=0x7F] | [.., 0xD0 | 0xD1, 0x80..=0xBF]
    );
    if plain_start && plain_end {
        text
    } else {
        text.trim()
    }
}

/// Whether `text` has more than `limit` characters; they are counted only when its bytes are
/// more (a character is at least a byte), which the names and purposes of payments rarely are.
pub(crate) fn longer_than(text: &str, limit: usize) -> bool {
    text.len() > limit && text.chars().count() > limit
}

/// `text.to_uppercase()`, with the letters of payment texts (ASCII, the Russian alphabet, `ё`)
/// mapped directly instead of through the Unicode tables.
pub(crate) fn upper(text: &str) -> String {
    String::from_utf8(upper_utf8(text)).unwrap_or_else(|_| text.to_uppercase())
}

/// The UTF-8 of [`upper`], for searching: the text's bytes changed where they stand, a Russian
/// letter by its two bytes (`а`–`п` are `D0 B0`–`D0 BF`, `р`–`я` `D1 80`–`D1 8F`, `ё` `D1 91`;
/// their capitals `D0 90`–`D0 AF` and `D0 81`), any other character through
/// `char::to_uppercase`; from a capital of another length on (`ß` is `SS`) the rest is written
/// anew. Not made into a `String`, which would look at every byte again.
pub(crate) fn upper_utf8(text: &str) -> Vec<u8> {
    let mut out = text.as_bytes().to_vec();
    let mut at = 0;
    while let Some(&first) = out.get(at) {
        if first < 0x80 {
            out[at] = first.to_ascii_uppercase();
            at += 1;
            continue;
        }
        let second = out.get(at + 1).copied().unwrap_or(0);
        let capital = match (first, second) {
            (0xD0, 0xB0..=0xBF) => Some(second - 0x20),
            (0xD1, 0x80..=0x8F) => Some(second + 0x20),
            (0xD1, 0x91) => Some(0x81),
            (0xD0, 0x81 | 0x90..=0xAF) => Some(second),
            _ => None,
        };
        if let Some(capital) = capital {
            out[at] = 0xD0;
            out[at + 1] = capital;
            at += 2;
            continue;
        }
        let Some(rest) = text.get(at..) else {
            break;
        };
        let Some(c) = rest.chars().next() else {
            break;
        };
        let mut capitals = c.to_uppercase();
        match (capitals.next(), capitals.next()) {
            (Some(u), None) if u.len_utf8() == c.len_utf8() => {
                u.encode_utf8(&mut out[at..at + c.len_utf8()]);
                at += c.len_utf8();
            }
            _ => {
                out.truncate(at);
                for u in rest.chars().flat_map(char::to_uppercase) {
                    out.extend_from_slice(u.encode_utf8(&mut [0; 4]).as_bytes());
                }
                break;
            }
        }
    }
    out
}

/// Payer statuses (field 101) that customs payments take: `06` a legal entity in foreign
/// trade, `07` a customs authority, `16` a person, `17` an individual entrepreneur (as the FCS
/// publishes them), and `28`, `30`, `34`, which a bank's public validator also accepts for
/// customs payments (docs/rules.md §6.1).
pub const CUSTOMS_STATUSES: &[&str] = &["06", "07", "16", "17", "28", "30", "34"];

/// Payer statuses of tax payments that a customs payment never takes: `01` taxpayer, `02` tax
/// agent, `13` a person paying tax.
pub const TAX_ONLY_STATUSES: &[&str] = &["01", "02", "13"];

/// Whether an account is keyed by the RKC rule (`0` + BIK digits 5–6) rather than by the
/// credit institution's (BIK digits 7–9), CBR No. 515 p. 2 and §3.3: accounts opened at the
/// Bank of Russia — a bank's correspondent account as the Bank of Russia numbers it (`30101…`,
/// the number payment orders carry), the single treasury accounts (`40102…`), any account at a
/// Bank of Russia division (BIK `…000`, `…001`, `…002`). Every `301…` account of 579-П's chart
/// is a credit institution's own ledger account: `30102…` (its correspondent account at the Bank
/// of Russia as its own books hold it), loro `30109…`, `30111…`, nostro `30110…` — BIK digits 7–9.
pub fn keyed_at_bank_of_russia(bik: &str, account: &str) -> bool {
    account.starts_with("30101")
        || account.starts_with("40102")
        || bik
            .get(6..)
            .is_some_and(|tail| matches!(tail, "000" | "001" | "002"))
}

/// An account of 20 digits whose control key agrees with the BIK of the bank that holds it
/// (CBR No. 515, §3.2–§3.3), by the rule [`keyed_at_bank_of_russia`] chooses; treasury
/// accounts (`03…`) have no key and are checked for structure only.
pub fn account(bik: &str, account: &str) -> Result<(), Defect> {
    let a = digits_of::<20>(account).ok_or(Defect::Format)?;
    if is_treasury_account(account) {
        return treasury_account(account);
    }
    let b = digits_of::<9>(bik).ok_or(Defect::Format)?;
    if account_key_matches(b, a, keyed_at_bank_of_russia(bik, account)) {
        Ok(())
    } else {
        Err(Defect::CheckDigit)
    }
}

/// The bytes of `text` when it is exactly `N` ASCII digits: of a known length, so that the
/// checks on them are unrolled (this runs for every account and BIK of every payment).
pub(crate) fn digits_of<const N: usize>(text: &str) -> Option<&[u8; N]> {
    let digits: &[u8; N] = text.as_bytes().try_into().ok()?;
    digits
        .iter()
        .fold(true, |all, b| all & b.is_ascii_digit())
        .then_some(digits)
}

/// Whether the control key of account `a` agrees with BIK `b` (both digits), the bank's part
/// taken by the Bank of Russia's rule or the credit institution's ([`keyed_at_bank_of_russia`]).
pub(crate) fn account_key_matches(b: &[u8; 9], a: &[u8; 20], at_bank_of_russia: bool) -> bool {
    // 7, 1, 3 over the bank's three digits and the account's twenty. The rule sums each
    // product's last digit and asks for a sum ending in 0; the products' own sum ends in the
    // same digit, so no product is reduced on the way.
    const WEIGHTS: [u32; 23] = [
        7, 1, 3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7, 1,
    ];
    let bank = if at_bank_of_russia {
        [b'0', b[4], b[5]]
    } else {
        [b[6], b[7], b[8]]
    };
    let digit = |d: u8| u32::from(d - b'0');
    let mut sum = 0;
    for (i, &d) in bank.iter().enumerate() {
        sum += digit(d) * WEIGHTS[i];
    }
    for (i, &d) in a.iter().enumerate() {
        sum += digit(d) * WEIGHTS[i + 3];
    }
    sum.is_multiple_of(10)
}

/// A UIN (field 22): 20 or 25 digits, not all zeros, with its check digit (§4.8). `0` means
/// "none" and is not a UIN: check it before calling.
pub fn uin(value: &str) -> Result<(), Defect> {
    let d = digits(value).ok_or(Defect::Format)?;
    if !matches!(d.len(), 20 | 25) || d.iter().all(|&x| x == 0) {
        return Err(Defect::Format);
    }
    let (body, check) = d.split_at(d.len() - 1);
    let remainder = |shift: u32| -> u32 {
        body.iter()
            .enumerate()
            .map(|(i, x)| x * ((i as u32 + shift) % 10 + 1))
            .sum::<u32>()
            % 11
    };
    let mut r = remainder(0);
    if r == 10 {
        r = remainder(2);
        if r == 10 {
            r = 0;
        }
    }
    if r == check[0] {
        Ok(())
    } else {
        Err(Defect::CheckDigit)
    }
}

/// A KBK (field 104): 20 digits, not all zeros (§6).
pub fn kbk(value: &str) -> Result<(), Defect> {
    let b = value.as_bytes();
    if b.len() == 20 && b.iter().all(u8::is_ascii_digit) && b.iter().any(|&c| c != b'0') {
        Ok(())
    } else {
        Err(Defect::Format)
    }
}

/// An OKTMO code (field 105): 8 or 11 digits, not all zeros.
pub fn oktmo(value: &str) -> Result<(), Defect> {
    let b = value.as_bytes();
    if matches!(b.len(), 8 | 11) && b.iter().all(u8::is_ascii_digit) && b.iter().any(|&c| c != b'0')
    {
        Ok(())
    } else {
        Err(Defect::Format)
    }
}

/// Payer statuses (field 101) of 107n as amended through 2023 (§4.1).
pub const PAYER_STATUSES: &[&str] = &[
    "01", "02", "03", "04", "05", "06", "07", "08", "13", "14", "15", "16", "17", "18", "19", "20",
    "21", "22", "23", "24", "25", "26", "27", "28", "29", "30", "31", "32", "33", "34", "35", "36",
];

/// Statuses removed on 01.10.2021 (199n): ИП, notary, lawyer, farm head now use `13`.
pub const REMOVED_PAYER_STATUSES: &[&str] = &["09", "10", "11", "12"];

/// Bases of payment (field 106) of 107n Appendix 2, and `0`.
pub const BASES: &[&str] = &[
    "ТП", "ЗД", "ТР", "РС", "ОТ", "РТ", "ПБ", "ПР", "ПВ", "АП", "АР", "ИН", "ТЛ", "ЗТ", "ДЕ", "ПО",
    "КТ", "ИД", "ИП", "ТУ", "БД", "КП", "ДК", "ПК", "КК", "ТК", "ПД", "КВ", "0",
];

/// Bases with which field 108 must name a document (not `0`).
pub const BASES_WITH_DOCUMENT: &[&str] = &["ТР", "РС", "ОТ", "РТ", "ПР", "АП", "АР"];

/// A tax period (field 107): `0`, `МС.01`–`МС.12`, `КВ.01`–`КВ.04`, `ПЛ.01`–`ПЛ.02`,
/// `ГД.00` followed by `.YYYY`, a date `ДД.ММ.ГГГГ`, or an 8-digit customs code when the KBK
/// starts with `153` (§4.4).
pub fn period(value: &str, kbk: Option<&str>) -> Result<(), Defect> {
    if value == "0" {
        return Ok(());
    }
    if kbk.is_some_and(|k| k.starts_with("153"))
        && value.len() == 8
        && value.bytes().all(|c| c.is_ascii_digit())
    {
        return Ok(());
    }
    if date_text(value).is_ok() {
        return Ok(());
    }
    let chars: Vec<char> = value.chars().collect();
    if chars.len() != 10 || chars[2] != '.' || chars[5] != '.' {
        return Err(Defect::Format);
    }
    let part: String = chars[..2].iter().collect();
    let number: String = chars[3..5].iter().collect();
    let year: String = chars[6..].iter().collect();
    if !year.bytes().all(|c| c.is_ascii_digit()) || !number.bytes().all(|c| c.is_ascii_digit()) {
        return Err(Defect::Format);
    }
    let n: u32 = number.parse().map_err(|_| Defect::Format)?;
    let ok = match part.as_str() {
        "МС" => (1..=12).contains(&n),
        "КВ" => (1..=4).contains(&n),
        "ПЛ" => (1..=2).contains(&n),
        "ГД" => n == 0,
        _ => false,
    };
    if ok { Ok(()) } else { Err(Defect::Format) }
}

/// A date written `ДД.ММ.ГГГГ` that exists in the calendar.
pub fn date_text(value: &str) -> Result<chrono::NaiveDate, Defect> {
    if value.len() != 10 {
        return Err(Defect::Format);
    }
    clientbank_format::value::parse_date(value.as_bytes()).ok_or(Defect::Format)
}

/// The days on which rules that changed over time took effect (docs/rules.md). A payment order
/// follows the rules of its own date: an order of 2013 with priority 6 was right when it was
/// made, and a statement of that year holds it.
pub mod since {
    use chrono::NaiveDate;

    const fn day(year: i32, month: u32, day: u32) -> NaiveDate {
        match NaiveDate::from_ymd_opt(year, month, day) {
            Some(date) => date,
            None => panic!("not a calendar date"),
        }
    }

    /// Five priorities instead of six (Civil Code art. 855 as amended by Federal Law
    /// No. 379-FZ of 21.12.2013): ordinary payments moved from priority 6 to 5.
    pub const FIVE_PRIORITIES: NaiveDate = day(2013, 12, 31);
    /// Field 110 (payment type) is no longer filled in (Ministry of Finance order 126n of
    /// 30.10.2014, §4.7).
    pub const NO_PAYMENT_TYPE: NaiveDate = day(2015, 1, 1);
    /// INN and KPP in budget payments may not start with `00` (148n, §1–§2).
    pub const NO_ZERO_PREFIX: NaiveDate = day(2016, 3, 28);
    /// Payer statuses `09`–`12` removed (199n of 14.09.2020, §4.1).
    pub const STATUSES_REMOVED: NaiveDate = day(2021, 10, 1);
    /// The single tax payment (ЕНП) and its requisites (§4.9).
    pub const SINGLE_TAX_PAYMENT: NaiveDate = day(2023, 1, 1);
    /// The single tax payment's OKTMO (field 105) is `0`; in 2023 it could still be filled.
    pub const SINGLE_TAX_PAYMENT_NO_OKTMO: NaiveDate = day(2024, 1, 1);
    /// The single tax payment's recipient KPP changed from `770801001` to `770701001` (§4.9).
    pub const SINGLE_TAX_PAYMENT_KPP: NaiveDate = day(2025, 12, 5);
    /// A payment order no longer stands for a notification: taxes go to the ЕНП account only
    /// with the ЕНП's KBK (Federal Law 263-FZ's transitional rule ended, §4.9).
    pub const ENP_ONLY: NaiveDate = day(2024, 1, 1);
    /// Field 22 of a payment to a federal custody account (`03212…`) carries the code of the
    /// legal act (приказ Минфина 119n; courts publish it from 01.01.2022).
    pub const NPA_CODE: NaiveDate = day(2022, 1, 1);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// The short way is `str::trim`: on any text, on texts of the characters either end
        /// may hold (spaces of every kind, Cyrillic, control characters).
        #[test]
        fn trim_is_strs_trim(
            any in ".*",
            near in "[ \t\r\n\u{85}\u{a0}\u{2000}\u{3000}a-zА-яЁё0-9\u{7f}\u{0}-\u{1f}]{0,6}",
        ) {
            prop_assert_eq!(trim(&any), any.trim());
            prop_assert_eq!(trim(&near), near.trim());
        }

        /// Counting only texts of more bytes than the limit answers as counting every text.
        #[test]
        fn longer_than_is_a_count_of_characters(text in "[a-zА-яЁё№ 😀]{0,40}", limit in 0usize..60) {
            prop_assert_eq!(longer_than(&text, limit), text.chars().count() > limit);
        }

        /// The key is CBR No. 515's rule as written: the last digit of each product of a digit
        /// and its weight, summed, ends in 0 (the bank's part by either rule, any account).
        #[test]
        fn account_key_is_the_rule_as_written(
            bik in "0[0-9]{5}(000|001|002|[0-9]{3})",
            account in "(30101|40102|40702|[0-9]{5})[0-9]{15}",
        ) {
            prop_assume!(!is_treasury_account(&account));
            let (b, a) = (bik.as_bytes(), account.as_bytes());
            let bank = if keyed_at_bank_of_russia(&bik, &account) {
                [b'0', b[4], b[5]]
            } else {
                [b[6], b[7], b[8]]
            };
            let last_digits: u32 = bank
                .iter()
                .chain(a)
                .zip([7, 1, 3].into_iter().cycle())
                .map(|(&d, w)| u32::from(d - b'0') * w % 10)
                .sum();
            let expected = if last_digits.is_multiple_of(10) { Ok(()) } else { Err(Defect::CheckDigit) };
            prop_assert_eq!(super::account(&bik, &account), expected);
        }
    }

    #[test]
    fn inn_vectors() {
        for valid in [
            "7707083893",
            "7727406020",
            "7710140679",
            "7702070139",
            "7707329152",
            "500100732259",
            "773370857141",
            "0000000000",
        ] {
            assert_eq!(inn(valid), Ok(()), "{valid}");
        }
        for (invalid, defect) in [
            ("7707083894", Defect::CheckDigit),
            ("773370857142", Defect::CheckDigit),
            ("770708389", Defect::Format),
            ("50010073225x", Defect::Format),
            ("9909000000", Defect::CheckDigit),
            ("", Defect::Format),
        ] {
            assert_eq!(inn(invalid), Err(defect), "{invalid}");
        }
    }

    #[test]
    fn kpp_vectors() {
        for valid in [
            "773601001",
            "770801001",
            "770701001",
            "7736AB001",
            "0000AZ000",
        ] {
            assert_eq!(kpp(valid), Ok(()), "{valid}");
        }
        for invalid in [
            "77360100",
            "7736ab001",
            "7736АВ001",
            "7736AB0O1",
            "7736010011",
        ] {
            assert_eq!(kpp(invalid), Err(Defect::Format), "{invalid}");
        }
    }

    #[test]
    fn bik_vectors() {
        for valid in ["044525225", "017003983", "004525988"] {
            assert_eq!(bik(valid), Ok(()));
        }
        for invalid in ["44525225", "144525225", "04452522x", "0445252250"] {
            assert_eq!(bik(invalid), Err(Defect::Format), "{invalid}");
        }
        assert!(is_treasury_bik("017003983"));
        assert!(!is_treasury_bik("044525225"));
    }

    #[test]
    fn account_vectors() {
        for (b, a) in [
            ("044525225", "30101810400000000225"),
            ("044525187", "30101810700000000187"),
            ("044525593", "30101810200000000593"),
            ("044525974", "30101810145250000974"),
            ("049805000", "30101810800000000746"),
            ("049805746", "40602810700000000025"),
            ("044030827", "40702810900000002851"),
            ("044525974", "40802810000000481224"),
            ("017003983", "40102810445370000059"),
            ("004525988", "40102810545370000003"),
            ("044525000", "40102810545370000003"),
            // Treasury accounts: no key, structure only.
            ("004525988", "03100643000000018500"),
            ("017003983", "03100643000000017300"),
            ("017003983", "03224643450000007300"),
        ] {
            assert_eq!(account(b, a), Ok(()), "{b} {a}");
        }
        for (b, a, defect) in [
            ("044030827", "40702810000000002851", Defect::CheckDigit),
            ("044525225", "30101810500000000225", Defect::CheckDigit),
            ("044525225", "40702810938000000002", Defect::CheckDigit),
            ("044525974", "40702810938000000001", Defect::CheckDigit),
            // A loro account keyed as if it were a correspondent account at the Bank of
            // Russia: the key of 30109810?00000000294 for "025" instead of "225".
            ("044525225", "30109810200000000294", Defect::CheckDigit),
            ("044525700", "30111810000000000013", Defect::CheckDigit),
            ("044525225", "3010181040000000022", Defect::Format),
            ("044525225", "3014567890123456789*", Defect::Format),
            ("017003983", "03100000000000018500", Defect::Format),
        ] {
            assert_eq!(account(b, a), Err(defect), "{b} {a}");
        }
        // Accounts opened in a credit institution take BIK digits 7–9 even when they start
        // with 301 (§3.3): published loro accounts with their bank's BIK.
        for (b, a) in [
            ("044525700", "30111810600000000013"), // АО «Райффайзенбанк», RUB loro
            ("044525225", "30111810100000000540"), // ПАО Сбербанк, a foreign bank's loro
            ("044525225", "30109810400000000294"), // ПАО Сбербанк, a resident bank's loro
            ("044525931", "30109810900000000330"), // loro at BIK 044525931
        ] {
            assert_eq!(account(b, a), Ok(()), "{b} {a}");
            assert!(!keyed_at_bank_of_russia(b, a), "{b} {a}");
        }
        // Constructed by the algorithm: 30110 (a credit institution's account with another)
        // with BIK 044525225.
        assert_eq!(account("044525225", "30110810900000000123"), Ok(()));
        assert_eq!(
            account("044525225", "30110810700000000123"),
            Err(Defect::CheckDigit)
        );
        // 30102 is the credit institution's own ledger account (579-П): BIK digits 7–9. A
        // Modulbank sample, 30102810675250000092 with BIK 044525092, holds by 092 and fails
        // by the RKC rule (005).
        assert_eq!(account("044525092", "30102810675250000092"), Ok(()));
        assert!(!keyed_at_bank_of_russia(
            "044525092",
            "30102810675250000092"
        ));
        assert_eq!(
            account("044525225", "30102810200000000123"),
            Err(Defect::CheckDigit)
        );
        assert!(keyed_at_bank_of_russia("044525225", "30101810400000000225"));
        assert!(keyed_at_bank_of_russia("017003983", "40102810445370000059"));
        assert!(keyed_at_bank_of_russia("049805000", "40702810000000000001"));
        assert!(!keyed_at_bank_of_russia("", "40702810000000000001"));
        // rin-nas negatives: every wrong key digit of 40702810?00000002851 fails.
        for key in 0..9 {
            let a = format!("40702810{key}00000002851");
            assert_eq!(account("044030827", &a), Err(Defect::CheckDigit), "{a}");
        }
    }

    /// The account key as it was computed before it was done on the bytes.
    fn account_by_digits(bik: &str, account: &str) -> Result<(), Defect> {
        let d = digits(account).ok_or(Defect::Format)?;
        if d.len() != 20 {
            return Err(Defect::Format);
        }
        if is_treasury_account(account) {
            return treasury_account(account);
        }
        let b = digits(bik).filter(|b| b.len() == 9).ok_or(Defect::Format)?;
        let bank_part = if keyed_at_bank_of_russia(bik, account) {
            [0, b[4], b[5]]
        } else {
            [b[6], b[7], b[8]]
        };
        let sum: u32 = bank_part
            .iter()
            .chain(d.iter())
            .zip([7, 1, 3].iter().cycle())
            .map(|(digit, w)| digit * w % 10)
            .sum();
        if sum.is_multiple_of(10) {
            Ok(())
        } else {
            Err(Defect::CheckDigit)
        }
    }

    #[test]
    fn the_account_key_on_bytes_is_the_key_on_digits() {
        let biks = [
            "044525225",
            "049805000",
            "017003983",
            "04452522",
            "04452522x",
            "",
        ];
        let mut accounts = vec![
            String::new(),
            "4070281000000000000".into(),
            "407028100000000000001".into(),
            "4070281000000000000x".into(),
            "03100643000000018500".into(),
            "03100000000000018500".into(),
        ];
        for seed in 0..400u64 {
            let n = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 100_000_000_000;
            for head in ["40702810", "30101810", "40102810", "40817810"] {
                accounts.push(format!("{head}{n:012}"));
            }
        }
        for bik in biks {
            for a in &accounts {
                assert_eq!(account(bik, a), account_by_digits(bik, a), "{bik} {a}");
            }
        }
    }

    #[test]
    fn uin_vectors() {
        for valid in [
            "18810192085432512980",
            "18810577220946654210",
            "0355431019217522430297490",
        ] {
            assert_eq!(uin(valid), Ok(()), "{valid}");
        }
        for (invalid, defect) in [
            ("18810192085432512981", Defect::CheckDigit),
            ("0355431019217522430297491", Defect::CheckDigit),
            ("18810177230801000123", Defect::CheckDigit),
            ("00000000000000000000", Defect::Format),
            ("188101920854325129801", Defect::Format),
            ("1881019208543251298A", Defect::Format),
        ] {
            assert_eq!(uin(invalid), Err(defect), "{invalid}");
        }
    }

    #[test]
    fn kbk_and_oktmo_vectors() {
        for valid in [
            "18201061201010000510",
            "18210202000010000160",
            "00000000000131131022",
        ] {
            assert_eq!(kbk(valid), Ok(()));
        }
        for invalid in [
            "1820106120101000051",
            "00000000000000000000",
            "182010612010100005I0",
        ] {
            assert_eq!(kbk(invalid), Err(Defect::Format), "{invalid}");
        }
        for valid in ["45379000", "45000000", "45379000001"] {
            assert_eq!(oktmo(valid), Ok(()));
        }
        for invalid in ["4537900", "00000000", "453790001"] {
            assert_eq!(oktmo(invalid), Err(Defect::Format), "{invalid}");
        }
    }

    #[test]
    fn treasury_kinds_and_codes() {
        for (account, kind) in [
            ("03100643000000018500", Some(TreasuryKind::Revenue)),
            ("03212643000000011700", Some(TreasuryKind::FederalCustody)),
            ("03222643010000001700", Some(TreasuryKind::Custody)),
            ("03232643010000001700", Some(TreasuryKind::Custody)),
            ("03214643000000011700", Some(TreasuryKind::Other)),
            ("03224643450000007300", Some(TreasuryKind::Other)),
            ("40702810938000012345", None),
        ] {
            assert_eq!(treasury_kind(account), kind, "{account}");
        }
        for valid in ["0002", "0026"] {
            assert_eq!(npa_code(valid), Ok(()));
        }
        for invalid in ["0000", "26", "00026", "002A", "18810192085432512980"] {
            assert_eq!(npa_code(invalid), Err(Defect::Format), "{invalid}");
        }
    }

    #[test]
    fn kbks_on_the_enp_account_and_administrators() {
        assert_eq!(
            on_enp_account("18201061201010000510"),
            OnEnpAccount::Allowed("")
        );
        for kbk in [
            "18210807010018000110",
            "18210102040011000110",
            "18210506000011000110",
            "18210704010011000110",
        ] {
            assert!(
                matches!(on_enp_account(kbk), OnEnpAccount::Allowed(w) if !w.is_empty()),
                "{kbk}"
            );
        }
        for kbk in [
            "18210102010011000110",
            "18210202000010000160",
            "18210101011011000110",
        ] {
            assert_eq!(on_enp_account(kbk), OnEnpAccount::PaidAsEnp, "{kbk}");
        }
        assert_eq!(
            on_enp_account("79710202050071000160"),
            OnEnpAccount::OtherAdministrator
        );
        assert_eq!(
            on_enp_account("18211601053010000140"),
            OnEnpAccount::Unknown
        );
        assert_eq!(kbk_administrator("15311009000010000110"), "153");
        for (name, admin) in [
            ("Казначейство России (ФНС России)", Some("182")),
            (
                "УФК по г. Москве (ИФНС России № 46 по г. Москве)",
                Some("182"),
            ),
            ("Межрегиональное операционное УФК (ФТС России)", Some("153")),
            ("УФК по Тульской области (Тульская таможня)", Some("153")),
            (
                "УФК по г. Москве (ОСФР по г. Москве и Московской области)",
                Some("797"),
            ),
            (
                "Отделение Фонда пенсионного и социального страхования Российской Федерации по г. Москве",
                Some("797"),
            ),
            ("УФК по г. Москве (ГУ МВД России по г. Москве)", Some("188")),
            ("ООО Лифтсервис", None),
            ("УФК по г. Москве (Росреестр)", None),
        ] {
            assert_eq!(administrator_by_name(name), admin, "{name}");
        }
    }

    #[test]
    fn period_vectors() {
        for valid in [
            "МС.01.2024",
            "КВ.04.2024",
            "ПЛ.02.2024",
            "ГД.00.2024",
            "28.03.2024",
            "0",
        ] {
            assert_eq!(
                period(valid, Some("18210102010011000110")),
                Ok(()),
                "{valid}"
            );
        }
        assert_eq!(period("10005000", Some("15310090000010000110")), Ok(()));
        assert_eq!(
            period("10005000", Some("18210102010011000110")),
            Err(Defect::Format)
        );
        for invalid in [
            "МС.13.2024",
            "КВ.05.2024",
            "ГД.01.2024",
            "MC.01.2024",
            "МС.1.2024",
            "31.02.2024",
            "2024",
        ] {
            assert_eq!(period(invalid, None), Err(Defect::Format), "{invalid}");
        }
    }
}
