//! Short explanations beside the rows, with the numbers the page is showing: what each
//! algorithm promises, what it costs in memory per key, and when to use it.

use leptos::prelude::*;

use crate::core::lab::LabRun;
use crate::core::limiter::{Algorithm, LeakDelay};
#[cfg(feature = "products")]
use crate::core::profiles::{guava, x_time_rate};
use crate::core::row_notes::row_notes;
use crate::core::time::format_seconds;

use super::state::Lab;

fn explain(run: &LabRun, algorithm: Algorithm) -> (String, String, String) {
    let s = &run.settings;
    let limit = s.limit;
    let w = format_seconds(s.window.micros());
    let shown = run
        .run(algorithm)
        .map(|r| (r.passed(), r.max_in_window))
        .unwrap_or((0, 0));
    let (passed, most) = shown;
    let outcome = if most > limit {
        format!("Here it let {passed} through, {most} of them inside one {w} s window: more than the {limit} it was set to.")
    } else {
        format!("Here it let {passed} through and never more than {most} inside any {w} s window.")
    };
    let rate = s
        .quota()
        .map(|q| s.refill_rate(q).per_second_text())
        .unwrap_or_default();
    match algorithm {
        Algorithm::FixedWindow => (
            format!("Counts requests in {w} s slices of the clock and starts again at zero on every boundary (the dashed lines). {outcome}"),
            "One counter and the slice it belongs to: about 16 bytes per key.".into(),
            "Cheap and easy to explain; use it where twice the limit across a boundary does no harm.".into(),
        ),
        Algorithm::SlidingLog => (
            format!("Remembers when each allowed request happened and counts those of the last {w} s, counted back from now. {outcome}"),
            format!("One timestamp per allowed request in the window: up to {limit} × 8 = {} bytes per key.", limit * 8),
            "Exact: for logins, payments and small limits where the promise must hold.".into(),
        ),
        Algorithm::SlidingCounter => (
            format!("Estimates the last {w} s from two clock-aligned counts, weighting the previous one by how much of it is still in the window. {outcome}"),
            "Two counts and the current slice: about 24 bytes per key, whatever the limit.".into(),
            format!("Large limits where a few percent of error is fine; in the worst case {} can pass in one window.", 2 * limit - 1),
        ),
        Algorithm::TokenBucket => (
            format!(
                "Holds up to {} tokens, gains {rate} a second, and spends one per request: quiet clients start with a full bucket. {outcome}",
                s.bucket_capacity()
            ),
            "The tokens and the time of the last refill: about 16 bytes per key.".into(),
            "APIs that allow short bursts but hold an average rate.".into(),
        ),
        Algorithm::Gcra => (
            format!(
                "Keeps one time per key, when the next request is due if traffic ran exactly at {rate} a second, and allows a burst of {}. It decides exactly like the token bucket. {outcome}",
                s.gcra_burst()
            ),
            "A single timestamp: 8 bytes per key.".into(),
            "The token bucket's behaviour at the lowest cost; it is what the governor crate and redis-cell use.".into(),
        ),
        Algorithm::LeakyBucket => {
            let delay = match s.leak_delay {
                LeakDelay::NoDelay => "serves everything it accepts at once (nodelay)".to_string(),
                LeakDelay::After(0) => "holds every request beyond the rate back and releases them one by one".to_string(),
                LeakDelay::After(d) => format!("serves the first {d} beyond the rate at once and holds the rest back"),
            };
            (
                format!(
                    "Like nginx's limit_req: lets {rate} a second through, accepts up to {} more ahead of that, and {delay}. Delayed requests are drawn as a hollow dot joined to their release. {outcome}",
                    s.leak_burst()
                ),
                "The excess and the time it was measured: about 16 bytes per key.".into(),
                "Smoothing traffic to a backend that wants an even rate, not bursts.".into(),
            )
        }
        #[cfg(feature = "products")]
        product => product_explain(run, product, &outcome),
        #[cfg(not(feature = "products"))]
        _ => (outcome, String::new(), String::new()),
    }
}

/// The products: what each one decides with the parameters in use, and its own reply.
#[cfg(feature = "products")]
fn product_explain(run: &LabRun, product: Algorithm, outcome: &str) -> (String, String, String) {
    let s = &run.settings;
    let (p, limit, window) = (&s.products, s.limit, s.window);
    let (what, memory, when): (String, &str, &str) = match product {
        Algorithm::Nginx => {
            let n = p.nginx(limit, window);
            (
                format!("nginx's limit_req with {}: the excess is kept in thousandths of a request and time in whole milliseconds, as the module does; a rejection is answered {}.", n.directive(), n.status),
                "The excess and the time of the last request, in the shared zone: about 16 bytes per key plus the zone's node.",
                "A reverse proxy in front of your service; remember r/m rates are stored truncated to thousandths per second.",
            )
        }
        Algorithm::Governor => {
            let g = p.governor(limit, window);
            (
                format!("The governor crate's GCRA, in its own whole nanoseconds: one cell every {} s, a burst of {}. A fresh limiter lets the whole burst through at once.", crate::core::time::format_seconds(g.replenish_1_per_ns / 1000), g.burst),
                "One 64-bit timestamp per key, until a keyed limiter's retain_recent drops it one interval after its arrival time.",
                "Rust services limiting in process; check_n refuses a request larger than the burst for ever (InsufficientCapacity).",
            )
        }
        Algorithm::RedisCell => {
            let c = p.redis_cell(limit, window);
            (
                format!("redis-cell's CL.THROTTLE key {} {} {}: GCRA inside Redis, allowing max_burst + 1 = {} at once, and replying five integers.", c.max_burst, c.count, format_seconds(c.period.micros()), c.max_burst + 1),
                "One Redis key per client, holding the theoretical arrival time.",
                "Several servers sharing one Redis; remember the burst is one more than max_burst.",
            )
        }
        Algorithm::UpstashFixed | Algorithm::UpstashSliding | Algorithm::UpstashToken => (
            format!("Upstash's ratelimit-js, as {}: epoch-aligned windows in Redis, a 5 s timeout that fails open, and an ephemeral cache that refuses a blocked key locally until its reset.", product.label()),
            "One or two Redis keys per client and window; the cache holds a reset time per blocked key.",
            "Serverless functions without a long-lived process; the fixed window counts refused calls too, the sliding one does not.",
        ),
        Algorithm::Envoy => {
            let e = p.envoy(limit, window);
            (
                format!("Envoy's HTTP local rate limit, token_bucket {}: the bucket starts full, and a refusal is a 429 with x-envoy-ratelimited.", e.token_bucket_yaml()),
                "One bucket per filter chain (or per descriptor), not per client.",
                "A sidecar or edge proxy limiting all traffic to a route; it does not tell clients when to retry.",
            )
        }
        Algorithm::XTimeRate => {
            let x = p.x_time_rate(limit, window);
            (
                format!("Go's golang.org/x/time/rate, NewLimiter({}, {}) asked with AllowN: a token bucket in float64 tokens, advanced by the library's own arithmetic; a refused call takes nothing, and ReserveN would have waited instead.", x_time_rate::go_float(x.limit), x.burst),
                "Three words per Limiter (tokens, last, lastEvent) and its mutex, in the Go process.",
                "Go services limiting in process; a call larger than the burst never passes, and WaitN says so at once.",
            )
        }
        Algorithm::LimitsFixed | Algorithm::LimitsMoving | Algorithm::LimitsSliding => {
            let l = p.python_limits(limit, window);
            let how = match product {
                Algorithm::LimitsFixed => "a window per key from its first hit, counting refused hits too",
                Algorithm::LimitsMoving => "a log of the hits of the last window; refused hits are not logged, and the storage's one expiry timer, started by any key's hit, prunes every key's log, so one key's hit can let another's through an instant sooner",
                _ => "two clock-aligned windows, the previous one weighted in doubles by how much of it is still inside the window",
            };
            (
                format!("Python's limits with its memory storage, the item {}: {how}.", l.item_repr()),
                "A counter and its expiry per key (the moving window: a time per hit), in the Python process.",
                "Flask and Django apps limiting in process; pick the strategy by how much error a window edge may have.",
            )
        }
        Algorithm::ExpressRateLimit => {
            let e = p.express(limit, window);
            (
                format!("express-rate-limit with its memory store, {}: a window of {} ms per key from the key's first hit, and every hit counted, refused ones too; a refusal is a {} with Retry-After. Each lab key is taken as keyGenerator's result and named in its own replies (req.rateLimit.key, the draft-8 pk); the default generator's grouping of IPv6 clients by /56 is not applied.", e.options_text(), e.window_ms, e.status_code),
                "A hit count and a reset time per key in the Node process, swept by one timer.",
                "An Express app on one process; with several processes each keeps its own count.",
            )
        }
        Algorithm::DotnetFixed | Algorithm::DotnetSliding | Algorithm::DotnetToken => {
            let class_name = match product {
                Algorithm::DotnetFixed => "FixedWindowRateLimiter",
                Algorithm::DotnetSliding => "SlidingWindowRateLimiter",
                _ => "TokenBucketRateLimiter",
            };
            let (options, queue) = match product {
                Algorithm::DotnetFixed => {
                    let d = p.dotnet_fixed(limit, window);
                    (format!("PermitLimit {}, Window {} s", d.permit_limit, format_seconds(d.window.micros())), d.queue_limit)
                }
                Algorithm::DotnetSliding => {
                    let d = p.dotnet_sliding(limit, window);
                    (format!("PermitLimit {}, Window {} s in {} segments", d.permit_limit, format_seconds(d.window.micros()), d.segments_per_window), d.queue_limit)
                }
                _ => {
                    let d = p.dotnet_token(limit, window);
                    (format!("TokenLimit {}, {} tokens every {} s", d.token_limit, d.tokens_per_period, format_seconds(d.replenishment_period.micros())), d.queue_limit)
                }
            };
            (
                format!("System.Threading.RateLimiting's {}, {options}: permits come back only when its own timer ticks (the first tick one period after the limiter is made), and AcquireAsync queues up to {queue} permits, oldest first; queued requests are drawn as delayed. ASP.NET Core's middleware refuses with 503 and no Retry-After unless told otherwise.", class_name),
                "A count (and a segment per slice, or the tokens) per limiter, plus the queue.",
                "ASP.NET Core services limiting in process; every period starts on the timer, not at a client's first request.",
            )
        }
        Algorithm::Guava => {
            let g = p.guava(limit, window);
            (
                format!("Guava's SmoothBursty RateLimiter at {} permits a second, storing up to {} seconds of them, asked with tryAcquire: a request that passes may take more than is stored, and the next caller pays for it by waiting.", guava::java_double(g.permits_per_second), guava::java_double(g.max_burst_seconds)),
                "Two doubles and a long per limiter, in the Java process.",
                "Java services pacing their own calls; with tryAcquire it refuses, with acquire it waits.",
            )
        }
        _ => {
            let b = p.cf_binding(limit, window);
            (
                format!("Cloudflare's Workers Rate Limiting binding, {{ limit: {}, period: {} }}: a fixed window per key in each Cloudflare location, answering {{ success }} and nothing else.", b.limit, b.period_secs),
                "Kept by Cloudflare, per location: nothing in your Worker.",
                "Abuse protection at the edge where an approximate, per-location count is enough.",
            )
        }
    };
    (
        format!("{what} {outcome}"),
        memory.to_string(),
        when.to_string(),
    )
}

#[component]
pub fn Explanations() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let cards = move || {
        lab.run.with(|run| {
            let mut cards: Vec<AnyView> = run
                .runs
                .iter()
                .map(|r| {
                    let (what, memory, when) = explain(run, r.algorithm);
                    let notes = row_notes(r, &run.settings);
                    let slug = r.algorithm.slug();
                    view! {
                        <article class="explain" data-testid=format!("explain-{slug}")>
                            <h3>{r.algorithm.label()}</h3>
                            <p>{what}</p>
                            {(!notes.is_empty()).then(|| view! {
                                <p class="row-notes" data-testid=format!("notes-{slug}")>{notes.join(" ")}</p>
                            })}
                            <p><strong>"Memory: "</strong>{memory}</p>
                            <p><strong>"Use it for: "</strong>{when}</p>
                            {super::snippets::for_row(run, r.algorithm)}
                        </article>
                    }
                    .into_any()
                })
                .collect();
            if let Some(Ok(report)) = &run.durable {
                let text = format!(
                    "The same requests through an emulated Durable Object: p95 {} ms from the Worker's call to its answer, {} let through unmetered because the object did not answer in time, {} refused for the same reason, {} decided by the object after the Worker had given up.",
                    report.p95.ceil_millis(),
                    report.count(crate::core::durable::Outcome::DegradedAllowed),
                    report.count(crate::core::durable::Outcome::FailedClosed),
                    report.late
                );
                cards.push(
                    view! {
                        <article class="explain" data-testid="explain-do">
                            <h3>"Durable Object"</h3>
                            <p>{text}</p>
                            <p><strong>"Use it for: "</strong>"a single authoritative count across every location, at the price of a hop and of deciding in advance what a timeout means."</p>
                            {super::snippets::for_durable(&lab, run)}
                        </article>
                    }
                    .into_any(),
                );
            }
            cards
        })
    };
    view! {
        <section class="explanations" aria-label="How each algorithm works">
            <h2>"How each one works"</h2>
            <div class="explain-grid">{cards}</div>
        </section>
    }
}
