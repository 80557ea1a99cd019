//! The Durable Object chart's geometry, with no browser in it: the strips' heights, where a
//! latency sits, and which marks the latency and queue strips show (one per outcome per 2×2
//! device-pixel cell, the tallest queue per device-pixel column). The page (`ui::draw_latency`)
//! only paints what is worked out here.

use std::sync::Arc;

use crate::core::durable::{RequestRecord, SimReport};
use crate::core::job::{Job, Progress, Step};
use crate::core::lab::LabRun;
use crate::core::time::{Span, Time};

use super::zoom::Range;

pub const LATENCY_H: f64 = 200.0;
pub const QUEUE_H: f64 = 60.0;
pub const STORED_H: f64 = 50.0;
pub const GAP: f64 = 10.0;

pub fn chart_height() -> f64 {
    LATENCY_H + GAP + QUEUE_H + GAP + STORED_H
}

/// The latency axis: a little above the timeout, or above the slowest answers if they are
/// later (they cannot be, since the Worker gives up at the timeout, but faults can delay it).
pub fn latency_ceiling(report: &SimReport, timeout: Span) -> Span {
    let slowest = report.slowest;
    Span(timeout.micros().max(slowest.micros()).saturating_mul(5) / 4).max(Span::from_millis(10))
}

/// Where a latency goes on the latency strip, against the axis's `ceiling`.
pub fn y_latency(latency: Span, ceiling: Span) -> f64 {
    LATENCY_H
        - 6.0
        - (latency.micros() as f64 / ceiling.micros().max(1) as f64).min(1.0) * (LATENCY_H - 12.0)
}

pub struct LatencyView {
    pub width: f64,
    /// The stretch of time shown: the timelines' (`view=`).
    pub range: Range,
    pub timeout: Span,
    pub outage: Option<(Span, Span)>,
    /// A slow period, tinted like degraded answers.
    pub slow: Option<(Span, Span)>,
    /// A scheduled eviction, drawn as a line.
    pub evict_at: Option<Span>,
    pub dpr: f64,
}

impl LatencyView {
    pub fn x(&self, t: Time) -> f64 {
        self.range.x(t, self.width)
    }

    pub fn time_at(&self, x: f64) -> Time {
        self.range.time_at(x, self.width)
    }
}

/// What a set of marks was worked out for: a run (by identity) and the chart's geometry.
#[derive(Clone, Copy, PartialEq)]
pub struct MarksFor {
    pub run: usize,
    pub width: f64,
    pub range: Range,
    pub ceiling: Span,
    pub dpr: f64,
}

impl MarksFor {
    pub fn new(run: &Arc<LabRun>, report: &SimReport, view: &LatencyView) -> MarksFor {
        MarksFor {
            run: Arc::as_ptr(run) as usize,
            width: view.width,
            range: view.range,
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
        let shown = records
            .get(self.next..to)
            .unwrap_or_default()
            .iter()
            .filter(|r| of.range.contains(r.sent));
        for record in shown {
            let (x, y) = (
                of.range.x(record.sent, of.width),
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
                let column = (of.range.x(arrived, of.width) * of.dpr + 0.5).max(0.0) as usize;
                if let Some(tallest) = self.marks.tallest.get_mut(column) {
                    *tallest = (*tallest).max(record.queue_depth);
                }
            }
        }
        self.next = to;
        self.next < records.len()
    }

    pub fn finish(self) -> LatencyMarks {
        self.marks
    }
}

/// Working out a run's [`LatencyMarks`] as a [`Job`]: the Durable Object's records, `budget` a
/// step. A run without a report has no records and no marks.
pub struct LatencyMarksJob {
    run: Arc<LabRun>,
    builder: LatencyMarksBuilder,
}

impl LatencyMarksJob {
    pub fn new(run: Arc<LabRun>, of: MarksFor) -> LatencyMarksJob {
        LatencyMarksJob {
            run,
            builder: LatencyMarksBuilder::new(of),
        }
    }

    fn records(&self) -> &[RequestRecord] {
        match &self.run.durable {
            Some(Ok(report)) => &report.records,
            _ => &[],
        }
    }
}

impl Job for LatencyMarksJob {
    type Output = LatencyMarks;
    /// Records walked between two looks at the clock.
    const BUDGET: usize = 16_384;

    fn step(&mut self, budget: usize) -> Step {
        let records = match &self.run.durable {
            Some(Ok(report)) => &report.records[..],
            _ => &[],
        };
        if self.builder.walk(records, budget) {
            Step::More
        } else {
            Step::Done
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            what: "Drawing the Durable Object's chart",
            done: self.builder.next,
            total: self.records().len(),
        }
    }

    fn finish(mut self) -> LatencyMarks {
        while self.step(usize::MAX) == Step::More {}
        self.builder.finish()
    }
}

/// The 2×2 device-pixel cell a CSS coordinate falls in.
fn cell(v: f64, dpr: f64) -> usize {
    ((v * dpr) / 2.0).max(0.0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::durable::Outcome;

    fn answer(
        sent_ms: u64,
        latency_ms: u64,
        outcome: crate::core::durable::Outcome,
    ) -> crate::core::durable::RequestRecord {
        crate::core::durable::RequestRecord {
            key: 0,
            origin: crate::core::region::Region::Frankfurt,
            route: 0,
            attempt: 0,
            cost: 1,
            object: None,
            sent: Time::from_millis(sent_ms),
            arrived: Some(Time::from_millis(sent_ms + 1)),
            queue_depth: (sent_ms % 11) as u32,
            decided: None,
            answered: Time::from_millis(sent_ms + latency_ms),
            outcome,
            decision: None,
            late: false,
            local: false,
        }
    }

    /// 12,000 px for 50 s: requests 10 ms apart fall 2.4 px apart, in cells of their own.
    fn latency_geometry() -> MarksFor {
        MarksFor {
            run: 1,
            width: 12_000.0,
            range: Range::whole(Time::from_secs(50)),
            ceiling: Span::from_millis(100),
            dpr: 1.0,
        }
    }

    /// The Durable Object chart's marks for a large run are gathered a slice per task: the pieces
    /// must add up to exactly the marks of one walk.
    #[test]
    fn the_latency_chart_marks_walked_in_pieces_equal_one_walk() {
        use LatencyMarksBuilder;
        let kinds = [
            Outcome::Allowed,
            Outcome::Rejected,
            Outcome::DegradedAllowed,
            Outcome::FailedClosed,
        ];
        let records: Vec<_> = (0..5_000u64)
            .map(|i| answer(i * 10, (i * 7) % 120, kinds[(i % 4) as usize]))
            .collect();
        let mut whole = LatencyMarksBuilder::new(latency_geometry());
        assert!(!whole.walk(&records, usize::MAX));
        let mut pieces = LatencyMarksBuilder::new(latency_geometry());
        let mut steps = 1;
        while pieces.walk(&records, 777) {
            steps += 1;
        }
        assert_eq!(steps, 5_000usize.div_ceil(777));
        let (whole, pieces) = (whole.finish(), pieces.finish());
        assert_eq!(whole.spots, pieces.spots);
        assert_eq!(whole.tallest, pieces.tallest);
        assert_eq!(whole.tallest.iter().copied().max(), Some(10));
        // Every request has a cell of its own, so a record skipped at a seam would be missing here.
        assert!(kinds
            .iter()
            .all(|&k| whole.spots[k as usize].len() == 1_250));
    }

    /// One mark per outcome per 2×2-pixel cell: a million answers on one spot draw one mark.
    #[test]
    fn answers_on_one_spot_with_one_outcome_leave_one_mark() {
        use LatencyMarksBuilder;
        let records = [
            answer(1_000, 50, Outcome::Allowed),
            answer(1_000, 50, Outcome::Allowed),
            answer(1_000, 50, Outcome::Rejected),
            answer(40_000, 10, Outcome::Allowed),
        ];
        let mut builder = LatencyMarksBuilder::new(latency_geometry());
        builder.walk(&records, usize::MAX);
        let marks = builder.finish();
        assert_eq!(marks.spots[Outcome::Allowed as usize].len(), 2);
        assert_eq!(marks.spots[Outcome::Rejected as usize].len(), 1);
    }

    /// Zoomed in with the timelines, the chart marks only the answers sent inside the stretch,
    /// across the whole width, and none piled at its edges.
    #[test]
    fn answers_outside_the_stretch_shown_leave_no_mark() {
        let records = [
            answer(1_000, 50, Outcome::Allowed),
            answer(20_000, 50, Outcome::Allowed),
            answer(25_000, 50, Outcome::Rejected),
            answer(40_000, 10, Outcome::Allowed),
        ];
        let zoomed = MarksFor {
            range: Range {
                from: Time::from_secs(10),
                to: Time::from_secs(30),
            },
            ..latency_geometry()
        };
        let mut builder = LatencyMarksBuilder::new(zoomed);
        builder.walk(&records, usize::MAX);
        let marks = builder.finish();
        let xs: Vec<f64> = marks.spots.iter().flatten().map(|&(x, _)| x).collect();
        // 20 s over 12,000 px: 10 s to the left edge, 20 s half way, 25 s three quarters.
        assert_eq!(xs.len(), 2);
        assert!(xs.contains(&6_000.0) && xs.contains(&8_992.0), "{xs:?}");
    }

    #[test]
    fn a_runs_latency_marks_worked_out_a_record_a_step_are_those_worked_out_at_once() {
        use crate::core::job::{run_to_end, tests::run_in_steps};
        use crate::core::url::parse_query;
        let run = Arc::new(LabRun::compute(
            &parse_query("pattern=several-keys&algos=fixed&do=1").state,
        ));
        let Some(Ok(report)) = &run.durable else {
            panic!("the Durable Object ran");
        };
        let view = LatencyView {
            width: 900.0,
            range: Range::whole(run.horizon),
            timeout: Span::from_millis(50),
            outage: None,
            slow: None,
            evict_at: None,
            dpr: 2.0,
        };
        let of = MarksFor::new(&run, report, &view);
        let whole = run_to_end(LatencyMarksJob::new(run.clone(), of));
        assert!(!whole.spots[Outcome::Allowed as usize].is_empty());
        let (sliced, steps) = run_in_steps(LatencyMarksJob::new(run.clone(), of), 1);
        assert_eq!(steps, report.records.len());
        assert_eq!((sliced.spots, sliced.tallest), (whole.spots, whole.tallest));
    }
}
