//! Zooming and panning the time axis, with no browser in it: the stretch of the trace the charts
//! show ([`Range`], fitted from a link's `view=` to the trace it runs), where a time sits in it,
//! zooming around a time that stays where it is on the canvas, a drag or a pinch that keeps the
//! times under the fingers, keeping a selected request in view, and what a link writes. The page
//! (`ui::timeline`) turns wheel turns, keys, drags and pinches into these calls.

use crate::core::lab_state::MIN_VIEW;
use crate::core::time::Time;

/// The space left and right of the time axis on every chart, in CSS pixels: a mark at either
/// end of the stretch shown is drawn whole.
pub const PAD_X: f64 = 16.0;

/// A stretch of the time axis, `from` before `to`, in microseconds of the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub from: Time,
    pub to: Time,
}

/// Zooming in by this much at a press of `+` (and out at `-`).
pub const KEY_ZOOM: f64 = 2.0;

impl Range {
    /// The whole axis of a trace whose axis ends at `horizon`.
    pub fn whole(horizon: Time) -> Range {
        Range {
            from: Time::ZERO,
            to: Time(horizon.micros().max(1)),
        }
    }

    /// What a link's `view` shows of a trace whose axis ends at `horizon`: the whole axis when
    /// it names none; else its stretch moved back inside the axis (a link made for a longer
    /// trace), and cut to the axis when it is longer.
    pub fn fit(view: Option<(Time, Time)>, horizon: Time) -> Range {
        match view {
            None => Range::whole(horizon),
            Some((from, to)) => Range::clamped(
                from.micros() as f64,
                to.micros().saturating_sub(from.micros()) as f64,
                horizon,
            ),
        }
    }

    /// A stretch `span` microseconds long from `from`, at least [`MIN_VIEW`] (or the whole axis
    /// if shorter) and at most the whole axis, moved inside `0..=horizon`.
    fn clamped(from: f64, span: f64, horizon: Time) -> Range {
        // `max` and `min` rather than `clamp`, which has a panic of its own for bounds the wrong
        // way round: these never are, and the page carries no code for it.
        let end = horizon.micros().max(1) as f64;
        let span = span.max((MIN_VIEW.micros() as f64).min(end)).min(end);
        let from = from.max(0.0).min(end - span);
        let from = from.round() as u64;
        // The end from the rounded start, so the span stays what it was asked to be.
        let to = (from + span.round() as u64).min(end as u64);
        Range {
            from: Time(from),
            to: Time(to),
        }
    }

    /// Microseconds from `from` to `to`, at least one.
    pub fn span(&self) -> u64 {
        self.to.micros().saturating_sub(self.from.micros()).max(1)
    }

    pub fn contains(&self, t: Time) -> bool {
        self.from <= t && t <= self.to
    }

    /// Whether this is the whole axis of a trace ending at `horizon`.
    pub fn is_whole(&self, horizon: Time) -> bool {
        self.from == Time::ZERO && self.to.micros() >= horizon.micros()
    }

    /// Where time `t` sits on a canvas `width` wide (outside it for a time outside the range).
    pub fn x(&self, t: Time, width: f64) -> f64 {
        let offset = t.micros() as f64 - self.from.micros() as f64;
        PAD_X + offset / self.span() as f64 * (width - 2.0 * PAD_X)
    }

    /// The time at `x` on such a canvas, clamped to the range.
    pub fn time_at(&self, x: f64, width: f64) -> Time {
        let frac = ((x - PAD_X) / (width - 2.0 * PAD_X)).clamp(0.0, 1.0);
        Time(self.from.micros() + (frac * self.span() as f64).round() as u64)
    }

    /// The stretch `span` microseconds long that puts time `t` at `x` (as near as the axis's
    /// ends allow).
    pub fn placing(t: Time, x: f64, span: f64, width: f64, horizon: Time) -> Range {
        let frac = (x - PAD_X) / (width - 2.0 * PAD_X);
        Range::clamped(t.micros() as f64 - frac * span, span, horizon)
    }

    /// Zoomed in `factor` times (out for a factor below 1) around time `t`, which stays where it
    /// is on the canvas.
    pub fn zoomed_at(&self, t: Time, factor: f64, width: f64, horizon: Time) -> Range {
        let span = self.span() as f64 / factor.max(f64::MIN_POSITIVE);
        Range::placing(t, self.x(t, width), span, width, horizon)
    }

    /// Moved by `dx` CSS pixels of the canvas: right (later) for a positive `dx`, as when the
    /// content is dragged left.
    pub fn panned(&self, dx: f64, width: f64, horizon: Time) -> Range {
        let per_px = self.span() as f64 / (width - 2.0 * PAD_X);
        Range::clamped(
            self.from.micros() as f64 + dx * per_px,
            self.span() as f64,
            horizon,
        )
    }

    /// The stretch that puts time `t1` at `x1` and `t2` at `x2`: a pinch, the times under two
    /// fingers following them. Fingers closer than a few pixels keep the span as it is.
    pub fn through(
        &self,
        (t1, x1): (Time, f64),
        (t2, x2): (Time, f64),
        width: f64,
        horizon: Time,
    ) -> Range {
        let (dt, dx) = (t2.micros() as f64 - t1.micros() as f64, x2 - x1);
        let span = if dx.abs() < 4.0 || dt == 0.0 {
            self.span() as f64
        } else {
            (dt / dx).abs() * (width - 2.0 * PAD_X)
        };
        Range::placing(t1, x1, span, width, horizon)
    }

    /// The range moved (as little as it takes) so that time `t` is inside it, a tenth of the
    /// span away from either edge: the arrow keys' selection stays in view.
    pub fn revealing(&self, t: Time, horizon: Time) -> Range {
        let (t, span) = (t.micros() as f64, self.span() as f64);
        let margin = span / 10.0;
        let from = self.from.micros() as f64;
        let from = if t < from + margin {
            t - margin
        } else if t > from + span - margin {
            t + margin - span
        } else {
            return *self;
        };
        Range::clamped(from, span, horizon)
    }

    /// What a link writes for this range: `None` for the whole axis; else its ends rounded to a
    /// thousandth of its span (a round unit of microseconds), so that a link reads `8.12-12.5`
    /// rather than `8.123457-12.49992`, and the time under the pointer moves by less than a
    /// pixel.
    pub fn as_view(&self, horizon: Time) -> Option<(Time, Time)> {
        if self.is_whole(horizon) {
            return None;
        }
        let mut unit = 1u64;
        while unit * 10 * 1000 <= self.span() {
            unit *= 10;
        }
        let round = |t: Time| (t.micros() + unit / 2) / unit * unit;
        let (from, to) = (round(self.from), round(self.to).min(horizon.micros()));
        match (from, to) {
            (0, to) if to >= horizon.micros() => None,
            (from, to) if to > from => Some((Time(from), Time(to))),
            _ => Some((self.from, self.to)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: f64 = 1032.0; // 1000 px between the paddings
    fn secs(s: f64) -> Time {
        Time((s * 1e6).round() as u64)
    }
    fn range(from: f64, to: f64) -> Range {
        Range {
            from: secs(from),
            to: secs(to),
        }
    }

    #[test]
    fn the_whole_axis_maps_its_ends_to_the_paddings() {
        let whole = Range::whole(secs(20.0));
        assert_eq!(whole.x(Time::ZERO, W), PAD_X);
        assert_eq!(whole.x(secs(20.0), W), W - PAD_X);
        assert_eq!(whole.time_at(whole.x(secs(5.0), W), W), secs(5.0));
        assert!(whole.is_whole(secs(20.0)));
        assert_eq!(whole.as_view(secs(20.0)), None);
    }

    #[test]
    fn a_zoomed_range_puts_times_outside_it_off_the_canvas_and_clamps_the_pointer() {
        let r = range(8.0, 12.0);
        assert_eq!(r.x(secs(8.0), W), PAD_X);
        assert_eq!(r.x(secs(10.0), W), PAD_X + 500.0);
        assert!(r.x(secs(2.0), W) < 0.0 && r.x(secs(15.0), W) > W);
        assert_eq!(r.time_at(0.0, W), secs(8.0));
        assert_eq!(r.time_at(W + 50.0, W), secs(12.0));
    }

    #[test]
    fn zooming_around_a_time_keeps_that_time_where_it_was_on_the_canvas() {
        let horizon = secs(20.0);
        let whole = Range::whole(horizon);
        for (t, factor) in [(9.3, 2.0), (1.0, 10.0), (19.5, 1.5), (12.25, 1000.0)] {
            let x = whole.x(secs(t), W);
            let zoomed = whole.zoomed_at(secs(t), factor, W, horizon);
            assert!(
                (zoomed.x(secs(t), W) - x).abs() < 0.01,
                "{t} s stays at x {x} at {factor}x: {zoomed:?}"
            );
            let expected = (20e6 / factor).round() as u64;
            assert!(zoomed.span().abs_diff(expected) <= 1, "{zoomed:?}");
            // And zooming back out returns to the whole axis.
            let back = zoomed.zoomed_at(secs(t), 1.0 / factor, W, horizon);
            assert!(back.is_whole(horizon), "{back:?}");
        }
    }

    #[test]
    fn zooming_stops_at_a_millisecond_and_at_the_whole_axis() {
        let horizon = secs(20.0);
        let deep = Range::whole(horizon).zoomed_at(secs(10.0), 1e9, W, horizon);
        assert_eq!(deep.span(), MIN_VIEW.micros());
        let out = range(8.0, 12.0).zoomed_at(secs(10.0), 0.001, W, horizon);
        assert_eq!(out, Range::whole(horizon));
        // An axis shorter than a millisecond is shown whole.
        let tiny = Time(600);
        assert_eq!(
            Range::whole(tiny).zoomed_at(Time(300), 10.0, W, tiny),
            Range::whole(tiny)
        );
    }

    #[test]
    fn zooming_near_an_end_keeps_the_range_inside_the_trace() {
        let horizon = secs(20.0);
        let near_start = range(0.0, 4.0).zoomed_at(secs(0.5), 0.5, W, horizon);
        assert_eq!(near_start, range(0.0, 8.0), "held at 0, not before it");
        let near_end = range(16.0, 20.0).zoomed_at(secs(19.0), 0.5, W, horizon);
        assert_eq!(near_end, range(12.0, 20.0));
    }

    #[test]
    fn panning_moves_by_the_time_a_pixel_covers_and_stops_at_both_ends() {
        let horizon = secs(20.0);
        let r = range(8.0, 12.0);
        // 4 s over 1000 px: 100 px is 0.4 s.
        assert_eq!(r.panned(100.0, W, horizon), range(8.4, 12.4));
        assert_eq!(r.panned(-100.0, W, horizon), range(7.6, 11.6));
        assert_eq!(r.panned(-1e6, W, horizon), range(0.0, 4.0));
        assert_eq!(r.panned(1e6, W, horizon), range(16.0, 20.0));
        assert_eq!(
            Range::whole(horizon).panned(300.0, W, horizon),
            Range::whole(horizon),
            "the whole axis has nowhere to go"
        );
    }

    #[test]
    fn a_pinch_keeps_the_times_under_both_fingers_under_them() {
        let horizon = secs(20.0);
        let whole = Range::whole(horizon);
        let (a, b) = (secs(5.0), secs(10.0));
        // The fingers spread from 250 px apart to 500 px apart, around the same middle.
        let (xa, xb) = (whole.x(a, W) - 125.0, whole.x(b, W) + 125.0);
        let pinched = whole.through((a, xa), (b, xb), W, horizon);
        assert!((pinched.x(a, W) - xa).abs() < 0.01, "{pinched:?}");
        assert!((pinched.x(b, W) - xb).abs() < 0.01, "{pinched:?}");
        assert_eq!(pinched.span(), 10_000_000);
        // Fingers on one spot change nothing about the span.
        assert_eq!(
            whole.through((a, 300.0), (b, 301.0), W, horizon).span(),
            whole.span()
        );
    }

    #[test]
    fn a_selected_request_outside_the_range_brings_the_range_to_it() {
        let horizon = secs(20.0);
        let r = range(8.0, 12.0);
        assert_eq!(r.revealing(secs(10.0), horizon), r, "inside: nothing moves");
        assert_eq!(r.revealing(secs(13.0), horizon), range(9.4, 13.4));
        assert_eq!(r.revealing(secs(2.0), horizon), range(1.6, 5.6));
        assert_eq!(r.revealing(secs(0.1), horizon), range(0.0, 4.0));
    }

    #[test]
    fn a_link_from_a_longer_trace_is_moved_inside_this_one() {
        let horizon = secs(20.0);
        assert_eq!(
            Range::fit(Some((secs(30.0), secs(34.0))), horizon),
            range(16.0, 20.0)
        );
        assert_eq!(
            Range::fit(Some((secs(5.0), secs(500.0))), horizon),
            Range::whole(horizon)
        );
        assert_eq!(Range::fit(None, horizon), Range::whole(horizon));
        assert_eq!(
            Range::fit(Some((secs(8.0), secs(12.0))), horizon),
            range(8.0, 12.0)
        );
    }

    #[test]
    fn a_link_writes_the_ends_to_a_thousandth_of_the_span() {
        let horizon = secs(20.0);
        let r = Range {
            from: Time(8_123_457),
            to: Time(12_499_920),
        };
        assert_eq!(
            r.as_view(horizon),
            Some((Time(8_123_000), Time(12_500_000)))
        );
        let narrow = Range {
            from: Time(8_000_123),
            to: Time(8_001_124),
        };
        assert_eq!(narrow.as_view(horizon), Some((narrow.from, narrow.to)));
        // Rounding that reaches both ends is the whole axis again.
        let nearly = Range {
            from: Time(400),
            to: Time(19_999_800),
        };
        assert_eq!(nearly.as_view(horizon), None);
    }
}
