//! Clients that obey what they are told (`clients=obey`, `retries`), read from links as the page
//! reads them: each refused client waits what its row told it and tries again. The figures of
//! the small traces are worked out by hand in each test's comment.
#![cfg(not(target_arch = "wasm32"))]

use ratelab::core::export::decisions_csv;
use ratelab::core::lab::LabRun;
use ratelab::core::limiter::Algorithm;
use ratelab::core::limiter::Complete;
use ratelab::core::retries::{tries_of, ClientsRun, Then};
use ratelab::core::run::{decision_and_cause_at, run_all, AlgorithmRun};
use ratelab::core::time::{Span, Time};
use ratelab::core::url::{parse_query, to_query};

fn runs(query: &str) -> Vec<AlgorithmRun> {
    let parsed = parse_query(query);
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    let run = LabRun::compute(&parsed.state);
    assert_eq!(run.error, None);
    run.runs
}

fn clients(run: &AlgorithmRun) -> &ClientsRun {
    run.clients.as_ref().expect("clients that obey")
}

/// (retries sent, wasted, gave up, let through in the end, p95 wait in ms) of a row.
fn figures(run: &AlgorithmRun) -> (usize, u64, u64, u64, Option<u64>) {
    let c = clients(run);
    (
        c.retries.len(),
        c.wasted,
        c.gave_up,
        c.succeeded,
        c.p95_wait.map(|w| w.micros() / 1_000),
    )
}

/// One request per 10 s window, three clients at 0, 1 and 2 s. The first passes; the others are
/// told `Retry-After: 9` and `8`: both come back at 10 s, the same instant. The first back passes,
/// the second is refused although it waited as told (wasted), is told 10 and passes at 20 s.
/// Waits 0, 9 and 18 s: the 95th percentile is 18 s.
#[test]
fn a_fixed_window_tells_every_refused_client_the_same_instant_and_they_collide() {
    let rows = runs("trace=0,1,2&limit=1&window=10&algos=fixed&clients=obey");
    let fixed = &rows[0];
    assert_eq!(figures(fixed), (3, 1, 0, 3, Some(18_000)));
    let at: Vec<(u32, u64, u64, bool)> = clients(fixed)
        .retries
        .iter()
        .map(|r| {
            (
                r.client,
                r.after.micros() / 1_000,
                r.at.micros() / 1_000,
                r.passed,
            )
        })
        .collect();
    assert_eq!(
        at,
        [
            (1, 1_000, 10_000, true),
            (2, 2_000, 10_000, false),
            (2, 10_000, 20_000, true)
        ]
    );
    assert_eq!((fixed.allowed, fixed.rejected), (3, 3), "every try counts");
    assert_eq!(fixed.max_in_window, 1, "the retries kept the promise");
}

/// Three per 10 s: the token bucket refills one every 3⅓ s. The fourth request at 0 is told
/// `Retry-After: 4` (whole seconds, rounded up) by the textbook row; governor's client reads the
/// exact `NotUntil` wait, 3.333334 s, and is served that much sooner.
#[test]
fn governors_exact_wait_serves_a_client_sooner_than_a_rounded_retry_after() {
    let rows = runs("trace=0,0,0,0&limit=3&window=10&algos=token-bucket,governor&clients=obey");
    assert_eq!(figures(&rows[0]), (1, 0, 0, 4, Some(4_000)));
    let governor = clients(&rows[1]);
    assert_eq!((governor.retries.len(), governor.wasted), (1, 0));
    let wait = governor.p95_wait.expect("served").micros();
    assert!((3_333_333..=3_333_334).contains(&wait), "{wait}");
}

/// Upstash's fixed window answers the sixth request at 0 with `reset: 10000`. Its client waits
/// until then, but the library's own cache blocks the key while `reset >= Date.now()`: at 10 s
/// exactly it is still blocked, and every retry lands at that same millisecond. The textbook
/// fixed window's `Retry-After: 10` lets the same client through at 10 s.
#[test]
fn upstashs_reset_sends_a_client_back_while_its_own_cache_still_blocks() {
    let rows = runs("trace=0,0,0,0,0,0&algos=fixed,upstash-fixed&clients=obey");
    assert_eq!(figures(&rows[0]), (1, 0, 0, 6, Some(10_000)));
    assert_eq!(figures(&rows[1]), (5, 5, 1, 5, Some(0)));
    assert!(clients(&rows[1])
        .retries
        .iter()
        .all(|r| r.at == Time::from_secs(10)));
}

/// nginx sends a 503 with no hint: its clients back off on their own, so none of their refused
/// retries is counted as wasted, and each waits between 2^(n-1) and 2^n times `window / limit`.
#[test]
fn a_row_that_sends_no_hint_has_its_clients_back_off_and_wastes_nothing() {
    let rows = runs("pattern=steady&algos=nginx&clients=obey");
    let c = clients(&rows[0]);
    assert!(!c.retries.is_empty());
    assert_eq!(c.wasted, 0);
    for retry in &c.retries {
        assert!(!retry.as_told);
        let base = 2_000_000u64 << (retry.number - 1);
        let waited = retry.at.since(retry.after).micros();
        assert!((base..=2 * base).contains(&waited), "{retry:?}");
    }
}

/// A request of cost 9 against a limit of 5: governor answers `InsufficientCapacity`, so its
/// client gives up at once; the textbook token bucket names no wait, so its client backs off
/// five times before giving up.
#[test]
fn a_client_told_that_no_wait_helps_gives_up_at_once() {
    let rows = runs("trace=0*9&algos=token-bucket,governor&clients=obey");
    assert_eq!(figures(&rows[0]), (5, 0, 1, 0, None));
    assert_eq!(figures(&rows[1]), (0, 0, 1, 0, None));
}

#[test]
fn with_no_retries_every_row_decides_as_if_the_clients_ignored_their_answers() {
    let all = Algorithm::ALL.map(|a| a.slug()).join(",");
    for pattern in ["steady", "several-keys", "retry-storm"] {
        let plain = parse_query(&format!("pattern={pattern}&algos={all}")).state;
        let obeying = parse_query(&format!(
            "pattern={pattern}&algos={all}&clients=obey&retries=0"
        ))
        .state;
        let trace = plain.traffic().generate(5, Span::from_secs(10));
        let before =
            run_all::<Complete>(&trace, &plain.algorithms, &plain.settings).expect("valid");
        let after =
            run_all::<Complete>(&trace, &obeying.algorithms, &obeying.settings).expect("valid");
        for (a, b) in before.iter().zip(&after) {
            assert_eq!(a.verdicts, b.verdicts, "{pattern} {:?}", a.algorithm);
            assert_eq!(
                (a.allowed, a.delayed, a.rejected, a.max_in_window),
                (b.allowed, b.delayed, b.rejected, b.max_in_window),
                "{pattern} {:?}",
                a.algorithm
            );
            let c = clients(b);
            assert!(c.retries.is_empty());
            assert_eq!(c.gave_up, a.rejected, "{pattern} {:?}", a.algorithm);
        }
    }
}

/// The steady run, 5 per 10 s, clients obeying five times. Regression figures for the page's
/// attributes (the small traces above check the rules by hand).
#[test]
fn the_steady_run_with_obeying_clients_gives_the_pages_figures() {
    let rows = runs("pattern=steady&algos=fixed,sliding-log,token-bucket&clients=obey");
    assert_eq!(figures(&rows[0]), (175, 125, 5, 55, Some(48_000)));
    assert_eq!(figures(&rows[1]), (265, 235, 25, 35, Some(10_000)));
    assert_eq!(figures(&rows[2]), (235, 205, 21, 39, Some(10_000)));
    for row in &rows {
        assert_eq!(
            row.allowed + row.delayed + row.rejected,
            60 + clients(row).retries.len() as u64
        );
    }
}

/// The inspector's decision of a request (made on demand) and the tries it lists are the run's.
#[test]
fn every_decision_made_on_demand_is_the_runs_first_try_and_its_retries() {
    let all = Algorithm::ALL.map(|a| a.slug()).join(",");
    for extra in [
        "",
        "&instances=3",
        "&also=2/1&also-key=prefix",
        "&retries=2",
    ] {
        let state = parse_query(&format!(
            "pattern=several-keys&algos={all}&clients=obey{extra}"
        ))
        .state;
        let trace = state
            .traffic()
            .generate(state.settings.limit, state.settings.window);
        let runs = run_all::<Complete>(&trace, &state.algorithms, &state.settings).expect("valid");
        for run in &runs {
            let retries = &clients(run).retries;
            for index in 0..trace.len() {
                let at = format!("{extra} {:?} #{index}", run.algorithm);
                let (decision, _, _) = decision_and_cause_at::<Complete>(
                    &trace,
                    run.algorithm,
                    &state.settings,
                    index,
                )
                .expect("in range");
                assert_eq!(Some(decision.verdict), run.verdicts.get(index), "{at}");
                let tries = tries_of::<Complete>(&trace, run.algorithm, &state.settings, index)
                    .expect("tries");
                let mine: Vec<_> = retries
                    .iter()
                    .filter(|r| r.client as usize == index)
                    .collect();
                assert_eq!(tries.len(), 1 + mine.len(), "{at}");
                for (t, r) in tries[1..].iter().zip(&mine) {
                    assert_eq!(
                        (t.attempt.at, t.decision.verdict.passes()),
                        (r.at, r.passed),
                        "{at}"
                    );
                }
                let last = tries.last().expect("a first try").then;
                assert!(!matches!(last, Then::RetriesAt(_)), "{at}");
            }
        }
    }
}

#[test]
fn the_link_keeps_clients_and_retries_and_explains_what_it_refuses() {
    let parsed = parse_query("clients=obey&retries=9");
    assert!(parsed.notices.is_empty());
    assert_eq!(to_query(&parsed.state), "clients=obey&retries=9");
    assert_eq!(
        to_query(&parse_query("clients=obey&retries=5").state),
        "clients=obey"
    );
    for (query, says) in [
        ("retries=3", "needs clients that obey"),
        ("clients=obey&retries=51", "from 0 to 50"),
        ("clients=listen", "use ignore"),
    ] {
        let notices = parse_query(query).notices;
        assert!(
            notices.iter().any(|n| n.message.contains(says)),
            "{query}: {notices:?}"
        );
    }
}

#[test]
fn obeying_clients_cannot_join_a_queue_served_newest_first() {
    let parsed = parse_query("algos=dotnet-fixed&dotnet-queue=2&dotnet-order=newest&clients=obey");
    let run = LabRun::compute(&parsed.state);
    assert!(run.error.expect("refused").contains("newest first"));
}

/// The CSV lists each row's own traffic, a row at a time in the order it decided, with the try.
#[test]
fn the_csv_lists_every_try_of_every_client_row_by_row() {
    let parsed = parse_query("trace=0,1,2&limit=1&window=10&algos=fixed,sliding-log&clients=obey");
    let csv = decisions_csv::<Complete>(&LabRun::compute(&parsed.state));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("time_s,key,limiter,outcome,status,headers,try")
    );
    let rows: Vec<(String, String, String, String)> = lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let last = f.last().copied().unwrap_or_default();
            (
                f[0].to_string(),
                f[2].to_string(),
                f[3].to_string(),
                last.to_string(),
            )
        })
        .collect();
    let expect = |t: &str, l: &str, o: &str, n: &str| (t.into(), l.into(), o.into(), n.into());
    assert_eq!(
        rows[..6],
        [
            expect("0", "fixed", "allowed", "0"),
            expect("1", "fixed", "rejected", "0"),
            expect("2", "fixed", "rejected", "0"),
            expect("10", "fixed", "allowed", "1"),
            expect("10", "fixed", "rejected", "1"),
            expect("20", "fixed", "allowed", "2"),
        ]
    );
    let log = runs("trace=0,1,2&limit=1&window=10&algos=sliding-log&clients=obey");
    assert_eq!(rows.len(), 6 + 3 + clients(&log[0]).retries.len());
    assert!(rows[6..].iter().all(|r| r.1 == "sliding-log"));
}
