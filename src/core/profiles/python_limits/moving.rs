//! `MovingWindowRateLimiter` over `MemoryStorage.acquire_entry` and `get_moving_window`: a log
//! of entry timestamps, pruned only by the storage's 10 ms timer, which one storage runs for all
//! of its keys (`MemoryStorage.__schedule_expiry` and `__expire_events` in
//! `limits/storage/memory.py`).

use std::collections::VecDeque;

use crate::core::config::ConfigError;
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::profiles::{Product, ProductReply};
use crate::core::time::{Span, Time};

use super::{reply, Clock, PyLimitsParams, WindowStats, TIMER_INTERVAL};

/// The entries one allowed hit put in the log: `cost` references to one `Entry`, so they share
/// `atime` and `expiry`. Positions count every entry ever recorded, oldest first.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run {
    /// `Entry.atime`: `time.time()` at the hit.
    atime: f64,
    /// `Entry.expiry`: `atime + expiry`.
    expiry: f64,
    /// The position of the run's first entry.
    start: u64,
    /// One past the position of its last entry.
    end: u64,
}

/// The storage's expiry timer. One `MemoryStorage` has one, for all of its keys: any key's
/// `acquire_entry` starts it again when it is not running (`__schedule_expiry`), and when it
/// fires (`__expire_events`) it prunes every key's log. The keys of one storage hand it on from
/// call to call ([`MovingWindowRateLimiter::storage_timer`], [`MovingWindowRateLimiter::join_storage_timer`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StorageTimer {
    /// When it fires, if it is running: it was started with the storage, at the lab's time 0.
    due: Option<Time>,
    /// The highest `time.time()` it has fired at (minus infinity before it first fires): every
    /// key's log has lost the entries whose `expiry` is at or before it. A key's own log is
    /// pruned to it at the key's next call; pruning again by an earlier firing removes nothing,
    /// since an entry recorded after a firing expires a whole window after it.
    fired_at: f64,
}

impl StorageTimer {
    /// The timer of a storage made at the lab's time 0.
    fn started() -> StorageTimer {
        StorageTimer {
            due: Some(Time::ZERO.plus(TIMER_INTERVAL)),
            fired_at: f64::NEG_INFINITY,
        }
    }
}

/// `MovingWindowRateLimiter(storage)` for one item and one key of a `MemoryStorage`, whose timer
/// it shares with the storage's other keys.
#[derive(Clone, Debug)]
pub struct MovingWindowRateLimiter {
    params: PyLimitsParams,
    expiry: u64,
    clock: Clock,
    /// The log, oldest run first (Python keeps it newest first).
    runs: VecDeque<Run>,
    /// The storage's timer, as the last call of any of its keys left it.
    timer: StorageTimer,
    latest: Time,
    /// The first run whose entries were still counted at the last call (`atime > now -
    /// expiry`), or `runs.len()`: no earlier run is counted at any later time, and runs are
    /// only added after it, so the next call finds its own by walking on from it.
    counted: usize,
    /// Counts the changes of `runs` and `timer`: it names them for the found times.
    version: LogKey,
    /// When the log was last found to hold nothing, for the log it was found for.
    rest: Option<(LogKey, Option<Time>)>,
    /// When a refused hit of `cost` was last found to pass, for the log it was found for.
    retry: Option<(LogKey, u64, Option<Time>)>,
}

/// Names the log and its timer: the count of their changes (`version`). A time found for a log
/// holds while the log is unchanged (the conditions only turn true with time), as that time or
/// `now` once it has passed.
type LogKey = u64;

impl MovingWindowRateLimiter {
    pub fn new(params: PyLimitsParams) -> Result<MovingWindowRateLimiter, ConfigError> {
        let expiry = params.validate()?;
        Ok(MovingWindowRateLimiter {
            params,
            expiry,
            clock: Clock {
                epoch: params.epoch,
            },
            runs: VecDeque::new(),
            timer: StorageTimer::started(),
            latest: Time::ZERO,
            counted: 0,
            version: 0,
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

    /// The storage's timer as this key's calls have left it.
    pub fn storage_timer(&self) -> StorageTimer {
        self.timer
    }

    /// Takes on the storage's timer as another key's call left it: that call may have started
    /// it, or let it fire and prune this key's log too.
    pub fn join_storage_timer(&mut self, timer: StorageTimer) {
        if timer != self.timer {
            self.timer = timer;
            self.version = self.version.wrapping_add(1);
        }
    }

    /// The highest `time.time()` the timer has fired at by `now` (`__expire_events` keeps the
    /// entries whose `expiry` is after its `time.time()`).
    fn fired_by(&self, now: Time) -> f64 {
        match self.timer.due {
            Some(due) if due <= now => self.timer.fired_at.max(self.clock.read(due)),
            _ => self.timer.fired_at,
        }
    }

    /// How many of the oldest runs are gone at `now`: those the timer has pruned by then.
    fn pruned_by(&self, now: Time) -> usize {
        let at = self.fired_by(now);
        self.runs.partition_point(|r| r.expiry <= at)
    }

    /// Lets the timer fire if it is due by `now`, and drops the runs it has pruned.
    fn settle(&mut self, now: Time) {
        if self.timer.due.is_some_and(|due| due <= now) {
            self.timer.fired_at = self.fired_by(now);
            self.timer.due = None;
            self.version = self.version.wrapping_add(1);
        }
        let gone = self.pruned_by(now);
        if gone > 0 {
            self.runs.drain(..gone);
            self.counted = self.counted.saturating_sub(gone);
            self.version = self.version.wrapping_add(1);
        }
    }

    /// `__schedule_expiry`: starts the timer unless it is running.
    fn schedule_expiry(&mut self, now: Time) {
        if self.timer.due.is_none() {
            self.timer.due = Some(now.plus(TIMER_INTERVAL));
            self.version = self.version.wrapping_add(1);
        }
    }

    /// `events[index]`, 0 being the newest entry, among the runs from `skip` on.
    fn entry(&self, skip: usize, index: u64) -> Option<&Run> {
        let first = self.runs.get(skip)?.start;
        let total = self.runs.back()?.end;
        let position = total.checked_sub(1)?.checked_sub(index)?;
        if position < first {
            return None;
        }
        self.runs
            .get(self.runs.partition_point(|r| r.end <= position))
    }

    /// Would `acquire_entry` let `cost` in at `now`, the runs from `skip` on being the log?
    fn admits(&self, skip: usize, t: f64, cost: u64) -> bool {
        if cost > self.params.amount {
            return false;
        }
        match self.entry(skip, self.params.amount - cost) {
            Some(entry) => entry.atime < t - self.expiry_f(),
            None => true,
        }
    }

    /// `get_moving_window` over the runs from `skip` on: (window start, entries counted).
    fn moving_window(&self, skip: usize, t: f64) -> (f64, u64) {
        let Some(oldest) = self.runs.get(skip) else {
            return (t, 0);
        };
        let total = self.runs.back().map_or(0, |r| r.end);
        let since = t - self.expiry_f();
        let first = self.runs.partition_point(|r| r.atime <= since).max(skip);
        match self.runs.get(first) {
            Some(run) => (run.atime, total - run.start),
            // Nothing counted: Python's `events[oldest - 1]` is `events[-1]`, the oldest entry.
            None => (oldest.atime, 0),
        }
    }

    /// `limiter.hit(item, cost=cost)` at `now`.
    pub fn hit(&mut self, now: Time, cost: u64) -> bool {
        let now = now.max(self.latest);
        self.latest = now;
        self.settle(now);
        if cost > self.params.amount {
            return false;
        }
        self.schedule_expiry(now);
        let t = self.clock.read(now);
        if !self.admits(0, t, cost) {
            return false;
        }
        if cost > 0 {
            let start = self.runs.back().map_or(0, |r| r.end);
            self.version = self.version.wrapping_add(1);
            self.runs.push_back(Run {
                atime: t,
                expiry: t + self.expiry_f(),
                start,
                end: start.saturating_add(cost),
            });
        }
        true
    }

    /// `limiter.test(item, cost=cost)`: `get_moving_window(...)[1] <= amount - cost`.
    pub fn test(&self, now: Time, cost: u64) -> bool {
        let now = now.max(self.latest);
        let (_, count) = self.moving_window(self.pruned_by(now), self.clock.read(now));
        i128::from(count) <= i128::from(self.params.amount) - i128::from(cost)
    }

    /// `limiter.get_window_stats(item)`: `(window_start + expiry, amount - count)`.
    pub fn get_window_stats(&self, now: Time) -> WindowStats {
        let now = now.max(self.latest);
        let (start, count) = self.moving_window(self.pruned_by(now), self.clock.read(now));
        WindowStats {
            reset_time: start + self.expiry_f(),
            remaining: i128::from(self.params.amount) - i128::from(count),
        }
    }

    /// True when the newest entry is out of every window (`atime < now - expiry`) at `now` and
    /// every later time: nothing in the log can refuse a hit or be counted again. It is so at a
    /// reading once it is at a lower one, so it is enough that it is at the lowest reading from
    /// `now` on (`Clock::least_from`); at `now` alone it is not, where the readings go down.
    fn holds_nothing(&self, now: Time) -> bool {
        let skip = self.pruned_by(now);
        match self.runs.back() {
            Some(newest) if self.runs.len() > skip => {
                let least = self.clock.least_from(now, self.clock.read(now));
                newest.atime < least - self.expiry_f()
            }
            _ => true,
        }
    }

    fn log_key(&self) -> LogKey {
        self.version
    }

    /// A lab time near the one at which `run`'s entries leave the window.
    fn guess_after(&self, run: Option<&Run>, now: Time) -> u64 {
        run.map_or(now.micros(), |r| {
            self.clock.guess(r.atime + self.expiry_f())
        })
    }

    /// The first time from `now` at which the log holds nothing.
    fn find_rest(&self, now: Time) -> Option<Time> {
        let guess = self.guess_after(self.runs.back(), now);
        super::first_time(now, guess, |t| self.holds_nothing(t))
    }

    /// The first time from `now` at which a hit of `cost` (at most `amount`) would pass: it
    /// passes at a reading once it passes at a lower one, and at a time once the timer has
    /// pruned more, so the first reading it passes at is searched for (`Clock::first_reading`).
    fn find_pass(&self, now: Time, cost: u64) -> Option<Time> {
        let blocking = self.entry(0, self.params.amount - cost);
        self.clock
            .first_reading(now, self.guess_after(blocking, now), |t, reading| {
                self.admits(self.pruned_by(t), reading, cost)
            })
    }

    /// `hit` then `get_window_stats` at the same instant, the clock read once. A hit of the
    /// cost a refusal was last found for, on the same log, is refused until the time found for
    /// it (without looking the log up); the window's first counted run is walked on to from the
    /// last call's.
    fn hit_and_stats(&mut self, now: Time, cost: u64) -> (bool, WindowStats) {
        let now = now.max(self.latest);
        self.latest = now;
        self.settle(now);
        let t = self.clock.read(now);
        let hit = cost <= self.params.amount && {
            self.schedule_expiry(now);
            let key = self.log_key();
            let refused = matches!(
                self.retry,
                Some((k, c, at)) if k == key && c == cost && at.is_none_or(|at| now < at)
            );
            !refused && self.admits(0, t, cost)
        };
        if hit && cost > 0 {
            let start = self.runs.back().map_or(0, |r| r.end);
            self.version = self.version.wrapping_add(1);
            self.runs.push_back(Run {
                atime: t,
                expiry: t + self.expiry_f(),
                start,
                end: start.saturating_add(cost),
            });
        }
        // `moving_window(0, t)`: the log is settled.
        let since = t - self.expiry_f();
        let mut first = self.counted.min(self.runs.len());
        while self.runs.get(first).is_some_and(|r| r.atime <= since) {
            first += 1;
        }
        self.counted = first;
        let total = self.runs.back().map_or(0, |r| r.end);
        let (start, count) = match (self.runs.get(first), self.runs.front()) {
            (Some(run), _) => (run.atime, total - run.start),
            (None, Some(oldest)) => (oldest.atime, 0),
            (None, None) => (t, 0),
        };
        let stats = WindowStats {
            reset_time: start + self.expiry_f(),
            remaining: i128::from(self.params.amount) - i128::from(count),
        };
        (hit, stats)
    }

    fn call(&mut self, now: Time, cost: u64) -> (Decision, WindowStats, bool) {
        let (hit, stats) = self.hit_and_stats(now, cost);
        let now = self.latest;
        let key = self.log_key();
        let rest = match self.rest {
            Some((k, at)) if k == key => at.map(|at| at.max(now)),
            _ => {
                let at = self.find_rest(now);
                self.rest = Some((key, at));
                at
            }
        };
        let retry_after = if hit || cost > self.params.amount {
            None
        } else {
            // A time found before is the first the hit passes at from then on, while the log is
            // unchanged, only until it has passed: where the readings go down, the hit can fail
            // again a microsecond later.
            let at = match self.retry {
                Some((k, c, at)) if k == key && c == cost && at.is_none_or(|at| at >= now) => at,
                _ => {
                    let at = self.find_pass(now, cost);
                    self.retry = Some((key, cost, at));
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

impl Limiter for MovingWindowRateLimiter {
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
        let now = now.max(self.latest);
        let (_, count) = self.moving_window(self.pruned_by(now), self.clock.read(now));
        Gauge {
            level: count as f64,
            max: self.params.amount as f64,
            unit: "entries in the window",
        }
    }

    fn is_at_rest(&self, now: Time) -> bool {
        self.holds_nothing(now.max(self.latest))
    }
}

impl Product for MovingWindowRateLimiter {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let (decision, stats, hit) = self.call(now, cost);
        (decision, reply(hit, &stats))
    }

    fn shared_storage(&self) -> Option<StorageTimer> {
        Some(self.storage_timer())
    }

    fn join_shared_storage(&mut self, storage: StorageTimer) {
        self.join_storage_timer(storage);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::profiles::python_limits::Granularity;

    fn limiter(amount: u64, expiry_secs: u64) -> MovingWindowRateLimiter {
        MovingWindowRateLimiter::new(
            PyLimitsParams::new(amount, expiry_secs, Granularity::Second).with_epoch(1_000_000),
        )
        .unwrap()
    }

    #[test]
    fn a_refused_hit_records_nothing() {
        let mut l = limiter(2, 10);
        assert!(l.hit(Time::ZERO, 2));
        assert!(!l.hit(Time::from_secs(5), 1));
        assert_eq!(l.runs.len(), 1);
        assert!(l.hit(Time(10_000_001), 1));
    }

    #[test]
    fn an_entry_exactly_one_window_old_still_blocks_but_is_no_longer_counted() {
        let mut l = limiter(1, 10);
        assert!(l.hit(Time::ZERO, 1));
        let at = Time::from_secs(10);
        assert_eq!(l.get_window_stats(at).remaining, 1, "atime > now - expiry");
        assert!(!l.hit(at, 1), "atime >= now - expiry");
        assert!(l.hit(Time(10_000_001), 1));
    }

    #[test]
    fn a_hit_of_cost_n_takes_n_entries_of_one_timestamp() {
        let mut l = limiter(5, 10);
        assert!(l.hit(Time::ZERO, 3));
        assert!(l.hit(Time::from_secs(1), 2));
        assert!(!l.hit(Time::from_secs(2), 1));
        // The 5th newest entry is the first run's: it leaves the window after 10 s.
        let d = l.decide(Time::from_secs(2), 1);
        assert_eq!(d.retry_after, Some(Span(8_000_001)));
        assert!(l.hit(Time(10_000_001), 3));
    }

    #[test]
    fn a_cost_above_the_amount_is_refused_without_starting_the_timer() {
        let mut l = limiter(2, 10);
        assert!(l.hit(Time::ZERO, 1));
        // The storage's own timer fires at 10 ms and prunes nothing (the entry lives 10 s).
        let d = l.decide(Time::from_secs(30), 3);
        assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
        assert_eq!(l.timer.due, None);
        // The stale entry is still the log's oldest, so the reset time is in the past.
        let s = l.get_window_stats(Time::from_secs(30));
        assert_eq!((s.reset_time, s.remaining), (1_000_010.0, 2));
    }

    #[test]
    fn the_timer_prunes_aged_out_entries_ten_milliseconds_after_a_call() {
        let mut l = limiter(2, 10);
        assert!(l.hit(Time::ZERO, 1));
        assert!(
            l.hit(Time::from_secs(30), 1),
            "restarts the timer, due at 30.01 s"
        );
        assert_eq!(l.runs.len(), 2);
        assert_eq!(
            l.get_window_stats(Time::from_secs(30)).reset_time,
            1_000_040.0
        );
        assert_eq!(l.pruned_by(Time::from_millis(30_010)), 1);
        l.settle(Time::from_millis(30_010));
        assert_eq!(l.runs.len(), 1);
    }

    #[test]
    fn the_empty_log_resets_a_window_from_now() {
        let l = limiter(10, 2);
        let s = l.get_window_stats(Time::from_secs(1));
        assert_eq!((s.reset_time, s.remaining), (1_000_003.0, 10));
    }

    #[test]
    fn a_hit_of_cost_zero_is_allowed_and_records_nothing() {
        let mut l = limiter(1, 10);
        assert!(l.hit(Time::ZERO, 1));
        assert!(l.hit(Time::from_secs(1), 0));
        assert_eq!(l.runs.len(), 1);
    }

    #[test]
    fn the_limiter_is_at_rest_once_its_newest_entry_is_out_of_the_window() {
        let mut l = limiter(3, 10);
        assert!(l.is_at_rest(Time::ZERO));
        let d = l.decide(Time::from_secs(2), 1);
        assert_eq!(d.reset_after, Span(10_000_001));
        assert!(!l.is_at_rest(Time::from_secs(12)));
        assert!(l.is_at_rest(Time(12_000_001)));
    }

    /// Keys of one storage: each call takes the timer as the storage's last call left it, as
    /// `LimiterSlots` hands it on.
    struct Storage {
        timer: StorageTimer,
        keys: Vec<MovingWindowRateLimiter>,
    }

    impl Storage {
        fn new(keys: usize, amount: u64, expiry_secs: u64) -> Storage {
            let fresh = limiter(amount, expiry_secs);
            Storage {
                timer: fresh.storage_timer(),
                keys: vec![fresh; keys],
            }
        }

        fn hit(&mut self, key: usize, at: Time) -> bool {
            let l = &mut self.keys[key];
            l.join_storage_timer(self.timer);
            let hit = l.decide(at, 1).allowed();
            self.timer = l.storage_timer();
            hit
        }
    }

    /// `0 a, 0.99 b, 1.0 a` at 1 per second: b's call starts the timer, due at 1.0 s, where it
    /// fires before a's call and prunes a's entry of 0 s (`expiry <= time.time()`), which
    /// `acquire_entry` would still have counted (`atime >= now - expiry`).
    #[test]
    fn another_keys_call_starts_the_timer_that_prunes_an_entry_one_window_old() {
        let mut storage = Storage::new(2, 1, 1);
        assert!(storage.hit(0, Time::ZERO));
        assert!(storage.hit(1, Time::from_millis(990)));
        assert!(storage.hit(0, Time::from_secs(1)));
        // Alone in its storage, a's own timer fired at 10 ms and nothing restarted it.
        let mut alone = limiter(1, 1);
        assert!(alone.hit(Time::ZERO, 1));
        assert!(!alone.hit(Time::from_secs(1), 1));
    }

    #[test]
    fn a_timer_started_too_early_fires_before_the_entry_is_a_window_old() {
        // b at 0.98 s: the timer fires at 0.99 s, when a's entry still has 10 ms to live.
        let mut storage = Storage::new(2, 1, 1);
        assert!(storage.hit(0, Time::ZERO));
        assert!(storage.hit(1, Time::from_millis(980)));
        assert!(!storage.hit(0, Time::from_secs(1)));
    }

    #[test]
    fn a_timer_still_running_is_not_started_again_by_another_key() {
        // b at 0.985 s starts the timer (due 0.995 s); c at 0.99 s finds it running, so nothing
        // fires at 1.0 s and a's entry, exactly one window old, still refuses.
        let mut storage = Storage::new(3, 1, 1);
        assert!(storage.hit(0, Time::ZERO));
        assert!(storage.hit(1, Time::from_millis(985)));
        assert!(storage.hit(2, Time::from_millis(990)));
        assert!(!storage.hit(0, Time::from_secs(1)));
        // One microsecond later the entry is out of the window anyway.
        assert!(storage.hit(0, Time(1_000_001)));
    }

    #[test]
    fn a_firing_another_key_saw_prunes_this_keys_log_in_its_stats_too() {
        let mut storage = Storage::new(2, 2, 1);
        assert!(storage.hit(0, Time::ZERO));
        assert!(storage.hit(1, Time::from_millis(990)));
        assert!(storage.hit(1, Time::from_millis(1_500)));
        // The timer fired at 1.0 s and took a's only entry: the stats start from now.
        let a = &mut storage.keys[0];
        a.join_storage_timer(storage.timer);
        let stats = a.get_window_stats(Time::from_secs(2));
        assert_eq!((stats.reset_time, stats.remaining), (1_000_003.0, 2));
    }

    /// The lab's second 1_676_976_733_990 (a whole second near the end of the lab's time) on a
    /// clock reading 1_700_000_000 s at the lab's 0: it reads ...990.0, the microsecond after it
    /// one ULP (2^-12 s) lower, the one after that one ULP higher.
    const SECOND: u64 = 1_676_976_733_990_000_000;

    fn far_limiter() -> MovingWindowRateLimiter {
        MovingWindowRateLimiter::new(
            PyLimitsParams::new(1, 1, Granularity::Second).with_epoch(1_700_000_000),
        )
        .unwrap()
    }

    #[test]
    fn far_from_1970_an_entry_leaves_the_window_only_from_the_microsecond_no_later_reading_reaches_it(
    ) {
        // An entry at ...988.999756, exactly one window and one ULP before the reading after the
        // whole second: out of the window at the whole second, back in it a microsecond later.
        let hit_at = Time(SECOND - 1_000_100);
        let mut deciding = far_limiter();
        let mut hitting = far_limiter();
        let d = deciding.decide(hit_at, 1);
        assert!(hitting.hit(hit_at, 1));
        assert_eq!(d.verdict, Verdict::Allowed);
        assert_eq!(d.reset_after, Time(SECOND + 2).since(hit_at));
        assert!(!hitting.is_at_rest(Time(SECOND)));
        assert!(!hitting.is_at_rest(Time(SECOND + 1)));
        assert!(hitting.is_at_rest(Time(SECOND + 2)));
        // A hit passes at the whole second, not the microsecond after, and again from the next.
        assert!(hitting.peek(Time(SECOND), 1).allowed());
        assert!(!hitting.peek(Time(SECOND + 1), 1).allowed());
        assert!(hitting.peek(Time(SECOND + 2), 1).allowed());
        // Both paths tell a refused hit the same: the whole second to retry, rest after it.
        let at = Time(hit_at.micros() + 500_000);
        for l in [&deciding, &hitting] {
            let p = l.peek(at, 1);
            assert_eq!(p.verdict, Verdict::Rejected);
            assert_eq!(p.retry_after, Some(Time(SECOND).since(at)));
            assert_eq!(p.reset_after, Time(SECOND + 2).since(at));
        }
        // Refused a microsecond after the whole second, the retry time found before has passed
        // and is found again.
        assert_eq!(deciding.decide(at, 1).verdict, Verdict::Rejected);
        let d = deciding.decide(Time(SECOND + 1), 1);
        assert_eq!(
            (d.verdict, d.retry_after),
            (Verdict::Rejected, Some(Span(1)))
        );
        assert_eq!(hitting.peek(Time(SECOND + 1), 1), d);
    }
}
