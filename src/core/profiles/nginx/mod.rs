//! nginx's `limit_req`: the leaky bucket of `ngx_http_limit_req_module`, with the module's own
//! integer arithmetic (nginx/nginx, `src/http/modules/ngx_http_limit_req_module.c`, the lookup and
//! account steps and the directive parsers; the directives as documented on
//! nginx.org/en/docs/http/ngx_http_limit_req_module.html).
//!
//! - The zone's rate is kept in thousandths of a request per second: `rate=Nr/s` is `N × 1000`,
//!   `rate=Nr/m` is `N × 1000 / 60` in integer division, so `1r/m` is 16, not 16.67.
//! - Each key keeps `excess` (thousandths of a request ahead of the rate) and `last`, a time in
//!   whole milliseconds. A key seen for the first time gets excess 0 and `last = now`: its first
//!   request is always free.
//! - Otherwise `ms = now - last`, and `excess = excess - rate × ms / 1000 + 1000`, divided before
//!   subtracting (the fraction of a thousandth is dropped every time) and only then clamped at 0.
//!   Two requests inside the same millisecond are simultaneous to nginx.
//! - The request is rejected when `excess > burst × 1000` (strictly greater), with the status of
//!   `limit_req_status` (503 unless set; nginx accepts 400 to 599). A rejection changes nothing.
//! - Otherwise the excess is stored, and `last = now` when `ms` is not 0. It is served at once
//!   when `excess <= delay × 1000`, else held back `(excess - delay × 1000) × 1000 / rate`
//!   milliseconds (truncated; a delay that truncates to 0 ms is served at once, as nginx does).
//!   `delay` defaults to 0 (every excess request is delayed), `nodelay` makes it unreachable,
//!   and `delay=N` (nginx 1.15.7+) gives the two-stage limit. nginx accepts a delay above the
//!   burst, which then acts as `nodelay`, and so does this profile.
//! - nginx's error log shows the excess as `excess: %ui.%03ui` (whole requests, a dot, three
//!   digits); the reply's `excess` field is written the same way.
//!
//! Choices where the module has nothing to say:
//! - Time here is in microseconds; nginx reads its millisecond clock, so a time is floored to the
//!   millisecond before anything else, exactly as `ngx_current_msec` would see it.
//! - nginx's clock does not run backwards; for a step back it uses `ms = 0` and keeps `last`
//!   (within a minute) or counts 1 ms and moves `last` back (beyond). The lab's rule for every
//!   limiter (a time earlier than one already seen is read as that later time) makes `ms` never
//!   negative, so state never moves back. For a step back of under a minute from the key's own
//!   `last` this is nginx's answer; after a rejection, which does not move `last`, the lab's
//!   reading is the later time, so it can leak a little more than nginx would.
//! - One profile is one key of one zone with a single `limit_req`. nginx frees an idle key's node
//!   (after a minute, once nothing is owed) only when another key needs memory; that depends on
//!   other keys and is not modelled: the node is kept.
//! - nginx counts one request per call. A request of cost `c` is read as `c` requests arriving in
//!   the same millisecond, all accepted or all rejected; cost 0 looks without counting.

use std::fmt;

use crate::core::config::{ConfigError, MAX_COUNT};
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::time::{Span, Time, MICROS_PER_MILLI, MICROS_PER_SEC};

use super::{Product, ProductReply};
use crate::core::profiles::{explanation, Family, Hint, ProductRow, SnippetOf};
mod config;
mod fields;
mod snippet;

pub use fields::Fields;

/// One request, in the module's unit (thousandths of a request).
const ONE: i128 = 1000;

/// `limit_req_zone ... rate=`: whole requests per second or per minute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NginxRate {
    PerSecond(u64),
    PerMinute(u64),
}

impl NginxRate {
    /// The rate as the module stores it: thousandths of a request per second, `n × 1000 / 60`
    /// truncated for a per-minute rate.
    pub fn milli_per_sec(self) -> u64 {
        match self {
            NginxRate::PerSecond(n) => n.saturating_mul(1000),
            NginxRate::PerMinute(n) => n.saturating_mul(1000) / 60,
        }
    }

    fn count(self) -> u64 {
        match self {
            NginxRate::PerSecond(n) | NginxRate::PerMinute(n) => n,
        }
    }
}

impl fmt::Display for NginxRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NginxRate::PerSecond(n) => write!(f, "{n}r/s"),
            NginxRate::PerMinute(n) => write!(f, "{n}r/m"),
        }
    }
}

/// Reads nginx's spelling of a rate: `10r/s` or `30r/m`. (nginx itself also takes a bare number
/// as requests per second; the lab asks for the unit, so a typed rate always says what it means.)
pub fn parse_rate(text: &str) -> Result<NginxRate, ConfigError> {
    const SPELLING: &str = "nginx writes a rate as a whole number of requests per second or per minute, like 10r/s or 30r/m";
    let t = text.trim();
    let (digits, per_minute) = if let Some(d) = t.strip_suffix("r/s") {
        (d, false)
    } else if let Some(d) = t.strip_suffix("r/m") {
        (d, true)
    } else {
        return Err(ConfigError::Unsupported(SPELLING));
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ConfigError::Unsupported(SPELLING));
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > 10 {
        return Err(ConfigError::TooLarge("rate"));
    }
    let n: u64 = significant.parse().unwrap_or(0);
    if n == 0 {
        return Err(ConfigError::ZeroRate);
    }
    if n > MAX_COUNT {
        return Err(ConfigError::TooLarge("rate"));
    }
    Ok(if per_minute {
        NginxRate::PerMinute(n)
    } else {
        NginxRate::PerSecond(n)
    })
}

/// When an accepted excess request is served: `limit_req ... [nodelay | delay=N]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NginxDelay {
    /// `delay=N`: up to `N` requests ahead of the rate are served at once, the rest are delayed.
    /// `Delay(0)` is nginx's default (no parameter): every excess request is delayed.
    Delay(u64),
    /// `nodelay`: everything accepted is served at once.
    NoDelay,
}

impl Default for NginxDelay {
    fn default() -> NginxDelay {
        NginxDelay::Delay(0)
    }
}

/// A `limit_req_zone` rate plus one `limit_req` and `limit_req_status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NginxParams {
    pub rate: NginxRate,
    /// `burst=`; 0 when not given (nginx's default).
    pub burst: u64,
    pub delay: NginxDelay,
    /// `limit_req_status`: 503 unless set.
    pub status: u16,
}

impl NginxParams {
    /// `rate` with every other setting at nginx's default: no burst, every excess request
    /// delayed, 503 for a rejection.
    pub fn new(rate: NginxRate) -> NginxParams {
        NginxParams {
            rate,
            burst: 0,
            delay: NginxDelay::default(),
            status: 503,
        }
    }

    /// The lab's "`limit` per `window`" written as an nginx configuration. nginx has no window,
    /// only a rate, so the quota becomes its average rate: whole requests per second when
    /// `limit / window` is a whole number per second, else requests per minute rounded to the
    /// nearest (at least `1r/m`). `burst = limit - 1` lets a fresh client have `limit` requests
    /// accepted at once (its first is free, then the burst), and `delay` stays at nginx's default
    /// 0, so the accepted burst is spread out at the rate, which is what nginx does unless told
    /// `nodelay`.
    pub fn defaults_for(limit: u64, window: Span) -> NginxParams {
        let window_us = u128::from(window.micros().max(1));
        let per_sec_scaled = u128::from(limit) * u128::from(MICROS_PER_SEC);
        let cap = u128::from(MAX_COUNT);
        let rate = if per_sec_scaled % window_us == 0 && per_sec_scaled / window_us >= 1 {
            NginxRate::PerSecond((per_sec_scaled / window_us).min(cap) as u64)
        } else {
            let per_min = (per_sec_scaled * 60 + window_us / 2) / window_us;
            NginxRate::PerMinute(per_min.clamp(1, cap) as u64)
        };
        NginxParams {
            burst: limit.saturating_sub(1).min(MAX_COUNT),
            ..NginxParams::new(rate)
        }
    }

    /// The directives' arguments as they would be written, e.g. `rate=1r/s burst=5 nodelay`.
    pub fn directive(&self) -> String {
        let mut s = format!("rate={}", self.rate);
        if self.burst > 0 {
            s.push_str(&format!(" burst={}", self.burst));
        }
        match self.delay {
            NginxDelay::NoDelay => s.push_str(" nodelay"),
            NginxDelay::Delay(0) => {}
            NginxDelay::Delay(n) => s.push_str(&format!(" delay={n}")),
        }
        s
    }
}

/// The module's per-key node: excess in thousandths of a request, `last` in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Node {
    excess: i128,
    last_ms: u64,
}

/// What the module did with one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Passed,
    Delayed(u64),
    Rejected,
}

struct Assessment {
    decision: Decision,
    outcome: Outcome,
    /// The excess the module computed (and would log), thousandths of a request.
    excess: i128,
    node: Option<Node>,
}

/// One key of one `limit_req` zone.
#[derive(Clone, Debug)]
pub struct NginxLimitReq {
    params: NginxParams,
    rate: i128,
    burst: i128,
    /// The delay threshold in thousandths; `None` for `nodelay`.
    delay: Option<i128>,
    node: Option<Node>,
    latest: Time,
}

impl NginxLimitReq {
    pub fn new(params: NginxParams) -> Result<NginxLimitReq, ConfigError> {
        let n = params.rate.count();
        if n == 0 {
            return Err(ConfigError::ZeroRate);
        }
        if n > MAX_COUNT {
            return Err(ConfigError::TooLarge("rate"));
        }
        if params.burst > MAX_COUNT {
            return Err(ConfigError::TooLarge("burst"));
        }
        let delay = match params.delay {
            NginxDelay::NoDelay => None,
            NginxDelay::Delay(d) if d > MAX_COUNT => return Err(ConfigError::TooLarge("delay")),
            NginxDelay::Delay(d) => Some(i128::from(d) * ONE),
        };
        if !(400..=599).contains(&params.status) {
            return Err(ConfigError::Unsupported(
                "nginx's limit_req_status must be a code from 400 to 599",
            ));
        }
        Ok(NginxLimitReq {
            params,
            rate: i128::from(params.rate.milli_per_sec()),
            burst: i128::from(params.burst) * ONE,
            delay,
            node: None,
            latest: Time::ZERO,
        })
    }

    pub fn params(&self) -> NginxParams {
        self.params
    }

    /// Thousandths of a request leaked in `ms` milliseconds, as the module divides it.
    fn leaked(&self, ms: u64) -> i128 {
        self.rate * i128::from(ms) / 1000
    }

    /// The module's lookup for one request at `now_ms` against `node`: the excess it computes.
    fn step(&self, node: Option<Node>, now_ms: u64) -> i128 {
        match node {
            None => 0,
            Some(n) => (n.excess - self.leaked(now_ms.saturating_sub(n.last_ms)) + ONE).max(0),
        }
    }

    /// Whole milliseconds from `node.last` until `need` thousandths have leaked.
    fn ms_to_leak(&self, need: i128) -> u64 {
        if need <= 0 {
            return 0;
        }
        // rate × ms / 1000 >= need  ⟺  ms >= ceil(need × 1000 / rate).
        u64::try_from((need * 1000 + self.rate - 1) / self.rate).unwrap_or(u64::MAX)
    }

    /// The span from `now` to the start of millisecond `at_ms`, or zero when that has passed.
    fn until_ms(now: Time, at_ms: u64) -> Span {
        Span(
            at_ms
                .saturating_mul(MICROS_PER_MILLI)
                .saturating_sub(now.micros()),
        )
    }

    // Inline in `decide` and `decide_with_reply`: see `decision::peek_on_a_copy`.
    #[inline(always)]
    fn assess(&self, now: Time, cost: u64) -> Assessment {
        let now = now.max(self.latest);
        let now_ms = now.micros() / MICROS_PER_MILLI;
        let extra = i128::from(cost.saturating_sub(1)) * ONE;
        let (outcome, excess, node) = if cost == 0 {
            let level = match self.node {
                None => 0,
                Some(n) => (n.excess - self.leaked(now_ms.saturating_sub(n.last_ms))).max(0),
            };
            (Outcome::Passed, level, self.node)
        } else {
            let excess = self.step(self.node, now_ms) + extra;
            if excess > self.burst {
                (Outcome::Rejected, excess, self.node)
            } else {
                let last_ms = match self.node {
                    Some(n) if n.last_ms == now_ms => n.last_ms,
                    _ => now_ms,
                };
                let delay_ms = match self.delay {
                    Some(d) if excess > d => {
                        u64::try_from((excess - d) * 1000 / self.rate).unwrap_or(u64::MAX)
                    }
                    _ => 0,
                };
                let outcome = if delay_ms == 0 {
                    Outcome::Passed
                } else {
                    Outcome::Delayed(delay_ms)
                };
                (outcome, excess, Some(Node { excess, last_ms }))
            }
        };

        let next = self.step(node, now_ms);
        let remaining = if next > self.burst {
            0
        } else {
            (self.burst - next) / ONE + 1
        };
        let reset_after = match node {
            Some(n) => Self::until_ms(now, n.last_ms.saturating_add(self.ms_to_leak(n.excess))),
            None => Span::ZERO,
        };
        let retry_after = match (outcome, self.node) {
            (Outcome::Rejected, Some(n)) if cost <= self.params.burst.saturating_add(1) => {
                // Accepted once excess - leaked + cost × 1000 <= burst.
                let need = n.excess + i128::from(cost) * ONE - self.burst;
                Some(Self::until_ms(
                    now,
                    n.last_ms.saturating_add(self.ms_to_leak(need)),
                ))
            }
            _ => None,
        };
        let decision = Decision {
            verdict: match outcome {
                Outcome::Passed => Verdict::Allowed,
                Outcome::Delayed(ms) => Verdict::Delayed {
                    by: Span::from_millis(ms),
                },
                Outcome::Rejected => Verdict::Rejected,
            },
            limit: self.params.burst.saturating_add(1),
            remaining: u64::try_from(remaining).unwrap_or(u64::MAX),
            reset_after,
            retry_after,
        };
        Assessment {
            decision,
            outcome,
            excess,
            node,
        }
    }

    fn reply(&self, a: &Assessment) -> ProductReply {
        let (status, word) = match a.outcome {
            Outcome::Passed => ("200".to_string(), "PASSED"),
            Outcome::Delayed(_) => ("200".to_string(), "DELAYED"),
            Outcome::Rejected => (self.params.status.to_string(), "REJECTED"),
        };
        let mut fields = vec![
            ("status", status),
            ("limit_req_status", word.to_string()),
            ("excess", excess_text(a.excess)),
        ];
        if let Outcome::Delayed(ms) = a.outcome {
            fields.push(("delay_ms", ms.to_string()));
        }
        ProductReply { fields }
    }

    /// Requests ahead of the rate at `now` (before any new request), for display.
    pub fn excess(&self, now: Time) -> f64 {
        let now_ms = now.max(self.latest).micros() / MICROS_PER_MILLI;
        match self.node {
            None => 0.0,
            Some(n) => {
                (n.excess - self.leaked(now_ms.saturating_sub(n.last_ms))).max(0) as f64
                    / ONE as f64
            }
        }
    }
}

/// The excess as nginx's log writes it: whole requests, a dot, three digits ("1.500").
pub fn excess_text(thousandths: i128) -> String {
    let t = thousandths.max(0);
    format!("{}.{:03}", t / ONE, t % ONE)
}

impl Limiter for NginxLimitReq {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        // The reply's text is built only when asked for (the inspector), never per decision.
        let a = self.assess(now, cost);
        self.node = a.node;
        self.latest = now.max(self.latest);
        a.decision
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    fn gauge(&self, now: Time) -> Gauge {
        Gauge {
            level: self.excess(now),
            max: self.params.burst as f64,
            unit: "requests of excess",
        }
    }

    fn is_at_rest(&self, now: Time) -> bool {
        let now_ms = now.max(self.latest).micros() / MICROS_PER_MILLI;
        // At rest once a new request would compute an excess of 0, as for a key never seen.
        match self.node {
            None => true,
            Some(n) => self.leaked(now_ms.saturating_sub(n.last_ms)) >= n.excess + ONE,
        }
    }
}

impl Product for NginxLimitReq {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let a = self.assess(now, cost);
        let reply = self.reply(&a);
        self.node = a.node;
        self.latest = now.max(self.latest);
        (a.decision, reply)
    }
}

/// The nginx `limit_req` row (`core::limiter::rows`).
pub const ROW: ProductRow<NginxLimitReq> = ProductRow {
    slug: "nginx",
    label: "nginx limit_req",
    family: Family {
        prefix: "nginx-",
        name: "nginx limit_req",
        fields: fields::FIELDS,
    },
    build: |s| NginxLimitReq::new(s.products.nginx.params(s.limit, s.window)),
    response: |_, decision, reply| super::response::nginx(decision, reply),
    hint: Hint::Header,
    tells: "nothing: nginx's refusal carries no wait",
    explain: |s| {
        let n = s.products.nginx.params(s.limit, s.window);
        explanation(
            format!("nginx's limit_req with {}: the excess is kept in thousandths of a request and time in whole milliseconds, as the module does; a rejection is answered {}.", n.directive(), n.status),
            "The excess and the time of the last request, in the shared zone: about 16 bytes per key plus the zone's node.",
            "A reverse proxy in front of your service; remember r/m rates are stored truncated to thousandths per second.",
        )
    },
    snippet: SnippetOf::Written {
        file_name: "nginx.conf",
        write: snippet::write,
    },
    terms: |s| Some(s.products.nginx.params(s.limit, s.window).directive()),
    config: config::CONFIG,
    copies: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(rate: NginxRate, burst: u64, delay: NginxDelay) -> NginxLimitReq {
        NginxLimitReq::new(NginxParams {
            rate,
            burst,
            delay,
            status: 503,
        })
        .unwrap()
    }

    #[test]
    fn rates_are_read_in_nginx_spelling_and_written_back() {
        assert_eq!(parse_rate("10r/s"), Ok(NginxRate::PerSecond(10)));
        assert_eq!(parse_rate(" 30r/m "), Ok(NginxRate::PerMinute(30)));
        assert_eq!(parse_rate("30r/m").unwrap().to_string(), "30r/m");
        assert_eq!(NginxRate::PerSecond(7).to_string(), "7r/s");
        for bad in [
            "10", "10 r/s", "r/s", "-1r/s", "1.5r/s", "10r/h", "10R/S", "",
        ] {
            let err = parse_rate(bad).unwrap_err();
            assert!(
                matches!(err, ConfigError::Unsupported(_)),
                "{bad:?} gave {err:?}"
            );
            assert!(
                err.to_string().contains("10r/s"),
                "the message shows the spelling"
            );
        }
        assert_eq!(parse_rate("0r/s"), Err(ConfigError::ZeroRate));
        assert_eq!(
            parse_rate("99999999999999999999999r/s"),
            Err(ConfigError::TooLarge("rate"))
        );
        assert_eq!(
            parse_rate("1000000001r/s"),
            Err(ConfigError::TooLarge("rate"))
        );
    }

    #[test]
    fn the_stored_rate_truncates_per_minute_rates_like_the_module() {
        assert_eq!(NginxRate::PerSecond(1).milli_per_sec(), 1000);
        assert_eq!(NginxRate::PerMinute(1).milli_per_sec(), 16);
        assert_eq!(NginxRate::PerMinute(30).milli_per_sec(), 500);
        assert_eq!(NginxRate::PerMinute(100).milli_per_sec(), 1666);
    }

    #[test]
    fn excess_is_written_like_the_error_log() {
        assert_eq!(excess_text(0), "0.000");
        assert_eq!(excess_text(500), "0.500");
        assert_eq!(excess_text(6000), "6.000");
        assert_eq!(excess_text(40), "0.040");
    }

    #[test]
    fn a_rejection_changes_nothing_and_a_peek_counts_nothing() {
        let mut l = limiter(NginxRate::PerSecond(1), 0, NginxDelay::default());
        assert!(l.decide(Time::ZERO, 1).allowed());
        let before = l.node;
        for _ in 0..5 {
            assert_eq!(
                l.decide(Time::from_millis(500), 1).verdict,
                Verdict::Rejected
            );
        }
        assert_eq!(l.node, before);
        assert_eq!(l.peek(Time::from_millis(1000), 1).verdict, Verdict::Allowed);
        assert_eq!(l.node, before);
        assert!(l.decide(Time::from_millis(1000), 1).allowed());
    }

    #[test]
    fn cost_zero_looks_without_counting() {
        let mut l = limiter(NginxRate::PerSecond(1), 2, NginxDelay::NoDelay);
        l.decide(Time::ZERO, 1);
        let (d, reply) = l.decide_with_reply(Time::ZERO, 0);
        assert_eq!(d.verdict, Verdict::Allowed);
        assert_eq!(reply.get("excess"), Some("0.000"));
        assert_eq!(
            d.remaining, 2,
            "the first request was free; burst=2 leaves room for 2 more"
        );
    }

    #[test]
    fn a_cost_counts_as_that_many_requests_in_the_same_millisecond_all_or_nothing() {
        let mut l = limiter(NginxRate::PerSecond(1), 3, NginxDelay::NoDelay);
        let (d, reply) = l.decide_with_reply(Time::ZERO, 3);
        assert_eq!(d.verdict, Verdict::Allowed);
        assert_eq!(reply.get("excess"), Some("2.000"));
        let (d, reply) = l.decide_with_reply(Time::ZERO, 3);
        assert_eq!(
            (d.verdict, reply.get("excess")),
            (Verdict::Rejected, Some("5.000"))
        );
        assert_eq!(
            d.retry_after,
            Some(Span::from_secs(2)),
            "2 requests must leak for 3 more to fit"
        );
        assert_eq!(
            l.decide(Time::ZERO, 5).retry_after,
            None,
            "more than burst + 1 can never pass"
        );
    }

    #[test]
    fn a_delay_above_the_burst_acts_as_nodelay_as_nginx_accepts_it() {
        let mut l = limiter(NginxRate::PerSecond(1), 2, NginxDelay::Delay(5));
        let v: Vec<Verdict> = (0..4).map(|_| l.decide(Time::ZERO, 1).verdict).collect();
        assert_eq!(
            v,
            [
                Verdict::Allowed,
                Verdict::Allowed,
                Verdict::Allowed,
                Verdict::Rejected
            ]
        );
    }

    #[test]
    fn a_status_outside_400_to_599_is_refused_as_nginx_refuses_it() {
        let p = NginxParams {
            status: 200,
            ..NginxParams::new(NginxRate::PerSecond(1))
        };
        let err = NginxLimitReq::new(p).unwrap_err();
        assert!(err.to_string().contains("400 to 599"));
        assert!(NginxLimitReq::new(NginxParams { status: 429, ..p }).is_ok());
    }

    #[test]
    fn reset_and_remaining_follow_the_stored_excess() {
        let mut l = limiter(NginxRate::PerSecond(2), 4, NginxDelay::NoDelay);
        for _ in 0..3 {
            l.decide(Time::ZERO, 1);
        }
        let d = l.decide(Time::ZERO, 1);
        // Excess 3.000 at 2 r/s leaks away in 1.5 s; one more request fits in burst=4.
        assert_eq!((d.remaining, d.reset_after), (1, Span::from_millis(1500)));
        assert!(!l.is_at_rest(Time::from_millis(1500)), "the excess has leaked to 0, but a new request would still count 1.000, unlike a new key");
        assert!(l.is_at_rest(Time::from_millis(2000)));
    }
}
