//! Every decision on the page as CSV: one row per request and limiter, with the HTTP answer it
//! turned into, so a person can take the lab's result into a spreadsheet or a script.
//!
//! Columns: `time_s,key,limiter,outcome,status,headers`. Time is the request's own time in exact
//! decimal seconds (the Durable Object's rows use when the Worker sent the call, retries
//! included); `headers` joins the response's headers as `Name: value; Name: value`. Fields are
//! quoted as RFC 4180 asks, and a key that a spreadsheet would read as a formula (`=`, `+`, `-`,
//! `@`) is prefixed with `'`, because keys come from whatever a person pasted.

use super::http::{respond, HttpResponse, Policy};
use super::lab::LabRun;
use super::run::{AlgorithmRun, DecisionReplay};
use super::time::format_seconds;

pub const CSV_HEADER: &str = "time_s,key,limiter,outcome,status,headers";

/// The whole run as CSV text, rows in request order and, per request, in row order.
pub fn decisions_csv(run: &LabRun) -> String {
    let requests = run.trace.requests();
    let policy = Policy::new("default", run.settings.limit, run.settings.window);
    let mut out = String::with_capacity(64 * requests.len() * (run.runs.len() + 1) + 64);
    out.push_str(CSV_HEADER);
    out.push('\n');
    // The runs keep verdicts only: each row's full decisions are made again, in order.
    let mut replays: Vec<(&AlgorithmRun, DecisionReplay)> =
        run.runs.iter().filter_map(|r| Some((r, DecisionReplay::new(&run.trace, r.algorithm, &run.settings).ok()?))).collect();
    for request in requests {
        for (algorithm_run, replay) in &mut replays {
            let decision = replay.decide(request);
            let response = respond(&policy, &decision);
            let time = format_seconds(request.at.micros());
            push_row(&mut out, &time, run.trace.key_name(request.key), algorithm_run.algorithm.slug(), decision.verdict.word(), &response);
        }
    }
    if let Some(Ok(report)) = &run.durable {
        for record in &report.records {
            let response = report.response(record);
            let time = format_seconds(record.sent.micros());
            push_row(&mut out, &time, run.trace.key_name(record.key), "do", record.outcome.word(), &response);
        }
    }
    out
}

fn push_row(out: &mut String, time: &str, key: &str, limiter: &str, outcome: &str, response: &HttpResponse) {
    let headers: Vec<String> = response.headers.iter().map(|(name, value)| format!("{name}: {value}")).collect();
    let key = if key.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{key}") } else { key.to_string() };
    for (i, field) in [time, &key, limiter, outcome, &response.status.to_string(), &headers.join("; ")].into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_field(out, field);
    }
    out.push('\n');
}

fn push_field(out: &mut String, field: &str) {
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
    use crate::core::url_state::parse_query;

    fn csv_for(query: &str) -> String {
        decisions_csv(&LabRun::compute(&parse_query(query).state))
    }

    #[test]
    fn each_request_gets_one_row_per_algorithm_with_its_status_and_headers() {
        let csv = csv_for("limit=2&window=10&trace=0,1,2&algos=fixed,gcra");
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], CSV_HEADER);
        assert_eq!(lines.len(), 1 + 3 * 2);
        assert!(lines[1].starts_with("0,tenant:demo,fixed,allowed,200,\"RateLimit-Policy: \"\"default\"\";q=2;w=10; "), "{}", lines[1]);
        assert!(lines[2].starts_with("0,tenant:demo,gcra,allowed,200,"), "{}", lines[2]);
        // The third request is over the limit of 2 in the fixed window that started at 0.
        assert!(lines[5].starts_with("2,tenant:demo,fixed,rejected,429,\"Retry-After: 8; "), "{}", lines[5]);
    }

    #[test]
    fn the_durable_objects_rows_follow_with_its_own_outcomes() {
        let csv = csv_for("limit=2&window=10&trace=0,1,2&algos=fixed&do=1");
        let do_rows: Vec<&str> = csv.lines().filter(|l| l.split(',').nth(2) == Some("do")).collect();
        assert_eq!(do_rows.len(), 3);
        assert!(do_rows[2].contains(",rejected,429,"), "{}", do_rows[2]);
    }

    #[test]
    fn keys_that_look_like_formulas_or_hold_commas_are_made_harmless() {
        let mut state = parse_query("limit=2&window=10&algos=fixed").state;
        state.pattern = Pattern::Keyed(vec![Point::new(Time::ZERO, "=cmd()"), Point::new(Time::from_secs(1), "a,b")].into());
        let csv = decisions_csv(&LabRun::compute(&state));
        assert!(csv.contains("\n0,'=cmd(),fixed,"), "{csv}");
        assert!(csv.contains("\n1,\"a,b\",fixed,"), "{csv}");
    }
}
