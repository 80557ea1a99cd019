//! Where the Durable Object chart's marks go: one per outcome per 2×2 device-pixel cell of the
//! latency strip, and the tallest queue per device-pixel column. Worked out once per run and chart
//! geometry, so that a redraw (a theme change, a scheduled fault) does not walk the records again,
//! and for a large run a slice at a time, so that a million records (about 130 bytes each) never
//! hold the page for one long task.

use std::sync::Arc;

use leptos::prelude::*;

use crate::core::durable::SimReport;
use crate::core::lab::LabRun;
use crate::layout::latency::{LatencyMarks, LatencyMarksBuilder, LatencyView, MarksFor};

use super::state::Lab;

/// From this many records, the marks are worked out a slice per task.
const LATER_FROM: usize = 100_000;
/// Records walked between two looks at the clock.
const STEP: usize = 16_384;

/// The chart's marks as they are kept between redraws, the job working out newer ones (if any),
/// and a signal that changes when that job is done.
#[derive(Clone, Copy)]
pub struct MarksCache {
    ready: StoredValue<Option<(MarksFor, Arc<LatencyMarks>)>>,
    job: StoredValue<Option<MarksFor>>,
    done: RwSignal<u32>,
}

impl MarksCache {
    pub fn new() -> MarksCache {
        MarksCache {
            ready: StoredValue::new(None),
            job: StoredValue::new(None),
            done: RwSignal::new(0),
        }
    }

    /// The marks for `run` drawn with `view`, if they are ready: at once for a small run; for a
    /// large one, `None` while a job works them out, and the caller (tracking this cache) runs
    /// again when they are.
    pub fn get(
        self,
        lab: Lab,
        run: &Arc<LabRun>,
        report: &SimReport,
        view: &LatencyView,
    ) -> Option<Arc<LatencyMarks>> {
        self.done.track();
        let wanted = MarksFor::new(run, report, view);
        let ready = self.ready.with_value(|r| {
            r.as_ref()
                .filter(|(of, _)| *of == wanted)
                .map(|(_, marks)| marks.clone())
        });
        if ready.is_some() {
            return ready;
        }
        if report.records.len() <= LATER_FROM {
            self.job.set_value(None); // a large run's marks are no longer wanted
            let mut builder = LatencyMarksBuilder::new(wanted);
            builder.walk(&report.records, usize::MAX);
            let made = Arc::new(builder.finish());
            self.ready.set_value(Some((wanted, made.clone())));
            return Some(made);
        }
        if self.job.with_value(|job| *job != Some(wanted)) {
            self.job.set_value(Some(wanted));
            let run = run.clone();
            super::soon(move || self.walk_later(lab, run, LatencyMarksBuilder::new(wanted)));
        }
        None
    }

    /// Walks the records for up to a slice's time, then comes back in another task; when done,
    /// keeps the marks and signals. A newer run or geometry stops it.
    fn walk_later(self, lab: Lab, run: Arc<LabRun>, mut builder: LatencyMarksBuilder) {
        let wanted = builder.of();
        if self.job.with_value(|job| *job != Some(wanted)) {
            return;
        }
        let Some(Ok(report)) = &run.durable else {
            return;
        };
        let started = super::perf_now();
        while builder.walk(&report.records, STEP) {
            if super::perf_now() - started > super::state::SLICE_MS {
                lab.show_progress(
                    "Drawing the Durable Object's chart",
                    builder.progress(report.records.len()),
                );
                super::soon(move || self.walk_later(lab, run, builder));
                return;
            }
        }
        lab.progress.set(None);
        self.ready
            .set_value(Some((wanted, Arc::new(builder.finish()))));
        self.job.set_value(None);
        self.done.update(|n| *n = n.wrapping_add(1));
    }
}
