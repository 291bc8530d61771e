//! Companies made while the bank runs (issue 20: a bureau's many companies): each is its own
//! user of the bank, with one checking account in roubles and a cabinet token of every right,
//! so that one company's token sees and pays from its own account only.

use chrono::NaiveTime;
use clientbank_api::types::{AccountCategory, AccountStatus, Currency};
use clientbank_api::{BankAccount, Company};
use rust_decimal::Decimal;

use crate::data::{self, AccountRecord, CompanyRecord};
use crate::state::{ControlError, Shared, TokenKind, TokenRecord, random_secret};

/// How many companies the bank makes at most (beside its test data).
pub const MAX_COMPANIES: usize = 10_000;

/// The bank of every account made here (the test data's).
const BIK: &str = "044525225";

/// A company to make ([`crate::Control::add_company`], `POST /admin/companies`).
#[derive(Clone, Debug, Default)]
pub struct NewCompany {
    /// Its name (`ООО "…"`).
    pub name: String,
    /// Its INN (10 digits with their check digit); `None`: one is made.
    pub inn: Option<String>,
    /// Its KPP; `None`: `770101001`.
    pub kpp: Option<String>,
}

impl NewCompany {
    /// A company of this name, its INN and KPP made by the bank.
    pub fn new(name: impl Into<String>) -> NewCompany {
        NewCompany {
            name: name.into(),
            ..NewCompany::default()
        }
    }
}

/// A company made: what a client needs to pay from it.
#[derive(Clone, PartialEq, Eq)]
pub struct MadeCompany {
    /// The bank's id of the company.
    pub company_id: String,
    /// Its name.
    pub name: String,
    /// Its INN.
    pub inn: String,
    /// Its KPP.
    pub kpp: String,
    /// Its checking account's number (20 digits, keyed to the BIK).
    pub account: String,
    /// The bank's id of the account.
    pub account_id: String,
    /// A cabinet token of every right, seeing this company only.
    pub token: String,
}

impl std::fmt::Debug for MadeCompany {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MadeCompany")
            .field("company_id", &self.company_id)
            .field("inn", &self.inn)
            .field("account", &self.account)
            .field("token", &"****")
            .finish_non_exhaustive()
    }
}

/// `prefix` followed by the one digit that makes `valid` true.
fn with_check_digit(prefix: &str, valid: impl Fn(&str) -> bool) -> Option<String> {
    (0..10)
        .map(|digit| format!("{prefix}{digit}"))
        .find(|candidate| valid(candidate))
}

/// The `n`th INN the bank makes: `97`, seven digits of `n`, its check digit.
fn inn(n: usize) -> Option<String> {
    with_check_digit(&format!("97{n:07}"), |c| {
        clientbank_payment::rules::inn(c).is_ok()
    })
}

/// The `n`th account number: a company's checking account in roubles at branch 3801, its
/// control key computed for [`BIK`].
fn account_number(n: usize) -> Option<String> {
    (0..10)
        .map(|key| format!("40702810{key}3801{n:07}"))
        .find(|candidate| clientbank_payment::rules::account(BIK, candidate).is_ok())
}

impl Shared {
    /// See [`crate::Control::add_company`].
    pub(crate) fn add_company(&self, new: &NewCompany) -> Result<MadeCompany, ControlError> {
        let name = new.name.trim();
        if name.is_empty() || name.chars().count() > 160 {
            return Err(ControlError(
                "name: a company's name of 1 to 160 characters".into(),
            ));
        }
        if let Some(inn) = &new.inn
            && (inn.len() != 10 || clientbank_payment::rules::inn(inn).is_err())
        {
            return Err(ControlError(format!(
                "inn {inn:?}: 10 digits with their check digit (a legal entity's INN)"
            )));
        }
        if let Some(kpp) = &new.kpp
            && clientbank_payment::rules::kpp(kpp).is_err()
        {
            return Err(ControlError(format!(
                "kpp {kpp:?}: 9 characters, as 770101001"
            )));
        }
        let token = random_secret().map_err(|e| ControlError(format!("no random token: {e}")))?;
        // (The clock is read under the lock too: before it is taken.)
        let opened = self.now_moscow().date().and_time(NaiveTime::MIN);
        let mut state = self.lock();
        let made = state.made_companies;
        if made >= MAX_COMPANIES {
            return Err(ControlError(format!(
                "the sandbox bank makes at most {MAX_COMPANIES} companies: restart it"
            )));
        }
        let unmade = || ControlError("no INN or account number left to make".into());
        let inn = match &new.inn {
            Some(inn) => inn.clone(),
            None => inn(made).ok_or_else(unmade)?,
        };
        let number = account_number(made).ok_or_else(unmade)?;
        let kpp = new.kpp.clone().unwrap_or_else(|| "770101001".into());
        let serial = 1_000_000 + made as u64;
        let (company_id, account_id) = (data::uuid(1, serial), data::uuid(2, serial));
        let user: data::User = format!("company-user-{made}").into();
        state.companies.push(CompanyRecord {
            company: Company {
                company_id: company_id.clone(),
                company_name: Some(name.to_string()),
                bank_accounts: Vec::new(),
                registration_completed: true,
                inn: Some(inn.clone()),
                kpp: Some(kpp.clone()),
                ogrn: None,
            },
            user: user.clone(),
        });
        state.accounts.push(AccountRecord {
            company_id: company_id.clone(),
            account: BankAccount {
                id: account_id.clone(),
                account_name: Some("Расчётный".into()),
                balance: Decimal::ZERO,
                bank_bic: Some(BIK.into()),
                bank_inn: Some("7707083893".into()),
                bank_kpp: Some("773601001".into()),
                bank_correspondent_account: Some("30101810400000000225".into()),
                bank_name: Some("ПАО Сбербанк".into()),
                begin_date: Some(opened),
                category: Some(AccountCategory::CheckingAccount),
                currency: Some(Currency::Rur),
                number: Some(number.clone()),
                status: Some(AccountStatus::New),
            },
            // A hundred million roubles: room for any test's payments.
            opening: Decimal::new(10_000_000_000, 2),
        });
        state.tokens.insert(
            token.clone(),
            TokenRecord {
                user,
                rights: crate::RIGHTS.iter().map(|r| r.to_string()).collect(),
                expires: chrono::NaiveDate::from_ymd_opt(2099, 12, 31)
                    .unwrap_or_default()
                    .and_time(NaiveTime::MIN),
                revoked: false,
                kind: TokenKind::Cabinet,
            },
        );
        state.made_companies += 1;
        Ok(MadeCompany {
            company_id,
            name: name.to_string(),
            inn,
            kpp,
            account: number,
            account_id,
            token,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_numbers_carry_their_check_digits() {
        for n in [0, 1, 9, 199, 9_999] {
            let inn = inn(n).unwrap();
            assert!(clientbank_payment::rules::inn(&inn).is_ok(), "{inn}");
            let account = account_number(n).unwrap();
            assert_eq!(account.len(), 20);
            assert!(
                clientbank_payment::rules::account(BIK, &account).is_ok(),
                "{account}"
            );
        }
        assert_ne!(account_number(1), account_number(2));
    }
}
