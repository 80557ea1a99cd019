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

/// The row's figures as one line: the busiest window, and the count inside the bracket.
fn row_figures(
    run: &LabRun,
    kind: RowKind,
    bracket_end: Option<Time>,
) -> (String, Option<String>, bool) {
    let limit = run.settings.limit;
    let window = run.settings.window;
    let (most, in_bracket) = match kind {
        RowKind::Algo(a) => match run.run(a) {
            Some(r) => (
                r.max_in_window,
                bracket_end.map(|end| r.busiest_key_in_window(end, window)),
            ),
            None => (0, None),
        },
        RowKind::Durable => match &run.durable {
            Some(Ok(report)) => (
                report.most_in_window,
                bracket_end.map(|end| report.busiest_key_in_window(end, window)),
            ),
            _ => (0, None),
        },
    };
    let broke = most > limit;
    // The Durable Object is one object per key, whatever the rows' copies.
    let copies = match kind {
        RowKind::Algo(_) => run.settings.deployment.instances,
        RowKind::Durable => 1,
    };
    let summary = crate::layout::timeline::row_promise(limit, window, copies, most);
    let bracket = in_bracket.map(|n| format!("{n} in the bracket"));
    (summary, bracket, broke)
}

/// The busiest window in a few characters, for narrow screens: "⚠ busiest 10 / 5".
fn short_figure(run: &LabRun, kind: RowKind) -> String {
    let most = match kind {
        RowKind::Algo(a) => run.run(a).map(|r| r.max_in_window).unwrap_or(0),
        RowKind::Durable => match &run.durable {
            Some(Ok(report)) => report.most_in_window,
            _ => 0,
        },
    };
    let limit = run.settings.limit;
    let short = crate::layout::timeline::row_promise_short(limit, most);
    if most > limit {
        format!("⚠ {short}")
    } else {
        short
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
        lab.run
            .with(|run| Layout::viewed::<super::Linked>(run, width.get(), view, lanes))
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
        let bracket_end = lab.focus.cursor.get().or(lab.playback.playhead.get());
        lab.run.with(|run| {
            layout.with(|l| {
                l.rows
                    .iter()
                    .map(|row| {
                        let (summary, bracket, broke) = row_figures(run, row.kind, bracket_end);
                        let short = short_figure(run, row.kind);
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
                                <span class="row-name">{name}</span>
                                <span class="row-summary" title=whole>{if broke { "⚠ " } else { "" }}{summary}</span>
                                <span class="row-short" aria-hidden="true">{short}</span>
                                {bracket.map(|b| view! { <span class="row-bracket" data-testid=format!("bracket-{}", row.kind.id())>{b}</span> })}
                                {gauge_note.map(|g| view! { <span class="row-gauge">{g}</span> })}
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

    // Each lane's key, written over the lane's top left in every row (only the complete module
    // splits rows by key).
    #[cfg(feature = "workbench")]
    let lane_labels = move || {
        layout.with(|l| {
            let names = &l.lanes.names;
            l.rows
                .iter()
                .flat_map(|row| names.iter().enumerate().map(move |(lane, name)| (row, lane, name)))
                .map(|(row, lane, name)| {
                    let left = px(crate::layout::timeline::PAD_X);
                    view! { <span class="lane-label" data-testid="lane-label" style:top=px(l.lane_top(row, lane)) style:left=left>{name.clone()}</span> }
                })
                .collect_view()
        })
    };
    #[cfg(not(feature = "workbench"))]
    let lane_labels = ();
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
                    <div aria-hidden="true">{lane_labels}</div>
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
