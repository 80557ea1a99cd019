//! What a refusal tells an obeying client (`clients=obey`, `core::clients`) to wait before it
//! tries again, row by row ([`told`]), as each row's descriptor says (`Hint` in a product's
//! module, `core::limiter::textbook` for the six algorithms):
//!
//! - the textbook algorithms and most products: the `Retry-After` header of the row's response
//!   (`core::row_response`), whole seconds as the row rounds them;
//! - governor: the exact wait of its `NotUntil` answer (`wait_time_from`), which a client of the
//!   library reads instead of a rounded header; `InsufficientCapacity` says no wait helps;
//! - redis-cell: the reply's `retry_after` seconds (as redis-cell rounds them, `redis_cell.rs`);
//!   -1 on a limited call means no wait helps;
//! - Upstash: the reply's `reset` (milliseconds on the lab's clock), the time the library's own
//!   examples wait until (`reset - Date.now()`);
//! - a row that sends no hint (nginx's 503, Upstash's timeout reply, a textbook refusal of a
//!   request larger than the limit): an exponential back-off from `window / limit`, the n-th
//!   retry waiting between `2^(n-1)` and `2^n` times that, drawn from the lab's seed
//!   ([`backoff`]), as the usual "exponential back-off with jitter" does.
//!
//! A client told that no wait helps gives up at once. Where the row's copies run apart
//! (`core::deployment`), a retry reaches the copy its first try reached: a client keeps its
//! connection. The simulation itself is in `core::retries`.

use super::decision::Decision;
use super::limiter::{Algorithm, Parts, Settings};
use super::profiles::ProductReply;
use super::rng::SeededRng;
use super::time::{Span, Time};

pub use super::profiles::Told;

/// What `algorithm`'s row tells the client whose request `decision` refused at `now`; `reply`
/// is a product's own reply. The row's descriptor says how (`Algorithm::told`).
pub fn told<C: Parts>(
    algorithm: Algorithm,
    settings: &Settings,
    now: Time,
    decision: &Decision,
    reply: Option<&ProductReply>,
) -> Told {
    match reply {
        Some(reply) => algorithm.told::<C>(settings, now, decision, reply),
        None => algorithm.told::<C>(settings, now, decision, &ProductReply::default()),
    }
}

/// What `algorithm`'s row tells a refused client, as the row's explanation says it.
pub fn what_it_tells(algorithm: Algorithm) -> &'static str {
    algorithm.tells()
}

/// The wait before retry `number` (from 1) of `client` when the row told it nothing: `base`
/// (the row's `window / limit`, at least a millisecond) doubled for each earlier retry, plus a
/// share of that drawn from `seed` for this client and retry alone, so that the draw does not
/// depend on the order the clients were refused in.
pub fn backoff(settings: &Settings, seed: u64, client: usize, number: u32) -> Span {
    let base = (settings.window.micros() / settings.limit.max(1)).max(1_000);
    let doubled = base.saturating_mul(1u64 << number.saturating_sub(1).min(40));
    let mut rng = SeededRng::new(
        seed ^ (client as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ u64::from(number).wrapping_mul(0xC2B2_AE3D_27D4_EB4F),
    );
    Span(doubled.saturating_add(rng.up_to(doubled)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::decision::Verdict;
    use crate::core::limiter::Complete;

    fn refusal(wait: Option<Span>) -> Decision {
        Decision {
            verdict: Verdict::Rejected,
            limit: 5,
            remaining: 0,
            reset_after: Span::from_secs(10),
            retry_after: wait,
        }
    }

    #[test]
    fn a_textbook_row_tells_the_retry_after_header_in_whole_seconds_rounded_up() {
        let told = told::<Complete>(
            Algorithm::FixedWindow,
            &Settings::default(),
            Time::ZERO,
            &refusal(Some(Span::from_millis(6_200))),
            None,
        );
        assert_eq!(told, Told::Wait(Span::from_secs(7)));
    }

    #[test]
    fn a_textbook_row_tells_exactly_the_retry_after_its_response_carries() {
        let settings = Settings::default();
        for wait_ms in [
            None,
            Some(0),
            Some(1),
            Some(999),
            Some(1_000),
            Some(6_200),
            Some(59_999),
        ] {
            let decision = refusal(wait_ms.map(Span::from_millis));
            let response = crate::core::http::respond(
                &crate::core::http::Policy::new("default", 5, settings.window),
                &decision,
            );
            let header = response
                .header("Retry-After")
                .and_then(|s| s.parse::<u64>().ok());
            let expected = header.map_or(Told::Nothing, |s| Told::Wait(Span::from_secs(s)));
            for algorithm in Algorithm::CORE {
                assert_eq!(
                    told::<Complete>(algorithm, &settings, Time::ZERO, &decision, None),
                    expected
                );
            }
        }
    }

    #[test]
    fn a_textbook_refusal_without_a_wait_tells_nothing() {
        let told = told::<Complete>(
            Algorithm::TokenBucket,
            &Settings::default(),
            Time::ZERO,
            &refusal(None),
            None,
        );
        assert_eq!(told, Told::Nothing);
    }

    #[test]
    fn governor_tells_its_exact_wait_and_redis_cell_its_reply_seconds() {
        let settings = Settings::default();
        let wait = Span::from_millis(1_250);
        assert_eq!(
            told::<Complete>(
                Algorithm::Governor,
                &settings,
                Time::ZERO,
                &refusal(Some(wait)),
                None
            ),
            Told::Wait(wait)
        );
        assert_eq!(
            told::<Complete>(
                Algorithm::Governor,
                &settings,
                Time::ZERO,
                &refusal(None),
                None
            ),
            Told::Never
        );
        let reply = |s: &str| ProductReply {
            fields: vec![("retry_after", s.to_string())],
        };
        assert_eq!(
            told::<Complete>(
                Algorithm::RedisCell,
                &settings,
                Time::ZERO,
                &refusal(Some(wait)),
                Some(&reply("2"))
            ),
            Told::Wait(Span::from_secs(2))
        );
        assert_eq!(
            told::<Complete>(
                Algorithm::RedisCell,
                &settings,
                Time::ZERO,
                &refusal(None),
                Some(&reply("-1"))
            ),
            Told::Never
        );
    }

    #[test]
    fn upstash_tells_the_time_until_its_reset_and_nginx_tells_nothing() {
        let settings = Settings::default();
        let reply = ProductReply {
            fields: vec![("success", "false".into()), ("reset", "10000".into())],
        };
        assert_eq!(
            told::<Complete>(
                Algorithm::UpstashFixed,
                &settings,
                Time::from_millis(3_500),
                &refusal(None),
                Some(&reply)
            ),
            Told::Wait(Span::from_millis(6_500))
        );
        assert_eq!(
            told::<Complete>(
                Algorithm::Nginx,
                &settings,
                Time::ZERO,
                &refusal(Some(Span::from_secs(1))),
                Some(&ProductReply::default())
            ),
            Told::Nothing
        );
    }

    #[test]
    fn a_back_off_doubles_with_each_retry_and_its_jitter_stays_below_the_doubling() {
        let settings = Settings::default(); // 5 per 10 s: 2 s
        for number in 1..=4u32 {
            let floor = 2_000_000u64 << (number - 1);
            let wait = backoff(&settings, 1, 7, number).micros();
            assert!((floor..=2 * floor).contains(&wait), "{number}: {wait}");
        }
        assert_eq!(backoff(&settings, 1, 7, 2), backoff(&settings, 1, 7, 2));
        assert_ne!(backoff(&settings, 1, 7, 2), backoff(&settings, 1, 8, 2));
        assert!(backoff(&settings, 1, 0, crate::core::clients::MAX_RETRIES).micros() > 0);
    }
}
