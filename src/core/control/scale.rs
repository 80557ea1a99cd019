//! The sliders' scales. A slider's positions spread evenly over the logarithm of its value, so
//! that one scale holds a limit of 5 and one of 20,000 (or a timeout of a millisecond and one of
//! a minute), each a press of an arrow key away from its neighbours; a value that may be zero
//! (jitter, a leaky bucket's burst) has a stop of its own at the scale's first position. Every
//! scale spans all that a link accepts for its field, so a slider never throws away a value it
//! did not move: the value it shows sits on its scale, and a step changes it by at most about
//! one position's worth, and by at least one unit (a request, a microsecond, a millionth of a
//! token a second) in the direction moved.

use std::cmp::Ordering;

use crate::core::config::{Rate, MAX_COUNT};
use crate::core::lab_state::{MAX_LAB_LIMIT, MAX_LAB_WINDOW, MIN_LAB_WINDOW};
use crate::core::limiter::LeakDelay;
use crate::core::time::{Span, MICROS_PER_SEC};

/// Positions on a slider, 0 to this.
pub const SLIDER_STEPS: i64 = 1000;

/// Values from `min` to `max`, spread over the positions by their logarithm; with `zero`, the
/// first position is zero and the logarithm starts at the second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogScale {
    pub min: f64,
    pub max: f64,
    pub zero: bool,
}

const SECONDS_PER_MICRO: f64 = 1.0 / MICROS_PER_SEC as f64;

/// The limit slider: 1 to 1,000,000 requests.
pub const LIMIT_SCALE: LogScale = LogScale::new(1.0, MAX_LAB_LIMIT as f64);

/// The window slider, in seconds: 1 ms to a day.
pub const WINDOW_SCALE: LogScale = LogScale::new(
    MIN_LAB_WINDOW.micros() as f64 * SECONDS_PER_MICRO,
    MAX_LAB_WINDOW.micros() as f64 * SECONDS_PER_MICRO,
);

/// Counts of at least one a link takes (`capacity`, `burst`): 1 to 1,000,000.
pub const COUNT_SCALE: LogScale = LogScale::new(1.0, MAX_LAB_LIMIT as f64);

/// Counts that may be zero (`leak-burst`, `leak-delay`): 0, then 1 to 1,000,000.
pub const COUNT_OR_ZERO_SCALE: LogScale = LogScale::with_zero(1.0, MAX_LAB_LIMIT as f64);

/// The token bucket's refill, in tokens a second: from a millionth (the finest a link writes) to
/// the largest count the algorithms take, a second.
pub const REFILL_SCALE: LogScale = LogScale::new(1e-6, MAX_COUNT as f64);

impl LogScale {
    pub const fn new(min: f64, max: f64) -> LogScale {
        LogScale {
            min,
            max,
            zero: false,
        }
    }

    /// A scale whose first position is zero, and `min` to `max` after it.
    pub const fn with_zero(min: f64, max: f64) -> LogScale {
        LogScale {
            min,
            max,
            zero: true,
        }
    }

    /// A scale in seconds over a range that a link gives in microseconds.
    pub const fn seconds_between(min_micros: u64, max_micros: u64) -> LogScale {
        LogScale::new(
            min_micros as f64 * SECONDS_PER_MICRO,
            max_micros as f64 * SECONDS_PER_MICRO,
        )
    }

    /// A scale in seconds that may be zero: none, then a microsecond (the finest a link writes)
    /// to `max_micros`.
    pub const fn seconds_or_zero(max_micros: u64) -> LogScale {
        LogScale::with_zero(SECONDS_PER_MICRO, max_micros as f64 * SECONDS_PER_MICRO)
    }

    /// The first position of the logarithmic part.
    fn first_log_position(&self) -> i64 {
        i64::from(self.zero)
    }

    /// The smallest value on the scale.
    fn bottom(&self) -> f64 {
        if self.zero {
            0.0
        } else {
            self.min
        }
    }

    /// The position nearest `value` (the ends for values beyond them).
    pub fn position(&self, value: f64) -> i64 {
        if self.zero && value <= 0.0 {
            return 0;
        }
        let first = self.first_log_position();
        let span = self.max.ln() - self.min.ln();
        let fraction = (value.max(self.min).ln() - self.min.ln()) / span;
        let at = first as f64 + fraction * (SLIDER_STEPS - first) as f64;
        (at.round() as i64).clamp(0, SLIDER_STEPS)
    }

    /// The value at `position`.
    pub fn value(&self, position: i64) -> f64 {
        let position = position.clamp(0, SLIDER_STEPS);
        if self.zero && position == 0 {
            return 0.0;
        }
        let first = self.first_log_position();
        let fraction = (position - first) as f64 / (SLIDER_STEPS - first) as f64;
        (self.min.ln() + fraction * (self.max.ln() - self.min.ln())).exp()
    }
}

/// Where a slider moved from `current` to `position` lands, in whole ticks (`ticks_per_value`
/// of them to one of the scale's values): the scale's value there, `rounded`, but at least
/// `unit` ticks from `current` in the direction moved, and on the scale.
fn step(
    scale: &LogScale,
    position: i64,
    current: u64,
    ticks_per_value: f64,
    unit: u64,
    rounded: fn(f64) -> u64,
) -> u64 {
    let here = scale.position(current as f64 / ticks_per_value);
    let value = scale.value(position);
    let wanted = if value <= 0.0 {
        0
    } else {
        rounded(value * ticks_per_value)
    };
    let moved = match position.cmp(&here) {
        Ordering::Greater => wanted.max(current.saturating_add(unit)),
        Ordering::Less => wanted.min(current.saturating_sub(unit)),
        Ordering::Equal => return current,
    };
    let lowest = (scale.bottom() * ticks_per_value).round() as u64;
    let highest = (scale.max * ticks_per_value).round() as u64;
    moved.clamp(lowest, highest)
}

/// The count a slider moved to `position` asks for, when the count was `current`.
pub fn count_at(scale: &LogScale, position: i64, current: u64) -> u64 {
    step(scale, position, current, 1.0, 1, |n| n.round() as u64)
}

/// The position of `span` on a scale in seconds.
pub fn span_position(scale: &LogScale, span: Span) -> i64 {
    scale.position(span.micros() as f64 * SECONDS_PER_MICRO)
}

/// The span a slider on a scale in seconds moved to `position` asks for, when the span was
/// `current`: three significant figures, and at least `unit` away in the direction moved.
pub fn span_at(scale: &LogScale, position: i64, current: Span, unit: Span) -> Span {
    Span(step(
        scale,
        position,
        current.micros(),
        MICROS_PER_SEC as f64,
        unit.micros(),
        round_to_three_figures,
    ))
}

/// Units a second, as a float, for placing a rate on a scale.
fn per_second(rate: Rate) -> f64 {
    rate.amount() as f64 * MICROS_PER_SEC as f64 / rate.per().micros().max(1) as f64
}

/// The position of `rate` on a scale in units a second.
pub fn rate_position(scale: &LogScale, rate: Rate) -> i64 {
    scale.position(per_second(rate))
}

/// The rate a slider moved to `position` asks for, when the rate was `current`: three
/// significant figures, and at least a millionth of a unit a second away in the direction moved.
/// A rate the slider did not move keeps its exact fraction (a third a second stays a third).
pub fn rate_at(scale: &LogScale, position: i64, current: Rate) -> Rate {
    if position == rate_position(scale, current) {
        return current;
    }
    // Millionths of a unit a second, the finest a link writes, rounded down as a link writes them.
    let millionths = u128::from(current.amount()) * u128::from(MICROS_PER_SEC).pow(2)
        / u128::from(current.per().micros().max(1));
    let millionths = u64::try_from(millionths).unwrap_or(u64::MAX);
    let next = step(
        scale,
        position,
        millionths,
        MICROS_PER_SEC as f64,
        1,
        round_to_three_figures,
    );
    Rate::new(next, Span(MICROS_PER_SEC * MICROS_PER_SEC)).unwrap_or(current)
}

/// The leaky bucket's delay a slider moved to `position` asks for, when it was `current` and
/// the burst is `burst`: up to the burst, which serves the whole burst at once (`nodelay`).
pub fn leak_delay_at(position: i64, current: LeakDelay, burst: u64) -> LeakDelay {
    let served = match current {
        LeakDelay::After(n) => n,
        LeakDelay::NoDelay => burst,
    };
    match count_at(&COUNT_OR_ZERO_SCALE, position, served).min(burst) {
        n if n >= burst => LeakDelay::NoDelay,
        n => LeakDelay::After(n),
    }
}

/// How many the leaky bucket serves at once: its position on the delay's scale.
pub fn leak_delay_position(delay: LeakDelay, burst: u64) -> i64 {
    let served = match delay {
        LeakDelay::After(n) => n,
        LeakDelay::NoDelay => burst,
    };
    COUNT_OR_ZERO_SCALE.position(served as f64)
}

/// The limit a slider moved to `position` asks for, when the limit was `current`.
pub fn limit_at(position: i64, current: u64) -> u64 {
    count_at(&LIMIT_SCALE, position, current)
}

/// The window a slider moved to `position` asks for, when the window was `current`: three
/// significant figures, and at least a millisecond away in the direction moved.
pub fn window_at(position: i64, current: Span) -> Span {
    span_at(&WINDOW_SCALE, position, current, Span::from_millis(1))
}

/// `micros` rounded to three significant figures, in whole microseconds.
fn round_to_three_figures(micros: f64) -> u64 {
    if micros < 1.0 {
        return 1;
    }
    let unit = 10f64.powi(micros.log10().floor() as i32 - 2).max(1.0);
    ((micros / unit).round() * unit) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::url::durable_fields::{
        EVICT_SCALE, JITTER_MICROS, JITTER_SCALE, SERVICE_SCALE, TIMEOUT_MICROS, TIMEOUT_SCALE,
    };

    #[test]
    fn both_ends_and_the_values_between_sit_on_the_scale() {
        assert_eq!(LIMIT_SCALE.position(1.0), 0);
        assert_eq!(LIMIT_SCALE.position(1_000_000.0), SLIDER_STEPS);
        assert_eq!(LIMIT_SCALE.position(20_000_000.0), SLIDER_STEPS);
        assert_eq!(LIMIT_SCALE.position(0.0), 0);
        for limit in [1u64, 5, 23, 100, 20_000, 1_000_000] {
            let back = LIMIT_SCALE.value(LIMIT_SCALE.position(limit as f64));
            assert!(
                (back / limit as f64 - 1.0).abs() < 0.01,
                "{limit} -> {back}"
            );
        }
    }

    #[test]
    fn one_step_down_from_a_large_limit_stays_near_it() {
        let at = LIMIT_SCALE.position(20_000.0);
        let next = limit_at(at - 1, 20_000);
        assert!((19_500..20_000).contains(&next), "{next}");
        let up = limit_at(at + 1, 20_000);
        assert!((20_001..20_500).contains(&up), "{up}");
    }

    #[test]
    fn a_step_always_moves_a_small_limit_by_at_least_one() {
        for limit in 1u64..=30 {
            let at = LIMIT_SCALE.position(limit as f64);
            assert_eq!(limit_at(at + 1, limit), limit + 1, "up from {limit}");
            if limit > 1 {
                assert_eq!(limit_at(at - 1, limit), limit - 1, "down from {limit}");
            }
        }
        assert_eq!(limit_at(0, 1), 1);
        assert_eq!(limit_at(SLIDER_STEPS, 1_000_000), 1_000_000);
    }

    #[test]
    fn one_step_down_from_an_hour_stays_near_an_hour() {
        let hour = Span::from_secs(3600);
        let at = WINDOW_SCALE.position(3600.0);
        let next = window_at(at - 1, hour);
        assert!(
            (Span::from_secs(3500).micros()..hour.micros()).contains(&next.micros()),
            "{next:?}"
        );
        assert_eq!(
            next.micros() % Span::from_secs(10).micros(),
            0,
            "three figures"
        );
    }

    #[test]
    fn window_steps_keep_three_figures_and_move_by_at_least_a_millisecond() {
        let ten = Span::from_secs(10);
        let at = WINDOW_SCALE.position(10.0);
        assert_eq!(window_at(at + 1, ten), Span::from_millis(10_200));
        assert_eq!(window_at(at - 1, ten), Span::from_millis(9_820));
        let ms = Span::from_millis(1);
        assert_eq!(window_at(0, ms), ms);
        assert_eq!(window_at(1, ms), Span::from_millis(2));
        assert_eq!(window_at(SLIDER_STEPS, MAX_LAB_WINDOW), MAX_LAB_WINDOW);
    }

    #[test]
    fn three_figures_round_in_whole_microseconds() {
        assert_eq!(round_to_three_figures(10_184_000.0), 10_200_000);
        assert_eq!(round_to_three_figures(1_018.4), 1_020);
        assert_eq!(round_to_three_figures(12.6), 13);
        assert_eq!(round_to_three_figures(0.2), 1);
    }

    /// Every scale with the smallest and largest values a link accepts for its field.
    fn scales_and_their_links_ranges() -> [(&'static str, LogScale, f64, f64); 9] {
        let seconds = |micros: u64| micros as f64 * SECONDS_PER_MICRO;
        [
            ("limit", LIMIT_SCALE, 1.0, MAX_LAB_LIMIT as f64),
            ("window", WINDOW_SCALE, 0.001, 86_400.0),
            ("capacity, burst", COUNT_SCALE, 1.0, MAX_LAB_LIMIT as f64),
            (
                "leak-burst, leak-delay",
                COUNT_OR_ZERO_SCALE,
                0.0,
                MAX_LAB_LIMIT as f64,
            ),
            ("refill", REFILL_SCALE, 1e-6, 1e9),
            (
                "timeout",
                TIMEOUT_SCALE,
                seconds(1_000),
                seconds(60_000_000),
            ),
            ("service", SERVICE_SCALE, seconds(1), seconds(10_000_000)),
            ("jitter", JITTER_SCALE, 0.0, seconds(1_000_000)),
            (
                "evict",
                EVICT_SCALE,
                seconds(1_000),
                seconds(86_400_000_000),
            ),
        ]
    }

    #[test]
    fn every_scale_holds_both_ends_of_what_a_link_accepts() {
        for (name, scale, lowest, highest) in scales_and_their_links_ranges() {
            assert_eq!(scale.position(lowest), 0, "{name}: lowest");
            assert_eq!(scale.position(highest), SLIDER_STEPS, "{name}: highest");
            let (first, top) = (scale.value(0), scale.value(SLIDER_STEPS));
            assert!((first - lowest).abs() <= lowest * 1e-9, "{name}: {first}");
            assert!((top / highest - 1.0).abs() < 1e-9, "{name}: {top}");
        }
        // A link's bounds for the object are the URL table's own.
        assert_eq!(*TIMEOUT_MICROS.start(), 1_000);
        assert_eq!(*JITTER_MICROS.start(), 0);
        let refill = Rate::parse_per_second("1000000000").expect("the largest refill");
        assert_eq!(rate_position(&REFILL_SCALE, refill), SLIDER_STEPS);
        let refill = Rate::parse_per_second("0.000001").expect("the smallest refill");
        assert_eq!(rate_position(&REFILL_SCALE, refill), 0);
    }

    #[test]
    fn one_step_from_a_large_value_stays_near_it() {
        let at = COUNT_SCALE.position(20_000.0);
        assert!((19_500..20_000).contains(&count_at(&COUNT_SCALE, at - 1, 20_000)));
        let top = COUNT_OR_ZERO_SCALE.position(500.0);
        assert!((485..500).contains(&count_at(&COUNT_OR_ZERO_SCALE, top - 1, 500)));

        let minute = Span::from_secs(60);
        let at = span_position(&TIMEOUT_SCALE, minute);
        let next = span_at(&TIMEOUT_SCALE, at - 1, minute, Span(1));
        assert!(
            (Span::from_millis(59_000)..minute).contains(&next),
            "{next:?}"
        );
        let day = Span::from_secs(86_400);
        let next = span_at(&EVICT_SCALE, SLIDER_STEPS - 1, day, Span::from_millis(1));
        assert!((Span::from_secs(84_000)..day).contains(&next), "{next:?}");

        let thousand = Rate::parse_per_second("1000").expect("a rate");
        let at = rate_position(&REFILL_SCALE, thousand);
        let down = rate_at(&REFILL_SCALE, at - 1, thousand);
        // Fifteen powers of ten over the scale: a position is about 3.5 %.
        assert_eq!(down.per_second_text(), "966");
        let up = rate_at(&REFILL_SCALE, at + 1, thousand);
        assert_eq!(up.per_second_text(), "1040");
    }

    #[test]
    fn a_step_always_moves_a_small_value_by_at_least_one_unit() {
        for n in 1u64..=30 {
            let at = COUNT_SCALE.position(n as f64);
            assert_eq!(count_at(&COUNT_SCALE, at + 1, n), n + 1, "up from {n}");
            assert_eq!(
                count_at(&COUNT_SCALE, at - 1, n),
                (n - 1).max(1),
                "down from {n}"
            );
        }
        let micro = Span(1);
        let at = span_position(&SERVICE_SCALE, micro);
        assert_eq!(span_at(&SERVICE_SCALE, at + 1, micro, micro), Span(2));
        let two = span_position(&SERVICE_SCALE, Span(2));
        assert_eq!(span_at(&SERVICE_SCALE, two - 1, Span(2), micro), micro);
        assert_eq!(
            span_at(&SERVICE_SCALE, 0, micro, micro),
            micro,
            "the end holds"
        );

        let millionth = Rate::parse_per_second("0.000001").expect("a rate");
        let next = rate_at(&REFILL_SCALE, 1, millionth);
        assert_eq!(next.per_second_text(), "0.000002");
    }

    #[test]
    fn zero_is_reachable_and_leaving_zero_goes_to_the_smallest_value() {
        assert_eq!(count_at(&COUNT_OR_ZERO_SCALE, 0, 500), 0);
        assert_eq!(count_at(&COUNT_OR_ZERO_SCALE, 0, 1), 0);
        assert_eq!(count_at(&COUNT_OR_ZERO_SCALE, 1, 0), 1);
        let (five_ms, micro) = (Span::from_millis(5), Span(1));
        assert_eq!(span_at(&JITTER_SCALE, 0, five_ms, micro), Span(0));
        assert_eq!(span_at(&JITTER_SCALE, 1, Span(0), micro), micro);
        let at = span_position(&JITTER_SCALE, micro);
        assert_eq!((span_position(&JITTER_SCALE, Span(0)), at), (0, 1));
        assert_eq!(span_at(&JITTER_SCALE, at - 1, micro, micro), Span(0));
    }

    #[test]
    fn a_rate_the_slider_did_not_move_keeps_its_exact_fraction() {
        let third = Rate::new(1, Span::from_secs(3)).expect("a third a second");
        let at = rate_position(&REFILL_SCALE, third);
        assert_eq!(rate_at(&REFILL_SCALE, at, third), third);
        assert_eq!(
            rate_at(&REFILL_SCALE, at + 1, third).per_second_text(),
            "0.343"
        );
    }

    #[test]
    fn the_leaky_delay_serves_the_whole_burst_at_once_at_the_burst_and_beyond() {
        let burst = 300;
        let at = leak_delay_position(LeakDelay::NoDelay, burst);
        assert_eq!(at, COUNT_OR_ZERO_SCALE.position(300.0));
        let down = leak_delay_at(at - 1, LeakDelay::NoDelay, burst);
        assert!(
            matches!(down, LeakDelay::After(n) if (290..300).contains(&n)),
            "{down:?}"
        );
        assert_eq!(leak_delay_at(at + 1, down, burst), LeakDelay::NoDelay);
        assert_eq!(
            leak_delay_at(SLIDER_STEPS, LeakDelay::After(0), burst),
            LeakDelay::NoDelay
        );
        assert_eq!(
            leak_delay_at(0, LeakDelay::After(7), burst),
            LeakDelay::After(0)
        );
        assert_eq!(
            leak_delay_at(1, LeakDelay::After(0), burst),
            LeakDelay::After(1)
        );
    }
}
