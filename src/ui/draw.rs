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

use crate::core::decision::Verdict;
use crate::core::lab::LabRun;
use crate::core::limiter::Algorithm;
use crate::core::time::Time;
use crate::layout::polyline::{drop_straight_runs, thin_by_column};
use crate::layout::timeline::{
    dashed_ring, outcome_mark, Drawn, Layout, Mark, MarkColumns, RowKind, Track, MARK_R, PAD_X,
    RELEASED,
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

/// Draws the marks of one row from its columns (the whole timeline, no playhead), in batched
/// paths on the canvas's own 2D context: one path per kind of mark per row instead of one
/// plotters call per mark, which is what keeps a redraw of thousands of marks within a frame.
/// The Durable Object's rarer marks (dashed ring, cross in a square) still go through plotters.
fn draw_columns(
    ctx: &CanvasRenderingContext2d,
    painter: &Painter,
    (kinds, reach): &Track,
    mark_y: f64,
    dpr: f64,
    palette: &Palette,
) -> Result<(), String> {
    let css = |c: RGBColor| format!("rgb({},{},{})", c.0, c.1, c.2);
    let y = (mark_y * dpr).round();
    let r = (MARK_R * dpr).round().max(1.0);
    let has = |bits: u8, mark: Mark| bits & (1 << mark as u8) != 0;
    let centre = |c: usize| c as f64;
    let marked = || kinds.iter().enumerate().filter(|(_, &bits)| bits != 0);

    // Delayed requests: a line to their release, and a small dot there.
    if !reach.is_empty() {
        ctx.begin_path();
        for (c, _) in marked() {
            let release = f64::from(reach[c]) * dpr;
            if release > centre(c) {
                ctx.move_to(centre(c) + r, y);
                ctx.line_to(release, y);
            }
        }
        ctx.set_stroke_style_str(&css(palette.delayed));
        ctx.set_line_width(dpr.round().max(1.0));
        ctx.stroke();
        circles(
            ctx,
            marked()
                .filter(|(_, &bits)| bits & RELEASED != 0)
                .map(|(c, _)| centre(c)),
            y,
            2.0 * dpr,
        )?;
        ctx.set_fill_style_str(&css(palette.delayed));
        ctx.fill();
    }
    // Allowed: filled dots.
    circles(
        ctx,
        marked()
            .filter(|(_, &bits)| has(bits, Mark::Allowed))
            .map(|(c, _)| centre(c)),
        y,
        r,
    )?;
    ctx.set_fill_style_str(&css(palette.allowed));
    ctx.fill();
    // Rejected: crosses; delayed: hollow rings.
    let stroke = (2.0 * dpr).round().max(1.0);
    ctx.set_line_width(stroke);
    ctx.begin_path();
    for (c, _) in marked().filter(|(_, &bits)| has(bits, Mark::Rejected)) {
        let x = centre(c);
        ctx.move_to(x - r, y - r);
        ctx.line_to(x + r, y + r);
        ctx.move_to(x - r, y + r);
        ctx.line_to(x + r, y - r);
    }
    ctx.set_stroke_style_str(&css(palette.rejected));
    ctx.stroke();
    circles(
        ctx,
        marked()
            .filter(|(_, &bits)| has(bits, Mark::Delayed))
            .map(|(c, _)| centre(c)),
        y,
        r,
    )?;
    ctx.set_stroke_style_str(&css(palette.delayed));
    ctx.stroke();
    for (c, &bits) in marked() {
        for mark in [Mark::Degraded, Mark::FailedClosed]
            .into_iter()
            .filter(|&m| has(bits, m))
        {
            painter.mark(mark, centre(c) / dpr, mark_y, palette)?;
        }
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

/// Draws every row of `run` on `canvas` (already sized to `layout` × `view.dpr`).
pub fn draw(
    canvas: &web_sys::HtmlCanvasElement,
    run: &LabRun,
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
                    vec![(x, row.top + 4.0), (x, row.top + row.body - 4.0)],
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
    // drawn its last mark: the tint never stands over marks not yet shown.
    for row in &layout.rows {
        let worst = match row.kind {
            RowKind::Algo(a) => run.run(a).map(|r| (r.max_in_window, r.max_window_end)),
            RowKind::Durable => None,
        };
        if let Some((count, end)) = worst.filter(|&(c, end)| c > 0 && end <= visible_until) {
            let start = Time(end.micros().saturating_sub(window.micros()));
            let alpha = if count > run.settings.limit {
                0.16
            } else {
                0.06
            };
            painter.rect(
                layout.x(start),
                row.top + 2.0,
                layout.x(end),
                row.top + row.body - 2.0,
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

    // Marks: the whole timeline from the columns worked out once; up to a playhead, one per
    // request per row, marks that would land on the same pixel drawn once.
    let requests = run.trace.requests();
    let lanes = layout.lanes.count();
    let from_columns =
        view.playhead.is_none() && columns.tracks().len() == layout.rows.len() * lanes;
    if from_columns {
        let mut tracks = columns.tracks().iter();
        for row in &layout.rows {
            for (lane, track) in (0..lanes).zip(tracks.by_ref()) {
                let y = layout.mark_y(row, lane);
                draw_columns(&ctx, &painter, track, y, view.dpr, palette)?;
            }
        }
    }
    let width_columns = (layout.width * view.dpr).ceil() as usize + 2;
    let shown = layout.shown(requests);
    for row in layout.rows.iter().filter(|_| !from_columns) {
        let mut drawn: Vec<Drawn> = (0..lanes).map(|_| Drawn::new(width_columns)).collect();
        match row.kind {
            RowKind::Algo(a) => {
                let Some(r) = run.run(a) else { continue };
                // Once a column shows every kind of mark this row can have, the rest of its
                // requests would draw nothing: jump to the first request of the next column, so a
                // million requests cost about one look per column, not one per request.
                let kinds_here = (1u8 << Mark::Allowed as u8)
                    | (1u8 << Mark::Rejected as u8)
                    | if r.delayed > 0 {
                        1u8 << Mark::Delayed as u8
                    } else {
                        0
                    };
                let mut i = shown.start;
                while let (Some(request), Some(verdict), true) =
                    (requests.get(i), r.verdicts.get(i), i < shown.end)
                {
                    if request.at > visible_until {
                        break;
                    }
                    let x = layout.x(request.at);
                    let lane = layout.lanes.lane(request.key);
                    let (y, drawn) = (layout.mark_y(row, lane), &mut drawn[lane.min(lanes - 1)]);
                    let column = (x * view.dpr) as i32;
                    let kind = match verdict {
                        Verdict::Allowed => Mark::Allowed,
                        Verdict::Rejected => Mark::Rejected,
                        Verdict::Delayed { by } => {
                            let release = layout.x(request.at.plus(by));
                            if drawn.insert((release * view.dpr) as i32, Mark::Allowed) {
                                let style = palette.delayed.stroke_width(painter.px(1.0) as u32);
                                painter.line(vec![(x + MARK_R, y), (release, y)], style)?;
                                painter
                                    .area
                                    .draw(&Circle::new(
                                        painter.p(release, y),
                                        painter.px(2.0),
                                        palette.delayed.filled(),
                                    ))
                                    .map_err(err)?;
                            }
                            Mark::Delayed
                        }
                    };
                    if drawn.insert(column, kind) {
                        painter.mark(kind, x, y, palette)?;
                    }
                    i += 1;
                    // A delayed request also marks its release elsewhere: those rows look at each.
                    // So do split rows, whose next request may be in another lane.
                    if r.delayed == 0 && lanes == 1 && drawn.has_all(column, kinds_here) {
                        let next_column = layout.time_at((column + 1) as f64 / view.dpr);
                        i = i.max(requests.partition_point(|q| q.at < next_column));
                    }
                }
            }
            RowKind::Durable => {
                let Some(Ok(report)) = &run.durable else {
                    continue;
                };
                let shown = report
                    .records
                    .iter()
                    .filter(|r| r.attempt == 0 && layout.range.contains(r.sent));
                for record in shown {
                    if record.sent > visible_until {
                        break;
                    }
                    let x = layout.x(record.sent);
                    let lane = layout.lanes.lane(record.key).min(lanes - 1);
                    let kind = outcome_mark(record.outcome);
                    if drawn[lane].insert((x * view.dpr) as i32, kind) {
                        painter.mark(kind, x, layout.mark_y(row, lane), palette)?;
                    }
                }
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
        super::draw_retries::draw_retries(&ctx, run, layout, visible_until, view.dpr, colours)?;
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
