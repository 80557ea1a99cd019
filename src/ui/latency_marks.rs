//! The Durable Object chart's marks as the page keeps them (`layout::latency` works out where
//! they go): once per run and chart geometry, so that a redraw (a theme change, a scheduled
//! fault) does not walk the records again, and for a large run a slice at a time through the
//! page's scheduler, so that a million records (about 130 bytes each) never hold the page for one
//! long task.

use std::sync::Arc;

use leptos::prelude::*;

use crate::core::durable::SimReport;
use crate::core::job::run_to_end;
use crate::core::lab::LabRun;
use crate::layout::latency::{LatencyMarks, LatencyMarksJob, LatencyView, MarksFor};

use super::scheduler::{run_sliced, Slicing};
use super::state::Lab;

/// From this many records, the marks are worked out a slice per task.
const LATER_FROM: usize = 100_000;

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
            let made = Arc::new(run_to_end(LatencyMarksJob::new(run.clone(), wanted)));
            self.ready.set_value(Some((wanted, made.clone())));
            return Some(made);
        }
        if self.job.with_value(|job| *job != Some(wanted)) {
            self.job.set_value(Some(wanted));
            // Worked out in the tasks that follow; a newer run or geometry stops the job.
            run_sliced(
                lab.work.progress,
                LatencyMarksJob::new(run.clone(), wanted),
                Slicing {
                    start_later: true,
                    finish_later: false,
                },
                move || self.job.with_value(|job| *job == Some(wanted)),
                move |marks| {
                    self.ready.set_value(Some((wanted, Arc::new(marks))));
                    self.job.set_value(None);
                    self.done.update(|n| *n = n.wrapping_add(1));
                },
            );
        }
        None
    }
}
