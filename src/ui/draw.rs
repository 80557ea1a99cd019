//! Drawing the timelines on a canvas with plotters. Layout (where each row and each time sits)
//! is computed here once and shared with the component, which uses it for pointer hits and for
//! the HTML labels around the canvas; `draw` returns an error instead of panicking.
//!
//! Marks carry meaning by shape (colour only reinforces it): a filled dot is allowed, a cross is
//! rejected, a hollow dot joined to a small dot is delayed until its release, a dashed ring is
//! let through degraded, a cross in a square is refused because the limiter was unreachable.

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::CanvasRenderingContext2d;

use crate::core::decision::Verdict;
use crate::core::durable::Outcome;
use crate::core::lab::LabRun;
use crate::core::limiter::Algorithm;
use crate::core::time::{Time, MICROS_PER_SEC};

pub const ROW_H: f64 = 58.0;
pub const GAUGE_H: f64 = 30.0;
pub const PAD_X: f64 = 16.0;
/// Mark radius in CSS pixels (a 9 px mark, above the 6 px minimum).
const MARK_R: f64 = 4.5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    Algo(Algorithm),
    Durable,
}

impl RowKind {
    pub fn id(self) -> &'static str {
        match self {
            RowKind::Algo(a) => a.slug(),
            RowKind::Durable => "do",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct RowLayout {
    pub kind: RowKind,
    pub top: f64,
    pub height: f64,
    pub mark_y: f64,
    /// Top and height of the level strip under the row, when it has one.
    pub gauge: Option<(f64, f64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub rows: Vec<RowLayout>,
    pub width: f64,
    pub height: f64,
    pub horizon: Time,
}

impl Layout {
    pub fn new(run: &LabRun, width: f64) -> Layout {
        let mut rows = Vec::new();
        let mut top = 0.0;
        let mut push = |kind: RowKind, has_gauge: bool, rows: &mut Vec<RowLayout>| {
            let gauge = has_gauge.then_some((top + ROW_H, GAUGE_H));
            let height = ROW_H + if has_gauge { GAUGE_H } else { 0.0 };
            rows.push(RowLayout {
                kind,
                top,
                height,
                mark_y: top + ROW_H / 2.0,
                gauge,
            });
            top += height;
        };
        for r in &run.runs {
            push(
                RowKind::Algo(r.algorithm),
                run.gauge(r.algorithm).is_some(),
                &mut rows,
            );
        }
        if matches!(run.durable, Some(Ok(_))) {
            push(RowKind::Durable, false, &mut rows);
        }
        Layout {
            rows,
            width: width.max(2.0 * PAD_X + 10.0),
            height: top.max(ROW_H),
            horizon: run.horizon,
        }
    }

    pub fn x(&self, t: Time) -> f64 {
        x_of(t, self.horizon, self.width)
    }

    pub fn time_at(&self, x: f64) -> Time {
        time_of(x, self.horizon, self.width)
    }

    /// The layout as JSON, published on the canvas for tests and tools that read its pixels.
    /// Every length is a whole number of CSS pixels (rows are whole, the width is measured).
    pub fn to_json(&self) -> String {
        let int = |v: f64| v.round() as i64;
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| {
                format!(
                    "{{\"id\":\"{}\",\"top\":{},\"markY\":{},\"height\":{}}}",
                    r.kind.id(),
                    int(r.top),
                    int(r.mark_y),
                    int(r.height)
                )
            })
            .collect();
        format!(
            "{{\"padX\":{},\"width\":{},\"height\":{},\"horizonUs\":{},\"rows\":[{}]}}",
            int(PAD_X),
            int(self.width),
            int(self.height),
            self.horizon.micros(),
            rows.join(",")
        )
    }
}

/// Where time `t` sits on a canvas `width` wide showing `0..=horizon` (shared by every chart).
pub fn x_of(t: Time, horizon: Time, width: f64) -> f64 {
    PAD_X + (t.micros() as f64 / horizon.micros().max(1) as f64) * (width - 2.0 * PAD_X)
}

/// The time at `x` on such a canvas, clamped to the axis.
pub fn time_of(x: f64, horizon: Time, width: f64) -> Time {
    let frac = ((x - PAD_X) / (width - 2.0 * PAD_X)).clamp(0.0, 1.0);
    Time((frac * horizon.micros() as f64).round() as u64)
}

/// Tick times for the time axis: a round step giving at most about one tick per 90 px.
pub fn ticks(horizon: Time, width: f64) -> Vec<Time> {
    const STEPS_MS: [u64; 16] = [
        1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000,
    ];
    let max_ticks = (width / 90.0).floor().max(2.0) as u64;
    let horizon_ms = horizon.micros() / 1_000;
    let mut step_ms = STEPS_MS
        .iter()
        .copied()
        .find(|s| horizon_ms / s <= max_ticks)
        .unwrap_or(0);
    if step_ms == 0 {
        // Beyond the table: whole minutes, doubled until few enough.
        step_ms = 120_000;
        while horizon_ms / step_ms > max_ticks {
            step_ms *= 2;
        }
    }
    (0..=horizon_ms / step_ms)
        .map(|i| Time::from_millis(i * step_ms))
        .collect()
}

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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    Allowed,
    Rejected,
    Delayed,
    Degraded,
    FailedClosed,
}

type Area = DrawingArea<CanvasBackend, plotters::coord::Shift>;

/// Eight short arcs around (x, y), each a sixteenth of the circle with a gap as long after it:
/// a dashed ring.
pub fn dashed_ring(x: f64, y: f64, r: f64) -> impl Iterator<Item = Vec<(f64, f64)>> {
    use std::f64::consts::PI;
    (0..8).map(move |k| {
        let start = f64::from(k) * PI / 4.0;
        (0..=4)
            .map(|i| start + f64::from(i) * PI / 32.0)
            .map(|a| (x + r * a.cos(), y + r * a.sin()))
            .collect()
    })
}

/// Which (pixel column, mark) pairs a row has drawn: one bit set per mark kind per column, so
/// a million marks cost at most one drawing per column and kind.
struct Drawn {
    columns: Vec<u8>,
}

impl Drawn {
    fn new(width: usize) -> Drawn {
        Drawn {
            columns: vec![0; width],
        }
    }

    /// True when every mark in `marks` (a bit per `Mark`) is already drawn in this column.
    fn has_all(&self, column: i32, marks: u8) -> bool {
        usize::try_from(column)
            .ok()
            .and_then(|c| self.columns.get(c))
            .is_some_and(|slot| slot & marks == marks)
    }

    /// True the first time this mark lands in this column.
    fn insert(&mut self, column: i32, mark: Mark) -> bool {
        let bit = 1u8 << (mark as u8);
        match usize::try_from(column)
            .ok()
            .and_then(|c| self.columns.get_mut(c))
        {
            Some(slot) if *slot & bit == 0 => {
                *slot |= bit;
                true
            }
            Some(_) => false,
            None => true,
        }
    }
}

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

/// Which marks each device-pixel column of each row shows, worked out once per run and layout
/// (one pass over the decisions), so that a redraw while the pointer moves costs one look per
/// column instead of one per request: a million requests redraw as fast as a hundred.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MarkColumns {
    /// Per row of the layout: a bit per `Mark` for each column (bit 7: a delayed request is
    /// released here), and for delayed requests the farthest release (CSS x) from each column.
    rows: Vec<(Vec<u8>, Vec<f32>)>,
}

const RELEASED: u8 = 1 << 7;

impl MarkColumns {
    pub fn new(run: &LabRun, layout: &Layout, dpr: f64) -> MarkColumns {
        let mut builder = MarkColumnsBuilder::new(run, layout, dpr);
        while builder.add_row(run, layout) {}
        builder.finish()
    }
}

/// [`MarkColumns`] worked out a row at a time, so that a million requests over seven rows can be
/// done in several short tasks rather than one long one.
pub struct MarkColumnsBuilder {
    columns: usize,
    dpr: f64,
    /// Each request's column, worked out once for every row: a row is then one pass of
    /// look-ups, not a million conversions of time to pixels.
    request_columns: Vec<u32>,
    rows: Vec<(Vec<u8>, Vec<f32>)>,
}

impl MarkColumnsBuilder {
    pub fn new(run: &LabRun, layout: &Layout, dpr: f64) -> MarkColumnsBuilder {
        let columns = (layout.width * dpr).ceil() as usize + 2;
        let column = |x: f64| column_at(x, dpr, columns);
        let request_columns = run
            .trace
            .requests()
            .iter()
            .map(|r| column(layout.x(r.at)) as u32)
            .collect();
        MarkColumnsBuilder {
            columns,
            dpr,
            request_columns,
            rows: Vec::with_capacity(layout.rows.len()),
        }
    }

    /// Works out the next row; false once every row of `layout` is done.
    pub fn add_row(&mut self, run: &LabRun, layout: &Layout) -> bool {
        let Some(row) = layout.rows.get(self.rows.len()) else {
            return false;
        };
        let (columns, dpr) = (self.columns, self.dpr);
        let column = |x: f64| column_at(x, dpr, columns);
        let requests = run.trace.requests();
        let mut kinds = vec![0u8; columns];
        let mut reach = Vec::new();
        match row.kind {
            RowKind::Algo(a) => {
                if let Some(r) = run.run(a) {
                    if r.delayed > 0 {
                        reach = vec![0f32; columns];
                    }
                    // The request itself is read only for a delayed one, to find its release.
                    for (i, (verdict, &c)) in
                        r.verdicts.iter().zip(&self.request_columns).enumerate()
                    {
                        let c = c as usize;
                        let mark = match verdict {
                            Verdict::Allowed => Mark::Allowed,
                            Verdict::Rejected => Mark::Rejected,
                            Verdict::Delayed { by } => {
                                let release = layout.x(requests[i].at.plus(by));
                                kinds[column(release)] |= RELEASED;
                                reach[c] = reach[c].max(release as f32);
                                Mark::Delayed
                            }
                        };
                        kinds[c] |= 1 << mark as u8;
                    }
                }
            }
            RowKind::Durable => {
                if let Some(Ok(report)) = &run.durable {
                    for record in report.records.iter().filter(|r| r.attempt == 0) {
                        kinds[column(layout.x(record.sent))] |=
                            1 << outcome_mark(record.outcome) as u8;
                    }
                }
            }
        }
        self.rows.push((kinds, reach));
        self.rows.len() < layout.rows.len()
    }

    /// Rows done so far.
    pub fn rows_done(&self) -> usize {
        self.rows.len()
    }

    pub fn finish(self) -> MarkColumns {
        MarkColumns { rows: self.rows }
    }
}

/// A polyline with at most four points per device-pixel column (the first, the lowest, the
/// highest and the last there): the same picture as every point, for a level series of tens of
/// thousands of points drawn on every redraw.
fn thin_by_column(points: impl Iterator<Item = (f64, f64)>, dpr: f64) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    // The current column's first, lowest, highest and last points.
    let mut current: Option<(i64, [(f64, f64); 4])> = None;
    let flush = |out: &mut Vec<(f64, f64)>, group: [(f64, f64); 4]| {
        for p in group {
            if out.last() != Some(&p) {
                out.push(p);
            }
        }
    };
    for p in points {
        let column = (p.0 * dpr).floor() as i64;
        match &mut current {
            Some((c, group)) if *c == column => {
                if p.1 < group[1].1 {
                    group[1] = p;
                }
                if p.1 > group[2].1 {
                    group[2] = p;
                }
                group[3] = p;
            }
            _ => {
                if let Some((_, group)) = current.take() {
                    flush(&mut out, group);
                }
                current = Some((column, [p; 4]));
            }
        }
    }
    if let Some((_, group)) = current {
        flush(&mut out, group);
    }
    out
}

/// The device-pixel column of CSS x, the nearest as plotters rounds, so a mark sits exactly where
/// it did. (`floor(v + 0.5)` is `round` for these positive values, and a single instruction in
/// Wasm where `round` is a library call: it runs a million times per row.)
fn column_at(x: f64, dpr: f64, columns: usize) -> usize {
    (((x * dpr) + 0.5).floor().max(0.0) as usize).min(columns - 1)
}

fn outcome_mark(outcome: Outcome) -> Mark {
    match outcome {
        Outcome::Allowed => Mark::Allowed,
        Outcome::Rejected => Mark::Rejected,
        Outcome::Delayed => Mark::Delayed,
        Outcome::DegradedAllowed => Mark::Degraded,
        Outcome::FailedClosed => Mark::FailedClosed,
    }
}

/// Draws the marks of one row from its columns (the whole timeline, no playhead), in batched
/// paths on the canvas's own 2D context: one path per kind of mark per row instead of one
/// plotters call per mark, which is what keeps a redraw of thousands of marks within a frame.
/// The Durable Object's rarer marks (dashed ring, cross in a square) still go through plotters.
fn draw_columns(
    ctx: &CanvasRenderingContext2d,
    painter: &Painter,
    (kinds, reach): &(Vec<u8>, Vec<f32>),
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
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or("this browser gave no 2D canvas")?;
    let painter = Painter {
        area: backend.into_drawing_area(),
        dpr: view.dpr,
    };
    painter.area.fill(&palette.background).map_err(err)?;
    let window = run.settings.window;
    let visible_until = view.playhead.unwrap_or(Time(u64::MAX));

    // Grid: a faint line per tick, and the clock-aligned window seams, strongest under the rows
    // that count by the clock (fixed window, counter).
    for t in ticks(layout.horizon, layout.width) {
        let x = layout.x(t);
        painter.line(
            vec![(x, 0.0), (x, layout.height)],
            palette.grid.stroke_width(1),
        )?;
    }
    // Seams closer than 3 CSS pixels would only grey the row over: they are drawn when apart.
    let seams_apart = layout.x(Time(window.micros())) - layout.x(Time::ZERO) >= 3.0;
    for row in &layout.rows {
        if seams_apart
            && matches!(
                row.kind,
                RowKind::Algo(Algorithm::FixedWindow) | RowKind::Algo(Algorithm::SlidingCounter)
            )
        {
            let mut k = 1u64;
            while window.micros().saturating_mul(k) <= layout.horizon.micros() && k < 10_000 {
                let x = layout.x(Time(window.micros() * k));
                painter.line(
                    vec![(x, row.top + 4.0), (x, row.top + ROW_H - 4.0)],
                    palette.text.mix(0.45).stroke_width(painter.px(1.0) as u32),
                )?;
                k += 1;
            }
        }
        painter.line(
            vec![
                (0.0, row.top + row.height),
                (layout.width, row.top + row.height),
            ],
            palette.grid.stroke_width(1),
        )?;
    }

    // Each row's busiest window, tinted (stronger when it broke the promise).
    for row in &layout.rows {
        let worst = match row.kind {
            RowKind::Algo(a) => run.run(a).map(|r| (r.max_in_window, r.max_window_end)),
            RowKind::Durable => None,
        };
        if let Some((count, end)) = worst.filter(|&(c, _)| c > 0) {
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
                row.top + ROW_H - 2.0,
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
        let pts = thin_by_column(
            series
                .points
                .iter()
                .filter(|(t, _)| *t <= visible_until)
                .map(|&(t, l)| (layout.x(t), y_of(l))),
            view.dpr,
        );
        if pts.len() > 1 {
            painter.line(pts, palette.gauge.stroke_width(painter.px(1.5) as u32))?;
        }
    }

    // Marks: the whole timeline from the columns worked out once; up to a playhead, one per
    // request per row, marks that would land on the same pixel drawn once.
    let requests = run.trace.requests();
    if view.playhead.is_none() && columns.rows.len() == layout.rows.len() {
        let ctx: CanvasRenderingContext2d = canvas
            .get_context("2d")
            .map_err(err)?
            .ok_or("this browser gave no 2D canvas")?
            .unchecked_into();
        for (row, row_columns) in layout.rows.iter().zip(&columns.rows) {
            draw_columns(&ctx, &painter, row_columns, row.mark_y, view.dpr, palette)?;
        }
    }
    let width_columns = (layout.width * view.dpr).ceil() as usize + 2;
    for row in layout
        .rows
        .iter()
        .filter(|_| view.playhead.is_some() || columns.rows.len() != layout.rows.len())
    {
        let mut drawn = Drawn::new(width_columns);
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
                let mut i = 0;
                while let (Some(request), Some(verdict)) = (requests.get(i), r.verdicts.get(i)) {
                    if request.at > visible_until {
                        break;
                    }
                    let x = layout.x(request.at);
                    let column = (x * view.dpr) as i32;
                    let kind = match verdict {
                        Verdict::Allowed => Mark::Allowed,
                        Verdict::Rejected => Mark::Rejected,
                        Verdict::Delayed { by } => {
                            let release = layout.x(request.at.plus(by));
                            if drawn.insert((release * view.dpr) as i32, Mark::Allowed) {
                                let style = palette.delayed.stroke_width(painter.px(1.0) as u32);
                                painter.line(
                                    vec![(x + MARK_R, row.mark_y), (release, row.mark_y)],
                                    style,
                                )?;
                                painter
                                    .area
                                    .draw(&Circle::new(
                                        painter.p(release, row.mark_y),
                                        painter.px(2.0),
                                        palette.delayed.filled(),
                                    ))
                                    .map_err(err)?;
                            }
                            Mark::Delayed
                        }
                    };
                    if drawn.insert(column, kind) {
                        painter.mark(kind, x, row.mark_y, palette)?;
                    }
                    i += 1;
                    // A delayed request also marks its release elsewhere: those rows look at each.
                    if r.delayed == 0 && drawn.has_all(column, kinds_here) {
                        let next_column = layout.time_at((column + 1) as f64 / view.dpr);
                        i = i.max(requests.partition_point(|q| q.at < next_column));
                    }
                }
            }
            RowKind::Durable => {
                let Some(Ok(report)) = &run.durable else {
                    continue;
                };
                for record in report.records.iter().filter(|r| r.attempt == 0) {
                    if record.sent > visible_until {
                        break;
                    }
                    let x = layout.x(record.sent);
                    let kind = outcome_mark(record.outcome);
                    if drawn.insert((x * view.dpr) as i32, kind) {
                        painter.mark(kind, x, row.mark_y, palette)?;
                    }
                }
            }
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
                    painter.p(x, row.mark_y),
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
    painter.area.present().map_err(err)?;
    Ok(())
}

/// Formats a tick or a time for labels: "12 s", "1.5 s", "250 ms", "2 min".
pub fn time_label(t: Time) -> String {
    let us = t.micros();
    if us == 0 {
        return "0".into();
    }
    if us.is_multiple_of(60 * MICROS_PER_SEC) && us >= 120 * MICROS_PER_SEC {
        return format!("{} min", us / (60 * MICROS_PER_SEC));
    }
    if us < MICROS_PER_SEC {
        // format_seconds reads microseconds; fed thousandths, it prints milliseconds.
        return format!("{} ms", crate::core::time::format_seconds(us * 1000));
    }
    format!("{} s", crate::core::time::format_seconds(us))
}
