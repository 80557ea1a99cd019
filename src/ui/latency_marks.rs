//! Where the Durable Object chart's marks go: one per outcome per 2×2 device-pixel cell of the
//! latency strip, and the tallest queue per device-pixel column. Worked out once per run and chart
//! geometry, so that a redraw (a theme change, a scheduled fault) does not walk the records again,
//! and for a large run a slice at a time, so that a million records (about 130 bytes each) never
//! hold the page for one long task.

use std::sync::Arc;

use leptos::prelude::*;

use crate::core::durable::{RequestRecord, SimReport};
use crate::core::lab::LabRun;
use crate::core::time::{Span, Time};

use super::draw::x_of;
use super::draw_latency::{latency_ceiling, y_latency, LatencyView, LATENCY_H};
use super::state::Lab;

/// From this many records, the marks are worked out a slice per task.
const LATER_FROM: usize = 100_000;
/// Records walked between two looks at the clock.
const STEP: usize = 16_384;

/// What a set of marks was worked out for: a run (by identity) and the chart's geometry.
#[derive(Clone, Copy, PartialEq)]
pub struct MarksFor {
    pub run: usize,
    pub width: f64,
    pub horizon: Time,
    pub ceiling: Span,
    pub dpr: f64,
}

impl MarksFor {
    pub fn new(run: &Arc<LabRun>, report: &SimReport, view: &LatencyView) -> MarksFor {
        MarksFor {
            run: Arc::as_ptr(run) as usize,
            width: view.width,
            horizon: view.horizon,
            ceiling: latency_ceiling(report, view.timeout),
            dpr: view.dpr,
        }
    }
}

/// The marks to draw, in CSS pixels: per outcome (indexed by `Outcome as usize`), the first
/// answer's spot in each cell; and per device-pixel column, the tallest queue seen there.
pub struct LatencyMarks {
    pub spots: [Vec<(f64, f64)>; 5],
    pub tallest: Vec<u32>,
}

/// Walks the records in as many pieces as it is given, gathering [`LatencyMarks`].
pub struct LatencyMarksBuilder {
    of: MarksFor,
    next: usize,
    cols: usize,
    rows: usize,
    /// One bit per outcome per cell: whether that outcome already has a mark there.
    seen: Vec<u8>,
    marks: LatencyMarks,
}

impl LatencyMarksBuilder {
    pub fn new(of: MarksFor) -> LatencyMarksBuilder {
        let (cols, rows) = (cell(of.width, of.dpr) + 1, cell(LATENCY_H, of.dpr) + 1);
        LatencyMarksBuilder {
            of,
            next: 0,
            cols,
            rows,
            seen: vec![0; cols * rows],
            marks: LatencyMarks {
                spots: Default::default(),
                tallest: vec![0; (of.width * of.dpr) as usize + 1],
            },
        }
    }

    /// Walks up to `budget` more of `records`; false once every record is walked.
    pub fn walk(&mut self, records: &[RequestRecord], budget: usize) -> bool {
        let of = self.of;
        let to = self.next.saturating_add(budget).min(records.len());
        for record in records.get(self.next..to).unwrap_or_default() {
            let (x, y) = (
                x_of(record.sent, of.horizon, of.width),
                y_latency(record.latency(), of.ceiling),
            );
            let bit = 1u8 << record.outcome as u8;
            let at =
                cell(y, of.dpr).min(self.rows - 1) * self.cols + cell(x, of.dpr).min(self.cols - 1);
            if let Some(slot) = self.seen.get_mut(at) {
                if *slot & bit == 0 {
                    *slot |= bit;
                    self.marks.spots[record.outcome as usize].push((x, y));
                }
            }
            if let (true, Some(arrived)) = (record.queue_depth > 0, record.arrived) {
                let column = (x_of(arrived, of.horizon, of.width) * of.dpr + 0.5).max(0.0) as usize;
                if let Some(tallest) = self.marks.tallest.get_mut(column) {
                    *tallest = (*tallest).max(record.queue_depth);
                }
            }
        }
        self.next = to;
        self.next < records.len()
    }

    /// Thousandths of the records walked.
    pub fn progress(&self, records: usize) -> u32 {
        super::state::permille(self.next, records)
    }

    pub fn finish(self) -> LatencyMarks {
        self.marks
    }
}

/// The 2×2 device-pixel cell a CSS coordinate falls in.
fn cell(v: f64, dpr: f64) -> usize {
    ((v * dpr) / 2.0).max(0.0) as usize
}

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
        let wanted = builder.of;
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
