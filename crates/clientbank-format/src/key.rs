//! The keys of the exchange format: one table, in 1C's customary order.
//!
//! Every key that FORMAT.md §2–§5 lists is a [`Key`]. The table says where the key may stand
//! (header, account section, document), what kind of value it holds, and whether it may repeat.
//! Everything else in the crate (the parser's checks, the typed view, the canonical writer)
//! reads this table rather than spelling keys again.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::Encoding;

/// Where a key may stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// The file header (general information and selection conditions).
    Header,
    /// An account-balance section, `СекцияРасчСчет … КонецРасчСчет`.
    Account,
    /// A document section, `СекцияДокумент=… … КонецДокумента`.
    Document,
}

impl Place {
    const fn bit(self) -> u8 {
        match self {
            Place::Header => 1,
            Place::Account => 2,
            Place::Document => 4,
        }
    }

    /// How the section is named in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Place::Header => "the header",
            Place::Account => "an account section (СекцияРасчСчет)",
            Place::Document => "a document (СекцияДокумент)",
        }
    }

    /// The section in Russian, in the genitive ("ключ заголовка").
    pub(crate) fn of_ru(self) -> &'static str {
        match self {
            Place::Header => "заголовка",
            Place::Account => "секции расчётного счёта (СекцияРасчСчет)",
            Place::Document => "документа (СекцияДокумент)",
        }
    }

    /// The section in Russian, after "в" ("не допускается в заголовке").
    pub(crate) fn in_ru(self) -> &'static str {
        match self {
            Place::Header => "в заголовке",
            Place::Account => "в секции расчётного счёта (СекцияРасчСчет)",
            Place::Document => "в документе (СекцияДокумент)",
        }
    }
}

/// What a key's value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// Free text, kept as written (numbers such as `Номер` and `ПоказательДаты` are text too).
    Text,
    /// `ДД.ММ.ГГГГ`.
    Date,
    /// `ЧЧ:ММ:СС`.
    Time,
    /// `руб[.коп]`, at most two decimals; a leading minus only where `signed`.
    Amount {
        /// Balances may be negative; document sums may not.
        signed: bool,
    },
    /// `ВерсияФормата`: 1.01, 1.02 or 1.03.
    Version,
    /// `Кодировка`: Windows or DOS.
    EncodingLabel,
    /// A whole number of days (`СрокАкцепта`).
    Integer,
}

macro_rules! keys {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, [$($place:ident)|+], $kind:expr, $repeat:literal; )*) => {
        /// A key of the 1.03 format.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Key {
            $( $(#[$doc])* $variant, )*
        }

        impl Key {
            /// Every key, in 1C's customary order.
            pub const ALL: &'static [Key] = &[$(Key::$variant),*];

            /// How many keys there are: [`Key::index`] is below it.
            pub const COUNT: usize = Key::ALL.len();

            /// The key's place in [`Key::ALL`], for tables indexed by key.
            pub fn index(self) -> usize {
                self as usize
            }

            /// The key as it is written in files.
            pub fn name(self) -> &'static str {
                match self { $(Key::$variant => $name,)* }
            }

            #[inline]
            fn places(self) -> u8 {
                match self { $(Key::$variant => 0 $(| Place::$place.bit())+,)* }
            }

            /// What the value of this key is.
            #[inline]
            pub fn kind(self) -> ValueKind {
                match self { $(Key::$variant => $kind,)* }
            }

            /// Whether the key may stand several times in one section (`РасчСчет`, `Документ`
            /// in the header).
            #[inline]
            pub fn repeats(self) -> bool {
                match self { $(Key::$variant => $repeat,)* }
            }
        }
    };
}

use ValueKind::{Amount, Date, EncodingLabel, Integer, Text, Time, Version};
const SUM: ValueKind = Amount { signed: false };
const BALANCE: ValueKind = Amount { signed: true };

keys! {
    /// `ВерсияФормата`
    FormatVersion = "ВерсияФормата", [Header], Version, false;
    /// `Кодировка`
    Encoding = "Кодировка", [Header], EncodingLabel, false;
    /// `Отправитель`: the sending program.
    Sender = "Отправитель", [Header], Text, false;
    /// `Получатель`: the receiving program in the header, the recipient as one line in a document.
    Recipient = "Получатель", [Header | Document], Text, false;
    /// `ДатаСоздания`
    CreationDate = "ДатаСоздания", [Header], Date, false;
    /// `ВремяСоздания`
    CreationTime = "ВремяСоздания", [Header], Time, false;
    /// `ДатаНачала`: start of the selection (header) or of the balance period (account section).
    StartDate = "ДатаНачала", [Header | Account], Date, false;
    /// `ДатаКонца`
    EndDate = "ДатаКонца", [Header | Account], Date, false;
    /// `РасчСчет`: repeats in the header, once in an account section.
    Account = "РасчСчет", [Header | Account], Text, true;
    /// `Документ`: a document type the file carries; repeats.
    DocumentType = "Документ", [Header], Text, true;
    /// `НачальныйОстаток`
    OpeningBalance = "НачальныйОстаток", [Account], BALANCE, false;
    /// `ВсегоПоступило`
    TotalCredited = "ВсегоПоступило", [Account], BALANCE, false;
    /// `ВсегоСписано`
    TotalDebited = "ВсегоСписано", [Account], BALANCE, false;
    /// `КонечныйОстаток`
    ClosingBalance = "КонечныйОстаток", [Account], BALANCE, false;
    /// `Номер` (field 3): text.
    Number = "Номер", [Document], Text, false;
    /// `Дата` (field 4)
    Date = "Дата", [Document], Date, false;
    /// `Сумма` (field 7)
    Sum = "Сумма", [Document], SUM, false;
    /// `КвитанцияДата`
    ReceiptDate = "КвитанцияДата", [Document], Date, false;
    /// `КвитанцияВремя`
    ReceiptTime = "КвитанцияВремя", [Document], Time, false;
    /// `КвитанцияСодержание`
    ReceiptText = "КвитанцияСодержание", [Document], Text, false;
    /// `ПлательщикСчет`
    PayerAccount = "ПлательщикСчет", [Document], Text, false;
    /// `ДатаСписано`
    DebitedDate = "ДатаСписано", [Document], Date, false;
    /// `Плательщик`
    Payer = "Плательщик", [Document], Text, false;
    /// `ПлательщикИНН`
    PayerInn = "ПлательщикИНН", [Document], Text, false;
    /// `Плательщик1`
    Payer1 = "Плательщик1", [Document], Text, false;
    /// `Плательщик2`
    Payer2 = "Плательщик2", [Document], Text, false;
    /// `Плательщик3`
    Payer3 = "Плательщик3", [Document], Text, false;
    /// `Плательщик4`
    Payer4 = "Плательщик4", [Document], Text, false;
    /// `ПлательщикРасчСчет`
    PayerSettlementAccount = "ПлательщикРасчСчет", [Document], Text, false;
    /// `ПлательщикБанк1`
    PayerBank1 = "ПлательщикБанк1", [Document], Text, false;
    /// `ПлательщикБанк2`
    PayerBank2 = "ПлательщикБанк2", [Document], Text, false;
    /// `ПлательщикБИК`
    PayerBik = "ПлательщикБИК", [Document], Text, false;
    /// `ПлательщикКорсчет`
    PayerCorrAccount = "ПлательщикКорсчет", [Document], Text, false;
    /// `ПолучательСчет`
    RecipientAccount = "ПолучательСчет", [Document], Text, false;
    /// `ДатаПоступило`
    CreditedDate = "ДатаПоступило", [Document], Date, false;
    /// `ПолучательИНН`
    RecipientInn = "ПолучательИНН", [Document], Text, false;
    /// `Получатель1`
    Recipient1 = "Получатель1", [Document], Text, false;
    /// `Получатель2`
    Recipient2 = "Получатель2", [Document], Text, false;
    /// `Получатель3`
    Recipient3 = "Получатель3", [Document], Text, false;
    /// `Получатель4`
    Recipient4 = "Получатель4", [Document], Text, false;
    /// `ПолучательРасчСчет`
    RecipientSettlementAccount = "ПолучательРасчСчет", [Document], Text, false;
    /// `ПолучательБанк1`
    RecipientBank1 = "ПолучательБанк1", [Document], Text, false;
    /// `ПолучательБанк2`
    RecipientBank2 = "ПолучательБанк2", [Document], Text, false;
    /// `ПолучательБИК`
    RecipientBik = "ПолучательБИК", [Document], Text, false;
    /// `ПолучательКорсчет`
    RecipientCorrAccount = "ПолучательКорсчет", [Document], Text, false;
    /// `ВидПлатежа` (field 5)
    PaymentMethod = "ВидПлатежа", [Document], Text, false;
    /// `КодНазПлатежа` (field 20)
    PurposeCode = "КодНазПлатежа", [Document], Text, false;
    /// `ВидОплаты` (field 18)
    OperationKind = "ВидОплаты", [Document], Text, false;
    /// `Код` (field 22): УИН.
    Code = "Код", [Document], Text, false;
    /// `НазначениеПлатежа` (field 24)
    Purpose = "НазначениеПлатежа", [Document], Text, false;
    /// `НазначениеПлатежа1`
    Purpose1 = "НазначениеПлатежа1", [Document], Text, false;
    /// `НазначениеПлатежа2`
    Purpose2 = "НазначениеПлатежа2", [Document], Text, false;
    /// `НазначениеПлатежа3`
    Purpose3 = "НазначениеПлатежа3", [Document], Text, false;
    /// `НазначениеПлатежа4`
    Purpose4 = "НазначениеПлатежа4", [Document], Text, false;
    /// `НазначениеПлатежа5`
    Purpose5 = "НазначениеПлатежа5", [Document], Text, false;
    /// `НазначениеПлатежа6`
    Purpose6 = "НазначениеПлатежа6", [Document], Text, false;
    /// `СтатусСоставителя` (field 101)
    PayerStatus = "СтатусСоставителя", [Document], Text, false;
    /// `ПлательщикКПП` (field 102)
    PayerKpp = "ПлательщикКПП", [Document], Text, false;
    /// `ПолучательКПП` (field 103)
    RecipientKpp = "ПолучательКПП", [Document], Text, false;
    /// `ПоказательКБК` (field 104)
    Kbk = "ПоказательКБК", [Document], Text, false;
    /// `ОКАТО` (field 105, holds OKTMO)
    Oktmo = "ОКАТО", [Document], Text, false;
    /// `ПоказательОснования` (field 106)
    Basis = "ПоказательОснования", [Document], Text, false;
    /// `ПоказательПериода` (field 107): text.
    Period = "ПоказательПериода", [Document], Text, false;
    /// `ПоказательНомера` (field 108)
    BasisNumber = "ПоказательНомера", [Document], Text, false;
    /// `ПоказательДаты` (field 109): text, `0` allowed.
    BasisDate = "ПоказательДаты", [Document], Text, false;
    /// `ПоказательТипа` (field 110)
    PaymentType = "ПоказательТипа", [Document], Text, false;
    /// `Очередность` (field 21)
    Priority = "Очередность", [Document], Text, false;
    /// `СрокАкцепта`
    AcceptanceTerm = "СрокАкцепта", [Document], Integer, false;
    /// `ВидАккредитива`
    LetterOfCreditKind = "ВидАккредитива", [Document], Text, false;
    /// `СрокПлатежа`
    PaymentTerm = "СрокПлатежа", [Document], Date, false;
    /// `УсловиеОплаты1`
    PaymentCondition1 = "УсловиеОплаты1", [Document], Text, false;
    /// `УсловиеОплаты2`
    PaymentCondition2 = "УсловиеОплаты2", [Document], Text, false;
    /// `УсловиеОплаты3`
    PaymentCondition3 = "УсловиеОплаты3", [Document], Text, false;
    /// `ПлатежПоПредст`
    PaymentOnPresentation = "ПлатежПоПредст", [Document], Text, false;
    /// `ДополнУсловия`
    AdditionalConditions = "ДополнУсловия", [Document], Text, false;
    /// `НомерСчетаПоставщика`
    SupplierAccount = "НомерСчетаПоставщика", [Document], Text, false;
    /// `ДатаОтсылкиДок`
    DocumentsSentDate = "ДатаОтсылкиДок", [Document], Date, false;
}

impl Key {
    /// Whether the key belongs in `place`.
    #[inline]
    pub fn allowed_in(self, place: Place) -> bool {
        self.places() & place.bit() != 0
    }

    /// The key spelled exactly as `name`.
    pub fn from_name(name: &str) -> Option<Key> {
        // A name is its UTF-8 spelling: the exact table of UTF-8 files finds it.
        Key::lookup_exact(name.as_bytes(), Encoding::Utf8)
    }

    /// Looks up raw key bytes of a file in `encoding`: exact spelling first, then ignoring
    /// letter case (real files write `ПлательщикКорСчет`). The flag says whether the case differed.
    pub(crate) fn lookup(bytes: &[u8], encoding: Encoding) -> Option<(Key, bool)> {
        let tables = &TABLES[encoding as usize];
        if let Some(key) = tables.exact(bytes) {
            return Some((key, false));
        }
        let folded = encoding.decode(bytes).to_lowercase();
        tables.folded.get(&folded).map(|&key| (key, true))
    }

    /// The key's name as bytes of `encoding`, spelled as [`Key::name`] (keys are Cyrillic,
    /// so the bytes differ per encoding).
    pub fn bytes(self, encoding: Encoding) -> &'static [u8] {
        TABLES[encoding as usize].names[self as usize]
    }

    /// The key spelled exactly so in `encoding`, without the letter-case fallback.
    pub(crate) fn lookup_exact(bytes: &[u8], encoding: Encoding) -> Option<Key> {
        TABLES[encoding as usize].exact(bytes)
    }
}

/// Buckets of the exact-spelling table; a key's bucket comes from its length and a few of its
/// bytes, which tells the 77 keys apart well enough that a bucket holds one or two.
const BUCKETS: usize = 512;

fn bucket(bytes: &[u8]) -> usize {
    let len = bytes.len();
    if len == 0 {
        return 0;
    }
    let at = |i: usize| usize::from(bytes[i]);
    (len * 131
        + at(0) * 7
        + at(len / 3) * 13
        + at(len / 2) * 17
        + at(len - 1) * 31
        + at(len.saturating_sub(2)) * 37)
        % BUCKETS
}

struct Tables {
    /// Exact spellings by [`bucket`].
    exact: Vec<Vec<(&'static [u8], Key)>>,
    /// Lower-case names, for the rare key written in another letter case.
    folded: HashMap<String, Key>,
    names: Vec<&'static [u8]>,
}

static TABLES: LazyLock<[Tables; 3]> = LazyLock::new(|| Encoding::ALL.map(Tables::new));

impl Tables {
    fn new(encoding: Encoding) -> Tables {
        // Built once per encoding for the life of the process.
        let names: Vec<&'static [u8]> = Key::ALL
            .iter()
            .map(|key| &*encoding.encode_lossless(key.name()).leak())
            .collect();
        let mut exact = vec![Vec::new(); BUCKETS];
        for (&key, &bytes) in Key::ALL.iter().zip(&names) {
            exact[bucket(bytes)].push((bytes, key));
        }
        let folded = Key::ALL
            .iter()
            .map(|&key| (key.name().to_lowercase(), key))
            .collect();
        Tables {
            exact,
            folded,
            names,
        }
    }

    fn exact(&self, bytes: &[u8]) -> Option<Key> {
        self.exact[bucket(bytes)]
            .iter()
            .find(|(name, _)| *name == bytes)
            .map(|&(_, key)| key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        for &key in Key::ALL {
            assert_eq!(Key::from_name(key.name()), Some(key));
        }
        let mut names: Vec<_> = Key::ALL.iter().map(|k| k.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Key::ALL.len());
    }

    #[test]
    fn lookup_of_short_and_empty_keys() {
        for encoding in Encoding::ALL {
            for bytes in [&b""[..], b"a", b"\xff", b"ab"] {
                assert_eq!(Key::lookup(bytes, encoding), None);
            }
        }
    }

    #[test]
    fn lookup_in_every_encoding_and_ignoring_case() {
        for encoding in Encoding::ALL {
            let bytes = encoding.encode_lossless("ПлательщикКорсчет");
            assert_eq!(
                Key::lookup(&bytes, encoding),
                Some((Key::PayerCorrAccount, false))
            );
            let odd = encoding.encode_lossless("ПлательщикКорСчет");
            assert_eq!(
                Key::lookup(&odd, encoding),
                Some((Key::PayerCorrAccount, true))
            );
            assert_eq!(Key::lookup(b"Unknown", encoding), None);
        }
    }

    #[test]
    fn buckets_hold_few_keys() {
        for encoding in Encoding::ALL {
            let fullest = TABLES[encoding as usize].exact.iter().map(Vec::len).max();
            assert!(fullest <= Some(3), "{encoding}: {fullest:?}");
        }
    }

    #[test]
    fn from_name_finds_every_key_and_nothing_else() {
        for &key in Key::ALL {
            assert_eq!(Key::from_name(key.name()), Some(key));
            assert_eq!(Key::from_name(&key.name().to_lowercase()), None);
        }
        assert_eq!(Key::from_name(""), None);
        assert_eq!(Key::from_name("Unknown"), None);
    }

    #[test]
    fn places() {
        assert!(Key::Account.allowed_in(Place::Header));
        assert!(Key::Account.allowed_in(Place::Account));
        assert!(!Key::Account.allowed_in(Place::Document));
        assert!(Key::Recipient.allowed_in(Place::Document));
        assert!(!Key::OpeningBalance.allowed_in(Place::Document));
    }
}
