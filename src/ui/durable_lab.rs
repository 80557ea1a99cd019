//! The Durable Object lab: where the traffic comes from and where the object lives, the timeout,
//! service time, persistence, sharding, placement and fail mode; a chart of every decision's
//! latency against the timeout with the object's queue and stored keys under it (drag across it
//! to schedule an outage); and the seed's lessons as one-click scenarios.

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;

use crate::core::durable::{DurableParams, FailMode, Placement, ShardBy, Tier};
use crate::core::limiter::Algorithm;
use crate::core::region::Region;
use crate::core::scenarios;
use crate::core::time::{format_seconds, Span, Time, MICROS_PER_SEC};

use super::controls::{ControlRow, NumberBox};
use crate::core::url::durable_fields::{CONTROLS, FAULT_CONTROLS};
use crate::core::url::values::seconds_text;
use crate::layout::latency::{
    answer_text, chart_height, key_drag, key_step, latency_ceiling, nearest_answer, walk_answers,
    Axes, LatencyView, MarksFor, Walk,
};
use crate::layout::timeline::Range;

use super::draw::Palette;
use super::draw_latency::draw_latency;
use super::latency_marks::MarksCache;
use super::scenarios::{ScenarioButtons, LAB_INTRO, SHOW_ROW};
use super::state::Lab;
use super::timeline::dark_theme;

/// The "Object in" menu's option for where the object lives.
fn home_option(durable: &DurableParams) -> &'static str {
    match (durable.home, durable.placement) {
        (Some(r), _) => r.code(),
        (None, Placement::Smart) => "smart",
        (None, Placement::First) => "first",
    }
}

/// The "Limiter" menu's option for what decides in the object.
fn tier_option(durable: &DurableParams) -> &'static str {
    match durable.tier {
        Tier::DurableObject => durable.algorithm.slug(),
        Tier::Binding { period_secs: 60 } => "binding-60",
        Tier::Binding { .. } => "binding-10",
    }
}

/// The lab section.
#[component]
pub fn DurableLab() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let state = lab.state;
    let drag_kind = RwSignal::new(DragKind::Outage);
    provide_context(drag_kind);
    let enabled = move || state.with(|s| s.durable.enabled);
    // A link that opens a scenario's view (a shared one, or the first view's module handing over
    // to this one for a scenario chosen there) shows that scenario's lesson.
    if lab.page.active_scenario.get_untracked().is_none() {
        lab.page
            .active_scenario
            .set(state.with_untracked(scenarios::shown).map(|sc| sc.id));
    }

    // The selects' values at first render; afterwards `prop:value` keeps them in step.
    let initial = state.get_untracked().durable;
    let (home0, tier0) = (home_option(&initial), tier_option(&initial));
    let world = move || {
        let (from, home) = state.with(|s| (s.durable.from.clone(), s.durable.home));
        let reference = home.unwrap_or_else(|| from.first().copied().unwrap_or(Region::Frankfurt));
        Region::ALL
            .into_iter()
            .map(|r| {
                let on = from.contains(&r);
                let rtt = r.rtt(reference).ceil_millis();
                view! {
                    <button
                        class="region"
                        class:on=on
                        class:home=Some(r) == home
                        aria-pressed=on.to_string()
                        data-testid=format!("from-{}", r.code())
                        on:click=move |_| lab.change(|s| {
                            let list = &mut s.durable.from;
                            if list.contains(&r) {
                                if list.len() > 1 { list.retain(|x| *x != r) }
                            } else {
                                list.push(r);
                            }
                        })
                    >
                        <span class="region-name">{r.name()}</span>
                        <span class="region-rtt">{format!("{rtt} ms")}</span>
                    </button>
                }
                .into_any()
            })
            .collect::<Vec<_>>()
    };

    let scenario_text = move || {
        let sc = scenarios::find(lab.page.active_scenario.get()?)?;
        // Only while the page still shows that scenario's view (over the person's own traffic,
        // or its own).
        if state.with(|s| sc.applied(s) != *s) {
            return None;
        }
        let text = lab
            .run
            .with(|run| state.with(|s| scenarios::lessons::lesson(sc, s, run)))
            .unwrap_or_default();
        let kept = state.with(scenarios::own_traffic).then(|| {
            let requests = lab.run.with(|run| run.trace.len());
            let theirs = match sc.has_own_trace() {
                true => "its own trace",
                false => "its own preset traffic",
            };
            view! {
                <p class="scenario-kept" data-testid="scenario-kept-traffic">
                    {format!("Your traffic stays: these figures are your {requests} requests through the scenario's setup, not {theirs}. ")}
                    <button class="scenario" data-testid="scenario-own-traffic" on:click=move |_| {
                        let next = state.with_untracked(|s| sc.preset(s));
                        lab.playback.playhead.set(None);
                        lab.change_and_remember(|s| *s = next);
                    }>{format!("Run it with {theirs}")}</button>
                </p>
            }
        });
        Some(
            view! { <div class="scenario-text" data-testid="scenario-text"><strong>{sc.title}</strong>" "{text}{kept}</div> }.into_any(),
        )
    };

    view! {
        <section class="durable-lab" aria-label="Durable Object lab" data-testid="durable-lab">
            <h2>"Durable Object lab"</h2>
            <p class="hint">{LAB_INTRO}</p>
            <ScenarioButtons/>
            {scenario_text}
            <label class="algo-toggle">
                <input type="checkbox" data-testid="do-toggle" prop:checked=enabled on:change=move |ev| {
                    let on = event_target_checked(&ev);
                    lab.change(|s| s.durable.enabled = on);
                }/>
                {SHOW_ROW}
            </label>
            <div class:hidden=move || !enabled()>
                <div class="lab-controls">
                    <div class="world" role="group" aria-label="Traffic from (round trip to the object)">
                        <span class="group-label">"Traffic from (round trip to the object)"</span>
                        {world}
                    </div>
                    <label>"Object in "
                        <select data-testid="home" prop:value=move || state.with(|s| home_option(&s.durable)) on:change=move |ev| {
                            let v = event_target_value(&ev);
                            lab.change(|s| match v.as_str() {
                                "first" => { s.durable.home = None; s.durable.placement = Placement::First }
                                "smart" => { s.durable.home = None; s.durable.placement = Placement::Smart }
                                code => s.durable.home = Region::from_code(code),
                            });
                        }>
                            <option value="first" selected=home0 == "first">"where the first request came from"</option>
                            <option value="smart" selected=home0 == "smart">"near its heaviest caller (smart)"</option>
                            {Region::ALL.into_iter().map(|r| view! { <option value=r.code() selected=home0 == r.code()>{r.name()}</option> }).collect_view()}
                        </select>
                    </label>
                    {CONTROLS.iter().map(|control| view! { <ControlRow control=control/> }).collect_view()}
                    <div class="lab-toggles">
                        <label>"Shard by "
                            <select data-testid="shard-by" prop:value=move || state.with(|s| s.durable.shard_by.slug()) on:change=move |ev| { let by = if event_target_value(&ev) == "request" { ShardBy::Request } else { ShardBy::Key }; lab.change(|s| s.durable.shard_by = by) }>
                                <option value="key" selected=initial.shard_by == ShardBy::Key>"key (the seed's hash)"</option>
                                <option value="request" selected=initial.shard_by == ShardBy::Request>"request"</option>
                            </select>
                        </label>
                        <label>"When it does not answer "
                            <select data-testid="fail" prop:value=move || state.with(|s| s.durable.fail.slug()) on:change=move |ev| { let f = if event_target_value(&ev) == "closed" { FailMode::Closed } else { FailMode::Open }; lab.change(|s| s.durable.fail = f) }>
                                <option value="open" selected=initial.fail == FailMode::Open>"fail open (let through, degraded)"</option>
                                <option value="closed" selected=initial.fail == FailMode::Closed>"fail closed (503)"</option>
                            </select>
                        </label>
                        {move || lab.run.with(|run| {
                            let routes = run.trace.routes().to_vec();
                            (!routes.is_empty()).then(|| view! {
                                <div class="routes" role="group" aria-label="Routes of your traffic that fail closed">
                                    <span class="group-label">"Fail closed on"</span>
                                    {routes.into_iter().enumerate().map(|(i, name)| {
                                        let closed = state.with_untracked(|s| s.durable.closed_routes.contains(&name));
                                        let label = name.clone();
                                        view! {
                                            <label class="algo-toggle">
                                                <input type="checkbox" data-testid=format!("closed-route-{i}") prop:checked=closed on:change=move |ev| {
                                                    let on = event_target_checked(&ev);
                                                    let name = name.clone();
                                                    lab.change(|s| {
                                                        s.durable.closed_routes.retain(|r| *r != name);
                                                        if on {
                                                            s.durable.closed_routes.push(name);
                                                        }
                                                    });
                                                }/>
                                                {label}
                                            </label>
                                        }
                                    }).collect_view()}
                                </div>
                            })
                        })}
                        <label>"Limiter "
                            <select data-testid="tier" prop:value=move || state.with(|s| tier_option(&s.durable)) on:change=move |ev| {
                                let v = event_target_value(&ev);
                                let tier = match v.as_str() { "binding-10" => Tier::Binding { period_secs: 10 }, "binding-60" => Tier::Binding { period_secs: 60 }, _ => Tier::DurableObject };
                                let algorithm = Algorithm::from_slug(&v);
                                lab.change(|s| { s.durable.tier = tier; if let Some(a) = algorithm { s.durable.algorithm = a } });
                            }>
                                {Algorithm::CORE.into_iter().map(|a| view! { <option value=a.slug() selected=tier0 == a.slug()>{format!("Durable Object: {}", a.label())}</option> }).collect_view()}
                                <option value="binding-10" selected=tier0 == "binding-10">"Rate Limiting binding, 10 s"</option>
                                <option value="binding-60" selected=tier0 == "binding-60">"Rate Limiting binding, 60 s"</option>
                            </select>
                        </label>
                        <label class="algo-toggle"><input type="checkbox" data-testid="persist" prop:checked=move || state.with(|s| s.durable.persist) on:change=move |ev| { let on = event_target_checked(&ev); lab.change(|s| s.durable.persist = on) }/>"Persist to storage"</label>
                        <label class="algo-toggle"><input type="checkbox" data-testid="cache" prop:checked=move || state.with(|s| s.durable.cache) on:change=move |ev| { let on = event_target_checked(&ev); lab.change(|s| s.durable.cache = on) }/>"First-tier cache of known offenders"</label>
                    </div>
                    <div class="outage-row">
                        <label>"Drag across the chart (or press Enter at a request on it, then at another) to schedule "
                            <select data-testid="drag-kind" on:change=move |ev| drag_kind.set(match event_target_value(&ev).as_str() {
                                "slow" => DragKind::Slow,
                                "evict" => DragKind::Evict,
                                _ => DragKind::Outage,
                            })>
                                <option value="outage">"an outage (unreachable)"</option>
                                <option value="slow">"a slow period (+250 ms a decision)"</option>
                                <option value="evict">"an eviction (at the drag's start)"</option>
                            </select>
                        </label>
                        <span data-testid="outage" aria-live="polite">{move || state.with(|s| fault_text(&s.durable))}</span>
                    </div>
                    // The same, typed: for a keyboard, and for exact times.
                    <div class="outage-row">
                        {FAULT_CONTROLS.iter().map(|control| view! { <NumberBox control=control/> }).collect_view()}
                        <button data-testid="clear-outage" on:click=move |_| lab.change(|s| {
                            s.durable.outage = None;
                            s.durable.slow = None;
                            s.durable.evict_at = None;
                        })>"Clear"</button>
                    </div>
                </div>
                <LatencyChart/>
            </div>
        </section>
    }
}

/// What dragging across the latency chart, by pointer or by keyboard, schedules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum DragKind {
    Outage,
    Slow,
    Evict,
}

impl DragKind {
    /// Schedules the fault as a period (an eviction at its start), or removes it with `None`.
    fn set(self, d: &mut DurableParams, period: Option<(Span, Span)>) {
        match self {
            DragKind::Outage => d.outage = period,
            DragKind::Slow => d.slow = period,
            DragKind::Evict => d.evict_at = period.map(|(at, _)| at),
        }
    }
}

/// The scheduled faults in words.
fn fault_text(d: &crate::core::durable::DurableParams) -> String {
    let mut parts = Vec::new();
    if let Some((a, b)) = d.outage {
        parts.push(format!(
            "Outage from {} s to {} s: the object is unreachable.",
            format_seconds(a.micros()),
            format_seconds(b.micros())
        ));
    }
    if let Some((a, b)) = d.slow {
        parts.push(format!(
            "Slow from {} s to {} s: every decision 250 ms longer.",
            format_seconds(a.micros()),
            format_seconds(b.micros())
        ));
    }
    if let Some(at) = d.evict_at {
        parts.push(format!(
            "Every object evicted at {} s.",
            format_seconds(at.micros())
        ));
    }
    if parts.is_empty() {
        return "No outage, slow period or eviction scheduled.".to_string();
    }
    parts.join(" ")
}

/// What the readout says until a request is pointed at or walked to.
const READOUT_HINT: &str =
    "Point at a mark, or focus the chart and use the arrow keys, to read one request here.";

/// What the chart's marks, lines and tints mean. Constant, so written once as HTML.
const LEGEND: &str = r#"<li><span class="glyph allowed">●</span> allowed</li><li><span class="glyph rejected">✕</span> rejected (429)</li><li><span class="glyph degraded">◌</span> fail open: no answer in time, let through</li><li><span class="glyph failed">⊠</span> fail closed: no answer in time, 503</li><li><span class="glyph allowed">▀</span><span class="glyph rejected">▄</span> answers too close to draw apart: bars in proportion, let through up, refused down</li><li><span class="glyph timeout">╌</span> timeout</li><li><span class="glyph delayed">▮</span> queue</li><li><span class="glyph gauge">━</span> stored keys</li><li><span class="glyph failed">▬</span> outage</li><li><span class="glyph degraded">▬</span> slow period</li><li><span class="glyph failed">│</span> eviction</li>"#;

/// Schedules (or, with `None`, removes) a fault: one function for the pointer's drag and the
/// keyboard's.
#[inline(never)]
fn set_fault(lab: Lab, kind: DragKind, period: Option<(Span, Span)>) {
    lab.change(|s| kind.set(&mut s.durable, period));
}

/// The latency chart: drag across it to schedule an outage, a slow period or an eviction; point
/// at a mark, or focus it and walk the answers with the arrow keys, to read one; by keyboard,
/// Enter at one answer and Enter at another drag across it too.
#[component]
fn LatencyChart() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();
    let width = super::tracked_width(wrap_ref);
    // Where a drag started: read only by the handlers, so a plain cell, not a signal.
    let drag_from = std::rc::Rc::new(std::cell::Cell::new(None::<f64>));
    let drag_kind = expect_context::<RwSignal<DragKind>>();
    // The answer under the pointer or at the keyboard's place: an index into the report's records.
    let point = RwSignal::new(None::<usize>);
    // Where a drag by keyboard started (Enter at a request), until Enter ends it.
    let from = RwSignal::new(None::<Time>);

    let view_now = move || {
        let (timeout, outage, slow, evict_at, dark, shown) = lab.state.with(|s| {
            (
                s.durable.timeout,
                s.durable.outage,
                s.durable.slow,
                s.durable.evict_at,
                dark_theme(s.theme),
                s.view,
            )
        });
        // The timelines' stretch of time, so the chart lines up with them.
        let range = lab.run.with(|r| Range::fit(shown, r.horizon));
        (
            LatencyView {
                width: width.get(),
                range,
                timeout,
                outage,
                slow,
                evict_at,
                dpr: super::device_pixel_ratio(),
            },
            dark,
        )
    };
    let first_draw = super::FirstDraw::default();
    let marks_cache = MarksCache::new();
    let published = StoredValue::new(0usize);
    Effect::new(move |_| {
        let (view, dark) = view_now();
        if view.width <= 0.0 {
            return; // not laid out yet, or hidden
        }
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let run = lab.run.get();
        // Nothing to draw while the lab is hidden; the canvas keeps its last picture.
        let Some(Ok(report)) = &run.durable else {
            return;
        };
        let Some(marks) = marks_cache.get(lab, &run, report, &view) else {
            return;
        };
        // The answer the readout reads, ringed.
        let focus = point
            .get()
            .and_then(|i| report.records.get(i))
            .map(|r| MarksFor::new(&run, report, &view).spot(r));
        let paint = move || {
            let h = chart_height();
            canvas.set_width((view.width * view.dpr).round() as u32);
            canvas.set_height((h * view.dpr).round() as u32);
            super::set_css_size(&canvas, view.width, h);
            let palette = if dark {
                Palette::dark()
            } else {
                Palette::light()
            };
            let _ = lab.run.with_untracked(|run| match &run.durable {
                Some(Ok(report)) => {
                    let axes = Axes::new(report, &view);
                    let _ = canvas.set_attribute("data-axes", &axes.to_json(&view, &marks));
                    // The plan, once per plan: not again while the pointer moves the ring.
                    let plan = Arc::as_ptr(&marks) as usize;
                    if published.get_value() != plan {
                        let _ = canvas.set_attribute("data-marks", &marks.to_json(view.dpr));
                        published.set_value(plan);
                    }
                    draw_latency(&canvas, report, &view, &marks, &axes, focus, &palette)
                }
                _ => Ok(()),
            });
        };
        first_draw.paint(&run, paint);
    });

    let x_of = move |ev: &web_sys::MouseEvent| f64::from(ev.offset_x());
    let down_at = drag_from.clone();
    let on_down = move |ev: web_sys::MouseEvent| down_at.set(Some(x_of(&ev)));
    let on_up = move |ev: web_sys::MouseEvent| {
        let Some(x0) = drag_from.take() else { return };
        let x1 = x_of(&ev);
        if (x1 - x0).abs() < 6.0 {
            return;
        }
        let (view, _) = view_now();
        let (a, b) = (view.time_at(x0.min(x1)), view.time_at(x0.max(x1)));
        // Whole tenths of a second, so the URL stays short.
        let round = |t: Time| Span(t.micros() / (MICROS_PER_SEC / 10) * (MICROS_PER_SEC / 10));
        let (a, b) = (round(a), round(b));
        if a < b {
            set_fault(lab, drag_kind.get_untracked(), Some((a, b)));
        }
    };
    let on_move = move |ev: web_sys::MouseEvent| {
        let (view, _) = view_now();
        let at = (f64::from(ev.offset_x()), f64::from(ev.offset_y()));
        let run = lab.run.get_untracked();
        if let Some(Ok(report)) = &run.durable {
            let of = MarksFor::new(&run, report, &view);
            point.set(nearest_answer(&report.records, &of, at, 10.0));
        }
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let walk = match ev.key().as_str() {
            "ArrowRight" => Walk::Next,
            "ArrowLeft" => Walk::Previous,
            "Home" => Walk::First,
            "End" => Walk::Last,
            "Escape" => {
                from.set(None);
                return point.set(None);
            }
            // The chosen fault removed, as the Clear button would (of that kind only).
            "Delete" | "Backspace" => return set_fault(lab, drag_kind.get_untracked(), None),
            // A drag by keyboard: Enter at one request starts it, Enter at another ends it.
            "Enter" => {
                let sent = point.get_untracked().and_then(|i| {
                    lab.run.with_untracked(|run| {
                        Some(run.durable.as_ref()?.as_ref().ok()?.records.get(i)?.sent)
                    })
                });
                if let Some(sent) = sent {
                    let kind = drag_kind.get_untracked();
                    let step = key_step(lab.run.with_untracked(|r| r.horizon));
                    let (pending, period) =
                        key_drag(from.get_untracked(), sent, kind == DragKind::Evict, step);
                    from.set(pending);
                    if period.is_some() {
                        set_fault(lab, kind, period);
                    }
                }
                return;
            }
            _ => return,
        };
        ev.prevent_default();
        let next = lab.run.with_untracked(|run| match &run.durable {
            Some(Ok(report)) => walk_answers(&report.records, point.get_untracked(), walk),
            _ => None,
        });
        point.set(next);
    };

    let summary = move || {
        lab.run.with(|run| match &run.durable {
            Some(Ok(report)) => {
                let ceiling = lab.state.with(|s| latency_ceiling(report, s.durable.timeout));
                format!(
                    "Latency up to {} ms (dashed: the timeout). p50 {} ms, p95 {} ms, p99 {} ms; longest queue {}; stored keys at most {}.",
                    ceiling.ceil_millis(),
                    report.p50.ceil_millis(),
                    report.p95.ceil_millis(),
                    report.p99.ceil_millis(),
                    report.longest_queue,
                    report.max_stored_keys
                )
            }
            Some(Err(e)) => e.clone(),
            None => String::new(),
        })
    };
    let readout = move || {
        let read = point
            .get()
            .and_then(|i| {
                lab.run.with(|run| match &run.durable {
                    Some(Ok(report)) => answer_text(report, i),
                    _ => None,
                })
            })
            .unwrap_or_else(|| READOUT_HINT.into());
        // While a drag by keyboard is under way, the readout says so first.
        match from.get() {
            Some(t) => format!(
                "From {} s: walk to where it ends and press Enter. {read}",
                seconds_text(Span(t.micros()))
            ),
            None => read,
        }
    };
    view! {
        <div class="latency">
            <p class="hint" data-testid="latency-summary">{summary}</p>
            <div class="canvas-wrap" node_ref=wrap_ref>
                <canvas node_ref=canvas_ref tabindex="0" role="img" data-testid="latency-canvas"
                    aria-label="Each request's latency against the timeout, the queue and the stored keys over time. The arrow keys read the requests; Enter at one and Enter at another schedule the fault chosen above between them, Delete removes it."
                    on:mousedown=on_down on:mouseup=on_up on:mousemove=on_move on:keydown=on_key></canvas>
            </div>
            <p class="do-readout" data-testid="do-readout" aria-live="polite">{readout}</p>
            <ul class="legend" aria-label="Legend of the Durable Object chart" data-testid="do-legend" inner_html=LEGEND></ul>
        </div>
    }
}
