//! Work done a slice at a time: a [`Job`] does a bounded amount of work per [`Job::step`], says
//! how far it has got, and ends with an output. The page runs every long piece of work (reading
//! a file, running the rows, emulating the Durable Object, working out chart marks, writing the
//! CSV) through one scheduler that steps a job for a frame's time and then lets the page answer;
//! natively, [`run_to_end`] steps it at once. Whatever the slices, the output is the same.

/// What a step left: more work, or none (the output can be taken with [`Job::finish`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    More,
    Done,
}

/// How far a job has got: `done` of `total` units, and what it is doing, in words a person reads
/// under the progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub what: &'static str,
    pub done: usize,
    pub total: usize,
}

impl Progress {
    /// Thousandths done.
    pub fn permille(&self) -> u32 {
        permille(self.done, self.total)
    }
}

/// `done` of `total` in thousandths (1000 at most; 0 of 0 is 0).
pub fn permille(done: usize, total: usize) -> u32 {
    ((done as u64).saturating_mul(1000) / (total.max(1) as u64)).min(1000) as u32
}

/// Long work that can stop after any step and go on later.
pub trait Job {
    type Output;
    /// Units of work (decisions, records, pieces of text, rows) a step is given between two
    /// looks at the page's clock.
    const BUDGET: usize;

    /// Does up to `budget` more units of work (at least one, when any is left); `Step::Done`
    /// once nothing is left. Stepping a finished job does nothing.
    fn step(&mut self, budget: usize) -> Step;

    /// How far the job has got.
    fn progress(&self) -> Progress;

    /// True when the next step is long work done in one piece (wrapping up a row of a large
    /// trace, a report's figures), which a page starts in a fresh slice.
    fn heavy_next(&self) -> bool {
        false
    }

    /// Called by the scheduler when a slice ends (before the page answers, and before the
    /// output is taken): a job may hand over what it has made so far (the CSV's text).
    fn end_slice(&mut self) {}

    /// The output; work not yet done is done first.
    fn finish(self) -> Self::Output;
}

/// Steps `job` until it is done, with no slices, and gives its output.
pub fn run_to_end<J: Job>(mut job: J) -> J::Output {
    while job.step(usize::MAX) == Step::More {}
    job.finish()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Steps `job` with `budget` until it is done, checking that progress never goes back or
    /// past its total, and gives the output and the number of steps.
    pub(crate) fn run_in_steps<J: Job>(mut job: J, budget: usize) -> (J::Output, usize) {
        let mut steps = 0;
        let mut last = 0;
        loop {
            let step = job.step(budget);
            steps += 1;
            let Progress { done, total, .. } = job.progress();
            assert!(done <= total, "{done} of {total}");
            assert!(done >= last, "progress went back from {last} to {done}");
            last = done;
            job.end_slice();
            if step == Step::Done {
                break;
            }
        }
        (job.finish(), steps)
    }

    /// Sums the numbers `0..n`, `budget` of them a step.
    struct Sum {
        next: u64,
        n: u64,
        total: u64,
    }

    impl Job for Sum {
        type Output = u64;
        const BUDGET: usize = 10;
        fn step(&mut self, budget: usize) -> Step {
            let to = self.next.saturating_add(budget.max(1) as u64).min(self.n);
            self.total += (self.next..to).sum::<u64>();
            self.next = to;
            if self.next == self.n {
                Step::Done
            } else {
                Step::More
            }
        }
        fn progress(&self) -> Progress {
            Progress {
                what: "Summing",
                done: self.next as usize,
                total: self.n as usize,
            }
        }
        fn finish(mut self) -> u64 {
            while self.step(usize::MAX) == Step::More {}
            self.total
        }
    }

    fn sum(n: u64) -> Sum {
        Sum {
            next: 0,
            n,
            total: 0,
        }
    }

    #[test]
    fn a_job_stepped_one_unit_at_a_time_gives_what_it_gives_at_once() {
        let whole = run_to_end(sum(1000));
        assert_eq!(whole, 499_500);
        let (sliced, steps) = run_in_steps(sum(1000), 1);
        assert_eq!((sliced, steps), (whole, 1000));
        assert_eq!(run_in_steps(sum(1000), 7).0, whole);
    }

    #[test]
    fn finishing_a_job_part_way_does_the_rest_first() {
        let mut job = sum(100);
        assert_eq!(job.step(10), Step::More);
        assert_eq!(job.progress().permille(), 100);
        assert_eq!(job.finish(), 4950);
    }

    #[test]
    fn progress_is_counted_in_thousandths_and_never_past_a_thousand() {
        assert_eq!(permille(1, 3), 333);
        assert_eq!(permille(5, 0), 1000);
        assert_eq!(permille(0, 0), 0);
        assert_eq!(permille(usize::MAX / 2, 10), 1000);
    }
}
