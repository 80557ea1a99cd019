//! The charts as one PNG that stands on its own, in the page's theme and at the canvases' device
//! resolution: the view's title; the timelines, each row named with its promise and busiest
//! window (and each lane with its key); their time axis; the Durable Object's chart when its lab
//! is open, redrawn at the timelines' width and stretch of time so that the two line up; the
//! legend of marks; and a caption with the settings (`crate::core::view_text`) and the link that
//! opens the view again. Only the complete module draws it (the first view's brings it in:
//! `super::export_png` in `ui/mod.rs`).

use leptos::prelude::GetUntracked;
use plotters::style::RGBColor;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::core::job::run_to_end;
use crate::core::lab::LabRun;
use crate::core::url::to_query;
use crate::core::view_text::caption_lines;
use crate::layout::latency::{chart_height, Axes, LatencyMarksJob, LatencyView, MarksFor, AXIS_W};
use crate::layout::timeline::{row_promise, tick_labels, Mark, RowKind};

use super::draw::{draw_mark, Palette};
use super::draw_latency::draw_latency;
use super::export::offer;
use super::state::Lab;

/// The sheet's margin, and the width of the names' column left of the charts, in CSS pixels.
const MARGIN: f64 = 16.0;
const NAMES_W: f64 = 190.0;
/// Between a key's name and the chart, when rows are split by key; and the widest the keys'
/// column gets (a longer name ends in an ellipsis).
const LANE_GAP: f64 = 10.0;
const MAX_LANES_W: f64 = 150.0;
/// A line of the legend and the caption, and the axis's labels under a chart.
const LINE_H: f64 = 18.0;
const AXIS_H: f64 = 22.0;
/// The most lines the link takes; a longer link is cut, and the caption says where it is whole.
const LINK_LINES: usize = 4;

/// The legend's entries, in the words of the legend under the timelines (`ui::timeline`), each
/// with its mark (`None`: the window bracket).
const LEGEND: [(Option<Mark>, &str); 6] = [
    (Some(Mark::Allowed), "allowed"),
    (
        Some(Mark::Rejected),
        "rejected (429, or the status the product sends)",
    ),
    (Some(Mark::Delayed), "delayed, then served"),
    (
        Some(Mark::Degraded),
        "let through, limiter unreachable (fail open)",
    ),
    (
        Some(Mark::FailedClosed),
        "refused, limiter unreachable (fail closed)",
    ),
    (None, "one window, at the pointer or playhead"),
];

/// The PNG being drawn: its context, and its device pixels to a CSS pixel.
struct Sheet {
    ctx: CanvasRenderingContext2d,
    s: f64,
}

impl Sheet {
    /// Sets the font: `size` CSS pixels, bold or not, fixed-width or not.
    fn font(&self, size: f64, bold: bool, mono: bool) {
        let family = if mono { "monospace" } else { "sans-serif" };
        let weight = if bold { "bold " } else { "" };
        let px = (size * self.s).round() as u32;
        self.ctx.set_font(&format!("{weight}{px}px {family}"));
    }

    /// Writes `words` at (`x`, `y`) CSS pixels (its left end, its middle line).
    fn text(
        &self,
        words: &str,
        (x, y): (f64, f64),
        size: f64,
        bold: bool,
        colour: &str,
    ) -> Result<(), JsValue> {
        self.font(size, bold, false);
        self.ctx.set_fill_style_str(colour);
        self.ctx.fill_text(words, x * self.s, y * self.s)
    }

    /// How wide `words` are in the current font, in device pixels.
    fn width(&self, words: &str) -> f64 {
        self.ctx.measure_text(words).map_or(0.0, |m| m.width())
    }
}

/// A colour as CSS, `alpha` opaque.
fn rgba(c: RGBColor, alpha: f32) -> String {
    format!("rgba({},{},{},{alpha})", c.0, c.1, c.2)
}

/// `text` in lines no wider than `width` (device pixels, in the sheet's current font), broken
/// between words.
fn wrap(sheet: &Sheet, text: &str, width: f64) -> Vec<String> {
    let wide = |t: &str| sheet.width(t) > width;
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let longer = match line.is_empty() {
            true => word.to_string(),
            false => format!("{line} {word}"),
        };
        if wide(&longer) && !line.is_empty() {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = longer;
        }
    }
    lines.push(line);
    lines
}

/// `text` as it fits in `width` device pixels in the current font: whole, or cut with an
/// ellipsis.
fn fit(sheet: &Sheet, text: &str, width: f64) -> String {
    if sheet.width(text) <= width {
        return text.to_string();
    }
    let mut chars: Vec<char> = text.chars().collect();
    while !chars.is_empty() {
        chars.pop();
        let cut: String = chars.iter().chain(['…'].iter()).collect();
        if sheet.width(&cut) <= width {
            return cut;
        }
    }
    "…".to_string()
}

/// Downloads the charts as one `ratelab-timelines.png` (see the module's header).
pub fn download_png(lab: Lab) -> Result<(), JsValue> {
    let document = super::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let canvas = |selector: &str| {
        document
            .query_selector(selector)
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<HtmlCanvasElement>().ok())
            .filter(|c| c.width() > 0 && c.get_bounding_client_rect().height() > 0.0)
    };
    let timeline = canvas("[data-testid=timeline-canvas]").ok_or("nothing drawn yet")?;
    let run = lab.run.get_untracked();
    let state = lab.state.get_untracked();
    let css_width = timeline.get_bounding_client_rect().width().max(1.0);
    let s = f64::from(timeline.width()) / css_width;
    let layout = super::timeline::layout_on_page(&run, css_width, state.view, state.lanes);
    let palette = match super::timeline::dark_theme(state.theme) {
        true => Palette::dark(),
        false => Palette::light(),
    };
    let durable = match (&run.durable, canvas("[data-testid=latency-canvas]")) {
        (Some(Ok(report)), Some(_)) => Some(report),
        _ => None,
    };

    let sheet: HtmlCanvasElement = document.create_element("canvas")?.unchecked_into();
    let ctx: CanvasRenderingContext2d = sheet
        .get_context("2d")?
        .ok_or("no 2d context")?
        .unchecked_into();
    let page = Sheet {
        ctx: ctx.clone(),
        s,
    };
    // Split by key, the keys' names take a column of their own between the rows' names and the
    // chart, as on the page.
    page.font(11.0, false, false);
    let lanes_w = match layout.lanes.names.is_empty() {
        true => 0.0,
        false => {
            let widest = layout
                .lanes
                .names
                .iter()
                .map(|n| page.width(n))
                .fold(0.0, f64::max);
            (widest / s + LANE_GAP).min(MAX_LANES_W)
        }
    };
    let chart_x = MARGIN + NAMES_W + lanes_w;
    let width = chart_x + layout.width + MARGIN;
    sheet.set_width((width * s).round() as u32);

    // Where everything goes, top to bottom (CSS pixels).
    let rows_y = MARGIN + 32.0;
    let durable_y = rows_y + layout.height + AXIS_H + 10.0;
    let legend_y = durable_y + durable.map_or(0.0, |_| chart_height() + 10.0);
    page.font(12.0, false, false);
    let text_w = (width - 2.0 * MARGIN) * s;
    let mut legend_lines = 1.0;
    let mut x = 0.0;
    let legend: Vec<(Option<Mark>, &str, f64, f64)> = LEGEND
        .iter()
        .map(|&(mark, words)| {
            let w = 28.0 * s + page.width(words);
            if x > 0.0 && x + w > text_w {
                (x, legend_lines) = (0.0, legend_lines + 1.0);
            }
            let at = (x / s, legend_lines - 1.0);
            x += w + 18.0 * s;
            (mark, words, at.0, at.1)
        })
        .collect();
    let caption_y = legend_y + legend_lines * LINE_H + 10.0;
    let mut caption: Vec<String> =
        caption_lines(&state, &run, (layout.range.from, layout.range.to))
            .iter()
            .flat_map(|line| wrap(&page, line, text_w))
            .collect();
    // The link, in a fixed-width font, broken anywhere.
    let link = super::url_for(&to_query(&state));
    page.font(11.0, false, true);
    let per_line = (text_w / page.width("0").max(1.0)) as usize;
    let chars: Vec<char> = link.chars().collect();
    let mut link_lines: Vec<String> = chars
        .chunks(per_line.max(10))
        .map(|c| c.iter().collect())
        .collect();
    if link_lines.len() > LINK_LINES {
        link_lines.truncate(LINK_LINES);
        if let Some(last) = link_lines.last_mut() {
            last.pop();
            last.push('…');
        }
        caption.push(format!(
            "The link is {} characters long: the page's \"Link to this view\" holds all of it.",
            chars.len()
        ));
    }
    let link_y = caption_y + caption.len() as f64 * LINE_H;
    let height = link_y + link_lines.len() as f64 * LINE_H + MARGIN;
    sheet.set_height((height * s).round() as u32);

    // The sheet's size is set: the context starts afresh.
    let (ink, muted) = (rgba(palette.text, 1.0), rgba(palette.text, 0.7));
    let warn = rgba(palette.rejected, 1.0);
    ctx.set_fill_style_str(&rgba(palette.background, 1.0));
    ctx.fill_rect(0.0, 0.0, width * s, height * s);
    ctx.set_text_baseline("middle");
    let title = match state.caption.is_empty() {
        true => "Rate Limit Lab",
        false => state.caption.as_str(),
    };
    page.text(title, (MARGIN, MARGIN + 10.0), 18.0, true, &ink)?;

    // The timelines as they are on the page, each row named and each lane labelled.
    ctx.draw_image_with_html_canvas_element(&timeline, chart_x * s, rows_y * s)?;
    let (limit, window) = (run.settings.limit, run.settings.window);
    for row in &layout.rows {
        let (name, most, copies, terms) = match row.kind {
            RowKind::Algo(a) => (
                a.label(),
                run.run(a).map_or(0, |r| r.max_in_window),
                run.settings.deployment.instances,
                a.terms::<super::Linked>(&run.settings),
            ),
            RowKind::Durable => ("Durable Object", durable_most(&run), 1, None),
        };
        let top = rows_y + row.top;
        page.text(name, (MARGIN, top + 14.0), 13.0, true, &ink)?;
        // A row that broke its promise says so, as on the page.
        let broke = most > limit;
        let promise = format!(
            "{}{}",
            if broke { "⚠ " } else { "" },
            row_promise(limit, window, copies, terms.as_deref(), most)
        );
        let colour = if broke { &warn } else { &muted };
        for (i, line) in wrap(&page, &promise, (NAMES_W - 12.0) * s)
            .iter()
            .enumerate()
        {
            page.text(
                line,
                (MARGIN, top + 31.0 + 14.0 * i as f64),
                11.0,
                false,
                colour,
            )?;
        }
        if let (RowKind::Algo(a), Some((gauge_top, _))) = (row.kind, row.gauge) {
            if let Some(series) = run.gauge(a) {
                let note = format!("below: {}", series.unit);
                page.text(
                    &note,
                    (MARGIN, rows_y + gauge_top + 12.0),
                    11.0,
                    false,
                    &muted,
                )?;
            }
        }
        page.font(11.0, false, false);
        ctx.set_text_align("right");
        for (lane, key) in layout.lanes.names.iter().enumerate() {
            let y = rows_y + layout.mark_y(row, lane);
            let key = fit(&page, key, (lanes_w - LANE_GAP) * s);
            page.text(&key, (chart_x - LANE_GAP / 2.0, y), 11.0, false, &muted)?;
        }
        ctx.set_text_align("start");
    }
    let axis = |y: f64| -> Result<(), JsValue> {
        ctx.set_text_align("center");
        let ticks = layout.ticks();
        for (t, label) in ticks.iter().zip(tick_labels(&ticks)) {
            page.text(
                &label,
                (chart_x + layout.x(*t), y + 11.0),
                11.0,
                false,
                &muted,
            )?;
        }
        ctx.set_text_align("start");
        Ok(())
    };
    axis(rows_y + layout.height)?;

    // The Durable Object's chart, at the timelines' width and stretch, its latency axis's labels
    // left of them: their times line up. It writes its own titles, scales and time axis.
    if let Some(report) = durable {
        let chart: HtmlCanvasElement = document.create_element("canvas")?.unchecked_into();
        let chart_w = layout.width + AXIS_W;
        chart.set_width((chart_w * s).round() as u32);
        chart.set_height((chart_height() * s).round() as u32);
        let d = &state.durable;
        let view = LatencyView {
            width: chart_w,
            range: layout.range,
            timeout: d.timeout,
            outage: d.outage,
            slow: d.slow,
            evict_at: d.evict_at,
            dpr: s,
        };
        let marks = run_to_end(LatencyMarksJob::new(
            run.clone(),
            MarksFor::new(&run, report, &view),
        ));
        let axes = Axes::new(report, &view);
        draw_latency(&chart, report, &view, &marks, &axes, None, &palette)
            .map_err(|e| JsValue::from_str(&e))?;
        ctx.draw_image_with_html_canvas_element(&chart, (chart_x - AXIS_W) * s, durable_y * s)?;
        page.text(
            "Durable Object",
            (MARGIN, durable_y + 10.0),
            12.0,
            true,
            &ink,
        )?;
    }

    // The legend: each mark as the charts draw it, and its words.
    for (mark, words, x, line) in legend {
        let (x, y) = (MARGIN + x, legend_y + line * LINE_H + 9.0);
        match mark {
            Some(mark) => draw_mark(&sheet, mark, (x + 7.0, y), s, &palette)?,
            None => {
                ctx.set_stroke_style_str(&rgba(palette.bracket, 0.8));
                ctx.set_line_width(1.5 * s);
                ctx.stroke_rect((x + 1.0) * s, (y - 6.0) * s, 12.0 * s, 12.0 * s);
            }
        }
        if mark == Some(Mark::Delayed) {
            // Joined by a line to a small dot, where the request is served.
            ctx.set_fill_style_str(&rgba(palette.delayed, 1.0));
            ctx.fill_rect((x + 12.0) * s, (y - 0.5) * s, 8.0 * s, 1.0 * s);
            ctx.begin_path();
            ctx.arc((x + 21.0) * s, y * s, 2.0 * s, 0.0, std::f64::consts::TAU)?;
            ctx.fill();
        }
        page.text(words, (x + 28.0, y), 12.0, false, &ink)?;
    }

    // The caption: the settings, then the link.
    for (i, line) in caption.iter().enumerate() {
        page.text(
            line,
            (MARGIN, caption_y + 9.0 + i as f64 * LINE_H),
            12.0,
            false,
            &ink,
        )?;
    }
    for (i, line) in link_lines.iter().enumerate() {
        let y = link_y + 9.0 + i as f64 * LINE_H;
        page.font(11.0, false, true);
        ctx.set_fill_style_str(&muted);
        ctx.fill_text(line, MARGIN * s, y * s)?;
    }
    offer(&sheet.to_data_url()?, "ratelab-timelines.png")
}

/// The Durable Object row's busiest window.
fn durable_most(run: &LabRun) -> u64 {
    match &run.durable {
        Some(Ok(report)) => report.most_in_window,
        _ => 0,
    }
}
