//! Drawing the timelines on a canvas with plotters. The geometry (where each row, lane and time
//! of the stretch shown sits, which marks each pixel column shows) is worked out natively in
//! `crate::layout`; this module only paints it, and `draw` returns an error instead of panicking.
//!
//! Marks carry meaning by shape (colour only reinforces it): a filled dot is allowed, a cross is
//! rejected, a hollow dot joined to a small dot is delayed until its release, a dashed ring is
//! let through degraded, a cross in a square is refused because the limiter was unreachable.

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::CanvasRenderingContext2d;

use super::draw_bars::paint_bars;
use crate::core::lab::LabRun;
use crate::core::limiter::Algorithm;
use crate::core::time::Time;
use crate::layout::marks::{cluster_columns, PlacedMark};
use crate::layout::polyline::{drop_straight_runs, thin_by_column};
use crate::layout::timeline::{
    dashed_ring, mark_width, Layout, Mark, MarkColumns, RowKind, Track, MARK_R, PAD_X,
};

/// Colours for one theme. Okabe-Ito hues, safe for colour-blind readers.
#[derive(Clone, Copy, Debug)]
pub struct Palette {
    pub background: RGBColor,
    pub grid: RGBColor,
    pub text: RGBColor,
    pub allowed: RGBColor,
    pub rejected: RGBColor,
    pub delayed: RGBColor,
    pub degraded: RGBColor,
    pub bracket: RGBColor,
    pub worst: RGBColor,
    pub gauge: RGBColor,
}

impl Palette {
    pub fn light() -> Palette {
        Palette {
            background: RGBColor(255, 255, 255),
            grid: RGBColor(226, 223, 216),
            text: RGBColor(29, 29, 31),
            allowed: RGBColor(0, 158, 115),
            rejected: RGBColor(213, 94, 0),
            delayed: RGBColor(0, 114, 178),
            degraded: RGBColor(230, 159, 0),
            bracket: RGBColor(0, 114, 178),
            worst: RGBColor(213, 94, 0),
            gauge: RGBColor(86, 180, 233),
        }
    }

    pub fn dark() -> Palette {
        Palette {
            background: RGBColor(29, 31, 37),
            grid: RGBColor(58, 60, 68),
            text: RGBColor(236, 236, 241),
            allowed: RGBColor(60, 207, 158),
            rejected: RGBColor(240, 138, 75),
            delayed: RGBColor(86, 180, 233),
            degraded: RGBColor(240, 190, 60),
            bracket: RGBColor(86, 180, 233),
            worst: RGBColor(240, 138, 75),
            gauge: RGBColor(86, 180, 233),
        }
    }
}

/// What changes between redraws without changing the data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    pub playhead: Option<Time>,
    pub cursor: Option<Time>,
    pub selected: Option<usize>,
    pub dpr: f64,
}

type Area = DrawingArea<CanvasBackend, plotters::coord::Shift>;

/// Drawing errors come from the browser's canvas; their detail tells a person nothing they could
/// act on.
fn err<E>(_: E) -> String {
    "the timeline could not be drawn on this canvas".to_string()
}

struct Painter {
    area: Area,
    dpr: f64,
}

impl Painter {
    /// A painter on `canvas`'s 2D context, `dpr` device pixels to a CSS pixel.
    fn on(canvas: &web_sys::HtmlCanvasElement, dpr: f64) -> Result<Painter, String> {
        let backend = CanvasBackend::with_canvas_object(canvas.clone())
            .ok_or("this browser gave no 2D canvas")?;
        Ok(Painter {
            area: backend.into_drawing_area(),
            dpr,
        })
    }

    fn p(&self, x: f64, y: f64) -> (i32, i32) {
        ((x * self.dpr).round() as i32, (y * self.dpr).round() as i32)
    }

    fn px(&self, v: f64) -> i32 {
        (v * self.dpr).round().max(1.0) as i32
    }

    fn rect(&self, x0: f64, y0: f64, x1: f64, y1: f64, style: ShapeStyle) -> Result<(), String> {
        self.area
            .draw(&Rectangle::new([self.p(x0, y0), self.p(x1, y1)], style))
            .map_err(err)
    }

    fn line(&self, points: Vec<(f64, f64)>, style: ShapeStyle) -> Result<(), String> {
        let pts: Vec<(i32, i32)> = points.into_iter().map(|(x, y)| self.p(x, y)).collect();
        self.area.draw(&PathElement::new(pts, style)).map_err(err)
    }

    fn mark(&self, kind: Mark, x: f64, y: f64, palette: &Palette) -> Result<(), String> {
        let r = MARK_R;
        let stroke = self.px(2.0) as u32;
        match kind {
            Mark::Allowed => self
                .area
                .draw(&Circle::new(
                    self.p(x, y),
                    self.px(r),
                    palette.allowed.filled(),
                ))
                .map_err(err),
            Mark::Rejected => {
                let style = palette.rejected.stroke_width(stroke);
                self.line(vec![(x - r, y - r), (x + r, y + r)], style)?;
                self.line(vec![(x - r, y + r), (x + r, y - r)], style)
            }
            Mark::Delayed => self
                .area
                .draw(&Circle::new(
                    self.p(x, y),
                    self.px(r),
                    palette.delayed.stroke_width(stroke),
                ))
                .map_err(err),
            Mark::Degraded => {
                // A dashed ring: eight arcs with gaps between them.
                let style = palette.degraded.stroke_width(stroke);
                for arc in dashed_ring(x, y, r) {
                    self.line(arc, style)?;
                }
                Ok(())
            }
            Mark::FailedClosed => {
                let style = palette.rejected.stroke_width(stroke);
                let s = r + 1.5;
                self.line(
                    vec![
                        (x - s, y - s),
                        (x + s, y - s),
                        (x + s, y + s),
                        (x - s, y + s),
                        (x - s, y - s),
                    ],
                    style,
                )?;
                let c = r - 1.0;
                self.line(vec![(x - c, y - c), (x + c, y + c)], style)?;
                self.line(vec![(x - c, y + c), (x + c, y - c)], style)
            }
        }
    }
}

/// Draws one mark of `kind` at (`x`, `y`) CSS pixels on `canvas`, `dpr` device pixels to one: an
/// exported picture's legend draws the very marks the timelines do.
#[cfg(feature = "workbench")]
pub fn draw_mark(
    canvas: &web_sys::HtmlCanvasElement,
    kind: Mark,
    (x, y): (f64, f64),
    dpr: f64,
    palette: &Palette,
) -> Result<(), String> {
    Painter::on(canvas, dpr)?.mark(kind, x, y, palette)
}

/// Draws one lane's plan (`layout::marks`): its lone marks, and its clusters as bars in
/// proportion to their counts, in batched paths on the canvas's own 2D context (one path per
/// colour per lane, not one plotters call per mark), which is what keeps a redraw of a million
/// requests within a frame. Up to a playhead, only what lies left of its column is drawn. The
/// Durable Object's rarer marks (dashed ring, cross in a square) still go through plotters.
fn draw_plan(
    ctx: &CanvasRenderingContext2d,
    painter: &Painter,
    plan: &Track,
    mark_y: f64,
    until: u32,
    palette: &Palette,
) -> Result<(), String> {
    let dpr = painter.dpr;
    let css = |c: RGBColor| format!("rgb({},{},{})", c.0, c.1, c.2);
    let y = (mark_y * dpr).round();
    let r = (MARK_R * dpr).round().max(1.0);
    let marks = || plan.marks.iter().filter(|m| m.column <= until);
    let centre = |m: &PlacedMark| f64::from(m.column);

    let colour_of = |kind: Mark| match kind {
        Mark::Allowed => palette.allowed,
        Mark::Rejected | Mark::FailedClosed => palette.rejected,
        Mark::Delayed => palette.delayed,
        Mark::Degraded => palette.degraded,
    };
    paint_bars(ctx, plan, y, until, colour_of);
    // A cluster narrower than a mark has its count beside its bar.
    let labels: Vec<_> = plan
        .clusters
        .iter()
        .filter(|c| c.narrow && (c.first + c.last) / 2 <= until)
        .collect();
    if !labels.is_empty() {
        ctx.set_font(&format!("{}px system-ui, sans-serif", (12.0 * dpr).round()));
        ctx.set_text_baseline("middle");
        ctx.set_fill_style_str(&css(palette.text));
        for cluster in labels {
            let span = cluster_columns(cluster, mark_width(dpr));
            let x = f64::from(span.end) + 3.0 * dpr;
            ctx.fill_text(&cluster.requests().to_string(), x, y - 6.0 * dpr)
                .map_err(err)?;
        }
    }

    // Delayed requests: a line to their release, and a small dot there.
    let delayed = || marks().filter_map(|m| m.release.map(|x| (m, f64::from(x) * dpr)));
    if delayed().next().is_some() {
        ctx.begin_path();
        for (m, release) in delayed().filter(|&(m, release)| release > centre(m)) {
            ctx.move_to(centre(m) + r, y);
            ctx.line_to(release, y);
        }
        ctx.set_stroke_style_str(&css(palette.delayed));
        ctx.set_line_width(dpr.round().max(1.0));
        ctx.stroke();
        circles(ctx, delayed().map(|(_, release)| release), y, 2.0 * dpr)?;
        ctx.set_fill_style_str(&css(palette.delayed));
        ctx.fill();
    }
    // Allowed: filled dots.
    let of_kind = |kind: Mark| marks().filter(move |m| m.kind == kind).map(centre);
    circles(ctx, of_kind(Mark::Allowed), y, r)?;
    ctx.set_fill_style_str(&css(palette.allowed));
    ctx.fill();
    // Rejected: crosses; delayed: hollow rings.
    let stroke = (2.0 * dpr).round().max(1.0);
    ctx.set_line_width(stroke);
    ctx.begin_path();
    for x in of_kind(Mark::Rejected) {
        ctx.move_to(x - r, y - r);
        ctx.line_to(x + r, y + r);
        ctx.move_to(x - r, y + r);
        ctx.line_to(x + r, y - r);
    }
    ctx.set_stroke_style_str(&css(palette.rejected));
    ctx.stroke();
    circles(ctx, of_kind(Mark::Delayed), y, r)?;
    ctx.set_stroke_style_str(&css(palette.delayed));
    ctx.stroke();
    for m in marks().filter(|m| matches!(m.kind, Mark::Degraded | Mark::FailedClosed)) {
        painter.mark(m.kind, centre(m) / dpr, mark_y, palette)?;
    }
    Ok(())
}

/// Starts a path of circles of radius `r` centred at each x on the line `y` (device pixels), for
/// the caller to fill or stroke in one call.
fn circles(
    ctx: &CanvasRenderingContext2d,
    xs: impl Iterator<Item = f64>,
    y: f64,
    r: f64,
) -> Result<(), String> {
    ctx.begin_path();
    for x in xs {
        ctx.move_to(x + r, y);
        ctx.arc(x, y, r, 0.0, std::f64::consts::TAU).map_err(err)?;
    }
    Ok(())
}

/// Each lane's busiest window (`layout::timeline::lane_busiest`), worked out once per run and
/// split: a redraw while the pointer moves looks them up. The run is kept with them, so that no
/// later run can be taken for it. Only the complete module splits rows by key.
#[cfg(feature = "workbench")]
fn lane_tints(
    run: &std::sync::Arc<LabRun>,
    layout: &Layout,
) -> std::rc::Rc<Vec<Option<(u64, Time)>>> {
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::sync::Arc;
    type Made = (
        Arc<LabRun>,
        crate::layout::timeline::KeyLanes,
        usize,
        Rc<Vec<Option<(u64, Time)>>>,
    );
    thread_local! {
        static LAST: RefCell<Option<Made>> = const { RefCell::new(None) };
    }
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if let Some((of, lanes, rows, tints)) = last.as_ref() {
            if Arc::ptr_eq(of, run) && *lanes == layout.lanes && *rows == layout.rows.len() {
                return tints.clone();
            }
        }
        let tints = Rc::new(crate::layout::timeline::lane_busiest(run, layout));
        *last = Some((
            run.clone(),
            layout.lanes.clone(),
            layout.rows.len(),
            tints.clone(),
        ));
        tints
    })
}

#[cfg(not(feature = "workbench"))]
fn lane_tints(_: &std::sync::Arc<LabRun>, _: &Layout) -> std::rc::Rc<Vec<Option<(u64, Time)>>> {
    std::rc::Rc::new(Vec::new())
}

/// A strip of a row that may be tinted: its busiest window (how many, and when it ends), and the
/// strip's top and bottom.
type TintStrip = (Option<(u64, Time)>, f64, f64);

/// Draws every row of `run` on `canvas` (already sized to `layout` × `view.dpr`).
pub fn draw(
    canvas: &web_sys::HtmlCanvasElement,
    run: &std::sync::Arc<LabRun>,
    layout: &Layout,
    columns: &MarkColumns,
    view: &View,
    palette: &Palette,
) -> Result<(), String> {
    let painter = Painter::on(canvas, view.dpr)?;
    painter.area.fill(&palette.background).map_err(err)?;
    let ctx: CanvasRenderingContext2d = canvas
        .get_context("2d")
        .map_err(err)?
        .ok_or("this browser gave no 2D canvas")?
        .unchecked_into();
    // Zoomed in, nothing is drawn in the margins: what lies beyond the stretch shown (a window
    // bracket, a level line, a delay's line) stops where the marks do.
    let zoomed = !layout.range.is_whole(layout.horizon);
    if zoomed {
        let edge = (PAD_X - MARK_R - 3.0) * view.dpr;
        ctx.save();
        ctx.begin_path();
        ctx.rect(
            edge,
            0.0,
            layout.width * view.dpr - 2.0 * edge,
            layout.height * view.dpr,
        );
        ctx.clip();
    }
    let window = run.settings.window;
    let visible_until = view.playhead.unwrap_or(Time(u64::MAX));

    // Grid: a faint line per tick, and the clock-aligned window seams, strongest under the rows
    // that count by the clock (fixed window, counter).
    for t in layout.ticks() {
        let x = layout.x(t);
        painter.line(
            vec![(x, 0.0), (x, layout.height)],
            palette.grid.stroke_width(1),
        )?;
    }
    // Seams closer than 3 CSS pixels would only grey the row over: they are drawn when apart.
    let seams_apart = layout.x(Time(window.micros())) - layout.x(Time::ZERO) >= 3.0;
    let w = window.micros().max(1);
    let last_seam = layout.range.to.micros().min(layout.horizon.micros());
    for row in &layout.rows {
        if seams_apart
            && matches!(
                row.kind,
                RowKind::Algo(Algorithm::FixedWindow) | RowKind::Algo(Algorithm::SlidingCounter)
            )
        {
            let mut k = layout.range.from.micros().div_ceil(w).max(1);
            let mut drawn = 0;
            while w.saturating_mul(k) <= last_seam && drawn < 10_000 {
                let x = layout.x(Time(w * k));
                painter.line(
                    vec![(x, row.body_top + 4.0), (x, row.body_top + row.body - 4.0)],
                    palette.text.mix(0.45).stroke_width(painter.px(1.0) as u32),
                )?;
                k += 1;
                drawn += 1;
            }
        }
        // Between a row's lanes, a fainter line than between rows.
        for lane in 1..layout.lanes.count() {
            let y = layout.lane_top(row, lane);
            painter.line(
                vec![(PAD_X, y), (layout.width - PAD_X, y)],
                palette.grid.mix(0.5).stroke_width(1),
            )?;
        }
        painter.line(
            vec![
                (0.0, row.top + row.height),
                (layout.width, row.top + row.height),
            ],
            palette.grid.stroke_width(1),
        )?;
    }

    // Each row's busiest window, tinted (stronger when it broke the promise), once playback has
    // drawn its last mark: the tint never stands over marks not yet shown. Split by key, each
    // lane's own busiest window, in that lane alone.
    let lanes = layout.lanes.count();
    let tints = lane_tints(run, layout);
    for (index, row) in layout.rows.iter().enumerate() {
        let strips: Vec<TintStrip> = match lanes {
            1 => {
                let worst = match row.kind {
                    RowKind::Algo(a) => run.run(a).map(|r| (r.max_in_window, r.max_window_end)),
                    RowKind::Durable => None,
                };
                vec![(worst, row.body_top + 2.0, row.body_top + row.body - 2.0)]
            }
            _ => (0..lanes)
                .map(|lane| {
                    let top = layout.lane_top(row, lane);
                    (
                        tints.get(index * lanes + lane).copied().flatten(),
                        top + 1.0,
                        top + layout.lane_h - 1.0,
                    )
                })
                .collect(),
        };
        for (worst, top, bottom) in strips {
            let Some((count, end)) = worst.filter(|&(c, end)| c > 0 && end <= visible_until) else {
                continue;
            };
            let start = Time(end.micros().saturating_sub(window.micros()));
            let alpha = if count > run.settings.limit {
                0.16
            } else {
                0.06
            };
            painter.rect(
                layout.x(start),
                top,
                layout.x(end),
                bottom,
                palette.worst.mix(alpha).filled(),
            )?;
        }
    }

    // The window bracket at the cursor (or the playhead).
    if let Some(end) = view.cursor.or(view.playhead) {
        let start = Time(end.micros().saturating_sub(window.micros()));
        let (x0, x1) = (layout.x(start), layout.x(end));
        painter.rect(
            x0,
            0.0,
            x1,
            layout.height,
            palette.bracket.mix(0.10).filled(),
        )?;
        let edge = palette
            .bracket
            .mix(0.8)
            .stroke_width(painter.px(1.5) as u32);
        painter.line(vec![(x0, 0.0), (x0, layout.height)], edge)?;
        painter.line(vec![(x1, 0.0), (x1, layout.height)], edge)?;
    }

    // Levels under the rows that have them.
    for row in &layout.rows {
        let (RowKind::Algo(a), Some((top, height))) = (row.kind, row.gauge) else {
            continue;
        };
        let Some(series) = run.gauge(a) else { continue };
        let max = series.max.max(1e-9);
        let y_of = |level: f64| top + height - 4.0 - (level / max).clamp(0.0, 1.0) * (height - 8.0);
        painter.line(
            vec![(PAD_X, y_of(0.0)), (layout.width - PAD_X, y_of(0.0))],
            palette.grid.stroke_width(1),
        )?;
        // Within a quarter of a device pixel of every sample: the canvas is drawn on whole
        // pixels (`Painter::p`), so the line looks the same with a few dozen points as with all.
        let pts = drop_straight_runs(
            &thin_by_column(
                series
                    .points
                    .iter()
                    .filter(|(t, _)| *t <= visible_until)
                    .map(|&(t, l)| (layout.x(t), y_of(l))),
                view.dpr,
            ),
            0.25 / view.dpr,
        );
        if pts.len() > 1 {
            painter.line(pts, palette.gauge.stroke_width(painter.px(1.5) as u32))?;
        }
    }

    // Marks and bars, from each lane's plan worked out once (`layout::marks`); up to a playhead,
    // only what lies left of it.
    let requests = run.trace.requests();
    let lanes = layout.lanes.count();
    let until = match view.playhead {
        Some(t) if t < layout.range.from => None,
        Some(t) => Some(((layout.x(t.min(layout.range.to)) * view.dpr).floor()).max(0.0) as u32),
        None => Some(u32::MAX),
    };
    if let (Some(until), true) = (until, columns.tracks().len() == layout.rows.len() * lanes) {
        let mut tracks = columns.tracks().iter();
        for row in &layout.rows {
            for (lane, track) in (0..lanes).zip(tracks.by_ref()) {
                let y = layout.mark_y(row, lane);
                draw_plan(&ctx, &painter, track, y, until, palette)?;
            }
        }
    }

    // Retries of clients that obey, each joined to the refusal that sent it.
    #[cfg(feature = "workbench")]
    {
        let ctx: CanvasRenderingContext2d = canvas
            .get_context("2d")
            .map_err(err)?
            .ok_or("this browser gave no 2D canvas")?
            .unchecked_into();
        let colours = super::draw_retries::RetryColours {
            allowed: palette.allowed,
            rejected: palette.rejected,
            text: palette.text,
        };
        let drawn =
            super::draw_retries::draw_retries(&ctx, run, layout, visible_until, view.dpr, colours)?;
        if canvas.get_attribute("data-retries").as_deref() != Some(drawn.as_str()) {
            let _ = canvas.set_attribute("data-retries", &drawn);
        }
    }

    // The selected request: a ring in every row.
    if let Some(req) = view.selected.and_then(|i| requests.get(i)) {
        let x = layout.x(req.at);
        painter.line(
            vec![(x, 0.0), (x, layout.height)],
            palette.text.mix(0.35).stroke_width(1),
        )?;
        for row in &layout.rows {
            painter
                .area
                .draw(&Circle::new(
                    painter.p(x, layout.request_y(row, req)),
                    painter.px(MARK_R + 4.0),
                    palette.text.stroke_width(painter.px(1.5) as u32),
                ))
                .map_err(err)?;
        }
    }

    if let Some(t) = view.playhead {
        let x = layout.x(t);
        painter.line(
            vec![(x, 0.0), (x, layout.height)],
            palette.text.stroke_width(painter.px(2.0) as u32),
        )?;
    }
    if zoomed {
        ctx.restore();
    }
    painter.area.present().map_err(err)?;
    Ok(())
}
