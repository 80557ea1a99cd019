//! The one way the page does long work: a core [`Job`] stepped for a frame's time, then the page
//! answers (a zero-delay timer, `soon`) and the job goes on in the next task, with the progress
//! bar saying what it is doing. A job no longer wanted (a newer change superseded it) stops at
//! the start of its next slice. Reading traffic, running the rows, working out the charts' marks
//! and writing the CSV all go through [`run_sliced`].

use leptos::prelude::{RwSignal, Set};

use crate::core::job::{Job, Step};

/// Work done between two chances for the page to answer, in milliseconds: a frame's worth, well
/// under the 50 ms a task may take, since a slice ends only at its next look at the clock and a
/// busy machine can stretch it.
pub const SLICE_MS: f64 = 16.0;

/// Long work under way, as the progress bar shows it.
#[derive(Clone, Copy)]
pub struct Progress {
    pub what: &'static str,
    /// Thousandths done.
    pub permille: u32,
}

/// When a sliced job's first slice runs and its output is handed over.
#[derive(Clone, Copy)]
pub struct Slicing {
    /// Start in a task of its own, after the page has answered (not inside the caller's task).
    pub start_later: bool,
    /// Hand the output over in a task of its own (making it was the last slice's work).
    pub finish_later: bool,
}

impl Slicing {
    /// Starting at once and handing over in the same task: a small job is done before the
    /// caller returns (inside a click, for a download).
    pub const AT_ONCE: Slicing = Slicing {
        start_later: false,
        finish_later: false,
    };
}

/// A job with what to do with its output, seen without its type, so that one copy of the
/// scheduler's loop serves every kind of job (each type would otherwise add its own copy to the
/// page's WebAssembly).
trait Running {
    fn step(&mut self) -> Step;
    fn heavy_next(&self) -> bool;
    fn end_slice(&mut self);
    fn progress(&self) -> crate::core::job::Progress;
    /// Takes the output and gives it to whoever wanted it.
    fn hand_over(self: Box<Self>);
}

struct WithDone<J: Job> {
    job: J,
    done: Box<dyn FnOnce(J::Output)>,
}

impl<J: Job> Running for WithDone<J> {
    fn step(&mut self) -> Step {
        self.job.step(J::BUDGET)
    }
    fn heavy_next(&self) -> bool {
        self.job.heavy_next()
    }
    fn end_slice(&mut self) {
        self.job.end_slice();
    }
    fn progress(&self) -> crate::core::job::Progress {
        self.job.progress()
    }
    fn hand_over(self: Box<Self>) {
        let WithDone { job, done } = *self;
        done(job.finish());
    }
}

/// A job under way.
struct Sliced {
    job: Box<dyn Running>,
    bar: RwSignal<Option<Progress>>,
    wanted: Box<dyn Fn() -> bool>,
    finish_later: bool,
}

/// Runs `job` a frame's time at a time, showing its progress in `bar`, until it is done; then
/// clears the bar and gives its output to `done`. Before each slice it asks `wanted`, and stops
/// (leaving the bar to whoever superseded it) once that says no.
pub fn run_sliced<J: Job + 'static>(
    bar: RwSignal<Option<Progress>>,
    job: J,
    slicing: Slicing,
    wanted: impl Fn() -> bool + 'static,
    done: impl FnOnce(J::Output) + 'static,
) {
    let sliced = Sliced {
        job: Box::new(WithDone {
            job,
            done: Box::new(done),
        }),
        bar,
        wanted: Box::new(wanted),
        finish_later: slicing.finish_later,
    };
    if slicing.start_later {
        super::soon(move || sliced.slice());
    } else {
        sliced.slice();
    }
}

impl Sliced {
    fn slice(mut self) {
        if !(self.wanted)() {
            return;
        }
        let started = super::perf_now();
        while self.job.step() == Step::More {
            // A long step (wrapping up a row, a report's figures) opens a slice of its own.
            if self.job.heavy_next() || super::perf_now() - started > SLICE_MS {
                self.job.end_slice();
                let progress = self.job.progress();
                self.bar.set(Some(Progress {
                    what: progress.what,
                    permille: progress.permille(),
                }));
                super::soon(move || self.slice());
                return;
            }
        }
        self.job.end_slice();
        if self.finish_later {
            super::soon(move || {
                if (self.wanted)() {
                    self.hand_over();
                }
            });
        } else {
            self.hand_over();
        }
    }

    fn hand_over(self) {
        self.bar.set(None);
        self.job.hand_over();
    }
}
