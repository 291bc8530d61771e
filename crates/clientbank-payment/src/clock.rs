//! Moscow time, the bank's: the one clock of the workspace.
//!
//! The bank dates payment orders and writes every time in Moscow time, which has been UTC+3
//! all year round since 26.10.2014 (no daylight saving). The command line, the payment rules,
//! the API client's date-times and the sandbox bank all read the day and the time here.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, Utc};

/// Moscow's offset from UTC, in seconds (UTC+3).
pub const MOSCOW_OFFSET_SECONDS: i32 = 3 * 3600;

/// Moscow's offset from UTC.
pub const MOSCOW: FixedOffset = match FixedOffset::east_opt(MOSCOW_OFFSET_SECONDS) {
    Some(offset) => offset,
    // Evaluated when compiling: 3 hours is a valid offset.
    None => panic!("UTC+3 is a valid offset"),
};

/// Moscow's offset from UTC ([`MOSCOW`]).
pub fn moscow() -> FixedOffset {
    MOSCOW
}

/// A moment in UTC as the bank writes it: the wall-clock time in Moscow.
pub fn in_moscow(at: DateTime<Utc>) -> NaiveDateTime {
    at.with_timezone(&moscow()).naive_local()
}

/// Now, in Moscow.
pub fn now_in_moscow() -> NaiveDateTime {
    in_moscow(Utc::now())
}

/// Today in Moscow: the bank's day, which the date rules count from.
pub fn today_in_moscow() -> NaiveDate {
    now_in_moscow().date()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moscow_is_three_hours_ahead_of_utc() {
        let at = DateTime::parse_from_rfc3339("2026-11-20T21:30:00Z")
            .unwrap()
            .with_timezone(&Utc);
        // 21:30 UTC is already the next day in Moscow.
        assert_eq!(in_moscow(at).to_string(), "2026-11-21 00:30:00");
        assert_eq!(moscow().local_minus_utc(), 10_800);
        let today = today_in_moscow();
        let utc_today = Utc::now().date_naive();
        assert!(today == utc_today || today == utc_today.succ_opt().unwrap());
    }
}
