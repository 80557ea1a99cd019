//! What a limiter answers for one request, and the one trait every algorithm implements.

use super::time::{Span, Time};

/// The outcome of one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Served now.
    Allowed,
    /// Accepted, but held back and served `by` later (a leaky bucket smoothing a burst).
    Delayed { by: Span },
    /// Turned away.
    Rejected,
}

impl Verdict {
    /// True for a request that is served, now or after a delay.
    pub fn passes(self) -> bool {
        !matches!(self, Verdict::Rejected)
    }

    /// The short word used in tables, CSV exports and data attributes.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Allowed => "allowed",
            Verdict::Delayed { .. } => "delayed",
            Verdict::Rejected => "rejected",
        }
    }
}

/// A limiter's full answer: the verdict plus what a client needs to behave well.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub verdict: Verdict,
    /// The quota the client is held to (the `q` of `RateLimit-Policy`).
    pub limit: u64,
    /// How many more requests of cost 1 would be accepted right now, after this one.
    pub remaining: u64,
    /// Time until the limiter has forgotten everything it holds against this key.
    pub reset_after: Span,
    /// For a rejection: how long to wait before the same request can pass. `None` for a passed
    /// request, and for a request that can never pass (its cost is larger than the limit), except
    /// in the sliding log, which follows its seed and always names a time.
    pub retry_after: Option<Span>,
}

impl Decision {
    pub fn allowed(&self) -> bool {
        self.verdict.passes()
    }
}

/// A level to draw under a timeline: tokens in a bucket, entries in a log, and so on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gauge {
    /// Current level, for display only (exact decisions never read it).
    pub level: f64,
    /// The level's ceiling: a bucket's capacity, a log's limit.
    pub max: f64,
    /// What the level counts, e.g. "tokens".
    pub unit: &'static str,
}

/// One rate-limiting algorithm keeping the state of one key.
///
/// Time is passed in, never read. A time earlier than one already seen is treated as that later
/// time, so out-of-order or repeated timestamps never panic and never move state backwards.
pub trait Limiter {
    /// Decides a request of `cost` units at `now` and updates the state.
    fn decide(&mut self, now: Time, cost: u64) -> Decision;

    /// The verdict `decide` would give, with exactly the same change of state, but without the
    /// remaining count and the waits a response carries. A run keeps only verdicts, so this is
    /// the path every request of a trace takes; the algorithms answer it without a division.
    fn admit(&mut self, now: Time, cost: u64) -> Verdict {
        self.decide(now, cost).verdict
    }

    /// What `decide` would answer at `now`, without consuming anything.
    fn peek(&self, now: Time, cost: u64) -> Decision;

    /// The level to draw at `now` (after letting time pass, without consuming anything).
    fn gauge(&self, now: Time) -> Gauge;

    /// True when the limiter holds nothing against the key at `now`: its state is then the same
    /// as a fresh one's, so it may be forgotten (an alarm deletes such a key's storage).
    fn is_at_rest(&self, now: Time) -> bool;
}
