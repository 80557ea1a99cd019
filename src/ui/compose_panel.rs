//! "Compose traffic": segments added to the view's traffic (`core::compose`), listed in words,
//! added with a button each, removed one by one, and editable as the text the link carries
//! (`compose=`). Only the complete module has the panel (`super::workbench`); a link with
//! segments runs in either module.

#[cfg(not(feature = "workbench"))]
use leptos::prelude::*;

#[cfg(feature = "workbench")]
pub use editing::ComposePanel;

const SUMMARY: &str = "Compose traffic";

/// The first module's panel: its heading, which opens the complete module.
#[cfg(not(feature = "workbench"))]
#[component]
pub fn ComposePanel() -> impl IntoView {
    view! { <super::workbench::InCompleteModule section="compose" summary=SUMMARY class="import compose" testid="compose-panel"/> }
}

#[cfg(feature = "workbench")]
mod editing {
    use leptos::prelude::*;

    use crate::core::compose::{segments_text, Segment, Shape};
    use crate::core::time::{Span, Time, MICROS_PER_SEC};

    use super::super::state::Lab;
    use super::SUMMARY;

    /// A segment of each shape to start from, scaled to the lab's limit and window: a burst of
    /// `limit` at 0, then `limit` per `window` for two windows, steadily or at random.
    fn starter(kind: &str, limit: u64, window: Span) -> Segment {
        let per_second_micro = u64::try_from(
            u128::from(limit) * u128::from(MICROS_PER_SEC) * u128::from(MICROS_PER_SEC)
                / u128::from(window.micros().max(1)),
        )
        .unwrap_or(u64::MAX)
        .max(1);
        let to = Time(window.micros().saturating_mul(2));
        let shape = match kind {
            "burst" => Shape::Burst {
                count: limit.min(1_000),
                at: Time::ZERO,
            },
            "steady" => Shape::Steady {
                per_second_micro,
                from: Time::ZERO,
                to,
            },
            _ => Shape::Poisson {
                per_second_micro,
                from: Time::ZERO,
                to,
            },
        };
        Segment {
            shape,
            key: None,
            region: None,
            route: None,
            cost: 1,
        }
    }

    #[component]
    pub fn ComposePanel() -> impl IntoView {
        let lab = expect_context::<Lab>();
        let state = lab.state;
        let add = move |kind: &'static str| {
            move |_| {
                let segment =
                    state.with_untracked(|s| starter(kind, s.settings.limit, s.settings.window));
                lab.change_and_remember(|s| s.compose.push(segment));
            }
        };
        let list = move || {
            state.with(|s| {
                s.compose
                    .iter()
                    .enumerate()
                    .map(|(i, segment)| {
                        view! {
                            <li data-testid="compose-segment">
                                <span>{segment.describe()}</span>" "
                                <button data-testid=format!("compose-remove-{i}")
                                    on:click=move |_| lab.change_and_remember(|s| { if i < s.compose.len() { s.compose.remove(i); } })>
                                    "Remove"
                                </button>
                            </li>
                        }
                    })
                    .collect_view()
            })
        };
        view! {
            <details class="import compose" data-testid="compose-panel" open=super::super::workbench::asked_to_open("compose")>
                <summary>{SUMMARY}</summary>
                <p class="hint">"Segments added to the traffic above, whatever it is: a burst, a steady rate, or random (Poisson) arrivals, each from a key, a region and a route of its own if you like."</p>
                <ul class="compose-list" data-testid="compose-list">{list}</ul>
                <div class="import-row">
                    <button data-testid="compose-add-burst" on:click=add("burst")>"Add a burst"</button>
                    <button data-testid="compose-add-steady" on:click=add("steady")>"Add a steady rate"</button>
                    <button data-testid="compose-add-poisson" on:click=add("poisson")>"Add random arrivals"</button>
                </div>
                <label class="compose-text">"As the link writes it "
                    <input type="text" data-testid="compose-text" placeholder="150@0;2/s@0-60"
                        prop:value=move || state.with(|s| segments_text(&s.compose))
                        on:change=move |ev| {
                            let text = event_target_value(&ev);
                            if text.trim().is_empty() {
                                lab.change_and_remember(|s| s.compose.clear());
                            } else {
                                lab.set_field("compose", &text);
                            }
                        }/>
                </label>
                <p class="hint">"Grammar: "<code>"N@T"</code>" (N requests at T s), "<code>"R/s@T1-T2"</code>" (R a second from T1 to T2), "<code>"~R/s@T1-T2"</code>" (at random), segments separated by "<code>";"</code>", each optionally followed by "<code>",key=…,region=…,route=…,cost=…"</code>"."</p>
            </details>
        }
    }
}
