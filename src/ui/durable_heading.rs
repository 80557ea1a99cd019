//! The Durable Object lab's place in the modules built without it (the first view's: the Cargo
//! feature `durable` off). The lab, its chart and its controls are about 30 KB gzip that the
//! default page never shows, so this section offers the lab's scenarios and its row and nothing
//! else: choosing one writes a link with `do=1`, and the page brings in the module that has
//! the lab (web/loader.js picks it from the link; docs/architecture.md, "Three modules").

use leptos::prelude::*;

use super::scenarios::{ScenarioButtons, LAB_INTRO, SHOW_ROW};
use super::state::Lab;

/// The lab section, as the first view's module shows it.
#[component]
pub fn DurableLab() -> impl IntoView {
    let lab = expect_context::<Lab>();
    view! {
        <section class="durable-lab" aria-label="Durable Object lab" data-testid="durable-lab">
            <h2>"Durable Object lab"</h2>
            <p class="hint">{LAB_INTRO}</p>
            <ScenarioButtons/>
            <label class="algo-toggle">
                <input type="checkbox" data-testid="do-toggle" prop:checked=false on:change=move |ev| {
                    if event_target_checked(&ev) {
                        lab.change(|s| s.durable.enabled = true);
                    }
                }/>
                {SHOW_ROW}
            </label>
        </section>
    }
}
