//! The Durable Object lab's chart: each decision's latency against the timeout line, then the
//! object's queue as each request arrived, then the number of stored keys over time. Drawn with
//! plotters like the timelines, on the same time axis, with the same mark shapes.

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::CanvasRenderingContext2d;

use crate::core::durable::{Outcome, SimReport};
use crate::core::time::{Span, Time};

use crate::layout::latency::{
    chart_height, latency_ceiling, y_latency, LatencyMarks, LatencyView, GAP, LATENCY_H, QUEUE_H,
    STORED_H,
};
use crate::layout::timeline::{dashed_ring, PAD_X};

use super::draw::Palette;

/// Drawing errors come from the browser's canvas; their detail tells a person nothing they could
/// act on.
fn err<E>(_: E) -> String {
    "the timeline could not be drawn on this canvas".to_string()
}

/// Draws the chart: the scheduled faults, the timeout, `marks` (worked out for this report and
/// view), the queue and the stored keys.
pub fn draw_latency(
    canvas: &web_sys::HtmlCanvasElement,
    report: &SimReport,
    view: &LatencyView,
    marks: &LatencyMarks,
    palette: &Palette,
) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or("this browser gave no 2D canvas")?;
    let area = backend.into_drawing_area();
    let d = view.dpr;
    let p = |x: f64, y: f64| ((x * d).round() as i32, (y * d).round() as i32);
    let stroke = |w: f64| (w * d).round().max(1.0) as u32;
    area.fill(&palette.background).map_err(err)?;
    let height = chart_height();

    // The scheduled faults, across every strip: an outage, a slow period, an eviction.
    for (period, colour) in [
        (view.outage, palette.rejected),
        (view.slow, palette.degraded),
    ] {
        if let Some((start, end)) = period {
            let (x0, x1) = (view.x(Time(start.micros())), view.x(Time(end.micros())));
            area.draw(&Rectangle::new(
                [p(x0, 0.0), p(x1, height)],
                colour.mix(0.12).filled(),
            ))
            .map_err(err)?;
        }
    }
    if let Some(at) = view.evict_at {
        let x = view.x(Time(at.micros()));
        area.draw(&PathElement::new(
            vec![p(x, 0.0), p(x, height)],
            palette.rejected.stroke_width(stroke(1.5)),
        ))
        .map_err(err)?;
    }

    // Latency strip.
    let ceiling = latency_ceiling(report, view.timeout);
    let y_lat = |l: Span| y_latency(l, ceiling);
    area.draw(&PathElement::new(
        vec![p(0.0, LATENCY_H), p(view.width, LATENCY_H)],
        palette.grid.stroke_width(1),
    ))
    .map_err(err)?;
    // The timeout as a dashed line.
    let ty = y_lat(view.timeout);
    let mut x = PAD_X;
    while x < view.width - PAD_X {
        let x2 = (x + 8.0).min(view.width - PAD_X);
        area.draw(&PathElement::new(
            vec![p(x, ty), p(x2, ty)],
            palette.rejected.stroke_width(stroke(1.5)),
        ))
        .map_err(err)?;
        x += 14.0;
    }
    let r = 4.0;
    let ctx: CanvasRenderingContext2d = canvas
        .get_context("2d")
        .map_err(err)?
        .ok_or("this browser gave no 2D canvas")?
        .unchecked_into();
    let css = |c: RGBColor| format!("rgb({},{},{})", c.0, c.1, c.2);
    let device = |(x, y): (f64, f64)| ((x * d).round(), (y * d).round());
    let spots = &marks.spots;
    let allowed = spots[Outcome::Allowed as usize]
        .iter()
        .chain(&spots[Outcome::Delayed as usize]);
    ctx.begin_path();
    for &spot in allowed {
        let (x, y) = device(spot);
        ctx.move_to(x + r * d, y);
        ctx.arc(x, y, (r * d).round(), 0.0, std::f64::consts::TAU)
            .map_err(err)?;
    }
    ctx.set_fill_style_str(&css(palette.allowed));
    ctx.fill();
    ctx.begin_path();
    for &spot in &spots[Outcome::Rejected as usize] {
        let (x, y) = device(spot);
        let q = r * d;
        ctx.move_to(x - q, y - q);
        ctx.line_to(x + q, y + q);
        ctx.move_to(x - q, y + q);
        ctx.line_to(x + q, y - q);
    }
    ctx.set_stroke_style_str(&css(palette.rejected));
    ctx.set_line_width(f64::from(stroke(2.0)));
    ctx.stroke();
    for &(x, y) in &spots[Outcome::DegradedAllowed as usize] {
        let s = palette.degraded.stroke_width(stroke(2.0));
        for arc in dashed_ring(x, y, r) {
            let pts: Vec<(i32, i32)> = arc.into_iter().map(|(x, y)| p(x, y)).collect();
            area.draw(&PathElement::new(pts, s)).map_err(err)?;
        }
    }
    for &(x, y) in &spots[Outcome::FailedClosed as usize] {
        let s = palette.rejected.stroke_width(stroke(1.5));
        let q = r + 1.0;
        area.draw(&PathElement::new(
            vec![
                p(x - q, y - q),
                p(x + q, y - q),
                p(x + q, y + q),
                p(x - q, y + q),
                p(x - q, y - q),
            ],
            s,
        ))
        .map_err(err)?;
        area.draw(&PathElement::new(
            vec![p(x - r + 1.0, y - r + 1.0), p(x + r - 1.0, y + r - 1.0)],
            s,
        ))
        .map_err(err)?;
    }

    // Queue strip: how many the object held when each request arrived, the tallest per device
    // pixel column, in one path.
    let top = LATENCY_H + GAP;
    let max_queue = f64::from(report.longest_queue.max(1));
    area.draw(&PathElement::new(
        vec![p(0.0, top + QUEUE_H), p(view.width, top + QUEUE_H)],
        palette.grid.stroke_width(1),
    ))
    .map_err(err)?;
    ctx.begin_path();
    for (column, &depth) in marks
        .tallest
        .iter()
        .enumerate()
        .filter(|(_, &depth)| depth > 0)
    {
        let h = (f64::from(depth) / max_queue) * (QUEUE_H - 6.0);
        ctx.move_to(column as f64, ((top + QUEUE_H) * d).round());
        ctx.line_to(column as f64, ((top + QUEUE_H - h) * d).round());
    }
    ctx.set_stroke_style_str(&css(palette.delayed));
    ctx.set_line_width(f64::from(stroke(1.5)));
    ctx.stroke();

    // Stored keys strip, as steps.
    let top = LATENCY_H + GAP + QUEUE_H + GAP;
    let max_stored = f64::from(report.max_stored_keys.max(1));
    let y_st = |n: u32| top + STORED_H - 4.0 - (f64::from(n) / max_stored) * (STORED_H - 8.0);
    area.draw(&PathElement::new(
        vec![p(0.0, top + STORED_H), p(view.width, top + STORED_H)],
        palette.grid.stroke_width(1),
    ))
    .map_err(err)?;
    let mut points = Vec::new();
    let mut last = 0u32;
    // Changes after the end of the axis (alarms firing later) are not drawn at its edge.
    for &(t, n) in report
        .stored_keys
        .iter()
        .filter(|(t, _)| *t <= view.range.to)
    {
        let x = view.x(t);
        points.push(p(x, y_st(last)));
        points.push(p(x, y_st(n)));
        last = n;
    }
    points.push(p(view.width - PAD_X, y_st(last)));
    area.draw(&PathElement::new(
        points,
        palette.gauge.stroke_width(stroke(1.5)),
    ))
    .map_err(err)?;
    area.present().map_err(err)?;
    Ok(())
}
