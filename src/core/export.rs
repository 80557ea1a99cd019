//! Every decision on the page as CSV: one row per request and limiter, with the HTTP answer it
//! turned into, so a person can take the lab's result into a spreadsheet or a script.
//!
//! Columns: `time_s,key,limiter,outcome,status,headers`, then `copy` (1 to `instances`) when the
//! rows run as several copies (`core::deployment`) and `refused_by` (`first`, `second` or empty)
//! when they have a second limit (`core::second_limit`), and `try` (0 for a client's first try,
//! then 1, 2, ... for its retries) when clients obey (`core::retries`); the Durable Object's rows
//! leave them empty. With clients that obey, each row has traffic of its own, so the lines come a
//! row at a time, each row's in the order it decided them, instead of request by request. Time is the request's own time in exact
//! decimal seconds (the Durable Object's rows use when the Worker sent the call, retries
//! included); `status` and `headers` are the response the row's client receives (a product's own,
//! `profiles::response`), the headers joined as `Name: value; Name: value`. Fields are
//! quoted as RFC 4180 asks, and a key that a spreadsheet would read as a formula (`=`, `+`, `-`,
//! `@`) is prefixed with `'`, because keys come from whatever a person pasted; so is a key that
//! starts with `'` itself, so that the importer, which drops that one `'` (`core::import`),
//! reads every key back as it was ([`key_field`]).

use std::sync::Arc;

use super::deployment::Placement;
use super::http::HttpResponse;
use super::job::{Job, Progress, Step};
use super::lab::LabRun;
use super::limiter::{Algorithm, Complete, Parts, Settings};
use super::linking::Linking;
use super::retries::{ClientLoop, Tried};
use super::row_response::row_response;
use super::run::{with_final_verdict, DecisionReplay};
use super::second_limit::RefusedBy;
use super::time::format_seconds;

pub const CSV_HEADER: &str = "time_s,key,limiter,outcome,status,headers";

/// The header line (without its line break) for a run under `settings`.
pub fn csv_header<C: Linking>(settings: &Settings) -> String {
    format!("{CSV_HEADER}{}", ExtraColumns::of::<C>(settings).header())
}

/// The columns a run's settings add after `headers`.
#[derive(Clone, Copy, Debug)]
pub struct ExtraColumns {
    copies: bool,
    second_limit: bool,
    tries: bool,
}

impl ExtraColumns {
    /// The columns the rules in force add, in a program that runs them (`Linking::RULES`).
    pub fn of<C: Linking>(settings: &Settings) -> ExtraColumns {
        let rules = settings.rules_in::<C>();
        ExtraColumns {
            copies: rules.copies,
            second_limit: rules.second_limit,
            tries: rules.obeying_clients,
        }
    }

    fn header(self) -> String {
        self.values_as(Some("copy"), Some("refused_by"), Some("try"))
    }

    /// The added fields of one row, each with its leading comma: the copy that decided it (from
    /// 1) and the limit that refused it.
    pub fn values(self, copy: Option<u32>, refused_by: Option<RefusedBy>) -> String {
        self.values_of_try(copy, refused_by, None)
    }

    /// [`ExtraColumns::values`] and, with clients that obey, which try of its client a row is
    /// (0 for the first).
    pub fn values_of_try(
        self,
        copy: Option<u32>,
        refused_by: Option<RefusedBy>,
        number: Option<u32>,
    ) -> String {
        let copy = copy.map(|c| c.to_string());
        let number = number.map(|n| n.to_string());
        self.values_as(
            copy.as_deref(),
            refused_by.map(RefusedBy::word),
            number.as_deref(),
        )
    }

    fn values_as(
        self,
        copy: Option<&str>,
        refused_by: Option<&str>,
        number: Option<&str>,
    ) -> String {
        let mut out = String::new();
        for (shown, value) in [
            (self.copies, copy),
            (self.second_limit, refused_by),
            (self.tries, number),
        ] {
            if shown {
                out.push(',');
                out.push_str(value.unwrap_or(""));
            }
        }
        out
    }
}

/// The whole run as CSV text, rows in request order and, per request, in row order.
pub fn decisions_csv<C: Parts>(run: &LabRun) -> String {
    let mut out = String::new();
    let mut writer = CsvWriter::<C>::new(run);
    while writer.write(run, &mut out, usize::MAX) {}
    out
}

/// Writes a run's CSV a piece at a time: a million requests through six limiters make seven
/// million rows, far more than a page can write in one go (or hold as one string).
pub struct CsvWriter<C: Parts = Complete> {
    /// Each limiter row's full decisions, made again in order (the runs keep verdicts only),
    /// with the row's place in the run's rows.
    replays: Vec<(Algorithm, usize, DecisionReplay<C>)>,
    /// Which copy decided each request, for the `copy` column.
    placement: Placement,
    extra: ExtraColumns,
    /// With clients that obey: each row's own traffic, written a row at a time.
    clients: Option<ObeyingRows<C>>,
    /// The header is written.
    started: bool,
    /// The next request of the trace, then the next record of the Durable Object.
    next: usize,
    next_record: usize,
}

/// Where the CSV of obeying clients stands: each row has traffic of its own (`super::retries`),
/// so its lines are written a row after another, in the order the row decided its tries.
struct ObeyingRows<C: Parts = Complete> {
    /// The place in the run's rows of the row being written.
    row: usize,
    /// Its clients (`None` for a row that refused the settings).
    clients: Option<ClientLoop<C>>,
    /// Rows written in full.
    done: usize,
}

impl<C: Parts> CsvWriter<C> {
    pub fn new(run: &LabRun) -> CsvWriter<C> {
        let replays = run
            .runs
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                Some((
                    r.algorithm,
                    i,
                    DecisionReplay::new(&run.trace, r.algorithm, &run.settings).ok()?,
                ))
            })
            .collect();
        let clients = (run.settings.rules_in::<C>().obeying_clients).then(|| ObeyingRows {
            row: 0,
            clients: run
                .runs
                .first()
                .and_then(|r| ClientLoop::<C>::new(&run.trace, r.algorithm, &run.settings).ok()),
            done: 0,
        });
        CsvWriter {
            replays,
            clients,
            placement: run.settings.deployment.placement::<C>(&run.trace),
            extra: ExtraColumns::of::<C>(&run.settings),
            started: false,
            next: 0,
            next_record: 0,
        }
    }

    /// Appends the rows of up to `requests` more requests (or Durable Object records) of `run`,
    /// the header first; false once every row is written.
    pub fn write(&mut self, run: &LabRun, out: &mut String, requests: usize) -> bool {
        let all = run.trace.requests();
        if !self.started {
            self.started = true;
            out.push_str(&csv_header::<C>(&run.settings));
            out.push('\n');
        }
        let requests = requests.max(1);
        // (Never in a program without the rules, which runs no obeying clients.)
        if C::RULES && self.clients.is_some() {
            return self.write_obeying(run, out, requests);
        }
        let to = self.next.saturating_add(requests).min(all.len());
        for (index, request) in all.iter().enumerate().take(to).skip(self.next) {
            let time = format_seconds(request.at.micros());
            let copy = self.placement.copy_column(index, request.key);
            for (algorithm, row, replay) in &mut self.replays {
                let (mut decision, reply, refused_by) = replay.decide_with_cause(request);
                // A verdict settled after its decision (.NET's NewestFirst queue): the run
                // holds the final one.
                if let Some(verdict) = run.runs.get(*row).and_then(|r| r.verdicts.get(index)) {
                    decision = with_final_verdict(decision, verdict);
                }
                let response =
                    row_response::<C>(*algorithm, &run.settings, &decision, reply.as_ref());
                push_row(
                    out,
                    &time,
                    run.trace.key_name(request.key),
                    algorithm.slug(),
                    decision.verdict.word(),
                    &response,
                    &self.extra.values(copy, refused_by),
                );
            }
        }
        let budget = requests - (to - self.next);
        self.next = to;
        self.write_records(run, out, budget)
    }

    /// [`CsvWriter::write`] with clients that obey: up to `requests` more first tries of the
    /// row being written (and the retries due before them; a row's last retries once its
    /// trace is done), then the next row, then the Durable Object's records.
    fn write_obeying(&mut self, run: &LabRun, out: &mut String, requests: usize) -> bool {
        let all = run.trace.requests();
        let Some(obeying) = &mut self.clients else {
            return false;
        };
        let Some(row) = run.runs.get(obeying.row) else {
            self.next = all.len();
            return self.write_records(run, out, requests);
        };
        let to = self.next.saturating_add(requests).min(all.len());
        if let Some(clients) = &mut obeying.clients {
            let (placement, extra, settings) = (&self.placement, self.extra, &run.settings);
            let mut write = |tried: &Tried| {
                let attempt = &tried.attempt;
                // A loop made with `ClientLoop::new` gives every full answer.
                let (Some(request), Some(decision)) = (all.get(attempt.client), tried.decision)
                else {
                    return;
                };
                let response = row_response::<C>(row.algorithm, settings, decision, tried.reply);
                push_row(
                    out,
                    &format_seconds(attempt.at.micros()),
                    run.trace.key_name(request.key),
                    row.algorithm.slug(),
                    decision.verdict.word(),
                    &response,
                    &extra.values_of_try(
                        placement.copy_column(attempt.client, request.key),
                        tried.refused_by,
                        Some(attempt.number),
                    ),
                );
            };
            let first_tries = all.iter().enumerate().take(to).skip(self.next);
            clients.advance(&run.trace, first_tries, &mut write);
            if to == all.len() {
                clients.finish(&run.trace, &mut write);
            }
        }
        self.next = to;
        if self.next < all.len() {
            return true;
        }
        // The row is written: on to the next, from the trace's start.
        obeying.done += 1;
        obeying.row += 1;
        obeying.clients = run
            .runs
            .get(obeying.row)
            .and_then(|r| ClientLoop::<C>::new(&run.trace, r.algorithm, &run.settings).ok());
        if obeying.row < run.runs.len() {
            self.next = 0;
            return true;
        }
        self.write_records(run, out, requests)
    }

    /// The Durable Object's records, up to `budget` more, once every row is written.
    fn write_records(&mut self, run: &LabRun, out: &mut String, budget: usize) -> bool {
        let all = run.trace.requests();
        let Some(Ok(report)) = run.durable.as_ref().filter(|_| C::DURABLE) else {
            return self.next < all.len();
        };
        if self.next < all.len() {
            return true;
        }
        let to = self
            .next_record
            .saturating_add(budget)
            .min(report.records.len());
        for record in &report.records[self.next_record..to] {
            let time = format_seconds(record.sent.micros());
            push_row(
                out,
                &time,
                run.trace.key_name(record.key),
                "do",
                record.outcome.word(),
                &report.response(record),
                // One object per key, with one limit: no copy, no second limit.
                &self.extra.values(None, None),
            );
        }
        self.next_record = to;
        self.next_record < report.records.len()
    }

    /// Requests and records written so far, and how many there are.
    pub fn progress(&self, run: &LabRun) -> (usize, usize) {
        let records = run
            .durable
            .as_ref()
            .map_or(0, |d| d.as_ref().map_or(0, |r| r.records.len()));
        match &self.clients {
            // Each row walks the trace once.
            Some(obeying) => {
                let rows = run.runs.len().max(1);
                let done = obeying.done.min(rows) * run.trace.len();
                let current = if obeying.done < rows { self.next } else { 0 };
                (
                    done + current + self.next_record,
                    rows * run.trace.len() + records,
                )
            }
            None => (self.next + self.next_record, run.trace.len() + records),
        }
    }
}

/// Writing a run's CSV as a [`Job`]: each step writes the rows of up to `budget` requests (or
/// Durable Object records) as a piece of text of its own, which the page takes away at the end
/// of each slice ([`CsvJob::take_pieces`]) so that no one string holds the whole file.
pub struct CsvJob<C: Parts = Complete> {
    run: Arc<LabRun>,
    writer: CsvWriter<C>,
    pieces: Vec<String>,
    more: bool,
}

impl<C: Parts> CsvJob<C> {
    pub fn new(run: Arc<LabRun>) -> CsvJob<C> {
        CsvJob {
            writer: CsvWriter::new(&run),
            run,
            pieces: Vec::new(),
            more: true,
        }
    }

    /// The pieces written since the last call, in order.
    pub fn take_pieces(&mut self) -> Vec<String> {
        std::mem::take(&mut self.pieces)
    }
}

impl<C: Parts> Job for CsvJob<C> {
    /// The pieces not yet taken.
    type Output = Vec<String>;
    /// Requests whose rows make one piece: a few milliseconds of work, so that a slice ends
    /// close to its 16 ms even with every limiter and the Durable Object writing rows.
    const BUDGET: usize = 250;

    fn step(&mut self, budget: usize) -> Step {
        if !self.more {
            return Step::Done;
        }
        let mut piece = String::new();
        self.more = self.writer.write(&self.run, &mut piece, budget);
        self.pieces.push(piece);
        if self.more {
            Step::More
        } else {
            Step::Done
        }
    }

    fn progress(&self) -> Progress {
        let (done, total) = self.writer.progress(&self.run);
        Progress {
            what: "Writing the CSV",
            done,
            total,
        }
    }

    fn finish(mut self) -> Vec<String> {
        while self.step(usize::MAX) == Step::More {}
        self.pieces
    }
}

pub(crate) fn push_row(
    out: &mut String,
    time: &str,
    key: &str,
    limiter: &str,
    outcome: &str,
    response: &HttpResponse,
    extra: &str,
) {
    let mut headers = String::new();
    for (name, value) in &response.headers {
        if !headers.is_empty() {
            headers.push_str("; ");
        }
        headers.push_str(name);
        headers.push_str(": ");
        headers.push_str(value);
    }
    for (i, field) in [
        time,
        &guarded_key(key),
        limiter,
        outcome,
        &response.status.to_string(),
        &headers,
    ]
    .into_iter()
    .enumerate()
    {
        if i > 0 {
            out.push(',');
        }
        push_field(out, field);
    }
    out.push_str(extra);
    out.push('\n');
}

/// The characters a key may start with that a spreadsheet reads as a formula, and the `'` that
/// guards them: a key starting with one of these is written after a `'`.
pub const GUARDED_STARTS: [char; 7] = ['=', '+', '-', '@', '\t', '\r', '\''];

/// A key with its `'` guard when it needs one ([`GUARDED_STARTS`]).
fn guarded_key(key: &str) -> String {
    match key.starts_with(GUARDED_STARTS) {
        true => format!("'{key}"),
        false => key.to_string(),
    }
}

/// A key as the CSV's `key` column holds it: guarded, then quoted as RFC 4180 asks.
pub fn key_field(key: &str) -> String {
    let mut out = String::new();
    push_field(&mut out, &guarded_key(key));
    out
}

/// A field quoted as RFC 4180 asks when it holds a comma, a quote or a line break.
pub(crate) fn push_field(out: &mut String, field: &str) {
    if field.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::time::Time;
    use crate::core::traffic::{Pattern, Point};
    use crate::core::url::parse_query;

    fn csv_for(query: &str) -> String {
        decisions_csv::<Complete>(&LabRun::compute(&parse_query(query).state))
    }

    #[test]
    fn each_request_gets_one_row_per_algorithm_with_its_status_and_headers() {
        let csv = csv_for("limit=2&window=10&trace=0,1,2&algos=fixed,gcra");
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], CSV_HEADER);
        assert_eq!(lines.len(), 1 + 3 * 2);
        assert!(
            lines[1].starts_with(
                "0,tenant:demo,fixed,allowed,200,\"RateLimit-Policy: \"\"default\"\";q=2;w=10; "
            ),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].starts_with("0,tenant:demo,gcra,allowed,200,"),
            "{}",
            lines[2]
        );
        // The third request is over the limit of 2 in the fixed window that started at 0.
        assert!(
            lines[5].starts_with("2,tenant:demo,fixed,rejected,429,\"Retry-After: 8; "),
            "{}",
            lines[5]
        );
    }

    #[test]
    fn the_durable_objects_rows_follow_with_its_own_outcomes() {
        let csv = csv_for("limit=2&window=10&trace=0,1,2&algos=fixed&do=1");
        let do_rows: Vec<&str> = csv
            .lines()
            .filter(|l| l.split(',').nth(2) == Some("do"))
            .collect();
        assert_eq!(do_rows.len(), 3);
        assert!(do_rows[2].contains(",rejected,429,"), "{}", do_rows[2]);
    }

    #[test]
    fn written_a_few_requests_at_a_time_the_csv_is_the_same_as_written_at_once() {
        let run = LabRun::compute(
            &parse_query(
                "limit=2&window=10&pattern=several-keys&algos=fixed,gcra,leaky-bucket&do=1",
            )
            .state,
        );
        let whole = decisions_csv::<Complete>(&run);
        let mut pieces = String::new();
        let mut writer = CsvWriter::<Complete>::new(&run);
        let mut steps = 1;
        while writer.write(&run, &mut pieces, 3) {
            let (done, total) = writer.progress(&run);
            assert!(done < total);
            steps += 1;
        }
        let (done, total) = writer.progress(&run);
        assert_eq!(done, total);
        let records = run
            .durable
            .as_ref()
            .and_then(|d| d.as_ref().ok())
            .map_or(0, |r| r.records.len());
        assert_eq!(steps, (run.trace.len() + records).div_ceil(3));
        assert_eq!(pieces, whole);
        assert_eq!(whole.lines().count(), 1 + run.trace.len() * 3 + records);
    }

    #[test]
    fn keys_that_look_like_formulas_or_hold_commas_are_made_harmless() {
        let mut state = parse_query("limit=2&window=10&algos=fixed").state;
        state.pattern = Pattern::Keyed(
            vec![
                Point::new(Time::ZERO, "=cmd()"),
                Point::new(Time::from_secs(1), "a,b"),
            ]
            .into(),
        );
        let csv = decisions_csv::<Complete>(&LabRun::compute(&state));
        assert!(csv.contains("\n0,'=cmd(),fixed,"), "{csv}");
        assert!(csv.contains("\n1,\"a,b\",fixed,"), "{csv}");
    }

    #[test]
    fn a_key_starting_with_an_apostrophe_is_guarded_too_so_it_reads_back_whole() {
        assert_eq!(key_field("'quoted'"), "''quoted'");
        assert_eq!(key_field("-1"), "'-1");
        assert_eq!(key_field("say \"hi\", then"), "\"say \"\"hi\"\", then\"");
        assert_eq!(key_field("tenant:a"), "tenant:a");
    }

    #[test]
    fn the_csv_written_a_request_a_step_and_taken_in_pieces_is_the_whole_csv() {
        let run = Arc::new(LabRun::compute(
            &parse_query("pattern=several-keys&algos=fixed,gcra,leaky-bucket&do=1").state,
        ));
        let whole = decisions_csv::<Complete>(&run);
        for budget in [1, 7, 10_000] {
            let mut job = CsvJob::<Complete>::new(run.clone());
            let mut text = String::new();
            let mut steps = 0;
            while job.step(budget) == Step::More {
                steps += 1;
                if steps % 3 == 0 {
                    text.extend(job.take_pieces());
                }
            }
            assert_eq!(job.progress().permille(), 1000);
            text.extend(job.finish());
            assert_eq!(text, whole, "budget {budget}");
        }
        assert_eq!(
            crate::core::job::run_to_end(CsvJob::<Complete>::new(run.clone())).concat(),
            whole
        );
    }

    #[test]
    fn rows_with_a_second_limit_name_the_limit_that_refused_after_the_copy() {
        let csv = csv_for("pattern=steady&limit=2&algos=sliding-log&also=1/1&instances=2&do=1");
        let mut lines = csv.lines();
        assert_eq!(
            lines.next(),
            Some("time_s,key,limiter,outcome,status,headers,copy,refused_by")
        );
        let (log, object): (Vec<&str>, Vec<&str>) =
            lines.partition(|l| l.split(',').nth(2) == Some("sliding-log"));
        let ends = |rows: &[&str]| -> Vec<String> {
            rows.iter()
                .map(|l| {
                    let fields: Vec<&str> = l.rsplitn(3, ',').collect();
                    format!("{},{}", fields[1], fields[0])
                })
                .collect()
        };
        let log_ends = ends(&log);
        assert_eq!(log.len(), 60);
        assert_eq!(&log_ends[..3], ["1,", "2,", "1,"]);
        assert!(log_ends.iter().any(|e| e.ends_with(",first")));
        assert!(!object.is_empty());
        assert!(
            ends(&object).iter().all(|e| e == ","),
            "the Durable Object's rows"
        );
    }

    #[test]
    fn rows_run_as_copies_name_the_copy_that_decided_in_a_last_column() {
        let csv = csv_for("pattern=steady&algos=fixed&instances=2");
        let mut lines = csv.lines();
        assert_eq!(
            lines.next(),
            Some("time_s,key,limiter,outcome,status,headers,copy")
        );
        let copies: Vec<&str> = lines
            .take(4)
            .map(|l| l.rsplit(',').next().unwrap())
            .collect();
        assert_eq!(copies, ["1", "2", "1", "2"]);
        assert!(csv_for("pattern=steady&algos=fixed").starts_with(&format!("{CSV_HEADER}\n")));
    }
}
