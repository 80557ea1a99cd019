//! Export: every decision as CSV (and the charts as one PNG, `super::export_png`), handed to the
//! browser as downloads. The CSV comes from the core (`crate::core::export`); this module only
//! makes a file of it.

use std::sync::Arc;

use wasm_bindgen::{JsCast, JsValue};
use web_sys::HtmlAnchorElement;

use crate::core::export::CsvJob;
use crate::core::job::{Job, Progress, Step};
use crate::core::lab::LabRun;

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
    job: CsvJob<super::Linked>,
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
    const BUDGET: usize = CsvJob::<super::Linked>::BUDGET;

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
        lab.work.progress,
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
