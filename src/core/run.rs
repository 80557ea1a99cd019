//! Runs one trace through several algorithms, one limiter per key (and per copy, for a row run
//! as several copies, see `super::deployment`), and measures what each did against the promise
//! "at most `limit` in any window", counting a key's requests across all copies.

use super::config::ConfigError;
use std::collections::VecDeque;

use super::combine::{admit_both, decide_both, SecondLimiters};
use super::decision::{Decision, Limiter, Settlement, Verdict};
use super::limiter::{Algorithm, AnyLimiter, Complete, Parts, Settings};
use super::profiles::ProductReply;
pub use super::replay::DecisionReplay;
use super::replay::PerKeyLimiters;
use super::retries::{tries_of, ClientLoop, ClientsRun, ClientsTally, Tried};
use super::second_limit::RefusedBy;
use super::time::{Span, Time};
use super::traffic::{Request, Trace};

/// What one algorithm did with the whole trace.
#[derive(Clone, Debug)]
pub struct AlgorithmRun {
    pub algorithm: Algorithm,
    /// One final verdict per request, in the trace's order (a verdict a limiter settles late is
    /// the settled one, see [`Limiter::settles_late`]). The full decision (remaining count, reset
    /// and retry times) of any request is worked out again on demand by [`decision_at`].
    pub verdicts: Verdicts,
    /// Served at once.
    pub allowed: u64,
    /// Accepted but held back (leaky bucket without `nodelay`).
    pub delayed: u64,
    pub rejected: u64,
    /// Of the rejected, those the row's own limit let through and its second limit refused
    /// (`super::second_limit`); the others were refused by its own limit.
    pub refused_by_second: u64,
    /// The most requests any one key had served inside a single window (by the time they were
    /// served, so a delayed request counts when it is released).
    pub max_in_window: u64,
    /// When that busiest window ends (the time of its last served request).
    pub max_window_end: Time,
    /// Which key had it.
    pub max_window_key: u32,
    /// When the busiest window grew to each count, for what the row had done by a moment of
    /// playback (`super::so_far`).
    pub busiest_by: Steps,
    /// Per key, the times requests were served.
    pub served: ServedTimes,
    /// With clients that obey (`super::retries`): their retries and what came of them. The
    /// verdicts above are then those of the first tries, and the counts and the busiest window
    /// take in every try.
    pub clients: Option<ClientsRun>,
}

impl AlgorithmRun {
    /// Requests let through, now or later.
    pub fn passed(&self) -> u64 {
        self.allowed + self.delayed
    }

    /// How many of `key`'s requests were served inside the window `(end - window, end]`.
    pub fn served_in_window(&self, key: u32, end: Time, window: Span) -> u64 {
        count_in_window(self.served.of(key), end, window)
    }

    /// The most any one key had served inside the window `(end - window, end]`.
    pub fn busiest_key_in_window(&self, end: Time, window: Span) -> u64 {
        self.served
            .per_key()
            .map(|times| count_in_window(times, end, window))
            .max()
            .unwrap_or(0)
    }
}

/// A run's verdicts, a byte each (and a delay each only for a run that delays): a million
/// requests take a megabyte per row, and the drawing walks them as fast as memory allows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdicts {
    kinds: Vec<u8>,
    /// Per request, the delay of a delayed one (empty until a request is delayed).
    delays: Vec<Span>,
}

const ALLOWED: u8 = 0;
const DELAYED: u8 = 1;
const REJECTED: u8 = 2;

impl Verdicts {
    fn with_capacity(n: usize) -> Verdicts {
        Verdicts {
            kinds: Vec::with_capacity(n),
            delays: Vec::new(),
        }
    }

    fn push(&mut self, verdict: Verdict) {
        let kind = match verdict {
            Verdict::Allowed => ALLOWED,
            Verdict::Delayed { by } => {
                if self.delays.is_empty() {
                    self.delays.reserve_exact(self.kinds.capacity());
                }
                self.delays.resize(self.kinds.len(), Span::ZERO);
                self.delays.push(by);
                DELAYED
            }
            Verdict::Rejected => REJECTED,
        };
        self.kinds.push(kind);
    }

    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// The verdict on request `index`.
    pub fn get(&self, index: usize) -> Option<Verdict> {
        Some(match *self.kinds.get(index)? {
            ALLOWED => Verdict::Allowed,
            DELAYED => Verdict::Delayed {
                by: self.delays.get(index).copied().unwrap_or(Span::ZERO),
            },
            _ => Verdict::Rejected,
        })
    }

    /// Replaces the verdict on request `index` (one a limiter settled late).
    fn set(&mut self, index: usize, verdict: Verdict) {
        let len = self.kinds.len();
        let Some(kind) = self.kinds.get_mut(index) else {
            return;
        };
        *kind = match verdict {
            Verdict::Allowed => ALLOWED,
            Verdict::Delayed { by } => {
                if self.delays.len() <= index {
                    self.delays.resize(len, Span::ZERO);
                }
                self.delays[index] = by;
                DELAYED
            }
            Verdict::Rejected => REJECTED,
        };
    }

    /// How many of the first `n` verdicts let the request through at once, delayed it, and
    /// refused it.
    pub fn counts_before(&self, n: usize) -> (u64, u64, u64) {
        let mut counts = [0u64; 3];
        for &kind in &self.kinds[..n.min(self.kinds.len())] {
            counts[usize::from(kind.min(REJECTED))] += 1;
        }
        (counts[0], counts[1], counts[2])
    }

    /// Every verdict, in request order.
    pub fn iter(&self) -> impl Iterator<Item = Verdict> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// Every key's served times in one allocation: key `k`'s sorted times are
/// `times[starts[k]..starts[k + 1]]` (a request of cost `c` appears `c` times).
#[derive(Clone, Debug, Default)]
pub struct ServedTimes {
    starts: Vec<usize>,
    times: Vec<Time>,
}

impl ServedTimes {
    /// Groups `(key, time)` pairs by key, each key's times sorted, for `keys` keys.
    pub(crate) fn group(keys: usize, served: &[(u32, Time)]) -> ServedTimes {
        let mut starts = vec![0usize; keys + 1];
        for &(key, _) in served {
            // A request naming no key of the trace is decided alone and counted nowhere.
            if let Some(count) = starts.get_mut(key as usize + 1) {
                *count += 1;
            }
        }
        for k in 0..keys {
            starts[k + 1] += starts[k];
        }
        let mut next = starts.clone();
        let mut times = vec![Time::ZERO; starts[keys]];
        for &(key, at) in served {
            if let Some(slot) = next.get_mut(key as usize).filter(|_| (key as usize) < keys) {
                times[*slot] = at;
                *slot += 1;
            }
        }
        let mut grouped = ServedTimes { starts, times };
        for k in 0..keys {
            let (from, to) = (grouped.starts[k], grouped.starts[k + 1]);
            // Already in order unless delays reordered them; the sort is then nearly free.
            grouped.times[from..to].sort_unstable();
        }
        grouped
    }

    /// `key`'s served times, sorted; empty for an unknown key.
    pub fn of(&self, key: u32) -> &[Time] {
        let k = key as usize;
        match (self.starts.get(k), self.starts.get(k + 1)) {
            (Some(&from), Some(&to)) => &self.times[from..to],
            _ => &[],
        }
    }

    /// Every key's served times, in key order.
    pub fn per_key(&self) -> impl Iterator<Item = &[Time]> {
        self.starts.windows(2).map(|w| &self.times[w[0]..w[1]])
    }
}

/// How many of the sorted `times` fall in `(end - window, end]`.
pub fn count_in_window(times: &[Time], end: Time, window: Span) -> u64 {
    let upto = times.partition_point(|&t| t <= end);
    let from = match end.micros().checked_sub(window.micros()) {
        Some(cutoff) => times.partition_point(|&t| t.micros() <= cutoff),
        None => 0,
    };
    upto.saturating_sub(from) as u64
}

/// Runs `trace` through every algorithm in `algorithms` under `settings`.
pub fn run_all<C: Parts>(
    trace: &Trace,
    algorithms: &[Algorithm],
    settings: &Settings,
) -> Result<Vec<AlgorithmRun>, ConfigError> {
    algorithms
        .iter()
        .map(|&a| run_one::<C>(trace, a, settings))
        .collect()
}

/// The full decision `algorithm` made on request `index` of `trace`, and for a product its own
/// reply. The key's earlier requests are replayed through a fresh limiter (verdicts only, the
/// fast path), so the answer is exactly the one the run's verdict came with. An open verdict
/// (see [`Limiter::settles_late`]) is followed through the key's later requests, and through
/// the end of the trace, to its settlement: the answer then carries the final verdict, and the
/// reply says when the queued request was served or that it was evicted. `None` for an index
/// past the end or settings the algorithm refuses.
pub fn decision_at<C: Parts>(
    trace: &Trace,
    algorithm: Algorithm,
    settings: &Settings,
    index: usize,
) -> Option<(Decision, Option<ProductReply>)> {
    decision_and_cause_at::<C>(trace, algorithm, settings, index).map(|(d, reply, _)| (d, reply))
}

/// [`decision_at`], and which limit refused the request when the row has a second limit.
pub fn decision_and_cause_at<C: Parts>(
    trace: &Trace,
    algorithm: Algorithm,
    settings: &Settings,
    index: usize,
) -> Option<(Decision, Option<ProductReply>, Option<RefusedBy>)> {
    if settings.rules_in::<C>().obeying_clients {
        // The key's earlier clients retried, so its state depends on their retries too.
        let first = tries_of::<C>(trace, algorithm, settings, index)?
            .into_iter()
            .next()?;
        return Some((first.decision, first.reply, first.refused_by));
    }
    if algorithm
        .build_with::<C>(settings)
        .ok()?
        .shared_storage()
        .is_some()
    {
        return shared_storage_decision_at::<C>(trace, algorithm, settings, index);
    }
    if settings.rules_in::<C>().second_limit {
        return combined_decision_at::<C>(trace, algorithm, settings, index);
    }
    let requests = trace.requests();
    let target = requests.get(index)?;
    let placement = settings.deployment.placement::<C>(trace);
    let slot = placement.slot(index, target.key);
    let mut limiter = algorithm.build_with::<C>(settings).ok()?;
    limiter.serve_key(trace.key_name(target.key));
    let mut seq = 0u64;
    let same_slot = |(i, r): &(usize, &Request)| placement.slot(*i, r.key) == slot;
    limiter.admit_each(
        requests[..index]
            .iter()
            .enumerate()
            .filter(same_slot)
            .map(|(_, r)| r),
        |_| seq += 1,
    );
    let (mut decision, mut reply) = limiter.decide_with_reply(target.at, u64::from(target.cost));
    if limiter.settles_late() && matches!(decision.verdict, Verdict::Delayed { .. }) {
        let later = requests
            .iter()
            .enumerate()
            .skip(index + 1)
            .filter(same_slot)
            .map(|(_, r)| r);
        if let Some(settlement) = settlement_of(&mut limiter, seq, later) {
            limiter.settle_decision(&mut decision, reply.as_mut(), settlement);
        }
    }
    Some((decision, reply, None))
}

/// [`decision_and_cause_at`] for a row whose keys share one storage (see
/// [`AnyLimiter::shared_storage`]): every key's calls move the storage's timer, so every request
/// before this one is replayed, in order.
fn shared_storage_decision_at<C: Parts>(
    trace: &Trace,
    algorithm: Algorithm,
    settings: &Settings,
    index: usize,
) -> Option<(Decision, Option<ProductReply>, Option<RefusedBy>)> {
    let requests = trace.requests();
    let target = requests.get(index)?;
    let mut replay = DecisionReplay::<C>::new(trace, algorithm, settings).ok()?;
    for request in &requests[..index] {
        replay.decide_with_cause(request);
    }
    Some(replay.decide_with_cause(target))
}

/// [`decision_and_cause_at`] for a row with a second limit: the second limit's state depends on
/// every request that shares its key and copy, and each of those reached it or not by its own
/// first limit, so all of them are replayed, each through its own first limiter.
fn combined_decision_at<C: Parts>(
    trace: &Trace,
    algorithm: Algorithm,
    settings: &Settings,
    index: usize,
) -> Option<(Decision, Option<ProductReply>, Option<RefusedBy>)> {
    let requests = trace.requests();
    let target = requests.get(index)?;
    let placement = settings.deployment.placement::<C>(trace);
    let mut second = SecondLimiters::new(trace, algorithm, settings).ok()??;
    let fresh = algorithm.build_with::<C>(settings).ok()?;
    let shared = second.slot(&placement, index, target.key);
    let mut firsts: std::collections::HashMap<usize, AnyLimiter<C>> = Default::default();
    let keyed = |key: u32| {
        let mut limiter = fresh.clone();
        limiter.serve_key(trace.key_name(key));
        limiter
    };
    let spend = second.spend;
    for (i, r) in requests[..index].iter().enumerate() {
        if second.slot(&placement, i, r.key) != shared {
            continue;
        }
        let first = firsts
            .entry(placement.slot(i, r.key))
            .or_insert_with(|| keyed(r.key));
        second.with(shared, |second| {
            admit_both(first, second, spend, r.at, u64::from(r.cost))
        });
    }
    let first = firsts
        .entry(placement.slot(index, target.key))
        .or_insert_with(|| keyed(target.key));
    Some(second.with(shared, |second| {
        decide_both(first, second, spend, target.at, u64::from(target.cost))
    }))
}

/// The settlement of decision `seq` of `limiter`, found by deciding the key's `later` requests
/// and then running the limiter on past the end of the trace.
fn settlement_of<'a, C: Parts>(
    limiter: &mut AnyLimiter<C>,
    seq: u64,
    later: impl Iterator<Item = &'a Request>,
) -> Option<Settlement> {
    for r in later {
        limiter.admit(r.at, u64::from(r.cost));
        while let Some(s) = limiter.take_settled() {
            if s.seq == seq {
                return Some(s);
            }
        }
    }
    limiter.settle_rest();
    std::iter::from_fn(|| limiter.take_settled()).find(|s| s.seq == seq)
}

/// `decision`, given on arrival with an open verdict, rewritten with the final `verdict` a run
/// recorded for it: for an exported row, which needs only the verdict and the response it makes
/// (a request failed after waiting carries no wait to retry after).
pub fn with_final_verdict(mut decision: Decision, verdict: Verdict) -> Decision {
    if decision.verdict != verdict {
        decision.verdict = verdict;
        if !verdict.passes() {
            decision.retry_after = None;
        }
    }
    decision
}

/// What the product behind `algorithm` answered to request `index` of `trace` (see
/// [`decision_at`]). `None` for the textbook algorithms, which have no product reply.
pub fn product_reply<C: Parts>(
    trace: &Trace,
    algorithm: Algorithm,
    settings: &Settings,
    index: usize,
) -> Option<ProductReply> {
    if !algorithm.is_product() {
        return None;
    }
    decision_at::<C>(trace, algorithm, settings, index)?.1
}

/// Runs `trace` through one algorithm, keeping a separate limiter per key.
pub fn run_one<C: Parts>(
    trace: &Trace,
    algorithm: Algorithm,
    settings: &Settings,
) -> Result<AlgorithmRun, ConfigError> {
    let mut builder = RunBuilder::<C>::new(trace, algorithm, settings)?;
    builder.advance(trace, usize::MAX);
    Ok(builder.finish(trace, settings.window))
}

/// One algorithm's run, built a slice of requests at a time so that a large trace can be run
/// between frames; the result is the same as running it at once.
pub struct RunBuilder<C: Parts = Complete> {
    algorithm: Algorithm,
    limiters: PerKeyLimiters<C>,
    verdicts: Verdicts,
    counts: (u64, u64, u64),
    /// `(key, time)` of every serving, in decision order; grouped by key when finished.
    served: Vec<(u32, Time)>,
    /// Only for an algorithm that settles verdicts late (asked once, of the fresh limiter);
    /// boxed, as most runs never need it.
    late: Option<Box<LateVerdicts>>,
    /// Only for a row with a second limit.
    second: Option<Box<SecondLimiters<C>>>,
    refused_by_second: u64,
    /// Only with clients that obey: they decide every try, the first ones and the retries.
    clients: Option<Box<(ClientLoop<C>, ClientsTally)>>,
}

/// What a run of a limiter that settles verdicts late keeps besides.
#[derive(Debug)]
struct LateVerdicts {
    /// Per slot (key and copy): its decisions so far and its open verdicts.
    open: Vec<OpenVerdicts>,
    /// The settlements of one decision, kept to reuse its allocation.
    settling: Vec<Settlement>,
}

/// One key's requests whose verdicts are still open, in decision order.
#[derive(Clone, Debug, Default)]
struct OpenVerdicts {
    /// Decisions made on the key: the next one's key-local sequence number.
    decided: u64,
    /// (sequence number, request index, arrival, cost).
    waiting: VecDeque<(u64, usize, Time, u32)>,
}

impl<C: Parts> RunBuilder<C> {
    pub fn new(
        trace: &Trace,
        algorithm: Algorithm,
        settings: &Settings,
    ) -> Result<RunBuilder<C>, ConfigError> {
        let limiters = PerKeyLimiters::new(trace, algorithm, settings)?;
        let late = limiters.limiters.fresh().settles_late();
        let clients = if settings.rules_in::<C>().obeying_clients {
            let clients = ClientLoop::verdicts(trace, algorithm, settings)?;
            Some(Box::new((clients, ClientsTally::default())))
        } else {
            None
        };
        Ok(RunBuilder {
            clients,
            algorithm,
            late: late.then(|| {
                Box::new(LateVerdicts {
                    open: vec![OpenVerdicts::default(); limiters.limiters.slot_count()],
                    settling: Vec::new(),
                })
            }),
            second: SecondLimiters::new(trace, algorithm, settings)?.map(Box::new),
            refused_by_second: 0,
            limiters,
            // Reserved at once: growing a million verdicts by doubling copies them again and again,
            // and the last copies are long enough to stall a frame.
            verdicts: Verdicts::with_capacity(trace.len()),
            counts: (0, 0, 0),
            served: Vec::new(),
        })
    }

    /// Requests decided so far.
    pub fn done(&self) -> usize {
        self.verdicts.len()
    }

    /// Decides up to `budget` more requests of `trace` (the trace this builder was made for).
    pub fn advance(&mut self, trace: &Trace, budget: usize) {
        let from = self.verdicts.len();
        let to = from.saturating_add(budget).min(trace.len());
        // (Never in a program without the rules, which runs no obeying clients.)
        if let Some(mut clients) = self.clients.take().filter(|_| C::RULES) {
            let (clients_loop, tally) = &mut *clients;
            let first_tries = trace.requests()[from..to]
                .iter()
                .enumerate()
                .map(|(offset, r)| (from + offset, r));
            clients_loop.advance(trace, first_tries, &mut |tried| {
                self.record_try(trace, tally, tried)
            });
            self.clients = Some(clients);
            return;
        }
        if let Some(mut late) = self.late.take() {
            self.advance_settling(&mut late, &trace.requests()[from..to], from);
            self.late = Some(late);
            return;
        }
        if let Some(mut second) = self.second.take() {
            self.advance_combined(&mut second, &trace.requests()[from..to], from);
            self.second = Some(second);
            return;
        }
        for (index, request) in trace.requests()[from..to].iter().enumerate() {
            let slot = self.limiters.slot(from + index, request.key);
            let verdict = self.limiters.with(slot, |limiter| {
                limiter.admit(request.at, u64::from(request.cost))
            });
            let served_at = match verdict {
                Verdict::Allowed => {
                    self.counts.0 += 1;
                    request.at
                }
                Verdict::Delayed { by } => {
                    self.counts.1 += 1;
                    request.at.plus(by)
                }
                Verdict::Rejected => {
                    self.counts.2 += 1;
                    self.verdicts.push(verdict);
                    continue;
                }
            };
            if request.cost == 1 {
                self.served.push((request.key, served_at));
            } else {
                self.served.extend(std::iter::repeat_n(
                    (request.key, served_at),
                    request.cost as usize,
                ));
            }
            self.verdicts.push(verdict);
        }
    }

    /// `advance` for a limiter that settles verdicts late: `requests` start at index `from`.
    /// An open `Delayed` verdict is counted as delayed meanwhile but not served; its
    /// settlement (from a later decision of its key, or from `finish`) corrects the verdict and
    /// the counts and records when it was served.
    fn advance_settling(&mut self, late: &mut LateVerdicts, requests: &[Request], from: usize) {
        for (offset, request) in requests.iter().enumerate() {
            let settling = &mut late.settling;
            let slot = self.limiters.slot(from + offset, request.key);
            let verdict = self.limiters.with(slot, |limiter| {
                let verdict = limiter.admit(request.at, u64::from(request.cost));
                settling.extend(std::iter::from_fn(|| limiter.take_settled()));
                verdict
            });
            self.apply_settlements(late, slot, request.key);
            let open = late.open.get_mut(slot);
            match (verdict, open) {
                (Verdict::Delayed { .. }, Some(open)) => {
                    open.waiting
                        .push_back((open.decided, from + offset, request.at, request.cost));
                    open.decided += 1;
                    self.counts.1 += 1;
                    self.verdicts.push(verdict);
                }
                (_, open) => {
                    if let Some(open) = open {
                        open.decided += 1;
                    }
                    self.record(request.key, request.at, request.cost, verdict);
                    self.verdicts.push(verdict);
                }
            }
        }
    }

    /// `advance` for a row with a second limit: `requests` start at index `from`.
    fn advance_combined(
        &mut self,
        second: &mut SecondLimiters<C>,
        requests: &[Request],
        from: usize,
    ) {
        let spend = second.spend;
        for (offset, request) in requests.iter().enumerate() {
            let slot = self.limiters.slot(from + offset, request.key);
            let shared = second.slot(&self.limiters.placement, from + offset, request.key);
            let (at, cost) = (request.at, u64::from(request.cost));
            let (verdict, cause) = self.limiters.with(slot, |first| {
                second.with(shared, |second| admit_both(first, second, spend, at, cost))
            });
            if cause == Some(RefusedBy::Second) {
                self.refused_by_second += 1;
            }
            self.record(request.key, request.at, request.cost, verdict);
            self.verdicts.push(verdict);
        }
    }

    /// Counts one try of an obeying client and serves it; a first try's verdict is the
    /// request's.
    fn record_try(&mut self, trace: &Trace, tally: &mut ClientsTally, tried: &Tried) {
        let attempt = &tried.attempt;
        let Some(request) = trace.requests().get(attempt.client) else {
            return;
        };
        let verdict = tried.verdict;
        if tried.refused_by == Some(RefusedBy::Second) {
            self.refused_by_second += 1;
        }
        self.record(request.key, attempt.at, request.cost, verdict);
        if attempt.number == 0 {
            self.verdicts.push(verdict);
        }
        tally.count(tried, request.at);
    }

    /// Counts a final verdict and serves it.
    fn record(&mut self, key: u32, at: Time, cost: u32, verdict: Verdict) {
        let served_at = match verdict {
            Verdict::Allowed => {
                self.counts.0 += 1;
                at
            }
            Verdict::Delayed { by } => {
                self.counts.1 += 1;
                at.plus(by)
            }
            Verdict::Rejected => {
                self.counts.2 += 1;
                return;
            }
        };
        if cost == 1 {
            self.served.push((key, served_at));
        } else {
            self.served
                .extend(std::iter::repeat_n((key, served_at), cost as usize));
        }
    }

    /// Applies the settlements in `late.settling`, all of earlier requests of `slot`, of `key`.
    fn apply_settlements(&mut self, late: &mut LateVerdicts, slot: usize, key: u32) {
        for &s in &late.settling {
            let Some(open) = late.open.get_mut(slot) else {
                continue;
            };
            let Ok(pos) = open.waiting.binary_search_by_key(&s.seq, |w| w.0) else {
                debug_assert!(false, "a settlement names an open verdict");
                continue;
            };
            let Some((_, index, at, cost)) = open.waiting.remove(pos) else {
                continue;
            };
            // It was counted as delayed while open.
            self.counts.1 -= 1;
            self.record(key, at, cost, s.verdict);
            self.verdicts.set(index, s.verdict);
        }
        late.settling.clear();
    }

    /// The run, with each key's busiest window under `window`. A limiter that settles late is
    /// first run on past the trace's end, so that the requests still waiting are settled as
    /// the library would serve them on the timer's next ticks.
    pub fn finish(mut self, trace: &Trace, window: Span) -> AlgorithmRun {
        let obeying = self.clients.take().filter(|_| C::RULES);
        let clients = obeying.map(|mut clients| {
            let (clients_loop, tally) = &mut *clients;
            clients_loop.finish(trace, &mut |tried| self.record_try(trace, tally, tried));
            std::mem::take(tally).finish()
        });
        if let Some(mut late) = self.late.take() {
            let slots: Vec<usize> = (0..late.open.len())
                .filter(|&slot| !late.open[slot].waiting.is_empty())
                .collect();
            let instances = self.limiters.placement.instances() as usize;
            for slot in slots {
                let settling = &mut late.settling;
                self.limiters.with(slot, |limiter| {
                    limiter.settle_rest();
                    settling.extend(std::iter::from_fn(|| limiter.take_settled()));
                });
                self.apply_settlements(&mut late, slot, (slot / instances) as u32);
            }
        }
        let served = ServedTimes::group(self.limiters.keys(), &self.served);
        let (busiest_by, (max_in_window, max_window_end, max_window_key)) =
            Steps::with_busiest(&served, window);
        let (allowed, delayed, rejected) = self.counts;
        AlgorithmRun {
            algorithm: self.algorithm,
            verdicts: self.verdicts,
            allowed,
            delayed,
            rejected,
            refused_by_second: self.refused_by_second,
            max_in_window,
            max_window_end,
            max_window_key,
            busiest_by,
            served,
            clients,
        }
    }
}

/// When a row's busiest window reached 1, 2, 3, ...: the `n`-th is the first moment any key had
/// `n + 1` served inside one window. Each key's window gains one request at a time, so each key
/// reaches every count below its busiest in turn, and the earliest of the keys' moments for each
/// count make the row's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Steps(Vec<Time>);

impl Steps {
    /// The steps of every key's served times, and the busiest window itself: how many, when it
    /// ends (the earliest such end) and which key had it (the first, between equals).
    pub fn with_busiest(served: &ServedTimes, window: Span) -> (Steps, (u64, Time, u32)) {
        let mut reached: Vec<Time> = Vec::new();
        let mut best = (0u64, Time::ZERO, 0u32);
        for (key, times) in served.per_key().enumerate() {
            let mut own = (0u64, Time::ZERO);
            for (at, count) in busiest_window_steps(times, window) {
                match reached.get_mut((count - 1) as usize) {
                    Some(earliest) => *earliest = (*earliest).min(at),
                    None => reached.push(at),
                }
                own = (count, at);
            }
            let (count, end) = own;
            if count > best.0 || (count == best.0 && count > 0 && end < best.1) {
                best = (count, end, key as u32);
            }
        }
        (Steps(reached), best)
    }

    /// The busiest window by `t` (its requests all served by then).
    pub fn at(&self, t: Time) -> u64 {
        self.0.partition_point(|&at| at <= t) as u64
    }
}

/// The most sorted `times` that fall in one window `(end - window, end]`, and the earliest such
/// `end`. Half-open like the sliding log: a request exactly one window older has left it.
pub fn busiest_window(times: &[Time], window: Span) -> (u64, Time) {
    let mut best = (0u64, Time::ZERO);
    for (end, count) in window_counts(times, window) {
        if count > best.0 {
            best = (count, end);
        }
    }
    best
}

/// Each time the busiest window of sorted `times` grew, and to what: 1, 2, 3, ... in turn (a
/// window gains one request at a time), so the busiest window by any moment is the last step
/// before it (`super::so_far`).
pub fn busiest_window_steps(
    times: &[Time],
    window: Span,
) -> impl Iterator<Item = (Time, u64)> + '_ {
    let mut best = 0;
    window_counts(times, window).filter(move |&(_, count)| {
        let grew = count > best;
        best = best.max(count);
        grew
    })
}

/// For each of sorted `times`, how many of them fall in the window that ends there.
fn window_counts(times: &[Time], window: Span) -> impl Iterator<Item = (Time, u64)> + '_ {
    let mut first = 0usize;
    times.iter().enumerate().map(move |(last, &end)| {
        while end
            .micros()
            .checked_sub(window.micros())
            .is_some_and(|cutoff| times[first].micros() <= cutoff)
        {
            first += 1;
        }
        (end, (last - first + 1) as u64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::traffic::Pattern;

    #[test]
    fn the_busiest_windows_steps_end_at_each_keys_own_busiest_window() {
        // Three keys: one steady, one in a burst, one alone; a window of 10 s.
        let window = Span::from_secs(10);
        let times = |list: &[u64]| -> Vec<(u32, Time)> {
            list.iter().map(|&ms| (0, Time::from_millis(ms))).collect()
        };
        let mut served = times(&[0, 4_000, 8_000, 12_000, 16_000, 20_000]);
        served.extend(
            times(&[9_000, 9_100, 9_200, 9_300])
                .into_iter()
                .map(|(_, t)| (1, t)),
        );
        served.extend(times(&[30_000]).into_iter().map(|(_, t)| (2, t)));
        served.sort_by_key(|&(key, t)| (t, key));
        let grouped = ServedTimes::group(3, &served);
        let (steps, best) = Steps::with_busiest(&grouped, window);
        // Each key's own busiest window, worked out on its own, and the busiest of them.
        let own: Vec<(u64, Time)> = grouped
            .per_key()
            .map(|t| busiest_window(t, window))
            .collect();
        assert_eq!(
            own,
            [
                (3, Time::from_millis(8_000)),
                (4, Time::from_millis(9_300)),
                (1, Time::from_millis(30_000))
            ]
        );
        assert_eq!(best, (4, Time::from_millis(9_300), 1));
        // The steps: 1 at 0 s, 2 at 4 s, 3 at 8 s (the steady key), 4 at 9.3 s (the burst).
        assert_eq!(steps.at(Time::from_millis(3_999)), 1);
        assert_eq!(steps.at(Time::from_millis(4_000)), 2);
        assert_eq!(steps.at(Time::from_millis(9_200)), 3);
        assert_eq!(steps.at(Time::from_millis(9_300)), 4);
        assert_eq!(steps.at(Time(u64::MAX)), 4);
    }

    fn counts(pattern: Pattern) -> Vec<(Algorithm, u64)> {
        let settings = Settings::default();
        let trace = pattern.generate(settings.limit, settings.window);
        run_all::<Complete>(&trace, &Algorithm::ALL, &settings)
            .unwrap()
            .iter()
            .map(|r| (r.algorithm, r.passed()))
            .collect()
    }

    /// The draft-8 policy express-rate-limit sends a key under the lab's default settings
    /// (5 per 10 s): the library's partition key of that key.
    fn express_policy(key: &str) -> String {
        let pk = crate::core::profiles::express_rate_limit::partition_key(key);
        format!("\"5-in-10sec\"; q=5; w=10; pk=:{pk}:")
    }

    fn two_keys() -> Trace {
        Trace::new(
            vec!["tenant:demo".to_string(), "203.0.113.14".to_string()],
            vec![
                Request::new(Time::ZERO, 0),
                Request::new(Time::from_millis(1), 1),
                Request::new(Time::from_millis(2), 0),
                Request::new(Time::from_millis(3), 1),
            ],
        )
    }

    #[test]
    fn each_keys_express_reply_names_its_own_key_in_the_replay_and_the_inspector() {
        let trace = two_keys();
        let keys = ["tenant:demo", "203.0.113.14"];
        let settings = Settings::default();
        let mut replay =
            DecisionReplay::<Complete>::new(&trace, Algorithm::ExpressRateLimit, &settings)
                .unwrap();
        for (index, request) in trace.requests().iter().enumerate() {
            let key = keys[request.key as usize];
            let (_, reply) = replay.decide(request);
            let reply = reply.unwrap();
            assert_eq!(reply.get("key"), Some(key), "request {index}");
            assert_eq!(
                reply.get("RateLimit-Policy"),
                Some(express_policy(key).as_str())
            );
            let (_, reply) =
                decision_at::<Complete>(&trace, Algorithm::ExpressRateLimit, &settings, index)
                    .unwrap();
            assert_eq!(
                reply.unwrap().get("key"),
                Some(key),
                "inspector, request {index}"
            );
        }
        assert_eq!(
            express_policy("tenant:demo"),
            "\"5-in-10sec\"; q=5; w=10; pk=:MzE2YTI4NDk5YjMw:"
        );
    }

    /// With a second limit each key's first limiter still names its key, and the second limit's
    /// limiter names the key it counts on (a second `rateLimit` keyed on the prefix).
    #[test]
    fn with_a_second_limit_each_reply_names_the_key_its_limiter_counts() {
        use crate::core::second_limit::{SecondKey, SecondLimit, Spend};
        let trace = two_keys();
        let settings = Settings {
            also: Some(SecondLimit {
                count: 1,
                window: Span::from_secs(10),
                key: SecondKey::Prefix,
                spend: Spend::All,
            }),
            ..Settings::default()
        };
        let expected = ["tenant:demo", "203.0.113.14", "tenant", "203.0.113.14"];
        let mut replay =
            DecisionReplay::<Complete>::new(&trace, Algorithm::ExpressRateLimit, &settings)
                .unwrap();
        for (index, request) in trace.requests().iter().enumerate() {
            let (_, reply) = replay.decide(request);
            assert_eq!(
                reply.unwrap().get("key"),
                Some(expected[index]),
                "request {index}"
            );
            let (_, reply) =
                decision_at::<Complete>(&trace, Algorithm::ExpressRateLimit, &settings, index)
                    .unwrap();
            assert_eq!(
                reply.unwrap().get("key"),
                Some(expected[index]),
                "inspector, request {index}"
            );
        }
    }

    /// `0 a, 0.99 b, 1.0 a` at 1 per second on Python `limits`' moving window: b's call starts
    /// the storage's one timer, which prunes a's entry at 1.0 s, before a's call.
    #[test]
    fn the_moving_window_rows_keys_share_one_storage_timer_in_the_run_replay_and_inspector() {
        let trace = Trace::new(
            vec!["a".to_string(), "b".to_string()],
            vec![
                Request::new(Time::ZERO, 0),
                Request::new(Time::from_millis(990), 1),
                Request::new(Time::from_secs(1), 0),
            ],
        );
        let settings = Settings {
            limit: 1,
            window: Span::from_secs(1),
            ..Settings::default()
        };
        let run = run_one::<Complete>(&trace, Algorithm::LimitsMoving, &settings).unwrap();
        assert_eq!((run.allowed, run.rejected), (3, 0));
        let mut replay =
            DecisionReplay::<Complete>::new(&trace, Algorithm::LimitsMoving, &settings).unwrap();
        for (index, request) in trace.requests().iter().enumerate() {
            let (decision, reply) = replay.decide(request);
            assert!(decision.allowed(), "request {index}");
            assert_eq!(reply.unwrap().get("hit"), Some("True"));
            let (decision, _) =
                decision_at::<Complete>(&trace, Algorithm::LimitsMoving, &settings, index).unwrap();
            assert!(decision.allowed(), "inspector, request {index}");
        }
        // Without b's call, a's entry exactly one window old still refuses.
        let alone = Trace::single_key("a", vec![Time::ZERO, Time::from_secs(1)]);
        let run = run_one::<Complete>(&alone, Algorithm::LimitsMoving, &settings).unwrap();
        assert_eq!((run.allowed, run.rejected), (1, 1));
    }

    #[test]
    fn the_explainers_window_edge_run_gives_fixed_10_sliding_5_bucket_6() {
        let c = counts(Pattern::Edge);
        assert_eq!(c[0], (Algorithm::FixedWindow, 10));
        assert_eq!(c[1], (Algorithm::SlidingLog, 5));
        assert_eq!(c[3], (Algorithm::TokenBucket, 6));
    }

    #[test]
    fn the_explainers_steady_run_gives_fixed_30_sliding_30_bucket_34() {
        let c = counts(Pattern::Steady);
        assert_eq!(c[0], (Algorithm::FixedWindow, 30));
        assert_eq!(c[1], (Algorithm::SlidingLog, 30));
        assert_eq!(c[3], (Algorithm::TokenBucket, 34));
    }

    #[test]
    fn the_fixed_window_lets_twice_the_limit_into_one_window_at_the_edge() {
        let settings = Settings::default();
        let trace = Pattern::Edge.generate(5, settings.window);
        let run = run_one::<Complete>(&trace, Algorithm::FixedWindow, &settings).unwrap();
        assert_eq!(run.max_in_window, 10);
        let sliding = run_one::<Complete>(&trace, Algorithm::SlidingLog, &settings).unwrap();
        assert_eq!(sliding.max_in_window, 5);
    }

    #[test]
    fn served_in_window_counts_the_half_open_window_ending_at_a_time() {
        let settings = Settings::default();
        let trace = Pattern::Edge.generate(5, settings.window);
        let fixed = run_one::<Complete>(&trace, Algorithm::FixedWindow, &settings).unwrap();
        assert_eq!(
            fixed.served_in_window(0, Time::from_millis(11_592), settings.window),
            10
        );
        assert_eq!(
            fixed.served_in_window(0, Time::from_millis(9_999), settings.window),
            5
        );
        assert_eq!(
            fixed.served_in_window(0, Time::from_secs(18), settings.window),
            9,
            "(8, 18] leaves out the one at 8"
        );
        assert_eq!(
            fixed.served_in_window(7, Time::from_secs(18), settings.window),
            0,
            "an unknown key"
        );
        assert_eq!(
            (fixed.max_window_end, fixed.max_window_key),
            (Time::from_millis(11_592), 0)
        );
    }

    #[test]
    fn the_busiest_window_is_half_open() {
        let times = [Time::ZERO, Time::from_secs(10), Time::from_secs(10)];
        assert_eq!(
            busiest_window(&times, Span::from_secs(10)),
            (2, Time::from_secs(10))
        );
        assert_eq!(
            busiest_window(&times, Span(10_000_001)),
            (3, Time::from_secs(10))
        );
        assert_eq!(busiest_window(&[], Span::from_secs(1)), (0, Time::ZERO));
    }

    #[test]
    fn a_decision_made_again_on_demand_is_the_one_the_verdict_came_with() {
        let settings = Settings {
            limit: 3,
            window: Span::from_secs(2),
            ..Settings::default()
        };
        let mut trace = Pattern::BurstTrickle.generate(settings.limit, settings.window);
        trace.push_key_requests(
            "b",
            &(0..40)
                .map(|i| Time::from_millis(i * 170))
                .collect::<Vec<_>>(),
        );
        for algorithm in Algorithm::ALL {
            let run = run_one::<Complete>(&trace, algorithm, &settings).unwrap();
            let mut replay = DecisionReplay::<Complete>::new(&trace, algorithm, &settings).unwrap();
            for (index, request) in trace.requests().iter().enumerate() {
                let (in_order, replied) = replay.decide(request);
                assert_eq!(
                    Some(in_order.verdict),
                    run.verdicts.get(index),
                    "{algorithm:?} #{index}"
                );
                let (on_demand, reply) =
                    decision_at::<Complete>(&trace, algorithm, &settings, index).unwrap();
                assert_eq!(
                    (on_demand, &reply),
                    (in_order, &replied),
                    "{algorithm:?} #{index}"
                );
                assert_eq!(reply.is_some(), algorithm.is_product());
            }
            assert!(decision_at::<Complete>(&trace, algorithm, &settings, trace.len()).is_none());
        }
    }

    #[test]
    fn verdicts_keep_each_kind_and_each_delay_in_a_byte_and_a_delay_each() {
        let given = [
            Verdict::Allowed,
            Verdict::Rejected,
            Verdict::Delayed {
                by: Span::from_millis(250),
            },
            Verdict::Allowed,
            Verdict::Delayed { by: Span(1) },
        ];
        let mut verdicts = Verdicts::with_capacity(given.len());
        for v in given {
            verdicts.push(v);
        }
        assert_eq!(verdicts.iter().collect::<Vec<_>>(), given);
        assert_eq!((verdicts.len(), verdicts.get(5)), (5, None));
        let mut plain = Verdicts::default();
        plain.push(Verdict::Rejected);
        assert!(
            plain.delays.is_empty(),
            "a run that never delays keeps no delays"
        );
    }

    #[test]
    fn served_times_are_grouped_by_key_in_order_and_an_unknown_key_has_none() {
        let t = |ms| Time::from_millis(ms);
        let grouped =
            ServedTimes::group(3, &[(2, t(5)), (0, t(1)), (2, t(3)), (9, t(4)), (0, t(7))]);
        assert_eq!(grouped.of(0), &[t(1), t(7)]);
        assert_eq!(grouped.of(1), &[] as &[Time]);
        assert_eq!(grouped.of(2), &[t(3), t(5)]);
        assert_eq!(grouped.of(9), &[] as &[Time]);
        assert_eq!(grouped.per_key().count(), 3);
    }

    #[test]
    fn a_second_key_is_never_affected_by_the_first() {
        let settings = Settings::default();
        let mut trace_a = Pattern::Edge.generate(5, settings.window);
        let alone = run_one::<Complete>(&trace_a, Algorithm::SlidingLog, &settings)
            .unwrap()
            .passed();
        // Same requests, plus a heavy second key interleaved.
        trace_a = crate::core::traffic::Trace::single_key(
            "a",
            trace_a.requests().iter().map(|r| r.at).collect(),
        );
        let mut both = trace_a.clone();
        both.push_key_requests(
            "b",
            &(0..50)
                .map(|i| Time::from_millis(8_000 + i * 10))
                .collect::<Vec<_>>(),
        );
        let runs = run_one::<Complete>(&both, Algorithm::SlidingLog, &settings).unwrap();
        let a_passed = both
            .requests()
            .iter()
            .zip(runs.verdicts.iter())
            .filter(|(r, v)| r.key == 0 && v.passes())
            .count() as u64;
        assert_eq!(a_passed, alone);
    }
}
