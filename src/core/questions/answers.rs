//! The answers of the questions about the rows: each reads its view's run (the rows' figures,
//! their replies made again on demand) and the settings that produced it, and says what they
//! show in two to four sentences. A row the view no longer has is left out of the answer; with
//! none of its rows left, the answer says so. What each product does and answers comes from its
//! profile (`core::profiles`), whose headers name the sources.

use super::say::{count, num, owned, row, txt, Answer, Arg};
use crate::core::algorithms::fixed_window::Alignment;
use crate::core::decision::Verdict;
use crate::core::lab::LabRun;
use crate::core::lab_state::LabState;
use crate::core::limiter::{Algorithm, Complete, LeakDelay, Settings};
use crate::core::run::{decision_and_cause_at, product_reply, AlgorithmRun};
use crate::core::second_limit::{RefusedBy, SecondKey, Spend};
use crate::core::time::{format_millis, format_seconds, Span, Time};

/// The window as the page writes it: "10".
fn window_text(run: &LabRun) -> String {
    format_seconds(run.settings.window.micros())
}

/// Says that none of `rows` is in the view any more.
fn rows_missing(answer: &mut Answer, rows: &[Algorithm]) {
    let names: Vec<&str> = rows.iter().map(|a| a.label()).collect();
    answer.say(
        "This view no longer shows the rows this question is about ({}): open the question again from the list to see them answer it.",
        &[owned(names.join(", "))],
    );
}

/// "a", "a and b", "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Says `template` with `{list}` replaced by "a {}, b {} and c {}" for `items` (a name, then its
/// figure), their figures between the `before` and the `after` arguments.
fn say_with_list<'a>(
    answer: &mut Answer,
    template: &str,
    before: Vec<Arg<'a>>,
    items: Vec<(String, Arg<'a>)>,
    after: Vec<Arg<'a>>,
) {
    let (names, figures): (Vec<String>, Vec<Arg<'a>>) = items
        .into_iter()
        .map(|(name, figure)| (format!("{name} {{}}"), figure))
        .unzip();
    let template = template.replace("{list}", &and_list(&names));
    let args: Vec<Arg> = before.into_iter().chain(figures).chain(after).collect();
    answer.say(&template, &args);
}

/// 1. "I set a burst of 15; why did 16 pass?"
pub(super) fn burst_plus_one(_: &LabState, run: &LabRun) -> Answer {
    let mut answer = Answer::default();
    let s = &run.settings;
    let (limit, window) = (s.limit, s.window);
    let total = run.trace.len();
    let cell = run.run(Algorithm::RedisCell);
    let (governor, go) = (run.run(Algorithm::Governor), run.run(Algorithm::XTimeRate));
    if cell.is_none() && governor.is_none() && go.is_none() {
        rows_missing(
            &mut answer,
            &[
                Algorithm::RedisCell,
                Algorithm::Governor,
                Algorithm::XTimeRate,
            ],
        );
        return answer;
    }
    let max_burst = s.products.redis_cell.params(limit, window).max_burst;
    if let Some(r) = cell {
        answer.say(
            "redis-cell was given max_burst {} and let {} of the {} requests through: CL.THROTTLE's limit, the first figure of its reply, is max_burst + 1 = {}, because max_burst counts the requests allowed on top of the first.",
            &[
                num(max_burst),
                row(Algorithm::RedisCell, "allowed", r.passed()),
                num(total as u64),
                num(max_burst.saturating_add(1)),
            ],
        );
    }
    match (governor, go) {
        (Some(g), Some(x)) => answer.say(
            "governor, with a burst of {}, let {} through, and x/time/rate, with a bucket of {}, let {}: for them the burst is the whole bucket.",
            &[
                num(s.products.governor.params(limit, window).burst),
                row(Algorithm::Governor, "allowed", g.passed()),
                num(s.products.x_time_rate.params(limit, window).burst),
                row(Algorithm::XTimeRate, "allowed", x.passed()),
            ],
        ),
        (Some(g), None) => answer.say(
            "governor, with a burst of {}, let {} through: for it the burst is the whole bucket.",
            &[
                num(s.products.governor.params(limit, window).burst),
                row(Algorithm::Governor, "allowed", g.passed()),
            ],
        ),
        (None, Some(x)) => answer.say(
            "x/time/rate, with a bucket of {}, let {} through: for it the burst is the whole bucket.",
            &[
                num(s.products.x_time_rate.params(limit, window).burst),
                row(Algorithm::XTimeRate, "allowed", x.passed()),
            ],
        ),
        (None, None) => {}
    }
    if cell.is_some() {
        answer.say(
            "To let {} through at once with redis-cell, give it max_burst {}.",
            &[num(max_burst), num(max_burst.saturating_sub(1))],
        );
    }
    answer
}

/// 2. "Why does nginx refuse my page's burst at 6000r/m?"
pub(super) fn nginx_page_burst(_: &LabState, run: &LabRun) -> Answer {
    let mut answer = Answer::default();
    let s = &run.settings;
    let nginx = run.run(Algorithm::Nginx);
    let leaky = run.run(Algorithm::LeakyBucket);
    if nginx.is_none() && leaky.is_none() {
        rows_missing(&mut answer, &[Algorithm::Nginx, Algorithm::LeakyBucket]);
        return answer;
    }
    let total = run.trace.len() as u64;
    let span = match run.trace.requests() {
        [first, .., last] => last.at.since(first.at),
        _ => Span::ZERO,
    };
    if let Some(r) = nginx {
        let params = s.products.nginx.params(s.limit, s.window);
        let milli = params.rate.milli_per_sec().max(1);
        let interval = Span(1_000_000_000 / milli);
        answer.say(
            "At {} nginx lets one request through every {} ms and checks to the millisecond: with burst={}, a request that comes sooner after the last one it let through is refused.",
            &[
                owned(params.rate.to_string()),
                owned(format_millis(interval.micros())),
                num(params.burst),
            ],
        );
        answer.say(
            "So of the page's {} requests, sent within {} ms, it let {} through and refused {} with {}.",
            &[
                num(total),
                owned(format_millis(span.micros())),
                row(Algorithm::Nginx, "allowed", r.passed()),
                row(Algorithm::Nginx, "rejected", r.rejected),
                num(u64::from(params.status)),
            ],
        );
    }
    if let Some(r) = leaky {
        let burst = s.leak_burst();
        let longest = r
            .verdicts
            .iter()
            .filter_map(|v| match v {
                Verdict::Delayed { by } => Some(by),
                _ => None,
            })
            .max()
            .unwrap_or(Span::ZERO);
        let served_at_once = r.passed().saturating_sub(r.delayed);
        let how = match s.leak_delay {
            LeakDelay::NoDelay => "nodelay sends everything accepted at once".to_string(),
            LeakDelay::After(0) => {
                "without delay= or nodelay, everything past the first is spread out at the rate"
                    .to_string()
            }
            LeakDelay::After(n) => format!("delay={n} lets up to {n} ahead of the rate go at once"),
        };
        answer.say(
            "With burst={} (the leaky bucket row, nginx's own algorithm), {} were accepted and {} refused; {}: {} went at once and {} were held back to the rate, the last by {} ms.",
            &[
                num(burst),
                row(Algorithm::LeakyBucket, "allowed", r.passed()),
                row(Algorithm::LeakyBucket, "rejected", r.rejected),
                txt(&how),
                num(served_at_once),
                row(Algorithm::LeakyBucket, "delayed", r.delayed),
                owned(format_millis(longest.micros())),
            ],
        );
    }
    answer
}

/// 3. "My limit doubled when I added a second server"
pub(super) fn second_server(_: &LabState, run: &LabRun) -> Answer {
    let mut answer = Answer::default();
    let s = &run.settings;
    let d = s.deployment;
    let w = window_text(run);
    let rows: Vec<&AlgorithmRun> = run.runs.iter().collect();
    if rows.is_empty() {
        rows_missing(&mut answer, &[Algorithm::SlidingLog]);
        return answer;
    }
    if d.is_single() {
        answer.say(
            "Every row runs as one copy here, as one server would run it: a limiter kept in memory sees every request.",
            &[],
        );
    } else {
        answer.say(
            "Every row runs as {} copies here, as a limiter kept in memory runs once per server, process or location; requests reach them {}, and each copy counts only what reaches it.",
            &[num(u64::from(d.instances)), txt(d.spread.phrase())],
        );
    }
    let items: Vec<(String, Arg)> = rows
        .iter()
        .map(|r| {
            (
                r.algorithm.label().to_string(),
                row(r.algorithm, "max-in-window", r.max_in_window),
            )
        })
        .collect();
    say_with_list(
        &mut answer,
        "So one key's busiest {} s window let through: {list}, against the limit of {} that each copy keeps.",
        vec![txt(&w)],
        items,
        vec![num(s.limit)],
    );
    answer.say(
        "express-rate-limit's memory store and Envoy's local rate limit keep their count per process, Cloudflare's binding per location: only a count kept in one place (a shared store, one Durable Object per key) holds a key to {} per {} s.",
        &[num(s.limit), txt(&w)],
    );
    answer
}

/// Of a row's retries told to wait, the most that came back at one instant, and when.
fn most_at_once(r: &AlgorithmRun) -> Option<(usize, Time)> {
    let clients = r.clients.as_ref()?;
    let mut most: Option<(usize, Time)> = None;
    let mut run_at: Option<(usize, Time)> = None;
    for retry in clients.retries.iter().filter(|r| r.as_told) {
        run_at = match run_at {
            Some((n, at)) if at == retry.at => Some((n + 1, at)),
            _ => Some((1, retry.at)),
        };
        if run_at.map(|(n, _)| n) > most.map(|(n, _)| n) {
            most = run_at;
        }
    }
    most
}

/// 4. "My client waited Retry-After and still got 429"
pub(super) fn retry_after_429(_: &LabState, run: &LabRun) -> Answer {
    let mut answer = Answer::default();
    let s = &run.settings;
    let obeying: Vec<&AlgorithmRun> = run.runs.iter().filter(|r| r.clients.is_some()).collect();
    if obeying.is_empty() {
        answer.say(
            "The clients here do not retry (clients=ignore): set clients=obey, or open the question again, to see each refused client wait what it was told and try again.",
            &[],
        );
        return answer;
    }
    let mut words = Vec::new();
    let mut args = Vec::new();
    for r in &obeying {
        let Some(clients) = &r.clients else { continue };
        words.push(format!("{} {{}} of {{}}", r.algorithm.label()));
        args.push(row(r.algorithm, "wasted", clients.wasted));
        args.push(row(r.algorithm, "retries", clients.retries.len() as u64));
    }
    answer.say(
        &format!(
            "Each client waited as told before every retry, and still some retries were refused: {} retries.",
            and_list(&words)
        ),
        &args,
    );
    // The most retries that came back at one instant, on any row.
    let together = obeying
        .iter()
        .filter(|r| r.algorithm != Algorithm::UpstashFixed)
        .filter_map(|r| most_at_once(r))
        .max_by_key(|(n, _)| *n)
        .filter(|(n, _)| *n > 1);
    if let Some((n, at)) = together {
        answer.say(
            "Clients told the same time come back together: {} retries arrived at the same instant ({} s), into a window that lets {} through, so the rest were refused again; add a random delay to each retry.",
            &[num(n as u64), owned(format_seconds(at.micros())), num(s.limit)],
        );
    }
    if let Some(clients) = run
        .run(Algorithm::UpstashFixed)
        .and_then(|r| r.clients.as_ref())
    {
        if clients.wasted > 0 {
            answer.say(
                "Upstash's clients wait until the reply's reset, and the library's own cache still blocks the key at that very millisecond: they come back a millisecond too early, again and again, until {} of them give up; wait a little past the reset.",
                &[row(Algorithm::UpstashFixed, "gave-up", clients.gave_up)],
            );
        }
    }
    answer
}

/// 5. "Do refused requests count?"
pub(super) fn refused_count(_: &LabState, run: &LabRun) -> Answer {
    let mut answer = Answer::default();
    let s = &run.settings;
    let total = run.trace.len();
    let w = window_text(run);
    let log = run.run(Algorithm::SlidingLog);
    let express = run.run(Algorithm::ExpressRateLimit);
    let nginx = run.run(Algorithm::Nginx);
    if log.is_none() && express.is_none() && nginx.is_none() {
        rows_missing(
            &mut answer,
            &[
                Algorithm::SlidingLog,
                Algorithm::ExpressRateLimit,
                Algorithm::Nginx,
            ],
        );
        return answer;
    }
    if let Some(r) = log {
        if s.count_refused {
            answer.say(
                "The sliding log here counts refused requests too (count-refused=1): each of its {} refusals stayed in its log like a request let through, so a client that never stops got {} of its {} requests through.",
                &[
                    row(Algorithm::SlidingLog, "rejected", r.rejected),
                    row(Algorithm::SlidingLog, "allowed", r.passed()),
                    num(total as u64),
                ],
            );
        } else {
            answer.say(
                "The sliding log here counts only what it lets through (count-refused=0): a client that keeps knocking got {} of its {} requests through, {} in any {} s.",
                &[
                    row(Algorithm::SlidingLog, "allowed", r.passed()),
                    num(total as u64),
                    row(Algorithm::SlidingLog, "max-in-window", r.max_in_window),
                    txt(&w),
                ],
            );
        }
    }
    if let Some(r) = express {
        let window_ms = s
            .products
            .express_rate_limit
            .params(s.limit, s.window)
            .window_ms;
        answer.say(
            "express-rate-limit counts every hit, refused ones too, yet its window ends {} s after a key's first hit whatever the count, so it let {} through and refused {}.",
            &[
                owned(format_seconds(window_ms.saturating_mul(1_000))),
                row(Algorithm::ExpressRateLimit, "allowed", r.passed()),
                row(Algorithm::ExpressRateLimit, "rejected", r.rejected),
            ],
        );
    }
    if let Some(r) = nginx {
        answer.say(
            "nginx counts only what it lets through: a refused request adds nothing to its excess, so it let {} through ({} of them delayed to its rate) and refused {}.",
            &[
                row(Algorithm::Nginx, "allowed", r.passed()),
                row(Algorithm::Nginx, "delayed", r.delayed),
                row(Algorithm::Nginx, "rejected", r.rejected),
            ],
        );
    }
    answer
}

/// 6. "Why were 10 let through in one 10-second window with a limit of 5?"
pub(super) fn window_edge(_: &LabState, run: &LabRun) -> Answer {
    let mut answer = Answer::default();
    let s = &run.settings;
    let (limit, window) = (s.limit, s.window);
    let w = window_text(run);
    let Some(fixed) = run.run(Algorithm::FixedWindow) else {
        rows_missing(&mut answer, &[Algorithm::FixedWindow]);
        return answer;
    };
    let most = fixed.max_in_window;
    let end = fixed.max_window_end;
    if s.fixed_align == Alignment::FirstRequest {
        answer.say(
            "The fixed window here starts at a key's first request (fixed-align=first), not on the clock: its busiest {} s window let {} through, against a limit of {}.",
            &[
                txt(&w),
                row(Algorithm::FixedWindow, "max-in-window", most),
                num(limit),
            ],
        );
    } else if most > limit {
        // The slice boundary inside the busiest window, and what passed on either side of it.
        let boundary = Time(end.micros() / window.micros().max(1) * window.micros());
        let served = fixed.served.of(fixed.max_window_key);
        let from = end.micros().saturating_sub(window.micros());
        let before = served
            .iter()
            .filter(|t| t.micros() > from && **t < boundary)
            .count();
        let after = served
            .iter()
            .filter(|t| **t >= boundary && **t <= end)
            .count();
        answer.say(
            "The fixed window counts in slices that start on the clock, every {} s: {} requests passed at the end of the slice before {} s and {} at the start of the next, each slice within its {}, so the {} s window ending at {} s let {} through.",
            &[
                txt(&w),
                num(before as u64),
                owned(format_seconds(boundary.micros())),
                num(after as u64),
                num(limit),
                txt(&w),
                owned(format_seconds(end.micros())),
                row(Algorithm::FixedWindow, "max-in-window", most),
            ],
        );
    } else {
        answer.say(
            "Here the fixed window never let more than {} through in one {} s window: {} at most; the traffic does not gather on both sides of a slice's edge.",
            &[
                num(limit),
                txt(&w),
                row(Algorithm::FixedWindow, "max-in-window", most),
            ],
        );
    }
    // The other rows, each with what decides where its windows lie.
    let others: Vec<(String, Arg)> = run
        .runs
        .iter()
        .filter(|r| r.algorithm != Algorithm::FixedWindow)
        .map(|r| {
            let why = WHERE_WINDOWS_LIE
                .iter()
                .find(|(a, _)| *a == r.algorithm)
                .map_or("", |(_, why)| why);
            let name = match why {
                "" => format!("{} {{}}", r.algorithm.label()),
                why => format!("{} {{}} ({why})", r.algorithm.label()),
            };
            (name, row(r.algorithm, "max-in-window", r.max_in_window))
        })
        .collect();
    if !others.is_empty() {
        let words: Vec<String> = others.iter().map(|(w, _)| w.clone()).collect();
        let args: Vec<Arg> = others.into_iter().map(|(_, a)| a).collect();
        answer.say(
            &format!(
                "The busiest {w} s window of the other rows: {}.",
                and_list(&words)
            ),
            &args,
        );
    }
    answer
}

/// The rows whose windows this question names, with what decides where they lie; the other
/// rows are named without a reason.
const WHERE_WINDOWS_LIE: [(Algorithm, &str); 6] = [
    (
        Algorithm::UpstashFixed,
        "its windows start on the clock too",
    ),
    (Algorithm::DotnetFixed, "its windows start on the clock too"),
    (
        Algorithm::ExpressRateLimit,
        "a key's window starts at its first request",
    ),
    (
        Algorithm::LimitsFixed,
        "a key's window starts at its first request",
    ),
    (
        Algorithm::SlidingLog,
        "it looks back one window at every request",
    ),
    (
        Algorithm::LimitsMoving,
        "it looks back one window at every request",
    ),
];

/// A row whose bucket a request costing more than it holds never passes: the row, what its size
/// is called, and the size under the lab's settings.
type Bucket = (Algorithm, &'static str, fn(&Settings) -> u64);

/// The rows question 7 compares, in the order it names them.
const BUCKETS: [Bucket; 4] = [
    (Algorithm::TokenBucket, "the token bucket's capacity", |s| {
        s.bucket_capacity()
    }),
    (Algorithm::Governor, "governor's burst", |s| {
        s.products.governor.params(s.limit, s.window).burst
    }),
    (Algorithm::RedisCell, "redis-cell's max_burst + 1", |s| {
        s.products
            .redis_cell
            .params(s.limit, s.window)
            .max_burst
            .saturating_add(1)
    }),
    (Algorithm::XTimeRate, "x/time/rate's burst", |s| {
        s.products.x_time_rate.params(s.limit, s.window).burst
    }),
];

/// 7. "A request costing more than the burst never passes"
pub(super) fn cost_over_burst(_: &LabState, run: &LabRun) -> Answer {
    let mut answer = Answer::default();
    const ROWS: [Algorithm; 4] = [BUCKETS[0].0, BUCKETS[1].0, BUCKETS[2].0, BUCKETS[3].0];
    let present: Vec<(&AlgorithmRun, &str, u64)> = BUCKETS
        .iter()
        .filter_map(|(a, what, size)| Some((run.run(*a)?, *what, size(&run.settings))))
        .collect();
    let Some(smallest) = present.iter().map(|(_, _, size)| *size).min() else {
        rows_missing(&mut answer, &ROWS);
        return answer;
    };
    let requests = run.trace.requests();
    let costly: Vec<usize> = (0..requests.len())
        .filter(|&i| u64::from(requests[i].cost) > smallest)
        .collect();
    let sizes: Vec<String> = present
        .iter()
        .map(|(_, what, size)| format!("{what} is {size}"))
        .collect();
    // The costs asked, each once, in the order they come.
    let mut costs: Vec<u32> = Vec::new();
    for &i in &costly {
        if !costs.contains(&requests[i].cost) {
            costs.push(requests[i].cost);
        }
    }
    if costly.is_empty() {
        let largest = requests.iter().map(|r| r.cost).max().unwrap_or(1);
        answer.say(
            "Every request of this view fits in the bucket now: the largest asks for {}, and {}.",
            &[num(u64::from(largest)), owned(and_list(&sizes))],
        );
    } else {
        let costs: Vec<String> = costs.iter().map(u32::to_string).collect();
        answer.say(
            "{} of the {} requests ask for {} each, more than the bucket holds: {}.",
            &[
                num(costly.len() as u64),
                num(requests.len() as u64),
                owned(and_list(&costs)),
                owned(and_list(&sizes)),
            ],
        );
        // The longest rest before one of the first costly requests: no wait lets it through.
        let rest = costly
            .iter()
            .take(50)
            .filter_map(|&i| {
                let key = requests[i].key;
                let earlier = requests[..i].iter().rev().find(|r| r.key == key)?;
                Some(requests[i].at.since(earlier.at))
            })
            .max()
            .unwrap_or(Span::ZERO);
        answer.say(
            "A bucket never holds more than its size, so no wait helps, not even {} s without a request: governor answers InsufficientCapacity, x/time/rate's AllowN is false and its ReserveN not OK, and redis-cell's retry_after is -1.",
            &[owned(format_seconds(rest.micros()))],
        );
    }
    let passed: Vec<(String, Arg)> = present
        .iter()
        .map(|(r, _, _)| {
            (
                r.algorithm.label().to_string(),
                row(r.algorithm, "allowed", r.passed()),
            )
        })
        .collect();
    say_with_list(
        &mut answer,
        "Let through, of the {}: {list}; only the requests that fit.",
        vec![num(requests.len() as u64)],
        passed,
        Vec::new(),
    );
    answer
}

/// 8. "What do remaining and reset mean for GCRA?"
pub(super) fn gcra_remaining_reset(_: &LabState, run: &LabRun) -> Answer {
    let mut answer = Answer::default();
    let s = &run.settings;
    let Some(index) = run.trace.len().checked_sub(1) else {
        answer.say("This view has no requests to answer.", &[]);
        return answer;
    };
    let rows = [Algorithm::Gcra, Algorithm::RedisCell, Algorithm::Governor];
    if rows.iter().all(|a| run.run(*a).is_none()) {
        rows_missing(&mut answer, &rows);
        return answer;
    }
    answer.inspect = Some(index);
    let interval = Span(s.window.micros() / s.limit.max(1));
    answer.say(
        "For a GCRA, remaining is how many more requests would pass right now, and reset is when it would be back to its whole burst: it regains one request every {} s ({} s / {}), not all of them when a window ends.",
        &[
            owned(format_seconds(interval.micros())),
            owned(window_text(run)),
            num(s.limit),
        ],
    );
    let at = run.trace.requests()[index].at;
    let mut replies = Vec::new();
    if run.run(Algorithm::Gcra).is_some() {
        if let Some((d, _, _)) =
            decision_and_cause_at::<Complete>(&run.trace, Algorithm::Gcra, s, index)
        {
            let t = match (d.verdict, d.retry_after) {
                (Verdict::Rejected, Some(wait)) => crate::core::http::retry_after_seconds(wait),
                _ => d.reset_after.ceil_secs(),
            };
            replies.push(format!(
                "it answered remaining {} and reset {t} s (RateLimit r={};t={t})",
                d.remaining, d.remaining
            ));
        }
    }
    if run.run(Algorithm::RedisCell).is_some() {
        if let Some(reply) = product_reply::<Complete>(&run.trace, Algorithm::RedisCell, s, index) {
            replies.push(format!(
                "redis-cell's CL.THROTTLE replied remaining {} and reset_after {}",
                reply.get("remaining").unwrap_or("?"),
                reply.get("reset_after").unwrap_or("?")
            ));
        }
    }
    if run.run(Algorithm::Governor).is_some() {
        if let Some(reply) = product_reply::<Complete>(&run.trace, Algorithm::Governor, s, index) {
            let said = match (reply.get("remaining_burst_capacity"), reply.get("wait")) {
                (Some(left), _) => format!("governor's remaining_burst_capacity is {left}"),
                (None, Some(wait)) => format!("governor answered NotUntil, {wait} to wait"),
                _ => format!(
                    "governor answered {}",
                    reply.get("result").unwrap_or("nothing")
                ),
            };
            replies.push(said);
        }
    }
    match run.run(Algorithm::Gcra) {
        Some(r) => answer.say(
            "The GCRA row let {} of the {} requests through and refused {}; at request {} ({} s), shown in the inspector, {}.",
            &[
                row(Algorithm::Gcra, "allowed", r.passed()),
                num(run.trace.len() as u64),
                row(Algorithm::Gcra, "rejected", r.rejected),
                num(index as u64 + 1),
                owned(format_seconds(at.micros())),
                owned(and_list(&replies)),
            ],
        ),
        None => answer.say(
            "At request {} ({} s), shown in the inspector, {}.",
            &[
                num(index as u64 + 1),
                owned(format_seconds(at.micros())),
                owned(and_list(&replies)),
            ],
        ),
    }
    // The refusal before it, if any: what a client waiting for one request is told.
    let refused_before = run.run(Algorithm::Gcra).and_then(|r| {
        (0..index)
            .rev()
            .find(|&i| r.verdicts.get(i) == Some(Verdict::Rejected))
    });
    if let Some(i) = refused_before {
        if let Some((d, _, _)) =
            decision_and_cause_at::<Complete>(&run.trace, Algorithm::Gcra, s, i)
        {
            if let Some(wait) = d.retry_after {
                answer.say(
                    "A client waiting for the whole burst waits for reset; one that needs a single request waits far less: request {} was refused with Retry-After {}.",
                    &[
                        num(i as u64 + 1),
                        num(crate::core::http::retry_after_seconds(wait)),
                    ],
                );
            }
        }
    }
    answer
}

/// 9. "Per-IP and per-key at once: which one refused me?"
pub(super) fn which_limit(_: &LabState, run: &LabRun) -> Answer {
    let mut answer = Answer::default();
    let s = &run.settings;
    let w = window_text(run);
    let Some(r) = run.runs.first() else {
        rows_missing(&mut answer, &[Algorithm::SlidingLog]);
        return answer;
    };
    let Some(also) = s.also else {
        answer.say(
            "This view sets one limit only, {} per {} s on each key: add a second one (also=COUNT/SECONDS, with also-key=prefix for the address), or open the question again.",
            &[num(s.limit), txt(&w)],
        );
        return answer;
    };
    let on = match also.key {
        SecondKey::Prefix => "the address the keys share (also-key=prefix)",
        SecondKey::Same => "the same key",
    };
    let order = match also.spend {
        Spend::All => "one after the other",
        Spend::Passed => "together, spending only when both let a request through",
    };
    answer.say(
        "Each key may send {} per {} s, and {} {} per {} s, the two checked {}.",
        &[
            num(s.limit),
            txt(&w),
            txt(on),
            num(also.count),
            owned(format_seconds(also.window.micros())),
            txt(order),
        ],
    );
    let a = r.algorithm;
    answer.say(
        "{} refused {} of the {} requests: {} by the second limit and {} by the key's own.",
        &[
            txt(a.label()),
            row(a, "rejected", r.rejected),
            num(run.trace.len() as u64),
            row(a, "refused-by-second", r.refused_by_second),
            row(
                a,
                "refused-by-first",
                r.rejected.saturating_sub(r.refused_by_second),
            ),
        ],
    );
    let requests = run.trace.requests();
    // Each look replays the requests before it: the first few refusals are enough to find it.
    let first_by_second = (0..requests.len())
        .filter(|&i| r.verdicts.get(i) == Some(Verdict::Rejected))
        .take(20)
        .find(|&i| {
            matches!(
                decision_and_cause_at::<Complete>(&run.trace, a, s, i),
                Some((_, _, Some(RefusedBy::Second)))
            )
        });
    if let Some(i) = first_by_second {
        let target = requests[i];
        let from = target.at.micros().saturating_sub(s.window.micros());
        let sent = requests[..i]
            .iter()
            .filter(|q| q.key == target.key && q.at.micros() > from)
            .count();
        answer.inspect = Some(i);
        answer.say(
            "The first of those, {} at {} s, had sent {} in the last {} s, under its own {}: the inspector names the limit that refused it.",
            &[
                txt(run.trace.key_name(target.key)),
                owned(format_seconds(target.at.micros())),
                owned(count(sent as u64, "request", "requests")),
                txt(&w),
                num(s.limit),
            ],
        );
    }
    answer
}

/// 11. "Why does Cloudflare's binding let more through than I set?"
pub(super) fn binding_more(_: &LabState, run: &LabRun) -> Answer {
    let mut answer = Answer::default();
    let s = &run.settings;
    let w = window_text(run);
    let Some(b) = run.run(Algorithm::CfBinding) else {
        rows_missing(&mut answer, &[Algorithm::CfBinding]);
        return answer;
    };
    let params = s.products.cf_binding.params(s.limit, s.window);
    let exact = s.window.micros() == params.period_secs.saturating_mul(1_000_000)
        && params.limit == s.limit;
    if exact {
        answer.say(
            "You set {} per {} s, which the binding takes as it is: limit = {}, period = {}.",
            &[
                num(s.limit),
                txt(&w),
                num(params.limit),
                num(params.period_secs),
            ],
        );
    } else {
        answer.say(
            "You set {} per {} s. The binding counts in periods of 10 or 60 s only, so the nearest setting is limit = {}, period = {}: about the same average rate, but all {} may come in one go.",
            &[
                num(s.limit),
                txt(&w),
                num(params.limit),
                num(params.period_secs),
                num(params.limit),
            ],
        );
    }
    let d = s.deployment;
    if d.is_single() {
        answer.say(
            "It counts per Cloudflare location too; here every request reaches one location, and one key got {} through in one {} s window.",
            &[row(Algorithm::CfBinding, "max-in-window", b.max_in_window), txt(&w)],
        );
    } else {
        answer.say(
            "And it counts per Cloudflare location: here a key's requests reach {} locations (instances={}), each counting alone, so one key got {} through in one {} s window, against the {} you set.",
            &[
                num(u64::from(d.instances)),
                num(u64::from(d.instances)),
                row(Algorithm::CfBinding, "max-in-window", b.max_in_window),
                txt(&w),
                num(s.limit),
            ],
        );
    }
    if let Some(log) = run.run(Algorithm::SlidingLog) {
        answer.say(
            "The sliding log, kept in each location's memory the same way, let {}: only a count kept in one place for the whole world, such as a Durable Object per key, holds a key to {} per {} s.",
            &[
                row(Algorithm::SlidingLog, "max-in-window", log.max_in_window),
                num(s.limit),
                txt(&w),
            ],
        );
    }
    answer
}
