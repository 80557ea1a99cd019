//! Controls: traffic presets, the declared sliders and number boxes (`core::control`, each
//! declared beside its link field and drawn by [`ControlRow`]), algorithm toggles, playback, "Send a request", the theme, and the
//! share and embed links. Each change goes through `Lab::change`, so the URL always holds the
//! state.

use leptos::ev;
use leptos::prelude::*;

use crate::core::embed::Control;
use crate::core::limiter::Algorithm;
#[cfg(feature = "products")]
use crate::core::limiter::{field_text, without_field};
#[cfg(feature = "products")]
use crate::core::profiles::{Family, Tunable};
use crate::core::theme::Theme;
use crate::core::time::{Span, Time};
use crate::core::traffic::{Pattern, Point, DEFAULT_KEY};

use super::state::Lab;
use crate::core::control::{NumberControl, SliderControl};
use crate::core::url::fields::{
    GCRA_CONTROLS, LEAKY_BUCKET_CONTROLS, LIMIT_CONTROL, TOKEN_BUCKET_CONTROLS, WINDOW_CONTROL,
};
use crate::layout::timeline::{moving_playhead_label, time_label};

/// A declared control (`core::control`): its slider with the value in words, when it has
/// one, and its number box, side by side. A slider's move goes through `Lab::change` (the
/// address bar is rewritten in place); the box's text through its link field's own reading.
#[component]
pub fn ControlRow(control: &'static NumberControl) -> impl IntoView {
    view! {
        <div class="scaled">
            {control.slider.as_ref().map(|slider| slider_view(control.field, slider))}
            <NumberBox control=control/>
        </div>
    }
}

/// A labelled range slider over whole positions (no rounding of the input's value), with its
/// value in words: `data-testid` `<field>-slider` and `<field>-value`.
fn slider_view(field: &'static str, slider: &'static SliderControl) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let state = lab.state;
    let shown = move || state.with(|s| (slider.shown)(s));
    let id = format!("slider-{field}");
    view! {
        <div class="slider">
            <label for=id.clone()>
                <span class="slider-label">{slider.label}</span>
                <output class="slider-value" data-testid=format!("{field}-value")>{shown}</output>
            </label>
            <input
                id=id
                type="range"
                min=0
                max=slider.max
                step=1
                data-testid=format!("{field}-slider")
                prop:value=move || state.with(|s| (slider.position)(s)).to_string()
                aria-valuetext=shown
                on:input=move |ev| {
                    if let Ok(position) = event_target_value(&ev).parse::<i64>() {
                        lab.change(|s| (slider.set)(s, position));
                    }
                }
            />
        </div>
    }
}

/// A declared control's number box (`<field>-number`), in the units shown beside it: set when
/// the person leaves the box or presses Enter, with the link's own checks and messages.
#[component]
pub fn NumberBox(control: &'static NumberControl) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let field = control.field;
    view! {
        <label class="number-field">
            <input type="text" inputmode="decimal" aria-label=control.label data-testid=format!("{field}-number")
                prop:value=move || lab.state.with(|s| (control.text)(s))
                on:change=move |ev| lab.set_field(field, &event_target_value(&ev))/>
            <span class="number-unit">{control.unit}</span>
        </label>
    }
}

/// One product parameter under its product's own name for it, typed as the link writes it
/// (`nginx-rate` takes `10r/s`): set when the person leaves the box or presses Enter, with the
/// link's own checks and messages; emptied, the parameter follows the lab's limit and window
/// again. Beside the box, the value the product runs with, and whether it follows the lab.
#[cfg(feature = "products")]
#[component]
fn ProductField(tunable: &'static Tunable) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let field = tunable.field.name;
    let value = move || {
        lab.state
            .with(|s| field_text(&s.settings.products, field))
            .unwrap_or_default()
    };
    let in_force = move || {
        lab.state.with(|s| {
            let value = (tunable.in_force)(&s.settings.row_settings());
            match field_text(&s.settings.products, field) {
                Some(_) => format!("in force: {value}"),
                None => format!("in force: {value}, following the lab"),
            }
        })
    };
    view! {
        <label class="number-field product-field">
            <span class="product-field-name">{tunable.label}</span>
            <input type="text" data-testid=format!("{field}-input") placeholder="follows the lab"
                prop:value=value on:change=move |ev| {
                    let text = event_target_value(&ev);
                    if text.trim().is_empty() {
                        lab.change(|s| s.settings.products = without_field(&s.settings.products, field));
                    } else {
                        lab.set_field(field, &text);
                    }
                }/>
            <span class="product-field-in-force" data-testid=format!("{field}-in-force")>{in_force}</span>
        </label>
    }
}

/// The parameters of each product family with a row in the view, under its name. Only the
/// complete module shows product rows, so only it has these fields.
#[cfg(feature = "products")]
fn product_fields(algorithms: &[Algorithm]) -> impl IntoView {
    let mut families: Vec<Family> = Vec::new();
    for family in algorithms.iter().filter_map(|a| a.family()) {
        if !families.iter().any(|f| f.prefix == family.prefix) {
            families.push(family);
        }
    }
    families
        .into_iter()
        .map(|family| {
            view! {
                <fieldset class="product-fields" data-testid=format!("fields-{}", family.prefix.trim_end_matches('-'))>
                    <legend>{family.name}</legend>
                    {family.fields.iter().map(|tunable| view! { <ProductField tunable/> }).collect_view()}
                </fieldset>
            }
        })
        .collect_view()
}

/// Starts playback from the playhead (or the start), or shows everything at once when the
/// person prefers reduced motion.
pub fn play(lab: Lab) {
    if super::prefers_reduced_motion() {
        lab.playback.playing.set(false);
        lab.playback.playhead.set(None);
        return;
    }
    let (horizon, start_of_story) = lab.run.with_untracked(|r| (r.horizon, r.playback_start()));
    let start = match lab.playback.playhead.get_untracked() {
        Some(t) if t < horizon => t,
        _ => start_of_story,
    };
    lab.playback.playhead.set(Some(start));
    lab.playback.playing.set(true);
    tick(lab, super::perf_now());
}

fn tick(lab: Lab, last: f64) {
    super::next_frame(move || {
        if !lab.playback.playing.get_untracked() {
            return;
        }
        let now = super::perf_now();
        let dt_ms = (now - last).clamp(0.0, 100.0);
        let horizon = lab.run.with_untracked(|r| r.horizon);
        let at = lab.playback.playhead.get_untracked().unwrap_or(Time::ZERO);
        let advance = (dt_ms * 1_000.0 * lab.playback.speed.get_untracked()).max(0.0) as u64;
        let next = at.plus(Span(advance));
        if next >= horizon {
            lab.playback.playhead.set(Some(horizon));
            lab.playback.playing.set(false);
            return;
        }
        lab.playback.playhead.set(Some(next));
        tick(lab, now);
    });
}

/// Moves the playhead to the next request and selects it.
pub fn step(lab: Lab) {
    lab.playback.playing.set(false);
    let at = lab.playback.playhead.get_untracked();
    let selected = lab.focus.selected.get_untracked();
    let next = lab.run.with_untracked(|r| {
        let requests = r.trace.requests();
        // Request by request, so simultaneous requests are each shown; they are in time order.
        let from = match (selected, at) {
            (Some(i), Some(t)) if requests.get(i).is_some_and(|q| q.at == t) => i + 1,
            _ => requests
                .iter()
                .position(|q| at.is_none_or(|t| q.at > t))
                .unwrap_or(requests.len()),
        };
        requests.get(from).map(|q| (from, q.at))
    });
    match next {
        Some((i, t)) => {
            lab.playback.playhead.set(Some(t));
            lab.focus.selected.set(Some(i));
        }
        None => lab
            .playback
            .playhead
            .set(Some(lab.run.with_untracked(|r| r.horizon))),
    }
}

/// Takes playback back to where it starts: a second before the first request.
pub fn reset(lab: Lab) {
    lab.playback.playing.set(false);
    let start = lab.run.with_untracked(|r| r.playback_start());
    lab.playback.playhead.set(Some(start));
    lab.focus.selected.set(None);
}

/// The most keys offered in the "Send a request for" menu.
const MAX_SEND_KEYS: usize = 200;

/// The keys the "Send a request for" menu offers, and the one chosen: the trace's first keys
/// and the chosen one (a menu of ten thousand keys helps nobody and costs a long rebuild).
fn send_keys(trace_keys: &[String], chosen: Option<String>) -> (Vec<String>, String) {
    let mut keys: Vec<String> = trace_keys.iter().take(MAX_SEND_KEYS).cloned().collect();
    if keys.is_empty() {
        keys.push(DEFAULT_KEY.to_string());
    }
    let chosen = chosen.unwrap_or_else(|| keys[0].clone());
    if !keys.contains(&chosen) {
        keys.push(chosen.clone());
    }
    (keys, chosen)
}

/// Adds a request at the playhead (or just after the last one) for the chosen key.
pub fn send_request(lab: Lab) {
    let (points, first_key, end, window, limit) = lab.run.with_untracked(|r| {
        (
            Pattern::to_keyed(&r.trace),
            r.trace
                .keys()
                .first()
                .cloned()
                .unwrap_or_else(|| DEFAULT_KEY.to_string()),
            r.trace.end(),
            r.settings.window,
            r.settings.limit,
        )
    });
    let key = lab.focus.send_key.get_untracked().unwrap_or(first_key);
    let mut points = match points {
        Pattern::Keyed(points) => std::sync::Arc::unwrap_or_clone(points),
        Pattern::Trace(times) => std::sync::Arc::unwrap_or_clone(times)
            .into_iter()
            .map(|t| Point::new(t, DEFAULT_KEY))
            .collect(),
        _ => Vec::new(),
    };
    let at = lab.playback.playhead.get_untracked().unwrap_or_else(|| {
        if points.is_empty() {
            Time::ZERO
        } else {
            end.plus(Span(window.micros() / limit.max(1) / 2))
        }
    });
    points.push(Point::new(at, key.clone()));
    // The run's requests already hold the composed segments' (`LabState::traffic`), so they
    // become part of the person's list.
    lab.change(|s| {
        s.pattern = Pattern::from_points(points);
        s.compose.clear();
    });
    let index = lab.run.with_untracked(|r| {
        r.trace
            .requests()
            .iter()
            .rposition(|q| q.at == at && r.trace.key_name(q.key) == key)
    });
    lab.focus.selected.set(index);
}

/// Every control, in the side column.
#[component]
pub fn Controls() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let state = lab.state;

    let algos = move |a: Algorithm| state.with(|s| s.algorithms.contains(&a));

    let presets = move || {
        let seed = state.with(|s| s.durable.seed);
        let current = state.with(|s| s.pattern.slug());
        let mut options: Vec<(String, String)> = Pattern::presets(seed)
            .iter()
            .map(|p| (p.slug().to_string(), p.label().to_string()))
            .collect();
        if current == "trace" {
            options.push(("trace".into(), "Your own request times".into()));
        }
        options
            .into_iter()
            .map(|(slug, label)| {
                let selected = slug == current;
                view! { <option value=slug selected=selected>{label}</option> }.into_any()
            })
            .collect::<Vec<_>>()
    };
    let on_preset = move |ev: ev::Event| {
        let slug = event_target_value(&ev);
        let seed = state.with_untracked(|s| s.durable.seed);
        if let Some(p) = Pattern::presets(seed)
            .into_iter()
            .find(|p| p.slug() == slug)
        {
            lab.playback.playhead.set(None);
            lab.playback.playing.set(false);
            lab.change_and_remember(|s| s.pattern = p);
        }
    };

    let toggle = move |a: Algorithm| {
        move |ev: ev::Event| {
            let on = event_target_checked(&ev);
            let remaining = state.with_untracked(|s| s.algorithms.len());
            if !on && remaining == 1 {
                lab.notice("At least one algorithm stays on.".into());
                lab.state.update(|_| {}); // re-render the box as ticked
                return;
            }
            lab.change(|s| {
                if on {
                    s.algorithms.push(a);
                    s.algorithms = Algorithm::in_row_order(&s.algorithms);
                } else {
                    s.algorithms.retain(|&x| x != a);
                }
            });
        }
    };

    let tuning_opened = RwSignal::new(false);
    let products_opened = RwSignal::new(state.with_untracked(|s| s.has_product_row()));
    let row_toggle = move |a: Algorithm| {
        view! {
            <label class="algo-toggle">
                <input type="checkbox" data-testid=format!("toggle-{}", a.slug()) prop:checked=move || algos(a) on:change=toggle(a)/>
                {a.label()}
            </label>
        }
    };
    // An embed builds only the controls its link names: the others would never be shown.
    let shows = move |control: Control| state.with_untracked(|s| s.shows(control));
    let playing = lab.playback.playing;
    // Percent of real time, in whole numbers, so an option's value matches the speed exactly.
    let speed_options: [(u32, &str); 5] = [
        (50, "0.5×"),
        (100, "1×"),
        (200, "2×"),
        (500, "5×"),
        (1000, "10×"),
    ];

    let shortcut = window_event_listener(ev::keydown, move |ev: web_sys::KeyboardEvent| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let typing = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .map(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"))
            .unwrap_or(false);
        if !typing && (ev.key() == "s" || ev.key() == "S") {
            ev.prevent_default();
            send_request(lab);
        }
    });
    on_cleanup(move || shortcut.remove());

    view! {
        <section class="controls" aria-label="Controls">
            {shows(Control::Preset).then(|| view! {
                <div class="control-group">
                    <label for="preset" class="group-label">"Traffic"</label>
                    <select id="preset" data-testid="pattern-select" on:change=on_preset>{presets}</select>
                </div>
            })}

            {shows(Control::Play).then(|| view! {
                <div class="control-group playback" role="group" aria-label="Playback">
                    <button
                        data-testid="play"
                        aria-pressed=move || playing.get().to_string()
                        on:click=move |_| if playing.get_untracked() { playing.set(false) } else { play(lab) }
                    >
                        // Both words laid out in one cell, the one not in force hidden (by the
                        // button's `aria-pressed`), so the button keeps its width and the row its
                        // line.
                        <span class="play-words">
                            <span class="when-stopped">"▶ Play"</span>
                            <span class="when-playing">"❚❚ Pause"</span>
                        </span>
                    </button>
                    <button data-testid="step" on:click=move |_| step(lab)>"Step"</button>
                    <button data-testid="reset" title="Rewind playback to the start; the settings and the traffic stay" on:click=move |_| reset(lab)>"Rewind"</button>
                    <label class="speed">"Speed "
                        <select data-testid="speed" prop:value=move || ((lab.playback.speed.get() * 100.0).round() as u32).to_string() on:change=move |ev| {
                            if let Ok(pct) = event_target_value(&ev).parse::<u32>() { lab.playback.speed.set(f64::from(pct) / 100.0) }
                        }>
                            {speed_options.into_iter().map(|(pct, name)| view! {
                                <option value=pct.to_string() selected=(lab.playback.speed.get_untracked() * 100.0).round() as u32 == pct>{name}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    // Moving, at the axis's precision; stopped (a step lands on a request), exact.
                    <span class="playhead-time" data-testid="playhead">{move || match lab.playback.playhead.get() {
                        Some(t) if playing.get() => format!("at {}", moving_playhead_label(t, lab.playback.axis_step.get())),
                        Some(t) => format!("at {}", time_label(t)),
                        None => "whole timeline".to_string(),
                    }}</span>
                </div>
            })}

            {shows(Control::Send).then(|| view! {
                <div class="control-group send-group">
                    <button class="send" data-testid="send" aria-keyshortcuts="S" on:click=move |_| send_request(lab)>
                        "Send a request " <kbd>"S"</kbd>
                    </button>
                    <label class="send-key">"for "
                        <select data-testid="send-key" on:change=move |ev| lab.focus.send_key.set(Some(event_target_value(&ev)))>
                            {move || {
                                let (keys, chosen) = lab.run.with(|r| send_keys(r.trace.keys(), lab.focus.send_key.get()));
                                keys.into_iter().map(|k| {
                                    let selected = k == chosen;
                                    view! { <option value=k.clone() selected=selected>{k.clone()}</option> }.into_any()
                                }).collect::<Vec<_>>()
                            }}
                        </select>
                    </label>
                </div>
            })}

            {shows(Control::Limit).then(|| view! { <ControlRow control=&LIMIT_CONTROL/> })}
            {shows(Control::Window).then(|| view! { <ControlRow control=&WINDOW_CONTROL/> })}

            {shows(Control::Algos).then(|| view! {
                <fieldset class="control-group algos">
                    <legend class="group-label">"Algorithms, then products (exact profiles)"</legend>
                    {Algorithm::CORE.into_iter().map(row_toggle).collect_view()}
                    // The products' boxes are built the first time their list is opened, which
                    // a view with a product row does at once.
                    <details class="products" open=products_opened.get_untracked() on:toggle=move |ev: leptos::ev::Event| {
                        if event_target::<web_sys::HtmlDetailsElement>(&ev).open() { products_opened.set(true) }
                    }>
                        <summary data-testid="products-toggle">{format!("Products ({})", Algorithm::ALL.into_iter().filter(|a| a.is_product()).count())}</summary>
                        <div class="products-list">
                            {move || products_opened.get().then(|| {
                                Algorithm::ALL.into_iter().filter(|a| a.is_product()).map(row_toggle).collect_view()
                            })}
                        </div>
                    </details>
                </fieldset>
            })}

            {shows(Control::Tuning).then(|| view! {
                <details class="control-group tuning" on:toggle=move |ev: leptos::ev::Event| {
                    if event_target::<web_sys::HtmlDetailsElement>(&ev).open() { tuning_opened.set(true) }
                }>
                    <summary>"Tune single algorithms and products"</summary>
                    // Built the first time it is opened: closed, as every view starts, its eight
                    // controls are work the first paint does not need.
                    {move || tuning_opened.get().then(|| view! { <TuningFields/> })}
                </details>
            })}

        </section>
    }
}

/// The knobs of single algorithms and, in the complete module, of the product rows shown, each
/// under its row's name.
#[component]
fn TuningFields() -> impl IntoView {
    let rows = |controls: &'static [NumberControl]| {
        controls
            .iter()
            .map(|control| view! { <ControlRow control=control/> })
            .collect_view()
    };
    view! {
        // Each algorithm's knobs under its name: the refill rate is the token bucket's
        // and GCRA's emission rate both, as the core uses it.
        <fieldset class="product-fields" data-testid="tune-token-bucket">
            <legend>"Token bucket (its refill rate is GCRA's rate too)"</legend>
            {rows(TOKEN_BUCKET_CONTROLS)}
        </fieldset>
        <fieldset class="product-fields" data-testid="tune-gcra">
            <legend>"GCRA"</legend>
            {rows(GCRA_CONTROLS)}
        </fieldset>
        <fieldset class="product-fields" data-testid="tune-leaky-bucket">
            <legend>"Leaky bucket"</legend>
            {rows(LEAKY_BUCKET_CONTROLS)}
        </fieldset>
        {#[cfg(feature = "products")]
        {
            let state = expect_context::<Lab>().state;
            move || state.with(|s| product_fields(&s.algorithms))
        }}
    }
}

/// The colour theme: follow the system, or force light or dark (kept in the URL).
#[component]
pub fn ThemePicker() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let state = lab.state;
    view! {
        <label class="theme-picker">"Theme "
            <select data-testid="theme" prop:value=move || state.with(|s| s.theme.slug()) on:change=move |ev| {
                let theme = match event_target_value(&ev).as_str() { "light" => Theme::Light, "dark" => Theme::Dark, _ => Theme::Auto };
                lab.set_theme(theme);
            }>
                {[Theme::Auto, Theme::Light, Theme::Dark].into_iter().map(|t| view! {
                    <option value=t.slug() selected=state.with_untracked(|s| s.theme == t)>{match t { Theme::Auto => "system", Theme::Light => "light", Theme::Dark => "dark" }}</option>
                }).collect_view()}
            </select>
        </label>
    }
}

/// The share link, the downloads and the iframe snippet for the current view.
#[component]
pub fn ShareEmbed() -> impl IntoView {
    let lab = expect_context::<Lab>();
    // A trace too long for a link and kept nowhere has no link: the boxes stay empty rather
    // than offer one that opens other traffic.
    let reopens = move || lab.state.with(crate::core::url::reopens);
    let link = move || match reopens() {
        true => super::url_for(&lab.query()),
        false => String::new(),
    };
    let embed_link = move || {
        let q = lab.query();
        super::url_for(&if q.is_empty() {
            "embed=1".to_string()
        } else {
            format!("{q}&embed=1")
        })
    };
    let snippet = move || {
        if !reopens() {
            return String::new();
        }
        let (timelines_px, controls, caption) = lab.run.with(|run| {
            let (view, lanes) = lab.state.with(|s| (s.view, s.lanes));
            // At a phone's width, where everything is tallest: the labels above the rows.
            let timelines =
                crate::layout::timeline::Layout::viewed::<super::Linked>(run, 0.0, view, lanes)
                    .with_labels_above()
                    .height_with_tools(run.trace.keys().len());
            lab.state
                .with(|s| (timelines, s.controls.clone(), s.caption.chars().count()))
        });
        let products_listed = lab.state.with(|s| s.has_product_row());
        crate::core::embed::snippet(
            &embed_link(),
            &super::site_file("embed.js"),
            crate::core::embed::suggested_height(
                timelines_px,
                &controls,
                products_listed,
                caption,
                super::questions::open_question_chars(lab),
            ),
        )
    };
    // The first view's module brought this one in to draw the charts' picture: it
    // is downloaded once the charts below the first view are drawn too.
    #[cfg(feature = "workbench")]
    if super::workbench::asked_to_open(super::workbench::DOWNLOAD_PNG) {
        super::next_frame(move || {
            super::soon(move || super::export::failed(super::export_png::download_png(lab)))
        });
    }
    let copied = RwSignal::new(false);
    let copy = move |_| {
        if let (Some(w), true) = (web_sys::window(), reopens()) {
            let _ = w.navigator().clipboard().write_text(&link());
            copied.set(true);
        }
    };
    view! {
        <section class="share" aria-label="Share and embed">
            <div class="share-row">
                <label for="share-link">"Link to this view"</label>
                <input id="share-link" readonly data-testid="share-link" prop:value=link placeholder="No link opens this trace: it is kept nowhere (see the message above)"/>
                <button data-testid="copy-link" on:click=copy>{move || if copied.get() { "Copied" } else { "Copy link" }}</button>
            </div>
            <div class="share-row">
                <span>"Download"</span>
                <button data-testid="export-csv" on:click=move |_| super::export::download_csv(lab, lab.run.get_untracked())>"Every decision (CSV)"</button>
                <button data-testid="export-png" on:click=move |_| super::export::failed(super::export_png::download_png(lab))>"The charts (PNG)"</button>
            </div>
            <details>
                <summary>"Embed this view in your documentation"</summary>
                <textarea readonly rows="3" data-testid="embed-snippet" prop:value=snippet></textarea>
            </details>
        </section>
    }
}
