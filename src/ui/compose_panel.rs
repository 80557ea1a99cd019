//! "Compose traffic": segments of traffic (`core::compose`), each a row of fields edited in
//! place (how many, when, over how long, evenly or at random, key, region, route, cost), added
//! and removed, and the same segments as the text the link carries (`compose=`). A choice says
//! whether they replace the current traffic (the default: the link then says
//! `pattern=clicks&compose=...`) or are added to it. The state's `compose` is the one list both
//! forms read and write; each edit is read by the core (`compose::edit_segment`), and a refused
//! one shows its message beside its field and changes nothing. Only the complete module has the
//! panel (`super::workbench`); a link with segments runs in either module.

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
    use std::sync::Arc;

    use leptos::prelude::*;

    use crate::core::compose::{
        add_segment, edit_segment, parse_segments, segments_text, Segment, SegmentField, SPACINGS,
    };
    use crate::core::region::Region;
    use crate::core::traffic::{Pattern, DEFAULT_KEY};

    use super::super::state::Lab;
    use super::SUMMARY;

    /// What the segments do to the traffic the view had.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Mode {
        /// They are the whole traffic: the pattern becomes "My clicks", which has no requests
        /// of its own.
        Replace,
        /// They are added to the pattern's requests.
        Add,
    }

    /// Whether `pattern` is "My clicks" with nothing sent: the traffic is the segments alone.
    fn is_clicks(pattern: &Pattern) -> bool {
        pattern.slug() == "clicks"
    }

    /// A message beside a field: which row, which field, what is wrong.
    type FieldError = (usize, SegmentField, String);

    #[component]
    pub fn ComposePanel() -> impl IntoView {
        let lab = expect_context::<Lab>();
        let state = lab.state;
        let segments = Memo::new(move |_| state.with(|s| s.compose.clone()));
        let rows = Memo::new(move |_| segments.with(Vec::len));
        let mode = RwSignal::new(Mode::Replace);
        // The traffic "replace" set aside, which "add to it" brings back.
        let replaced = StoredValue::new(None::<Pattern>);
        let errors = RwSignal::new(Vec::<FieldError>::new());
        let add_error = RwSignal::new(None::<String>);
        let text_error = RwSignal::new(None::<String>);

        // The choice follows the view when it changes under it (a preset picked, Back): segments
        // beside a preset's requests are added to it; back to "My clicks" from there, they
        // replace it.
        let shape =
            Memo::new(move |_| state.with(|s| (!s.compose.is_empty(), is_clicks(&s.pattern))));
        Effect::new(move |before: Option<(bool, bool)>| {
            let now = shape.get();
            match now {
                (true, false) => mode.set(Mode::Add),
                (true, true) if before == Some((true, false)) => mode.set(Mode::Replace),
                _ => {}
            }
            now
        });
        // What was refused belongs to the segments it was typed against.
        Effect::new(move |_| {
            segments.track();
            errors.set(Vec::new());
            add_error.set(None);
            text_error.set(None);
        });

        // Puts `next` in force, a history entry; with "replace", the traffic is the segments
        // alone.
        let commit = move |next: Vec<Segment>| {
            let replace = mode.get_untracked() == Mode::Replace && !next.is_empty();
            let replaces = replace && state.with_untracked(|s| !is_clicks(&s.pattern));
            if replaces {
                lab.playback.playhead.set(None);
                lab.playback.playing.set(false);
            }
            lab.change_and_remember(move |s| {
                if replaces {
                    replaced.set_value(Some(s.pattern.clone()));
                    s.pattern = Pattern::Trace(Arc::default());
                }
                s.compose = next;
            });
        };
        let choose = move |chosen: Mode| {
            mode.set(chosen);
            let (any, clicks) = shape.get_untracked();
            if !any {
                return;
            }
            match chosen {
                Mode::Replace if !clicks => {
                    lab.playback.playhead.set(None);
                    lab.change_and_remember(|s| {
                        replaced.set_value(Some(s.pattern.clone()));
                        s.pattern = Pattern::Trace(Arc::default());
                    });
                }
                Mode::Add if clicks => {
                    if let Some(pattern) = replaced.get_value() {
                        lab.playback.playhead.set(None);
                        lab.change_and_remember(|s| s.pattern = pattern);
                    }
                }
                _ => {}
            }
        };
        let edit = move |row: usize, field: SegmentField, text: String| {
            let next = segments.with_untracked(|c| edit_segment(c, row, field, &text));
            errors.update(|e| e.retain(|(r, f, _)| (*r, *f) != (row, field)));
            match next {
                Ok(next) => commit(next),
                Err(message) => errors.update(|e| e.push((row, field, message))),
            }
        };
        let add = move |_| {
            let limit = state.with_untracked(|s| s.settings.limit);
            match segments.with_untracked(|c| add_segment(c, limit)) {
                Ok(next) => commit(next),
                Err(message) => add_error.set(Some(message)),
            }
        };
        let read_text = move |text: String| match parse_segments(&text) {
            Ok(next) => commit(next),
            Err(message) => text_error.set(Some(message)),
        };

        let value = move |row: usize, field: SegmentField| {
            move || segments.with(|c| c.get(row).map(|s| s.field_text(field)).unwrap_or_default())
        };
        let error_of = move |row: usize, field: SegmentField| {
            move || {
                errors.with(|e| {
                    e.iter()
                        .find(|(r, f, _)| (*r, *f) == (row, field))
                        .map(|(_, _, m)| m.clone())
                })
            }
        };
        // A field's message, beside it.
        let message = move |row: usize, field: SegmentField| {
            move || {
                error_of(row, field)().map(|m| {
                    view! {
                        <span class="compose-error" role="alert"
                            data-testid=format!("compose-{}-error", field.slug())>{m}</span>
                    }
                })
            }
        };
        // A choice of a select, chosen while the field's text is its value.
        let option = move |row: usize,
                           field: SegmentField,
                           slug: &'static str,
                           words: &'static str| {
            view! { <option value=slug prop:selected=move || value(row, field)() == slug>{words}</option> }
        };
        let input = move |row: usize,
                          field: SegmentField,
                          label: &'static str,
                          keys: &'static str,
                          placeholder: &'static str| {
            view! {
                <label class="compose-field">{label}" "
                    <input type="text" inputmode=keys placeholder=placeholder
                        data-testid=format!("compose-{}", field.slug())
                        aria-invalid=move || error_of(row, field)().is_some().then_some("true")
                        prop:value=value(row, field)
                        on:change=move |ev| edit(row, field, event_target_value(&ev))/>
                    {message(row, field)}
                </label>
            }
        };
        let row = move |row: usize| {
            let words =
                move || segments.with(|c| c.get(row).map(Segment::describe).unwrap_or_default());
            view! {
                <li data-testid="compose-segment" class="compose-segment">
                    <span class="compose-words">{words}</span>
                    <div class="compose-fields">
                        {input(row, SegmentField::Count, "How many", "numeric", "")}
                        {input(row, SegmentField::At, "at (s)", "decimal", "")}
                        {input(row, SegmentField::Over, "over (s, 0: at once)", "decimal", "")}
                        <label class="compose-field">"spaced "
                            <select data-testid="compose-spacing"
                                on:change=move |ev| edit(row, SegmentField::Spacing, event_target_value(&ev))>
                                {SPACINGS.iter().map(|&(slug, words)| option(row, SegmentField::Spacing, slug, words)).collect_view()}
                            </select>
                            {message(row, SegmentField::Spacing)}
                        </label>
                        {input(row, SegmentField::Key, "key", "text", DEFAULT_KEY)}
                        <label class="compose-field">"region "
                            <select data-testid="compose-region"
                                on:change=move |ev| edit(row, SegmentField::Region, event_target_value(&ev))>
                                {option(row, SegmentField::Region, "", "none")}
                                {Region::ALL.iter().map(|r| option(row, SegmentField::Region, r.code(), r.name())).collect_view()}
                            </select>
                            {message(row, SegmentField::Region)}
                        </label>
                        {input(row, SegmentField::Route, "route", "text", "GET /")}
                        {input(row, SegmentField::Cost, "cost", "numeric", "1")}
                        <button data-testid="compose-remove"
                            on:click=move |_| {
                                let mut next = segments.get_untracked();
                                if row < next.len() {
                                    next.remove(row);
                                    commit(next);
                                }
                            }>
                            "Remove"
                        </button>
                    </div>
                </li>
            }
        };
        let now = move || {
            state.with(|s| match (s.compose.is_empty(), is_clicks(&s.pattern)) {
                (true, _) => "No segments yet.".to_string(),
                (false, true) => "The segments are the whole traffic.".to_string(),
                (false, false) => format!(
                    "The segments are added to \u{201c}{}\u{201d}.",
                    s.pattern.label()
                ),
            })
        };

        view! {
            <details class="import compose" data-testid="compose-panel" open=super::super::workbench::asked_to_open("compose")>
                <summary>{SUMMARY}</summary>
                <p class="hint">"Traffic in segments: each is a number of requests at a moment, or spread over a time evenly or at random (Poisson), from a key, a region and a route of its own if you like."</p>
                <fieldset class="compose-mode">
                    <legend>"The segments"</legend>
                    <label><input type="radio" name="compose-mode" data-testid="compose-mode-replace"
                        prop:checked=move || mode.get() == Mode::Replace
                        on:change=move |_| choose(Mode::Replace)/>" replace the current traffic"</label>
                    <label><input type="radio" name="compose-mode" data-testid="compose-mode-add"
                        prop:checked=move || mode.get() == Mode::Add
                        on:change=move |_| choose(Mode::Add)/>" are added to it"</label>
                    <span class="hint" data-testid="compose-now">{now}</span>
                </fieldset>
                <ol class="compose-list" data-testid="compose-list">
                    <For each=move || 0..rows.get() key=|row| *row children=row/>
                </ol>
                <div class="import-row">
                    <button data-testid="compose-add" on:click=add>"Add a segment"</button>
                    {move || add_error.get().map(|m| view! { <span class="compose-error" role="alert" data-testid="compose-add-error">{m}</span> })}
                </div>
                <label class="compose-text">"As the link writes it "
                    <input type="text" data-testid="compose-text" placeholder="150@0;2/s@0-60"
                        aria-invalid=move || text_error.with(Option::is_some).then_some("true")
                        prop:value=move || segments.with(|c| segments_text(c))
                        on:change=move |ev| read_text(event_target_value(&ev))/>
                    {move || text_error.get().map(|m| view! { <span class="compose-error" role="alert" data-testid="compose-text-error">{m}</span> })}
                </label>
                <p class="hint">"Grammar: "<code>"N@T"</code>" (N requests at T s), "<code>"R/s@T1-T2"</code>" (R a second from T1 to T2), "<code>"~R/s@T1-T2"</code>" (at random), segments separated by "<code>";"</code>", each optionally followed by "<code>",key=…,region=…,route=…,cost=…"</code>"."</p>
            </details>
        }
    }
}
