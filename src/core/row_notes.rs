//! What the lab's mechanisms did to one row, as sentences quoting the view's own figures: copies
//! of the row (`super::deployment`), a fixed window started at a key's first request, refused
//! requests counted, clients that obey (`super::retries`). The page puts them under the row's
//! explanation; nothing here is written by hand but the words, so the sentences stay true when a
//! setting changes. A row's own sentences (where copies are the product's behaviour, what counting
//! its refusals did, its own settings) come from its descriptor (`core::limiter::rows`).

use super::limiter::{Algorithm, Parts, Settings};
use super::retries::ClientsRun;
use super::retry_hint::what_it_tells;
use super::run::AlgorithmRun;
use super::second_limit::{SecondKey, Spend};
use super::time::format_seconds;

/// The sentences for `run` under `settings`, in the order the page shows them (none when every
/// mechanism is at its default).
pub fn row_notes<C: Parts>(run: &AlgorithmRun, settings: &Settings) -> Vec<String> {
    // Every note is about a rule, which a program without the rules does not run (the page's
    // first module hands such a view to the complete one), so it has none to write.
    if !C::RULES {
        return Vec::new();
    }
    let mut notes = Vec::new();
    let (limit, most) = (settings.limit, run.max_in_window);
    let w = format_seconds(settings.window.micros());
    let deployment = settings.deployment;
    if !deployment.is_single() {
        let kept = if most > limit {
            format!("{} more than the limit of {limit}", most - limit)
        } else {
            format!("within the limit of {limit}")
        };
        notes.push(format!(
            "Run as {} copies, requests spread {}, each copy keeping its own count: across them the busiest {w} s window of one key let {most} through, {kept}.",
            deployment.instances,
            deployment.spread.phrase(),
        ));
        if let Some(where_) = run.algorithm.copies_note() {
            notes.push(where_.to_string());
        }
    }
    if let Some(counted) = run
        .algorithm
        .counts_refused_note()
        .filter(|_| settings.count_refused)
    {
        notes.push(match run.rejected {
            0 => "Refused requests would count too, but it refused none here.".to_string(),
            rejected => counted(rejected, run.passed()),
        });
    }
    if let Some(also) = settings.also {
        let on = match also.key {
            SecondKey::Same => "on the same key",
            SecondKey::Prefix => "on each key's prefix (the part before its last colon), shared by every key behind it",
        };
        let spend = match also.spend {
            Spend::All => "checked after the row's own limit, which a request it refuses has already spent",
            Spend::Passed => "checked with the row's own limit, both spending only when both let a request through",
        };
        notes.push(format!(
            "A second limit of {} per {} s {on}, {spend}: it refused {} that the row's own limit let through; its own limit refused {}.",
            also.count,
            format_seconds(also.window.micros()),
            requests(run.refused_by_second),
            requests(run.rejected - run.refused_by_second),
        ));
    }
    if let Some(clients) = &run.clients {
        notes.extend(clients_notes(run.algorithm, clients, settings));
    }
    notes.extend(run.algorithm.own_note(settings));
    notes
}

/// What a row's obeying clients did: what they were told, what their retries met, and the
/// most that came back at one instant.
fn clients_notes(algorithm: Algorithm, clients: &ClientsRun, settings: &Settings) -> Vec<String> {
    let retries = clients.retries.len();
    let backed_off = clients.retries.iter().filter(|r| !r.as_told).count();
    let base = settings.window.micros() / settings.limit.max(1);
    let backoff = if backed_off > 0 {
        format!(
            "; told nothing, a client backs off on its own, retry n waiting between 2^(n-1) and 2^n times {} s (window / limit), drawn from the seed",
            format_seconds(base.max(1_000))
        )
    } else {
        String::new()
    };
    let mut notes = vec![format!(
        "Its clients obey: a refused client waits what the row tells it ({}) and tries again, up to {} times{backoff}.",
        what_it_tells(algorithm),
        settings.clients.retries,
    )];
    if retries == 0 {
        notes.push("No client was refused, so none retried.".to_string());
        return notes;
    }
    let p95 = match clients.p95_wait {
        Some(wait) => format!(
            "95 % of the {} clients served were served within {} s of their first try",
            clients.succeeded,
            format_seconds(wait.micros())
        ),
        None => "no client was served".to_string(),
    };
    let after_backoff = if backed_off > 0 {
        format!(", {backed_off} came after backing off")
    } else {
        String::new()
    };
    notes.push(format!(
        "They sent {retries} retries: {} refused although the client had waited as told{after_backoff}; {} gave up; {p95}.",
        clients.wasted,
        clients_count(clients.gave_up),
    ));
    // Retries told the same instant: the rows that tell every refused client one time.
    let mut most = (0usize, None);
    let mut run_at = (0usize, None);
    for retry in clients.retries.iter().filter(|r| r.as_told) {
        run_at = match run_at {
            (n, Some(at)) if at == retry.at => (n + 1, Some(at)),
            _ => (1, Some(retry.at)),
        };
        if run_at.0 > most.0 {
            most = run_at;
        }
    }
    if let (n, Some(at)) = most {
        if n > 1 {
            notes.push(format!(
                "Up to {n} retries came back at the same instant ({} s), told the same time to wait for.",
                format_seconds(at.micros())
            ));
        }
    }
    notes
}

/// "1 client", "5 clients".
fn clients_count(n: u64) -> String {
    match n {
        1 => "1 client".to_string(),
        n => format!("{n} clients"),
    }
}

/// "1 request", "5 requests".
fn requests(n: u64) -> String {
    match n {
        1 => "1 request".to_string(),
        n => format!("{n} requests"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::algorithms::fixed_window::Alignment;
    use crate::core::deployment::{Deployment, Spread};
    use crate::core::limiter::Complete;
    use crate::core::run::run_one;
    use crate::core::traffic::Pattern;

    fn notes(algorithm: Algorithm, settings: &Settings, pattern: Pattern) -> Vec<String> {
        let trace = pattern.generate(settings.limit, settings.window);
        let run = run_one::<Complete>(&trace, algorithm, settings).unwrap();
        row_notes::<Complete>(&run, settings)
    }

    #[test]
    fn a_row_at_the_defaults_has_no_notes() {
        let settings = Settings::default();
        for algorithm in Algorithm::CORE {
            assert!(notes(algorithm, &settings, Pattern::Edge).is_empty());
        }
    }

    #[test]
    fn copies_say_how_many_and_how_far_the_busiest_window_went_past_the_limit() {
        let settings = Settings {
            deployment: Deployment {
                instances: 2,
                spread: Spread::RoundRobin,
                ..Deployment::default()
            },
            ..Settings::default()
        };
        assert_eq!(
            notes(Algorithm::SlidingLog, &settings, Pattern::Steady),
            ["Run as 2 copies, requests spread in turn, each copy keeping its own count: across them the busiest 10 s window of one key let 10 through, 5 more than the limit of 5."]
        );
    }

    #[test]
    fn counting_refused_requests_quotes_the_refusals_and_what_passed() {
        let settings = Settings {
            count_refused: true,
            ..Settings::default()
        };
        let log = notes(Algorithm::SlidingLog, &settings, Pattern::Steady);
        assert!(
            log[0].contains("its 55 refusals") && log[0].ends_with("5 got through."),
            "{log:?}"
        );
        let fixed = notes(Algorithm::FixedWindow, &settings, Pattern::Steady);
        assert!(fixed[0].contains("its 30 refusals"), "{fixed:?}");
        assert!(notes(Algorithm::TokenBucket, &settings, Pattern::Steady).is_empty());
        let generous = Settings {
            limit: 100,
            ..settings
        };
        assert_eq!(
            notes(Algorithm::SlidingLog, &generous, Pattern::Steady),
            ["Refused requests would count too, but it refused none here."]
        );
    }

    #[test]
    fn a_second_limit_says_what_it_refused_and_what_the_rows_own_refused() {
        let settings = crate::core::url::parse_query("also=2/1").state.settings;
        assert_eq!(
            notes(Algorithm::SlidingLog, &settings, Pattern::Edge),
            ["A second limit of 2 per 1 s on the same key, checked after the row's own limit, which a request it refuses has already spent: it refused 1 request that the row's own limit let through; its own limit refused 5 requests."]
        );
    }

    #[test]
    fn a_fixed_window_from_the_first_request_says_so_and_only_on_the_fixed_window() {
        let settings = Settings {
            fixed_align: Alignment::FirstRequest,
            ..Settings::default()
        };
        assert_eq!(
            notes(Algorithm::FixedWindow, &settings, Pattern::Edge).len(),
            1
        );
        assert!(notes(Algorithm::SlidingLog, &settings, Pattern::Edge).is_empty());
    }

    #[test]
    fn obeying_clients_say_what_they_were_told_and_what_their_retries_met() {
        let settings = crate::core::url::parse_query("limit=1&clients=obey")
            .state
            .settings;
        let trace = crate::core::url::parse_query("trace=0,1,2").state.pattern;
        let fixed = notes(Algorithm::FixedWindow, &settings, trace);
        assert_eq!(
            fixed,
            [
                "Its clients obey: a refused client waits what the row tells it (the Retry-After header, in whole seconds rounded up) and tries again, up to 5 times.",
                "They sent 3 retries: 1 refused although the client had waited as told; 0 clients gave up; 95 % of the 3 clients served were served within 18 s of their first try.",
                "Up to 2 retries came back at the same instant (10 s), told the same time to wait for.",
            ]
        );
    }
}
