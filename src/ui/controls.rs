//! Controls: traffic presets, sliders with their values and units, algorithm toggles, playback,
//! "Send a request", the theme, and the share and embed links. Each change goes through
//! `Lab::change`, so the URL always holds the state.

use leptos::ev;
use leptos::prelude::*;

use crate::core::config::Rate;
use crate::core::limiter::{Algorithm, LeakDelay};
use crate::core::time::{format_seconds, Span, Time, MICROS_PER_SEC};
use crate::core::traffic::Pattern;
use crate::core::url_state::Theme;

use super::draw::time_label;
use super::state::Lab;

/// A labelled range slider that shows its value and unit.
///
/// - `label`: what it sets, e.g. "Limit".
/// - `testid`: `data-testid` of the range input (`<testid>-slider`) and its value (`<testid>-value`).
/// - `min`, `max`, `step`: the range, in the unit shown.
/// - `value`: the current value; `shown`: how the value is written next to the slider.
/// - `on_change`: called with each new value as the thumb moves.
#[component]
fn Slider(
    label: &'static str,
    testid: &'static str,
    min: f64,
    max: f64,
    step: f64,
    #[prop(into)] value: Signal<f64>,
    #[prop(into)] shown: Signal<String>,
    on_change: Callback<f64>,
) -> impl IntoView {
    let id = format!("slider-{testid}");
    view! {
        <div class="slider">
            <label for=id.clone()>
                <span class="slider-label">{label}</span>
                <output class="slider-value" data-testid=format!("{testid}-value")>{shown}</output>
            </label>
            <input
                id=id
                type="range"
                min=min
                max=max
                step=step
                data-testid=format!("{testid}-slider")
                prop:value=move || value.get().to_string()
                aria-valuetext=shown
                on:input=move |ev| {
                    if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                        on_change.run(v);
                    }
                }
            />
        </div>
    }
}

fn seconds_text(span: Span) -> String {
    format!("{} s", format_seconds(span.micros()))
}

fn rate_from_per_second(v: f64) -> Option<Rate> {
    Rate::parse_per_second(&format!("{v:.3}")).ok()
}

/// Starts playback from the playhead (or the start), or shows everything at once when the
/// person prefers reduced motion.
pub fn play(lab: Lab) {
    if super::prefers_reduced_motion() {
        lab.playing.set(false);
        lab.playhead.set(None);
        return;
    }
    let horizon = lab.run.with_untracked(|r| r.horizon);
    let start = match lab.playhead.get_untracked() {
        Some(t) if t < horizon => t,
        _ => Time::ZERO,
    };
    lab.playhead.set(Some(start));
    lab.playing.set(true);
    tick(lab, super::perf_now());
}

fn tick(lab: Lab, last: f64) {
    super::next_frame(move || {
        if !lab.playing.get_untracked() {
            return;
        }
        let now = super::perf_now();
        let dt_ms = (now - last).clamp(0.0, 100.0);
        let horizon = lab.run.with_untracked(|r| r.horizon);
        let at = lab.playhead.get_untracked().unwrap_or(Time::ZERO);
        let advance = (dt_ms * 1_000.0 * lab.speed.get_untracked()).max(0.0) as u64;
        let next = at.plus(Span(advance));
        if next >= horizon {
            lab.playhead.set(Some(horizon));
            lab.playing.set(false);
            return;
        }
        lab.playhead.set(Some(next));
        tick(lab, now);
    });
}

/// Moves the playhead to the next request and selects it.
pub fn step(lab: Lab) {
    lab.playing.set(false);
    let at = lab.playhead.get_untracked();
    let next = lab.run.with_untracked(|r| {
        r.trace.requests().iter().enumerate().find(|(_, req)| at.is_none_or(|t| req.at > t)).map(|(i, req)| (i, req.at))
    });
    match next {
        Some((i, t)) => {
            lab.playhead.set(Some(t));
            lab.selected.set(Some(i));
        }
        None => lab.playhead.set(Some(lab.run.with_untracked(|r| r.horizon))),
    }
}

pub fn reset(lab: Lab) {
    lab.playing.set(false);
    lab.playhead.set(Some(Time::ZERO));
    lab.selected.set(None);
}

/// Adds a request at the playhead (or just after the last one) to a single-key trace.
pub fn send_request(lab: Lab) {
    let (single_key, times, end, window, limit) = lab.run.with_untracked(|r| {
        (
            r.trace.keys().len() <= 1,
            r.trace.requests().iter().map(|q| q.at).collect::<Vec<_>>(),
            r.trace.end(),
            r.settings.window,
            r.settings.limit,
        )
    });
    if !single_key {
        lab.notices.update(|n| n.push("Sending a request works on single-key traffic: pick another preset or My clicks.".into()));
        return;
    }
    let at = lab.playhead.get_untracked().unwrap_or_else(|| {
        if times.is_empty() {
            Time::ZERO
        } else {
            end.plus(Span(window.micros() / limit.max(1) / 2))
        }
    });
    let mut times = times;
    times.push(at);
    lab.change(|s| s.pattern = Pattern::Trace(times));
    let index = lab.run.with_untracked(|r| r.trace.requests().iter().rposition(|q| q.at == at));
    lab.selected.set(index);
}

/// Every control, in the side column.
#[component]
pub fn Controls() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let state = lab.state;

    let limit = Signal::derive(move || state.with(|s| s.settings.limit as f64));
    let window_s = Signal::derive(move || state.with(|s| s.settings.window.micros() as f64 / MICROS_PER_SEC as f64));
    let algos = move |a: Algorithm| state.with(|s| s.algorithms.contains(&a));

    let presets = move || {
        let seed = state.with(|s| s.durable.seed);
        let current = state.with(|s| s.pattern.slug());
        let mut options: Vec<(String, String)> = Pattern::presets(seed).iter().map(|p| (p.slug().to_string(), p.label().to_string())).collect();
        if current == "trace" {
            options.push(("trace".into(), "Your own request times".into()));
        }
        options
            .into_iter()
            .map(|(slug, label)| {
                let selected = slug == current;
                view! { <option value=slug selected=selected>{label}</option> }
            })
            .collect_view()
    };
    let on_preset = move |ev: ev::Event| {
        let slug = event_target_value(&ev);
        let seed = state.with_untracked(|s| s.durable.seed);
        if let Some(p) = Pattern::presets(seed).into_iter().find(|p| p.slug() == slug) {
            lab.playhead.set(None);
            lab.playing.set(false);
            lab.change(|s| s.pattern = p);
        }
    };

    let toggle = move |a: Algorithm| {
        move |ev: ev::Event| {
            let on = event_target_checked(&ev);
            let remaining = state.with_untracked(|s| s.algorithms.len());
            if !on && remaining == 1 {
                lab.notices.update(|n| n.push("At least one algorithm stays on.".into()));
                lab.state.update(|_| {}); // re-render the box as ticked
                return;
            }
            lab.change(|s| {
                if on {
                    if !s.algorithms.contains(&a) {
                        s.algorithms.push(a);
                        s.algorithms.sort();
                    }
                } else {
                    s.algorithms.retain(|&x| x != a);
                }
            });
        }
    };

    let playing = lab.playing;
    let speed_options = [0.5, 1.0, 2.0, 5.0, 10.0];

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
            <div class="control-group">
                <label for="preset" class="group-label">"Traffic"</label>
                <select id="preset" data-testid="pattern-select" on:change=on_preset>{presets}</select>
            </div>

            <div class="control-group playback" role="group" aria-label="Playback">
                <button
                    data-testid="play"
                    aria-pressed=move || playing.get().to_string()
                    on:click=move |_| if playing.get_untracked() { playing.set(false) } else { play(lab) }
                >
                    {move || if playing.get() { "❚❚ Pause" } else { "▶ Play" }}
                </button>
                <button data-testid="step" on:click=move |_| step(lab)>"Step"</button>
                <button data-testid="reset" on:click=move |_| reset(lab)>"Reset"</button>
                <label class="speed">"Speed "
                    <select data-testid="speed" on:change=move |ev| {
                        if let Ok(v) = event_target_value(&ev).parse::<f64>() { lab.speed.set(v) }
                    }>
                        {speed_options.into_iter().map(|v| view! {
                            <option value=v.to_string() selected=move || (lab.speed.get() - v).abs() < 1e-9>{format!("{v}×")}</option>
                        }).collect_view()}
                    </select>
                </label>
                <span class="playhead-time" data-testid="playhead">{move || match lab.playhead.get() {
                    Some(t) => format!("at {}", time_label(t)),
                    None => "whole timeline".to_string(),
                }}</span>
            </div>

            <div class="control-group">
                <button class="send" data-testid="send" aria-keyshortcuts="S" on:click=move |_| send_request(lab)>
                    "Send a request " <kbd>"S"</kbd>
                </button>
            </div>

            <Slider label="Limit" testid="limit" min=1.0 max=100.0 step=1.0 value=limit
                shown=Signal::derive(move || format!("{} requests", state.with(|s| s.settings.limit)))
                on_change=Callback::new(move |v: f64| lab.change(|s| s.settings.limit = (v.round() as u64).clamp(1, 1_000_000)))/>
            <Slider label="Window" testid="window" min=0.5 max=120.0 step=0.5 value=window_s
                shown=Signal::derive(move || seconds_text(state.with(|s| s.settings.window)))
                on_change=Callback::new(move |v: f64| {
                    let micros = (v * MICROS_PER_SEC as f64).round() as u64;
                    lab.change(|s| s.settings.window = Span(micros.clamp(1_000, 86_400 * MICROS_PER_SEC)));
                })/>

            <fieldset class="control-group algos">
                <legend class="group-label">"Algorithms"</legend>
                {Algorithm::ALL.into_iter().map(|a| view! {
                    <label class="algo-toggle">
                        <input type="checkbox" data-testid=format!("toggle-{}", a.slug()) prop:checked=move || algos(a) on:change=toggle(a)/>
                        {a.label()}
                    </label>
                }).collect_view()}
            </fieldset>

            <details class="control-group tuning">
                <summary>"Tune single algorithms"</summary>
                <Slider label="Bucket capacity" testid="capacity" min=1.0 max=200.0 step=1.0
                    value=Signal::derive(move || state.with(|s| s.settings.bucket_capacity() as f64))
                    shown=Signal::derive(move || format!("{} tokens", state.with(|s| s.settings.bucket_capacity())))
                    on_change=Callback::new(move |v: f64| lab.change(|s| s.settings.capacity = Some(v.round().max(1.0) as u64)))/>
                <Slider label="Refill rate" testid="refill" min=0.1 max=50.0 step=0.1
                    value=Signal::derive(move || state.with(|s| s.settings.quota().map(|q| s.settings.refill_rate(q)).map(|r| r.per_second_text().parse::<f64>().unwrap_or(1.0)).unwrap_or(1.0)))
                    shown=Signal::derive(move || state.with(|s| s.settings.quota().map(|q| format!("{} tokens/s", s.settings.refill_rate(q).per_second_text())).unwrap_or_default()))
                    on_change=Callback::new(move |v: f64| if let Some(rate) = rate_from_per_second(v) { lab.change(|s| s.settings.refill = Some(rate)) })/>
                <Slider label="GCRA burst" testid="burst" min=1.0 max=200.0 step=1.0
                    value=Signal::derive(move || state.with(|s| s.settings.gcra_burst() as f64))
                    shown=Signal::derive(move || format!("{} requests", state.with(|s| s.settings.gcra_burst())))
                    on_change=Callback::new(move |v: f64| lab.change(|s| s.settings.gcra_burst = Some(v.round().max(1.0) as u64)))/>
                <Slider label="Leaky bucket burst" testid="leak-burst" min=0.0 max=200.0 step=1.0
                    value=Signal::derive(move || state.with(|s| s.settings.leak_burst() as f64))
                    shown=Signal::derive(move || format!("{} requests ahead of the rate", state.with(|s| s.settings.leak_burst())))
                    on_change=Callback::new(move |v: f64| lab.change(|s| {
                        let burst = v.round().max(0.0) as u64;
                        s.settings.leak_burst = Some(burst);
                        if let LeakDelay::After(d) = s.settings.leak_delay { s.settings.leak_delay = LeakDelay::After(d.min(burst)) }
                    }))/>
                <Slider label="Leaky bucket: served at once" testid="leak-delay" min=0.0 max=200.0 step=1.0
                    value=Signal::derive(move || state.with(|s| match s.settings.leak_delay { LeakDelay::After(d) => d as f64, LeakDelay::NoDelay => s.settings.leak_burst() as f64 }))
                    shown=Signal::derive(move || state.with(|s| match s.settings.leak_delay {
                        LeakDelay::NoDelay => "all (nodelay)".to_string(),
                        LeakDelay::After(0) => "none: every excess request waits".to_string(),
                        LeakDelay::After(d) => format!("{d}, the rest wait"),
                    }))
                    on_change=Callback::new(move |v: f64| lab.change(|s| {
                        let d = (v.round().max(0.0) as u64).min(s.settings.leak_burst());
                        s.settings.leak_delay = if d >= s.settings.leak_burst() { LeakDelay::NoDelay } else { LeakDelay::After(d) };
                    }))/>
            </details>

        </section>
    }
}

/// The colour theme: follow the system, or force light or dark (kept in the URL).
#[component]
pub fn ThemePicker() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let state = lab.state;
    view! {
        <label class="theme-picker">"Theme "
            <select data-testid="theme" on:change=move |ev| {
                let theme = match event_target_value(&ev).as_str() { "light" => Theme::Light, "dark" => Theme::Dark, _ => Theme::Auto };
                lab.change(|s| s.theme = theme);
            }>
                {[Theme::Auto, Theme::Light, Theme::Dark].into_iter().map(|t| view! {
                    <option value=t.slug() selected=move || state.with(|s| s.theme == t)>{match t { Theme::Auto => "system", Theme::Light => "light", Theme::Dark => "dark" }}</option>
                }).collect_view()}
            </select>
        </label>
    }
}

/// The share link and the iframe snippet for the current view.
#[component]
pub fn ShareEmbed() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let link = move || super::url_for(&lab.query());
    let embed_link = move || {
        let q = lab.query();
        super::url_for(&if q.is_empty() { "embed=1".to_string() } else { format!("{q}&embed=1") })
    };
    let snippet = move || {
        format!(
            "<iframe src=\"{}\" title=\"Rate Limit Lab\" width=\"100%\" height=\"460\" style=\"border:0\" loading=\"lazy\" sandbox=\"allow-scripts\"></iframe>",
            embed_link()
        )
    };
    let copied = RwSignal::new(false);
    let copy = move |_| {
        if let Some(w) = web_sys::window() {
            let _ = w.navigator().clipboard().write_text(&link());
            copied.set(true);
        }
    };
    view! {
        <section class="share" aria-label="Share and embed">
            <div class="share-row">
                <label for="share-link">"Link to this view"</label>
                <input id="share-link" readonly data-testid="share-link" prop:value=link/>
                <button data-testid="copy-link" on:click=copy>{move || if copied.get() { "Copied" } else { "Copy link" }}</button>
            </div>
            <details>
                <summary>"Embed this view in your documentation"</summary>
                <textarea readonly rows="3" data-testid="embed-snippet" prop:value=snippet></textarea>
            </details>
        </section>
    }
}
