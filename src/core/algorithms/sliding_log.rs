//! Sliding log: remember the time of every request let through, and for a new request count only
//! those from the trailing window `(now - window, now]`.
//!
//! Semantics follow the sliding-window Durable Object seed exactly: the log is trimmed on read
//! (an entry exactly `window` old has expired), only allowed requests are logged (a client
//! hammering a closed door does not extend its own penalty), a request of cost `c` logs `c`
//! entries, and the answer carries
//! - `remaining = max(0, limit - entries)` after the decision,
//! - `reset = max(0, oldest + window - now)`, where `oldest` is the first entry still held
//!   (or `now` when the log is empty),
//! - `retry_after = max(1 ms, reset)` for a rejection.
//!
//! With `count_refused`, refused requests are logged too, as a log kept by every hit (a Redis
//! sorted set that `ZADD`s before it counts) does: a client that never stops is then locked out
//! for good, since each refused hit keeps the window full. A rejection's retry time is then when
//! enough entries have left for the request to fit, not only the oldest.
//!
//! It keeps the promise "never more than `limit` in any window" exactly, at the price of one
//! timestamp per allowed request (up to `limit` per key; with `count_refused`, one per hit). Trimming pops from the front of a ring
//! buffer, so a decision is O(1) amortised whatever the limit.

use std::collections::VecDeque;

use crate::core::config::Quota;
use crate::core::decision::{Decision, Gauge, Limiter, Verdict};
use crate::core::time::{Span, Time};

/// The floor the seed puts under a rejection's retry time.
const MIN_RETRY: Span = Span::from_millis(1);

#[derive(Clone, Debug)]
pub struct SlidingLog {
    quota: Quota,
    count_refused: bool,
    log: VecDeque<Time>,
    latest: Time,
}

impl SlidingLog {
    /// Logs only what passed (the seed's sliding log).
    pub fn new(quota: Quota) -> SlidingLog {
        SlidingLog::with_options(quota, false)
    }

    /// True when refused requests are counted too (`count_refused`).
    pub fn counts_refused(&self) -> bool {
        self.count_refused
    }

    pub fn with_options(quota: Quota, count_refused: bool) -> SlidingLog {
        SlidingLog {
            quota,
            count_refused,
            log: VecDeque::new(),
            latest: Time::ZERO,
        }
    }

    /// Entries at or before this time have left the window.
    fn cutoff(&self, now: Time) -> Option<Time> {
        now.micros()
            .checked_sub(self.quota.window().micros())
            .map(Time)
    }

    /// Index of the first entry still inside the window at `now`.
    fn first_live(&self, now: Time) -> usize {
        match self.cutoff(now) {
            Some(cutoff) => self.log.partition_point(|&t| t <= cutoff),
            None => 0,
        }
    }

    /// The log's timestamps, oldest first (what a Durable Object would persist).
    pub fn entries(&self) -> impl Iterator<Item = Time> + '_ {
        self.log.iter().copied()
    }

    /// Rebuilds a limiter from persisted timestamps.
    pub fn restore(quota: Quota, entries: impl IntoIterator<Item = Time>) -> SlidingLog {
        let mut log: Vec<Time> = entries.into_iter().collect();
        log.sort_unstable();
        let latest = log.last().copied().unwrap_or(Time::ZERO);
        SlidingLog {
            quota,
            count_refused: false,
            log: log.into(),
            latest,
        }
    }

    /// Logs a request of `cost` at `now`.
    #[inline(always)]
    fn log_hit(&mut self, now: Time, cost: u64) {
        if cost == 1 {
            self.log.push_back(now);
        } else {
            self.log.extend(std::iter::repeat_n(now, cost as usize));
        }
    }

    /// The answer at `now`, when the live entries are the log's from `first` on and then
    /// `pending` more at `now` (a peek's request, logged by `decide` but not by a peek).
    fn answer(&self, now: Time, passes: bool, first: usize, pending: u64, cost: u64) -> Decision {
        let limit = self.quota.limit();
        let live = self.log.len() - first + pending as usize;
        // A live entry past the log's end is a pending one, at `now`.
        let oldest = self.log.get(first).copied().unwrap_or(now);
        let reset_after = oldest.plus(self.quota.window()).since(now);
        let retry_after = if self.count_refused {
            // The request fits once `live - (limit - cost)` of the entries have left: wait
            // for the last of them (every entry, for a request that can never fit).
            let must_leave = (live as u64).saturating_sub(limit.saturating_sub(cost));
            let last_to_leave = (must_leave as usize).clamp(1, live.max(1)) - 1;
            let last = self.log.get(first + last_to_leave).copied().unwrap_or(now);
            last.plus(self.quota.window()).since(now)
        } else {
            reset_after
        };
        Decision {
            verdict: if passes {
                Verdict::Allowed
            } else {
                Verdict::Rejected
            },
            limit,
            remaining: limit.saturating_sub(live as u64),
            reset_after,
            retry_after: if passes {
                None
            } else {
                Some(retry_after.max(MIN_RETRY))
            },
        }
    }
}

impl Limiter for SlidingLog {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        let passes = self.admit(now, cost).passes();
        self.answer(self.latest, passes, 0, 0, cost)
    }

    #[inline]
    fn admit(&mut self, now: Time, cost: u64) -> Verdict {
        let now = now.max(self.latest);
        self.latest = now;
        if let Some(cutoff) = self.cutoff(now) {
            while self.log.front().is_some_and(|&t| t <= cutoff) {
                self.log.pop_front();
            }
        }
        // Passing, cost <= limit, so a log of passed requests never holds more than `limit`.
        if (self.log.len() as u64).saturating_add(cost) <= self.quota.limit() {
            self.log_hit(now, cost);
            Verdict::Allowed
        } else {
            // Whether refusals count is read on a refusal's branch only, and each branch knows
            // its verdict: two instructions fewer per request than testing `passes` again.
            if self.count_refused {
                self.log_hit(now, cost);
            }
            Verdict::Rejected
        }
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        let now = now.max(self.latest);
        let first = self.first_live(now);
        let passes = ((self.log.len() - first) as u64).saturating_add(cost) <= self.quota.limit();
        let pending = if passes || self.count_refused {
            cost
        } else {
            0
        };
        self.answer(now, passes, first, pending, cost)
    }

    fn is_at_rest(&self, now: Time) -> bool {
        self.first_live(now.max(self.latest)) == self.log.len()
    }

    fn gauge(&self, now: Time) -> Gauge {
        let now = now.max(self.latest);
        let live = self.log.len() - self.first_live(now);
        Gauge {
            level: live as f64,
            max: self.quota.limit() as f64,
            unit: "entries in the log",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's test suite uses a limit of 3 per 1000 ms.
    fn three_per_second() -> SlidingLog {
        SlidingLog::new(Quota::new(3, Span::from_millis(1000)).unwrap())
    }

    const NOON: u64 = 1_000_000; // any start in ms; the seed starts at 12:00:00.000

    #[test]
    fn allows_up_to_the_limit_and_then_denies() {
        let mut limiter = three_per_second();
        let now = Time::from_millis(NOON);
        for _ in 0..3 {
            assert!(limiter.decide(now, 1).allowed());
        }
        let fourth = limiter.decide(now, 1);
        assert!(!fourth.allowed());
        assert_eq!(fourth.remaining, 0);
    }

    #[test]
    fn does_not_permit_a_double_burst_across_a_clock_boundary() {
        // 12:00:59.500 then 12:01:00.100: a new minute, the same sliding window.
        let mut limiter = three_per_second();
        let before = Time::from_millis(NOON + 59_500);
        for _ in 0..3 {
            assert!(limiter.decide(before, 1).allowed());
        }
        assert!(!limiter
            .decide(Time::from_millis(NOON + 60_100), 1)
            .allowed());
    }

    #[test]
    fn recovers_capacity_as_the_window_slides_past_the_oldest_entry() {
        let mut limiter = three_per_second();
        for _ in 0..3 {
            limiter.decide(Time::from_millis(NOON), 1);
        }
        assert!(limiter.decide(Time::from_millis(NOON + 1001), 1).allowed());
    }

    #[test]
    fn an_entry_exactly_one_window_old_has_expired() {
        let mut limiter = three_per_second();
        for _ in 0..3 {
            limiter.decide(Time::from_millis(NOON), 1);
        }
        assert!(!limiter.decide(Time::from_millis(NOON + 999), 1).allowed());
        assert!(limiter.decide(Time::from_millis(NOON + 1000), 1).allowed());
    }

    #[test]
    fn denied_requests_do_not_extend_the_penalty() {
        let mut limiter = three_per_second();
        let start = Time::from_millis(NOON);
        for _ in 0..3 {
            limiter.decide(start, 1);
        }
        for _ in 0..10 {
            assert!(!limiter.decide(start, 1).allowed());
        }
        assert!(limiter.decide(Time::from_millis(NOON + 1001), 1).allowed());
    }

    #[test]
    fn retry_after_matches_when_capacity_returns() {
        let mut limiter = three_per_second();
        limiter.decide(Time::from_millis(NOON), 1);
        limiter.decide(Time::from_millis(NOON + 200), 1);
        limiter.decide(Time::from_millis(NOON + 400), 1);
        let denied = limiter.decide(Time::from_millis(NOON + 500), 1);
        let wait = denied
            .retry_after
            .expect("a rejection carries a retry time");
        assert!(wait > Span::ZERO && wait <= Span::from_millis(1000));
        assert_eq!(wait, Span::from_millis(500));
        let at = Time::from_millis(NOON + 500).plus(wait);
        assert!(
            !limiter.peek(Time(at.micros() - 1), 1).allowed(),
            "not a microsecond early"
        );
        assert!(
            limiter.decide(at, 1).allowed(),
            "capacity is back exactly then"
        );
    }

    #[test]
    fn a_request_of_cost_two_takes_two_places_in_the_log() {
        let mut limiter = three_per_second();
        let d = limiter.decide(Time::ZERO, 2);
        assert_eq!((d.allowed(), d.remaining), (true, 1));
        assert!(!limiter.decide(Time::ZERO, 2).allowed());
        assert!(limiter.decide(Time::ZERO, 1).allowed());
    }

    #[test]
    fn peek_agrees_with_decide_and_changes_nothing() {
        let mut limiter = three_per_second();
        for ms in [0, 300, 600, 900, 1200, 1250, 2400] {
            let now = Time::from_millis(ms);
            let peeked = limiter.peek(now, 1);
            assert_eq!(limiter.peek(now, 1), peeked);
            assert_eq!(limiter.decide(now, 1), peeked);
        }
    }

    #[test]
    fn restoring_from_persisted_entries_gives_no_free_window() {
        let mut first = three_per_second();
        for _ in 0..3 {
            first.decide(Time::from_millis(NOON), 1);
        }
        let saved: Vec<Time> = first.entries().collect();
        let mut revived =
            SlidingLog::restore(Quota::new(3, Span::from_millis(1000)).unwrap(), saved);
        assert!(!revived.decide(Time::from_millis(NOON + 10), 1).allowed());
    }

    #[test]
    fn a_log_that_counts_refused_hits_locks_out_a_client_that_never_stops() {
        let quota = Quota::new(5, Span::from_secs(10)).unwrap();
        let (mut plain, mut counting) = (
            SlidingLog::new(quota),
            SlidingLog::with_options(quota, true),
        );
        let every_second: Vec<Time> = (0..60).map(Time::from_secs).collect();
        let passed = |l: &mut SlidingLog| {
            every_second
                .iter()
                .filter(|&&t| l.admit(t, 1).passes())
                .count()
        };
        assert_eq!((passed(&mut plain), passed(&mut counting)), (30, 5));
    }

    #[test]
    fn counting_refused_hits_the_retry_time_waits_until_enough_entries_have_left() {
        let mut limiter =
            SlidingLog::with_options(Quota::new(2, Span::from_secs(10)).unwrap(), true);
        let at = |s| Time::from_secs(s);
        assert!(limiter.decide(at(0), 1).allowed());
        assert!(limiter.decide(at(1), 1).allowed());
        // Logged at 2 s and 3 s although refused: four entries, three must leave.
        assert_eq!(
            limiter.decide(at(2), 1).retry_after,
            Some(Span::from_secs(9))
        );
        let peeked = limiter.peek(at(3), 1);
        let refused = limiter.decide(at(3), 1);
        assert_eq!(peeked, refused);
        assert_eq!(
            refused.retry_after,
            Some(Span::from_secs(9)),
            "entries at 0, 1, 2 must leave"
        );
        assert!(
            !limiter.decide(at(11), 1).allowed(),
            "2, 3 and 11 are in the log"
        );
        assert!(limiter.decide(at(13), 1).allowed());
    }
}
