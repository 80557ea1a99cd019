//! Deciding a request under a row's own limit and its second limit (`super::second_limit`):
//! the two ways of spending, the decision and reply a refused or passed request carries, and the
//! second limit's limiters over a trace, one per second key and copy.

use std::collections::HashMap;

use super::config::ConfigError;
use super::decision::{Decision, Limiter, Verdict};
use super::deployment::Placement;
use super::limiter::{Algorithm, AnyLimiter, Complete, LimiterSlots, Parts, Settings};
use super::profiles::ProductReply;
use super::second_limit::{RefusedBy, SecondKey, Spend};
use super::time::{Span, Time};
use super::traffic::Trace;

/// The verdict of a request both limits let through: served when the later one would serve it.
fn both_passed(first: Verdict, second: Verdict) -> Verdict {
    let delay = |v: Verdict| match v {
        Verdict::Delayed { by } => by,
        _ => Span::ZERO,
    };
    let held = |v: Verdict| matches!(v, Verdict::Delayed { .. });
    if held(first) || held(second) {
        Verdict::Delayed {
            by: delay(first).max(delay(second)),
        }
    } else {
        Verdict::Allowed
    }
}

/// Decides a request of `cost` at `at` under both limits, verdicts only (a run's path).
pub fn admit_both<C: Parts>(
    first: &mut AnyLimiter<C>,
    second: &mut AnyLimiter<C>,
    spend: Spend,
    at: Time,
    cost: u64,
) -> (Verdict, Option<RefusedBy>) {
    match spend {
        Spend::All => {
            let v1 = first.admit(at, cost);
            if !v1.passes() {
                return (v1, Some(RefusedBy::First));
            }
            let v2 = second.admit(at, cost);
            if !v2.passes() {
                return (v2, Some(RefusedBy::Second));
            }
            (both_passed(v1, v2), None)
        }
        Spend::Passed => {
            let (p1, p2) = (first.peek(at, cost), second.peek(at, cost));
            match (p1.allowed(), p2.allowed()) {
                (true, true) => {
                    let v1 = first.admit(at, cost);
                    let v2 = second.admit(at, cost);
                    (both_passed(v1, v2), None)
                }
                (false, _) => {
                    let v1 = first.admit(at, cost);
                    if !p2.allowed() {
                        second.admit(at, cost);
                    }
                    (v1, Some(RefusedBy::First))
                }
                (true, false) => (second.admit(at, cost), Some(RefusedBy::Second)),
            }
        }
    }
}

/// The full decision under both limits, and the product reply of the limit it quotes: the
/// refusing limit's answer for a refusal; for a pass, the first's with the fewer remaining and
/// the later reset of the two (the inspector's and the CSV's path).
pub fn decide_both<C: Parts>(
    first: &mut AnyLimiter<C>,
    second: &mut AnyLimiter<C>,
    spend: Spend,
    at: Time,
    cost: u64,
) -> (Decision, Option<ProductReply>, Option<RefusedBy>) {
    let (one, two) = match spend {
        Spend::All => {
            let one = first.decide_with_reply(at, cost);
            if !one.0.allowed() {
                return (one.0, one.1, Some(RefusedBy::First));
            }
            (one, second.decide_with_reply(at, cost))
        }
        Spend::Passed => {
            let (p1, p2) = (first.peek(at, cost), second.peek(at, cost));
            if !p1.allowed() {
                let one = first.decide_with_reply(at, cost);
                if !p2.allowed() {
                    second.decide_with_reply(at, cost);
                }
                return (one.0, one.1, Some(RefusedBy::First));
            }
            if !p2.allowed() {
                let two = second.decide_with_reply(at, cost);
                return (two.0, two.1, Some(RefusedBy::Second));
            }
            (
                first.decide_with_reply(at, cost),
                second.decide_with_reply(at, cost),
            )
        }
    };
    let ((d1, reply), (d2, reply2)) = (one, two);
    if !d2.allowed() {
        return (d2, reply2, Some(RefusedBy::Second));
    }
    let decision = Decision {
        verdict: both_passed(d1.verdict, d2.verdict),
        remaining: d1.remaining.min(d2.remaining),
        reset_after: d1.reset_after.max(d2.reset_after),
        ..d1
    };
    (decision, reply, None)
}

/// The second limit's limiters over one trace: one per second key and copy of the row, made
/// when first used.
#[derive(Clone, Debug)]
pub struct SecondLimiters<C: Parts = Complete> {
    pub spend: Spend,
    key: SecondKey,
    /// Per key of the trace, the number of the key its second limit counts on.
    second_key: Vec<u32>,
    /// The second limit's keys, numbered in order of first appearance.
    numbers: HashMap<String, u32>,
    instances: usize,
    limiters: LimiterSlots<C>,
}

impl<C: Parts> SecondLimiters<C> {
    /// The second limit of `algorithm` over `trace`, if the settings set one. A limiter that
    /// settles verdicts late cannot take one: which of its queued requests pass is known only
    /// later, and the second limit would have to have decided them already.
    pub fn new(
        trace: &Trace,
        algorithm: Algorithm,
        settings: &Settings,
    ) -> Result<Option<SecondLimiters<C>>, ConfigError> {
        let mut limiters = SecondLimiters::with_no_keys(algorithm, settings)?;
        if let Some(limiters) = &mut limiters {
            for name in trace.keys() {
                limiters.add_key(name);
            }
        }
        Ok(limiters)
    }

    /// [`SecondLimiters::new`] for keys that come later, one at a time ([`Self::add_key`]).
    pub fn with_no_keys(
        algorithm: Algorithm,
        settings: &Settings,
    ) -> Result<Option<SecondLimiters<C>>, ConfigError> {
        let second = settings
            .second()
            .filter(|_| settings.rules_in::<C>().second_limit);
        let Some((second, also)) = second else {
            return Ok(None);
        };
        let fresh = algorithm.build_with::<C>(&second)?;
        if fresh.settles_late() || algorithm.build_with::<C>(settings)?.settles_late() {
            return Err(ConfigError::Unsupported(
                "a second limit (also=) cannot be combined with a queue served newest first (dotnet-order=newest), whose verdicts are settled only later",
            ));
        }
        let instances = settings.deployment.placement_of_no_keys::<C>().instances() as usize;
        Ok(Some(SecondLimiters {
            spend: also.spend,
            key: also.key,
            second_key: Vec::new(),
            numbers: HashMap::new(),
            instances,
            limiters: LimiterSlots::new(fresh, instances),
        }))
    }

    /// Numbers the trace's next key (keys are numbered in order of first appearance).
    pub fn add_key(&mut self, name: &str) {
        let second = self.key.of(name);
        let number = match self.numbers.get(second) {
            Some(&number) => number,
            None => {
                let number = self.numbers.len() as u32;
                self.numbers.insert(second.to_string(), number);
                self.limiters.add_key(second);
                number
            }
        };
        self.second_key.push(number);
    }

    /// The slot of request `index` of `key`: its second key on the copy that decides it.
    pub fn slot(&self, placement: &Placement, index: usize, key: u32) -> usize {
        let second = self
            .second_key
            .get(key as usize)
            .copied()
            .unwrap_or(u32::MAX);
        (second as usize)
            .saturating_mul(self.instances)
            .saturating_add(placement.instance(index, key) as usize)
    }

    /// The limiter of `slot` (a fresh one, forgotten after, for a slot past the trace's keys).
    pub fn with<R>(&mut self, slot: usize, f: impl FnOnce(&mut AnyLimiter<C>) -> R) -> R {
        self.limiters.with(slot, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_passes_are_served_when_the_later_would_serve() {
        let delayed = |ms| Verdict::Delayed {
            by: Span::from_millis(ms),
        };
        assert_eq!(
            both_passed(Verdict::Allowed, Verdict::Allowed),
            Verdict::Allowed
        );
        assert_eq!(both_passed(Verdict::Allowed, delayed(5)), delayed(5));
        assert_eq!(both_passed(delayed(9), delayed(5)), delayed(9));
        assert_eq!(both_passed(delayed(0), Verdict::Allowed), delayed(0));
    }
}
