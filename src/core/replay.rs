//! A row's limiters, one per key and copy, and its full decisions made again in order: what a
//! run keeps (`super::run`), what the CSV export and the inspector replay, and what obeying
//! clients are decided by (`super::retries`), which may ask for any request again as a retry.

use super::combine::{decide_both, SecondLimiters};
use super::config::ConfigError;
use super::decision::{Decision, Limiter, Verdict};
use super::deployment::Placement;
use super::limiter::{Algorithm, AnyLimiter, Complete, LimiterSlots, Parts, Settings};
use super::profiles::ProductReply;
use super::second_limit::RefusedBy;
use super::traffic::{Request, Trace};

/// One limiter per key of a trace and copy of the row (a slot, see [`Placement::slot`]), each a
/// copy of the algorithm's fresh limiter made when its slot is first used: what a run and a
/// replay of the run both keep.
pub(super) struct PerKeyLimiters<C: Parts = Complete> {
    pub(super) limiters: LimiterSlots<C>,
    pub(super) placement: Placement,
    keys: usize,
}

impl<C: Parts> PerKeyLimiters<C> {
    pub(super) fn new(
        trace: &Trace,
        algorithm: Algorithm,
        settings: &Settings,
    ) -> Result<PerKeyLimiters<C>, ConfigError> {
        let placement = settings.deployment.placement::<C>(trace);
        let keys = trace.keys().len();
        let mut limiters = LimiterSlots::new(
            algorithm.build_with::<C>(settings)?,
            placement.instances() as usize,
        );
        for name in trace.keys() {
            limiters.add_key(name);
        }
        Ok(PerKeyLimiters {
            limiters,
            placement,
            keys,
        })
    }

    /// How many keys the trace names.
    pub(super) fn keys(&self) -> usize {
        self.keys
    }

    /// The slot that decides request `index` of `key`.
    pub(super) fn slot(&self, index: usize, key: u32) -> usize {
        self.placement.slot(index, key)
    }

    /// `f` on the limiter of `slot` (a slot past the trace's keys gets a fresh one each time).
    pub(super) fn with<R>(&mut self, slot: usize, f: impl FnOnce(&mut AnyLimiter<C>) -> R) -> R {
        self.limiters.with(slot, f)
    }
}

/// What [`DecisionReplay::verdict_or_decision`] answers.
pub enum VerdictOrDecision {
    /// Let through (now or later), decided on the fast path.
    Passed(Verdict),
    /// The full decision, with a product's reply and which limit refused it.
    Decided((Decision, Option<ProductReply>, Option<RefusedBy>)),
}

/// Every full decision of one algorithm over a trace, in request order, one limiter per key (and
/// copy), made as they are asked for (the export walks the whole trace without keeping them all).
pub struct DecisionReplay<C: Parts = Complete> {
    limiters: PerKeyLimiters<C>,
    second: Option<SecondLimiters<C>>,
    /// Whether the row's limiter answers a refusal again when peeked at the same instant.
    repeatable: bool,
    next: usize,
}

impl<C: Parts> DecisionReplay<C> {
    pub fn new(
        trace: &Trace,
        algorithm: Algorithm,
        settings: &Settings,
    ) -> Result<DecisionReplay<C>, ConfigError> {
        let limiters = PerKeyLimiters::new(trace, algorithm, settings)?;
        Ok(DecisionReplay {
            repeatable: limiters.limiters.fresh().refusal_is_repeatable(),
            limiters,
            second: SecondLimiters::new(trace, algorithm, settings)?,
            next: 0,
        })
    }

    /// True when the row's limiter settles verdicts late (see [`Limiter::settles_late`]).
    pub fn settles_late(&self) -> bool {
        self.limiters.limiters.fresh().settles_late()
    }

    /// The decision on `request`, the trace's next one after those already asked for, and for a
    /// product its own reply.
    pub fn decide(&mut self, request: &Request) -> (Decision, Option<ProductReply>) {
        let (decision, reply, _) = self.decide_with_cause(request);
        (decision, reply)
    }

    /// [`DecisionReplay::decide`], and which limit refused the request when the row has a
    /// second limit.
    pub fn decide_with_cause(
        &mut self,
        request: &Request,
    ) -> (Decision, Option<ProductReply>, Option<RefusedBy>) {
        let index = self.next;
        self.next += 1;
        self.decide_request(index, request)
    }

    /// The verdict on `request`, taken as request `index` of the trace as
    /// [`DecisionReplay::decide_request`] takes it, and the full decision only when it is a
    /// refusal (or when the row cannot answer a refusal again, see
    /// [`AnyLimiter::refusal_is_repeatable`], or has a second limit: then always). A pass is
    /// decided on the verdicts' fast path, which is what obeying clients' runs ask.
    pub fn verdict_or_decision(&mut self, index: usize, request: &Request) -> VerdictOrDecision {
        if !self.repeatable || self.second.is_some() {
            return VerdictOrDecision::Decided(self.decide_request(index, request));
        }
        let slot = self.limiters.slot(index, request.key);
        let (at, cost) = (request.at, u64::from(request.cost));
        self.limiters
            .with(slot, |limiter| match limiter.admit(at, cost) {
                Verdict::Rejected => {
                    VerdictOrDecision::Decided((limiter.peek(at, cost), None, None))
                }
                passed => VerdictOrDecision::Passed(passed),
            })
    }

    /// The decision on `request`, taken as request `index` of the trace (which copy decides it
    /// follows from the index), whatever was asked before: a retry is its client's request again.
    pub fn decide_request(
        &mut self,
        index: usize,
        request: &Request,
    ) -> (Decision, Option<ProductReply>, Option<RefusedBy>) {
        let slot = self.limiters.slot(index, request.key);
        let (at, cost) = (request.at, u64::from(request.cost));
        match &mut self.second {
            None => {
                let (decision, reply) = self
                    .limiters
                    .with(slot, |limiter| limiter.decide_with_reply(at, cost));
                (decision, reply, None)
            }
            Some(second) => {
                let shared = second.slot(&self.limiters.placement, index, request.key);
                let spend = second.spend;
                self.limiters.with(slot, |first| {
                    second.with(shared, |second| decide_both(first, second, spend, at, cost))
                })
            }
        }
    }
}
