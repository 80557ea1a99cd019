//! The limit and window sliders' scales: a slider's positions spread evenly over the logarithm of
//! the value, so that one scale holds a limit of 5 and one of 20,000 (or a window of half a
//! second and one of an hour), each a press of an arrow key away from its neighbours. A slider
//! never throws away a value it did not move: the value it shows sits on its scale, and a step
//! changes it by at most one position's worth, and by at least one request (or one millisecond)
//! in the direction moved.

use std::cmp::Ordering;

use crate::core::lab_state::{MAX_LAB_LIMIT, MAX_LAB_WINDOW, MIN_LAB_WINDOW};
use crate::core::time::{Span, MICROS_PER_SEC};

/// Positions on a slider, 0 to this.
pub const SLIDER_STEPS: i64 = 1000;

/// Values from `min` to `max`, spread over the positions by their logarithm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogScale {
    pub min: f64,
    pub max: f64,
}

/// The limit slider: 1 to 1,000,000 requests.
pub const LIMIT_SCALE: LogScale = LogScale {
    min: 1.0,
    max: MAX_LAB_LIMIT as f64,
};

/// The window slider, in seconds: 1 ms to a day.
pub const WINDOW_SCALE: LogScale = LogScale {
    min: MIN_LAB_WINDOW.micros() as f64 / MICROS_PER_SEC as f64,
    max: MAX_LAB_WINDOW.micros() as f64 / MICROS_PER_SEC as f64,
};

impl LogScale {
    /// The position nearest `value` (the ends for values beyond them).
    pub fn position(&self, value: f64) -> i64 {
        let span = self.max.ln() - self.min.ln();
        let at = (value.max(self.min).ln() - self.min.ln()) / span * SLIDER_STEPS as f64;
        (at.round() as i64).clamp(0, SLIDER_STEPS)
    }

    /// The value at `position`.
    pub fn value(&self, position: i64) -> f64 {
        let fraction = position.clamp(0, SLIDER_STEPS) as f64 / SLIDER_STEPS as f64;
        (self.min.ln() + fraction * (self.max.ln() - self.min.ln())).exp()
    }
}

/// The limit a slider moved to `position` asks for, when the limit was `current`.
pub fn limit_at(position: i64, current: u64) -> u64 {
    let wanted = LIMIT_SCALE.value(position).round() as u64;
    let moved = position.cmp(&LIMIT_SCALE.position(current as f64));
    let limit = match moved {
        Ordering::Greater => wanted.max(current.saturating_add(1)),
        Ordering::Less => wanted.min(current.saturating_sub(1)),
        Ordering::Equal => current,
    };
    limit.clamp(1, MAX_LAB_LIMIT)
}

/// The window a slider moved to `position` asks for, when the window was `current`: three
/// significant figures, and at least a millisecond away in the direction moved.
pub fn window_at(position: i64, current: Span) -> Span {
    let seconds = WINDOW_SCALE.value(position);
    let wanted = Span(round_to_three_figures(seconds * MICROS_PER_SEC as f64));
    let here = current.micros() as f64 / MICROS_PER_SEC as f64;
    let millisecond = Span::from_millis(1).micros();
    let window = match position.cmp(&WINDOW_SCALE.position(here)) {
        Ordering::Greater => wanted
            .micros()
            .max(current.micros().saturating_add(millisecond)),
        Ordering::Less => wanted
            .micros()
            .min(current.micros().saturating_sub(millisecond)),
        Ordering::Equal => current.micros(),
    };
    Span(window.clamp(MIN_LAB_WINDOW.micros(), MAX_LAB_WINDOW.micros()))
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
}
