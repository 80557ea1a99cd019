//! Drawing the retries of clients that obey (`core::retries`) on each row's timeline. A retry
//! is a mark of its own: the same shape as a first try's (a filled dot let through, a cross
//! refused), smaller, on a lane just under the row's line, and joined by a thin curve to the
//! refusal that sent it (on the row's line for a first try, on the lane for an earlier retry).
//! A curve drawn solid is a wait as told; dashed, a back-off the client chose itself.
//!
//! Retries whose marks would overlap are drawn as bars in proportion to how many were let through
//! (up from the retries' line) and refused (down), as first tries are (`layout::marks`), without
//! their curves: a retry storm reads as its counts, not as a pile of crosses. Drawn in batched
//! paths on the canvas's 2D context, so a storm costs about one look per retry.

use plotters::prelude::RGBColor;
use web_sys::CanvasRenderingContext2d;

use super::draw_bars::paint_bars;
use crate::core::lab::LabRun;
use crate::core::time::Time;
use crate::layout::marks::{cluster_json, plan_row, LaneColumns, LanePlan, KINDS};
use crate::layout::timeline::{column_at, Layout, Mark, RowKind, RETRY_LANE};

/// The theme's colours a retry is drawn in (from `super::draw::Palette`).
#[derive(Clone, Copy, Debug)]
pub struct RetryColours {
    pub allowed: RGBColor,
    pub rejected: RGBColor,
    pub text: RGBColor,
}

/// A retry's mark radius (first tries: `MARK_R`).
const RETRY_R: f64 = 3.5;
/// How far retries' bars grow from their line, each way (CSS pixels): short of the first tries'
/// bars above (`Layout::bar_reach`).
const BAR_REACH: f64 = 4.0;

/// A retry's curve: from (x, y) to (x, the lane's y), in device pixels.
type Link = (f64, f64, f64, f64);

/// Draws every retry up to `visible_until` of every row of `run`, each under the line of its
/// client's key (the row's line, or its key's lane when the rows are split by key). Returns what
/// was drawn as JSON, for the page to publish on the canvas (`data-retries`) for tests and tools
/// that read its pixels: how far under a line the retries' line is and how far their bars reach
/// (CSS pixels), then per row with retries, per lane, how many retries are marks of their own,
/// and each cluster drawn as bars (the CSS x its bars start and end at, its retries, and how many
/// of them were refused).
pub fn draw_retries(
    ctx: &CanvasRenderingContext2d,
    run: &LabRun,
    layout: &Layout,
    visible_until: Time,
    dpr: f64,
    colours: RetryColours,
) -> Result<String, String> {
    let mut published = Vec::new();
    let palette = colours;
    let css = |c: RGBColor| format!("rgb({},{},{})", c.0, c.1, c.2);
    let width_columns = (layout.width * dpr).ceil() as usize + 2;
    let r = (RETRY_R * dpr).round().max(1.0);
    let mark_width = (2.0 * RETRY_R * dpr).round().max(1.0) as u32;
    let requests = run.trace.requests();
    for row in &layout.rows {
        let RowKind::Algo(algorithm) = row.kind else {
            continue;
        };
        let Some(clients) = run.run(algorithm).and_then(|r| r.clients.as_ref()) else {
            continue;
        };
        // Each lane's retries counted per device-pixel column, and the curve of the first retry
        // in each column: a retry alone where it is drawn keeps its mark and its curve.
        let lanes = layout.lanes.count();
        let mut counts = vec![vec![[0u32; KINDS]; width_columns]; lanes];
        let mut curves: Vec<Vec<Option<(Link, bool)>>> = vec![vec![None; width_columns]; lanes];
        for retry in clients
            .retries
            .iter()
            .take_while(|retry| retry.at <= visible_until)
            .filter(|retry| layout.range.contains(retry.at))
        {
            let lane = requests
                .get(retry.client as usize)
                .map_or(0, |request| layout.lanes.lane(request.key))
                .min(lanes - 1);
            let line = layout.mark_y(row, lane) * dpr;
            let lane_y = line + RETRY_LANE * dpr;
            let x = layout.x(retry.at) * dpr;
            let column = column_at(layout.x(retry.at), dpr, width_columns);
            let kind = if retry.passed {
                Mark::Allowed
            } else {
                Mark::Rejected
            };
            counts[lane][column][kind as usize] += 1;
            let from_y = if retry.number == 1 { line } else { lane_y };
            curves[lane][column].get_or_insert((
                (layout.x(retry.after) * dpr, from_y, x, lane_y),
                retry.as_told,
            ));
        }
        let none = vec![-1.0f32; width_columns];
        let lane_columns: Vec<LaneColumns> = counts
            .iter()
            .map(|counts| LaneColumns {
                counts,
                release: &none,
            })
            .collect();
        let plans = plan_row(&lane_columns, mark_width, BAR_REACH * dpr);
        published.push(format!(
            "{{\"id\":\"{}\",\"lanes\":[{}]}}",
            row.kind.id(),
            plans
                .iter()
                .map(|plan| lane_json(plan, mark_width, dpr))
                .collect::<Vec<_>>()
                .join(",")
        ));
        // Marks at (x, the lane's y); curves (from x, from y, to x, the lane's y).
        let (mut passed, mut refused) = (Vec::new(), Vec::new());
        let (mut told, mut backed_off) = (Vec::new(), Vec::new());
        for (lane, plan) in plans.iter().enumerate() {
            let lane_y = ((layout.mark_y(row, lane) + RETRY_LANE) * dpr).round();
            paint_bars(ctx, plan, lane_y, u32::MAX, |kind| match kind {
                Mark::Allowed => palette.allowed,
                _ => palette.rejected,
            });
            for mark in &plan.marks {
                let Some((link, as_told)) = curves[lane][mark.column as usize] else {
                    continue;
                };
                match as_told {
                    true => told.push(link),
                    false => backed_off.push(link),
                }
                match mark.kind {
                    Mark::Allowed => passed.push((link.2, link.3)),
                    _ => refused.push((link.2, link.3)),
                }
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
    Ok(format!(
        "{{\"lane\":{RETRY_LANE},\"reach\":{BAR_REACH},\"rows\":[{}]}}",
        published.join(",")
    ))
}

/// One lane's retries as `draw_retries` publishes them.
fn lane_json(plan: &LanePlan, mark_width: u32, dpr: f64) -> String {
    let bars: Vec<String> = plan
        .clusters
        .iter()
        .map(|c| cluster_json(c, mark_width, dpr))
        .collect();
    format!(
        "{{\"marks\":{},\"bars\":[{}]}}",
        plan.marks.len(),
        bars.join(",")
    )
}
