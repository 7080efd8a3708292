//! Dates as git's `--since` and `--until` read them.
//!
//! git reads a date in the local time zone unless it names another, and a date that names no
//! time of day (`2024-01-31`, `Jan 5 2024`, `5.1.2024`) as that day at the current time, filling
//! what a date leaves out (the year, the day) from today: `git log --since 2024-01-31` run at
//! 15:00 starts at 2024-01-31 15:00, not at midnight. gix reads such a date as midnight, a time
//! without a zone (`2024-01-31 12:00`) in UTC, months ago by the zone's rules rather than
//! today's offset, and some forms leniently (`3 days ago 12:00` as `3 days ago`), each of
//! which would answer other commits than git. So dates without a zone and relative dates are
//! read here, the way git's `approxidate` reads them, and gix reads only what it reads as git
//! does (a time with its zone, RFC 2822, `now`, a Unix time). Forms neither reads (`last
//! monday`, `noon yesterday`) are refused by the caller, never read as another date.

use gix::date::Zoned;

/// A date as git's `--since`/`--until` read it (`2024-01-31`, `Jan 5 2024`, `2024-01-31
/// 12:00`, `3 weeks ago`, a Unix time `@1700000000`, ...), in seconds since the epoch.
pub fn parse_date(input: &str) -> Option<i64> {
    parse_date_at(input, &Zoned::now())
}

/// What to say of a `flag` whose `value` [`parse_date`] does not read.
pub fn unread_date(flag: &str, value: &str) -> String {
    format!(
        "{flag} `{value}` is not a date this reads: give a day (`2024-01-31`, `Jan 31 2024`), a day and a \
         time (`2024-01-31 12:00`, with or without its zone), a relative date (`3 weeks ago`, \
         `yesterday`) or a Unix time (`@1700000000`); git's weekday and time-of-day words (`last \
         monday`, `noon`) are not read"
    )
}

/// [`parse_date`] with `now` for today.
pub fn parse_date_at(input: &str, now: &Zoned) -> Option<i64> {
    if let Some(ago) = relative(input, now) {
        return Some(ago);
    }
    match local_date(input, now) {
        Some(day) => day,
        // gix is lenient (`3 days ago 12:00` is read as `3 days ago`): it reads only the forms
        // it reads as git does.
        None if gix_reads_as_git(input) => gix::date::parse(input, Some(now.clone())).ok().map(|t| t.seconds),
        None => None,
    }
}

/// A Unix time (`@1700000000`, `1700000000`), `now`, or a date and time with its offset from
/// UTC (ISO 8601, RFC 2822, git's own `1700000000 +0100`).
fn gix_reads_as_git(input: &str) -> bool {
    let input = input.trim();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if digits(input.strip_prefix('@').unwrap_or(input))
        || input.eq_ignore_ascii_case("now")
        || input.eq_ignore_ascii_case("today")
    {
        return true;
    }
    let zone = |s: &str| {
        let Some(rest) = s.strip_prefix(['+', '-']) else { return false };
        let rest = rest.replacen(':', "", 1);
        rest.len() == 4 && digits(&rest)
    };
    let last = input.rsplit([' ', 'T']).next().unwrap_or_default();
    // `+01:00` or `-0530` glued to the time (`12:00:00+01:00`).
    let glued = [5, 6].iter().any(|n| input.len().checked_sub(*n).and_then(|at| input.get(at..)).is_some_and(zone));
    let utc = last.len() > 1 && last.ends_with('Z') && input.contains(':');
    utc || zone(last) || glued
}

/// `3 weeks ago`, `2.days`, `1 year 2 months ago`, `yesterday`, as git's `approxidate` reads
/// them: seconds, minutes, hours, days and weeks taken from now exactly; months and years
/// from today's date, at its time of day and today's offset from UTC.
fn relative(input: &str, now: &Zoned) -> Option<i64> {
    let tokens: Vec<String> = input
        .split(|c: char| c.is_ascii_whitespace() || c == '.')
        .filter(|t| !t.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    if tokens.as_slice() == ["yesterday"] {
        return Some(now.timestamp().as_second() - 86_400);
    }
    let tokens = tokens.strip_suffix(&["ago".to_owned()]).unwrap_or(&tokens);
    if tokens.is_empty() || !tokens.len().is_multiple_of(2) {
        return None;
    }
    const WORDS: [&str; 11] = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
    let (mut seconds, mut months) = (0i64, 0i64);
    for pair in tokens.chunks(2) {
        let word = pair[0].as_str();
        let n: i64 = match WORDS.iter().position(|w| *w == word) {
            _ if word == "last" => 1,
            Some(n) => n as i64,
            None => word.parse().ok().filter(|_| word.bytes().all(|b| b.is_ascii_digit()))?,
        };
        let unit = pair[1].strip_suffix('s').unwrap_or(&pair[1]);
        match unit {
            "second" => seconds += n,
            "minute" => seconds += n * 60,
            "hour" => seconds += n * 3600,
            "day" => seconds += n * 86_400,
            "week" => seconds += n * 7 * 86_400,
            "month" => months += n,
            "year" => months += n * 12,
            _ => return None,
        }
    }
    if months == 0 {
        return Some(now.timestamp().as_second() - seconds);
    }
    // Months back on the calendar from today, its time of day kept (a day past the month's end
    // runs into the next, as `mktime` has it).
    let month_index = i64::from(now.year()) * 12 + i64::from(now.month()) - 1 - months;
    let (year, month) = (month_index.div_euclid(12), month_index.rem_euclid(12) + 1);
    let time = (now.hour(), now.minute(), now.second());
    Some(civil_seconds(year, month, i64::from(now.day()), time, now) - seconds)
}

/// The English months, which git matches by any prefix of three letters or more.
const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// A date in the local time zone, with or without a time of day: `Some(answer)` when `input`
/// is one (`Some(None)`: one that names no day, as `2024-02-31`), `None` when it is another
/// form.
fn local_date(input: &str, now: &Zoned) -> Option<Option<i64>> {
    // ISO 8601's `T` between the day and the time.
    let spaced: String = input
        .char_indices()
        .map(|(at, c)| {
            let digit = |i: Option<char>| i.is_some_and(|c| c.is_ascii_digit());
            let between = at > 0 && digit(input[..at].chars().last()) && digit(input[at + 1..].chars().next());
            if c == 'T' && between { ' ' } else { c }
        })
        .collect();
    let tokens: Vec<&str> =
        spaced.split(|c: char| c.is_ascii_whitespace() || c == ',').filter(|t| !t.is_empty()).collect();
    if tokens.is_empty() {
        return None;
    }
    let (mut year, mut month, mut day): (Option<i32>, Option<i32>, Option<i32>) = (None, None, None);
    let mut time: Option<(i8, i8, i8)> = None;
    let mut pending: Vec<i32> = Vec::new();
    for token in &tokens {
        if let Some(hms) = time_of_day(token) {
            if time.is_some() {
                return None;
            }
            time = Some(hms);
        } else if let Some((y, m, d)) = numeric_date(token, now) {
            if year.is_some() || month.is_some() || day.is_some() {
                return None;
            }
            (year, month, day) = (Some(y), Some(m), Some(d));
        } else if token.bytes().all(|b| b.is_ascii_digit()) {
            // A four-digit Unix time or longer is gix's (`1700000000`).
            if token.len() > 4 {
                return None;
            }
            pending.push(token.parse().ok()?);
        } else if token.len() >= 3 && token.bytes().all(|b| b.is_ascii_alphabetic()) {
            let lower = token.to_ascii_lowercase();
            let at = MONTHS.iter().position(|m| m.starts_with(&lower))?;
            if month.is_some() {
                return None;
            }
            month = Some(at as i32 + 1);
        } else {
            return None;
        }
    }
    // git's pending numbers: a day first, then a month, then a year.
    for number in pending {
        if day.is_none() && (1..32).contains(&number) {
            day = Some(number);
        } else if month.is_none() && (1..13).contains(&number) {
            month = Some(number);
        } else if year.is_none() {
            year = Some(full_year(number)?);
        } else {
            // A number left over (`2024-01-05 12`): git reads some such, never as gix would.
            return Some(None);
        }
    }
    if year.is_none() && month.is_none() && day.is_none() {
        return None;
    }
    let month_or_now = month.unwrap_or(i32::from(now.month()));
    // Without a year, a month after this one is last year's.
    let year = year.unwrap_or(i32::from(now.year()) - i32::from(month_or_now > i32::from(now.month())));
    let day = day.unwrap_or(i32::from(now.day()));
    let Some((hour, minute, second)) = time else {
        return Some(at_time_of_now(year, month_or_now, day, now));
    };
    // A day with its time is read as git's strict parser reads it: by the local time zone's
    // rules on that day.
    if !is_day(year, month_or_now, day) {
        return Some(None);
    }
    let at = now.with().year(year as i16).month(month_or_now as i8).day(day as i8);
    Some(
        at.hour(hour)
            .minute(minute)
            .second(second)
            .subsec_nanosecond(0)
            .build()
            .ok()
            .map(|z| z.timestamp().as_second()),
    )
}

/// `HH:MM` or `HH:MM:SS`, as git reads a time (the seconds 0 when not given).
fn time_of_day(token: &str) -> Option<(i8, i8, i8)> {
    let parts: Vec<&str> = token.split(':').collect();
    if !(2..=3).contains(&parts.len())
        || parts.iter().any(|p| p.is_empty() || p.len() > 2 || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let n: Vec<i8> = parts.iter().map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let (hour, minute, second) = (n[0], n[1], n.get(2).copied().unwrap_or(0));
    (hour < 24 && minute < 60 && second < 60).then_some((hour, minute, second))
}

/// `A-B-C`, `A/B/C` or `A.B.C` as git's `match_multi_number` reads it: year first when `A` is
/// one, else month first (day first with dots), the other way round when that names no day or
/// a day more than ten days ahead.
fn numeric_date(token: &str, now: &Zoned) -> Option<(i32, i32, i32)> {
    let sep = token.chars().find(|c| matches!(c, '-' | '/' | '.'))?;
    let parts: Vec<&str> = token.split(sep).collect();
    if parts.len() != 3 || parts.iter().any(|p| p.is_empty() || p.len() > 4 || !p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let n: Vec<i32> = parts.iter().map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let valid = |year: i32, month: i32, day: i32, refuse_future: bool| -> Option<(i32, i32, i32)> {
        if !(1..13).contains(&month) || !(1..32).contains(&day) {
            return None;
        }
        let year = full_year(year)?;
        if refuse_future {
            let at = at_time_of_now(year, month, day, now)?;
            if at > now.timestamp().as_second() + 10 * 24 * 3600 {
                return None;
            }
        }
        Some((year, month, day))
    };
    if n[0] > 70
        && let Some(date) = valid(n[0], n[1], n[2], false).or_else(|| valid(n[0], n[2], n[1], false))
    {
        return Some(date);
    }
    let month_first = || valid(n[2], n[0], n[1], true);
    let day_first = || valid(n[2], n[1], n[0], true);
    if sep == '.' { day_first().or_else(month_first) } else { month_first().or_else(day_first) }
}

/// A year as git reads a number: 1970-2099 as it is, 70-99 in the 1900s, below 38 in the 2000s.
fn full_year(number: i32) -> Option<i32> {
    match number {
        1970..2100 => Some(number),
        70..100 => Some(1900 + number),
        0..38 => Some(2000 + number),
        _ => None,
    }
}

/// That day at `now`'s time of day, in seconds since the epoch.
fn at_time_of_now(year: i32, month: i32, day: i32, now: &Zoned) -> Option<i64> {
    local_seconds(year, month, day, (now.hour(), now.minute(), now.second()), now)
}

/// A day and a time of day in seconds since the epoch, read as git's `approxidate` reads a day
/// without a time: at the offset from UTC that the local time zone has now (its `mktime`
/// keeps today's daylight saving state, so in winter a summer day's time is read in winter
/// time). `None` when the month has no such day.
fn local_seconds(year: i32, month: i32, day: i32, time: (i8, i8, i8), now: &Zoned) -> Option<i64> {
    is_day(year, month, day).then(|| civil_seconds(i64::from(year), i64::from(month), i64::from(day), time, now))
}

/// Whether the month has that day.
fn is_day(year: i32, month: i32, day: i32) -> bool {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    (1..=12).contains(&month) && day >= 1 && day <= days_in_month[(month - 1) as usize]
}

/// A day (of the proleptic Gregorian calendar; a day past its month's end runs into the next
/// month) and a time of day at `now`'s offset from UTC, in seconds since the epoch.
fn civil_seconds(year: i64, month: i64, day: i64, (hour, minute, second): (i8, i8, i8), now: &Zoned) -> i64 {
    // Days since 1970-01-01, by eras of 400 years counted from March (so that a leap day ends
    // its year).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    let seconds = days * 86_400 + i64::from(hour) * 3600 + i64::from(minute) * 60 + i64::from(second);
    seconds - i64::from(now.offset().seconds())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `git rev-parse --since=DATE` reads `date` as, in seconds since the epoch.
    fn git_reads(date: &str) -> Option<i64> {
        let out = std::process::Command::new("git").args(["rev-parse", &format!("--since={date}")]).output().ok()?;
        String::from_utf8_lossy(&out.stdout).trim().strip_prefix("--max-age=")?.parse().ok()
    }

    #[test]
    fn dates_are_read_as_git_reads_them() {
        let forms = [
            "2024-01-05",
            "2024/01/05",
            "2024.01.05",
            "01/05/2024",
            "01-05-2024",
            "5.1.2024",
            "13/01/2024",
            "13.01.24",
            "Jan 5 2024",
            "5 Jan 2024",
            "January 5, 2024",
            "sept 30 2023",
            "Jan 2024",
            "2024",
            "december",
            "Mar 3",
            "2024-01-05 12:00",
            "2024-01-05T12:00:00",
            "2024-01-05 23:59:59",
            "Jan 5 2024 08:15",
            "2024-07-01 03:30",
            "2024-01-05 12:00:00 +0200",
            "Fri, 5 Jan 2024 12:00:00 +0000",
            "3 weeks ago",
            "2.weeks",
            "1 year 2 months ago",
            "yesterday",
            "last week",
            "last month",
            "one week ago",
            "ten days",
            "now",
            "2024-01-05T12:00:00Z",
            "2024-01-05T12:00:00+01:00",
            "2024-01-05 12:00:00Z",
            "Thu Jan 4 12:00:00 2024 +0100",
            "2024-01-05T12:00:00-0530",
            "10 minutes ago",
            "36 hours ago",
            "5 months ago",
            "8.months.ago",
            "1 month 2 days ago",
            "@1704414583",
            "1704414583",
        ];
        for form in forms {
            // Both read the clock: a second may pass between them.
            let Some(git) = git_reads(form) else { panic!("git reads no date in {form:?}") };
            let ours = parse_date(form).unwrap_or_else(|| panic!("{form:?} is refused; git reads {git}"));
            assert!((ours - git).abs() <= 2, "{form:?}: ours {ours}, git's {git}");
        }
    }

    #[test]
    fn forms_read_otherwise_than_git_are_refused() {
        // gix reads these (as `3 days ago`, as now, at 12:00); git reads each otherwise.
        for form in
            ["3 days ago 12:00", "1 fortnight ago", "2024-01-05 12", "last monday", "noon yesterday", "15:00 yesterday"]
        {
            assert_eq!(parse_date(form), None, "{form}");
        }
    }

    #[test]
    fn a_day_without_a_time_is_that_day_at_the_time_of_now() {
        let now: Zoned = "2026-11-28T15:30:20+00:00[UTC]".parse().unwrap();
        let at = |date: &str| parse_date_at(date, &now);
        let expect: Zoned = "2024-01-05T15:30:20+00:00[UTC]".parse().unwrap();
        let expect = Some(expect.timestamp().as_second());
        for form in ["2024-01-05", "Jan 5 2024", "5 Jan 2024", "01/05/2024", "5.1.2024"] {
            assert_eq!(at(form), expect, "{form}");
        }
        // The year of a month later than this one is last year's.
        let december: Zoned = "2025-12-28T15:30:20+00:00[UTC]".parse().unwrap();
        assert_eq!(at("december"), Some(december.timestamp().as_second()));
        let noon: Zoned = "2024-01-05T12:00:00+00:00[UTC]".parse().unwrap();
        assert_eq!(at("2024-01-05 12:00"), Some(noon.timestamp().as_second()));
        assert_eq!(at("2024-01-05T12:00:00"), Some(noon.timestamp().as_second()));
        // No such day: refused, not moved to another.
        assert_eq!(at("2024-02-31"), None);
        assert_eq!(at("Feb 30 2024"), None);
        // Not a date of this kind: gix's, or refused.
        assert_eq!(at("last monday"), None);
    }
}
