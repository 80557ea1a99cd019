//! The timelines' geometry, with no browser in it: where each row and each time sits on the
//! canvas, the axis ticks and time labels, and which marks each device-pixel column shows. The
//! page (`ui::draw`) only paints what is worked out here, so all of it is tested natively.

use crate::core::decision::Verdict;
use std::sync::Arc;

use crate::core::durable::Outcome;
use crate::core::job::{Job, Progress, Step};
use crate::core::lab::LabRun;
use crate::core::limiter::Algorithm;
use crate::core::time::{format_seconds, Span, Time, MICROS_PER_SEC};

pub const ROW_H: f64 = 58.0;
pub const GAUGE_H: f64 = 30.0;
pub const PAD_X: f64 = 16.0;
/// Mark radius in CSS pixels (a 9 px mark, above the 6 px minimum).
pub const MARK_R: f64 = 4.5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    Algo(Algorithm),
    Durable,
}

impl RowKind {
    pub fn id(self) -> &'static str {
        match self {
            RowKind::Algo(a) => a.slug(),
            RowKind::Durable => "do",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct RowLayout {
    pub kind: RowKind,
    pub top: f64,
    pub height: f64,
    pub mark_y: f64,
    /// Top and height of the level strip under the row, when it has one.
    pub gauge: Option<(f64, f64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub rows: Vec<RowLayout>,
    pub width: f64,
    pub height: f64,
    pub horizon: Time,
}

impl Layout {
    pub fn new(run: &LabRun, width: f64) -> Layout {
        let mut rows = Vec::new();
        let mut top = 0.0;
        let mut push = |kind: RowKind, has_gauge: bool, rows: &mut Vec<RowLayout>| {
            let gauge = has_gauge.then_some((top + ROW_H, GAUGE_H));
            let height = ROW_H + if has_gauge { GAUGE_H } else { 0.0 };
            rows.push(RowLayout {
                kind,
                top,
                height,
                mark_y: top + ROW_H / 2.0,
                gauge,
            });
            top += height;
        };
        for r in &run.runs {
            push(
                RowKind::Algo(r.algorithm),
                run.gauge(r.algorithm).is_some(),
                &mut rows,
            );
        }
        if matches!(run.durable, Some(Ok(_))) {
            push(RowKind::Durable, false, &mut rows);
        }
        Layout {
            rows,
            width: width.max(2.0 * PAD_X + 10.0),
            height: top.max(ROW_H),
            horizon: run.horizon,
        }
    }

    pub fn x(&self, t: Time) -> f64 {
        x_of(t, self.horizon, self.width)
    }

    pub fn time_at(&self, x: f64) -> Time {
        time_of(x, self.horizon, self.width)
    }

    /// The layout as JSON, published on the canvas for tests and tools that read its pixels.
    /// Every length is a whole number of CSS pixels (rows are whole, the width is measured).
    pub fn to_json(&self) -> String {
        let int = |v: f64| v.round() as i64;
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| {
                format!(
                    "{{\"id\":\"{}\",\"top\":{},\"markY\":{},\"height\":{}}}",
                    r.kind.id(),
                    int(r.top),
                    int(r.mark_y),
                    int(r.height)
                )
            })
            .collect();
        format!(
            "{{\"padX\":{},\"width\":{},\"height\":{},\"horizonUs\":{},\"rows\":[{}]}}",
            int(PAD_X),
            int(self.width),
            int(self.height),
            self.horizon.micros(),
            rows.join(",")
        )
    }
}

/// Where time `t` sits on a canvas `width` wide showing `0..=horizon` (shared by every chart).
pub fn x_of(t: Time, horizon: Time, width: f64) -> f64 {
    PAD_X + (t.micros() as f64 / horizon.micros().max(1) as f64) * (width - 2.0 * PAD_X)
}

/// The time at `x` on such a canvas, clamped to the axis.
pub fn time_of(x: f64, horizon: Time, width: f64) -> Time {
    let frac = ((x - PAD_X) / (width - 2.0 * PAD_X)).clamp(0.0, 1.0);
    Time((frac * horizon.micros() as f64).round() as u64)
}

/// Tick times for the time axis: a round step giving at most about one tick per 90 px.
pub fn ticks(horizon: Time, width: f64) -> Vec<Time> {
    const STEPS_MS: [u64; 16] = [
        1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000,
    ];
    let max_ticks = (width / 90.0).floor().max(2.0) as u64;
    let horizon_ms = horizon.micros() / 1_000;
    let mut step_ms = STEPS_MS
        .iter()
        .copied()
        .find(|s| horizon_ms / s <= max_ticks)
        .unwrap_or(0);
    if step_ms == 0 {
        // Beyond the table: whole minutes, doubled until few enough.
        step_ms = 120_000;
        while horizon_ms / step_ms > max_ticks {
            step_ms *= 2;
        }
    }
    (0..=horizon_ms / step_ms)
        .map(|i| Time::from_millis(i * step_ms))
        .collect()
}

/// The shape a decision is drawn with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Allowed,
    Rejected,
    Delayed,
    Degraded,
    FailedClosed,
}

/// Eight short arcs around (x, y), each a sixteenth of the circle with a gap as long after it:
/// a dashed ring.
pub fn dashed_ring(x: f64, y: f64, r: f64) -> impl Iterator<Item = Vec<(f64, f64)>> {
    use std::f64::consts::PI;
    (0..8).map(move |k| {
        let start = f64::from(k) * PI / 4.0;
        (0..=4)
            .map(|i| start + f64::from(i) * PI / 32.0)
            .map(|a| (x + r * a.cos(), y + r * a.sin()))
            .collect()
    })
}

/// Which (pixel column, mark) pairs a row has drawn: one bit set per mark kind per column, so
/// a million marks cost at most one drawing per column and kind.
pub struct Drawn {
    columns: Vec<u8>,
}

impl Drawn {
    pub fn new(width: usize) -> Drawn {
        Drawn {
            columns: vec![0; width],
        }
    }

    /// True when every mark in `marks` (a bit per `Mark`) is already drawn in this column.
    pub fn has_all(&self, column: i32, marks: u8) -> bool {
        usize::try_from(column)
            .ok()
            .and_then(|c| self.columns.get(c))
            .is_some_and(|slot| slot & marks == marks)
    }

    /// True the first time this mark lands in this column.
    pub fn insert(&mut self, column: i32, mark: Mark) -> bool {
        let bit = 1u8 << (mark as u8);
        match usize::try_from(column)
            .ok()
            .and_then(|c| self.columns.get_mut(c))
        {
            Some(slot) if *slot & bit == 0 => {
                *slot |= bit;
                true
            }
            Some(_) => false,
            None => true,
        }
    }
}

/// Which marks each device-pixel column of each row shows, worked out once per run and layout
/// (one pass over the decisions), so that a redraw while the pointer moves costs one look per
/// column instead of one per request: a million requests redraw as fast as a hundred.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MarkColumns {
    /// Per row of the layout: a bit per `Mark` for each column (bit 7: a delayed request is
    /// released here), and for delayed requests the farthest release (CSS x) from each column.
    rows: Vec<(Vec<u8>, Vec<f32>)>,
}

/// The bit of a column saying a delayed request is released there.
pub const RELEASED: u8 = 1 << 7;

impl MarkColumns {
    /// Per row of the layout: a bit per [`Mark`] for each device-pixel column (and [`RELEASED`]),
    /// and for delayed requests the farthest release (CSS x) from each column.
    pub fn rows(&self) -> &[(Vec<u8>, Vec<f32>)] {
        &self.rows
    }

    pub fn new(run: &LabRun, layout: &Layout, dpr: f64) -> MarkColumns {
        let mut builder = MarkColumnsBuilder::new(run, layout, dpr);
        while builder.add_row(run, layout) {}
        builder.finish()
    }
}

/// [`MarkColumns`] worked out a row at a time, so that a million requests over seven rows can be
/// done in several short tasks rather than one long one.
pub struct MarkColumnsBuilder {
    columns: usize,
    dpr: f64,
    /// Each request's column, worked out once for every row: a row is then one pass of
    /// look-ups, not a million conversions of time to pixels.
    request_columns: Vec<u32>,
    rows: Vec<(Vec<u8>, Vec<f32>)>,
}

impl MarkColumnsBuilder {
    pub fn new(run: &LabRun, layout: &Layout, dpr: f64) -> MarkColumnsBuilder {
        let columns = (layout.width * dpr).ceil() as usize + 2;
        let column = |x: f64| column_at(x, dpr, columns);
        let request_columns = run
            .trace
            .requests()
            .iter()
            .map(|r| column(layout.x(r.at)) as u32)
            .collect();
        MarkColumnsBuilder {
            columns,
            dpr,
            request_columns,
            rows: Vec::with_capacity(layout.rows.len()),
        }
    }

    /// Works out the next row; false once every row of `layout` is done.
    pub fn add_row(&mut self, run: &LabRun, layout: &Layout) -> bool {
        let Some(row) = layout.rows.get(self.rows.len()) else {
            return false;
        };
        let (columns, dpr) = (self.columns, self.dpr);
        let column = |x: f64| column_at(x, dpr, columns);
        let requests = run.trace.requests();
        let mut kinds = vec![0u8; columns];
        let mut reach = Vec::new();
        match row.kind {
            RowKind::Algo(a) => {
                if let Some(r) = run.run(a) {
                    if r.delayed > 0 {
                        reach = vec![0f32; columns];
                    }
                    // The request itself is read only for a delayed one, to find its release.
                    for (i, (verdict, &c)) in
                        r.verdicts.iter().zip(&self.request_columns).enumerate()
                    {
                        let c = c as usize;
                        let mark = match verdict {
                            Verdict::Allowed => Mark::Allowed,
                            Verdict::Rejected => Mark::Rejected,
                            Verdict::Delayed { by } => {
                                let release = layout.x(requests[i].at.plus(by));
                                kinds[column(release)] |= RELEASED;
                                reach[c] = reach[c].max(release as f32);
                                Mark::Delayed
                            }
                        };
                        kinds[c] |= 1 << mark as u8;
                    }
                }
            }
            RowKind::Durable => {
                if let Some(Ok(report)) = &run.durable {
                    for record in report.records.iter().filter(|r| r.attempt == 0) {
                        kinds[column(layout.x(record.sent))] |=
                            1 << outcome_mark(record.outcome) as u8;
                    }
                }
            }
        }
        self.rows.push((kinds, reach));
        self.rows.len() < layout.rows.len()
    }

    /// Rows done so far.
    pub fn rows_done(&self) -> usize {
        self.rows.len()
    }

    pub fn finish(self) -> MarkColumns {
        MarkColumns { rows: self.rows }
    }
}

/// Working out a run's [`MarkColumns`] as a [`Job`]: first each request's column (a step of its
/// own, a pass over every request), then a row of the layout a step.
pub struct MarkColumnsJob {
    run: Arc<LabRun>,
    layout: Layout,
    dpr: f64,
    builder: Option<MarkColumnsBuilder>,
}

impl MarkColumnsJob {
    pub fn new(run: Arc<LabRun>, layout: Layout, dpr: f64) -> MarkColumnsJob {
        MarkColumnsJob {
            run,
            layout,
            dpr,
            builder: None,
        }
    }
}

impl Job for MarkColumnsJob {
    type Output = MarkColumns;
    /// Rows worked out between two looks at the clock.
    const BUDGET: usize = 1;

    fn step(&mut self, budget: usize) -> Step {
        let Some(builder) = &mut self.builder else {
            self.builder = Some(MarkColumnsBuilder::new(&self.run, &self.layout, self.dpr));
            return Step::More;
        };
        for _ in 0..budget.max(1) {
            if !builder.add_row(&self.run, &self.layout) {
                return Step::Done;
            }
        }
        Step::More
    }

    fn progress(&self) -> Progress {
        Progress {
            what: "Drawing the timelines",
            done: self
                .builder
                .as_ref()
                .map_or(0, MarkColumnsBuilder::rows_done),
            total: self.layout.rows.len(),
        }
    }

    /// The first row starts a fresh slice: the pass over the requests was long enough.
    fn heavy_next(&self) -> bool {
        self.builder.as_ref().is_some_and(|b| b.rows_done() == 0)
    }

    fn finish(mut self) -> MarkColumns {
        while self.step(usize::MAX) == Step::More {}
        match self.builder {
            Some(builder) => builder.finish(),
            None => MarkColumns::default(),
        }
    }
}

/// A polyline with at most four points per device-pixel column (the first, the lowest, the
/// highest and the last there): the same picture as every point, for a level series of tens of
/// thousands of points drawn on every redraw.
pub fn thin_by_column(points: impl Iterator<Item = (f64, f64)>, dpr: f64) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    // The current column's first, lowest, highest and last points.
    let mut current: Option<(i64, [(f64, f64); 4])> = None;
    let flush = |out: &mut Vec<(f64, f64)>, group: [(f64, f64); 4]| {
        for p in group {
            if out.last() != Some(&p) {
                out.push(p);
            }
        }
    };
    for p in points {
        let column = (p.0 * dpr).floor() as i64;
        match &mut current {
            Some((c, group)) if *c == column => {
                if p.1 < group[1].1 {
                    group[1] = p;
                }
                if p.1 > group[2].1 {
                    group[2] = p;
                }
                group[3] = p;
            }
            _ => {
                if let Some((_, group)) = current.take() {
                    flush(&mut out, group);
                }
                current = Some((column, [p; 4]));
            }
        }
    }
    if let Some((_, group)) = current {
        flush(&mut out, group);
    }
    out
}

/// The device-pixel column of CSS x, the nearest as plotters rounds, so a mark sits exactly where
/// it did. (`floor(v + 0.5)` is `round` for these positive values, and a single instruction in
/// Wasm where `round` is a library call: it runs a million times per row.)
pub fn column_at(x: f64, dpr: f64, columns: usize) -> usize {
    (((x * dpr) + 0.5).floor().max(0.0) as usize).min(columns - 1)
}

pub fn outcome_mark(outcome: Outcome) -> Mark {
    match outcome {
        Outcome::Allowed => Mark::Allowed,
        Outcome::Rejected => Mark::Rejected,
        Outcome::Delayed => Mark::Delayed,
        Outcome::DegradedAllowed => Mark::Degraded,
        Outcome::FailedClosed => Mark::FailedClosed,
    }
}

/// The time axis's labels, all in one unit so that they read as one scale: minutes when every
/// tick is a whole minute and the axis reaches two, milliseconds when it stays under a second,
/// seconds otherwise ("90 s, 120 s, 150 s", never "90 s, 2 min, 150 s"). The first, 0, is bare.
pub fn tick_labels(ticks: &[Time]) -> Vec<String> {
    let last = ticks.iter().map(|t| t.micros()).max().unwrap_or(0);
    let minute = 60 * MICROS_PER_SEC;
    let unit = if last >= 2 * minute && ticks.iter().all(|t| t.micros().is_multiple_of(minute)) {
        "min"
    } else if last < MICROS_PER_SEC {
        "ms"
    } else {
        "s"
    };
    ticks
        .iter()
        .map(|t| {
            let us = t.micros();
            match unit {
                _ if us == 0 => "0".to_string(),
                "min" => format!("{} min", us / minute),
                // format_seconds reads microseconds; fed thousandths, it prints milliseconds.
                "ms" => format!("{} ms", crate::core::time::format_seconds(us * 1000)),
                _ => format!("{} s", crate::core::time::format_seconds(us)),
            }
        })
        .collect()
}

/// Formats a tick or a time for labels: "12 s", "1.5 s", "250 ms", "2 min".
pub fn time_label(t: Time) -> String {
    let us = t.micros();
    if us == 0 {
        return "0".into();
    }
    if us.is_multiple_of(60 * MICROS_PER_SEC) && us >= 120 * MICROS_PER_SEC {
        return format!("{} min", us / (60 * MICROS_PER_SEC));
    }
    if us < MICROS_PER_SEC {
        // format_seconds reads microseconds; fed thousandths, it prints milliseconds.
        return format!("{} ms", crate::core::time::format_seconds(us * 1000));
    }
    format!("{} s", crate::core::time::format_seconds(us))
}

/// A row's line under its name: the promise it was set to keep (on each copy, for a row run as
/// several), then what it did, so the busiest window never reads as the limit: "limit 5 per 10 s;
/// busiest window 3".
pub fn row_promise(limit: u64, window: Span, copies: u32, busiest: u64) -> String {
    let window = format_seconds(window.micros());
    let each = if copies > 1 {
        format!(" on each of {copies} copies")
    } else {
        String::new()
    };
    format!("limit {limit} per {window} s{each}; busiest window {busiest}")
}

/// The same in a few characters, for narrow screens: "busiest 3 / 5".
pub fn row_promise_short(limit: u64, busiest: u64) -> String {
    format!("busiest {busiest} / {limit}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::lab::LabRun;
    use crate::core::url::parse_query;

    fn run(query: &str) -> LabRun {
        LabRun::compute(&parse_query(query).state)
    }

    #[test]
    fn rows_stack_in_algorithm_order_and_a_level_strip_makes_a_row_taller() {
        let run = run("algos=fixed,token-bucket&do=1");
        let layout = Layout::new(&run, 800.0);
        let ids: Vec<&str> = layout.rows.iter().map(|r| r.kind.id()).collect();
        assert_eq!(ids, ["fixed", "token-bucket", "do"]);
        assert_eq!(layout.rows[0].height, ROW_H);
        assert_eq!(layout.rows[1].top, ROW_H);
        assert_eq!(layout.rows[1].height, ROW_H + GAUGE_H);
        assert_eq!(layout.rows[1].gauge, Some((2.0 * ROW_H, GAUGE_H)));
        assert_eq!(layout.rows[2].mark_y, 2.0 * ROW_H + GAUGE_H + ROW_H / 2.0);
        assert_eq!(layout.height, 3.0 * ROW_H + GAUGE_H);
        assert!(layout.to_json().starts_with("{\"padX\":16,\"width\":800,"));
    }

    #[test]
    fn a_time_and_its_x_map_back_to_each_other_within_the_padding() {
        let horizon = Time::from_secs(20);
        assert_eq!(x_of(Time::ZERO, horizon, 500.0), PAD_X);
        assert_eq!(x_of(horizon, horizon, 500.0), 500.0 - PAD_X);
        assert_eq!(
            time_of(x_of(Time::from_secs(5), horizon, 500.0), horizon, 500.0),
            Time::from_secs(5)
        );
        // Outside the axis, the time is clamped to it.
        assert_eq!(time_of(0.0, horizon, 500.0), Time::ZERO);
        assert_eq!(time_of(10_000.0, horizon, 500.0), horizon);
    }

    #[test]
    fn an_axis_labels_every_tick_in_one_unit() {
        let secs = |list: &[u64]| list.iter().map(|&s| Time::from_secs(s)).collect::<Vec<_>>();
        assert_eq!(
            tick_labels(&secs(&[0, 30, 60, 90, 120, 150])),
            ["0", "30 s", "60 s", "90 s", "120 s", "150 s"]
        );
        assert_eq!(
            tick_labels(&secs(&[0, 120, 240, 360])),
            ["0", "2 min", "4 min", "6 min"]
        );
        let ms = [Time::ZERO, Time::from_millis(200), Time::from_millis(400)];
        assert_eq!(tick_labels(&ms), ["0", "200 ms", "400 ms"]);
        let mixed = [
            Time::ZERO,
            Time::from_millis(500),
            Time::from_secs(1),
            Time::from_millis(1_500),
        ];
        assert_eq!(tick_labels(&mixed), ["0", "0.5 s", "1 s", "1.5 s"]);
        assert_eq!(tick_labels(&[]), Vec::<String>::new());
    }

    #[test]
    fn ticks_take_a_round_step_with_about_one_per_ninety_pixels() {
        let ticks_20s = ticks(Time::from_secs(20), 900.0);
        assert_eq!(ticks_20s.len(), 11);
        assert_eq!(ticks_20s[1], Time::from_secs(2));
        // Past the table's hour-long steps: whole minutes, doubled until few enough.
        let day = ticks(Time::from_secs(86_400), 900.0);
        assert!(day.len() <= 11 && day[1].micros().is_multiple_of(60_000_000));
    }

    #[test]
    fn time_labels_read_in_milliseconds_seconds_or_minutes() {
        assert_eq!(time_label(Time::ZERO), "0");
        assert_eq!(time_label(Time::from_millis(250)), "250 ms");
        assert_eq!(time_label(Time::from_millis(1_500)), "1.5 s");
        assert_eq!(time_label(Time::from_secs(60)), "60 s");
        assert_eq!(time_label(Time::from_secs(240)), "4 min");
    }

    #[test]
    fn mark_columns_show_each_kind_of_decision_in_the_column_of_its_request() {
        let run = run("algos=fixed,leaky-bucket");
        let layout = Layout::new(&run, 600.0);
        let columns = MarkColumns::new(&run, &layout, 2.0);
        assert_eq!(columns.rows().len(), 2);
        let (fixed, reach) = &columns.rows()[0];
        assert!(reach.is_empty(), "the fixed window delays nothing");
        let fixed_run = run.run(Algorithm::FixedWindow).unwrap();
        for (request, verdict) in run.trace.requests().iter().zip(fixed_run.verdicts.iter()) {
            let column = column_at(layout.x(request.at), 2.0, fixed.len());
            let mark = match verdict {
                Verdict::Allowed => Mark::Allowed,
                _ => Mark::Rejected,
            };
            assert!(fixed[column] & (1 << mark as u8) != 0);
        }
        // The leaky bucket delays: its releases are marked, and reach right of their request.
        let (leaky, reach) = &columns.rows()[1];
        assert!(leaky.iter().any(|bits| bits & RELEASED != 0));
        assert!(reach.iter().any(|&x| x > 0.0));
    }

    #[test]
    fn a_level_line_thinned_by_column_keeps_each_columns_first_lowest_highest_and_last() {
        let points = [(0.1, 5.0), (0.2, 1.0), (0.3, 9.0), (0.4, 4.0), (1.5, 2.0)];
        assert_eq!(
            thin_by_column(points.into_iter(), 1.0),
            vec![(0.1, 5.0), (0.2, 1.0), (0.3, 9.0), (0.4, 4.0), (1.5, 2.0)]
        );
        let flat = [(0.1, 3.0), (0.2, 3.0), (0.3, 3.0), (0.4, 3.0)];
        assert_eq!(
            thin_by_column(flat.into_iter(), 1.0),
            vec![(0.1, 3.0), (0.4, 3.0)]
        );
    }

    #[test]
    fn a_column_takes_each_kind_of_mark_once_and_columns_off_the_canvas_always_draw() {
        let mut drawn = Drawn::new(10);
        assert!(drawn.insert(3, Mark::Allowed));
        assert!(!drawn.insert(3, Mark::Allowed));
        assert!(drawn.insert(3, Mark::Rejected));
        let both = (1 << Mark::Allowed as u8) | (1 << Mark::Rejected as u8);
        assert!(drawn.has_all(3, both) && !drawn.has_all(4, both));
        assert!(drawn.insert(-1, Mark::Allowed) && drawn.insert(99, Mark::Allowed));
    }

    #[test]
    fn a_dashed_ring_is_eight_arcs_on_the_circle() {
        let arcs: Vec<_> = dashed_ring(10.0, 20.0, 4.0).collect();
        assert_eq!(arcs.len(), 8);
        for (x, y) in arcs.into_iter().flatten() {
            assert!((((x - 10.0).powi(2) + (y - 20.0).powi(2)).sqrt() - 4.0).abs() < 1e-9);
        }
    }

    #[test]
    fn mark_columns_worked_out_a_row_a_step_are_those_worked_out_at_once() {
        use crate::core::job::{run_to_end, tests::run_in_steps};
        let run = Arc::new(run(
            "pattern=several-keys&algos=fixed,leaky-bucket,gcra&do=1",
        ));
        let layout = Layout::new(&run, 700.0);
        let whole = MarkColumns::new(&run, &layout, 1.5);
        assert_eq!(whole.rows().len(), 4);
        let job = || MarkColumnsJob::new(run.clone(), layout.clone(), 1.5);
        assert_eq!(run_to_end(job()), whole);
        let (sliced, steps) = run_in_steps(job(), 1);
        // The requests' columns, then a row a step.
        assert_eq!((sliced, steps), (whole, 1 + 4));
        let mut first = job();
        assert!(!first.heavy_next());
        assert_eq!(first.step(1), Step::More);
        assert!(first.heavy_next(), "the first row waits for a fresh slice");
    }

    #[test]
    fn a_row_line_states_the_promise_then_the_busiest_window() {
        use super::{row_promise, row_promise_short};
        use crate::core::time::Span;
        assert_eq!(
            row_promise(23, Span::from_secs(10), 1, 9),
            "limit 23 per 10 s; busiest window 9"
        );
        assert_eq!(
            row_promise(5, Span::from_millis(2_500), 1, 10),
            "limit 5 per 2.5 s; busiest window 10"
        );
        assert_eq!(
            row_promise(5, Span::from_secs(10), 2, 10),
            "limit 5 per 10 s on each of 2 copies; busiest window 10"
        );
        assert_eq!(row_promise_short(5, 3), "busiest 3 / 5");
    }
}
