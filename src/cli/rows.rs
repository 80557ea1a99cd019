//! Every limiter row of the lab over a stream of requests in time order, holding per key only
//! the key's limiter and what its busiest window needs: the rows' figures (the page's table) and,
//! when asked, each decision as the page's CSV row (`core::export`), written as it is made.
//!
//! Exact because every row keeps one limiter per key and copy (as `core::run` does, see
//! `core::deployment`), each limiter sees its requests in the same order as on the page, and a
//! row whose keys share one storage (Python `limits`' moving window) hands it from call to call
//! in that order too. Memory grows with the number of keys, never with the number of requests.

use std::collections::{HashMap, VecDeque};

use crate::core::combine::{admit_both, decide_both, SecondLimiters};
use crate::core::decision::{Decision, Limiter, Verdict};
use crate::core::deployment::Placement;
use crate::core::export::{push_row, ExtraColumns};
use crate::core::limiter::{Algorithm, AnyLimiter, Complete, Settings, SharedStorage};
use crate::core::profiles::ProductReply;
use crate::core::row_response::row_response;
use crate::core::run::with_final_verdict;
use crate::core::second_limit::RefusedBy;
use crate::core::time::{format_seconds, Span, Time};

use super::figures::{Figures, Summary};

/// One request as the rows need it.
#[derive(Clone, Copy, Debug)]
pub struct Arrival<'a> {
    /// Its place in the whole traffic, shards included (which copy of a row decides it).
    pub index: usize,
    pub at: Time,
    pub key: &'a str,
    pub cost: u32,
}

/// The busiest window of one key, found as its served times come in: served times are settled
/// in sorted order once no later request of the stream can be served before them.
#[derive(Clone, Debug, Default)]
struct Busiest {
    /// Served times not yet settled (a delayed request's release), sorted, with their counts.
    pending: VecDeque<(Time, u64)>,
    /// Settled served times inside the window ending at the last one, with their counts.
    window: VecDeque<(Time, u64)>,
    in_window: u64,
    /// The most in one window `(end - window, end]`, and the earliest such end.
    best: (u64, Time),
}

impl Busiest {
    fn serve(&mut self, at: Time, count: u64) {
        let i = self.pending.partition_point(|&(t, _)| t <= at);
        self.pending.insert(i, (at, count));
    }

    /// Settles every served time up to `now` (every later request arrives at `now` or after,
    /// and is served no earlier).
    fn settle(&mut self, now: Time, window: Span) {
        while let Some(&(end, count)) = self.pending.front().filter(|&&(t, _)| t <= now) {
            self.pending.pop_front();
            // Half-open like `core::run::busiest_window`: one exactly a window older has left.
            while let Some(&(first, n)) = self.window.front() {
                match end.micros().checked_sub(window.micros()) {
                    Some(cutoff) if first.micros() <= cutoff => {
                        self.window.pop_front();
                        self.in_window -= n;
                    }
                    _ => break,
                }
            }
            self.window.push_back((end, count));
            self.in_window += count;
            if self.in_window > self.best.0 {
                self.best = (self.in_window, end);
            }
        }
    }
}

/// One limiter of one row: a key's (on one copy, for a row run as several).
#[derive(Clone, Debug)]
struct LimiterState {
    limiter: AnyLimiter,
    /// For a limiter that settles verdicts late: decisions so far, and the open ones as
    /// (sequence number, arrival, cost, place of its CSV row in `StreamRows::held`).
    decided: u64,
    waiting: VecDeque<(u64, Time, u64, Option<usize>)>,
}

/// A CSV row kept back because it, or a row before it, waits for its final verdict.
enum HeldRow {
    Ready(String),
    Open {
        time: String,
        key: String,
        algorithm: Algorithm,
        decision: Decision,
        reply: Option<ProductReply>,
        /// The columns after `headers` (`core::export::ExtraColumns`).
        extra: String,
    },
}

/// One limiter row.
struct Row {
    algorithm: Algorithm,
    fresh: AnyLimiter,
    /// By slot (key number and copy, `Placement::slot`).
    slots: Vec<LimiterState>,
    /// By key number, across its copies.
    busiest: Vec<Busiest>,
    allowed: u64,
    delayed: u64,
    rejected: u64,
    /// Whether its limiter settles verdicts late (see `Limiter::settles_late`).
    late: bool,
    /// Its second limit's limiters, if the settings set one (`core::second_limit`).
    second: Option<SecondLimiters>,
    refused_by_second: u64,
    /// Per copy, the storage its keys share, for a row that has one
    /// (`AnyLimiter::shared_storage`), as the copy's last call left it.
    storages: Vec<Option<SharedStorage>>,
}

/// The lab's rows over a stream of requests.
pub struct StreamRows {
    settings: Settings,
    rows: Vec<Row>,
    /// Rows that refuse the settings, named as the page names them.
    refusals: Vec<String>,
    /// Key numbers in order of first appearance, as the page numbers them.
    numbers: HashMap<String, u32>,
    /// Which copy decides each request.
    placement: Placement,
    extra: ExtraColumns,
    requests: u64,
    /// CSV rows kept back until every row before them is final, and the number of rows
    /// already written before the first of them.
    held: VecDeque<HeldRow>,
    held_from: usize,
}

impl StreamRows {
    pub fn new(settings: &Settings, algorithms: &[Algorithm]) -> StreamRows {
        let mut rows = Vec::new();
        let mut refusals = Vec::new();
        for &algorithm in algorithms {
            let built = algorithm
                .build(settings)
                .and_then(|fresh| Ok((fresh, SecondLimiters::with_no_keys(algorithm, settings)?)));
            match built {
                Ok((fresh, second)) => rows.push(Row {
                    algorithm,
                    late: fresh.settles_late(),
                    storages: vec![
                        fresh.shared_storage();
                        settings
                            .deployment
                            .placement_of_no_keys::<Complete>()
                            .instances() as usize
                    ],
                    fresh,
                    slots: Vec::new(),
                    busiest: Vec::new(),
                    allowed: 0,
                    delayed: 0,
                    rejected: 0,
                    second,
                    refused_by_second: 0,
                }),
                Err(e) => refusals.push(format!("{}: {e}.", algorithm.label())),
            }
        }
        StreamRows {
            settings: settings.clone(),
            rows,
            refusals,
            numbers: HashMap::new(),
            placement: settings.deployment.placement_of_no_keys::<Complete>(),
            extra: ExtraColumns::of::<Complete>(settings),
            requests: 0,
            held: VecDeque::new(),
            held_from: 0,
        }
    }

    /// Decides `arrival` in every row (it must not be earlier than the one before); with `csv`,
    /// appends its rows of the page's CSV export.
    pub fn decide(&mut self, arrival: Arrival, csv: Option<&mut String>) {
        let index = arrival.index;
        self.requests += 1;
        let key = match self.numbers.get(arrival.key) {
            Some(&number) => number as usize,
            None => {
                let number = self.numbers.len();
                self.numbers.insert(arrival.key.to_string(), number as u32);
                self.placement.add_key(arrival.key);
                for second in self.rows.iter_mut().filter_map(|r| r.second.as_mut()) {
                    second.add_key(arrival.key);
                }
                number
            }
        };
        let slot_of_request = self.placement.slot(index, key as u32);
        let copy = self.placement.copy_column(index, key as u32);
        let slots = self.placement.slots(key + 1);
        let cost = u64::from(arrival.cost);
        let window = self.settings.window;
        let time = csv.as_ref().map(|_| format_seconds(arrival.at.micros()));
        let mut csv = csv;
        for row in &mut self.rows {
            if key == row.busiest.len() {
                row.busiest.push(Busiest::default());
            }
            while row.slots.len() < slots {
                let mut limiter = row.fresh.clone();
                limiter.serve_key(arrival.key);
                row.slots.push(LimiterState {
                    limiter,
                    decided: 0,
                    waiting: VecDeque::new(),
                });
            }
            let state = &mut row.slots[slot_of_request];
            let storage = row
                .storages
                .get_mut(slot_of_request % self.placement.instances().max(1) as usize)
                .and_then(Option::as_mut);
            if let Some(shared) = &storage {
                state.limiter.join_shared_storage(**shared);
            }
            let busiest = &mut row.busiest[key];
            let mut slot = None;
            let at = arrival.at;
            let second = row.second.as_mut().map(|second| {
                let shared = second.slot(&self.placement, index, key as u32);
                (second, shared)
            });
            let verdict = match (&mut csv, &time) {
                (Some(out), Some(time)) => {
                    let (decision, reply, cause) = match second {
                        None => {
                            let (decision, reply) = state.limiter.decide_with_reply(at, cost);
                            (decision, reply, None)
                        }
                        Some((second, shared)) => {
                            let spend = second.spend;
                            second.with(shared, |second| {
                                decide_both(&mut state.limiter, second, spend, at, cost)
                            })
                        }
                    };
                    if cause == Some(RefusedBy::Second) {
                        row.refused_by_second += 1;
                    }
                    let extra = self.extra.values(copy, cause);
                    let open = row.late && matches!(decision.verdict, Verdict::Delayed { .. });
                    if open {
                        slot = Some(self.held_from + self.held.len());
                        self.held.push_back(HeldRow::Open {
                            time: time.clone(),
                            key: arrival.key.to_string(),
                            algorithm: row.algorithm,
                            decision,
                            reply,
                            extra,
                        });
                    } else {
                        let response = row_response::<Complete>(
                            row.algorithm,
                            &self.settings,
                            &decision,
                            reply.as_ref(),
                        );
                        let mut text = String::new();
                        let target = if self.held.is_empty() {
                            &mut **out
                        } else {
                            &mut text
                        };
                        push_row(
                            target,
                            time,
                            arrival.key,
                            row.algorithm.slug(),
                            decision.verdict.word(),
                            &response,
                            &extra,
                        );
                        if !self.held.is_empty() {
                            self.held.push_back(HeldRow::Ready(text));
                        }
                    }
                    decision.verdict
                }
                _ => match second {
                    None => state.limiter.admit(at, cost),
                    Some((second, shared)) => {
                        let spend = second.spend;
                        let (verdict, cause) = second.with(shared, |second| {
                            admit_both(&mut state.limiter, second, spend, at, cost)
                        });
                        if cause == Some(RefusedBy::Second) {
                            row.refused_by_second += 1;
                        }
                        verdict
                    }
                },
            };
            if let (Some(shared), Some(after)) = (storage, state.limiter.shared_storage()) {
                *shared = after;
            }
            if row.late {
                // Earlier requests this decision served or failed.
                while let Some(settled) = state.limiter.take_settled() {
                    let Ok(i) = state.waiting.binary_search_by_key(&settled.seq, |w| w.0) else {
                        continue;
                    };
                    let Some((_, at, n, held)) = state.waiting.remove(i) else {
                        continue;
                    };
                    row.delayed -= 1;
                    match settled.verdict {
                        Verdict::Rejected => row.rejected += 1,
                        Verdict::Allowed => {
                            row.allowed += 1;
                            busiest.serve(at, n);
                        }
                        Verdict::Delayed { by } => {
                            row.delayed += 1;
                            busiest.serve(at.plus(by), n);
                        }
                    }
                    if let Some(h) = held {
                        settle_held(
                            &mut self.held,
                            self.held_from,
                            h,
                            settled.verdict,
                            &self.settings,
                        );
                    }
                }
                let seq = state.decided;
                state.decided += 1;
                if let Verdict::Delayed { .. } = verdict {
                    row.delayed += 1;
                    state.waiting.push_back((seq, arrival.at, cost, slot));
                    busiest.settle(arrival.at, window);
                    continue;
                }
            }
            match verdict {
                Verdict::Allowed => {
                    row.allowed += 1;
                    busiest.serve(arrival.at, cost);
                }
                Verdict::Delayed { by } => {
                    row.delayed += 1;
                    busiest.serve(arrival.at.plus(by), cost);
                }
                Verdict::Rejected => row.rejected += 1,
            }
            busiest.settle(arrival.at, window);
        }
        if let Some(out) = csv {
            self.flush_ready(out);
        }
    }

    /// Writes the held CSV rows that are final and have no open row before them.
    fn flush_ready(&mut self, out: &mut String) {
        while let Some(HeldRow::Ready(text)) = self.held.front() {
            out.push_str(text);
            self.held.pop_front();
            self.held_from += 1;
        }
    }

    /// The trace has ended: runs every limiter that settles late on until its open verdicts
    /// are settled (the requests still queued are served on the timer's next ticks), and
    /// writes the CSV rows held for them.
    pub fn settle_rest(&mut self, csv: Option<&mut String>) {
        for row in &mut self.rows {
            if !row.late {
                continue;
            }
            let instances = self.placement.instances() as usize;
            for (slot, state) in row.slots.iter_mut().enumerate() {
                if state.waiting.is_empty() {
                    continue;
                }
                let busiest = &mut row.busiest[slot / instances];
                state.limiter.settle_rest();
                while let Some(settled) = state.limiter.take_settled() {
                    let Ok(i) = state.waiting.binary_search_by_key(&settled.seq, |w| w.0) else {
                        continue;
                    };
                    let Some((_, at, n, held)) = state.waiting.remove(i) else {
                        continue;
                    };
                    row.delayed -= 1;
                    match settled.verdict {
                        Verdict::Rejected => row.rejected += 1,
                        Verdict::Allowed => {
                            row.allowed += 1;
                            busiest.serve(at, n);
                        }
                        Verdict::Delayed { by } => {
                            row.delayed += 1;
                            busiest.serve(at.plus(by), n);
                        }
                    }
                    if let Some(h) = held {
                        settle_held(
                            &mut self.held,
                            self.held_from,
                            h,
                            settled.verdict,
                            &self.settings,
                        );
                    }
                }
            }
        }
        if let Some(out) = csv {
            self.flush_ready(out);
        }
    }

    /// The rows' figures, as the page's table shows them.
    pub fn finish(mut self) -> Summary {
        self.settle_rest(None);
        let window = self.settings.window;
        let rows = self
            .rows
            .iter_mut()
            .map(|row| {
                // The busiest key: the most in one window, then the earliest end, then the first
                // key seen, as `core::run` chooses it.
                let mut best = (0u64, Time::ZERO);
                for busiest in &mut row.busiest {
                    busiest.settle(Time(u64::MAX), window);
                    let (count, end) = busiest.best;
                    if count > best.0 || (count == best.0 && count > 0 && end < best.1) {
                        best = (count, end);
                    }
                }
                Figures {
                    slug: row.algorithm.slug(),
                    label: row.algorithm.label().to_string(),
                    passed: row.allowed + row.delayed,
                    delayed: row.delayed,
                    rejected: row.rejected,
                    refused_by_second: row.refused_by_second,
                    most_in_window: best.0,
                    clients: None,
                }
            })
            .collect();
        Summary {
            requests: self.requests,
            limit: self.settings.limit,
            second_limit: self.settings.also.is_some(),
            rows,
            notes: self.refusals,
        }
    }
}

/// Renders the held CSV row `index` (counted from the first row ever written) with its final
/// verdict.
fn settle_held(
    held: &mut VecDeque<HeldRow>,
    held_from: usize,
    index: usize,
    verdict: Verdict,
    settings: &Settings,
) {
    let Some(slot) = index.checked_sub(held_from).and_then(|i| held.get_mut(i)) else {
        return;
    };
    if let HeldRow::Open {
        time,
        key,
        algorithm,
        decision,
        reply,
        extra,
    } = slot
    {
        let decision = with_final_verdict(*decision, verdict);
        let response = row_response::<Complete>(*algorithm, settings, &decision, reply.as_ref());
        let mut text = String::new();
        push_row(
            &mut text,
            time,
            key,
            algorithm.slug(),
            decision.verdict.word(),
            &response,
            extra,
        );
        *slot = HeldRow::Ready(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::export::decisions_csv;
    use crate::core::lab::LabRun;
    use crate::core::url::parse_query;

    /// The stream's figures and CSV for a query's own traffic, and the page's.
    fn both(query: &str) -> ((Summary, String), (Summary, String)) {
        let state = parse_query(query).state;
        let page = LabRun::compute(&state);
        let mut rows = StreamRows::new(&state.settings, &state.algorithms);
        let mut csv = crate::core::export::csv_header::<Complete>(&state.settings);
        csv.push('\n');
        for (index, request) in page.trace.requests().iter().enumerate() {
            let arrival = Arrival {
                index,
                at: request.at,
                key: page.trace.key_name(request.key),
                cost: request.cost,
            };
            rows.decide(arrival, Some(&mut csv));
        }
        rows.settle_rest(Some(&mut csv));
        (
            (rows.finish(), csv),
            (Summary::of_run(&page), decisions_csv::<Complete>(&page)),
        )
    }

    #[test]
    fn streamed_rows_give_the_pages_figures_and_csv_for_every_algorithm_and_product() {
        for query in [
            "pattern=several-keys&algos=fixed,sliding-log,sliding-counter,token-bucket,gcra,leaky-bucket",
            "pattern=retry-storm&limit=3&window=2&algos=nginx,governor,redis-cell,upstash-fixed,upstash-sliding,upstash-token,envoy,cf-binding",
            "pattern=double&leak-delay=2&leak-burst=6&algos=leaky-bucket,nginx&nginx-burst=6&nginx-delay=2",
            "pattern=poisson&seed=7&limit=20&window=1&algos=leaky-bucket,token-bucket",
            "limit=2&window=10&trace=0@a,0@a,1*3@b,5@a,600*17@k,600.5@k&algos=fixed,gcra,redis-cell,governor,leaky-bucket",
            "pattern=several-keys&window=0.01&algos=envoy,fixed",
            "pattern=burst-trickle&limit=2&window=1&dotnet-queue=3&dotnet-order=newest&algos=fixed,dotnet-fixed,dotnet-sliding,dotnet-token",
            "limit=2&window=1&trace=0,0.1,0.2,0.3,0.4,0.5,1.2,2.5&dotnet-queue=3&dotnet-order=newest&algos=dotnet-fixed,fixed",
            "pattern=several-keys&instances=3&algos=fixed,sliding-log,token-bucket,leaky-bucket,envoy,cf-binding",
            "pattern=poisson&instances=4&spread=random&seed=5&algos=sliding-counter,gcra,governor,express-rate-limit",
            "pattern=several-keys&instances=5&spread=key&algos=fixed,sliding-log,redis-cell",
            "pattern=burst-trickle&limit=2&window=1&instances=2&dotnet-queue=3&dotnet-order=newest&algos=dotnet-fixed,dotnet-token",
            "pattern=steady&count-refused=1&fixed-align=first&algos=fixed,sliding-log,sliding-counter",
            "pattern=several-keys&also=2/1&algos=fixed,sliding-log,token-bucket,leaky-bucket,nginx,express-rate-limit",
            "pattern=several-keys&also=3/5&also-key=prefix&spend=passed&instances=2&algos=sliding-counter,gcra,governor,upstash-sliding,limits-moving",
            "pattern=retry-storm&also=1/1&spend=passed&algos=leaky-bucket,dotnet-token,guava,x-time-rate",
        ] {
            let ((streamed, streamed_csv), (page, page_csv)) = both(query);
            assert_eq!(streamed, page, "{query}");
            assert!(streamed_csv == page_csv, "{query}: the CSV differs");
        }
    }

    #[test]
    fn each_keys_express_rows_name_their_own_partition_key_streamed_and_on_the_page() {
        let ((_, streamed), (_, page)) =
            both("limit=9&window=2&trace=0,0.5@203.0.113.14,1&algos=express-rate-limit");
        assert_eq!(streamed, page);
        let rows: Vec<&str> = streamed.lines().skip(1).collect();
        assert_eq!(rows.len(), 3);
        for (row, pk) in rows.iter().zip([
            "pk=:MzE2YTI4NDk5YjMw:",
            "pk=:MjMwZWYwZmI3MjFl:",
            "pk=:MzE2YTI4NDk5YjMw:",
        ]) {
            assert!(row.contains(pk), "{row} should name {pk}");
        }
        assert!(rows[1].contains("\"\"9-in-2sec\"\"; q=9; w=2; pk=:MjMwZWYwZmI3MjFl:"));
    }

    #[test]
    fn the_moving_windows_shared_storage_timer_streams_as_on_the_page() {
        for query in [
            "limit=1&window=1&trace=0@a,0.99@b,1@a&algos=limits-moving",
            "limit=1&window=1&trace=0@a,0.98@b,1@a,1.5@c,2@b&instances=2&algos=limits-moving",
            "pattern=several-keys&limit=3&window=2&algos=limits-moving,limits-fixed",
        ] {
            let ((streamed, streamed_csv), (page, page_csv)) = both(query);
            assert_eq!(streamed, page, "{query}");
            assert!(streamed_csv == page_csv, "{query}: the CSV differs");
        }
        let ((streamed, _), _) = both("limit=1&window=1&trace=0@a,0.99@b,1@a&algos=limits-moving");
        assert_eq!(
            streamed.rows[0].rejected, 0,
            "the timer b started pruned a's entry"
        );
    }

    #[test]
    fn a_delayed_request_counts_in_the_window_it_is_released_in() {
        let ((streamed, _), (page, _)) = both(
            "limit=4&window=1&trace=0,0,0,0,0,0,0,0,0.1,0.2,0.9,1.0,1.05&algos=leaky-bucket&leak-burst=8",
        );
        assert!(streamed.rows[0].delayed > 0);
        assert_eq!(streamed, page);
    }
}
