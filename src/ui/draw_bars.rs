//! Painting a lane's bars (`layout::marks`): where requests' marks would overlap, each outcome's
//! part of each device-pixel column, in its exact colour, let-through outcomes up from the line
//! and refused ones down. The timelines' first tries (`super::draw`) and obeying clients' retries
//! (`super::draw_retries`) both paint theirs here.

use plotters::prelude::RGBColor;
use web_sys::CanvasRenderingContext2d;

use crate::layout::marks::{LanePlan, Mark, DOWN, UP};

/// Paints a lane's bars (`layout::marks`) on the line `y` (device pixels), up to device column
/// `until`: each outcome's parts in one path, in its exact colour (whole device pixels, so no
/// edge is blended), let-through outcomes up from the line and refused ones down.
pub fn paint_bars(
    ctx: &CanvasRenderingContext2d,
    plan: &LanePlan,
    y: f64,
    until: u32,
    colour_of: impl Fn(Mark) -> RGBColor,
) {
    let bars = || plan.bars.iter().filter(|b| b.column <= until);
    for (side, up) in [(&UP[..], true), (&DOWN[..], false)] {
        for (depth, &kind) in side.iter().enumerate() {
            ctx.begin_path();
            for bar in bars() {
                let h = f64::from(bar.heights[kind as usize]);
                if h == 0.0 {
                    continue;
                }
                let below: f64 = side[..depth]
                    .iter()
                    .map(|&k| f64::from(bar.heights[k as usize]))
                    .sum();
                let top = if up { y - below - h } else { y + below };
                ctx.rect(f64::from(bar.column), top, 1.0, h);
            }
            let c = colour_of(kind);
            ctx.set_fill_style_str(&format!("rgb({},{},{})", c.0, c.1, c.2));
            ctx.fill();
        }
    }
}
