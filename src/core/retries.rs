//! The traffic of clients that obey what they are told (`clients=obey`, `core::clients`, with
//! what each row tells them in `core::retry_hint`): each
//! request of the trace is a client's first try; a refused client waits what the row told it and
//! tries again, so every row ends up with traffic of its own. [`ClientLoop`] runs one row's
//! clients: the trace's requests in order, and before each, every retry due by its time (in the
//! order they fall due; at the same instant a retry goes before a first try, as it has waited).
//!
//! The row's run (`core::run`), the inspector's on-demand decision, the client's tries it lists
//! ([`tries_of`]) and the CSV export all take their decisions from this loop, so they agree.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::config::ConfigError;
use super::decision::{Decision, Verdict};
use super::limiter::{Algorithm, Complete, Parts, Settings};
use super::profiles::ProductReply;
use super::replay::{DecisionReplay, VerdictOrDecision};
use super::retry_hint::{backoff, told, Told};
use super::second_limit::RefusedBy;
use super::time::{format_seconds, Span, Time};
use super::traffic::{Request, Trace};

/// One try of one client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The client: the index of its first try in the trace.
    pub client: usize,
    /// 0 for the first try, then 1, 2, ... for the retries.
    pub number: u32,
    pub at: Time,
    /// For a retry: when the refusal it follows was given.
    pub after: Option<Time>,
    /// For a retry: true when the client waited as the row told it, false when it was told
    /// nothing and backed off on its own.
    pub as_told: bool,
}

/// What a client does after a try.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Then {
    /// It was let through (served at this time, later than the try when delayed).
    Served(Time),
    /// It was refused and tries again at this time.
    RetriesAt(Time),
    /// It was refused and stops: out of retries, or told that no wait helps.
    GivesUp,
}

/// A try with the row's answer to it.
pub struct Tried<'a> {
    pub attempt: Attempt,
    pub verdict: Verdict,
    /// The full answer: always from a loop made with [`ClientLoop::new`]; from one made with
    /// [`ClientLoop::verdicts`], only for a refusal (a pass is decided on the fast path).
    pub decision: Option<&'a Decision>,
    pub reply: Option<&'a ProductReply>,
    pub refused_by: Option<RefusedBy>,
    pub then: Then,
}

/// A retry waiting for its time; ordered by time, then by when it was scheduled. 32 bytes: a
/// retry storm keeps millions waiting at once (a trace holds at most a few million requests,
/// each retried at most 50 times, so the counters fit 32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Waiting {
    at: Time,
    scheduled: u32,
    client: u32,
    after: Time,
    number: u8,
    as_told: bool,
}

/// One row's obeying clients, run a slice of the trace at a time.
pub struct ClientLoop<C: Parts = Complete> {
    /// True when only a refusal's full answer is needed (a row's run).
    verdicts_only: bool,
    algorithm: Algorithm,
    settings: Settings,
    retries: u32,
    decisions: DecisionReplay<C>,
    waiting: BinaryHeap<Reverse<Waiting>>,
    scheduled: u32,
}

impl<C: Parts> ClientLoop<C> {
    /// The clients of `trace` on `algorithm`'s row. A limiter that settles verdicts late is
    /// refused: its clients would learn of a refusal only after later requests.
    pub fn new(
        trace: &Trace,
        algorithm: Algorithm,
        settings: &Settings,
    ) -> Result<ClientLoop<C>, ConfigError> {
        let decisions = DecisionReplay::new(trace, algorithm, settings)?;
        if decisions.settles_late() {
            return Err(ConfigError::Unsupported(
                "clients that obey (clients=obey) cannot be combined with a queue served newest first (dotnet-order=newest), whose refusals are known only later",
            ));
        }
        Ok(ClientLoop {
            verdicts_only: false,
            algorithm,
            settings: settings.clone(),
            retries: settings.clients.retries,
            decisions,
            waiting: BinaryHeap::new(),
            scheduled: 0,
        })
    }

    /// [`ClientLoop::new`] for a row's run, which needs the full answer to a refusal only (to
    /// know what it told the client): a pass is decided on the verdicts' fast path where the
    /// row allows it (`replay::DecisionReplay::verdict_or_decision`).
    pub fn verdicts(
        trace: &Trace,
        algorithm: Algorithm,
        settings: &Settings,
    ) -> Result<ClientLoop<C>, ConfigError> {
        let mut clients = ClientLoop::<C>::new(trace, algorithm, settings)?;
        clients.verdicts_only = true;
        Ok(clients)
    }

    /// Decides `first_tries` (requests of `trace` with their indices, in order) and, before
    /// each, every retry due by its time; `on` sees every try as it is decided.
    pub fn advance<'t>(
        &mut self,
        trace: &Trace,
        first_tries: impl Iterator<Item = (usize, &'t Request)>,
        on: &mut impl FnMut(&Tried),
    ) {
        for (index, request) in first_tries {
            self.retry_due(trace, Some(request.at), on);
            let attempt = Attempt {
                client: index,
                number: 0,
                at: request.at,
                after: None,
                as_told: false,
            };
            self.try_once(request, attempt, on);
        }
    }

    /// Every retry still waiting, after the trace's last first try.
    pub fn finish(&mut self, trace: &Trace, on: &mut impl FnMut(&Tried)) {
        self.retry_due(trace, None, on);
    }

    /// Retries due by `until` (all of them for `None`), in order.
    fn retry_due(&mut self, trace: &Trace, until: Option<Time>, on: &mut impl FnMut(&Tried)) {
        while let Some(Reverse(next)) = self.waiting.peek().copied() {
            if until.is_some_and(|until| next.at > until) {
                return;
            }
            self.waiting.pop();
            let Some(request) = trace.requests().get(next.client as usize) else {
                continue;
            };
            let attempt = Attempt {
                client: next.client as usize,
                number: u32::from(next.number),
                at: next.at,
                after: Some(next.after),
                as_told: next.as_told,
            };
            self.try_once(request, attempt, on);
        }
    }

    fn try_once(&mut self, request: &Request, attempt: Attempt, on: &mut impl FnMut(&Tried)) {
        let retry = Request {
            at: attempt.at,
            ..*request
        };
        let answer = if self.verdicts_only {
            self.decisions.verdict_or_decision(attempt.client, &retry)
        } else {
            VerdictOrDecision::Decided(self.decisions.decide_request(attempt.client, &retry))
        };
        let (verdict, decided) = match answer {
            VerdictOrDecision::Passed(verdict) => (verdict, None),
            VerdictOrDecision::Decided(full) => (full.0.verdict, Some(full)),
        };
        let then = match verdict {
            Verdict::Allowed => Then::Served(attempt.at),
            Verdict::Delayed { by } => Then::Served(attempt.at.plus(by)),
            Verdict::Rejected if attempt.number >= self.retries => Then::GivesUp,
            Verdict::Rejected => {
                let number = attempt.number + 1;
                // A refusal always comes with its full answer.
                let told = match &decided {
                    Some((decision, reply, _)) => told::<C>(
                        self.algorithm,
                        &self.settings,
                        attempt.at,
                        decision,
                        reply.as_ref(),
                    ),
                    None => Told::Nothing,
                };
                let wait = match told {
                    Told::Wait(wait) => Some((wait, true)),
                    Told::Nothing => Some((
                        backoff(
                            &self.settings,
                            self.settings.deployment.seed,
                            attempt.client,
                            number,
                        ),
                        false,
                    )),
                    Told::Never => None,
                };
                match wait {
                    Some((wait, as_told)) => {
                        let at = attempt.at.plus(wait);
                        self.waiting.push(Reverse(Waiting {
                            at,
                            scheduled: self.scheduled,
                            client: u32::try_from(attempt.client).unwrap_or(u32::MAX),
                            after: attempt.at,
                            number: u8::try_from(number).unwrap_or(u8::MAX),
                            as_told,
                        }));
                        self.scheduled = self.scheduled.wrapping_add(1);
                        Then::RetriesAt(at)
                    }
                    None => Then::GivesUp,
                }
            }
        };
        let (decision, reply, refused_by) = match &decided {
            Some((decision, reply, refused_by)) => (Some(decision), reply.as_ref(), *refused_by),
            None => (None, None, None),
        };
        on(&Tried {
            attempt,
            verdict,
            decision,
            reply,
            refused_by,
            then,
        });
    }
}

/// Every try of client `index` on `algorithm`'s row, with the row's answers. Only the requests
/// that can change those answers are run: without a second limit, those of the client's own key
/// and copy.
pub fn tries_of<C: Parts>(
    trace: &Trace,
    algorithm: Algorithm,
    settings: &Settings,
    index: usize,
) -> Option<Vec<ClientTry>> {
    let target = trace.requests().get(index)?;
    let mut clients = ClientLoop::<C>::new(trace, algorithm, settings).ok()?;
    let placement = settings.deployment.placement::<C>(trace);
    let slot = placement.slot(index, target.key);
    let whole = settings.also.is_some();
    let first_tries = trace
        .requests()
        .iter()
        .enumerate()
        .filter(|(i, r)| whole || placement.slot(*i, r.key) == slot);
    let mut tries = Vec::new();
    let mut keep = |tried: &Tried| {
        // A loop made with `ClientLoop::new` gives every full answer.
        let Some(decision) = tried.decision else {
            return;
        };
        if tried.attempt.client == index {
            tries.push(ClientTry {
                attempt: tried.attempt,
                decision: *decision,
                reply: tried.reply.cloned(),
                refused_by: tried.refused_by,
                then: tried.then,
            });
        }
    };
    clients.advance(trace, first_tries, &mut keep);
    clients.finish(trace, &mut keep);
    Some(tries)
}

/// One try as [`tries_of`] keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientTry {
    pub attempt: Attempt,
    pub decision: Decision,
    pub reply: Option<ProductReply>,
    pub refused_by: Option<RefusedBy>,
    pub then: Then,
}

/// A client's tries in words, for the inspector: "refused at 1 s, told to wait 9 s; retry 1 at
/// 10 s: let through".
pub fn describe_tries(tries: &[ClientTry]) -> String {
    let mut parts = Vec::new();
    for (i, tried) in tries.iter().enumerate() {
        let at = format_seconds(tried.attempt.at.micros());
        let which = match tried.attempt.number {
            0 => format!("first try at {at} s"),
            n => format!("retry {n} at {at} s"),
        };
        let then = match tried.then {
            Then::Served(served) if served == tried.attempt.at => "let through".to_string(),
            Then::Served(served) => format!(
                "let through, served at {} s",
                format_seconds(served.micros())
            ),
            Then::RetriesAt(next) => {
                let wait = format_seconds(next.since(tried.attempt.at).micros());
                match tries.get(i + 1) {
                    Some(next) if !next.attempt.as_told => {
                        format!("refused, told nothing: backed off {wait} s")
                    }
                    _ => format!("refused, told to wait {wait} s"),
                }
            }
            Then::GivesUp => "refused; the client gave up".to_string(),
        };
        parts.push(format!("{which}: {then}"));
    }
    parts.join("; ")
}

/// A retry as a row's run keeps it, to draw it and count it: 24 bytes, as a retry storm over a
/// large trace keeps millions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryMark {
    pub client: u32,
    /// 1 for the first retry (at most `clients::MAX_RETRIES`).
    pub number: u8,
    /// Let through (now or later), or refused.
    pub passed: bool,
    /// Let through later: held back first.
    pub delayed: bool,
    pub as_told: bool,
    /// The refusal it follows.
    pub after: Time,
    pub at: Time,
}

/// What a row's obeying clients did, beside the verdicts on their first tries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientsRun {
    /// Every retry, in the order the row decided them.
    pub retries: Vec<RetryMark>,
    /// Retries refused although the client had waited as told.
    pub wasted: u64,
    /// Clients refused on their last try, or told that no wait helps.
    pub gave_up: u64,
    /// Clients let through in the end.
    pub succeeded: u64,
    /// Of the clients let through, the 95th percentile (nearest rank) of the time from their
    /// first try to being served; `None` when none was.
    pub p95_wait: Option<Span>,
}

/// Gathers a [`ClientsRun`] from the tries of a row, as they are decided.
#[derive(Debug, Default)]
pub struct ClientsTally {
    run: ClientsRun,
    /// Per client let through, its wait in microseconds.
    waits: Vec<u64>,
}

impl ClientsTally {
    /// Counts one try; `first_at` is the time of the client's first try.
    pub fn count(&mut self, tried: &Tried, first_at: Time) {
        let attempt = &tried.attempt;
        if attempt.number > 0 {
            if !tried.verdict.passes() && attempt.as_told {
                self.run.wasted += 1;
            }
            self.run.retries.push(RetryMark {
                client: attempt.client as u32,
                number: u8::try_from(attempt.number).unwrap_or(u8::MAX),
                passed: tried.verdict.passes(),
                delayed: matches!(tried.verdict, Verdict::Delayed { .. }),
                as_told: attempt.as_told,
                after: attempt.after.unwrap_or(attempt.at),
                at: attempt.at,
            });
        }
        match tried.then {
            Then::Served(at) => {
                self.run.succeeded += 1;
                self.waits.push(at.since(first_at).micros());
            }
            Then::GivesUp => self.run.gave_up += 1,
            Then::RetriesAt(_) => {}
        }
    }

    pub fn finish(mut self) -> ClientsRun {
        self.run.p95_wait = nearest_rank(&mut self.waits, 95).map(Span);
        self.run
    }
}

/// The `p`-th percentile of `values` by nearest rank (the smallest value with at least `p` % of
/// the values at or below it).
fn nearest_rank(values: &mut [u64], p: usize) -> Option<u64> {
    if values.is_empty() {
        return None;
    }
    let rank = (values.len() * p).div_ceil(100).max(1);
    let (_, value, _) = values.select_nth_unstable(rank - 1);
    Some(*value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retry_mark_takes_24_bytes_and_a_waiting_retry_32() {
        assert_eq!(std::mem::size_of::<RetryMark>(), 24);
        assert_eq!(std::mem::size_of::<Waiting>(), 32);
    }

    #[test]
    fn the_nearest_rank_percentile_is_a_value_of_the_set() {
        let mut values: Vec<u64> = (1..=20).collect();
        assert_eq!(nearest_rank(&mut values, 95), Some(19));
        assert_eq!(nearest_rank(&mut [7], 95), Some(7));
        assert_eq!(nearest_rank(&mut [], 95), None);
        let mut hundred: Vec<u64> = (1..=100).rev().collect();
        assert_eq!(nearest_rank(&mut hundred, 95), Some(95));
    }

    #[test]
    fn a_clients_tries_read_as_what_each_met_and_what_it_was_told() {
        let state =
            crate::core::url::parse_query("trace=0,1,2&limit=1&algos=fixed&clients=obey").state;
        let trace = state
            .traffic()
            .generate(state.settings.limit, state.settings.window);
        let tries =
            tries_of::<Complete>(&trace, Algorithm::FixedWindow, &state.settings, 2).unwrap();
        assert_eq!(
            describe_tries(&tries),
            "first try at 2 s: refused, told to wait 8 s; retry 1 at 10 s: refused, told to wait 10 s; retry 2 at 20 s: let through"
        );
    }
}
