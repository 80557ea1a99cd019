//! The timelines' geometry, with no browser in it: where each row (and each key's lane in it)
//! and each time of the stretch shown ([`Range`]) sits on the canvas, the axis ticks and time
//! labels, and which marks each device-pixel column shows. The page (`ui::draw`) only paints
//! what is worked out here, so all of it is tested natively.

use crate::core::decision::Verdict;
use std::sync::Arc;

pub use super::marks::Mark;
use super::marks::{cluster_json, plan_row, LaneColumns, LanePlan, KINDS};
use crate::core::durable::Outcome;
use crate::core::job::{Job, Progress, Step};
use crate::core::lab::LabRun;
use crate::core::lab_state::Lanes;
use crate::core::limiter::{Algorithm, Parts, TextbookOnly};
use crate::core::run::busiest_window;
use crate::core::time::{format_seconds, Span, Time, MICROS_PER_SEC};
use crate::core::traffic::{Request, Trace};

pub use super::zoom::{Range, PAD_X};

pub const ROW_H: f64 = 58.0;
pub const GAUGE_H: f64 = 30.0;
/// Mark radius in CSS pixels (a 9 px mark, above the 6 px minimum).
pub const MARK_R: f64 = 4.5;
/// A key's lane, when rows are split by key: its marks' line in the middle, its key's name beside
/// it in the labels' column (`ui::timeline`, `ui::export_png`).
pub const LANE_H: f64 = 30.0;
/// From a lane's top to its marks' line: the middle of the lane.
pub const LANE_MARK_Y: f64 = LANE_H / 2.0;
/// How far under a line of marks obeying clients' retries are drawn (`ui::draw_retries`); a
/// key's lane is this much taller when clients obey, so its retries stay clear of the next lane.
pub const RETRY_LANE: f64 = 15.0;
/// Above a split row's first lane, and below its last.
const LANES_PAD: f64 = 4.0;
/// The line under the axis that holds the zoom's reset and the lanes' toggle, when either shows
/// (an embed's suggested height counts it).
pub const TOOLS_H: f64 = 34.0;
/// The most lanes a row is split into: with more keys, the busiest `MAX_LANES - 1` keys have a
/// lane each and the others share the last, so a trace of ten thousand addresses stays a chart.
pub const MAX_LANES: usize = 12;

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
    /// Where its marks' part starts: its top, or under its label's band when labels sit above
    /// the rows ([`Layout::with_labels_above`]).
    pub body_top: f64,
    /// The height of the marks' part of the row (its lanes), above its level strip.
    pub body: f64,
    /// The line the marks sit on (the first lane's, when the row is split by key).
    pub mark_y: f64,
    /// Top and height of the level strip under the row, when it has one.
    pub gauge: Option<(f64, f64)>,
}

/// Which lane each key's marks go in, when rows are split by key.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeyLanes {
    /// Each lane's label, top to bottom; empty when the rows are not split.
    pub names: Vec<String>,
    /// Each key's lane, by its index in the trace's key table.
    of_key: Vec<u8>,
}

impl KeyLanes {
    /// A lane per key of `trace`, in the order the trace names them; with more than
    /// [`MAX_LANES`] keys, the busiest (most requests; the first named, between equals) have a
    /// lane each and the others share the last, "N other keys". One key needs no split.
    pub fn of(trace: &Trace) -> KeyLanes {
        let keys = trace.keys();
        if keys.len() <= 1 {
            return KeyLanes::default();
        }
        if keys.len() <= MAX_LANES {
            return KeyLanes {
                names: keys.to_vec(),
                of_key: (0..keys.len() as u8).collect(),
            };
        }
        let mut counts = vec![0u64; keys.len()];
        for r in trace.requests() {
            if let Some(n) = counts.get_mut(r.key as usize) {
                *n += 1;
            }
        }
        let mut busiest: Vec<usize> = (0..keys.len()).collect();
        busiest.sort_by_key(|&k| (std::cmp::Reverse(counts[k]), k));
        busiest.truncate(MAX_LANES - 1);
        busiest.sort_unstable();
        let others = MAX_LANES as u8 - 1;
        let mut of_key = vec![others; keys.len()];
        let mut names = Vec::with_capacity(MAX_LANES);
        for (lane, &k) in busiest.iter().enumerate() {
            of_key[k] = lane as u8;
            names.push(keys[k].clone());
        }
        names.push(format!("{} other keys", keys.len() - busiest.len()));
        KeyLanes { names, of_key }
    }

    /// How many lanes a row has: one when not split.
    pub fn count(&self) -> usize {
        self.names.len().max(1)
    }

    /// The lane of the key with index `key`.
    pub fn lane(&self, key: u32) -> usize {
        self.of_key.get(key as usize).map_or(0, |&l| usize::from(l))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub rows: Vec<RowLayout>,
    pub width: f64,
    pub height: f64,
    /// The end of the whole time axis.
    pub horizon: Time,
    /// The stretch of the axis shown.
    pub range: Range,
    pub lanes: KeyLanes,
    /// One key's lane's height, when the rows are split by key: `LANE_H`, and `RETRY_LANE` more
    /// when clients obey.
    pub lane_h: f64,
    /// The band above each row for its label, when labels sit above the rows (a phone's width:
    /// the plot then takes the whole width); 0 when they sit beside them.
    pub label_band: f64,
    /// The line at the top of each key's lane for its key's name, when labels sit above the rows
    /// and the rows are split by key; 0 otherwise (the names are then beside the lanes).
    pub lane_name: f64,
}

/// A key's name's line at the top of its lane, when labels sit above the rows.
pub const LANE_NAME_H: f64 = 14.0;

/// The band above a row for its label on one line, when labels sit above the rows.
pub const LABEL_BAND: f64 = 20.0;

impl Layout {
    /// The whole trace, every row on one line.
    pub fn new(run: &LabRun, width: f64) -> Layout {
        Layout::viewed::<TextbookOnly>(run, width, None, Lanes::One)
    }

    /// The stretch a link's `view` names (fitted to the trace), the rows split by key when
    /// `lanes` asks and the trace has several.
    /// Lanes by key are a rule: a program without the rules (`Parts::RULES`) draws one line
    /// per row (the page's first module hands a view with them to the complete one).
    pub fn viewed<C: Parts>(
        run: &LabRun,
        width: f64,
        view: Option<(Time, Time)>,
        lanes: Lanes,
    ) -> Layout {
        let lanes = match lanes {
            Lanes::Key if C::RULES => KeyLanes::of(&run.trace),
            _ => KeyLanes::default(),
        };
        let lane_h = match run.settings.obeying_clients() {
            true => LANE_H + RETRY_LANE,
            false => LANE_H,
        };
        let (body, first_mark) = match lanes.names.len() {
            0 => (ROW_H, ROW_H / 2.0),
            n => (2.0 * LANES_PAD + n as f64 * lane_h, LANES_PAD + LANE_MARK_Y),
        };
        let mut rows = Vec::new();
        let mut top = 0.0;
        let mut push = |kind: RowKind, has_gauge: bool, rows: &mut Vec<RowLayout>| {
            let gauge = has_gauge.then_some((top + body, GAUGE_H));
            let height = body + if has_gauge { GAUGE_H } else { 0.0 };
            rows.push(RowLayout {
                kind,
                top,
                height,
                body_top: top,
                body,
                mark_y: top + first_mark,
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
            range: Range::fit(view, run.horizon),
            lanes,
            lane_h,
            label_band: 0.0,
            lane_name: 0.0,
        }
    }

    /// The same rows with a band above each for its label ([`LABEL_BAND`]), for a screen too
    /// narrow to give the labels a column of their own.
    /// Split by key, each lane then also gets a line of its own for its key's name
    /// ([`LANE_NAME_H`]) above its marks, since no column beside the plot holds the names.
    pub fn with_labels_above(mut self) -> Layout {
        if self.label_band > 0.0 {
            return self;
        }
        let band = LABEL_BAND;
        let name = match self.lanes.names.len() {
            0 => 0.0,
            _ => LANE_NAME_H,
        };
        let names = name * self.lanes.names.len() as f64;
        let mut shift = 0.0;
        for row in &mut self.rows {
            row.top += shift;
            row.body_top = row.top + band;
            row.body += names;
            row.height += band + names;
            row.mark_y += shift + band + name;
            if let Some((top, _)) = &mut row.gauge {
                *top += shift + band + names;
            }
            shift += band + names;
        }
        self.height += shift;
        self.lane_h += name;
        self.lane_name = name;
        self.label_band = band;
        self
    }

    pub fn x(&self, t: Time) -> f64 {
        self.range.x(t, self.width)
    }

    pub fn time_at(&self, x: f64) -> Time {
        self.range.time_at(x, self.width)
    }

    /// The line the marks of lane `lane` of `row` sit on.
    pub fn mark_y(&self, row: &RowLayout, lane: usize) -> f64 {
        row.mark_y + lane as f64 * self.lane_h
    }

    /// The top of lane `lane` of `row`, when the rows are split.
    pub fn lane_top(&self, row: &RowLayout, lane: usize) -> f64 {
        self.mark_y(row, lane) - LANE_MARK_Y - self.lane_name
    }

    /// The lane at height `y` (a lane's strip reaches from its top to the next lane's).
    pub fn lane_at(&self, y: f64) -> usize {
        let row = self.rows.iter().find(|r| y < r.top + r.height);
        let lane = row.map_or(0.0, |r| {
            ((y - r.body_top - LANES_PAD) / self.lane_h).floor()
        });
        (lane.max(0.0) as usize).min(self.lanes.count() - 1)
    }

    /// The line a request's marks sit on in `row`: its key's lane's.
    pub fn request_y(&self, row: &RowLayout, request: &Request) -> f64 {
        self.mark_y(row, self.lanes.lane(request.key))
    }

    /// The requests of `requests` (in arrival order) inside the stretch shown.
    pub fn shown(&self, requests: &[Request]) -> std::ops::Range<usize> {
        let start = requests.partition_point(|r| r.at < self.range.from);
        let end = requests.partition_point(|r| r.at <= self.range.to);
        start..end.max(start)
    }

    /// The rows' height and, when it shows, the line under the axis with the zoom's reset (a
    /// stretch is shown) and the lanes' toggle (the trace has `keys` keys, more than one).
    pub fn height_with_tools(&self, keys: usize) -> f64 {
        match self.range.is_whole(self.horizon) && keys < 2 {
            true => self.height,
            false => self.height + TOOLS_H,
        }
    }

    /// How far a row's bars may grow from its line of marks, up and down (CSS pixels): nearly to
    /// the row's edges, or to its lane's; in a row whose clients obey, short of their retries
    /// (`RETRY_LANE` under the line).
    pub fn bar_reach(&self) -> f64 {
        let obeying = self.lane_h - self.lane_name > LANE_H;
        match (self.lanes.count(), obeying) {
            (1, false) => ROW_H / 2.0 - 5.0,
            (1, true) => RETRY_LANE - 5.0,
            _ => LANE_MARK_Y - 3.0,
        }
    }

    /// The axis's ticks for the stretch shown.
    pub fn ticks(&self) -> Vec<Time> {
        ticks_in(self.range, self.width)
    }

    /// The time between two ticks of the axis, in microseconds.
    pub fn tick_step(&self) -> u64 {
        tick_step_in(self.range, self.width)
    }

    /// The layout as JSON, published on the canvas for tests and tools that read its pixels.
    /// Every length is a whole number of CSS pixels (rows are whole, the width is measured).
    pub fn to_json(&self) -> String {
        let int = |v: f64| v.round() as i64;
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| {
                let lanes: Vec<String> = (0..self.lanes.count())
                    .map(|lane| int(self.mark_y(r, lane)).to_string())
                    .collect();
                format!(
                    "{{\"id\":\"{}\",\"top\":{},\"bodyTop\":{},\"markY\":{},\"height\":{},\"laneY\":[{}]}}",
                    r.kind.id(),
                    int(r.top),
                    int(r.body_top),
                    int(r.mark_y),
                    int(r.height),
                    lanes.join(",")
                )
            })
            .collect();
        format!(
            "{{\"padX\":{},\"width\":{},\"height\":{},\"horizonUs\":{},\"fromUs\":{},\"toUs\":{},\"rows\":[{}]}}",
            int(PAD_X),
            int(self.width),
            int(self.height),
            self.horizon.micros(),
            self.range.from.micros(),
            self.range.to.micros(),
            rows.join(",")
        )
    }
}

/// When the rows are split by key, each lane's busiest window, row after row and lane after lane
/// (as [`MarkColumns::tracks`]): how many the lane's busiest key had served inside one window,
/// and when that window ends (the earliest, between equals); `None` for a lane with nothing
/// served and for the Durable Object's row, which is not tinted. Each lane is tinted over its
/// own (`ui::draw`), so one key's busiest window never spans the others' lanes.
pub fn lane_busiest(run: &LabRun, layout: &Layout) -> Vec<Option<(u64, Time)>> {
    let lanes = layout.lanes.count();
    let mut all = Vec::with_capacity(layout.rows.len() * lanes);
    for row in &layout.rows {
        let mut busiest = vec![None::<(u64, Time)>; lanes];
        let served = match row.kind {
            RowKind::Algo(a) => run.run(a).map(|r| &r.served),
            RowKind::Durable => None,
        };
        for (key, times) in served.into_iter().flat_map(|s| s.per_key().enumerate()) {
            let (count, end) = busiest_window(times, run.settings.window);
            let lane = &mut busiest[layout.lanes.lane(key as u32).min(lanes - 1)];
            if count > 0
                && lane.is_none_or(|(best, at)| count > best || (count == best && end < at))
            {
                *lane = Some((count, end));
            }
        }
        all.extend(busiest);
    }
    all
}

/// Tick times for the stretch `range` of the axis: the multiples, inside it, of a round step
/// giving at most about one tick per 90 px (from a microsecond to whole minutes).
pub fn ticks_in(range: Range, width: f64) -> Vec<Time> {
    let step = tick_step_in(range, width);
    let first = range.from.micros().div_ceil(step);
    (first..=range.to.micros() / step)
        .map(|i| Time(i * step))
        .collect()
}

/// The time between two ticks of an axis over `range`, `width` pixels wide: the finest step of
/// 1, 2 or 5 (or 15, 30 seconds, whole minutes) that leaves about 90 pixels between ticks.
pub fn tick_step_in(range: Range, width: f64) -> u64 {
    const STEPS_US: [u64; 25] = [
        1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000,
        200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000, 15_000_000, 30_000_000,
        60_000_000,
    ];
    let max_ticks = (width / 90.0).floor().max(2.0) as u64;
    let span = range.span();
    let fits = |step: u64| span / step <= max_ticks;
    let mut step = STEPS_US.iter().copied().find(|&s| fits(s)).unwrap_or(0);
    if step == 0 {
        // Beyond the table: whole minutes, doubled until few enough.
        step = 120_000_000;
        while !fits(step) {
            step *= 2;
        }
    }
    step
}

/// The playhead's time while it moves, at the axis's precision: rounded down to a tenth of the
/// axis's step (`tick_step_us`), so that it reads "at 2.6 s" on an axis of whole seconds rather
/// than "at 2.615838 s".
pub fn moving_playhead_label(t: Time, tick_step_us: u64) -> String {
    let finest = (tick_step_us / 10).max(1);
    time_label(Time(t.micros() / finest * finest))
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

/// What each row (and each key's lane in it) draws, worked out once per run and layout (one pass
/// over the decisions shown, then a plan per lane: `super::marks`), so that a redraw while the
/// pointer moves paints a plan instead of looking at every request: a million requests redraw as
/// fast as a hundred, and the picture's proportions are the counts'.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MarkColumns {
    /// Every lane of every row of the layout, row after row (a row's lanes top to bottom).
    tracks: Vec<Track>,
}

/// One lane's plan: its lone marks, and its clusters drawn as bars.
pub type Track = LanePlan;

impl MarkColumns {
    /// Every lane of every row of the layout, row after row (a row's lanes top to bottom).
    pub fn tracks(&self) -> &[Track] {
        &self.tracks
    }

    pub fn new(run: &LabRun, layout: &Layout, dpr: f64) -> MarkColumns {
        let mut builder = MarkColumnsBuilder::new(run, layout, dpr);
        while builder.add_row(run, layout) {}
        builder.finish()
    }

    /// What every lane draws, as JSON published on the canvas for tests and tools that read its
    /// pixels: per row, per lane, each lone mark (its CSS x and outcome: `a`llowed, `r`efused,
    /// `d`elayed, `o`pen, `c`losed) and each cluster drawn as bars (the CSS x its bars start and
    /// end at, its requests, and how many of them were refused, fail-closed ones included).
    pub fn to_json(&self, layout: &Layout, dpr: f64) -> String {
        let css = |column: u32| (f64::from(column) / dpr * 100.0).round() / 100.0;
        let letter = |m: Mark| match m {
            Mark::Allowed => 'a',
            Mark::Rejected => 'r',
            Mark::Delayed => 'd',
            Mark::Degraded => 'o',
            Mark::FailedClosed => 'c',
        };
        let lane_json = |plan: &Track| {
            let marks: Vec<String> = plan
                .marks
                .iter()
                .map(|m| format!("[{},\"{}\"]", css(m.column), letter(m.kind)))
                .collect();
            let clusters: Vec<String> = plan
                .clusters
                .iter()
                .map(|c| cluster_json(c, mark_width(dpr), dpr))
                .collect();
            format!(
                "{{\"marks\":[{}],\"bars\":[{}]}}",
                marks.join(","),
                clusters.join(",")
            )
        };
        let lanes = layout.lanes.count();
        let rows: Vec<String> = layout
            .rows
            .iter()
            .zip(self.tracks.chunks(lanes))
            .map(|(row, plans)| {
                let lanes: Vec<String> = plans.iter().map(lane_json).collect();
                format!(
                    "{{\"id\":\"{}\",\"lanes\":[{}]}}",
                    row.kind.id(),
                    lanes.join(",")
                )
            })
            .collect();
        format!("{{\"dpr\":{},\"rows\":[{}]}}", dpr, rows.join(","))
    }
}

/// [`MarkColumns`] worked out a row at a time, so that a million requests over seven rows can be
/// done in several short tasks rather than one long one.
pub struct MarkColumnsBuilder {
    columns: usize,
    dpr: f64,
    /// The requests shown: their indices in the trace.
    shown: std::ops::Range<usize>,
    /// Each request's column, worked out once for every row: a row is then one pass of
    /// look-ups, not a million conversions of time to pixels.
    request_columns: Vec<u32>,
    /// Each request's lane, when the rows are split by key (else empty).
    request_lanes: Vec<u8>,
    tracks: Vec<Track>,
    rows_done: usize,
}

impl MarkColumnsBuilder {
    pub fn new(run: &LabRun, layout: &Layout, dpr: f64) -> MarkColumnsBuilder {
        let columns = (layout.width * dpr).ceil() as usize + 2;
        let column = |x: f64| column_at(x, dpr, columns);
        let requests = run.trace.requests();
        let shown = layout.shown(requests);
        let shown_requests = requests.get(shown.clone()).unwrap_or_default();
        let request_columns = shown_requests
            .iter()
            .map(|r| column(layout.x(r.at)) as u32)
            .collect();
        let request_lanes = match layout.lanes.count() {
            1 => Vec::new(),
            _ => shown_requests
                .iter()
                .map(|r| layout.lanes.lane(r.key) as u8)
                .collect(),
        };
        MarkColumnsBuilder {
            columns,
            dpr,
            shown,
            request_columns,
            request_lanes,
            tracks: Vec::with_capacity(layout.rows.len() * layout.lanes.count()),
            rows_done: 0,
        }
    }

    /// Works out the next row; false once every row of `layout` is done.
    pub fn add_row(&mut self, run: &LabRun, layout: &Layout) -> bool {
        let Some(row) = layout.rows.get(self.rows_done) else {
            return false;
        };
        let (columns, dpr) = (self.columns, self.dpr);
        let column = |x: f64| column_at(x, dpr, columns);
        let requests = run.trace.requests();
        let lanes = layout.lanes.count();
        let mut counts = vec![vec![[0u32; KINDS]; columns]; lanes];
        let mut release = vec![Vec::new(); lanes];
        let lane_of = |j: usize| self.request_lanes.get(j).map_or(0, |&l| usize::from(l));
        match row.kind {
            RowKind::Algo(a) => {
                if let Some(r) = run.run(a) {
                    if r.delayed > 0 {
                        release = vec![vec![-1f32; columns]; lanes];
                    }
                    // The request itself is read only for a delayed one, to find its release.
                    let verdicts = self.shown.clone().filter_map(|i| r.verdicts.get(i));
                    for (j, (verdict, &c)) in verdicts.zip(&self.request_columns).enumerate() {
                        let (c, lane) = (c as usize, lane_of(j));
                        let mark = match verdict {
                            Verdict::Allowed => Mark::Allowed,
                            Verdict::Rejected => Mark::Rejected,
                            Verdict::Delayed { by } => {
                                let released = requests[self.shown.start + j].at.plus(by);
                                let x = layout.x(released) as f32;
                                release[lane][c] = release[lane][c].max(x);
                                Mark::Delayed
                            }
                        };
                        counts[lane][c][mark as usize] += 1;
                    }
                }
            }
            RowKind::Durable => {
                if let Some(Ok(report)) = &run.durable {
                    let shown = report
                        .records
                        .iter()
                        .filter(|r| r.attempt == 0 && layout.range.contains(r.sent));
                    for record in shown {
                        let lane = layout.lanes.lane(record.key).min(lanes - 1);
                        let c = column(layout.x(record.sent));
                        counts[lane][c][outcome_mark(record.outcome) as usize] += 1;
                    }
                }
            }
        }
        let lane_columns: Vec<LaneColumns> = counts
            .iter()
            .zip(&release)
            .map(|(counts, release)| LaneColumns { counts, release })
            .collect();
        self.tracks.extend(plan_row(
            &lane_columns,
            mark_width(dpr),
            layout.bar_reach() * dpr,
        ));
        self.rows_done += 1;
        self.rows_done < layout.rows.len()
    }

    /// Rows done so far.
    pub fn rows_done(&self) -> usize {
        self.rows_done
    }

    pub fn finish(self) -> MarkColumns {
        MarkColumns {
            tracks: self.tracks,
        }
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

/// A mark's width in device pixels: requests whose columns are closer than this would overlap.
pub fn mark_width(dpr: f64) -> u32 {
    (2.0 * MARK_R * dpr).round().max(1.0) as u32
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
/// several), with the row's own terms where it has them (`Algorithm::terms`: the leaky bucket's
/// and nginx's `burst=`, so that two rows modelling one product say where they differ), then what
/// it did, so the busiest window never reads as the limit: "limit 5 per 10 s; busiest window 3".
pub fn row_promise(
    limit: u64,
    window: Span,
    copies: u32,
    terms: Option<&str>,
    busiest: u64,
) -> String {
    let window = format_seconds(window.micros());
    let each = if copies > 1 {
        format!(" on each of {copies} copies")
    } else {
        String::new()
    };
    let terms = terms.map(|t| format!(", {t}")).unwrap_or_default();
    format!("limit {limit} per {window} s{each}{terms}; busiest window {busiest}")
}

/// The same in a few characters, for narrow screens: "busiest 3 / 5".
pub fn row_promise_short(limit: u64, busiest: u64) -> String {
    format!("busiest {busiest} / {limit}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::lab::LabRun;
    use crate::core::limiter::Complete;
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
        let ticks = |horizon: Time, width: f64| ticks_in(Range::whole(horizon), width);
        let ticks_20s = ticks(Time::from_secs(20), 900.0);
        assert_eq!(ticks_20s.len(), 11);
        assert_eq!(ticks_20s[1], Time::from_secs(2));
        // Past the table's hour-long steps: whole minutes, doubled until few enough.
        let day = ticks(Time::from_secs(86_400), 900.0);
        assert!(day.len() <= 11 && day[1].micros().is_multiple_of(60_000_000));
    }

    #[test]
    fn a_moving_playhead_reads_at_a_tenth_of_the_axis_step() {
        let twenty_seconds = Range::whole(Time::from_secs(20));
        let step = tick_step_in(twenty_seconds, 900.0);
        assert_eq!(step, 2_000_000);
        assert_eq!(moving_playhead_label(Time(2_615_838), step), "2.6 s");
        assert_eq!(moving_playhead_label(Time(8_000_000), step), "8 s");
        assert_eq!(moving_playhead_label(Time(150_000), step), "0");
        assert_eq!(moving_playhead_label(Time(250_000), step), "200 ms");
        // Zoomed to four seconds: half-second ticks, and the playhead in twentieths.
        let zoomed = Range {
            from: Time::from_secs(8),
            to: Time::from_secs(12),
        };
        let step = tick_step_in(zoomed, 900.0);
        assert_eq!(step, 500_000);
        assert_eq!(moving_playhead_label(Time(8_615_838), step), "8.6 s");
        // The finest axis keeps whole microseconds.
        assert_eq!(moving_playhead_label(Time(7), 1), "0.007 ms");
    }

    #[test]
    fn ticks_follow_the_stretch_shown_down_to_microseconds() {
        let range = |from: u64, to: u64| Range {
            from: Time(from),
            to: Time(to),
        };
        // 8 s to 12 s over 900 px: half-second ticks, from the first inside the stretch.
        let zoomed = ticks_in(range(8_000_000, 12_000_000), 900.0);
        assert_eq!(zoomed.first(), Some(&Time::from_secs(8)));
        assert_eq!(zoomed.last(), Some(&Time::from_secs(12)));
        assert_eq!(zoomed[1], Time::from_millis(8_500));
        assert_eq!(tick_labels(&zoomed)[1], "8.5 s");
        let offset = ticks_in(range(8_250_000, 9_250_000), 900.0);
        assert_eq!(
            offset[0],
            Time::from_millis(8_300),
            "none before the stretch"
        );
        // A millisecond wide: ticks a tenth of a millisecond apart, in seconds to the microsecond.
        let narrow = ticks_in(range(10_000_000, 10_001_000), 900.0);
        assert_eq!(narrow.len(), 11);
        assert_eq!(tick_labels(&narrow)[1], "10.0001 s");
        let early = ticks_in(range(200, 900), 900.0);
        assert_eq!(
            tick_labels(&early),
            ["0.2 ms", "0.3 ms", "0.4 ms", "0.5 ms", "0.6 ms", "0.7 ms", "0.8 ms", "0.9 ms"]
        );
    }

    #[test]
    fn a_zoomed_layout_places_its_stretch_across_the_canvas_and_shows_only_its_requests() {
        let run = run("algos=fixed");
        // The edge pattern: 8, 8.398, ..., 11.592 s.
        let layout = Layout::viewed::<Complete>(
            &run,
            1032.0,
            Some((Time::from_secs(9), Time::from_secs(11))),
            Lanes::One,
        );
        assert_eq!(layout.x(Time::from_secs(9)), PAD_X);
        assert_eq!(layout.x(Time::from_secs(10)), PAD_X + 500.0);
        let shown = layout.shown(run.trace.requests());
        let times: Vec<u64> = run.trace.requests()[shown]
            .iter()
            .map(|r| r.at.micros() / 1000)
            .collect();
        assert_eq!(times, [9_194, 9_592, 10_000, 10_398, 10_796]);
        assert!(layout
            .to_json()
            .contains("\"fromUs\":9000000,\"toUs\":11000000"));
        // Only the requests shown leave marks: five marks apart, none piled at the edges.
        let columns = MarkColumns::new(&run, &layout, 1.0);
        let plan = &columns.tracks()[0];
        assert_eq!(plan.marks.len(), 5);
        assert!(plan.clusters.is_empty());
        let last = (1032.0f64).ceil() as u32 + 1;
        assert!(plan.marks.iter().all(|m| m.column > 0 && m.column < last));
    }

    #[test]
    fn key_lanes_give_each_key_a_lane_in_every_row_and_its_marks_go_there() {
        let run = run("pattern=several-keys&algos=fixed,token-bucket&do=1");
        let one = Layout::new(&run, 800.0);
        let split = Layout::viewed::<Complete>(&run, 800.0, None, Lanes::Key);
        assert_eq!(
            split.lanes.names,
            ["tenant:a", "tenant:b", "ip:203.0.113.7"]
        );
        assert_eq!(split.lanes.count(), 3);
        let row = &split.rows[0];
        assert_eq!(row.body, 2.0 * LANES_PAD + 3.0 * LANE_H);
        assert_eq!(split.mark_y(row, 2) - split.mark_y(row, 0), 2.0 * LANE_H);
        // The token bucket's level strip sits under its lanes.
        assert_eq!(
            split.rows[1].gauge,
            Some((split.rows[1].top + row.body, GAUGE_H))
        );
        assert!(split.height > one.height);
        let columns = MarkColumns::new(&run, &split, 1.0);
        assert_eq!(columns.tracks().len(), 3 * 3, "three rows of three lanes");
        for (k, key) in ["tenant:a", "tenant:b", "ip:203.0.113.7"]
            .iter()
            .enumerate()
        {
            let sent = run
                .trace
                .requests()
                .iter()
                .filter(|r| run.trace.key_name(r.key) == *key);
            for request in sent {
                let c = column_at(split.x(request.at), 1.0, 802) as u32;
                assert!(holds(&columns.tracks()[k], c), "{key} at {:?}", request.at);
            }
        }
        // Every request is in exactly one lane of a row: the lanes' requests add up to the row's.
        let requests = |tracks: &[Track]| tracks.iter().map(LanePlan::requests).sum::<u64>();
        assert_eq!(requests(&columns.tracks()[..3]), run.trace.len() as u64);
        assert_eq!(
            requests(&MarkColumns::new(&run, &one, 1.0).tracks()[..1]),
            run.trace.len() as u64
        );
        // The line of tools under the axis holds the lanes' toggle for several keys, and the
        // zoom's reset for a stretch.
        assert_eq!(split.height_with_tools(3), split.height + TOOLS_H);
        assert_eq!(one.height_with_tools(1), one.height);
        let zoomed = Layout::viewed::<Complete>(
            &run,
            800.0,
            Some((Time::ZERO, Time::from_secs(1))),
            Lanes::One,
        );
        assert_eq!(zoomed.height_with_tools(1), zoomed.height + TOOLS_H);
        // A point's lane, for a click: by its height in whichever row it is in.
        let second = &split.rows[1];
        assert_eq!(split.lane_at(split.mark_y(second, 1)), 1);
        assert_eq!(split.lane_at(split.lane_top(second, 2) + 1.0), 2);
        assert_eq!(
            split.lane_at(second.top + second.height - 1.0),
            2,
            "the level strip: the last lane"
        );
        assert_eq!(one.lane_at(one.rows[1].mark_y), 0);
        // A trace of one key is never split.
        assert_eq!(
            Layout::viewed::<Complete>(&self::run("algos=fixed"), 800.0, None, Lanes::Key)
                .lanes
                .count(),
            1
        );
    }

    #[test]
    fn a_lanes_marks_sit_in_its_middle_and_its_tint_is_its_own_keys_busiest_window() {
        let run = run("pattern=several-keys&algos=fixed,sliding-log&do=1");
        let split = Layout::viewed::<Complete>(&run, 800.0, None, Lanes::Key);
        for row in &split.rows {
            for lane in 0..3 {
                let top = split.lane_top(row, lane);
                assert_eq!(split.mark_y(row, lane) - top, LANE_H / 2.0, "centred");
                assert_eq!(split.lane_at(split.mark_y(row, lane)), lane);
            }
        }
        let busiest = lane_busiest(&run, &split);
        assert_eq!(busiest.len(), 3 * 3, "three rows of three lanes");
        let fixed = run
            .run(Algorithm::FixedWindow)
            .expect("the fixed window ran");
        let mut tints = Vec::new();
        for (lane, key) in fixed.served.per_key().enumerate() {
            let own = busiest_window(key, run.settings.window);
            assert_eq!(busiest[lane], Some(own), "lane {lane}");
            tints.push(own.0);
        }
        // Only the busiest key's lane holds the row's busiest window; the others hold their own.
        assert_eq!(tints.iter().max(), Some(&fixed.max_in_window));
        assert!(tints.iter().any(|&n| n < fixed.max_in_window), "{tints:?}");
        // The Durable Object's row tints no lane; one line per row has no lanes to tint.
        assert_eq!(busiest[2 * 3], None);
        let one = Layout::new(&run, 800.0);
        assert_eq!(lane_busiest(&run, &one).len(), 3, "a lane per row");
    }

    #[test]
    fn labels_above_the_rows_give_each_row_a_band_and_move_nothing_within_it() {
        let run = run("pattern=several-keys&algos=fixed,token-bucket&do=1");
        for lanes in [Lanes::One, Lanes::Key] {
            let beside = Layout::viewed::<Complete>(&run, 390.0, None, lanes);
            let above = beside.clone().with_labels_above();
            // Split by key, each of the three keys' lanes has a line for its name, in each row.
            let name = match lanes {
                Lanes::One => 0.0,
                Lanes::Key => LANE_NAME_H,
            };
            let names = 3.0 * name;
            assert_eq!(above.height, beside.height + 3.0 * (LABEL_BAND + names));
            assert_eq!(above.clone().with_labels_above(), above, "once");
            for (i, (b, a)) in beside.rows.iter().zip(&above.rows).enumerate() {
                let shift = i as f64 * (LABEL_BAND + names);
                assert_eq!(a.top, b.top + shift);
                assert_eq!(a.body_top, a.top + LABEL_BAND);
                assert_eq!(a.height, b.height + LABEL_BAND + names);
                assert_eq!(a.mark_y - a.body_top, b.mark_y - b.body_top + name);
                assert_eq!(
                    a.gauge.map(|(t, h)| (t - a.body_top, h)),
                    b.gauge.map(|(t, h)| (t - b.body_top + names, h))
                );
                for lane in 0..above.lanes.count() {
                    assert_eq!(above.lane_at(above.mark_y(a, lane)), lane);
                    // A lane's name's line, then its marks as beside: the bars clear of the name.
                    if name > 0.0 {
                        let marks = above.mark_y(a, lane) - above.lane_top(a, lane);
                        assert_eq!(marks, LANE_MARK_Y + name);
                        assert!(marks - above.bar_reach() >= name, "the bars under the name");
                    }
                }
            }
        }
    }

    #[test]
    fn past_twelve_keys_the_busiest_eleven_have_lanes_and_the_rest_share_one() {
        // Key k sends k + 1 requests: k19 is the busiest, k0 the quietest.
        let trace: Vec<String> = (0..20)
            .flat_map(|k| (0..=k).map(move |i| format!("{}@k{k}", i * 20 + k)))
            .collect();
        let run = run(&format!("trace={}&algos=fixed", trace.join(",")));
        let lanes = KeyLanes::of(&run.trace);
        assert_eq!(lanes.count(), MAX_LANES);
        let names: Vec<&str> = lanes.names.iter().map(String::as_str).collect();
        // The busiest eleven, in the order the trace names them, then the others together.
        let busiest: Vec<String> = (9..20).map(|k| format!("k{k}")).collect();
        assert_eq!(
            names[..11],
            busiest.iter().map(String::as_str).collect::<Vec<_>>()[..]
        );
        assert_eq!(names[11], "9 other keys");
        let key = |name: &str| run.trace.keys().iter().position(|k| k == name).unwrap() as u32;
        assert_eq!(lanes.lane(key("k0")), 11);
        assert_eq!(lanes.lane(key("k19")), 10);
        assert_eq!(lanes.lane(999), 0, "an unknown key goes to the first lane");
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
        assert_eq!(columns.tracks().len(), 2);
        let fixed = &columns.tracks()[0];
        assert!(fixed.marks.iter().all(|m| m.release.is_none()));
        let fixed_run = run.run(Algorithm::FixedWindow).unwrap();
        for (request, verdict) in run.trace.requests().iter().zip(fixed_run.verdicts.iter()) {
            let column = column_at(layout.x(request.at), 2.0, 1202) as u32;
            let mark = match verdict {
                Verdict::Allowed => Mark::Allowed,
                _ => Mark::Rejected,
            };
            assert!(shows(fixed, column, mark), "{mark:?} at {:?}", request.at);
        }
        // The leaky bucket delays: a lone delayed mark reaches right to its release.
        let leaky = &columns.tracks()[1];
        assert!(leaky.marks.iter().any(|m| m.kind == Mark::Delayed
            && m.release
                .is_some_and(|x| f64::from(x) * 2.0 > f64::from(m.column))));
    }

    /// True when `plan` shows a request of outcome `mark` in device column `column`: its own mark
    /// there, or a cluster over that column holding such a request.
    fn shows(plan: &LanePlan, column: u32, mark: Mark) -> bool {
        plan.marks
            .iter()
            .any(|m| m.column == column && m.kind == mark)
            || plan
                .clusters
                .iter()
                .any(|c| (c.first..=c.last).contains(&column) && c.counts[mark as usize] > 0)
    }

    fn holds(plan: &LanePlan, column: u32) -> bool {
        plan.marks.iter().any(|m| m.column == column)
            || plan
                .clusters
                .iter()
                .any(|c| (c.first..=c.last).contains(&column))
    }

    #[test]
    fn every_request_shown_is_counted_once_in_its_rows_marks_and_bars() {
        // Fifty requests at one instant, then a spread of others.
        let mut times = vec!["1".to_string(); 50];
        times.extend((0..400).map(|i| format!("{}.{:03}", 2 + i / 100, i % 100 * 7)));
        let run = run(&format!(
            "algos=fixed,sliding-log,leaky-bucket&limit=20&window=1&trace={}",
            times.join(",")
        ));
        for width in [300.0, 1200.0, 20_000.0] {
            let layout = Layout::new(&run, width);
            let columns = MarkColumns::new(&run, &layout, 1.0);
            for (plan, r) in columns.tracks().iter().zip(&run.runs) {
                let mut counted = [0u64; KINDS];
                for m in &plan.marks {
                    counted[m.kind as usize] += 1;
                }
                for c in &plan.clusters {
                    for (sum, &n) in counted.iter_mut().zip(&c.counts) {
                        *sum += u64::from(n);
                    }
                }
                let refused = r
                    .verdicts
                    .iter()
                    .filter(|v| *v == Verdict::Rejected)
                    .count();
                assert_eq!(counted[Mark::Rejected as usize], refused as u64);
                assert_eq!(counted.iter().sum::<u64>(), run.trace.len() as u64);
            }
        }
        // At 300 pixels the fifty at one instant are one narrow cluster with its count.
        let columns = MarkColumns::new(&run, &Layout::new(&run, 300.0), 1.0);
        let burst = columns.tracks()[0]
            .clusters
            .iter()
            .find(|c| c.narrow)
            .map(|c| c.requests());
        assert_eq!(burst, Some(50));
        // Published with where its bar is drawn, its requests and its refusals: the fixed window
        // lets 20 of the fifty through.
        let json = columns.to_json(&Layout::new(&run, 300.0), 1.0);
        assert!(json.starts_with("{\"dpr\":1,\"rows\":[{\"id\":\"fixed\",\"lanes\":[{\"marks\":["));
        assert!(json.contains(",50,30]"), "{json}");
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
        assert_eq!(whole.tracks().len(), 4);
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
            row_promise(23, Span::from_secs(10), 1, None, 9),
            "limit 23 per 10 s; busiest window 9"
        );
        assert_eq!(
            row_promise(5, Span::from_millis(2_500), 1, None, 10),
            "limit 5 per 2.5 s; busiest window 10"
        );
        assert_eq!(
            row_promise(5, Span::from_secs(10), 2, None, 10),
            "limit 5 per 10 s on each of 2 copies; busiest window 10"
        );
        assert_eq!(
            row_promise(100, Span::from_secs(60), 1, Some("burst=20 nodelay"), 42),
            "limit 100 per 60 s, burst=20 nodelay; busiest window 42"
        );
        assert_eq!(row_promise_short(5, 3), "busiest 3 / 5");
    }
}
