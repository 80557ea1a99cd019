//! The seed documents' lessons about a central limiter (`core::scenarios`), each a view one click
//! away: the Durable Object lab lists them with their explanations (`super::durable_lab`), and the
//! first view's module, which has no Durable Object lab, lists the same buttons, each of which
//! brings in the module that has it (`super::durable_heading`), the person's own
//! traffic carried in the link.

use leptos::prelude::*;

use crate::core::scenarios::every_scenario;

use super::state::Lab;

/// The lab's first line and its row's checkbox, the same in every module (the first view's only
/// lists the scenarios and the checkbox: `super::durable_heading`).
pub const LAB_INTRO: &str = "The same requests through an emulated Durable Object: one object, far away, single-threaded, sometimes slow, evicted or unreachable.";
pub const SHOW_ROW: &str = "Show the Durable Object row";

/// One button per scenario: each replaces the view with the scenario's (the theme kept, and the
/// person's own traffic: `core::scenarios::Scenario::applied`), as a history entry.
#[component]
pub fn ScenarioButtons() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let buttons = every_scenario()
        .map(|sc| {
            view! {
                <button class="scenario" data-testid=format!("scenario-{}", sc.id) on:click=move |_| {
                    let next = lab.state.with_untracked(|now| sc.applied(now));
                    lab.playback.playhead.set(None);
                    lab.change_and_remember(|s| *s = next);
                    lab.page.active_scenario.set(Some(sc.id));
                }>{sc.title}</button>
            }
        })
        .collect_view();
    view! { <div class="scenarios" role="group" aria-label="Scenarios">{buttons}</div> }
}
