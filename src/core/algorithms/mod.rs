//! The rate-limiting algorithms, one per module. Each keeps the state of a single key; the
//! [`Textbook`] trait is what a row of the lab asks of them beyond [`Limiter`]. Their rows (names,
//! construction from the lab's settings, explanations) are `core::limiter::textbook`.

pub mod fixed_window;
pub mod gcra;
pub mod leaky_bucket;
pub mod sliding_counter;
pub mod sliding_log;
pub mod token_bucket;

pub use fixed_window::FixedWindow;
pub use gcra::Gcra;
pub use leaky_bucket::{LeakyBucket, LeakyBucketConfig};
pub use sliding_counter::SlidingCounter;
pub use sliding_log::SlidingLog;
pub use token_bucket::TokenBucket;

use crate::core::decision::{Limiter, Verdict};
use crate::core::traffic::Request;

/// One of the six textbook algorithms as a row runs it: its fast path over one key's requests,
/// and whether a refusal changes nothing but its clock.
pub trait Textbook: Limiter {
    /// Decides `requests` (one key's, in order) with [`Limiter::admit`], telling `verdict` each
    /// answer; an algorithm with a faster loop of its own overrides it.
    fn admit_each<'a>(
        &mut self,
        requests: impl Iterator<Item = &'a Request>,
        verdict: &mut impl FnMut(Verdict),
    ) {
        for r in requests {
            verdict(self.admit(r.at, u64::from(r.cost)));
        }
    }

    /// True when a refusal changes nothing but the limiter's clock, so that [`Limiter::peek`]
    /// at the same instant, after a refused [`Limiter::admit`], answers exactly what
    /// [`Limiter::decide`] would have.
    fn refusal_is_repeatable(&self) -> bool;
}

impl Textbook for FixedWindow {
    fn refusal_is_repeatable(&self) -> bool {
        !self.counts_refused()
    }
}

impl Textbook for SlidingLog {
    fn refusal_is_repeatable(&self) -> bool {
        !self.counts_refused()
    }
}

impl Textbook for SlidingCounter {
    // The default loop as a function of its own, as GCRA's: inlined into the row's dispatch,
    // its verdict took one instruction more (`PARTS=instructions bash
    // scripts/bench-core-compare.sh`, docs/performance.md).
    #[inline(never)]
    fn admit_each<'a>(
        &mut self,
        requests: impl Iterator<Item = &'a Request>,
        verdict: &mut impl FnMut(Verdict),
    ) {
        for r in requests {
            verdict(self.admit(r.at, u64::from(r.cost)));
        }
    }

    fn refusal_is_repeatable(&self) -> bool {
        !self.counts_refused()
    }
}

impl Textbook for TokenBucket {
    fn admit_each<'a>(
        &mut self,
        requests: impl Iterator<Item = &'a Request>,
        verdict: &mut impl FnMut(Verdict),
    ) {
        TokenBucket::admit_each(self, requests, verdict);
    }

    fn refusal_is_repeatable(&self) -> bool {
        true
    }
}

impl Textbook for Gcra {
    fn admit_each<'a>(
        &mut self,
        requests: impl Iterator<Item = &'a Request>,
        verdict: &mut impl FnMut(Verdict),
    ) {
        Gcra::admit_each(self, requests, verdict);
    }

    fn refusal_is_repeatable(&self) -> bool {
        true
    }
}

impl Textbook for LeakyBucket {
    fn admit_each<'a>(
        &mut self,
        requests: impl Iterator<Item = &'a Request>,
        verdict: &mut impl FnMut(Verdict),
    ) {
        LeakyBucket::admit_each(self, requests, verdict);
    }

    fn refusal_is_repeatable(&self) -> bool {
        true
    }
}
