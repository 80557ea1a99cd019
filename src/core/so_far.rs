//! What each row had done by a moment of playback: the requests it had let through, delayed and
//! refused by then, and its busiest window so far. The page's row labels and figures table count
//! up to the playhead with these while the story plays, and reach the run's totals at its end.
//!
//! A request counts from the moment it is decided (its arrival, or a retry's own time); the
//! busiest window counts a request when it was served, as the run's does (`super::run`). The
//! busiest window so far only grows, one step at a time, so a run keeps the moments it grew
//! (`run::Steps`, gathered where its busiest window is worked out): a handful of entries whatever
//! the trace's size, looked up by a binary search.

use super::durable::{Outcome, SimReport};
use super::limiter::Parts;
use super::run::AlgorithmRun;
use super::time::Time;
use super::traffic::Trace;

/// A row's figures by a moment: as the figures table names them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SoFar {
    /// Let through, now or later.
    pub passed: u64,
    /// Of them, held back first.
    pub delayed: u64,
    pub rejected: u64,
    /// The most one key had served inside one window.
    pub most_in_window: u64,
}

/// A row by `t`: the verdicts on the requests of `trace` that had arrived, its clients' retries
/// sent by then (clients obey only in a program with the rules, `Parts::RULES`), and its busiest
/// window by then.
pub fn row<C: Parts>(r: &AlgorithmRun, trace: &Trace, t: Time) -> SoFar {
    let decided = trace.requests().partition_point(|q| q.at <= t);
    let (allowed, delayed, rejected) = r.verdicts.counts_before(decided);
    let mut so_far = SoFar {
        passed: allowed + delayed,
        delayed,
        rejected,
        most_in_window: r.busiest_by.at(t),
    };
    let retries = r.clients.iter().filter(|_| C::RULES);
    for retry in retries.flat_map(|c| &c.retries).filter(|m| m.at <= t) {
        match (retry.passed, retry.delayed) {
            (true, true) => {
                so_far.passed += 1;
                so_far.delayed += 1;
            }
            (true, false) => so_far.passed += 1,
            (false, _) => so_far.rejected += 1,
        }
    }
    so_far
}

/// The Durable Object's row by a moment, and two of its outcomes the row's sentence names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DurableSoFar {
    pub row: SoFar,
    /// Calls the Worker let through unmetered because the object did not answer in time.
    pub degraded: u64,
    /// Calls the Worker refused because the object did not answer in time.
    pub failed_closed: u64,
}

/// The Durable Object's row by `t`: every call the Worker sent by then, retries included.
pub fn durable(report: &SimReport, t: Time) -> DurableSoFar {
    let mut so_far = DurableSoFar {
        row: SoFar {
            most_in_window: report.busiest_by.at(t),
            ..SoFar::default()
        },
        ..DurableSoFar::default()
    };
    for record in report.records.iter().filter(|r| r.sent <= t) {
        let outcome = record.outcome;
        if outcome.passes() {
            so_far.row.passed += 1;
        }
        match outcome {
            Outcome::Delayed => so_far.row.delayed += 1,
            Outcome::Rejected => so_far.row.rejected += 1,
            Outcome::FailedClosed => {
                so_far.row.rejected += 1;
                so_far.failed_closed += 1;
            }
            Outcome::DegradedAllowed => so_far.degraded += 1,
            Outcome::Allowed => {}
        }
    }
    so_far
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::lab::LabRun;
    use crate::core::limiter::Complete;
    use crate::core::url::parse_query;

    fn totals(run: &LabRun, index: usize) -> SoFar {
        let r = &run.runs[index];
        SoFar {
            passed: r.passed(),
            delayed: r.delayed,
            rejected: r.rejected,
            most_in_window: r.max_in_window,
        }
    }

    #[test]
    fn by_the_end_every_row_has_counted_up_to_its_totals() {
        for query in [
            "",
            "pattern=several-keys&algos=fixed,sliding-log,sliding-counter,token-bucket,gcra,leaky-bucket",
            "pattern=burst-trickle&algos=leaky-bucket,nginx,dotnet-token,governor,upstash-sliding&leak-delay=2",
            "pattern=edge&algos=fixed,token-bucket,leaky-bucket&clients=obey&retries=3",
            "pattern=double&algos=fixed,leaky-bucket,express-rate-limit&instances=3&second=3/5",
        ] {
            let parsed = parse_query(query);
            assert_eq!(parsed.notices, [], "{query}");
            let run = LabRun::compute(&parsed.state);
            for index in 0..run.runs.len() {
                assert_eq!(
                    row::<Complete>(&run.runs[index], &run.trace, run.horizon),
                    totals(&run, index),
                    "{query}: {}",
                    run.runs[index].algorithm
                );
                if let Some(before) = run.trace.requests()[0].at.micros().checked_sub(1) {
                    assert_eq!(
                        row::<Complete>(&run.runs[index], &run.trace, Time(before)),
                        SoFar::default(),
                        "{query}: nothing before the first request"
                    );
                }
            }
        }
    }

    #[test]
    fn counts_grow_with_the_playhead_and_never_pass_the_totals() {
        let run = LabRun::compute(
            &parse_query("pattern=edge&algos=fixed,sliding-log,leaky-bucket&clients=obey").state,
        );
        for index in 0..run.runs.len() {
            let mut before = SoFar::default();
            for tenth in 0..=100 {
                let t = Time(run.horizon.micros() / 100 * tenth);
                let now = row::<Complete>(&run.runs[index], &run.trace, t);
                assert!(now.passed >= before.passed && now.rejected >= before.rejected);
                assert!(now.most_in_window >= before.most_in_window);
                assert!(now.passed <= totals(&run, index).passed);
                before = now;
            }
        }
    }

    #[test]
    fn the_edge_pattern_is_at_the_limit_until_its_second_burst() {
        // Five at the end of one window and five at the start of the next: the fixed window lets
        // all ten through, but the busiest window reaches ten only once the second five are in.
        let run = LabRun::compute(&parse_query("pattern=edge&algos=fixed").state);
        let times: Vec<Time> = run.trace.requests().iter().map(|q| q.at).collect();
        let fixed = &run.runs[0];
        assert_eq!(
            row::<Complete>(fixed, &run.trace, times[4]).most_in_window,
            5
        );
        assert_eq!(row::<Complete>(fixed, &run.trace, times[4]).passed, 5);
        assert_eq!(
            row::<Complete>(fixed, &run.trace, times[9]).most_in_window,
            10
        );
    }

    #[test]
    fn the_durable_object_counts_up_to_its_totals() {
        let parsed = parse_query("do=1&pattern=burst-trickle&fail=closed&outage=2-4");
        assert_eq!(parsed.notices, []);
        let run = LabRun::compute(&parsed.state);
        let Some(Ok(report)) = &run.durable else {
            panic!("the object runs")
        };
        let end = durable(report, Time(u64::MAX)).row;
        assert_eq!(end.passed, report.passed());
        assert_eq!(end.delayed, report.count(Outcome::Delayed));
        assert_eq!(
            end.rejected,
            report.count(Outcome::Rejected) + report.count(Outcome::FailedClosed)
        );
        assert_eq!(end.most_in_window, report.most_in_window);

        // Far from its object, every call times out and is refused: by the end, all of them.
        let far = LabRun::compute(
            &parse_query("do=1&pattern=steady&from=fra&home=gru&fail=closed").state,
        );
        let Some(Ok(far)) = &far.durable else {
            panic!("the object runs")
        };
        let refused = far.count(Outcome::FailedClosed);
        assert!(refused > 0, "the Worker gives up on some");
        let end = durable(far, Time(u64::MAX));
        assert_eq!((end.degraded, end.failed_closed), (0, refused));
        assert_eq!(
            durable(far, Time::ZERO).failed_closed,
            1,
            "the first call at 0 s"
        );
        let first = run.trace.requests()[0].at;
        assert_eq!(durable(report, first).row.passed, 1, "its first call");
    }
}
