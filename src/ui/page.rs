//! The first page: the settings in use, any message about the URL, and one row per algorithm
//! with what it let through. Changing a setting submits the form, which reloads the page with
//! the new state in its URL, so every view is a link.

use leptos::prelude::*;

use crate::core::durable::{simulate, Outcome, SimReport};
use crate::core::limiter::Algorithm;
use crate::core::run::{run_all, AlgorithmRun};
use crate::core::time::format_seconds;
use crate::core::traffic::Pattern;
use crate::core::url_state::{durable_pairs, parse_query, LabState};

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let parsed = parse_query(&super::current_query());
    let state = parsed.state.clone();
    let trace = state.pattern.generate(state.settings.limit, state.settings.window);
    let outcome = run_all(&trace, &state.algorithms, &state.settings);
    let durable = state.durable.enabled.then(|| {
        let config = state.durable.sim_config(&state.settings);
        simulate(&config, &state.durable.traffic(&trace)).map(|report| (report, describe_durable(&state)))
    });
    Effect::new(move |_| super::mark_ready());

    let window_text = format_seconds(state.settings.window.micros());
    let limit = state.settings.limit;
    view! {
        <header class="top">
            <h1>"Rate Limit Lab"</h1>
            <p class="lede">
                "The same " {trace.len()} " requests reach every limiter. Each promises at most "
                <strong>{limit} " requests per " {window_text.clone()} " s"</strong> "."
            </p>
        </header>
        <Notices notices=parsed.notices.iter().map(|n| n.message.clone()).collect()/>
        <SettingsForm state=state.clone()/>
        {match outcome {
            Ok(runs) => view! { <StatsTable runs=runs durable=durable limit=limit window_text=window_text/> }.into_any(),
            Err(e) => view! { <p class="error" role="alert" data-testid="run-error">{e.to_string()}</p> }.into_any(),
        }}
    }
}

/// Messages about URL fields that could not be used as given.
///
/// - `notices`: one plain sentence per field, already saying which default replaced it.
#[component]
fn Notices(notices: Vec<String>) -> impl IntoView {
    (!notices.is_empty()).then(|| {
        view! {
            <div class="notices" role="alert" data-testid="notices">
                <ul>{notices.into_iter().map(|n| view! { <li data-testid="notice">{n}</li> }).collect_view()}</ul>
            </div>
        }
    })
}

/// Limit, window, pattern and algorithms, submitted as a GET form so the URL holds the state.
///
/// - `state`: the state the page is showing, used as the form's initial values.
#[component]
fn SettingsForm(state: LabState) -> impl IntoView {
    let presets = [Pattern::Edge, Pattern::Steady, Pattern::Double, Pattern::BurstTrickle];
    let current_slug = state.pattern.slug();
    let trace_text = match &state.pattern {
        Pattern::Trace(times) => times.iter().map(|t| format_seconds(t.micros())).collect::<Vec<_>>().join(","),
        _ => String::new(),
    };
    view! {
        <form class="settings" method="get" action="" data-testid="settings">
            <label>"Limit (requests) "
                <input name="limit" type="number" min="1" max="1000000" step="1" value=state.settings.limit.to_string() data-testid="limit-input"/>
            </label>
            <label>"Window (seconds) "
                <input name="window" type="text" inputmode="decimal" value=format_seconds(state.settings.window.micros()) data-testid="window-input"/>
            </label>
            <label>"Traffic "
                <select name="pattern" data-testid="pattern-select">
                    {(!trace_text.is_empty()).then(|| view! { <option value="trace" selected=true>"Your own request times"</option> })}
                    {presets.into_iter().map(|p| {
                        let selected = p.slug() == current_slug;
                        view! { <option value=p.slug() selected=selected>{p.label()}</option> }
                    }).collect_view()}
                </select>
            </label>
            {(!trace_text.is_empty()).then(|| view! {
                <label>"Request times (seconds, comma-separated) "
                    <input name="trace" type="text" value=trace_text data-testid="trace-input"/>
                </label>
            })}
            <fieldset class="algos">
                <legend>"Algorithms"</legend>
                {Algorithm::ALL.into_iter().map(|a| {
                    let checked = state.algorithms.contains(&a);
                    view! {
                        <label class="algo-toggle">
                            <input type="checkbox" name="algo" value=a.slug() checked=checked/>
                            {a.label()}
                        </label>
                    }
                }).collect_view()}
            </fieldset>
            {durable_pairs(&state.durable).into_iter().map(|(name, value)| view! {
                <input type="hidden" name=name value=value/>
            }).collect_view()}
            <button type="submit" data-testid="apply">"Apply"</button>
        </form>
    }
}

/// One sentence saying what the Durable Object row emulates.
fn describe_durable(state: &LabState) -> String {
    let d = &state.durable;
    let home = match d.home {
        Some(region) => format!("an object in {region}"),
        None => format!("an object placed {}", if d.placement == crate::core::durable::Placement::Smart { "near its heaviest caller" } else { "where the first request came from" }),
    };
    format!(
        "{} in {home}, called from {} with a {} ms timeout; the route fails {}.",
        d.algorithm.label(),
        d.from,
        d.timeout.ceil_millis(),
        d.fail.slug()
    )
}

/// One row per algorithm with what it let through and the busiest window it allowed.
///
/// - `runs`: the core's result for each selected algorithm, in display order.
/// - `durable`: the Durable Object emulation's run and a sentence describing it, when `do=1`.
/// - `limit`, `window_text`: the promise each row is measured against.
#[component]
fn StatsTable(
    runs: Vec<AlgorithmRun>,
    durable: Option<Result<(SimReport, String), crate::core::durable::SimConfigError>>,
    limit: u64,
    window_text: String,
) -> impl IntoView {
    let durable_row = durable.map(|result| match result {
        Ok((report, description)) => durable_row(&report, description, limit, &window_text).into_any(),
        Err(e) => view! {
            <tr data-testid="stats-do" class="broke"><th scope="row">"Durable Object"</th><td colspan="4">{e.to_string()}</td></tr>
        }
        .into_any(),
    });
    view! {
        <div class="table-wrap">
        <table class="stats" data-testid="stats">
            <caption>"What each algorithm did with the same requests"</caption>
            <thead>
                <tr>
                    <th scope="col">"Algorithm"</th>
                    <th scope="col">"Let through"</th>
                    <th scope="col">"of them delayed"</th>
                    <th scope="col">"Rejected"</th>
                    <th scope="col">"Most in one " {window_text.clone()} " s window"</th>
                </tr>
            </thead>
            <tbody>
                {runs.into_iter().map(|run| {
                    let broke = run.max_in_window > limit;
                    let verdict = if broke {
                        format!("{} passed inside one {} s window: more than the limit of {}.", run.max_in_window, window_text, limit)
                    } else {
                        format!("never more than {limit} in any {window_text} s window")
                    };
                    view! {
                        <tr
                            data-testid=format!("stats-{}", run.algorithm.slug())
                            data-allowed=run.passed().to_string()
                            data-delayed=run.delayed.to_string()
                            data-rejected=run.rejected.to_string()
                            data-max-in-window=run.max_in_window.to_string()
                            class:broke=broke
                        >
                            <th scope="row">{run.algorithm.label()}</th>
                            <td data-label="Let through">{run.passed()}</td>
                            <td data-label="of them delayed">{run.delayed}</td>
                            <td data-label="Rejected">{run.rejected}</td>
                            <td data-label="Most in one window" class="window-cell">
                                <span class="count">{run.max_in_window}</span>
                                <span class="verdict">{verdict}</span>
                            </td>
                        </tr>
                    }
                }).collect_view()}
                {durable_row}
            </tbody>
        </table>
        </div>
    }
}

/// The Durable Object row: what reached the application through the emulated object.
fn durable_row(report: &SimReport, description: String, limit: u64, window_text: &str) -> impl IntoView {
    let passed = report.passed();
    let degraded = report.count(Outcome::DegradedAllowed);
    let failed_closed = report.count(Outcome::FailedClosed);
    let rejected = report.count(Outcome::Rejected) + failed_closed;
    let most = report.keys.iter().map(|k| k.effective_limit).max().unwrap_or(0);
    let p95_ms = report.p95.ceil_millis();
    let broke = most > limit;
    let verdict = format!(
        "{}p95 latency {} ms; {} let through unmetered (degraded), {} refused because the object did not answer.",
        if broke { format!("{most} passed inside one {window_text} s window: more than the limit of {limit}. ") } else { String::new() },
        p95_ms,
        degraded,
        failed_closed
    );
    view! {
        <tr
            data-testid="stats-do"
            data-allowed=passed.to_string()
            data-rejected=rejected.to_string()
            data-degraded=degraded.to_string()
            data-failed-closed=failed_closed.to_string()
            data-p95-ms=p95_ms.to_string()
            data-max-in-window=most.to_string()
            data-late=report.late.to_string()
            class:broke=broke
        >
            <th scope="row">"Durable Object" <span class="row-note">{description}</span></th>
            <td data-label="Let through">{passed}</td>
            <td data-label="of them delayed">{report.count(Outcome::Delayed)}</td>
            <td data-label="Rejected">{rejected}</td>
            <td data-label="Most in one window" class="window-cell">
                <span class="count">{most}</span>
                <span class="verdict">{verdict}</span>
            </td>
        </tr>
    }
}
