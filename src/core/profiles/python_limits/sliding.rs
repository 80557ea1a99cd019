//! `SlidingWindowCounterRateLimiter` over `MemoryStorage.acquire_sliding_window_entry` and
//! `get_sliding_window`: two counters on clock-aligned windows, the previous one weighted by the
//! time left in the current window, all in doubles.

use crate::core::config::ConfigError;
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::profiles::{Product, ProductReply};
use crate::core::time::{Span, Time};

use super::{floor_int, py_mod, reply, Clock, PyLimitsParams, WindowStats};

/// One window's counter: the key `f"{key}/{index}"`, its count and its `expirations` entry.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Slot {
    index: i64,
    count: u64,
    expires: f64,
}

/// The counters a call reads and writes: `_get_sliding_window_info`'s values (the current
/// window's ttl, needed only by the stats, is computed there) and the current window's key.
#[derive(Clone, Copy, Debug)]
struct Window {
    previous_count: u64,
    previous_ttl: f64,
    current_count: u64,
    previous_index: i64,
    current_index: i64,
    /// `now / expiry`, the division the current key is taken from.
    ratio: f64,
}

/// What `acquire_sliding_window_entry` does with a hit.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Outcome {
    /// Refused before counting.
    Refused,
    /// Counted (the slot as it is left), then allowed or, when the recomputed weighted count
    /// floors above the amount, decremented again and refused.
    Counted { slot: Slot, allowed: bool },
}

/// Counters kept: the previous and current windows' (and, should a rounding make the two keys
/// two windows apart, the one between).
const SLOTS: usize = 3;

/// A time found for the counters as they were, the first at or after the `now` it was found from
/// at which a condition on them holds; it depends on nothing else, so while they are unchanged
/// it is the first at or after any later `now` up to it too. The counters are named by their
/// version (see `SlidingWindowCounterRateLimiter::version`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Found {
    version: u64,
    cost: u64,
    at: Option<Time>,
}

impl Found {
    /// The time found, for a condition that stays true once it holds (at rest from then on):
    /// `now` once it has passed.
    fn get(cache: Option<Found>, version: u64, cost: u64, now: Time) -> Option<Option<Time>> {
        cache
            .filter(|f| f.version == version && f.cost == cost)
            .map(|f| f.at.map(|at| at.max(now)))
    }

    /// The time found, for a condition that can fail again after it holds (a hit passing, at a
    /// reading of the clock that goes down a moment later): only until it has passed.
    fn ahead(cache: Option<Found>, version: u64, cost: u64, now: Time) -> Option<Option<Time>> {
        cache
            .filter(|f| f.version == version && f.cost == cost)
            .filter(|f| f.at.is_none_or(|at| at >= now))
            .map(|f| f.at)
    }
}

/// `SlidingWindowCounterRateLimiter(MemoryStorage())` for one item and one key.
#[derive(Clone, Debug)]
pub struct SlidingWindowCounterRateLimiter {
    params: PyLimitsParams,
    expiry: u64,
    clock: Clock,
    slots: [Option<Slot>; SLOTS],
    /// Changes whenever `slots` do (it counts their changes), so that a found time is checked
    /// against the counters by one comparison.
    version: u64,
    latest: Time,
    /// When the counters were last found to hold nothing (cost unused).
    rest: Option<Found>,
    /// When a refused hit of `cost` was last found to pass.
    retry: Option<Found>,
}

impl SlidingWindowCounterRateLimiter {
    pub fn new(params: PyLimitsParams) -> Result<SlidingWindowCounterRateLimiter, ConfigError> {
        let expiry = params.validate()?;
        Ok(SlidingWindowCounterRateLimiter {
            params,
            expiry,
            clock: Clock {
                epoch: params.epoch,
            },
            slots: [None; SLOTS],
            version: 0,
            latest: Time::ZERO,
            rest: None,
            retry: None,
        })
    }

    pub fn params(&self) -> &PyLimitsParams {
        &self.params
    }

    fn expiry_f(&self) -> f64 {
        self.expiry as f64
    }

    /// `sliding_window_keys`: `(int((now - expiry) / expiry), int(now / expiry))`; `int()`
    /// truncates toward zero.
    fn keys(&self, t: f64) -> (i64, i64) {
        let w = self.expiry_f();
        // `as` truncates toward zero itself (and saturates).
        (((t - w) / w) as i64, (t / w) as i64)
    }

    /// `storage.get(f"{key}/{index}")` at `t`: 0 once expired.
    fn slot(&self, index: i64, t: f64) -> Option<Slot> {
        self.slots
            .iter()
            .flatten()
            .find(|s| s.index == index && s.expires > t)
            .copied()
    }

    fn count(&self, index: i64, t: f64) -> u64 {
        self.slot(index, t).map_or(0, |s| s.count)
    }

    /// `_get_sliding_window_info` at `t`.
    fn window(&self, t: f64) -> Window {
        let w = self.expiry_f();
        let (previous_ratio, ratio) = ((t - w) / w, t / w);
        // `keys`: `as` truncates toward zero itself.
        let (previous_index, current_index) = (previous_ratio as i64, ratio as i64);
        let previous_count = self.count(previous_index, t);
        let previous_ttl = if previous_count == 0 {
            0.0
        } else {
            (1.0 - py_mod(previous_ratio, 1.0)) * w
        };
        Window {
            previous_count,
            previous_ttl,
            current_count: self.count(current_index, t),
            previous_index,
            current_index,
            ratio,
        }
    }

    /// `previous_count * previous_ttl / expiry + current_count`, in that order, in doubles.
    fn weighted(&self, previous_count: u64, previous_ttl: f64, current_count: u64) -> f64 {
        previous_count as f64 * previous_ttl / self.expiry_f() + current_count as f64
    }

    /// `acquire_sliding_window_entry(key, amount, expiry, cost)` at `t`, without writing.
    fn assess(&self, t: f64, cost: u64) -> Outcome {
        if cost > self.params.amount {
            return Outcome::Refused;
        }
        self.assess_in(self.window(t), t, cost)
    }

    /// `assess` with `_get_sliding_window_info` at `t` already read (`win`).
    fn assess_in(&self, win: Window, t: f64, cost: u64) -> Outcome {
        let amount = u128::from(self.params.amount);
        let before = self.weighted(win.previous_count, win.previous_ttl, win.current_count);
        if floor_int(before) + u128::from(cost) > amount {
            return Outcome::Refused;
        }
        // `incr(current_key, 2 * expiry, amount=cost)`: a counter found at 0 expires
        // `2 * expiry` from now.
        let found = self.slot(win.current_index, t);
        let count = found.map_or(0, |s| s.count).saturating_add(cost);
        let expires = match found {
            Some(s) if s.count > 0 => s.expires,
            _ => t + (2 * self.expiry) as f64,
        };
        let after = self.weighted(win.previous_count, win.previous_ttl, count);
        let allowed = floor_int(after) <= amount;
        Outcome::Counted {
            slot: Slot {
                index: win.current_index,
                // `decr` takes the cost back (never below 0).
                count: if allowed { count } else { count - cost },
                expires,
            },
            allowed,
        }
    }

    /// Writes the counted slot, forgetting counters no key can reach again: those out of reach
    /// of the keys, or expired, at `least`, the lowest reading from now on
    /// (`Clock::least_from`).
    fn store(&mut self, slot: Slot, least: f64) {
        let (previous_index, _) = self.keys(least);
        let old = self.slots;
        for s in &mut self.slots {
            if s.is_some_and(|s| {
                s.index < previous_index || s.expires <= least || s.index == slot.index
            }) {
                *s = None;
            }
        }
        let place = match self.slots.iter().position(Option::is_none) {
            Some(free) => free,
            // Never reached (at most three indexes are reachable); keep the newest.
            None => (0..SLOTS)
                .min_by_key(|&i| self.slots[i].map_or(i64::MIN, |s| s.index))
                .unwrap_or(0),
        };
        self.slots[place] = Some(slot);
        if self.slots != old {
            self.version = self.version.wrapping_add(1);
        }
    }

    /// `limiter.hit(item, cost=cost)` at `now`.
    pub fn hit(&mut self, now: Time, cost: u64) -> bool {
        let now = now.max(self.latest);
        self.latest = now;
        let t = self.clock.read(now);
        match self.assess(t, cost) {
            Outcome::Refused => false,
            Outcome::Counted { slot, allowed } => {
                self.store(slot, self.clock.least_from(now, t));
                allowed
            }
        }
    }

    /// `limiter.test(item, cost=cost)`: `weighted < amount - cost + 1`, compared as Python
    /// compares a float with an int (exactly).
    pub fn test(&self, now: Time, cost: u64) -> bool {
        let t = self.clock.read(now.max(self.latest));
        let win = self.window(t);
        let weighted = self.weighted(win.previous_count, win.previous_ttl, win.current_count);
        let bound = i128::from(self.params.amount) - i128::from(cost) + 1;
        // For a non-negative float x and an integer n: x < n exactly when floor(x) < n.
        i128::try_from(floor_int(weighted)).unwrap_or(i128::MAX) < bound
    }

    /// `limiter.get_window_stats(item)`.
    pub fn get_window_stats(&self, now: Time) -> WindowStats {
        let t = self.clock.read(now.max(self.latest));
        self.stats_of(self.window(t), t)
    }

    /// `get_window_stats` with `_get_sliding_window_info` at `t` already read (`win`).
    fn stats_of(&self, win: Window, t: f64) -> WindowStats {
        let weighted = self.weighted(win.previous_count, win.previous_ttl, win.current_count);
        let floor = i128::try_from(floor_int(weighted)).unwrap_or(i128::MAX);
        let remaining = (i128::from(self.params.amount) - floor).max(0);
        if win.previous_count == 0 && win.current_count == 0 {
            return WindowStats {
                reset_time: t,
                remaining,
            };
        }
        let w = self.expiry_f();
        let previous_reset_in = if win.previous_count > 0 {
            py_mod(
                win.previous_ttl,
                self.expiry as f64 / win.previous_count as f64,
            )
        } else {
            f64::INFINITY
        };
        let current_reset_in = if win.current_count > 0 {
            let current_ttl = (1.0 - py_mod(win.ratio, 1.0)) * w + w;
            py_mod(current_ttl, w)
        } else {
            f64::INFINITY
        };
        WindowStats {
            reset_time: t + previous_reset_in.min(current_reset_in),
            remaining,
        }
    }

    /// True when no counter that holds a count can be read again: each is out of reach of the
    /// window keys or expired, at `now` and every later time. Each is so at a reading once it is
    /// at a lower one, so it is enough that it is at the lowest reading from `now` on
    /// (`Clock::least_from`); at `now` alone it is not, where the readings go down.
    fn holds_nothing(&self, now: Time) -> bool {
        let t = self.clock.least_from(now, self.clock.read(now));
        let (previous_index, _) = self.keys(t);
        self.slots
            .iter()
            .flatten()
            .all(|s| s.count == 0 || s.index < previous_index || s.expires <= t)
    }

    /// A lab time near the one at which the same hit would pass, from the two windows' counts
    /// (the exact answer is then found on the float predicate).
    fn pass_guess(&self, now: Time, cost: u64) -> u64 {
        let t = self.clock.read(now);
        let win = self.window(t);
        let w = self.expiry_f();
        let k = win.current_index as f64;
        let room = self.params.amount as f64 - cost as f64 + 1.0;
        let (previous, current) = (win.previous_count as f64, win.current_count as f64);
        let at = if room - current > 0.0 && previous > 0.0 {
            // previous × (time left in this window) / w + current < room
            (k + 1.0) * w - (room - current) * w / previous
        } else if current > 0.0 {
            // Next window: this window's count is the previous one.
            (k + 2.0) * w - room * w / current
        } else {
            (k + 1.0) * w
        };
        self.clock.guess(at)
    }

    /// The first time from `now` at which the counters hold nothing.
    fn find_rest(&self, now: Time) -> Option<Time> {
        let w = self.expiry_f();
        let guess = self
            .slots
            .iter()
            .flatten()
            .filter(|s| s.count > 0)
            .map(|s| {
                let out_of_reach = self.clock.guess((s.index as f64 + 2.0) * w);
                out_of_reach.min(self.clock.guess(s.expires))
            })
            .max()
            .unwrap_or(now.micros());
        super::first_time(now, guess, |t| self.holds_nothing(t))
    }

    /// The first time from `now` at which a hit of `cost` would pass: it passes at a reading
    /// once it passes at a lower one, so the first reading it passes at is searched for
    /// (`Clock::first_reading`).
    fn find_pass(&self, now: Time, cost: u64) -> Option<Time> {
        self.clock
            .first_reading(now, self.pass_guess(now, cost), |_, t| {
                matches!(self.assess(t, cost), Outcome::Counted { allowed: true, .. })
            })
    }

    /// `hit` then `get_window_stats` at the same instant, the clock and the counters read once:
    /// the stats read the counters the hit read, but for the current one as the hit left it.
    fn hit_and_stats(&mut self, now: Time, cost: u64) -> (bool, WindowStats) {
        let now = now.max(self.latest);
        self.latest = now;
        let t = self.clock.read(now);
        let win = self.window(t);
        if cost > self.params.amount {
            return (false, self.stats_of(win, t));
        }
        match self.assess_in(win, t, cost) {
            Outcome::Refused => (false, self.stats_of(win, t)),
            Outcome::Counted { slot, allowed } => {
                self.store(slot, self.clock.least_from(now, t));
                // `store` keeps the previous window's counter (it is not expired, a free place
                // is always left for the current one), unless both keys name one counter.
                let after = if win.previous_index == win.current_index {
                    self.window(t)
                } else {
                    Window {
                        current_count: slot.count,
                        ..win
                    }
                };
                (allowed, self.stats_of(after, t))
            }
        }
    }

    fn call(&mut self, now: Time, cost: u64) -> (Decision, WindowStats, bool) {
        let (hit, stats) = self.hit_and_stats(now, cost);
        let now = self.latest;
        let rest = match Found::get(self.rest, self.version, 0, now) {
            Some(at) => at,
            None => {
                let at = self.find_rest(now);
                self.rest = Some(Found {
                    version: self.version,
                    cost: 0,
                    at,
                });
                at
            }
        };
        let retry_after = if hit || cost > self.params.amount {
            None
        } else {
            let at = match Found::ahead(self.retry, self.version, cost, now) {
                Some(at) => at,
                None => {
                    let at = self.find_pass(now, cost);
                    self.retry = Some(Found {
                        version: self.version,
                        cost,
                        at,
                    });
                    at
                }
            };
            at.map(|at| at.since(now))
        };
        let decision = Decision {
            verdict: if hit {
                Verdict::Allowed
            } else {
                Verdict::Rejected
            },
            limit: self.params.amount,
            remaining: stats.remaining_count(),
            reset_after: rest.map_or(Span(u64::MAX), |at| at.since(now)),
            retry_after,
        };
        (decision, stats, hit)
    }
}

impl Limiter for SlidingWindowCounterRateLimiter {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        self.call(now, cost).0
    }

    fn admit(&mut self, now: Time, cost: u64) -> Verdict {
        if self.hit(now, cost) {
            Verdict::Allowed
        } else {
            Verdict::Rejected
        }
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    fn gauge(&self, now: Time) -> Gauge {
        let t = self.clock.read(now.max(self.latest));
        let win = self.window(t);
        Gauge {
            level: self.weighted(win.previous_count, win.previous_ttl, win.current_count),
            max: self.params.amount as f64,
            unit: "weighted count",
        }
    }

    fn is_at_rest(&self, now: Time) -> bool {
        self.holds_nothing(now.max(self.latest))
    }
}

impl Product for SlidingWindowCounterRateLimiter {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let (decision, stats, hit) = self.call(now, cost);
        (decision, reply(hit, &stats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::profiles::python_limits::Granularity;

    fn limiter(amount: u64, expiry_secs: u64, epoch: u64) -> SlidingWindowCounterRateLimiter {
        SlidingWindowCounterRateLimiter::new(
            PyLimitsParams::new(amount, expiry_secs, Granularity::Second).with_epoch(epoch),
        )
        .unwrap()
    }

    #[test]
    fn a_refused_hit_is_not_counted() {
        let mut l = limiter(2, 10, 1_000_000);
        assert!(l.hit(Time::ZERO, 2));
        assert!(!l.hit(Time::from_secs(1), 1));
        assert_eq!(l.count(100_000, l.clock.read(Time::from_secs(1))), 2);
    }

    #[test]
    fn windows_are_aligned_on_the_clock_not_on_the_first_hit() {
        // The epoch is a multiple of 10: windows start at lab 0, 10, 20, ... s.
        let mut l = limiter(2, 10, 1_000_000);
        assert!(l.hit(Time::from_secs(9), 2));
        // At 10 s the previous window's 2 weigh (1 - 0) × 2 = 2: still refused.
        assert!(!l.hit(Time::from_secs(10), 1));
        // At 15 s they weigh 1: one more passes.
        assert!(l.hit(Time::from_secs(15), 1));
        assert!(!l.hit(Time::from_secs(15), 1));
    }

    #[test]
    fn the_previous_window_weighs_by_the_time_left_in_the_current_one() {
        let mut l = limiter(10, 10, 1_000_000);
        assert!(l.hit(Time::from_secs(5), 10));
        let s = l.get_window_stats(Time::from_secs(12));
        // 10 × 8 / 10 = 8: two left, and the next unit frees up in 8 % (10 / 10) = 0 s... the
        // float ttl is exactly 8, so the modulo is 0 and the reset time is now.
        assert_eq!(s.remaining, 2);
        assert_eq!(s.reset_time, 1_000_012.0);
        let s = l.get_window_stats(Time::from_millis(12_500));
        assert_eq!(s.reset_time, 1_000_013.0);
    }

    #[test]
    fn a_cost_above_the_amount_is_refused_before_anything_is_read() {
        let mut l = limiter(3, 10, 1_000_000);
        let d = l.decide(Time::ZERO, 4);
        assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
        assert_eq!(l.slots, [None; SLOTS]);
    }

    #[test]
    fn on_a_clock_below_one_window_both_keys_are_the_same_counter() {
        // epoch 0: `int((now - 60) / 60)` is int(-0.5) = 0 at 30 s, the current key.
        let mut l = limiter(10, 60, 0);
        assert!(l.hit(Time::from_secs(30), 4));
        let t = l.clock.read(Time::from_secs(30));
        assert_eq!(l.keys(t), (0, 0));
        // 4 × 30 / 60 + 4 = 6.
        assert_eq!(l.get_window_stats(Time::from_secs(30)).remaining, 4);
    }

    #[test]
    fn a_refused_hit_waits_until_the_weighted_count_has_room() {
        let mut l = limiter(10, 10, 1_000_000);
        assert!(l.hit(Time::from_secs(9), 10));
        // At 10 s: 10 × 10 / 10 = 10, refused; it passes when floor(10 × (20 - t) / 10) <= 9,
        // that is from t > 10 s: 10.000001 s.
        let d = l.decide(Time::from_secs(10), 1);
        assert_eq!(d.verdict, Verdict::Rejected);
        assert_eq!(d.retry_after, Some(Span(1)));
        assert!(l.peek(Time(10_000_001), 1).allowed());
        // The limiter forgets the window once no key reaches it: at 20 s.
        assert_eq!(d.reset_after, Span::from_secs(10));
    }

    /// The lab's second 1_676_976_733_990 (a whole second near the end of the lab's time) and
    /// the reading `time.time()` gives there on the default clock of a 1 s window.
    const SECOND: u64 = 1_676_976_733_990_000_000;
    const READS: f64 = 1_678_676_733_990.0;

    #[test]
    fn far_from_1970_the_clock_reads_back_into_the_last_second_just_after_a_whole_second() {
        let clock = limiter(3, 1, 1_700_000_000).clock;
        assert_eq!(clock.read(Time(SECOND)), READS);
        // 1_678_676_733_990 × 10^9 ns is no double: the next microsecond's nanoseconds round to
        // the double 130_048 ns below it, which divides to one ULP (2^-12 s) below.
        assert_eq!(clock.read(Time(SECOND + 1)), READS - 1.0 / 4096.0);
        assert_eq!(clock.read(Time(SECOND + 2)), READS + 1.0 / 4096.0);
        let least = |t: u64| clock.least_from(Time(t), clock.read(Time(t)));
        assert_eq!(least(SECOND - 1), READS - 1.0 / 4096.0);
        assert_eq!(least(SECOND), READS - 1.0 / 4096.0);
        assert_eq!(least(SECOND + 1), READS - 1.0 / 4096.0);
        assert_eq!(least(SECOND + 2), READS + 1.0 / 4096.0);
        // Where the readings never go down, the lowest from now on is now's.
        for t in [90_000_000, 999_999] {
            assert_eq!(least(t), clock.read(Time(t)));
        }
    }

    #[test]
    fn counters_rest_only_from_the_microsecond_no_later_reading_reaches_them() {
        // The property test's case: 3 counted at the lab's 1_676_976_733_988.072_880 s, in the
        // window of 1_678_676_733_988 s, then peeked at 125 ms later with a hit of 1.
        let hit_at = Time(SECOND - 1_927_120);
        let at = Time(hit_at.micros() + 125_000);
        let fresh = limiter(3, 1, 1_700_000_000);
        let mut deciding = fresh.clone();
        let mut hitting = fresh.clone();
        // `decide` finds the rest time at the hit and keeps it; `hit` finds nothing.
        assert!(deciding.decide(hit_at, 3).allowed());
        assert!(hitting.hit(hit_at, 3));
        // At the whole second both keys (..989 and ..990) are past the counter's, but the next
        // microsecond reads ..989.99976 and its keys (..988 and ..989) reach it again: the
        // library's stats there still name its time to live, a fresh limiter's now.
        let back = Time(SECOND + 1);
        assert_ne!(
            hitting.get_window_stats(back).reset_time,
            fresh.get_window_stats(back).reset_time
        );
        assert!(!hitting.is_at_rest(Time(SECOND)));
        assert!(!hitting.is_at_rest(back));
        assert!(hitting.is_at_rest(Time(SECOND + 2)));
        let rest = Time(SECOND + 2).since(at);
        assert_eq!(rest, Span(1_802_122));
        for l in [&deciding, &hitting] {
            let d = l.peek(at, 1);
            assert_eq!((d.verdict, d.reset_after), (Verdict::Rejected, rest));
        }
        assert_eq!(deciding.peek(at, 1), hitting.peek(at, 1));
    }

    #[test]
    fn a_refused_hit_is_told_the_first_microsecond_whose_reading_lets_it_pass() {
        // 4096 counted two windows before the whole second: a microsecond after it the clock
        // reads back into the window after theirs, where they weigh 4096 × 2^-12 = 1.
        let mut deciding = limiter(4096, 1, 1_700_000_000);
        assert!(deciding.hit(Time(SECOND - 1_500_100), 4096));
        let mut hitting = deciding.clone();
        let before = Time(SECOND - 300_000);
        let d = deciding.decide(before, 4096);
        assert_eq!(d.verdict, Verdict::Rejected);
        // It passes at the whole second, not the microsecond after, and again from the next.
        assert_eq!(d.retry_after, Some(Time(SECOND).since(before)));
        assert!(deciding.peek(Time(SECOND), 4096).allowed());
        assert!(!deciding.peek(Time(SECOND + 1), 4096).allowed());
        assert!(deciding.peek(Time(SECOND + 2), 4096).allowed());
        // Refused a microsecond after it, the time found before has passed and is found again.
        assert!(!hitting.hit(before, 4096));
        let d = deciding.decide(Time(SECOND + 1), 4096);
        assert_eq!(
            (d.verdict, d.retry_after),
            (Verdict::Rejected, Some(Span(1)))
        );
        assert_eq!(hitting.peek(Time(SECOND + 1), 4096), d);
    }
}
