//! The Durable Object chart's geometry, with no browser in it: the strips' places and titles, the
//! latency axis's ticks and the strips' scales, where a latency sits, what the latency and queue
//! strips show (a mark per answer where marks would not touch, bars in proportion to the counts
//! in bands of latency where they would, as the timelines do in `layout::marks`; the tallest queue
//! per device-pixel column), which answer is under the pointer or next to the keyboard's, what it
//! says, and what a drag by keyboard schedules. The page (`ui::draw_latency`,
//! `ui::durable_lab`) only paints and wires what is worked out here.

use std::sync::Arc;

use crate::core::durable::{Outcome, RequestRecord, SimReport};
use crate::core::job::{Job, Progress, Step};
use crate::core::lab::LabRun;
use crate::core::time::{format_seconds, Span, Time};

use super::marks::{cluster_json, plan_bars, Counts, LaneColumns, LanePlan, KINDS};
use super::timeline::{column_at, mark_width, outcome_mark, tick_labels, ticks_in};
use super::zoom::Range;

/// Room left of the plot for the latency axis's labels, in CSS pixels: "20000" at 12 px.
pub const AXIS_W: f64 = 44.0;
/// Room above each strip for its title.
pub const TITLE_H: f64 = 18.0;
pub const LATENCY_H: f64 = 200.0;
pub const QUEUE_H: f64 = 60.0;
pub const STORED_H: f64 = 50.0;
pub const GAP: f64 = 8.0;
/// Where each strip starts, under its title.
pub const LATENCY_TOP: f64 = TITLE_H;
pub const QUEUE_TOP: f64 = LATENCY_TOP + LATENCY_H + GAP + TITLE_H;
pub const STORED_TOP: f64 = QUEUE_TOP + QUEUE_H + GAP + TITLE_H;

/// The strips' titles, each written above its strip (on the canvas, so an exported picture keeps
/// them): the latency axis's unit is in its title, so its ticks are plain numbers.
pub const TITLES: [(f64, &str); 3] = [
    (LATENCY_TOP, "latency (ms)"),
    (QUEUE_TOP, "queue at the object (requests held)"),
    (STORED_TOP, "stored keys"),
];

/// Room under the strips for the time axis's labels.
pub const TIME_H: f64 = 20.0;

pub fn chart_height() -> f64 {
    STORED_TOP + STORED_H + TIME_H
}

/// The latency axis: a little above the timeout, or above the slowest answers if they are
/// later (they cannot be, since the Worker gives up at the timeout, but faults can delay it).
pub fn latency_ceiling(report: &SimReport, timeout: Span) -> Span {
    let slowest = report.slowest;
    Span(timeout.micros().max(slowest.micros()).saturating_mul(5) / 4).max(Span::from_millis(10))
}

/// Where a latency goes on the latency strip, against the axis's `ceiling`.
pub fn y_latency(latency: Span, ceiling: Span) -> f64 {
    LATENCY_TOP + LATENCY_H
        - 6.0
        - (latency.micros() as f64 / ceiling.micros().max(1) as f64).min(1.0) * (LATENCY_H - 12.0)
}

/// Where a queue of `depth` reaches on the queue strip, whose top stands for `most`.
pub fn y_queue(depth: u32, most: u32) -> f64 {
    QUEUE_TOP + QUEUE_H - f64::from(depth) / f64::from(most.max(1)) * (QUEUE_H - 6.0)
}

/// Where `n` stored keys sit on the stored-keys strip, whose top stands for `most`.
pub fn y_stored(n: u32, most: u32) -> f64 {
    STORED_TOP + STORED_H - 4.0 - f64::from(n) / f64::from(most.max(1)) * (STORED_H - 8.0)
}

/// Where time `t` sits across a chart `width` wide showing the stretch `range`: the plot starts
/// right of the latency axis's labels and is laid out as a timeline `width - AXIS_W` wide, so a
/// chart drawn `AXIS_W` left of a timeline lines up with it.
pub fn x_at(t: Time, range: Range, width: f64) -> f64 {
    AXIS_W + range.x(t, width - AXIS_W)
}

/// The latency axis's ticks: 0 and every multiple of a round step (1, 2 or 5 times a power of
/// ten milliseconds) up to the ceiling, at most five, so that 12 px labels never crowd the strip.
pub fn latency_ticks(ceiling: Span) -> Vec<Span> {
    let ceiling_ms = ceiling.micros() / 1_000;
    let step = round_steps().find(|s| ceiling_ms / s <= 4).unwrap_or(1);
    (0..=ceiling_ms / step)
        .map(|i| Span::from_millis(i * step))
        .collect()
}

/// 1, 2, 5, 10, 20, 50, ...: the round steps of the latency axis and of the keyboard's faults.
fn round_steps() -> impl Iterator<Item = u64> {
    (0u32..64).map(|k| [1, 2, 5][(k % 3) as usize] * 10u64.saturating_pow(k / 3))
}

/// The chart's labels, each with its place in CSS pixels: the time axis's ticks (across, in one
/// unit, as the timelines'), the latency axis's (up, whole milliseconds), the timeout line's
/// label, and the queue and stored-keys strips' scales (0 and the most the strip shows).
pub struct Axes {
    pub time: Vec<(f64, String)>,
    pub latency: Vec<(f64, String)>,
    pub timeout: (f64, String),
    pub queue: [(f64, String); 2],
    pub stored: [(f64, String); 2],
}

impl Axes {
    pub fn new(report: &SimReport, view: &LatencyView) -> Axes {
        let timeout = view.timeout;
        let ceiling = latency_ceiling(report, timeout);
        let (queue, stored) = (report.longest_queue.max(1), report.max_stored_keys.max(1));
        let times = ticks_in(view.range, view.width - AXIS_W);
        Axes {
            time: tick_labels(&times)
                .into_iter()
                .zip(&times)
                .map(|(label, &t)| (view.x(t), label))
                .collect(),
            latency: latency_ticks(ceiling)
                .into_iter()
                .map(|t| (y_latency(t, ceiling), (t.micros() / 1_000).to_string()))
                .collect(),
            timeout: (
                y_latency(timeout, ceiling),
                format!("timeout {} ms", format_seconds(timeout.micros() * 1_000)),
            ),
            queue: [
                (y_queue(0, queue), "0".into()),
                (y_queue(queue, queue), queue.to_string()),
            ],
            stored: [
                (y_stored(0, stored), "0".into()),
                (y_stored(stored, stored), stored.to_string()),
            ],
        }
    }

    /// The labels, where the plot starts and ends, and how many fail-open and fail-closed marks
    /// are drawn, as JSON: the page sets it on the canvas (`data-axes`) for its tests.
    pub fn to_json(&self, view: &LatencyView, marks: &LatencyMarks) -> String {
        let list = |labels: &[(f64, String)]| {
            let quoted: Vec<String> = labels.iter().map(|(_, l)| format!("\"{l}\"")).collect();
            quoted.join(",")
        };
        format!(
            "{{\"plotLeft\":{},\"plotRight\":{},\"fromUs\":{},\"horizonUs\":{},\"timeTicks\":[{}],\"latencyTicks\":[{}],\"timeoutY\":{},\"timeoutLabel\":\"{}\",\"queueScale\":[{}],\"storedScale\":[{}],\"failOpen\":{},\"failClosed\":{}}}",
            view.x(view.range.from),
            view.x(view.range.to),
            view.range.from.micros(),
            view.range.to.micros(),
            list(&self.time),
            list(&self.latency),
            self.timeout.0,
            self.timeout.1,
            list(&self.queue),
            list(&self.stored),
            marks.spots[Outcome::DegradedAllowed as usize].len(),
            marks.spots[Outcome::FailedClosed as usize].len(),
        )
    }
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
        x_at(t, self.range, self.width)
    }

    pub fn time_at(&self, x: f64) -> Time {
        self.range.time_at(x - AXIS_W, self.width - AXIS_W)
    }
}

/// What a set of marks was worked out for: a run (by identity) and the chart's geometry.
#[derive(Clone, Copy, PartialEq)]
pub struct MarksFor {
    pub run: usize,
    pub width: f64,
    pub range: Range,
    pub ceiling: Span,
    /// The timeout line's latency: the bands of crowded answers are centred on it, so that
    /// answers cut off at the timeout are drawn on its line.
    pub timeout: Span,
    pub dpr: f64,
}

impl MarksFor {
    pub fn new(run: &Arc<LabRun>, report: &SimReport, view: &LatencyView) -> MarksFor {
        MarksFor {
            run: Arc::as_ptr(run) as usize,
            width: view.width,
            range: view.range,
            ceiling: latency_ceiling(report, view.timeout),
            timeout: view.timeout,
            dpr: view.dpr,
        }
    }

    /// Where an answer's mark sits: when it was sent, across; its latency, up.
    pub fn spot(&self, record: &RequestRecord) -> (f64, f64) {
        (
            x_at(record.sent, self.range, self.width),
            y_latency(record.latency(), self.ceiling),
        )
    }

    /// The CSS y of band `k`'s line, counted from the timeout line (band 0), upwards negative.
    fn band_y(&self, k: i64) -> f64 {
        y_latency(self.timeout, self.ceiling) + k as f64 * BAND_H
    }

    /// The bands that cover the latency strip, as the first and last `k` of [`Self::band_y`].
    fn bands(&self) -> (i64, i64) {
        let from_timeout = |y: f64| (y - self.band_y(0)) / BAND_H;
        (
            from_timeout(LATENCY_TOP).floor() as i64,
            from_timeout(LATENCY_TOP + LATENCY_H).ceil() as i64,
        )
    }
}

/// Where answers' marks would overlap, the latency strip draws them as bars in bands of latency
/// this tall (CSS pixels), each band's bars growing from its own line: a mark's height and a
/// little more, so bars of neighbouring bands never touch.
pub const BAND_H: f64 = 12.0;

/// How far a band's bars reach from its line, on each side, in CSS pixels.
const BAND_REACH: f64 = BAND_H / 2.0 - 1.0;

/// One band of latency's crowded answers, planned as a timeline's lane is (`layout::marks`).
#[derive(Clone, Debug, PartialEq)]
pub struct LatencyBand {
    /// The CSS y of its line.
    pub y: f64,
    pub plan: LanePlan,
}

/// What the latency and queue strips draw. An answer whose mark would touch no other's (none
/// within a mark's width across and a mark's height up or down) keeps its own mark at its exact
/// spot (`spots`, per outcome, indexed by `Outcome as usize`); the others are counted in bands of
/// latency and drawn as bars in proportion to their counts, on one scale for the whole chart
/// (`bands`). Per device-pixel column, the tallest queue seen there (`tallest`).
pub struct LatencyMarks {
    pub spots: [Vec<(f64, f64)>; 5],
    pub bands: Vec<LatencyBand>,
    pub tallest: Vec<u32>,
}

impl LatencyMarks {
    /// The answers the chart shows, as marks and in bars.
    pub fn answers(&self) -> u64 {
        let marks: usize = self.spots.iter().map(Vec::len).sum();
        marks as u64 + self.bands.iter().map(|b| b.plan.requests()).sum::<u64>()
    }

    /// The plan as JSON, published on the canvas (`data-marks`) for tests and tools that read its
    /// pixels: each lone mark (its CSS x and y and outcome: `a`llowed, `r`efused, `d`elayed,
    /// `o`pen, `c`losed) and, per band (its line's CSS y), each cluster drawn as bars (the CSS x
    /// its bars start and end at, its answers, and how many were refused, fail-closed included).
    pub fn to_json(&self, dpr: f64) -> String {
        let css = |v: f64| (v * 100.0).round() / 100.0;
        let letters = ['a', 'r', 'd', 'o', 'c'];
        let lone: Vec<String> = Outcome::ALL
            .iter()
            .flat_map(|&o| {
                self.spots[o as usize].iter().map(move |&(x, y)| {
                    format!("[{},{},\"{}\"]", css(x), css(y), letters[o as usize])
                })
            })
            .collect();
        let bands: Vec<String> = self
            .bands
            .iter()
            .map(|band| {
                let bars: Vec<String> = band
                    .plan
                    .clusters
                    .iter()
                    .map(|c| cluster_json(c, mark_width(dpr), dpr))
                    .collect();
                format!("{{\"y\":{},\"bars\":[{}]}}", css(band.y), bars.join(","))
            })
            .collect();
        format!(
            "{{\"bandReach\":{BAND_REACH},\"lone\":[{}],\"bands\":[{}]}}",
            lone.join(","),
            bands.join(",")
        )
    }
}

/// One square cell of the grid that finds lone answers: how many answers it holds, the box they
/// span (device pixels), and the first one.
#[derive(Clone, Copy, Default)]
struct Cell {
    count: u32,
    x: (f64, f64),
    y: (f64, f64),
    first: Option<FirstAnswer>,
}

#[derive(Clone, Copy)]
struct FirstAnswer {
    spot: (f64, f64),
    outcome: Outcome,
    band: usize,
    column: usize,
}

/// Walks the records in as many pieces as it is given, gathering [`LatencyMarks`]: each shown
/// answer is counted in its band and device-pixel column, and in a grid of cells a mark wide,
/// which tells at the end which answers are alone.
pub struct LatencyMarksBuilder {
    of: MarksFor,
    next: usize,
    mark: f64,
    grid: (usize, usize),
    cells: Vec<Cell>,
    columns: usize,
    first_band: i64,
    /// Per band, per device-pixel column, how many answers of each outcome it holds.
    counts: Vec<Counts>,
    tallest: Vec<u32>,
}

impl LatencyMarksBuilder {
    pub fn new(of: MarksFor) -> LatencyMarksBuilder {
        let mark = f64::from(mark_width(of.dpr));
        let grid = (
            (of.width * of.dpr / mark) as usize + 1,
            ((LATENCY_TOP + LATENCY_H) * of.dpr / mark) as usize + 1,
        );
        let columns = (of.width * of.dpr) as usize + 1;
        let (first_band, last_band) = of.bands();
        let bands = (last_band - first_band + 1).max(1) as usize;
        LatencyMarksBuilder {
            of,
            next: 0,
            mark,
            grid,
            cells: vec![Cell::default(); grid.0 * grid.1],
            columns,
            first_band,
            counts: vec![[0; KINDS]; bands * columns],
            tallest: vec![0; columns],
        }
    }

    fn cell_of(&self, (x, y): (f64, f64)) -> (usize, usize) {
        let at = |v: f64, n: usize| ((v / self.mark).max(0.0) as usize).min(n - 1);
        (at(x, self.grid.0), at(y, self.grid.1))
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
        let bands = self.counts.len() / self.columns;
        for record in shown {
            let spot = of.spot(record);
            let device = (spot.0 * of.dpr, spot.1 * of.dpr);
            let column = column_at(spot.0, of.dpr, self.columns);
            let from_timeout = ((spot.1 - of.band_y(0)) / BAND_H).round() as i64;
            let band = ((from_timeout - self.first_band).max(0) as usize).min(bands - 1);
            let (cx, cy) = self.cell_of(device);
            let cell = &mut self.cells[cy * self.grid.0 + cx];
            if cell.count == 0 {
                cell.x = (device.0, device.0);
                cell.y = (device.1, device.1);
                cell.first = Some(FirstAnswer {
                    spot,
                    outcome: record.outcome,
                    band,
                    column,
                });
            }
            cell.count += 1;
            cell.x = (cell.x.0.min(device.0), cell.x.1.max(device.0));
            cell.y = (cell.y.0.min(device.1), cell.y.1.max(device.1));
            self.counts[band * self.columns + column][outcome_mark(record.outcome) as usize] += 1;
            if let (true, Some(arrived)) = (record.queue_depth > 0, record.arrived) {
                let column = (x_at(arrived, of.range, of.width) * of.dpr + 0.5).max(0.0) as usize;
                if let Some(tallest) = self.tallest.get_mut(column) {
                    *tallest = (*tallest).max(record.queue_depth);
                }
            }
        }
        self.next = to;
        self.next < records.len()
    }

    /// Whether the one answer of the cell at (`cx`, `cy`), at device spot (`x`, `y`), is alone: no
    /// answer of a neighbouring cell can be within a mark's width across and height up or down
    /// (judged by the box those answers span).
    fn alone(&self, (cx, cy): (usize, usize), (x, y): (f64, f64)) -> bool {
        let near = |(lo, hi): (f64, f64), v: f64| lo - v < self.mark && v - hi < self.mark;
        for ny in cy.saturating_sub(1)..=(cy + 1).min(self.grid.1 - 1) {
            for nx in cx.saturating_sub(1)..=(cx + 1).min(self.grid.0 - 1) {
                let other = &self.cells[ny * self.grid.0 + nx];
                if (nx, ny) != (cx, cy) && other.count > 0 && near(other.x, x) && near(other.y, y) {
                    return false;
                }
            }
        }
        true
    }

    pub fn finish(mut self) -> LatencyMarks {
        let mut spots: [Vec<(f64, f64)>; 5] = Default::default();
        for cy in 0..self.grid.1 {
            for cx in 0..self.grid.0 {
                let cell = self.cells[cy * self.grid.0 + cx];
                let Some(first) = cell.first.filter(|_| cell.count == 1) else {
                    continue;
                };
                if self.alone((cx, cy), (cell.x.0, cell.y.0)) {
                    spots[first.outcome as usize].push(first.spot);
                    let kind = outcome_mark(first.outcome) as usize;
                    self.counts[first.band * self.columns + first.column][kind] -= 1;
                }
            }
        }
        // Lone marks in the order the answers were sent, as one walk would meet them.
        for spots in &mut spots {
            spots.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        }
        let lanes: Vec<LaneColumns> = self
            .counts
            .chunks(self.columns)
            .map(|counts| LaneColumns {
                counts,
                release: &[],
            })
            .collect();
        let plans = plan_bars(&lanes, mark_width(self.of.dpr), BAND_REACH * self.of.dpr);
        let bands = plans
            .into_iter()
            .enumerate()
            .filter(|(_, plan)| !plan.clusters.is_empty())
            .map(|(i, plan)| LatencyBand {
                y: self.of.band_y(self.first_band + i as i64),
                plan,
            })
            .collect();
        LatencyMarks {
            spots,
            bands,
            tallest: self.tallest,
        }
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

/// The answer whose mark is nearest to (`x`, `y`), if one is within `within` CSS pixels.
pub fn nearest_answer(
    records: &[RequestRecord],
    of: &MarksFor,
    (x, y): (f64, f64),
    within: f64,
) -> Option<usize> {
    let mut best = None;
    let mut best_d = within * within;
    for (i, record) in records.iter().enumerate() {
        let (mx, my) = of.spot(record);
        let d = (mx - x).powi(2) + (my - y).powi(2);
        if d <= best_d {
            (best, best_d) = (Some(i), d);
        }
    }
    best
}

/// A move of the keyboard's place among the answers, in the order they were sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walk {
    Next,
    Previous,
    First,
    Last,
}

/// The answer a keyboard move lands on, in the order the calls were sent (a retry is sent later
/// than it is recorded, so the records' own order is not it; equal times keep the records'
/// order). From nowhere, any move starts at the first; past either end it stays put.
pub fn walk_answers(records: &[RequestRecord], from: Option<usize>, walk: Walk) -> Option<usize> {
    let here = from.and_then(|i| Some((records.get(i)?.sent, i)));
    let mut best: Option<(Time, usize)> = None;
    for (i, r) in records.iter().enumerate() {
        let k = (r.sent, i);
        let better = match (walk, here) {
            (Walk::Next, Some(h)) => k > h && best.is_none_or(|b| k < b),
            (Walk::Previous, Some(h)) => k < h && best.is_none_or(|b| k > b),
            (Walk::Last, _) => best.is_none_or(|b| k > b),
            _ => best.is_none_or(|b| k < b),
        };
        if better {
            best = Some(k);
        }
    }
    best.or(here).map(|(_, i)| i)
}

/// What the readout says of answer `i`: which request, when it was sent, how long the answer
/// took and what it was, exact to the microsecond.
pub fn answer_text(report: &SimReport, i: usize) -> Option<String> {
    let r = report.records.get(i)?;
    let sent_before = report
        .records
        .iter()
        .enumerate()
        .filter(|&(j, o)| (o.sent, j) < (r.sent, i))
        .count();
    let outcome = match r.outcome {
        Outcome::Allowed => "allowed",
        Outcome::Delayed => "allowed after a delay",
        Outcome::Rejected => "rejected (429)",
        Outcome::DegradedAllowed => {
            "no answer within the timeout, let through unmetered (fail open)"
        }
        Outcome::FailedClosed => "no answer within the timeout, refused with 503 (fail closed)",
    };
    Some(format!(
        "Request {} of {}{}, key {}, from {}: sent at {} s, answered after {} ms, {outcome}{}.",
        sent_before + 1,
        report.records.len(),
        if r.attempt > 0 {
            format!(" (retry {})", r.attempt)
        } else {
            String::new()
        },
        report.keys.get(r.key as usize).map_or("", |k| &k.key),
        r.origin.name(),
        format_seconds(r.sent.micros()),
        format_seconds(r.latency().micros() * 1_000),
        if r.late {
            "; the object decided it after the Worker gave up"
        } else {
            ""
        },
    ))
}

/// The shortest fault Enter schedules, and how close a keyboard's start and end may be: a round
/// step (1, 2 or 5 times a power of ten milliseconds) of at least a sixtieth of the axis, a second
/// on a minute's chart.
pub fn key_step(horizon: Time) -> Span {
    let wanted = horizon.micros() / 60;
    let step = round_steps().find(|ms| ms.saturating_mul(1_000) >= wanted);
    Span::from_millis(step.unwrap_or(1))
}

/// A drag by keyboard, as a drag by pointer: Enter at one answer starts it (`from`), Enter at
/// another ends it. Given where it started (if it has) and the time `at` of the answer Enter was
/// pressed at, what is pending next and what is scheduled: the period between the two (either
/// way round, at least `step` long), or for a `moment` (an eviction) `at` itself at once.
pub fn key_drag(
    from: Option<Time>,
    at: Time,
    moment: bool,
    step: Span,
) -> (Option<Time>, Option<(Span, Span)>) {
    let at = at.micros();
    match from.map(|t| t.micros()) {
        _ if moment => (None, Some((Span(at), Span(at)))),
        None => (Some(Time(at)), None),
        Some(from) => {
            let (a, b) = (from.min(at), from.max(at));
            (None, Some((Span(a), Span(b.max(a + step.micros())))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::marks::Mark;

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

    /// 12,000 px for 50 s: requests 10 ms apart fall 2.4 px apart, closer than a mark.
    fn latency_geometry() -> MarksFor {
        MarksFor {
            run: 1,
            width: 12_000.0,
            range: Range::whole(Time::from_secs(50)),
            ceiling: Span::from_millis(100),
            timeout: Span::from_millis(80),
            dpr: 1.0,
        }
    }

    fn marks_of(records: &[RequestRecord], of: MarksFor) -> LatencyMarks {
        let mut builder = LatencyMarksBuilder::new(of);
        builder.walk(records, usize::MAX);
        builder.finish()
    }

    /// Pixel area of each outcome (indexed by `Mark as usize`) in every band's bars.
    fn areas(marks: &LatencyMarks) -> [u64; KINDS] {
        let mut a = [0u64; KINDS];
        for bar in marks.bands.iter().flat_map(|b| &b.plan.bars) {
            for (sum, &h) in a.iter_mut().zip(&bar.heights) {
                *sum += u64::from(h);
            }
        }
        a
    }

    /// The Durable Object chart's marks for a large run are gathered a slice per task: the pieces
    /// must add up to exactly the marks of one walk.
    #[test]
    fn the_latency_chart_marks_walked_in_pieces_equal_one_walk() {
        let kinds = [
            Outcome::Allowed,
            Outcome::Rejected,
            Outcome::DegradedAllowed,
            Outcome::FailedClosed,
        ];
        // Crowded at first (10 ms apart at two latencies), then a mark apart (a second apart).
        let records: Vec<_> = (0..5_000u64)
            .map(|i| answer(i * 10, 20 + (i % 2) * 3, kinds[(i % 4) as usize]))
            .chain((0..20).map(|i| answer(51_000 + i * 1_000, 30, Outcome::Allowed)))
            .collect();
        let of = MarksFor {
            range: Range::whole(Time::from_secs(80)),
            ..latency_geometry()
        };
        let mut whole = LatencyMarksBuilder::new(of);
        assert!(!whole.walk(&records, usize::MAX));
        let mut pieces = LatencyMarksBuilder::new(of);
        let mut steps = 1;
        while pieces.walk(&records, 777) {
            steps += 1;
        }
        assert_eq!(steps, records.len().div_ceil(777));
        let (whole, pieces) = (whole.finish(), pieces.finish());
        assert_eq!(whole.spots, pieces.spots);
        assert_eq!(whole.bands, pieces.bands);
        assert_eq!(whole.tallest, pieces.tallest);
        assert_eq!(whole.tallest.iter().copied().max(), Some(10));
        // A record skipped at a seam would be missing here.
        assert_eq!(whole.answers(), 5_020);
        assert_eq!(whole.spots[Outcome::Allowed as usize].len(), 20);
    }

    #[test]
    fn answers_a_mark_apart_keep_their_own_marks_at_their_exact_spots() {
        let of = latency_geometry();
        // 0.24 px a millisecond: 40 ms is 9.6 px across; 50 ms and 10 ms of latency are far apart up.
        let records = [
            answer(1_000, 50, Outcome::Allowed),
            answer(1_040, 50, Outcome::Rejected),
            answer(1_000, 10, Outcome::Allowed),
        ];
        let marks = marks_of(&records, of);
        assert!(marks.bands.is_empty());
        assert_eq!(
            marks.spots[Outcome::Allowed as usize],
            [of.spot(&records[0]), of.spot(&records[2])],
            "left to right, then top to bottom"
        );
        assert_eq!(
            marks.spots[Outcome::Rejected as usize],
            [of.spot(&records[1])]
        );
    }

    #[test]
    fn answers_on_one_spot_are_one_bar_a_mark_wide_with_their_count() {
        let records = [
            answer(1_000, 50, Outcome::Allowed),
            answer(1_000, 50, Outcome::Allowed),
            answer(1_000, 50, Outcome::Rejected),
            answer(40_000, 10, Outcome::Allowed),
        ];
        let marks = marks_of(&records, latency_geometry());
        assert_eq!(
            marks.spots[Outcome::Allowed as usize].len(),
            1,
            "the one apart"
        );
        assert!(marks.spots[Outcome::Rejected as usize].is_empty());
        let [band] = &marks.bands[..] else {
            panic!("one band: {:?}", marks.bands);
        };
        let [cluster] = &band.plan.clusters[..] else {
            panic!("one cluster");
        };
        assert!(cluster.narrow);
        assert_eq!(cluster.requests(), 3);
        assert_eq!(cluster.counts[Mark::Rejected as usize], 1);
        // The denser side (two allowed) reaches the band's full reach, the refusal half of it.
        let a = areas(&marks);
        assert_eq!(a[Mark::Allowed as usize], 9 * 5);
        assert!((a[Mark::Rejected as usize] as i64 - 9 * 5 / 2).abs() <= 1);
    }

    #[test]
    fn two_answers_whose_marks_would_touch_are_both_drawn_as_bars() {
        let of = latency_geometry();
        // 20 ms apart across (4.8 px) and 4 ms apart up (7.5 px on a 100 ms axis).
        let records = [
            answer(1_000, 50, Outcome::Allowed),
            answer(1_020, 54, Outcome::Rejected),
        ];
        let (a, b) = (of.spot(&records[0]), of.spot(&records[1]));
        assert!(
            (a.0 - b.0).abs() < 9.0 && (a.1 - b.1).abs() < 9.0,
            "{a:?} {b:?}"
        );
        let marks = marks_of(&records, of);
        assert!(marks.spots.iter().all(Vec::is_empty));
        assert_eq!(marks.answers(), 2);
    }

    #[test]
    fn crowded_answers_are_drawn_refused_in_the_share_they_were_refused() {
        // 4,000 answers 2 ms apart at one latency, one in forty refused.
        let records: Vec<_> = (0..4_000u64)
            .map(|i| {
                let outcome = match i % 40 {
                    0 => Outcome::Rejected,
                    _ => Outcome::Allowed,
                };
                answer(1_000 + i * 2, 30, outcome)
            })
            .collect();
        let marks = marks_of(&records, latency_geometry());
        assert!(marks.spots.iter().all(Vec::is_empty));
        let a = areas(&marks);
        let (allowed, refused) = (a[Mark::Allowed as usize], a[Mark::Rejected as usize]);
        let share = refused as f64 / (allowed + refused) as f64;
        assert!((share - 1.0 / 40.0).abs() < 0.005, "{share}");
    }

    #[test]
    fn answers_cut_off_at_the_timeout_are_drawn_on_its_line() {
        let of = latency_geometry();
        let records: Vec<_> = (0..30u64)
            .map(|i| answer(1_000 + i, 80, Outcome::DegradedAllowed))
            .collect();
        let marks = marks_of(&records, of);
        let [band] = &marks.bands[..] else {
            panic!("one band");
        };
        assert_eq!(band.y, y_latency(of.timeout, of.ceiling));
        assert_eq!(band.plan.requests(), 30);
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
        let marks = marks_of(&records, zoomed);
        let xs: Vec<f64> = marks.spots.iter().flatten().map(|&(x, _)| x).collect();
        // 20 s over the plot's 11,924 px (12,000 less the axis's 44 and 16 each side): 10 s at
        // its left edge, 20 s half way, 25 s three quarters.
        assert_eq!(xs.len(), 2);
        assert!(xs.contains(&6_022.0) && xs.contains(&9_003.0), "{xs:?}");
        assert_eq!(marks.answers(), 2);
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
        assert_eq!(whole.answers(), report.records.len() as u64);
        let (sliced, steps) = run_in_steps(LatencyMarksJob::new(run.clone(), of), 1);
        assert_eq!(steps, report.records.len());
        assert_eq!(
            (sliced.spots, sliced.bands, sliced.tallest),
            (whole.spots, whole.bands, whole.tallest)
        );
    }

    fn far_object_run(query: &str) -> Arc<LabRun> {
        Arc::new(LabRun::compute(&crate::core::url::parse_query(query).state))
    }

    fn ticks_ms(ceiling_ms: u64) -> Vec<u64> {
        latency_ticks(Span::from_millis(ceiling_ms))
            .into_iter()
            .map(|t| t.micros() / 1_000)
            .collect()
    }

    #[test]
    fn the_latency_axis_ticks_a_round_step_at_most_five_times() {
        assert_eq!(ticks_ms(313), [0, 100, 200, 300]);
        assert_eq!(ticks_ms(150), [0, 50, 100, 150]);
        assert_eq!(ticks_ms(10), [0, 5, 10]);
        assert_eq!(ticks_ms(75_000), [0, 20_000, 40_000, 60_000]);
        for ceiling in [10, 11, 99, 101, 499, 1_234, 60_000, 75_000] {
            let ticks = ticks_ms(ceiling);
            assert!((2..=5).contains(&ticks.len()), "{ceiling}: {ticks:?}");
            assert!(ticks.iter().all(|&t| t <= ceiling));
        }
    }

    #[test]
    fn the_axes_label_ticks_upwards_the_timeout_with_its_setting_and_each_strip_from_0_to_its_most()
    {
        let run = far_object_run("pattern=steady&do=1&from=fra&home=gru&shards=1&timeout=250");
        let Some(Ok(report)) = &run.durable else {
            panic!("the Durable Object ran");
        };
        let view = |timeout| LatencyView {
            width: 900.0,
            range: Range::whole(run.horizon),
            timeout,
            outage: None,
            slow: None,
            evict_at: None,
            dpr: 1.0,
        };
        let axes = Axes::new(report, &view(Span::from_millis(250)));
        let times: Vec<&str> = axes.time.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(times, ["0", "10 s", "20 s", "30 s", "40 s", "50 s", "60 s"]);
        assert_eq!(axes.time[0].0, view(Span(1)).x(Time::ZERO));
        assert_eq!(axes.time[6].0, view(Span(1)).x(Time::from_secs(60)));
        let labels: Vec<&str> = axes.latency.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["0", "100", "200", "300"]);
        assert!(
            axes.latency.windows(2).all(|w| w[1].0 < w[0].0),
            "higher latencies sit higher"
        );
        assert!(axes
            .latency
            .iter()
            .all(|(y, _)| (LATENCY_TOP..=LATENCY_TOP + LATENCY_H).contains(y)));
        assert_eq!(axes.timeout.1, "timeout 250 ms");
        assert!(axes.timeout.0 < axes.latency[2].0 && axes.timeout.0 > axes.latency[3].0);
        assert_eq!(
            Axes::new(report, &view(Span(120_500))).timeout.1,
            "timeout 120.5 ms"
        );
        let (queue, stored) = (&axes.queue, &axes.stored);
        assert_eq!([queue[0].1.as_str(), queue[1].1.as_str()], ["0", "1"]);
        assert_eq!([stored[0].1.as_str(), stored[1].1.as_str()], ["0", "1"]);
        assert!(
            queue[1].0 < queue[0].0 && queue[1].0 >= QUEUE_TOP && queue[0].0 <= QUEUE_TOP + QUEUE_H
        );
        assert!(
            stored[1].0 < stored[0].0
                && stored[1].0 >= STORED_TOP
                && stored[0].0 <= STORED_TOP + STORED_H
        );
    }

    #[test]
    fn the_strips_and_titles_do_not_overlap_and_the_plot_starts_right_of_the_axis_labels() {
        const {
            assert!(LATENCY_TOP >= TITLE_H);
            assert!(QUEUE_TOP - TITLE_H >= LATENCY_TOP + LATENCY_H);
            assert!(STORED_TOP - TITLE_H >= QUEUE_TOP + QUEUE_H);
        }
        assert!(chart_height() >= STORED_TOP + STORED_H + TIME_H);
        let view = LatencyView {
            width: 900.0,
            range: Range::whole(Time::from_secs(60)),
            timeout: Span::from_millis(120),
            outage: None,
            slow: None,
            evict_at: None,
            dpr: 1.0,
        };
        assert!(view.x(Time::ZERO) > AXIS_W);
        assert!(view.x(Time::from_secs(60)) < 900.0);
        for s in [0, 7, 30, 60] {
            assert_eq!(view.time_at(view.x(Time::from_secs(s))), Time::from_secs(s));
        }
    }

    #[test]
    fn the_answer_nearest_the_pointer_is_found_within_reach_and_none_beyond_it() {
        let of = latency_geometry();
        let records = [
            answer(1_000, 50, Outcome::Allowed),
            answer(1_010, 50, Outcome::Rejected),
            answer(40_000, 10, Outcome::Allowed),
        ];
        let (x, y) = of.spot(&records[1]);
        assert_eq!(nearest_answer(&records, &of, (x + 0.5, y), 8.0), Some(1));
        assert_eq!(
            nearest_answer(&records, &of, of.spot(&records[0]), 8.0),
            Some(0)
        );
        assert_eq!(nearest_answer(&records, &of, (x, y + 30.0), 8.0), None);
        assert_eq!(nearest_answer(&[], &of, (x, y), 8.0), None);
    }

    #[test]
    fn the_keyboard_walks_answers_in_the_order_they_were_sent_and_stays_at_either_end() {
        // A retry recorded second but sent last, and two sent at once.
        let records = [
            answer(1_000, 5, Outcome::Rejected),
            answer(9_000, 5, Outcome::Allowed),
            answer(2_000, 5, Outcome::Allowed),
            answer(2_000, 5, Outcome::Allowed),
        ];
        let walk = |from, w| walk_answers(&records, from, w);
        assert_eq!(walk(None, Walk::Next), Some(0));
        assert_eq!(walk(None, Walk::Previous), Some(0));
        assert_eq!(walk(Some(0), Walk::Next), Some(2));
        assert_eq!(walk(Some(2), Walk::Next), Some(3));
        assert_eq!(walk(Some(3), Walk::Next), Some(1));
        assert_eq!(
            walk(Some(1), Walk::Next),
            Some(1),
            "the last stays the last"
        );
        assert_eq!(walk(Some(3), Walk::Previous), Some(2));
        assert_eq!(
            walk(Some(0), Walk::Previous),
            Some(0),
            "the first stays the first"
        );
        assert_eq!(walk(Some(2), Walk::Last), Some(1));
        assert_eq!(walk(Some(1), Walk::First), Some(0));
        assert_eq!(
            walk(Some(99), Walk::Next),
            Some(0),
            "a place from an older run starts over"
        );
        assert_eq!(walk_answers(&[], None, Walk::Next), None);
    }

    #[test]
    fn the_readout_names_the_request_when_it_was_sent_its_latency_and_its_outcome() {
        let run = far_object_run("pattern=steady&do=1&from=fra&home=gru&shards=1");
        let Some(Ok(report)) = &run.durable else {
            panic!("the Durable Object ran");
        };
        let text = answer_text(report, 2).expect("a third answer");
        assert!(text.starts_with("Request 3 of 60, key "), "{text}");
        assert!(text.contains("from Frankfurt: sent at 2 s, answered after 120 ms, no answer within the timeout, let through unmetered (fail open)"), "{text}");
        assert!(
            text.contains("the object decided it after the Worker gave up"),
            "{text}"
        );
        assert_eq!(answer_text(report, 60), None);
        let run = far_object_run("pattern=steady&do=1&from=fra&home=gru&shards=1&timeout=300");
        let Some(Ok(report)) = &run.durable else {
            panic!("the Durable Object ran");
        };
        let text = answer_text(report, 0).expect("a first answer");
        assert!(text.contains(", allowed."), "{text}");
        assert!(!text.contains("after the Worker gave up"), "{text}");
    }

    #[test]
    fn the_shortest_keyboard_fault_is_a_sixtieth_of_the_axis_rounded() {
        assert_eq!(key_step(Time::from_secs(60)), Span::from_secs(1));
        assert_eq!(key_step(Time::from_secs(150)), Span::from_secs(5));
        assert_eq!(key_step(Time::from_millis(500)), Span::from_millis(10));
        assert_eq!(key_step(Time::ZERO), Span::from_millis(1));
    }

    #[test]
    fn enter_starts_a_keyboard_drag_and_enter_again_schedules_the_period_between_either_way() {
        let (s, t) = (
            |secs: u64| Span::from_secs(secs),
            |secs: u64| Time::from_secs(secs),
        );
        let step = s(1);
        assert_eq!(key_drag(None, t(20), false, step), (Some(t(20)), None));
        assert_eq!(
            key_drag(Some(t(20)), t(30), false, step),
            (None, Some((s(20), s(30))))
        );
        assert_eq!(
            key_drag(Some(t(30)), t(20), false, step),
            (None, Some((s(20), s(30))))
        );
        assert_eq!(
            key_drag(Some(t(20)), t(20), false, step),
            (None, Some((s(20), s(21)))),
            "at least a step long"
        );
        // An eviction is a moment: one Enter schedules it, whatever was pending.
        assert_eq!(
            key_drag(None, t(40), true, step),
            (None, Some((s(40), s(40))))
        );
        assert_eq!(
            key_drag(Some(t(20)), t(40), true, step),
            (None, Some((s(40), s(40))))
        );
    }
}
