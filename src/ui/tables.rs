//! The same data as tables: one row per algorithm with its figures (the page contract's
//! `stats-<algo>` rows), and every decision for screen readers and for anyone who prefers text.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::durable::shard::sharding_note;
use crate::core::durable::Outcome;
use crate::core::so_far::{self, SoFar};
use crate::core::time::{format_millis, format_seconds, Time};

use super::state::Lab;
use crate::layout::timeline::time_label;

/// "10 passed inside one 10 s window: more than the limit of 5."
fn broke_text(most: u64, window_text: &str, limit: u64) -> String {
    format!("{most} passed inside one {window_text} s window: more than the limit of {limit}.")
}

/// What a row's obeying clients did, after its verdict: "; 175 retries, 125 wasted, 5 clients
/// gave up"; by a playhead, the retries sent by then: "; 12 retries so far, 4 wasted".
fn clients_text(c: &crate::core::retries::ClientsRun, playhead: Option<Time>) -> String {
    match playhead {
        None => format!(
            "; {} retries, {} wasted, {} clients gave up",
            c.retries.len(),
            c.wasted,
            c.gave_up
        ),
        Some(t) => {
            let sent = c.retries.iter().filter(|r| r.at <= t);
            let (retries, wasted) = sent.fold((0, 0), |(n, w), r| {
                (n + 1, w + u64::from(!r.passed && r.as_told))
            });
            format!("; {retries} retries so far, {wasted} wasted")
        }
    }
}

/// The most decisions listed in the decision table.
const MAX_TABLE_ROWS: usize = 500;

#[component]
pub fn StatsTable() -> impl IntoView {
    let lab = expect_context::<Lab>();
    // An embed shows no table (style/main.css hides it), but keeps its rows with their figures
    // as data, the page contract's `stats-<algo>`: only the cells a person would read, and the
    // verdicts written for them, are left out, which made an embed's first view about a third
    // fewer elements to build.
    let cells = !lab.is_embed();
    // While the playhead shows part of the story, the cells count what had happened by then
    // (`core::so_far`); the `data-` attributes keep the totals.
    let rows = move || {
        let playhead = lab.playback.playhead.get();
        lab.run.with(|run| {
            let limit = run.settings.limit;
            let window_text = format_seconds(run.settings.window.micros());
            let mut rows: Vec<AnyView> = run
                .runs
                .iter()
                .map(|r| {
                    let broke = r.max_in_window > limit;
                    let totals = SoFar {
                        passed: r.passed(),
                        delayed: r.delayed,
                        rejected: r.rejected,
                        most_in_window: r.max_in_window,
                    };
                    let shown = playhead.map_or(totals, |t| so_far::row::<super::Linked>(r, &run.trace, t));
                    // With clients that obey: retries sent, retries wasted (refused although
                    // the client waited as told), clients that gave up, and the 95th percentile
                    // of a served client's wait from its first try (empty when none was served).
                    // Clients obey only in a module with the rules: the others leave this out.
                    let clients = r
                        .clients
                        .as_ref()
                        .filter(|_| <super::Linked as crate::core::linking::Linking>::RULES);
                    let retries = clients.map(|c| c.retries.len().to_string());
                    let wasted = clients.map(|c| c.wasted.to_string());
                    let gave_up = clients.map(|c| c.gave_up.to_string());
                    let p95_wait = clients.map(|c| {
                        c.p95_wait
                            .map(|w| format_millis(w.micros()))
                            .unwrap_or_default()
                    });
                    view! {
                        <tr
                            data-testid=format!("stats-{}", r.algorithm.slug())
                            data-retries=retries
                            data-wasted=wasted
                            data-gave-up=gave_up
                            data-p95-wait-ms=p95_wait
                            data-allowed=r.passed().to_string()
                            data-delayed=r.delayed.to_string()
                            data-rejected=r.rejected.to_string()
                            data-refused-by-first=(r.rejected - r.refused_by_second).to_string()
                            data-refused-by-second=r.refused_by_second.to_string()
                            data-max-in-window=r.max_in_window.to_string()
                            class:broke=broke
                        >
                            {cells.then(|| {
                                let most = shown.most_in_window;
                                let so_far = playhead.map(|t| format!(" by {}", time_label(t))).unwrap_or_default();
                                let mut verdict = if most > limit {
                                    broke_text(most, &window_text, limit)
                                } else {
                                    format!("never more than {limit} in any {window_text} s window{so_far}")
                                };
                                if let Some(c) = clients {
                                    verdict.push_str(&clients_text(c, playhead));
                                }
                                view! {
                                    <th scope="row">{r.algorithm.label()}</th>
                                    <td data-label="Let through">{shown.passed}</td>
                                    <td data-label="of them delayed">{shown.delayed}</td>
                                    <td data-label="Rejected">{shown.rejected}</td>
                                    <td data-label="Most in one window" class="window-cell">
                                        <span class="count">{most}</span>
                                        <span class="verdict">{verdict}</span>
                                    </td>
                                }
                            })}
                        </tr>
                    }
                    .into_any()
                })
                .collect();
            match &run.durable {
                Some(Ok(report)) => {
                    let passed = report.passed();
                    let degraded = report.count(Outcome::DegradedAllowed);
                    let failed_closed = report.count(Outcome::FailedClosed);
                    let rejected = report.count(Outcome::Rejected) + failed_closed;
                    let most = report.most_in_window;
                    let p95 = report.p95.ceil_millis();
                    let broke = most > limit;
                    let totals = SoFar {
                        passed,
                        delayed: report.count(Outcome::Delayed),
                        rejected,
                        most_in_window: most,
                    };
                    let by_playhead = playhead.map(|t| (t, so_far::durable(report, t)));
                    let shown = by_playhead.map_or(totals, |(_, by)| by.row);
                    rows.push(
                        view! {
                            <tr
                                data-testid="stats-do"
                                data-allowed=passed.to_string()
                                data-rejected=rejected.to_string()
                                data-degraded=degraded.to_string()
                                data-failed-closed=failed_closed.to_string()
                                data-p95-ms=p95.to_string()
                                data-max-in-window=most.to_string()
                                data-late=report.late.to_string()
                                class:broke=broke
                            >
                                {cells.then(|| {
                                    // When sharding changes the limit a key is held to, the row says so.
                                    let by = lab.state.with(|s| s.durable.shard_by);
                                    let sharding = sharding_note(&report.objects, limit, run.settings.window, by).map(|n| format!(" {}", n.sentence));
                                    let sharding = sharding.unwrap_or_default();
                                    let verdict = match by_playhead {
                                        None => format!(
                                            "{}p95 latency {p95} ms; {degraded} let through unmetered (degraded), {failed_closed} refused because the object did not answer.{sharding}",
                                            if broke { broke_text(most, &window_text, limit) + " " } else { String::new() },
                                        ),
                                        // By the playhead: what had happened by then, and the
                                        // latency said to be the whole run's.
                                        Some((t, by)) => {
                                            let (degraded, failed_closed) = (by.degraded, by.failed_closed);
                                            let most = shown.most_in_window;
                                            format!(
                                                "{}{degraded} let through unmetered (degraded), {failed_closed} refused because the object did not answer, by {}; p95 latency of the whole run {p95} ms.{sharding}",
                                                if most > limit { broke_text(most, &window_text, limit) + " " } else { String::new() },
                                                time_label(t),
                                            )
                                        }
                                    };
                                    view! {
                                        <th scope="row">"Durable Object"</th>
                                        <td data-label="Let through">{shown.passed}</td>
                                        <td data-label="of them delayed">{shown.delayed}</td>
                                        <td data-label="Rejected">{shown.rejected}</td>
                                        <td data-label="Most in one window" class="window-cell">
                                            <span class="count">{shown.most_in_window}</span>
                                            <span class="verdict">{verdict}</span>
                                        </td>
                                    }
                                })}
                            </tr>
                        }
                        .into_any(),
                    );
                }
                Some(Err(e)) => rows.push(
                    view! { <tr data-testid="stats-do" class="broke"><th scope="row">"Durable Object"</th><td colspan="4">{e.clone()}</td></tr> }.into_any(),
                ),
                None => {}
            }
            rows
        })
    };
    let error = move || {
        lab.run.with(|run| run.error.clone()).map(|e| {
            view! { <p class="error" role="alert" data-testid="run-error">{e}</p> }.into_any()
        })
    };
    view! {
        {error}
        <div class="table-wrap">
            <table class="stats" data-testid="stats">
                {cells.then(|| view! {
                    <caption>"What each algorithm did with the same requests"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Algorithm"</th>
                            <th scope="col">"Let through"</th>
                            <th scope="col">"of them delayed"</th>
                            <th scope="col">"Rejected"</th>
                            <th scope="col">"Most in one window"</th>
                        </tr>
                    </thead>
                })}
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// Every decision, as text.
#[component]
pub fn DecisionTable() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let table = move || {
        lab.run.with(|run| {
            let mut names: Vec<&'static str> =
                run.runs.iter().map(|r| r.algorithm.label()).collect();
            // The Durable Object's answer to each request's first call (its retries are its own).
            let object: Vec<String> = match &run.durable {
                Some(Ok(report)) => report
                    .records
                    .iter()
                    .filter(|r| r.attempt == 0)
                    .take(MAX_TABLE_ROWS)
                    .map(|r| format!("{}, {} ms", r.outcome.word(), r.latency().ceil_millis()))
                    .collect(),
                _ => Vec::new(),
            };
            if !object.is_empty() {
                names.push("Durable Object");
            }
            let total = run.trace.len();
            let rows = run
                .trace
                .requests()
                .iter()
                .enumerate()
                .take(MAX_TABLE_ROWS)
                .map(|(i, req)| {
                    let cells = run
                        .runs
                        .iter()
                        .map(|r| r.verdicts.get(i).map(|v| v.word()).unwrap_or("-"))
                        .map(|w| view! { <td>{w}</td> }.into_any())
                        .chain(object.get(i).map(|w| view! { <td data-testid="decision-do">{w.clone()}</td> }.into_any()))
                        .collect::<Vec<_>>();
                    view! {
                        <tr>
                            <td>{i + 1}</td>
                            <td>{time_label(req.at)}</td>
                            <td>{run.trace.key_name(req.key).to_string()}</td>
                            {cells}
                        </tr>
                    }
                    .into_any()
                })
                .collect::<Vec<_>>();
            view! {
                <table class="decisions" data-testid="decision-table">
                    <thead>
                        <tr>
                            <th scope="col">"#"</th>
                            <th scope="col">"Time"</th>
                            <th scope="col">"Key"</th>
                            {names.into_iter().map(|n| view! { <th scope="col">{n}</th> }).collect_view()}
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
                {(total > MAX_TABLE_ROWS).then(|| view! { <p class="hint">{format!("The first {MAX_TABLE_ROWS} of {total} requests.")}</p> })}
            }
            .into_any()
        })
    };
    // Built only while open: up to 500 rows of cells rebuilt on every change are work a closed
    // table would not show.
    let open = RwSignal::new(false);
    let on_toggle = move |ev: leptos::ev::Event| {
        let is_open = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|e| e.has_attribute("open"));
        open.set(is_open);
    };
    view! {
        <details class="decision-details" on:toggle=on_toggle>
            <summary>"Every decision as a table"</summary>
            <div class="table-wrap">{move || open.get().then(table)}</div>
        </details>
    }
}
