//! What kind of bank the settings send to: the bank, its sandbox mode, or the built-in
//! sandbox bank of one run.

use clientbank_format::Message;

use super::Settings;

/// What kind of bank payments go to: a payment sent to one kind is not at a bank of another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BankKind {
    /// The bank, for real.
    Real,
    /// The bank in sandbox mode (`sandbox = true`): nothing is paid.
    SandboxMode,
    /// The built-in sandbox bank of one run (`--sandbox`): gone when the run ends.
    BuiltIn,
}

impl BankKind {
    /// The name the journal records.
    pub fn as_str(self) -> &'static str {
        match self {
            BankKind::Real => "real",
            BankKind::SandboxMode => "sandbox-mode",
            BankKind::BuiltIn => "built-in",
        }
    }

    /// The kind of a name [`BankKind::as_str`] gave.
    pub fn from_name(name: &str) -> Option<BankKind> {
        [BankKind::Real, BankKind::SandboxMode, BankKind::BuiltIn]
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }

    /// What it is, for people.
    pub fn message(self) -> Message {
        match self {
            BankKind::Real => Message::new("the bank", "банк"),
            BankKind::SandboxMode => Message::new(
                "the bank in sandbox mode (nothing is paid)",
                "банк в режиме песочницы (ничего не оплачивается)",
            ),
            BankKind::BuiltIn => Message::new(
                "the built-in sandbox bank of a run with --sandbox (nothing is paid, and it is \
                 gone)",
                "встроенный тестовый банк запуска с --sandbox (ничего не оплачивается, и его \
                 уже нет)",
            ),
        }
    }
}

impl Settings {
    /// The kind of bank `bank_url` is.
    pub fn bank_kind(&self) -> BankKind {
        if self.built_in_bank {
            BankKind::BuiltIn
        } else if self.sandbox {
            BankKind::SandboxMode
        } else {
            BankKind::Real
        }
    }
}
