//! The sandbox bank's believable test data: companies, accounts of every category, currency and
//! status, and a few hundred operations (ordinary, budget and SBP), generated deterministically.

use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime};
use clientbank_api::types::{
    AccountCategory, AccountStatus, Currency, OperationCategory, OperationStatus,
};
use clientbank_api::{BankAccount, Company, Operation};
use rust_decimal::Decimal;

use crate::state::OperationKind;

/// A company and whose it is.
#[derive(Clone, Debug)]
pub(crate) struct CompanyRecord {
    pub(crate) company: Company,
    /// The user the company belongs to; tokens see the companies of their user.
    pub(crate) user: User,
}

/// An account with the balance it had before its first operation.
#[derive(Clone, Debug)]
pub(crate) struct AccountRecord {
    pub(crate) company_id: String,
    pub(crate) account: BankAccount,
    pub(crate) opening: Decimal,
}

/// The user of the fixed sandbox credentials and of tokens the sandbox issues.
pub(crate) const USER: &str = "sandbox-user";
/// A user of the bank: whose companies a token sees (the two of the test data, and one per
/// company made through [`crate::Control::add_company`]).
pub(crate) type User = std::sync::Arc<str>;
/// Another user, whose company nobody here may see.
pub(crate) const OTHER_USER: &str = "other-user";

/// A uuid-shaped id, deterministic.
pub(crate) fn uuid(kind: u32, n: u64) -> String {
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        0x5a4d_0000 + kind,
        (n >> 48) & 0xffff,
        (n >> 36) & 0xfff,
        (n >> 24) & 0xfff,
        n & 0xffff_ffff_ffff
    )
}

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Bank {
    bic: &'static str,
    name: &'static str,
    corr: &'static str,
    inn: &'static str,
    kpp: &'static str,
}

const SBER: Bank = Bank {
    bic: "044525225",
    name: "ПАО Сбербанк",
    corr: "30101810400000000225",
    inn: "7707083893",
    kpp: "773601001",
};

#[allow(clippy::too_many_arguments)]
fn account(
    company: &str,
    n: u64,
    name: &str,
    number: &str,
    category: AccountCategory,
    currency: Currency,
    status: AccountStatus,
    opening: i64,
) -> AccountRecord {
    AccountRecord {
        company_id: company.to_string(),
        account: BankAccount {
            id: uuid(2, n),
            account_name: Some(name.to_string()),
            balance: Decimal::ZERO,
            bank_bic: Some(SBER.bic.into()),
            bank_inn: Some(SBER.inn.into()),
            bank_kpp: Some(SBER.kpp.into()),
            bank_correspondent_account: Some(SBER.corr.into()),
            bank_name: Some(SBER.name.into()),
            begin_date: NaiveDate::from_ymd_opt(2023, 1 + (n % 12) as u32, 10)
                .map(|d| d.and_time(NaiveTime::MIN)),
            category: Some(category),
            currency: Some(currency),
            number: Some(number.to_string()),
            status: Some(status),
        },
        opening: Decimal::new(opening, 2),
    }
}

/// The companies and accounts.
pub(crate) fn companies() -> (Vec<CompanyRecord>, Vec<AccountRecord>) {
    let romashka = uuid(1, 1);
    let ivanov = uuid(1, 2);
    let other = uuid(1, 3);
    let company = |id: &str, name: &str, inn: &str, kpp: Option<&str>, ogrn: &str| Company {
        company_id: id.to_string(),
        company_name: Some(name.to_string()),
        bank_accounts: Vec::new(),
        registration_completed: true,
        inn: Some(inn.to_string()),
        kpp: kpp.map(str::to_string),
        ogrn: Some(ogrn.to_string()),
    };
    let companies = vec![
        CompanyRecord {
            company: company(
                &romashka,
                "ООО \"Ромашка\"",
                "7701234560",
                Some("770101001"),
                "1027700132195",
            ),
            user: USER.into(),
        },
        CompanyRecord {
            company: company(
                &ivanov,
                "ИП Иванов Иван Иванович",
                "500100732259",
                None,
                "317774600123456",
            ),
            user: USER.into(),
        },
        CompanyRecord {
            company: company(
                &other,
                "ООО \"Чужая компания\"",
                "7707083893",
                Some("773601001"),
                "1027700132196",
            ),
            user: OTHER_USER.into(),
        },
    ];
    use AccountCategory::*;
    use AccountStatus::*;
    let accounts = vec![
        account(
            &romashka,
            1,
            "Основной расчётный",
            "40702810938000012345",
            CheckingAccount,
            Currency::Rur,
            New,
            150_000_000,
        ),
        account(
            &romashka,
            2,
            "Депозит",
            "42102810038000000017",
            DepositAccount,
            Currency::Rur,
            New,
            500_000_000,
        ),
        account(
            &romashka,
            3,
            "Корпоративная карта",
            "40702810938000000056",
            CardAccount,
            Currency::Rur,
            Freezed,
            2_500_000,
        ),
        account(
            &romashka,
            4,
            "Валютный USD",
            "40702840338000000011",
            CheckingAccount,
            Currency::Usd,
            New,
            1_200_000,
        ),
        account(
            &romashka,
            5,
            "Валютный EUR",
            "40702978938000000011",
            CheckingAccount,
            Currency::Eur,
            ToClosed,
            800_000,
        ),
        account(
            &romashka,
            6,
            "Валютный CNY",
            "40702156938000000011",
            CheckingAccount,
            Currency::Cny,
            ToOpen,
            0,
        ),
        account(
            &romashka,
            7,
            "Старый расчётный",
            "40702810238000000099",
            CheckingAccount,
            Currency::Rur,
            Closed,
            0,
        ),
        account(
            &ivanov,
            8,
            "Счёт ИП",
            "40802810438000054321",
            CheckingAccount,
            Currency::Rur,
            New,
            35_000_000,
        ),
        account(
            &ivanov,
            9,
            "Резерв",
            "40802810338000000077",
            ReservationAccounting,
            Currency::Rur,
            New,
            1_000_000,
        ),
        account(
            &ivanov,
            10,
            "Вклад с процентами",
            "42108810438000000022",
            DepositRateAccount,
            Currency::Rur,
            Deleted,
            0,
        ),
        account(
            &other,
            11,
            "Расчётный",
            "40702810938000099999",
            CheckingAccount,
            Currency::Rur,
            New,
            99_000_000,
        ),
    ];
    (companies, accounts)
}

pub(crate) const COUNTERPARTIES: &[(&str, &str, &str, &str, &str)] = &[
    (
        "ООО \"Лютик\"",
        "5009876546",
        "500901001",
        "40702810210000054321",
        "044525974",
    ),
    (
        "АО \"Тюльпан\"",
        "7710140679",
        "771001001",
        "40702810900000002851",
        "044030827",
    ),
    (
        "ИП Петров Пётр Петрович",
        "773370857141",
        "",
        "40802810000000481224",
        "044525974",
    ),
    (
        "ООО \"Василёк\"",
        "7702070139",
        "770201001",
        "40602810700000000025",
        "049805746",
    ),
];

/// What one operation is made of, besides its kind.
pub(crate) struct Shape<'a> {
    pub(crate) id: String,
    /// Its serial number (the bank's own ids are made from it).
    pub(crate) n: u64,
    pub(crate) record: &'a AccountRecord,
    /// Name, INN, KPP, account, BIK.
    pub(crate) party: (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    ),
    pub(crate) amount: Decimal,
    /// Executed (created half an hour before).
    pub(crate) at: NaiveDateTime,
    pub(crate) doc_number: u64,
    /// The invoice number in the purpose.
    pub(crate) invoice: u64,
    /// Keeps the bank's ids of two series apart (`A` generated, `B` received).
    pub(crate) series: char,
}

/// An operation of `kind` as the bank's history shows it: an ordinary payment in or out, the
/// single tax payment with its budget fields, an SBP payment by QR code, or a cancelled
/// payment (no execution time).
pub(crate) fn operation(kind: OperationKind, shape: &Shape<'_>) -> Operation {
    let Shape {
        n,
        party,
        amount,
        at,
        series,
        ..
    } = *shape;
    let incoming = matches!(kind, OperationKind::Incoming | OperationKind::Sbp);
    let mut op = Operation {
        id: shape.id.clone(),
        company_id: Some(shape.record.company_id.clone()),
        status: Some(if incoming {
            OperationStatus::Received
        } else {
            OperationStatus::Executed
        }),
        category: Some(if incoming {
            OperationCategory::Debet
        } else {
            OperationCategory::Credit
        }),
        contragent_name: Some(party.0.into()),
        contragent_inn: Some(party.1.into()),
        contragent_kpp: Some(party.2.into()),
        contragent_bank_account_number: Some(party.3.into()),
        contragent_bank_name: Some("АО \"Банк\"".into()),
        contragent_bank_bic: Some(party.4.into()),
        currency: shape.record.account.currency.clone(),
        amount: Some(amount),
        amount_with_commission: (!incoming).then_some(amount),
        bank_account_number: shape.record.account.number.clone(),
        payment_purpose: Some(format!(
            "Оплата по счету № {} от {}, в т.ч. НДС 22% - {}",
            shape.invoice,
            at.date().format("%d.%m.%Y"),
            (amount * Decimal::new(22, 0) / Decimal::new(122, 0)).round_dp(2)
        )),
        executed: Some(at),
        created: Some(at - Duration::minutes(30)),
        doc_number: Some(shape.doc_number.to_string()),
        abs_id: Some(format!("ABS{series}{n:08}")),
        ibso_id: n.is_multiple_of(2).then(|| format!("IBSO{series}{n:08}")),
        kbk: Some(String::new()),
        oktmo: Some(String::new()),
        payment_basis: Some(String::new()),
        tax_code: Some(String::new()),
        tax_doc_num: Some(String::new()),
        tax_doc_date: Some(String::new()),
        payer_status: Some(String::new()),
        uin: Some(String::new()),
        ..Operation::default()
    };
    match kind {
        OperationKind::Incoming | OperationKind::Outgoing => {}
        OperationKind::Budget => {
            op.contragent_name = Some("Казначейство России (ФНС России)".into());
            op.contragent_inn = Some("7727406020".into());
            op.contragent_kpp = Some("770701001".into());
            op.contragent_bank_account_number = Some("03100643000000018500".into());
            op.contragent_bank_bic = Some("017003983".into());
            op.contragent_bank_name = Some("ОКЦ № 3 ГУ Банка России по ЦФО".into());
            op.payment_purpose = Some("Единый налоговый платеж".into());
            op.kbk = Some("18201061201010000510".into());
            for field in [
                &mut op.oktmo,
                &mut op.payment_basis,
                &mut op.tax_code,
                &mut op.tax_doc_num,
                &mut op.tax_doc_date,
                &mut op.uin,
            ] {
                *field = Some("0".into());
            }
            op.payer_status = Some("01".into());
        }
        OperationKind::Sbp => {
            op.sbp_oper_id = Some(format!("{series}{n:031}"));
            op.rcv_qrc_id = Some(format!("{series}D{n:030}"));
            op.payment_purpose = Some("Оплата по QR-коду СБП".into());
        }
        OperationKind::Cancelled => {
            op.status = Some(OperationStatus::Canceled);
            op.executed = None;
        }
    }
    op
}

/// A few hundred operations of the visible companies' ruble accounts, and a few of the other
/// company's, from `start` on.
pub(crate) fn operations(accounts: &[AccountRecord], start: NaiveDate) -> Vec<Operation> {
    let mut rng = Lcg(20_261_122);
    let mut out = Vec::new();
    let mut n = 0u64;
    for record in accounts {
        let account = &record.account;
        let count = match account.number.as_deref() {
            Some("40702810938000012345") => 260,
            Some("40802810438000054321") => 60,
            Some("40702810938000099999") => 10,
            _ => 0,
        };
        for i in 0..count {
            n += 1;
            let day = start + Duration::days((i * 120 / count.max(1)) as i64);
            let at = day.and_time(
                NaiveTime::from_hms_opt(9 + (rng.below(9) as u32), rng.below(60) as u32, 0)
                    .unwrap_or(NaiveTime::MIN),
            );
            let kind = rng.below(10);
            let party = COUNTERPARTIES[rng.below(COUNTERPARTIES.len() as u64) as usize];
            let amount = Decimal::new(10_000 + rng.below(30_000_000) as i64, 2);
            let kind = match kind {
                0..=3 => OperationKind::Incoming,
                4 => OperationKind::Budget,
                5 => OperationKind::Sbp,
                6 if i % 3 == 0 => OperationKind::Cancelled,
                _ => OperationKind::Outgoing,
            };
            let op = operation(
                kind,
                &Shape {
                    id: uuid(3, n),
                    n,
                    record,
                    party,
                    amount,
                    at,
                    doc_number: 1000 + n,
                    invoice: 100 + i,
                    series: 'A',
                },
            );
            out.push(op);
        }
    }
    out
}

/// The SBP retail points (two of the first company, one of each other), and the point each
/// SBP operation was paid at (in turn among its company's points).
pub(crate) fn retail_points(
    companies: &[CompanyRecord],
    operations: &[Operation],
) -> (
    Vec<crate::state::RetailPoint>,
    std::collections::HashMap<String, String>,
) {
    const NAMES: [&str; 4] = [
        "Магазин на Тверской",
        "Кафе на Арбате",
        "Мастерская на Ленина",
        "Склад на Складской",
    ];
    let mut points = Vec::new();
    for (i, record) in companies.iter().enumerate() {
        let count = if i == 0 { 2 } else { 1 };
        for _ in 0..count {
            let n = points.len();
            points.push(crate::state::RetailPoint {
                id: uuid(10, n as u64 + 1),
                company_id: record.company.company_id.clone(),
                name: NAMES[n % NAMES.len()].to_string(),
                status: "Registered",
            });
        }
    }
    let mut paid_at = std::collections::HashMap::new();
    for (turn, op) in operations
        .iter()
        .filter(|op| op.rcv_qrc_id.is_some())
        .enumerate()
    {
        let of_company: Vec<&crate::state::RetailPoint> = points
            .iter()
            .filter(|p| Some(&p.company_id) == op.company_id.as_ref())
            .collect();
        if let Some(point) = of_company.get(turn % of_company.len().max(1)) {
            paid_at.insert(op.id.clone(), point.id.clone());
        }
    }
    (points, paid_at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every account and counterparty of the sandbox passes the checks our own statement
    /// reader makes (a statement of any sandbox account reads back without `account-key`).
    #[test]
    fn every_account_number_fits_its_bik() {
        let (_, accounts) = companies();
        for record in &accounts {
            let (Some(bik), Some(number)) = (&record.account.bank_bic, &record.account.number)
            else {
                panic!("{record:?}");
            };
            assert_eq!(
                clientbank_payment::rules::account(bik, number),
                Ok(()),
                "{number}"
            );
        }
        for (name, _, _, account, bik) in COUNTERPARTIES {
            assert_eq!(
                clientbank_payment::rules::account(bik, account),
                Ok(()),
                "{name}"
            );
        }
    }
}
