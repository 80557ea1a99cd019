//! The timelines: one canvas row per algorithm on a shared time axis, with HTML around it for
//! the row names, the counts inside the window bracket, the keys' lanes, the axis labels, the
//! zoom's reset and the legend. The canvas is focusable: the arrow keys walk from request to
//! request, and `+`, `-` and `0` zoom (`super::timeline_input`, with the pointer and the wheel).

use leptos::html;
use leptos::prelude::*;

use crate::core::durable::shard::sharding_note;
use crate::core::lab::LabRun;
use crate::core::time::Time;

use crate::core::lab_state::Lanes;
use crate::core::time::format_seconds;
use crate::layout::timeline::{
    tick_labels, time_label, Layout, MarkColumns, MarkColumnsJob, RowKind,
};

use super::draw::{draw, Palette, View};
use super::scheduler::{run_sliced, Slicing};
use super::state::Lab;
use crate::core::theme::Theme;

/// CSS pixels, rounded to whole ones.
fn px(v: f64) -> String {
    format!("{}px", v.round() as i64)
}

/// From this many requests, the marks' columns are worked out a row per task.
const COLUMNS_LATER_FROM: usize = 100_000;

/// What a set of mark columns was worked out for: a run (by identity), a layout and a pixel ratio.
#[derive(Clone, PartialEq)]
struct ColumnsFor {
    run: usize,
    layout: Layout,
    dpr: f64,
}

/// Whether the page is in the dark theme now.
pub fn dark_theme(theme: Theme) -> bool {
    match theme {
        Theme::Dark => true,
        Theme::Light => false,
        Theme::Auto => super::media_matches("(prefers-color-scheme: dark)"),
    }
}

fn row_name(run: &LabRun, kind: RowKind) -> String {
    match kind {
        RowKind::Algo(a) => a.label().to_string(),
        RowKind::Durable => match &run.durable {
            Some(Ok(_)) => "Durable Object".to_string(),
            _ => String::new(),
        },
    }
}

/// The row's busiest window: in the whole run, or by the playhead while it shows part of the
/// story (`core::so_far`).
fn busiest(run: &LabRun, kind: RowKind, playhead: Option<Time>) -> u64 {
    let at = |steps: &crate::core::run::Steps, most: u64| playhead.map_or(most, |t| steps.at(t));
    match kind {
        RowKind::Algo(a) => run.run(a).map_or(0, |r| at(&r.busiest_by, r.max_in_window)),
        RowKind::Durable => match &run.durable {
            Some(Ok(report)) => at(&report.busiest_by, report.most_in_window),
            _ => 0,
        },
    }
}

/// The row's figures as one line: its promise and its busiest window `most`, and the count
/// inside the bracket.
fn row_figures(
    run: &LabRun,
    kind: RowKind,
    most: u64,
    bracket_end: Option<Time>,
) -> (String, Option<String>, bool) {
    let limit = run.settings.limit;
    let window = run.settings.window;
    let in_bracket = match kind {
        RowKind::Algo(a) => run
            .run(a)
            .and_then(|r| bracket_end.map(|end| r.busiest_key_in_window(end, window))),
        RowKind::Durable => match &run.durable {
            Some(Ok(report)) => bracket_end.map(|end| report.busiest_key_in_window(end, window)),
            _ => None,
        },
    };
    let broke = most > limit;
    // The Durable Object is one object per key, whatever the rows' copies.
    let copies = match kind {
        RowKind::Algo(_) => run.settings.deployment.instances,
        RowKind::Durable => 1,
    };
    // A row set from a person's config names the config's own name for it (nginx's zone).
    let terms = match kind {
        RowKind::Algo(a) => {
            let named = super::config_panel::name_of(a, &run.settings);
            match (named, a.terms::<super::Linked>(&run.settings)) {
                (Some(name), Some(terms)) => Some(format!("{name}: {terms}")),
                (Some(name), None) => Some(format!("from your config's {name}")),
                (None, terms) => terms,
            }
        }
        RowKind::Durable => None,
    };
    let summary =
        crate::layout::timeline::row_promise(limit, window, copies, terms.as_deref(), most);
    let bracket = in_bracket.map(|n| format!("{n} in the bracket"));
    (summary, bracket, broke)
}

/// The busiest window `most` in a few characters, for narrow screens: "⚠ busiest 10 / 5".
fn short_figure(run: &LabRun, most: u64) -> String {
    let limit = run.settings.limit;
    let short = crate::layout::timeline::row_promise_short(limit, most);
    if most > limit {
        format!("⚠ {short}")
    } else {
        short
    }
}

/// A row's lanes' keys, when the rows are split by key: in the labels' column beside the plot,
/// each name on its lane's line of marks (only the complete module splits rows by key).
#[cfg(feature = "workbench")]
fn lane_names(l: &Layout, row: &crate::layout::timeline::RowLayout) -> Option<AnyView> {
    use crate::layout::timeline::LANE_MARK_Y;
    let names = &l.lanes.names;
    (!names.is_empty()).then(|| {
        let first = l.lane_top(row, 0) - row.top;
        view! {
            <div class="lane-names" aria-hidden="true" style:padding-top=px(first)>
                {names.iter().map(|name| view! {
                    <span class="lane-label" data-testid="lane-label" title=name.clone()
                        style:height=px(l.lane_h) style:line-height=px(2.0 * LANE_MARK_Y)>{name.clone()}</span>
                }).collect_view()}
            </div>
        }
        .into_any()
    })
}

#[cfg(not(feature = "workbench"))]
fn lane_names(_: &Layout, _: &crate::layout::timeline::RowLayout) {}

/// The timelines' layout as the page draws it, `width` CSS pixels wide: at a phone's width, with a
/// band above each row for its label (the PNG export lays its picture out the same way, since it
/// copies the canvas).
pub fn layout_on_page(
    run: &LabRun,
    width: f64,
    view: Option<(Time, Time)>,
    lanes: Lanes,
) -> Layout {
    let layout = Layout::viewed::<super::Linked>(run, width, view, lanes);
    match super::labels_above_rows() {
        true => layout.with_labels_above(),
        false => layout,
    }
}

/// The timelines section.
#[component]
pub fn Timelines() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();
    let width = super::tracked_width(wrap_ref);
    let draw_error = RwSignal::new(None::<String>);
    // Where each row and time sits, for the drawing, the labels, the axis and pointer hits.
    let layout = Memo::new(move |_| {
        let (view, lanes) = lab.state.with(|s| (s.view, s.lanes));
        // Read again whenever the width changes: a page turned or resized past a phone's width.
        lab.run
            .with(|run| layout_on_page(run, width.get(), view, lanes))
    });
    // Which marks each pixel column shows, worked out again only when the run or the layout
    // changes, not when the pointer moves. For a large run it is worked out a row per task
    // (`columns_job`), and `columns_ready` redraws once it is done.
    let columns = StoredValue::new(None::<(ColumnsFor, std::sync::Arc<MarkColumns>)>);
    let columns_job = StoredValue::new(None::<ColumnsFor>);
    let columns_ready = RwSignal::new(0u32);
    // The plan last published on the canvas (`data-marks`), by identity: it is written once per
    // plan, not on every redraw while the pointer moves.
    let published = StoredValue::new(None::<std::sync::Arc<MarkColumns>>);

    // Redraw whenever the data or the view changes.
    let layout_memo = layout;
    // Whether the canvas's pointer and wheel are listened to (`super::timeline_input`).
    let mut listening = false;
    Effect::new(move |_| {
        let layout = layout.get();
        if width.get_untracked() <= 0.0 {
            return; // not laid out yet: `tracked_width` brings the width before the first paint
        }
        // The axis's step, for the playhead's time while it moves.
        if lab.playback.axis_step.get_untracked() != layout.tick_step() {
            lab.playback.axis_step.set(layout.tick_step());
        }
        let dark = lab.state.with(|s| dark_theme(s.theme));
        let dpr = super::device_pixel_ratio();
        let view = View {
            playhead: lab.playback.playhead.get(),
            cursor: lab.focus.cursor.get(),
            selected: lab.focus.selected.get(),
            dpr,
        };
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        if !listening {
            listening = true;
            super::timeline_input::listen(&canvas, lab, layout_memo);
        }
        // The stretch shown, on the section, for tests and tools.
        if let Ok(Some(section)) = canvas.closest("section") {
            let ms = |t: crate::core::time::Time| format_seconds(t.micros() * 1000);
            let _ = section.set_attribute("data-view-from-ms", &ms(layout.range.from));
            let _ = section.set_attribute("data-view-to-ms", &ms(layout.range.to));
        }
        columns_ready.track();
        let run = lab.run.get();
        let wanted = ColumnsFor {
            run: std::sync::Arc::as_ptr(&run) as usize,
            layout: layout.clone(),
            dpr,
        };
        let ready = columns.with_value(|c| {
            c.as_ref()
                .filter(|(of, _)| *of == wanted)
                .map(|(_, m)| m.clone())
        });
        let columns_now = match ready {
            Some(ready) => ready,
            None if layout.shown(run.trace.requests()).len() <= COLUMNS_LATER_FROM => {
                if columns_job.with_value(Option::is_some) {
                    columns_job.set_value(None); // a large run's columns are no longer wanted
                    lab.work.progress.set(None);
                }
                let made = std::sync::Arc::new(MarkColumns::new(&run, &layout, dpr));
                columns.set_value(Some((wanted, made.clone())));
                made
            }
            None => {
                if columns_job.with_value(|job| job.as_ref() != Some(&wanted)) {
                    columns_job.set_value(Some(wanted.clone()));
                    // Worked out in the tasks that follow: first each request's column, then a
                    // row at a time. A newer run or layout stops the job.
                    let still = wanted.clone();
                    run_sliced(
                        lab.work.progress,
                        MarkColumnsJob::new(run, layout, dpr),
                        Slicing {
                            start_later: true,
                            finish_later: false,
                        },
                        move || columns_job.with_value(|job| job.as_ref() == Some(&still)),
                        move |made| {
                            columns.set_value(Some((wanted, std::sync::Arc::new(made))));
                            columns_job.set_value(None);
                            columns_ready.update(|n| *n = n.wrapping_add(1));
                        },
                    );
                }
                return;
            }
        };
        {
            canvas.set_width((layout.width * dpr).round() as u32);
            canvas.set_height((layout.height * dpr).round() as u32);
            super::set_css_size(&canvas, layout.width, layout.height);
            let _ = canvas.set_attribute("data-layout", &layout.to_json());
            let palette = if dark {
                Palette::dark()
            } else {
                Palette::light()
            };
            let performance = web_sys::window().and_then(|w| w.performance());
            if let Some(p) = &performance {
                let _ = p.mark("timeline-draw-start");
            }
            let result = draw(&canvas, &run, &layout, &columns_now, &view, &palette);
            if let Some(p) = &performance {
                let _ = p.measure_with_start_mark("timeline-draw", "timeline-draw-start");
            }
            let fresh = published.with_value(|last| {
                !last
                    .as_ref()
                    .is_some_and(|last| std::sync::Arc::ptr_eq(last, &columns_now))
            });
            if fresh {
                let _ = canvas.set_attribute("data-marks", &columns_now.to_json(&layout, dpr));
                published.set_value(Some(columns_now.clone()));
            }
            draw_error.set(result.err());
            let _ = canvas.set_attribute("data-drawn", "true");
            super::mark_ready();
            if !lab.page.first_view_shown.get_untracked() {
                lab.page.first_view_shown.set(true);
            }
        }
    });

    let on_key = move |ev: web_sys::KeyboardEvent| {
        let count = lab.run.with_untracked(|r| r.trace.len());
        let current = lab.focus.selected.get_untracked();
        let key = ev.key();
        let anchor = current
            .and_then(|i| {
                lab.run
                    .with_untracked(|r| r.trace.requests().get(i).map(|q| q.at))
            })
            .or(lab.playback.playhead.get_untracked());
        if !ev.ctrl_key()
            && !ev.meta_key()
            && layout.with_untracked(|l| super::timeline_input::key(lab, l, &key, anchor))
        {
            ev.prevent_default();
            return;
        }
        if count == 0 {
            return;
        }
        let next = match key.as_str() {
            "ArrowRight" => Some(current.map(|i| (i + 1).min(count - 1)).unwrap_or(0)),
            "ArrowLeft" => Some(current.map(|i| i.saturating_sub(1)).unwrap_or(0)),
            "Home" => Some(0),
            "End" => Some(count - 1),
            "Escape" => {
                lab.focus.selected.set(None);
                lab.focus.cursor.set(None);
                None
            }
            _ => return,
        };
        ev.prevent_default();
        if let Some(i) = next {
            lab.focus.selected.set(Some(i));
            let at = lab
                .run
                .with_untracked(|r| r.trace.requests().get(i).map(|q| q.at));
            if let Some(at) = at {
                lab.focus.cursor.set(Some(at));
                // The view follows, so the selected request stays in it.
                layout.with_untracked(|l| super::timeline_input::follow(lab, l, at));
            }
        }
    };
    let labels = move || {
        let playhead = lab.playback.playhead.get();
        let bracket_end = lab.focus.cursor.get().or(playhead);
        lab.run.with(|run| {
            layout.with(|l| {
                l.rows
                    .iter()
                    .map(|row| {
                        let most = busiest(run, row.kind, playhead);
                        let (summary, bracket, broke) = row_figures(run, row.kind, most, bracket_end);
                        let short = short_figure(run, most);
                        let name = row_name(run, row.kind);
                        let gauge_note = match (row.kind, &run.durable) {
                            (RowKind::Algo(a), _) => run.gauge(a).map(|g| format!("below: {}", g.unit)),
                            // When sharding changes the limit a key is held to, the row says so.
                            (RowKind::Durable, Some(Ok(report))) => {
                                let by = lab.state.with(|s| s.durable.shard_by);
                                sharding_note(&report.objects, run.settings.limit, run.settings.window, by).map(|note| note.label)
                            }
                            (RowKind::Durable, _) => None,
                        };
                        let whole = summary.clone();
                        view! {
                            <div class="row-label" class:broke=broke style:height=px(row.height) data-row=row.kind.id()>
                                <div class="row-text">
                                    <div class="row-head">
                                        <span class="row-name">{name}</span>
                                        {super::snippets::link_from_row(row.kind.id())}
                                    </div>
                                    <span class="row-summary" title=whole>{if broke { "⚠ " } else { "" }}{summary}</span>
                                    <span class="row-short" aria-hidden="true">{short}</span>
                                    {bracket.map(|b| view! { <span class="row-bracket" data-testid=format!("bracket-{}", row.kind.id())>{b}</span> })}
                                    {gauge_note.map(|g| view! { <span class="row-gauge">{g}</span> })}
                                </div>
                                {lane_names(l, row)}
                            </div>
                        }
                        .into_any()
                    })
                    .collect::<Vec<_>>()
            })
        })
    };

    let axis = move || {
        layout.with(|l| {
            let ticks = l.ticks();
            let labels = tick_labels(&ticks);
            ticks
                .into_iter()
                .zip(labels)
                .map(|(t, label)| {
                    view! { <span class="tick" style:left=px(l.x(t))>{label}</span> }.into_any()
                })
                .collect::<Vec<_>>()
        })
    };

    let whole = move || layout.with(|l| l.range.is_whole(l.horizon));
    let one_key = move || lab.run.with(|r| r.trace.keys().len() < 2);
    let split = move || lab.state.with(|s| s.lanes == Lanes::Key);

    let canvas_label = move || {
        lab.run.with(|run| {
            format!(
                "Timelines of {} requests over {} for {} rows. Use the arrow keys to move from request to request, plus and minus to zoom, 0 to show the whole trace; the inspector below shows each decision.",
                run.trace.len(),
                time_label(run.horizon),
                run.runs.len() + usize::from(run.durable.is_some())
            )
        })
    };

    view! {
        <section class="timelines" aria-label="Timelines">
            <div class="timeline-grid">
                <div class="row-labels">{labels}</div>
                <div class="canvas-wrap" node_ref=wrap_ref>
                    <canvas
                        node_ref=canvas_ref
                        tabindex="0"
                        role="img"
                        data-testid="timeline-canvas"
                        aria-label=canvas_label
                        on:keydown=on_key
                    ></canvas>
                    <div class="axis" aria-hidden="true">{axis}</div>
                </div>
                <div class="timeline-tools">
                    <button data-testid="zoom-reset" prop:hidden=whole on:click=move |_| lab.change(|s| s.view = None)>"Reset zoom"</button>
                    <button data-testid="lanes-toggle" prop:hidden=one_key aria-pressed=move || split().to_string()
                        on:click=move |_| lab.change(|s| s.lanes = if s.lanes == Lanes::Key { Lanes::One } else { Lanes::Key })>
                        "A lane per key"
                    </button>
                </div>
            </div>
            {move || draw_error.get().map(|e| view! { <p class="error" role="alert">{e}</p> }.into_any())}
            <ul class="legend" aria-label="Legend">
                <li><span class="glyph allowed">"●"</span>" allowed"</li>
                <li><span class="glyph rejected">"✕"</span>" rejected (429, or the status the product sends)"</li>
                <li><span class="glyph delayed">"○—•"</span>" delayed, then served"</li>
                <li><span class="glyph degraded">"◌"</span>" let through, limiter unreachable (fail open)"</li>
                <li><span class="glyph failed">"⊠"</span>" refused, limiter unreachable (fail closed)"</li>
                <li><span class="glyph allowed">"▀"</span><span class="glyph rejected">"▄"</span>" bars: too close to draw apart, let through up, refused down"</li>
                <li><span class="glyph bracket">"[ ]"</span>" one window, at the pointer or playhead"</li>
            </ul>
        </section>
    }
}
