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

/// The final verdict of an earlier decision that a limiter settled after giving it (see
/// [`Limiter::settles_late`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settlement {
    /// Which decision: how many decisions this limiter had made before it (0 for its first).
    /// A caller keeping one limiter per key reads it as the key-local number of the request.
    pub seq: u64,
    /// The final verdict: `Delayed { by }` measured from that decision's time (`Allowed` when
    /// served at that very time), or `Rejected` when it was failed after all.
    pub verdict: Verdict,
    /// When it was settled: the time it was served, or the time it was failed.
    pub at: Time,
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

/// [`Limiter::peek`] as `decide` on a copy, so that the work `decide` and `peek` share has one
/// caller fewer. The release profile is built for size, and there a helper with more than one
/// caller stays out of line and hands its answer back through memory, which made full decisions
/// up to twice as slow and products' decisions a third slower. An algorithm's `assess` is then
/// called by `decide` alone. A product's, which `decide_with_reply` calls too, is marked
/// `#[inline(always)]` where that measured faster natively or in WebAssembly (docs/performance.md,
/// "The core, per decision").
pub fn peek_on_a_copy<L: Limiter + Clone>(limiter: &L, now: Time, cost: u64) -> Decision {
    limiter.clone().decide(now, cost)
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

    /// True when some `Delayed` verdicts of this limiter are open: whether such a request is
    /// served, and when, depends on requests that arrive after it (.NET's `NewestFirst` queue).
    /// Every `Delayed` verdict such a limiter gives is then open (its `by` is the earliest it
    /// could be served) until a [`Settlement`] names it: one taken through
    /// [`Limiter::take_settled`] after a later decision, or after [`Limiter::settle_rest`].
    /// Constant for a limiter's life, so a caller asks once; the default, for every limiter
    /// whose verdicts are final when given, is false.
    fn settles_late(&self) -> bool {
        false
    }

    /// The next settlement made by the last decision (or by `settle_rest`). Each decision
    /// forgets the ones of the decision before, so a caller that never takes them holds no
    /// memory for them; a caller that needs them takes them all before the next decision.
    fn take_settled(&mut self) -> Option<Settlement> {
        None
    }

    /// The trace has ended: lets time run on with no further request, as the real limiter's
    /// clock would, until every open verdict is settled; `take_settled` then yields them.
    /// The state is spent afterwards (its clock is far ahead): call it last.
    fn settle_rest(&mut self) {}
}

/// A boxed limiter decides as the limiter it holds (the lab boxes the products whose state is
/// large, `core::limiter::rows`).
impl<L: Limiter + ?Sized> Limiter for Box<L> {
    #[inline]
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        (**self).decide(now, cost)
    }

    #[inline]
    fn admit(&mut self, now: Time, cost: u64) -> Verdict {
        (**self).admit(now, cost)
    }

    #[inline]
    fn peek(&self, now: Time, cost: u64) -> Decision {
        (**self).peek(now, cost)
    }

    #[inline]
    fn gauge(&self, now: Time) -> Gauge {
        (**self).gauge(now)
    }

    #[inline]
    fn is_at_rest(&self, now: Time) -> bool {
        (**self).is_at_rest(now)
    }

    #[inline]
    fn settles_late(&self) -> bool {
        (**self).settles_late()
    }

    #[inline]
    fn take_settled(&mut self) -> Option<Settlement> {
        (**self).take_settled()
    }

    #[inline]
    fn settle_rest(&mut self) {
        (**self).settle_rest()
    }
}
