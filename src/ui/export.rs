//! Export: every decision as CSV and the charts as one PNG, handed to the browser as downloads.
//! The CSV comes from the core (`crate::core::export`); this module only makes files of it.

use std::sync::Arc;

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlAnchorElement, HtmlCanvasElement};

use crate::core::export::CsvJob;
use crate::core::job::{Job, Progress, Step};
use crate::core::lab::LabRun;

use crate::layout::timeline::{Layout, RowKind};

use super::scheduler::{run_sliced, Slicing};
use super::state::Lab;

/// Logs a failed download (the browser refused it, e.g. in a sandbox without `allow-downloads`).
pub(crate) fn failed(result: Result<(), wasm_bindgen::JsValue>) {
    if let Err(e) = result {
        web_sys::console::warn_2(&"Rate Limit Lab: the download failed".into(), &e);
    }
}

/// Offers `href` to the browser as a file called `name`.
pub(crate) fn offer(href: &str, name: &str) -> Result<(), JsValue> {
    let document = super::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let link: HtmlAnchorElement = document.create_element("a")?.unchecked_into();
    link.set_href(href);
    link.set_download(name);
    link.click();
    Ok(())
}

/// The CSV being written (`core::export::CsvJob`), each slice's text made a blob of its own at
/// once: a million requests make millions of rows, more than one string should hold or the
/// browser copy together at the end.
struct CsvBlobs {
    job: CsvJob,
    blobs: js_sys::Array,
    /// The first blob the browser would not make.
    error: Option<JsValue>,
}

impl CsvBlobs {
    fn blob_options() -> web_sys::BlobPropertyBag {
        let options = web_sys::BlobPropertyBag::new();
        options.set_type("text/csv");
        options
    }
}

impl Job for CsvBlobs {
    type Output = Result<js_sys::Array, JsValue>;
    const BUDGET: usize = CsvJob::BUDGET;

    fn step(&mut self, budget: usize) -> Step {
        self.job.step(budget)
    }

    fn progress(&self) -> Progress {
        self.job.progress()
    }

    fn end_slice(&mut self) {
        let pieces = self.job.take_pieces();
        if pieces.is_empty() {
            return;
        }
        let texts: js_sys::Array = pieces
            .iter()
            .map(|piece| JsValue::from_str(piece))
            .collect();
        match web_sys::Blob::new_with_str_sequence_and_options(&texts, &Self::blob_options()) {
            Ok(blob) => {
                self.blobs.push(&blob);
            }
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
    }

    fn finish(mut self) -> Self::Output {
        while self.job.step(usize::MAX) == Step::More {}
        self.end_slice();
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.blobs),
        }
    }
}

/// Downloads every decision of `run` as `ratelab-decisions.csv`, written a slice of time at a
/// time with the progress bar. A small run is written and offered inside the click.
pub fn download_csv(lab: Lab, run: Arc<LabRun>) {
    let job = CsvBlobs {
        job: CsvJob::new(run),
        blobs: js_sys::Array::new(),
        error: None,
    };
    run_sliced(
        lab.progress,
        job,
        Slicing::AT_ONCE,
        || true,
        |blobs| failed(blobs.and_then(|blobs| offer_csv(&blobs))),
    );
}

fn offer_csv(blobs: &js_sys::Array) -> Result<(), JsValue> {
    let blob = web_sys::Blob::new_with_blob_sequence_and_options(blobs, &CsvBlobs::blob_options())?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let offered = offer(&url, "ratelab-decisions.csv");
    // The click has handed the file over; the address is no longer needed.
    let _ = web_sys::Url::revoke_object_url(&url);
    offered
}

/// Width of the name column added left of the charts, in CSS pixels.
const NAMES_W: f64 = 190.0;

/// Downloads the timelines, and the Durable Object chart when it is shown, as one
/// `ratelab-timelines.png` at the canvases' full device resolution, with each row's name written
/// beside it (on the page the names are HTML, outside the canvas).
pub fn download_png(run: &LabRun) -> Result<(), JsValue> {
    let document = super::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let charts = document
        .query_selector_all("[data-testid=timeline-canvas], [data-testid=latency-canvas]")?;
    let canvases: Vec<HtmlCanvasElement> = (0..charts.length())
        .filter_map(|i| charts.item(i))
        .filter_map(|node| node.dyn_into::<HtmlCanvasElement>().ok())
        .filter(|c| c.width() > 0 && c.get_bounding_client_rect().height() > 0.0)
        .collect();
    let first = canvases.first().ok_or("nothing drawn yet")?;
    let css_width = first.get_bounding_client_rect().width();
    let scale = f64::from(first.width()) / css_width.max(1.0);
    let names_w = (NAMES_W * scale).round();
    let width = canvases.iter().map(|c| c.width()).max().unwrap_or(0) + names_w as u32;
    let height: u32 = canvases.iter().map(|c| c.height()).sum();
    let sheet: HtmlCanvasElement = document.create_element("canvas")?.unchecked_into();
    sheet.set_width(width);
    sheet.set_height(height);
    let ctx: CanvasRenderingContext2d = sheet
        .get_context("2d")?
        .ok_or("no 2d context")?
        .unchecked_into();
    let style = document
        .body()
        .and_then(|b| super::window()?.get_computed_style(&b).ok().flatten());
    let colour = |name: &str, fallback: &str| {
        let value = style
            .as_ref()
            .and_then(|s| s.get_property_value(name).ok())
            .unwrap_or_default();
        if value.is_empty() {
            fallback.to_string()
        } else {
            value
        }
    };
    ctx.set_fill_style_str(&colour("background-color", "#fff"));
    ctx.fill_rect(0.0, 0.0, f64::from(width), f64::from(height));
    ctx.set_fill_style_str(&colour("color", "#000"));
    ctx.set_font(&format!("{}px sans-serif", (13.0 * scale).round() as i64));
    ctx.set_text_baseline("middle");
    for row in &Layout::new(run, css_width).rows {
        let name = match row.kind {
            RowKind::Algo(a) => a.label(),
            RowKind::Durable => "Durable Object",
        };
        ctx.fill_text(name, 8.0 * scale, row.mark_y * scale)?;
    }
    let mut top = 0.0;
    for (i, canvas) in canvases.iter().enumerate() {
        if i > 0 {
            ctx.fill_text("Durable Object latency", 8.0 * scale, top + 16.0 * scale)?;
        }
        ctx.draw_image_with_html_canvas_element(canvas, names_w, top)?;
        top += f64::from(canvas.height());
    }
    offer(&sheet.to_data_url()?, "ratelab-timelines.png")
}
