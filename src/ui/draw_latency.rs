//! The Durable Object lab's chart: each decision's latency against the labelled timeout line,
//! then the object's queue as each request arrived, then the number of stored keys over time, on
//! the same time axis and with the same mark shapes as the timelines, and where marks would touch
//! the same bars in proportion to the counts (`layout::latency` plans them). Each strip has its title
//! and its scale on the canvas itself, so an exported picture reads on its own. Painted with the
//! canvas's own 2D calls: a few paths and texts, every place worked out in `layout::latency`.

use plotters::style::RGBColor;
use wasm_bindgen::JsCast;
use web_sys::CanvasRenderingContext2d;

use crate::core::durable::{Outcome, SimReport};
use crate::core::time::Time;

use crate::layout::marks::{cluster_columns, Mark};
use crate::layout::timeline::mark_width;

use crate::layout::latency::{
    chart_height, y_queue, y_stored, Axes, LatencyMarks, LatencyView, AXIS_W, QUEUE_H, QUEUE_TOP,
    STORED_H, STORED_TOP, TITLES,
};

use super::draw::Palette;
use super::draw_bars::paint_bars;

/// Drawing errors come from the browser's canvas; their detail tells a person nothing they could
/// act on.
fn err<E>(_: E) -> String {
    "the Durable Object chart could not be drawn on this canvas".to_string()
}

fn css(c: RGBColor, alpha: f64) -> String {
    format!("rgba({},{},{},{alpha})", c.0, c.1, c.2)
}

/// Draws the chart: the scheduled faults, the strips' titles and scales, the timeout, `marks`
/// (worked out for this report and view), the queue, the stored keys, and a ring around `focus`.
pub fn draw_latency(
    canvas: &web_sys::HtmlCanvasElement,
    report: &SimReport,
    view: &LatencyView,
    marks: &LatencyMarks,
    axes: &Axes,
    focus: Option<(f64, f64)>,
    palette: &Palette,
) -> Result<(), String> {
    let ctx: CanvasRenderingContext2d = canvas
        .get_context("2d")
        .map_err(err)?
        .ok_or("this browser gave no 2D canvas")?
        .unchecked_into();
    // A text or an arc is refused only for a coordinate that is not finite, which these never
    // are: what those calls return is not looked at.
    let d = view.dpr;
    // Device pixels, whole ones, so that lines stay crisp at any pixel ratio.
    let dev = |v: f64| (v * d).round();
    let (left, right) = (view.x(view.range.from), view.x(view.range.to));
    let height = chart_height();
    let line = |points: &[(f64, f64)]| {
        for (i, &(x, y)) in points.iter().enumerate() {
            if i == 0 {
                ctx.move_to(dev(x), dev(y));
            } else {
                ctx.line_to(dev(x), dev(y));
            }
        }
    };
    let stroke = |colour: String, width: f64| {
        ctx.set_stroke_style_str(&colour);
        ctx.set_line_width(dev(width).max(1.0));
        ctx.stroke();
    };
    ctx.set_fill_style_str(&css(palette.background, 1.0));
    ctx.fill_rect(0.0, 0.0, dev(view.width), dev(height));

    // The scheduled faults, across every strip: an outage, a slow period, an eviction; only what
    // falls in the stretch of time shown, right of the latency axis's labels.
    let in_plot = |x: f64| x.clamp(AXIS_W, view.width);
    for (period, colour) in [
        (view.outage, palette.rejected),
        (view.slow, palette.degraded),
    ] {
        if let Some((start, end)) = period {
            let (x0, x1) = (
                in_plot(view.x(Time(start.micros()))),
                in_plot(view.x(Time(end.micros()))),
            );
            ctx.set_fill_style_str(&css(colour, 0.12));
            ctx.fill_rect(dev(x0), 0.0, dev(x1) - dev(x0), dev(height));
        }
    }
    if let Some(at) = view
        .evict_at
        .filter(|at| view.range.contains(Time(at.micros())))
    {
        let x = view.x(Time(at.micros()));
        ctx.begin_path();
        line(&[(x, 0.0), (x, height)]);
        stroke(css(palette.rejected, 1.0), 1.5);
    }

    // A faint line at each latency tick (the one at 0 is the latency strip's baseline), the
    // other strips' baselines, a short tick at each of their scales' labels, and one under each time label.
    ctx.begin_path();
    for bottom in [QUEUE_TOP + QUEUE_H, STORED_TOP + STORED_H] {
        line(&[(AXIS_W, bottom), (view.width, bottom)]);
    }
    for &(y, _) in &axes.latency {
        line(&[(AXIS_W - 4.0, y), (view.width, y)]);
    }
    for &(y, _) in axes.queue.iter().chain(&axes.stored) {
        line(&[(AXIS_W - 4.0, y), (AXIS_W, y)]);
    }
    for &(x, _) in &axes.time {
        line(&[(x, STORED_TOP + STORED_H), (x, STORED_TOP + STORED_H + 3.0)]);
    }
    stroke(css(palette.grid, 1.0), 1.0);

    // The titles, left above each strip, the time axis's labels under the strips, and the
    // scales' labels right-aligned left of the plot.
    ctx.set_font(&format!("{}px sans-serif", dev(12.0)));
    ctx.set_fill_style_str(&css(palette.text, 0.85));
    ctx.set_text_baseline("alphabetic");
    ctx.set_text_align("left");
    for (top, title) in TITLES {
        let _ = ctx.fill_text(title, dev(2.0), dev(top - 5.0));
    }
    ctx.set_text_baseline("top");
    ctx.set_text_align("center");
    for (x, label) in &axes.time {
        let _ = ctx.fill_text(label, dev(*x), dev(STORED_TOP + STORED_H + 4.0));
    }
    ctx.set_text_baseline("middle");
    ctx.set_text_align("right");
    for (y, label) in axes.latency.iter().chain(&axes.queue).chain(&axes.stored) {
        let _ = ctx.fill_text(label, dev(AXIS_W - 7.0), dev(*y));
    }

    // The timeout: a dashed line in the text's colour (no mark's), labelled with its setting
    // above its right end, on a halo of the background so that marks under it do not blur it.
    let (ty, timeout_label) = (&axes.timeout.0, &axes.timeout.1);
    ctx.begin_path();
    let mut x = left;
    while x < right {
        line(&[(x, *ty), ((x + 8.0).min(right), *ty)]);
        x += 14.0;
    }
    stroke(css(palette.text, 0.6), 1.5);
    ctx.set_text_baseline("alphabetic");
    ctx.set_stroke_style_str(&css(palette.background, 1.0));
    ctx.set_line_width(dev(3.0));
    let _ = ctx.stroke_text(timeout_label, dev(right), dev(ty - 7.0));
    let _ = ctx.fill_text(timeout_label, dev(right), dev(ty - 7.0));

    // Crowded answers, after the timeout line (answers cut off at the timeout sit on it): each
    // band's bars, let-through outcomes up from its line and refused ones down, and the count of
    // a cluster narrower than a mark beside it.
    let colour_of = |kind: Mark| match kind {
        Mark::Allowed => palette.allowed,
        Mark::Rejected | Mark::FailedClosed => palette.rejected,
        Mark::Delayed => palette.delayed,
        Mark::Degraded => palette.degraded,
    };
    let mark = mark_width(d);
    ctx.set_font(&format!("{}px sans-serif", dev(10.0)));
    ctx.set_text_align("left");
    ctx.set_text_baseline("middle");
    for band in &marks.bands {
        let y = dev(band.y);
        paint_bars(&ctx, &band.plan, y, u32::MAX, colour_of);
        ctx.set_fill_style_str(&css(palette.text, 0.85));
        for cluster in band
            .plan
            .clusters
            .iter()
            .filter(|c| c.narrow && c.requests() > 1)
        {
            let end = f64::from(cluster_columns(cluster, mark).end);
            let _ = ctx.fill_text(&cluster.requests().to_string(), end + dev(2.0), y);
        }
    }

    // Lone answers' marks, at their exact spots.
    let r = 4.5;
    let spots = &marks.spots;
    let dot = |&(x, y): &(f64, f64), radius: f64| {
        ctx.move_to(dev(x + radius), dev(y));
        ctx.arc(dev(x), dev(y), dev(radius), 0.0, std::f64::consts::TAU)
    };
    ctx.begin_path();
    for spot in spots[Outcome::Allowed as usize]
        .iter()
        .chain(&spots[Outcome::Delayed as usize])
    {
        let _ = dot(spot, r);
    }
    ctx.set_fill_style_str(&css(palette.allowed, 1.0));
    ctx.fill();
    ctx.begin_path();
    for &(x, y) in &spots[Outcome::Rejected as usize] {
        line(&[(x - r, y - r), (x + r, y + r)]);
        line(&[(x - r, y + r), (x + r, y - r)]);
    }
    stroke(css(palette.rejected, 1.0), 2.0);
    let (open, closed) = (
        &spots[Outcome::DegradedAllowed as usize],
        &spots[Outcome::FailedClosed as usize],
    );
    // A disc of background inside each, so the line never runs through a mark (and still shows
    // between marks a few pixels apart).
    ctx.begin_path();
    for spot in open.iter().chain(closed) {
        let _ = dot(spot, r);
    }
    ctx.set_fill_style_str(&css(palette.background, 1.0));
    ctx.fill();
    // Fail open: a dashed ring, eight arcs of a sixteenth of the circle each.
    ctx.begin_path();
    for &(x, y) in open {
        for k in 0..8 {
            let a = f64::from(k) * std::f64::consts::FRAC_PI_4;
            ctx.move_to(dev(x + r * a.cos()), dev(y + r * a.sin()));
            let _ = ctx.arc(dev(x), dev(y), dev(r), a, a + std::f64::consts::FRAC_PI_8);
        }
    }
    stroke(css(palette.degraded, 1.0), 2.0);
    // Fail closed: a cross in a square.
    ctx.begin_path();
    for &(x, y) in closed {
        let (q, c) = (r + 1.0, r - 1.0);
        ctx.rect(dev(x - q), dev(y - q), dev(2.0 * q), dev(2.0 * q));
        line(&[(x - c, y - c), (x + c, y + c)]);
        line(&[(x - c, y + c), (x + c, y - c)]);
    }
    stroke(css(palette.rejected, 1.0), 1.5);

    // Queue strip: how many the object held when each request arrived, the tallest per device
    // pixel column, in one path.
    let most = report.longest_queue;
    let bottom = dev(QUEUE_TOP + QUEUE_H);
    ctx.begin_path();
    for (column, &depth) in marks.tallest.iter().enumerate().filter(|(_, &n)| n > 0) {
        ctx.move_to(column as f64, bottom);
        ctx.line_to(column as f64, dev(y_queue(depth, most)));
    }
    stroke(css(palette.delayed, 1.0), 1.5);

    // Stored keys strip, as steps. Changes after the end of the axis (alarms firing later) are
    // not drawn at its edge.
    let most = report.max_stored_keys;
    let mut points = Vec::new();
    let mut last = 0u32;
    for &(t, n) in report
        .stored_keys
        .iter()
        .filter(|(t, _)| *t <= view.range.to)
    {
        let x = view.x(t).max(left);
        points.push((x, y_stored(last, most)));
        points.push((x, y_stored(n, most)));
        last = n;
    }
    points.push((right, y_stored(last, most)));
    ctx.begin_path();
    line(&points);
    stroke(css(palette.gauge, 1.0), 1.5);

    // A ring around the answer the readout reads, in the page's focus colour.
    if let Some(spot) = focus {
        ctx.begin_path();
        let _ = dot(&spot, 9.0);
        stroke(css(RGBColor(204, 121, 167), 1.0), 2.0);
    }
    Ok(())
}
