//! Validated parameters shared by the algorithms: a quota (limit per window) and a rate.
//!
//! Everything is checked when built, so an algorithm never sees a zero window or a zero rate,
//! and a bad value reaches the page as an error with a plain message rather than a panic.

use std::fmt;

use super::time::{format_seconds, parse_seconds, Span, MICROS_PER_SEC};

/// The largest limit the lab takes (its slider, links, scenarios, a second limit). The algorithms
/// themselves take up to [`MAX_COUNT`], which the per-algorithm and product fields may use.
pub const MAX_LAB_LIMIT: u64 = 1_000_000;
/// The shortest window the lab takes.
pub const MIN_LAB_WINDOW: Span = Span::from_millis(1);
/// The longest window the lab takes: a day, so that the time axis stays readable. The algorithms
/// themselves take up to [`MAX_WINDOW`] (a year), which the product fields may use.
pub const MAX_LAB_WINDOW: Span = Span::from_secs(86_400);

/// Why a configuration was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    ZeroLimit,
    ZeroWindow,
    ZeroCapacity,
    ZeroBurst,
    ZeroRate,
    NegativeRate(String),
    BadRate(String),
    DelayAboveBurst {
        delay: u64,
        burst: u64,
    },
    TooLarge(&'static str),
    /// A value the product being profiled does not accept; the text says which and why.
    Unsupported(&'static str),
    /// A product row asked of a program that does not link the products (`limiter::Parts`: the
    /// page's first module, which hands such a view to the complete one).
    ProductsNotBuilt,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::ZeroLimit => write!(f, "the limit must be at least 1 request"),
            ConfigError::ZeroWindow => write!(f, "the window must be longer than 0 seconds"),
            ConfigError::ZeroCapacity => write!(f, "the bucket capacity must be at least 1 token"),
            ConfigError::ZeroBurst => write!(f, "the burst must be at least 1 request"),
            ConfigError::ZeroRate => write!(f, "the rate must be more than 0 per second"),
            ConfigError::NegativeRate(s) => write!(
                f,
                "the rate \"{s}\" is negative; a rate counts requests let through"
            ),
            ConfigError::BadRate(s) => {
                write!(f, "the rate \"{s}\" is not a number of requests per second")
            }
            ConfigError::DelayAboveBurst { delay, burst } => {
                write!(
                    f,
                    "the delay threshold ({delay}) cannot exceed the burst ({burst})"
                )
            }
            ConfigError::TooLarge(what) => write!(f, "the {what} is too large"),
            ConfigError::Unsupported(why) => f.write_str(why),
            ConfigError::ProductsNotBuilt => {
                write!(
                    f,
                    "the product rows are loading; this row follows in a moment"
                )
            }
        }
    }
}

impl std::error::Error for ConfigError {}

/// `a × b`, or `None` past 2^64. Two factors under 2^32 need no check: in Wasm, a checked 64-bit
/// product is a 128-bit library call, and the limiters' hot paths multiply small numbers.
/// (Natively, the processor's own overflow flag is cheaper still.)
#[inline]
pub fn checked_mul_u64(a: u64, b: u64) -> Option<u64> {
    if cfg!(target_arch = "wasm32") && (a | b) >> 32 == 0 {
        Some(a * b)
    } else {
        a.checked_mul(b)
    }
}

/// The largest limit, capacity or burst accepted: large enough for any real policy, small
/// enough that every product in the exact arithmetic fits in 128 bits.
pub const MAX_COUNT: u64 = 1_000_000_000;
/// The longest window accepted: one year.
pub const MAX_WINDOW: Span = Span(366 * 24 * 3600 * MICROS_PER_SEC);

/// "At most `limit` requests in any `window`".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quota {
    limit: u64,
    window: Span,
}

impl Quota {
    pub fn new(limit: u64, window: Span) -> Result<Quota, ConfigError> {
        if limit == 0 {
            return Err(ConfigError::ZeroLimit);
        }
        if limit > MAX_COUNT {
            return Err(ConfigError::TooLarge("limit"));
        }
        if window.micros() == 0 {
            return Err(ConfigError::ZeroWindow);
        }
        if window > MAX_WINDOW {
            return Err(ConfigError::TooLarge("window"));
        }
        Ok(Quota { limit, window })
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    pub fn window(&self) -> Span {
        self.window
    }

    /// The same quota spread evenly: `limit` per `window`.
    pub fn rate(&self) -> Rate {
        Rate::reduced(self.limit, self.window)
    }
}

/// An exact rate: `amount` units every `per`. 0.5 per second is kept as 1 per 2 s, never as a
/// float, so refills and emission intervals are exact rationals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    amount: u64,
    per: Span,
}

impl Rate {
    pub fn new(amount: u64, per: Span) -> Result<Rate, ConfigError> {
        if amount == 0 || per.micros() == 0 {
            return Err(ConfigError::ZeroRate);
        }
        if amount > MAX_COUNT * MICROS_PER_SEC || per > MAX_WINDOW {
            return Err(ConfigError::TooLarge("rate"));
        }
        Ok(Rate::reduced(amount, per))
    }

    /// The fraction in lowest terms, so equal rates compare equal and products stay small.
    fn reduced(amount: u64, per: Span) -> Rate {
        let g = gcd(amount, per.micros());
        Rate {
            amount: amount / g,
            per: Span(per.micros() / g),
        }
    }

    /// Parses a decimal number of units per second ("0.5", "2", "1000").
    pub fn parse_per_second(text: &str) -> Result<Rate, ConfigError> {
        let t = text.trim();
        match parse_seconds(t) {
            // The decimal is read with six places: 0.5 per second is 500000 per 10^6 seconds.
            Ok(micro_units) => Rate::new(micro_units, Span(MICROS_PER_SEC * MICROS_PER_SEC)),
            Err(super::time::SecondsError::Negative(_)) => {
                Err(ConfigError::NegativeRate(t.to_string()))
            }
            Err(_) => Err(ConfigError::BadRate(t.to_string())),
        }
    }

    /// Units gained in `per` microseconds.
    pub fn amount(&self) -> u64 {
        self.amount
    }

    /// The span over which `amount` units are gained.
    pub fn per(&self) -> Span {
        self.per
    }

    /// The same rate shared by `n`: `amount` per `per × n` (kept as it is if that overflows).
    pub fn divided_by(&self, n: u64) -> Rate {
        match self.per.micros().checked_mul(n.max(1)) {
            Some(per) => Rate::reduced(self.amount, Span(per)),
            None => *self,
        }
    }

    /// The rate as decimal units per second ("0.5"), rounded down to six decimals.
    pub fn per_second_text(&self) -> String {
        let micro_per_sec =
            (u128::from(self.amount) * u128::from(MICROS_PER_SEC) * u128::from(MICROS_PER_SEC))
                / u128::from(self.per.micros());
        format_seconds(u64::try_from(micro_per_sec).unwrap_or(u64::MAX))
    }

    /// Human form, e.g. "0.5 per second".
    pub fn describe(&self) -> String {
        // amount / per_us * 10^6 per second, shown with up to 6 decimals.
        let micro_per_sec =
            (u128::from(self.amount) * u128::from(MICROS_PER_SEC) * u128::from(MICROS_PER_SEC))
                / u128::from(self.per.micros());
        let value = u64::try_from(micro_per_sec).unwrap_or(u64::MAX);
        format!("{} per second", format_seconds(value))
    }
}

pub(crate) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let r = a % b;
        a = b;
        b = r;
    }
    a.max(1)
}

/// `ceil(a / b)` for the exact arithmetic; `b` is never zero in callers.
pub(crate) fn div_ceil_u128(a: u128, b: u128) -> u128 {
    if b == 0 {
        return u128::MAX;
    }
    a.div_ceil(b)
}

/// Narrows a 128-bit microsecond count to a `Span`, saturating.
pub(crate) fn span_from_u128(micros: u128) -> Span {
    Span(u64::try_from(micros).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_checked_product_agrees_with_the_checked_product_on_both_sides_of_2_to_the_32() {
        let values = [
            0,
            1,
            2,
            3,
            (1 << 32) - 1,
            1 << 32,
            (1 << 32) + 1,
            u64::MAX / 3,
            u64::MAX - 1,
            u64::MAX,
        ];
        for a in values {
            for b in values {
                assert_eq!(checked_mul_u64(a, b), a.checked_mul(b), "{a} × {b}");
            }
        }
    }

    #[test]
    fn a_zero_limit_or_window_is_an_error_not_a_panic() {
        assert_eq!(
            Quota::new(0, Span::from_secs(10)),
            Err(ConfigError::ZeroLimit)
        );
        assert_eq!(Quota::new(5, Span::ZERO), Err(ConfigError::ZeroWindow));
        assert!(Quota::new(5, Span::from_secs(10)).is_ok());
    }

    #[test]
    fn a_negative_or_zero_rate_is_an_error_with_a_clear_message() {
        let err = Rate::parse_per_second("-2").unwrap_err();
        assert_eq!(err, ConfigError::NegativeRate("-2".into()));
        assert!(err.to_string().contains("negative"));
        assert_eq!(Rate::parse_per_second("0"), Err(ConfigError::ZeroRate));
        assert_eq!(
            Rate::parse_per_second("fast"),
            Err(ConfigError::BadRate("fast".into()))
        );
    }

    #[test]
    fn rates_are_kept_as_reduced_exact_fractions() {
        let half = Rate::parse_per_second("0.5").unwrap();
        assert_eq!((half.amount(), half.per()), (1, Span::from_secs(2)));
        let five_per_ten = Quota::new(5, Span::from_secs(10)).unwrap().rate();
        assert_eq!(five_per_ten, half);
        assert_eq!(half.describe(), "0.5 per second");
    }
}
