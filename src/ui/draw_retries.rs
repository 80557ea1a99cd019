//! Drawing the retries of clients that obey (`core::retries`) on each row's timeline. A retry
//! is a mark of its own: the same shape as a first try's (a filled dot let through, a cross
//! refused), smaller, on a lane just under the row's line, and joined by a thin curve to the
//! refusal that sent it (on the row's line for a first try, on the lane for an earlier retry).
//! A curve drawn solid is a wait as told; dashed, a back-off the client chose itself.
//!
//! Drawn in batched paths on the canvas's 2D context, one mark per kind per pixel column, as the
//! first tries are (`super::draw`), so a retry storm costs about one look per retry.

use plotters::prelude::RGBColor;
use web_sys::CanvasRenderingContext2d;

use crate::core::lab::LabRun;
use crate::core::time::Time;
use crate::layout::timeline::{Drawn, Layout, Mark, RowKind, RETRY_LANE};

/// The theme's colours a retry is drawn in (from `super::draw::Palette`).
#[derive(Clone, Copy, Debug)]
pub struct RetryColours {
    pub allowed: RGBColor,
    pub rejected: RGBColor,
    pub text: RGBColor,
}

/// A retry's mark radius (first tries: `MARK_R`).
const RETRY_R: f64 = 3.5;

/// Draws every retry up to `visible_until` of every row of `run`, each under the line of its
/// client's key (the row's line, or its key's lane when the rows are split by key).
pub fn draw_retries(
    ctx: &CanvasRenderingContext2d,
    run: &LabRun,
    layout: &Layout,
    visible_until: Time,
    dpr: f64,
    colours: RetryColours,
) -> Result<(), String> {
    let palette = colours;
    let css = |c: RGBColor| format!("rgb({},{},{})", c.0, c.1, c.2);
    let width_columns = (layout.width * dpr).ceil() as usize + 2;
    let r = (RETRY_R * dpr).round().max(1.0);
    let requests = run.trace.requests();
    for row in &layout.rows {
        let RowKind::Algo(algorithm) = row.kind else {
            continue;
        };
        let Some(clients) = run.run(algorithm).and_then(|r| r.clients.as_ref()) else {
            continue;
        };
        // One set of drawn columns per lane, so that lanes never hide each other's marks.
        let mut drawn: Vec<Drawn> = (0..layout.lanes.count())
            .map(|_| Drawn::new(width_columns))
            .collect();
        // Marks at (x, the lane's y); links (from x, from y, to x, the lane's y).
        let (mut passed, mut refused) = (Vec::new(), Vec::new());
        let (mut told, mut backed_off) = (Vec::new(), Vec::new());
        for retry in clients
            .retries
            .iter()
            .take_while(|retry| retry.at <= visible_until)
            .filter(|retry| layout.range.contains(retry.at))
        {
            let lane = requests
                .get(retry.client as usize)
                .map_or(0, |request| layout.lanes.lane(request.key));
            let line = layout.mark_y(row, lane) * dpr;
            let lane_y = line + RETRY_LANE * dpr;
            let x = layout.x(retry.at) * dpr;
            let kind = if retry.passed {
                Mark::Allowed
            } else {
                Mark::Rejected
            };
            let Some(columns) = drawn.get_mut(lane) else {
                continue;
            };
            if !columns.insert(x as i32, kind) {
                continue;
            }
            let from_y = if retry.number == 1 { line } else { lane_y };
            let link = (layout.x(retry.after) * dpr, from_y, x, lane_y);
            if retry.as_told {
                told.push(link);
            } else {
                backed_off.push(link);
            }
            if kind == Mark::Allowed {
                passed.push((x, lane_y));
            } else {
                refused.push((x, lane_y));
            }
        }
        ctx.set_line_width(dpr.round().max(1.0));
        for (links, dashed) in [(&told, false), (&backed_off, true)] {
            if links.is_empty() {
                continue;
            }
            let dash = js_sys::Array::new();
            if dashed {
                dash.push(&(3.0 * dpr).into());
                dash.push(&(3.0 * dpr).into());
            }
            ctx.set_line_dash(&dash)
                .map_err(|_| "the retries could not be drawn")?;
            ctx.begin_path();
            for &(x0, y0, x1, lane) in links.iter() {
                ctx.move_to(x0, y0);
                if y0 < lane {
                    // From a first try: down from the refusal, then along the lane.
                    ctx.quadratic_curve_to(x0, lane, x1, lane);
                } else {
                    // From an earlier retry on the lane: bowed under it, clear of the marks.
                    ctx.quadratic_curve_to((x0 + x1) / 2.0, lane + 8.0 * dpr, x1, lane);
                }
            }
            let t = palette.text;
            ctx.set_stroke_style_str(&format!("rgba({},{},{},0.45)", t.0, t.1, t.2));
            ctx.stroke();
        }
        ctx.set_line_dash(&js_sys::Array::new())
            .map_err(|_| "the retries could not be drawn")?;
        ctx.begin_path();
        for &(x, y) in &passed {
            ctx.move_to(x + r, y);
            ctx.arc(x, y, r, 0.0, std::f64::consts::TAU)
                .map_err(|_| "the retries could not be drawn")?;
        }
        ctx.set_fill_style_str(&css(palette.allowed));
        ctx.fill();
        ctx.begin_path();
        for &(x, y) in &refused {
            ctx.move_to(x - r, y - r);
            ctx.line_to(x + r, y + r);
            ctx.move_to(x - r, y + r);
            ctx.line_to(x + r, y - r);
        }
        ctx.set_line_width((1.5 * dpr).round().max(1.0));
        ctx.set_stroke_style_str(&css(palette.rejected));
        ctx.stroke();
    }
    Ok(())
}
