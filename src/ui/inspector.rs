//! The inspector: the selected request's decision under each algorithm, and the exact HTTP
//! response (status and headers) each would have sent, a product's own for a product. The
//! responses come from the core.

use leptos::prelude::*;

use crate::core::decision::Verdict;
use crate::core::lab::LabRun;
use crate::core::limiter::Algorithm;
use crate::core::row_response::row_response;
use crate::core::run::{decision_and_cause_at, product_reply};
use crate::core::second_limit::RefusedBy;
use crate::core::time::format_seconds;

use super::state::Lab;
use crate::layout::timeline::time_label;

/// One line per algorithm for `index`, used by the inspector and the live announcement: the row's
/// id, its name, the decision in words, the HTTP status and the response.
pub fn decision_lines(
    run: &LabRun,
    index: usize,
) -> Vec<(&'static str, String, String, u16, String)> {
    let mut lines = Vec::new();
    for r in &run.runs {
        // The run kept the verdict; the full decision is made again by replaying the key.
        let Some((decision, reply, cause)) =
            decision_and_cause_at::<super::Linked>(&run.trace, r.algorithm, &run.settings, index)
        else {
            continue;
        };
        // With a second limit, which of the two refused.
        let by = match (cause, run.settings.also) {
            (Some(RefusedBy::First), Some(_)) => " by its own limit".to_string(),
            (Some(RefusedBy::Second), Some(also)) => format!(
                " by the second limit ({} per {} s)",
                also.count,
                format_seconds(also.window.micros())
            ),
            _ => String::new(),
        };
        let d = &decision;
        // What the row's client receives: a product's own response, else the common one.
        let response = row_response::<super::Linked>(r.algorithm, &run.settings, d, reply.as_ref());
        let word = match d.verdict {
            Verdict::Allowed => format!("allowed, {} left", d.remaining),
            Verdict::Delayed { by } => {
                format!("delayed {} s, then served", format_seconds(by.micros()))
            }
            Verdict::Rejected => match d.retry_after {
                Some(w) => format!("rejected{by}, retry in {} s", format_seconds(w.micros())),
                None => format!("rejected{by}: costs more than the limit"),
            },
        };
        lines.push((
            r.algorithm.slug(),
            r.algorithm.label().to_string(),
            word,
            response.status,
            response.to_text(),
        ));
    }
    if let Some(Ok(report)) = &run.durable {
        if let Some(record) = report.records.iter().filter(|r| r.attempt == 0).nth(index) {
            let response = report.response(record);
            let mut word = format!(
                "{}, answered in {} ms",
                record.outcome.word(),
                record.latency().ceil_millis()
            );
            if record.late {
                word.push_str(" (the object decided after the Worker gave up)");
            }
            lines.push((
                "do",
                "Durable Object".to_string(),
                word,
                response.status,
                response.to_text(),
            ));
        }
    }
    lines
}

/// A product profile's own reply to request `index`, as the inspector shows it. Only the
/// inspector asks: it replays the key's earlier requests, which the announcement does not need.
fn reply_text(run: &LabRun, id: &str, index: usize) -> Option<String> {
    let algorithm = Algorithm::from_slug(id)?;
    let reply = product_reply::<super::Linked>(&run.trace, algorithm, &run.settings, index)?;
    let fields: Vec<String> = reply
        .fields
        .iter()
        .map(|(name, value)| format!("{name}: {value}"))
        .collect();
    Some(format!(
        "{} replies:\n{}",
        algorithm.label(),
        fields.join("\n")
    ))
}

/// With clients that obey, what became of the client of request `index` on row `id`: each try,
/// what it met and what it was told.
#[cfg(feature = "workbench")]
fn tries_text(run: &LabRun, id: &str, index: usize) -> Option<String> {
    use crate::core::retries::{describe_tries, tries_of};
    if !run.settings.obeying_clients() {
        return None;
    }
    let algorithm = Algorithm::from_slug(id)?;
    let tries = tries_of::<super::Linked>(&run.trace, algorithm, &run.settings, index)?;
    Some(format!("Its client: {}.", describe_tries(&tries)))
}

#[cfg(not(feature = "workbench"))]
fn tries_text(_run: &LabRun, _id: &str, _index: usize) -> Option<String> {
    None
}

/// The sentence read out after a decision is shown.
pub fn announce(run: &LabRun, index: usize) -> String {
    let Some(req) = run.trace.requests().get(index) else {
        return String::new();
    };
    let parts: Vec<String> = decision_lines(run, index)
        .into_iter()
        .map(|(_, name, word, ..)| format!("{name}: {word}"))
        .collect();
    format!(
        "Request {} at {}: {}.",
        index + 1,
        time_label(req.at),
        parts.join("; ")
    )
}

#[component]
pub fn Inspector() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let body = move || {
        let Some(index) = lab.focus.selected.get() else {
            return view! {
                <p class="hint">"Click a mark on the timeline, or focus the timeline and use the arrow keys, to see how every limiter decided that request and what it answered."</p>
            }
            .into_any();
        };
        lab.run.with(|run| {
            let Some(req) = run.trace.requests().get(index).copied() else {
                return view! { <p class="hint">"That request is no longer in the trace."</p> }.into_any();
            };
            let key = run.trace.key_name(req.key).to_string();
            let lines = decision_lines(run, index);
            // A row run as several copies: which one decided this request, in every row.
            let copy = run
                .settings
                .deployment
                .placement::<super::Linked>(&run.trace)
                .copy_column(index, req.key)
                .map(|c| format!("; copy {c} of {}", run.settings.deployment.instances))
                .unwrap_or_default();
            view! {
                <h3 data-testid="inspector-title">{format!("Request {} at {} ({key}{copy})", index + 1, time_label(req.at))}</h3>
                <div class="responses">
                    {lines.into_iter().map(|(id, name, word, status, text)| {
                        let reply = reply_text(run, id, index);
                        let tries = tries_text(run, id, index);
                        let refused = status >= 400;
                        view! {
                        <div class="response" class:rejected=refused data-status=status.to_string()>
                            <div class="response-head"><strong>{name}</strong>" "<span>{word}</span></div>
                            <pre>{text}</pre>
                            {reply.map(|reply| view! { <pre class="reply" data-testid=format!("reply-{id}")>{reply}</pre> })}
                            {tries.map(|tries| view! { <p class="tries" data-testid=format!("tries-{id}")>{tries}</p> })}
                            {super::snippets::link_to_block(id)}
                        </div>
                    }.into_any()}).collect::<Vec<_>>()}
                </div>
            }
            .into_any()
        })
    };
    view! {
        <section class="inspector" aria-label="Inspector" data-testid="inspector">
            <h2>"Inspector"</h2>
            {body}
        </section>
    }
}
