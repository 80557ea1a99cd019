//! Each scenario's lesson in sentences, every figure in them taken from the run shown: its
//! requests, keys, origins and pace from the trace and the emulated object's records, its
//! latencies, queues and counts from the object's report, and its settings from the state. A
//! scenario run over a person's own traffic (`super::Scenario::applied`) says what that traffic
//! did, which may not be what the scenario's own traffic shows: where the outcome can go either
//! way, the sentence says which way it went.

use crate::core::durable::{Outcome, SimReport};
use crate::core::lab::LabRun;
use crate::core::lab_state::LabState;
use crate::core::region::Region;
use crate::core::time::{format_seconds, MICROS_PER_SEC};
use crate::core::traffic::Trace;

use super::Scenario;

/// The lesson of `scenario` for the view `state` and its run, or `None` while the run has no
/// Durable Object report (not computed yet, or refused).
pub fn lesson(scenario: &Scenario, state: &LabState, run: &LabRun) -> Option<String> {
    let report = run.durable.as_ref()?.as_ref().ok()?;
    Some(text(scenario.id, state, &run.trace, report))
}

fn text(id: &str, state: &LabState, trace: &Trace, report: &SimReport) -> String {
    let d = &state.durable;
    let n = report.records.len();
    let degraded = report.count(Outcome::DegradedAllowed);
    let limit = state.settings.limit;
    let window = format_seconds(state.settings.window.micros());
    let most = report.most_in_window;
    let keys = report.keys.len();
    let objects = report.objects.len();
    let home = d.home.map(|r| r.name()).unwrap_or("its region");
    match id {
        "far-object" => {
            let origin = busiest_origin(report).unwrap_or(d.origin());
            let rtt = origin.rtt(d.home.unwrap_or(origin)).ceil_millis();
            let timeout = d.timeout.ceil_millis();
            let against = match rtt > timeout {
                true => "more than",
                false => "within",
            };
            format!(
                "From {} to an object in {home} is {rtt} ms round trip, {against} the {timeout} ms timeout: {degraded} of {n} requests went through unmetered, and {} answers came back after the Worker gave up. Raise the timeout, or place the object near its callers.",
                origin.name(),
                report.late
            )
        }
        "hot-key" => {
            let pace = match pace(trace, state) {
                Some(0) => ", at under a tenth of the allowed rate,".to_string(),
                Some(tenths) => format!(", at {} times the allowed rate,", tenths_text(tenths)),
                None => String::new(),
            };
            let reach = match objects {
                1 => "reach one object that decides one at a time: its queue reached".to_string(),
                k => format!(
                    "reach {k} objects, each deciding one at a time: the longest queue reached"
                ),
            };
            format!(
                "{n} requests for {}{pace} {reach} {} and the p95 latency {} ms, so {degraded} requests timed out and went through unmetered. Shard the key, or answer before the hop.",
                keys_phrase(keys),
                report.longest_queue,
                report.p95.ceil_millis()
            )
        }
        "shard-by-key" => {
            let first = report.objects.first();
            let shards = first.map(|o| o.shards).unwrap_or(1);
            let per = first.map(|o| o.limit).unwrap_or(limit);
            let held = held_to(most, limit);
            match keys {
                1 => format!(
                    "The key is split into {shards} shards of ceil({limit} / {shards}) = {per}, but the seed hashes the key alone, so every request of this one tenant lands on the same shard: it got at most {most} per {window} s window, {held}."
                ),
                k => format!(
                    "Each of the {k} keys is split into shards by the seed's rule for its prefix (the first: {shards} shards of ceil({limit} / {shards}) = {per}), but the seed hashes the key alone, so all of a key's requests land on the same shard: the busiest got at most {most} per {window} s window, {held}."
                ),
            }
        }
        "shard-by-request" => {
            let who = match keys {
                1 => "the tenant".to_string(),
                k => format!("the busiest of the {k} keys"),
            };
            format!(
                "Spreading each request over its key's shards feeds every shard its part: {who} got {most} per {window} s window, against its limit of {limit} ({objects} objects served {}).",
                match keys {
                    1 => "it",
                    _ => "them",
                }
            )
        }
        "eviction" => {
            let evict = format_seconds(d.evict.micros());
            let restarts: u32 = report
                .objects
                .iter()
                .map(|o| o.cold_starts.saturating_sub(1))
                .sum();
            if most > limit {
                format!(
                    "{most} requests passed in one {window} s window that promised {limit}: an object sat idle longer than the {evict} s eviction ({}), lost its in-memory log, and the next request met a fresh allowance. With persist=1 the log is read back and the limit holds.",
                    times(restarts, "restart")
                )
            } else if restarts == 0 {
                format!(
                    "No object sat idle for the {evict} s eviction, so every log stayed in memory: at most {most} requests passed in one {window} s window that promised {limit}."
                )
            } else {
                format!(
                    "Objects sat idle past the {evict} s eviction and lost their logs ({}), yet no fresh allowance let more through: at most {most} requests passed in one {window} s window that promised {limit}.",
                    times(restarts, "restart")
                )
            }
        }
        "alarms" => {
            let cleanup = d
                .sim_config(&state.settings, trace.routes())
                .alarm_cleanup
                .micros();
            let sent = match (n == keys, even_gap(trace)) {
                (true, Some(gap)) => format!(
                    "{keys} keys each sent once, one every {} s",
                    format_seconds(gap)
                ),
                (true, None) => format!("{keys} keys each sent once"),
                (false, _) => format!("{n} requests from {}", keys_phrase(keys)),
            };
            let stored = report.max_stored_keys;
            let bounded = match (stored as usize) < keys {
                true => format!("at most {stored} keys were stored at once, not {keys}"),
                false => format!("at most {stored} keys were stored at once, of {keys}"),
            };
            format!(
                "{sent}. Each allowed decision writes storage, and the alarm deletes a key's storage once its window has passed and {} more: {bounded}.",
                duration_words(cleanup)
            )
        }
        "cache" => format!(
            "Clients in {} send {n} requests for {} whose object{} in {home}: {} of {n} answers came from the Worker's own cache of clients known to be over their limit, without the hop; p50 latency {} ms.",
            busiest_origin(report).unwrap_or(d.origin()).name(),
            keys_phrase(keys),
            match keys {
                1 => " is",
                _ => "s are",
            },
            report.local,
            report.p50.ceil_millis()
        ),
        "binding" => {
            let who = match keys {
                1 => "one key".to_string(),
                k => format!("the busiest of {k} keys"),
            };
            let against = match most > limit {
                true => format!("instead of {limit}"),
                false => format!("within its {limit}"),
            };
            format!(
                "The binding keeps a separate fixed window in each location: with traffic from {} locations, {who} got {most} per {window} s window {against}. It only answers success, so no RateLimit remaining can be sent.",
                origins(report)
            )
        }
        "await-between" => {
            let through = match most > limit {
                true => format!("so {most} requests got through in one {window} s window that promised {limit}"),
                false => format!(
                    "yet here at most {} got through in one {window} s window, within its {limit}",
                    times(most, "request")
                ),
            };
            format!(
                "The object's code awaits another service for {} ms between reading its log and writing it, and an await on anything but storage lets other calls in: calls that arrived meanwhile read the same log, {through}. Decide and write, then call out, or keep the check and the write in one storage transaction (do-code=safe): never more than {limit}.",
                format_seconds(d.await_call.micros() * 1000)
            )
        }
        _ => String::new(),
    }
}

/// "one key", "3 keys".
fn keys_phrase(keys: usize) -> String {
    match keys {
        1 => "one key".into(),
        k => format!("{k} keys"),
    }
}

/// "1 restart", "2 restarts".
fn times(count: impl Into<u64>, what: &str) -> String {
    let count: u64 = count.into();
    match count {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

/// What the busiest window held the traffic to, against the limit.
fn held_to(most: u64, limit: u64) -> String {
    match most.cmp(&limit) {
        std::cmp::Ordering::Less => format!("not {limit}"),
        std::cmp::Ordering::Equal => format!("its whole limit of {limit}"),
        std::cmp::Ordering::Greater => format!("more than its limit of {limit}"),
    }
}

/// How fast the trace's requests came against the limit's rate (`limit` per `window`), in
/// tenths, rounded, from its first request to its last; `None` for fewer than two requests or
/// all at one time.
fn pace(trace: &Trace, state: &LabState) -> Option<u128> {
    let requests = trace.requests();
    let first = requests.iter().map(|r| r.at).min()?;
    let last = requests.iter().map(|r| r.at).max()?;
    let spread = u128::from(last.micros().checked_sub(first.micros())?);
    let per_window = u128::from(state.settings.limit);
    if spread == 0 || per_window == 0 {
        return None;
    }
    let n = requests.len() as u128;
    let window = u128::from(state.settings.window.micros());
    Some((n * window * 10 * 2 + per_window * spread) / (2 * per_window * spread))
}

/// Tenths as a number: 20 is "2", 15 is "1.5".
fn tenths_text(tenths: u128) -> String {
    match tenths % 10 {
        0 => format!("{}", tenths / 10),
        t => format!("{}.{t}", tenths / 10),
    }
}

/// The gap between every two requests in a row, in microseconds, when they are all evenly
/// spaced; `None` otherwise, or for fewer than two requests.
fn even_gap(trace: &Trace) -> Option<u64> {
    let requests = trace.requests();
    let gap = requests
        .get(1)?
        .at
        .micros()
        .checked_sub(requests.first()?.at.micros())?;
    requests
        .windows(2)
        .all(|w| w[1].at.micros().checked_sub(w[0].at.micros()) == Some(gap))
        .then_some(gap)
        .filter(|&g| g > 0)
}

/// How many locations the requests came from.
fn origins(report: &SimReport) -> usize {
    Region::ALL
        .iter()
        .filter(|r| report.records.iter().any(|rec| rec.origin == **r))
        .count()
}

/// The location most requests came from (the first of equals in `Region::ALL`'s order).
fn busiest_origin(report: &SimReport) -> Option<Region> {
    let count = |r: Region| report.records.iter().filter(|rec| rec.origin == r).count();
    let most = Region::ALL.iter().map(|&r| count(r)).max()?;
    Region::ALL
        .into_iter()
        .find(|&r| most > 0 && count(r) == most)
}

/// A span in words: "5 minutes", "1 minute", "90 s".
fn duration_words(micros: u64) -> String {
    let secs = micros / MICROS_PER_SEC;
    match (micros % (60 * MICROS_PER_SEC), secs / 60) {
        (0, 1) => "1 minute".into(),
        (0, m) if m > 1 => format!("{m} minutes"),
        _ => format!("{} s", format_seconds(micros)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::scenarios::{every_scenario, find};
    use crate::core::traffic::Pattern;
    use crate::core::url::parse_query;
    use std::sync::Arc;

    /// The lesson of the scenario `id` over `traffic` (a link's traffic fields), or over its own
    /// traffic when `traffic` is empty.
    fn lesson_of(id: &str, traffic: &str) -> String {
        let sc = find(id).expect("a scenario");
        let now = parse_query(traffic).state;
        let state = sc.applied(&now);
        let run = LabRun::compute(&state);
        lesson(sc, &state, &run).expect("a Durable Object report")
    }

    #[test]
    fn every_scenario_has_a_lesson_over_its_own_traffic() {
        for sc in every_scenario() {
            assert!(!lesson_of(sc.id, "").is_empty(), "{}", sc.id);
        }
    }

    #[test]
    fn the_far_away_objects_figures_are_its_runs() {
        let own = lesson_of("far-object", "");
        assert!(
            own.starts_with("From Frankfurt to an object in Sao Paulo is 195 ms round trip, more than the 120 ms timeout: 60 of 60 requests"),
            "{own}"
        );
        let yours = lesson_of("far-object", "trace=0,1,2,3,4,5,6,7");
        assert!(
            yours.contains(": 8 of 8 requests went through unmetered, and 8 answers"),
            "{yours}"
        );
    }

    #[test]
    fn the_hot_keys_pace_and_keys_come_from_the_trace() {
        let own = lesson_of("hot-key", "");
        assert!(
            own.starts_with(
                "240000 requests for one key, at 2 times the allowed rate, reach one object"
            ),
            "{own}"
        );
        // The object melts: nearly every request waits out the timeout.
        assert!(
            own.contains("so 239769 requests timed out and went through unmetered"),
            "{own}"
        );
        let yours = lesson_of("hot-key", "trace=0@a,0.5@b,1@a,1.5@b");
        assert!(
            yours.starts_with(
                "4 requests for 2 keys, at under a tenth of the allowed rate, reach 2 objects"
            ),
            "{yours}"
        );
    }

    #[test]
    fn the_alarms_lesson_counts_the_keys_and_the_gap_it_was_given() {
        let own = lesson_of("alarms", "");
        assert!(
            own.starts_with("36 keys each sent once, one every 20 s. "),
            "{own}"
        );
        assert!(
            own.contains("its window has passed and 5 minutes more: at most"),
            "{own}"
        );
        assert!(own.ends_with(", not 36."), "{own}");
        let yours = lesson_of("alarms", "trace=0@a,1@a,2@b");
        assert!(yours.starts_with("3 requests from 2 keys. "), "{yours}");
    }

    #[test]
    fn the_eviction_lesson_says_whether_an_eviction_let_more_through() {
        let own = lesson_of("eviction", "");
        assert!(own.starts_with("6 requests passed in one 120 s window that promised 5: an object sat idle longer than the 60 s eviction (1 restart)"), "{own}");
        let yours = lesson_of("eviction", "trace=0,1,2");
        assert!(
            yours.starts_with("No object sat idle for the 60 s eviction"),
            "{yours}"
        );
    }

    #[test]
    fn the_await_lesson_says_the_limit_held_when_it_did() {
        let own = lesson_of("await-between", "");
        assert!(
            own.contains("requests got through in one 1 s window that promised 10"),
            "{own}"
        );
        let yours = lesson_of("await-between", "trace=0,5");
        assert!(
            yours.contains("yet here at most 1 request got through"),
            "{yours}"
        );
    }

    #[test]
    fn pace_is_the_traces_rate_against_the_limits_in_tenths() {
        let state = parse_query("limit=2&window=1").state;
        let trace = |secs: &[u64]| {
            Pattern::Trace(Arc::new(
                secs.iter()
                    .map(|&s| crate::core::time::Time::from_secs(s))
                    .collect(),
            ))
            .generate(2, state.settings.window)
        };
        assert_eq!(pace(&trace(&[0, 1, 2, 3]), &state), Some(7));
        assert_eq!(tenths_text(7), "0.7");
        assert_eq!(tenths_text(20), "2");
        assert_eq!(pace(&trace(&[0]), &state), None);
        assert_eq!(duration_words(300 * MICROS_PER_SEC), "5 minutes");
        assert_eq!(duration_words(60 * MICROS_PER_SEC), "1 minute");
        assert_eq!(duration_words(90 * MICROS_PER_SEC), "90 s");
    }
}
