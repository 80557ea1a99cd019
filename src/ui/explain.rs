//! Short explanations beside the rows, with the numbers the page is showing: what each
//! algorithm promises, what it costs in memory per key, and when to use it. The words are the
//! core's (`core::explanation`, from each row's descriptor); this only renders them.

use leptos::prelude::*;

use crate::core::explanation::explain;
use crate::core::profiles::Explanation;
use crate::core::row_notes::row_notes;

use super::state::Lab;

#[component]
pub fn Explanations() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let cards = move || {
        lab.run.with(|run| {
            let mut cards: Vec<AnyView> = run
                .runs
                .iter()
                .map(|r| {
                    let Explanation { what, memory, when } = explain::<super::Linked>(run, r.algorithm);
                    let notes = row_notes::<super::Linked>(r, &run.settings);
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
