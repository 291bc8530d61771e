//! Errors of the configuration file that say what is wrong and where: the line, the key, never a secret value.

use super::*;

/// A configuration that is not text read here (Notepad of older Windows saves CP1251): where,
/// what it looks like ([`text::decode`]), and how to save it.
pub(super) fn not_utf8(path: &Path, not: text::NotText) -> Error {
    let text::NotText {
        line,
        column,
        looks,
    } = not;
    let looks = looks.said();
    Error::config(
        format!(
            "{}:{line}:{column}: the configuration is not UTF-8{looks}: save it as UTF-8 \
             (Notepad: \"Save as\", Encoding \"UTF-8\")",
            path.display()
        ),
        format!(
            "{}:{line}:{column}: файл настроек не в UTF-8{}: сохраните его в UTF-8 \
             (Блокнот: «Сохранить как», кодировка «UTF-8»)",
            path.display(),
            looks.ru()
        ),
    )
}

/// A TOML error as `FILE:LINE:COLUMN: message`, without the source line toml quotes (it may
/// hold the token); a value of a secret key the message still names is replaced by `****`.
pub(super) fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> Error {
    if let Some(error) = list_left_open(path, text, e).or_else(|| written_twice(path, text, e)) {
        return error;
    }
    let message = e.message().trim().replace('\n', "; ");
    let (en, ru) = match message.split_once(BOTH) {
        Some((en, ru)) => (en.to_string(), ru.to_string()),
        None => (message.clone(), in_russian(&message)),
    };
    let place = toml_place(text, e);
    let en = toml_message(text, e, en, false);
    let ru = toml_message(text, e, ru, true);
    let elsewhere = misplaced_key(text, e).unwrap_or_else(|| Message::same(""));
    Error::config(
        format!("{}{place}: {en}{elsewhere}", path.display()),
        format!("{}{place}: {ru}{}", path.display(), elsewhere.ru()),
    )
}

/// A list left open, said at the line it opens on ([`open_list`]), not at the later line where
/// toml noticed it (whose key toml's message would name).
fn list_left_open(path: &Path, text: &str, e: &toml::de::Error) -> Option<Error> {
    let said = e.message();
    if !said.contains("array") || said.contains("array table") {
        return None;
    }
    let at = e.span()?.start.min(text.len());
    let noticed = text.get(..at)?.matches('\n').count() + 1;
    let (line, column, key) = open_list::open_list(text, at)?;
    if line >= noticed {
        return None;
    }
    let path = path.display();
    Some(Error::config(
        format!(
            "{path}:{line}:{column}: {key}: the list opened here is not closed: put `]` after \
             its last element (toml noticed it at line {noticed})"
        ),
        format!(
            "{path}:{line}:{column}: {key}: список, открытый здесь, не закрыт: поставьте `]` \
             после его последнего элемента (TOML заметил это в строке {noticed})"
        ),
    ))
}

/// A key or a table written twice, named with the line it was first written on.
fn written_twice(path: &Path, text: &str, e: &toml::de::Error) -> Option<Error> {
    if !e.message().contains("duplicate key") {
        return None;
    }
    let at = e.span()?.start.min(text.len());
    let line = text.get(..at)?.matches('\n').count() + 1;
    let (name, first) = super::repeated::first_of(text, line)?;
    let path = path.display();
    Some(Error::config(
        format!(
            "{path}:{line}: {name} is written twice (first on line {first}): keep one, with \
             what both say"
        ),
        format!(
            "{path}:{line}: {name} повторяется (впервые — в строке {first}): оставьте одно \
             место и соберите в нём всё, что записано в обоих"
        ),
    ))
}

/// The names of the fields a struct read with serde has (`#[derive(Deserialize)]` names them
/// to its deserializer): the keys of a table of the file, as the types declare them.
fn fields_of<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    use serde::de::{Error as _, Visitor, value::Error as Said};
    struct Probe<'a>(&'a mut &'static [&'static str]);
    impl<'de> serde::Deserializer<'de> for Probe<'_> {
        type Error = Said;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Said> {
            Err(Said::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Said> {
            *self.0 = fields;
            Err(Said::custom("only its fields were wanted"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    // The probe always fails: it wants the names, not a value.
    let _ = T::deserialize(Probe(&mut fields));
    fields
}

/// The tables of the file (`""` the top level) and their keys.
fn tables() -> [(&'static str, &'static [&'static str]); 7] {
    [
        ("", fields_of::<FileConfig>()),
        ("statements", fields_of::<StatementsFile>()),
        ("app", fields_of::<AppConfig>()),
        ("webhook", fields_of::<WebhookFile>()),
        ("notify", fields_of::<NotifyFile>()),
        ("metrics", fields_of::<MetricsFile>()),
        // `[signer]` and `[signers."INN"]`: a table of `command` alone (values.rs).
        ("signer", &["command"]),
    ]
}

/// The name of the table a line opens (`[statements]`, `[[x]]`, `[signers."7701"]`), if it
/// opens one.
pub(super) fn table_header(line: &str) -> Option<&str> {
    let line = line.split('#').next().unwrap_or("").trim();
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let inner = inner
        .strip_prefix('[')
        .and_then(|i| i.strip_suffix(']'))
        .unwrap_or(inner)
        .trim();
    let name = |c: char| c.is_alphanumeric() || "_-.\"' ".contains(c);
    (!inner.is_empty() && inner.chars().all(name)).then_some(inner)
}

/// An unknown key that is a key of the top level or of another table, written inside a table
/// (a line appended at the end of a file whose last part is `[statements]`): where it landed
/// and where it goes, in both languages, to follow toml's "unknown field".
fn misplaced_key(text: &str, e: &toml::de::Error) -> Option<Message> {
    let rest = e.message().strip_prefix("unknown field `")?;
    let key = rest.split('`').next()?;
    let start = e.span()?.start.min(text.len());
    let before = text.get(..start)?;
    let line = before.matches('\n').count() + 1;
    // A key of an inline table (`webhook = { key = … }`) is not on a line of its own.
    let line_text = text.lines().nth(line - 1)?;
    if !line_text
        .trim_start()
        .trim_start_matches(['"', '\''])
        .starts_with(key)
    {
        return None;
    }
    let (opened, header) = text
        .lines()
        .take(line - 1)
        .enumerate()
        .filter_map(|(n, l)| table_header(l).map(|h| (n + 1, h)))
        .last()?;
    let inside = if header.starts_with("signers.") || header.starts_with("signers ") {
        "signer"
    } else {
        header
    };
    let tables = tables();
    let (home, _) = tables
        .iter()
        .find(|(name, keys)| *name != inside && keys.contains(&key))?;
    Some(if home.is_empty() {
        tr!(
            "; `{key}` is a top-level key, but here it is inside the table [{header}] opened on \
             line {opened}: top-level keys go before the first table (the first line in \
             [brackets])" ;
            "; `{key}` — ключ верхнего уровня, а здесь он внутри таблицы [{header}], открытой в \
             строке {opened}: ключи верхнего уровня пишутся до первой таблицы (до первой строки \
             в [квадратных скобках])"
        )
    } else {
        tr!(
            "; `{key}` is a key of the table [{home}], but here it is inside the table \
             [{header}] opened on line {opened}: move it under [{home}]" ;
            "; `{key}` — ключ таблицы [{home}], а здесь он внутри таблицы [{header}], открытой \
             в строке {opened}: перенесите его под [{home}]"
        )
    })
}

/// Between the English and the Russian of one message in a value's error (serde carries one
/// text): [`toml_error`] says each in its language.
pub(super) const BOTH: char = '\u{1f}';

/// A value's error in both languages, as serde carries it (see [`BOTH`]).
pub(super) fn both(en: impl std::fmt::Display, ru: impl std::fmt::Display) -> String {
    format!("{en}{BOTH}{ru}")
}

/// Refuses a value that holds a control character (a tab, a line break): no setting takes one,
/// and it comes from a Windows path in double quotes, where `\t` of `C:\temp\t.txt` is a tab
/// and the path is silently another. Said with the key, its line and single quotes.
pub(super) fn no_control_characters(path: &Path, text: &str) -> Result<(), Error> {
    fn first(table: &toml::Table, at: &str) -> Option<String> {
        table.iter().find_map(|(key, value)| {
            let key = if at.is_empty() {
                key.clone()
            } else {
                format!("{at}.{key}")
            };
            match value {
                toml::Value::String(s) if s.chars().any(char::is_control) => Some(key),
                toml::Value::Table(t) => first(t, &key),
                toml::Value::Array(items) => items.iter().find_map(|item| match item {
                    toml::Value::String(s) if s.chars().any(char::is_control) => Some(key.clone()),
                    toml::Value::Table(t) => first(t, &key),
                    _ => None,
                }),
                _ => None,
            }
        })
    }
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return Ok(());
    };
    let Some(key) = first(&table, "") else {
        return Ok(());
    };
    let last = key.rsplit('.').next().unwrap_or(&key);
    let line = text
        .lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix(last)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map_or_else(String::new, |n| format!(":{}", n + 1));
    let shown = path.display();
    Err(Error::config(
        format!(
            "{shown}{line}: {key}: the value holds a control character (a tab, a line break): \
             in double quotes a backslash starts an escape (`\\t` is a tab). A Windows path goes \
             in single quotes, where a backslash is a backslash: 'C:\\temp\\token.txt'"
        ),
        format!(
            "{shown}{line}: {key}: в значении управляющий символ (табуляция, перевод строки): в \
             двойных кавычках обратная косая черта начинает escape-последовательность (`\\t` — \
             табуляция). Путь Windows пишите в одинарных кавычках, где обратная косая черта — \
             просто символ: 'C:\\temp\\token.txt'"
        ),
    ))
}

/// The Russian of what toml and serde say of a file (their texts are English): the usual
/// ones translated, the key names and values kept; any other kept in English after a Russian
/// word of what it is.
pub fn in_russian(message: &str) -> String {
    let pair = |rest: &str, sep: &str| {
        rest.split_once(sep)
            .map(|(a, b)| (a.to_string(), b.to_string()))
    };
    if let Some(rest) = message.strip_prefix("unknown field ") {
        if let Some((field, keys)) = pair(rest, ", expected one of ") {
            return format!("неизвестный ключ {field}; допустимые ключи: {keys}");
        }
        if let Some((field, keys)) = pair(rest, ", expected ") {
            return format!("неизвестный ключ {field}; допустим {keys}");
        }
        let field = rest.split(',').next().unwrap_or(rest);
        return format!("неизвестный ключ {field}: здесь ключей нет");
    }
    if let Some(field) = message.strip_prefix("missing field ") {
        return format!("нет обязательного ключа {field}");
    }
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        if let Some((value, values)) = pair(rest, ", expected one of ") {
            return format!("недопустимое значение {value}; допустимые: {values}");
        }
        if let Some((value, values)) = pair(rest, ", expected ") {
            // serde says `a` or `a` or `b`.
            let values = values.replace("` or `", "` или `");
            return format!("недопустимое значение {value}; допустимо {values}");
        }
    }
    for (prefix, said) in [
        ("invalid type: ", "неверный тип значения"),
        ("invalid value: ", "неверное значение"),
    ] {
        if let Some(rest) = message.strip_prefix(prefix)
            && let Some((found, wanted)) = pair(rest, ", expected ")
        {
            let (found, wanted) = (serde_words(&found), serde_words(&wanted));
            return format!("{said}: {found}; ожидается {wanted}");
        }
    }
    if message.starts_with("duplicate key") {
        return "ключ повторяется: каждый ключ пишется один раз".to_string();
    }
    // Values TOML read but our types refuse (a number too big, an address that is none).
    for (en, ru) in [
        ("floating-point number overflowed", "число слишком велико"),
        ("integer number overflowed", "число слишком велико"),
        (
            "wanted string or table",
            "ожидается строка в кавычках или таблица",
        ),
        ("expected empty array", "ожидается пустой список []"),
        ("expected empty table", "ожидается пустая таблица"),
        (
            "invalid socket address syntax",
            "не адрес с портом (например \"127.0.0.1:9100\")",
        ),
        ("invalid IP address syntax", "не IP-адрес"),
        (
            "number too large to fit in target type",
            "число слишком велико",
        ),
        (
            "number too small to fit in target type",
            "число слишком мало",
        ),
    ] {
        if message.starts_with(en) {
            return ru.to_string();
        }
    }
    match toml_syntax_in_russian(message) {
        Some(said) => format!("ошибка в записи TOML: {said}"),
        None => format!("ошибка в записи TOML: {message}"),
    }
}

/// Every message of toml's parser (toml_parser 1.1) and toml_datetime, in Russian.
const TOML_WRONG: &[(&str, &str)] = &[
    (
        "string values must be quoted",
        "текст значения нужно взять в кавычки",
    ),
    ("key with no value", "у ключа нет значения"),
    ("unquoted keys cannot be empty", "ключ не может быть пустым"),
    (
        "too few unicode value digits",
        "после \\u или \\U мало шестнадцатеричных цифр",
    ),
    (
        "missing escaped value",
        "после обратной косой черты нет знака",
    ),
    ("missing opening quote", "нет открывающей кавычки"),
    (
        "missing comma between array elements",
        "между элементами списка нет запятой",
    ),
    (
        "missing comma between key-value pairs",
        "между парами ключ = значение нет запятой",
    ),
    (
        "missing assignment between key-value pairs",
        "между ключом и значением нет =",
    ),
    ("missing value for key", "у ключа нет значения"),
    ("missing value", "нет значения"),
    (
        "missing key for inline table element",
        "у элемента встроенной таблицы нет ключа",
    ),
    ("missing table open", "нет открывающей ["),
    ("missing array opening", "нет открывающей ["),
    ("missing inline table opening", "нет открывающей {"),
    ("missing comment start", "нет # в начале комментария"),
    ("extra assignment between key-value pairs", "лишний знак ="),
    ("extra `=`", "лишний знак ="),
    ("unexpected `=` in array", "знак = внутри списка"),
    ("extra comma in array", "лишняя запятая в списке"),
    (
        "extra comma in inline table",
        "лишняя запятая во встроенной таблице",
    ),
    ("unclosed table", "таблица не закрыта"),
    ("unclosed array table", "таблица не закрыта"),
    ("unclosed array", "список не закрыт"),
    ("unclosed inline table", "встроенная таблица не закрыта"),
    ("invalid basic string", "неверная строка в двойных кавычках"),
    (
        "invalid literal string",
        "неверная строка в одинарных кавычках",
    ),
    (
        "invalid multi-line basic string",
        "неверная многострочная строка",
    ),
    (
        "invalid multi-line literal string",
        "неверная многострочная строка",
    ),
    ("invalid string", "неверная строка"),
    ("invalid key", "неверный ключ"),
    ("invalid unquoted key", "неверный ключ без кавычек"),
    ("invalid key-value pair", "неверная пара ключ = значение"),
    ("invalid value", "неверное значение"),
    ("invalid table", "неверная таблица"),
    (
        "invalid inline table element",
        "неверный элемент встроенной таблицы",
    ),
    (
        "invalid comment character",
        "недопустимый знак в комментарии",
    ),
    ("invalid integer number", "неверное целое число"),
    (
        "invalid hexadecimal number",
        "неверное шестнадцатеричное число",
    ),
    ("invalid octal number", "неверное восьмеричное число"),
    ("invalid binary number", "неверное двоичное число"),
    ("invalid float", "неверное дробное число"),
    ("invalid fraction", "неверная дробная часть числа"),
    ("invalid exponent", "неверный порядок числа"),
    ("invalid mantissa", "неверная мантисса числа"),
    (
        "invalid boolean",
        "неверное логическое значение (true или false)",
    ),
    ("invalid date-time", "неверные дата и время"),
    ("invalid datetime", "неверные дата и время"),
    ("invalid date", "неверная дата"),
    ("invalid time", "неверное время"),
    ("invalid offset", "неверный часовой пояс"),
    ("unexpected leading zero", "лишний ноль в начале числа"),
    ("unexpected sign", "лишний знак + или -"),
    ("redundant numeric sign", "лишний знак + или -"),
    (
        "integers with a radix cannot be signed",
        "у числа с основанием (0x, 0o, 0b) не бывает знака",
    ),
    (
        "radix must be lowercase",
        "основание числа пишется строчной буквой",
    ),
    ("redundant integer number prefix", "лишнее основание числа"),
    (
        "`_` may only go between digits",
        "`_` ставится только между цифрами",
    ),
    (
        "unexpected key or value",
        "лишний ключ или значение (каждая пара ключ = значение — на своей строке)",
    ),
    (
        "unexpected content between comment and newline",
        "лишний текст после комментария",
    ),
    ("unexpected content", "лишний текст"),
    (
        "carriage return must be followed by newline",
        "после возврата каретки нет перевода строки",
    ),
    (
        "keys cannot be multi-line literal strings",
        "ключ не может быть многострочной строкой",
    ),
    (
        "keys cannot be multi-line basic strings",
        "ключ не может быть многострочной строкой",
    ),
    (
        "cannot recurse further; max recursion depth met",
        "слишком глубокая вложенность",
    ),
    (
        "could not allocate for string",
        "не хватило памяти для строки",
    ),
];
/// toml's words for what it expected, in Russian.
const TOML_WORDS: &[(&str, &str)] = &[
    ("literal string", "строка"),
    ("basic string", "строка"),
    ("multi-line basic string", "многострочная строка"),
    ("unquoted string", "строка"),
    ("unicode hexadecimal value", "шестнадцатеричные цифры"),
    ("letters", "буквы"),
    ("numbers", "цифры"),
    ("digits", "цифры"),
    ("newline", "перевод строки"),
    ("key", "ключ"),
    ("value", "значение"),
    ("comment", "комментарий"),
    ("characters", "знаки"),
    ("printable characters", "печатные знаки"),
    (
        "non-single-quote visible characters",
        "видимые знаки, кроме '",
    ),
    ("non-single-quote characters", "знаки, кроме '"),
    (
        "non-double-quote visible characters",
        "видимые знаки, кроме \"",
    ),
    // toml_datetime's.
    ("a four-digit year (YYYY)", "год из четырёх цифр (ГГГГ)"),
    ("a two-digit month (MM)", "месяц из двух цифр (ММ)"),
    ("a two-digit day (DD)", "день из двух цифр (ДД)"),
    ("a two-digit hour (HH)", "час из двух цифр (ЧЧ)"),
    ("a two-digit minute (MM)", "минуты из двух цифр (ММ)"),
    ("a two-digit second (SS)", "секунды из двух цифр (СС)"),
    ("`T` between date and time", "`T` между датой и временем"),
    ("+OFFSET", "+ЧЧ:ММ"),
    ("-OFFSET", "-ЧЧ:ММ"),
    ("`-` (MM-DD)", "`-` (ММ-ДД)"),
    (
        "`-` (YYYY-MM) or `:` (HH:MM)",
        "`-` (ГГГГ-ММ) или `:` (ЧЧ:ММ)",
    ),
    ("`:` (HH:MM)", "`:` (ЧЧ:ММ)"),
    ("hour between 00 and 23", "час от 00 до 23"),
    ("hours between 00 and 23", "часы от 00 до 23"),
    ("minute between 00 and 59", "минуты от 00 до 59"),
    ("minutes between 00 and 59", "минуты от 00 до 59"),
    ("month between 01 and 12", "месяц от 01 до 12"),
    ("second between 00 and 60", "секунды от 00 до 60"),
    ("year or hour", "год или час"),
];

/// The Russian of toml's syntax errors (`what is wrong, expected what`); `None` for one this
/// table does not know.
fn toml_syntax_in_russian(message: &str) -> Option<String> {
    let (head, expected) = match message.split_once(", expected ") {
        Some((head, expected)) => (head, Some(expected)),
        None => (message, None),
    };
    let (_, head) = TOML_WRONG.iter().find(|(en, _)| *en == head)?;
    // toml says "expected nothing" where it expects no more.
    let Some(expected) = expected.filter(|e| *e != "nothing") else {
        return Some(head.to_string());
    };
    let expected: Vec<&str> = expected
        .split(", ")
        .map(|word| match TOML_WORDS.iter().find(|(en, _)| *en == word) {
            Some((_, ru)) => ru,
            None => word,
        })
        .collect();
    Some(format!("{head}; ожидается {}", expected.join(", ")))
}

/// serde's words for what a value is, in Russian (what it quotes kept).
fn serde_words(text: &str) -> String {
    const WORDS: [(&str, &str); 17] = [
        (
            "a signer command: a list of strings, or",
            "команда подписи: список строк или",
        ),
        (
            "a duration (seconds, or text such as",
            "длительность (секунды или текст, например",
        ),
        ("a boolean", "true или false"),
        ("boolean", "логическое значение"),
        ("a string", "строка в кавычках"),
        ("string", "строка"),
        ("a sequence", "список [ … ]"),
        ("sequence", "список"),
        ("a map", "таблица"),
        ("map", "таблица"),
        ("an integer", "целое число"),
        ("integer", "целое число"),
        ("floating point", "дробное число"),
        ("a character", "один символ"),
        ("unit value", "пустое значение"),
        ("an argv list", "список аргументов"),
        ("u32", "целое число"),
    ];
    let mut said = text.to_string();
    for (en, ru) in WORDS {
        if let Some(rest) = said.strip_prefix(en) {
            said = format!("{ru}{rest}");
            break;
        }
    }
    said
}

/// `:LINE:COLUMN` of a TOML error, when it has a place.
fn toml_place(text: &str, e: &toml::de::Error) -> String {
    e.span().map_or_else(String::new, |span| {
        let before = text.get(..span.start.min(text.len())).unwrap_or(text);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        format!(":{line}:{column}")
    })
}

/// A TOML error's message, without the source line toml quotes (it may hold the token): the key
/// of a refused value named, a secret's value replaced by `****`, a hint for a Windows path.
fn toml_message(text: &str, e: &toml::de::Error, mut message: String, ru: bool) -> String {
    if let Some(span) = e.span() {
        let start = span.start.min(text.len());
        let before = text.get(..start).unwrap_or(text);
        let line = before.matches('\n').count() + 1;
        let line_text = text.lines().nth(line - 1).unwrap_or("");
        // A value refused: the message names its key (as the line has it).
        if let Some((key, _)) = line_text.split_once('=') {
            let key = key.trim();
            if !key.is_empty() && !key.starts_with('[') && !message.contains(key) {
                message = format!("{key}: {message}");
            }
        }
        if let Some((key, value)) = line_text.split_once('=')
            && secret_key(key)
        {
            // Whatever the message quotes of a secret's value goes; key names stay.
            let value = value.trim();
            message = mask_quoted(&message, |part| {
                part.chars().filter(|c| c.is_alphanumeric()).count() >= 3 && value.contains(part)
            });
        }
        // A Windows path in a basic string: `\О` is no escape. Decided on toml's own words,
        // never on the translation of them (which has none of them).
        if e.message().contains("escape")
            && line_text
                .split_once('=')
                .is_some_and(|(_, v)| v.contains('"') && v.contains('\\'))
        {
            message.push_str(if ru {
                "; путь Windows пишите в одинарных кавычках, где обратная косая черта — просто \
                 символ: 'C:\\Обмен\\token.txt'"
            } else {
                "; a Windows path goes in single quotes, where a backslash is a backslash: \
                 'C:\\Обмен\\token.txt'"
            });
        }
    }
    let mut secrets = Vec::new();
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if !secret_key(key) {
            continue;
        }
        let value = value.trim();
        let bare = value.trim_matches(|c: char| "\"'[] ,".contains(c));
        secrets.extend([value, bare]);
        secrets.extend(bare.split(|c: char| "\"', []".contains(c)));
    }
    secrets.retain(|secret| secret.len() >= 4);
    // Longest first: a secret's part never leaves the rest of it behind.
    secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
    let keys = named_keys(&message);
    let mut shown = String::new();
    for (n, part) in message.split('`').enumerate() {
        if n > 0 {
            shown.push('`');
        }
        if n % 2 == 1 && keys.contains(&part) {
            // A key name (the misspelt one, or one of those there are): never masked.
            shown.push_str(part);
            continue;
        }
        let mut part = part.to_string();
        for secret in &secrets {
            part = part.replace(secret, "****");
        }
        shown.push_str(&part);
    }
    shown
}

/// The key names a message quotes (toml and serde quote them in backticks): the field it does
/// not know, and the ones there are ("expected one of `a`, `b`").
fn named_keys(message: &str) -> Vec<&str> {
    let mut keys = Vec::new();
    for marker in [
        "unknown field ",
        "expected one of ",
        "expected ",
        "missing field ",
        "неизвестный ключ ",
        "допустим",
        "нет обязательного ключа ",
    ] {
        if let Some((_, rest)) = message.split_once(marker) {
            keys.extend(
                rest.split('`')
                    .skip(1)
                    .step_by(2)
                    .filter(|w| is_key_name(w)),
            );
        }
    }
    keys
}

/// A configuration key's name: lower-case letters, digits and `_`.
fn is_key_name(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The message with each backticked part that `secret` says is of a secret's value masked;
/// a key name it quotes is never masked.
fn mask_quoted(message: &str, secret: impl Fn(&str) -> bool) -> String {
    let keys = named_keys(message);
    message
        .split('`')
        .enumerate()
        .map(|(n, part)| {
            if n % 2 == 1 && !keys.contains(&part) && secret(part) {
                "****"
            } else {
                part
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// The configuration `path` could not be read: why, in both languages, and what to do.
pub(super) fn cannot_read_config(path: &Path, e: &std::io::Error) -> Error {
    let (shown, e_ru) = (path.display(), clientbank_diagnostic::os::Ru(e));
    let hint = match e.kind() {
        std::io::ErrorKind::NotFound => Message::new(
            " (`clientbank init DIR` writes one)",
            " (его создаёт `clientbank init ПАПКА`)",
        ),
        _ => no_access_hint(path, e),
    };
    Error::Config(tr!(
        "cannot read the configuration {shown}: {e}{hint}" ;
        "не удалось прочитать файл настроек {shown}: {e_ru}{}", hint.ru()
    ))
}

/// An error that says the file is not there (nor its folder): not one of access.
pub(super) fn is_absent(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// What to do about a file this user may not read (it, or a folder on its way, is another
/// user's): give the user the program runs as read access. Empty for any other error.
pub(super) fn no_access_hint(path: &Path, e: &std::io::Error) -> Message {
    if e.kind() != std::io::ErrorKind::PermissionDenied {
        return Message::same("");
    }
    let shown = path.display();
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new(".")).display();
    tr!(
        ": the user this program runs as (the service's user) may not read it or its folder: \
         give that user read access to the folder {dir} and to {shown}, or run the program as \
         a user who has it" ;
        ": пользователю, от имени которого работает программа (пользователю службы), нельзя \
         читать этот файл или его папку: дайте ему право на чтение папки {dir} и файла {shown} \
         или запускайте программу от имени пользователя, у которого это право есть"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_words_are_said_in_russian_to_the_last() {
        // toml's own words for a value of the wrong shape (`signing = true`).
        assert_eq!(
            in_russian("wanted string or table"),
            "ожидается строка в кавычках или таблица"
        );
        assert_eq!(
            in_russian("unknown variant `off`, expected `manual` or `auto`"),
            "недопустимое значение `off`; допустимо `manual` или `auto`"
        );
        assert_eq!(
            in_russian("missing field `addr`"),
            "нет обязательного ключа `addr`"
        );
        assert_eq!(
            in_russian("string values must be quoted, expected literal string"),
            "ошибка в записи TOML: текст значения нужно взять в кавычки; ожидается строка"
        );
        assert_eq!(
            in_russian("duplicate key"),
            "ключ повторяется: каждый ключ пишется один раз"
        );
        assert_eq!(
            in_russian("invalid socket address syntax"),
            "не адрес с портом (например \"127.0.0.1:9100\")"
        );
        assert_eq!(
            in_russian("floating-point number overflowed"),
            "число слишком велико"
        );
        assert_eq!(
            in_russian("unquoted keys cannot be empty, expected letters, numbers, `-`, `_`"),
            "ошибка в записи TOML: ключ не может быть пустым; ожидается буквы, цифры, `-`, `_`"
        );
        assert_eq!(
            in_russian("invalid type: boolean `true`, expected a string"),
            "неверный тип значения: логическое значение `true`; ожидается строка в кавычках"
        );
    }

    /// Each kind of broken TOML, as toml's parser says it, comes out in Russian words: no
    /// English word is left outside the quoted key, value or sign.
    #[test]
    fn every_toml_syntax_error_is_said_in_russian() {
        for text in [
            "a = \"x",
            "a = x",
            "a = [1, 2",
            "a = [1 2]",
            "a = [1,,2]",
            "a = { b = 1",
            "a = { b = 1,, c = 2 }",
            "a = { b = 1 c = 2 }",
            "a = { = 1 }",
            "a = 0x1G",
            "a = 0o9",
            "a = 0b2",
            "a = +0x1",
            "a = 0X1",
            "a = 01",
            "a = 1__0",
            "a = 1.5.3",
            "a = 1e",
            "a = tru",
            "a = 1979-05-27T07:3",
            "a = 1979-05-27T25:00:00",
            "a = 1979-13-27",
            "a = 1979-05-27T07:32:00+2",
            "a = 1979-05",
            "a = \"x\" extra",
            "a = 1 # c\u{1}",
            "a = \"\\q\"",
            "a = \"\\u12\"",
            "[a",
            "[[a",
            "a",
            "a =",
            "= 1",
            "a == 1",
            "\"\"\"a\"\"\" = 1",
            "a = 1\rb = 2",
            "a = [1 = 2]",
            "a.\n= 1",
        ] {
            let Err(e) = toml::from_str::<toml::Table>(text) else {
                panic!("{text:?} was read");
            };
            let said = in_russian(e.message());
            // What stays English is in quotes: keys, values, signs.
            let unquoted: String = said.split('`').step_by(2).collect::<Vec<_>>().join(" ");
            let english = unquoted
                .split(|c: char| !c.is_ascii_alphabetic())
                .find(|w| w.len() > 2 && !["TOML", "true", "false"].contains(w));
            assert!(english.is_none(), "{text:?}: {} -> {said}", e.message());
        }
    }
}
