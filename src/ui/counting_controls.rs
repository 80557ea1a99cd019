//! The controls of the rules every row runs under: how many copies of each row the traffic is
//! spread over, a second limit, where the fixed window's windows start, whether refused
//! requests count, and whether refused clients wait as told and retry.
//! Each control sets its link field through `Lab::set_field`, so the page and a link read the
//! same text with the same checks.
//!
//! Only the complete module has these controls (`super::workbench`).

use leptos::prelude::*;

#[cfg(feature = "workbench")]
use crate::core::algorithms::fixed_window::Alignment;
#[cfg(feature = "workbench")]
use crate::core::deployment::Spread;
#[cfg(feature = "workbench")]
use crate::core::second_limit::{SecondKey, Spend};
#[cfg(feature = "workbench")]
use crate::core::time::format_seconds;

#[cfg(feature = "workbench")]
use crate::core::url::fields::{INSTANCES_CONTROL, RETRIES_CONTROL};

#[cfg(feature = "workbench")]
use super::controls::NumberBox;
#[cfg(feature = "workbench")]
use super::state::Lab;

const SUMMARY: &str =
    "Copies of each row, a second limit, what a window counts, and clients that retry";

/// The first module's section: opening it asks for the complete module.
#[cfg(not(feature = "workbench"))]
#[component]
pub fn CountingControls() -> impl IntoView {
    view! {
        <section class="counting" aria-label="Copies and counting">
            <super::workbench::InCompleteModule section="counting" summary=SUMMARY class="control-group tuning" testid="counting-controls"/>
        </section>
    }
}

/// The complete module's section, open at once when the first module brought this one to open it.
#[cfg(feature = "workbench")]
#[component]
pub fn CountingControls() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let state = lab.state;
    let deployment = move || state.with(|s| s.settings.deployment);
    let asked = super::workbench::asked_to_open("counting");
    view! {
        <section class="counting" aria-label="Copies and counting">
        <details class="control-group tuning" data-testid="counting-controls" open=asked>
            <summary>{SUMMARY}</summary>
            <div class="counting-row">
                <span class="slider-label">{INSTANCES_CONTROL.label}</span>
                <NumberBox control=&INSTANCES_CONTROL/>
                <label>"spread "
                    <select data-testid="spread" prop:value=move || deployment().spread.slug()
                        on:change=move |ev| lab.set_field("spread", &event_target_value(&ev))>
                        {Spread::ALL.into_iter().map(|spread| view! {
                            <option value=spread.slug()>{spread_label(spread)}</option>
                        }).collect_view()}
                    </select>
                </label>
            </div>
            <p class="hint">"Each copy keeps its own state, as limiters kept in each process, isolate or location do; the busiest window counts a key across all of them."</p>
            <div class="counting-row">
                <label class="number-field">
                    <span class="slider-label">"Second limit"</span>
                    <input type="text" data-testid="also-input" placeholder="none, e.g. 2/1"
                        aria-label="Second limit, count per seconds"
                        prop:value=move || state.with(|s| s.settings.also.map(|a| format!("{}/{}", a.count, format_seconds(a.window.micros()))).unwrap_or_default())
                        on:change=move |ev| {
                            let text = event_target_value(&ev);
                            if text.trim().is_empty() {
                                lab.change(|s| s.settings.also = None);
                            } else {
                                lab.set_field("also", &text);
                            }
                        }/>
                    <span class="number-unit">"count / seconds"</span>
                </label>
                <label>"on "
                    <select data-testid="also-key" prop:disabled=move || state.with(|s| s.settings.also.is_none())
                        prop:value=move || state.with(|s| s.settings.also.map_or(SecondKey::Same, |a| a.key).slug())
                        on:change=move |ev| lab.set_field("also-key", &event_target_value(&ev))>
                        <option value=SecondKey::Same.slug()>"the same key"</option>
                        <option value=SecondKey::Prefix.slug()>"the key's prefix (before its last colon)"</option>
                    </select>
                </label>
                <label>"spending "
                    <select data-testid="spend" prop:disabled=move || state.with(|s| s.settings.also.is_none())
                        prop:value=move || state.with(|s| s.settings.also.map_or(Spend::All, |a| a.spend).slug())
                        on:change=move |ev| lab.set_field("spend", &event_target_value(&ev))>
                        <option value=Spend::All.slug()>"one after the other"</option>
                        <option value=Spend::Passed.slug()>"only when both pass"</option>
                    </select>
                </label>
            </div>
            <div class="counting-row">
                <label>"Fixed window starts "
                    <select data-testid="fixed-align"
                        prop:value=move || state.with(|s| s.settings.fixed_align.slug())
                        on:change=move |ev| lab.set_field("fixed-align", &event_target_value(&ev))>
                        {Alignment::ALL.into_iter().map(|a| view! {
                            <option value=a.slug()>{match a { Alignment::Clock => "on the clock", Alignment::FirstRequest => "at a key's first request" }}</option>
                        }).collect_view()}
                    </select>
                </label>
            </div>
            <div class="counting-row">
                <label>
                    <input type="checkbox" data-testid="count-refused"
                        prop:checked=move || state.with(|s| s.settings.count_refused)
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            lab.set_field("count-refused", if on { "1" } else { "0" });
                        }/>
                    " Refused requests count (fixed window, sliding log, sliding-window counter)"
                </label>
            </div>
            <div class="counting-row">
                <label>"Clients "
                    <select data-testid="clients"
                        prop:value=move || state.with(|s| s.settings.clients.slug())
                        on:change=move |ev| lab.set_field("clients", &event_target_value(&ev))>
                        <option value="ignore">"send every request at its time"</option>
                        <option value="obey">"obey: wait as told, then retry"</option>
                    </select>
                </label>
                <Show when=move || state.with(|s| s.settings.clients.obey)>
                    <NumberBox control=&RETRIES_CONTROL/>
                </Show>
            </div>
            <p class="hint">"An obeying client waits what its row's refusal tells it (Retry-After, or the library's own finer hint) and tries again; each row then has traffic of its own, its retries drawn under its line."</p>
        </details>
        </section>
    }
}

#[cfg(feature = "workbench")]
fn spread_label(spread: Spread) -> &'static str {
    match spread {
        Spread::RoundRobin => "in turn (round-robin)",
        Spread::Random => "at random (seeded)",
        Spread::Key => "by key (sticky)",
    }
}
