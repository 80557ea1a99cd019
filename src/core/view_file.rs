//! A view as one file, to take it to another browser or person: the view's query on a first
//! comment line, then its trace as the CSV the import reads.
//!
//! ```text
//! # ratelab view: limit=3&window=2&algos=fixed,gcra
//! time,key,region,route,cost
//! 0.5,"acme, inc",,,1
//! 1.25,tenant:b,fra,"GET /a,b",17
//! ```
//!
//! The query is the link's (`core::url::to_query`) without its traffic fields (`trace`,
//! `pattern`, `compose`): the rows are the traffic, every request the view runs, in time order,
//! whatever made it (a preset, composed segments, a kept trace). Keys are written as the CSV
//! export writes them (`core::export::key_field`: RFC 4180 quoting, the `'` guard before a key a
//! spreadsheet would take for a formula), routes quoted the same way, times in exact decimal
//! seconds (`time::format_seconds`, to the microsecond). Since `#` starts a comment for the
//! import (`core::import`), the file is plain traffic too: the import panel and
//! `ratelab --traffic` read its rows, and the first line (`import::VIEW_LINE_PREFIX`) tells
//! them to keep its times as written. Reading a view file gives the query and the requests back
//! exactly; `ratelab` applies the query when no other is given (`cli::source`).

use super::export::{key_field, push_field};
use super::import::{view_line_query, Format, ImportErrors, Imported, Reader, VIEW_LINE_PREFIX};
use super::lab_state::{KeptTrace, LabState};
use super::time::format_seconds;
use super::traffic::{Pattern, Trace};
use super::url::{parse_query, to_query, Parsed};

/// The CSV header line under the view line.
pub const HEADER: &str = "time,key,region,route,cost";

/// The name the page gives a downloaded view file.
pub const FILE_NAME: &str = "ratelab-view.csv";

/// The query fields that carry traffic, which a view file's rows replace.
const TRAFFIC_FIELDS: [&str; 3] = ["trace", "pattern", "compose"];

/// The view's query without its traffic fields: what a view file's first line carries.
pub fn view_query(state: &LabState) -> String {
    let mut state = state.clone();
    // A kept trace's id means nothing to another browser; the rows carry the trace.
    state.kept = KeptTrace::No;
    let query = to_query(&state);
    query
        .split('&')
        .filter(|part| {
            let name = part.split_once('=').map_or(*part, |(name, _)| name);
            !part.is_empty() && !TRAFFIC_FIELDS.contains(&name)
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The view file of `state` whose traffic is `trace` (the trace the view runs).
pub fn write(state: &LabState, trace: &Trace) -> String {
    write_query(&view_query(state), trace)
}

/// A view file of `query` (without traffic fields) and `trace`.
pub fn write_query(query: &str, trace: &Trace) -> String {
    let mut out = String::with_capacity(64 + trace.len() * 24);
    out.push_str(VIEW_LINE_PREFIX);
    out.push(' ');
    out.push_str(query);
    out.push('\n');
    out.push_str(HEADER);
    out.push('\n');
    for point in Pattern::points_of(trace) {
        out.push_str(&format_seconds(point.at.micros()));
        out.push(',');
        out.push_str(&key_field(&point.key));
        out.push(',');
        if let Some(region) = point.origin {
            out.push_str(region.code());
        }
        out.push(',');
        if let Some(route) = &point.route {
            push_field(&mut out, route);
        }
        out.push(',');
        out.push_str(&point.cost.to_string());
        out.push('\n');
    }
    out
}

/// A view file read back: its query and its requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewFile {
    /// The query of the first line (no traffic fields, when the lab wrote it).
    pub query: String,
    /// The rows, as the import reads them (times kept as written).
    pub imported: Imported,
}

/// Why a text is not a view file that can be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewFileError {
    /// Its first line is not `# ratelab view: <query>`: plain traffic, or not traffic at all.
    NotAViewFile,
    /// The first line is there, but rows could not be read.
    Rows(ImportErrors),
}

impl ViewFileError {
    /// What to tell a person, one sentence per line.
    pub fn describe(&self) -> Vec<String> {
        match self {
            ViewFileError::NotAViewFile => vec![format!(
                "This is not a view file: its first line does not start with \"{VIEW_LINE_PREFIX}\". To use its requests as traffic, upload it under \"Use your own traffic\"."
            )],
            ViewFileError::Rows(errors) => {
                let mut lines = vec!["These lines of the view file could not be read:".into()];
                lines.extend(errors.describe());
                lines
            }
        }
    }
}

/// Whether `text` starts with a view file's first line.
pub fn is_view_file(text: &str) -> bool {
    text.lines().next().and_then(view_line_query).is_some()
}

/// Reads a view file: the query of its first line and its rows.
pub fn read(text: &str) -> Result<ViewFile, ViewFileError> {
    let query = text
        .lines()
        .next()
        .and_then(view_line_query)
        .ok_or(ViewFileError::NotAViewFile)?
        .to_string();
    let mut reader = Reader::new(Format::Csv);
    reader.read(text);
    let imported = reader.finish().map_err(ViewFileError::Rows)?;
    Ok(ViewFile { query, imported })
}

impl ViewFile {
    /// The view: the query's state (and what it corrected), with the file's rows as its traffic.
    pub fn into_state(self) -> Parsed {
        let mut parsed = parse_query(&self.query);
        let state = &mut parsed.state;
        state.pattern = self.imported.into_pattern();
        state.compose.clear();
        state.kept = KeptTrace::No;
        parsed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::region::Region;
    use crate::core::time::Time;
    use crate::core::traffic::Point;

    /// Keys of every character a key may hold.
    const KEYS: [&str; 14] = [
        "acme, inc",
        "say \"hi\"",
        "100%",
        "a&b",
        "#hash",
        "1+1",
        "x=y",
        "a;b",
        "two words",
        "Zürich ünïcödé",
        "東京",
        "🚀 rocket",
        "=cmd()",
        "'quoted",
    ];

    fn trace_of(points: Vec<Point>) -> Trace {
        Pattern::from_points(points).generate(5, crate::core::time::Span::from_secs(10))
    }

    fn state_with(query: &str, points: Vec<Point>) -> LabState {
        let mut state = parse_query(query).state;
        state.pattern = Pattern::from_points(points);
        state
    }

    #[test]
    fn a_view_file_reads_back_its_query_and_every_request_exactly() {
        let points: Vec<Point> = KEYS
            .iter()
            .enumerate()
            .map(|(i, key)| Point {
                at: Time(1_000_000 * i as u64 + 123_457),
                key: key.to_string(),
                origin: (i % 3 == 0).then_some(Region::Sydney),
                route: (i % 2 == 0).then(|| format!("POST /a,\"b\" {key}")),
                cost: 1 + i as u32 * 7,
            })
            .collect();
        let state = state_with("limit=3&window=2.5&algos=fixed,gcra", points.clone());
        let trace = trace_of(points.clone());
        let text = write(&state, &trace);
        assert!(
            text.starts_with("# ratelab view: limit=3&window=2.5&algos=fixed,gcra\n"),
            "{text}"
        );
        let read = read(&text).unwrap();
        assert_eq!(read.query, "limit=3&window=2.5&algos=fixed,gcra");
        assert_eq!(read.imported.format, Format::Csv);
        let back = read.into_state();
        assert!(back.notices.is_empty(), "{:?}", back.notices);
        assert_eq!(back.state, state);
        assert_eq!(Pattern::points_of(&trace), points);
    }

    #[test]
    fn the_query_leaves_out_the_traffic_fields_and_the_rows_carry_the_traffic() {
        let mut state = parse_query("limit=4&pattern=steady&compose=3@1&seed=9").state;
        state.kept = KeptTrace::Kept("0123456789abcdef".into());
        let query = view_query(&state);
        assert!(!query.contains("pattern") && !query.contains("compose"));
        assert!(!query.contains("trace"), "{query}");
        assert!(
            query.contains("limit=4") && query.contains("seed=9"),
            "{query}"
        );
        let trace = state
            .traffic()
            .generate(state.settings.limit, state.settings.window);
        let text = write(&state, &trace);
        let back = read(&text).unwrap().into_state().state;
        let again = back
            .traffic()
            .generate(back.settings.limit, back.settings.window);
        assert_eq!(again, trace, "60 steady requests and 3 composed ones");
        assert_eq!(back.settings, state.settings);
    }

    #[test]
    fn a_trace_of_the_default_key_reads_back_as_a_plain_time_list() {
        let times = vec![Time(0), Time(1), Time(999_999), Time(2_000_000_000_000)];
        let state = state_with(
            "",
            times
                .iter()
                .map(|&t| Point::new(t, crate::core::traffic::DEFAULT_KEY))
                .collect(),
        );
        let trace = state
            .traffic()
            .generate(5, crate::core::time::Span::from_secs(10));
        let back = read(&write(&state, &trace)).unwrap().into_state().state;
        assert_eq!(back.pattern, Pattern::Trace(std::sync::Arc::new(times)));
    }

    #[test]
    fn times_past_the_year_2000_are_kept_as_written_not_shifted_as_epoch_times() {
        let points = vec![
            Point::new(Time(1_733_050_000_250_001), "a"),
            Point::new(Time(1_733_050_001_000_000), "b"),
        ];
        let state = state_with("", points.clone());
        let text = write(&state, &trace_of(points.clone()));
        let read = read(&text).unwrap();
        assert!(read.imported.notes.is_empty(), "{:?}", read.imported.notes);
        assert_eq!(read.into_state().state.pattern, state.pattern);
        let plain = crate::core::import::import(&text).unwrap();
        assert_eq!(
            plain.requests[0].at,
            Time(1_733_050_000_250_001),
            "the plain import keeps them too"
        );
    }

    #[test]
    fn the_plain_import_reads_a_view_file_as_its_rows() {
        let points = vec![
            Point::new(Time(500_000), "acme, inc"),
            Point::new(Time(2), "é"),
        ];
        let text = write(&state_with("limit=2", points.clone()), &trace_of(points));
        let plain = crate::core::import::import(&text).unwrap();
        assert_eq!(plain.format, Format::Csv);
        let keys: Vec<&str> = plain.requests.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["é", "acme, inc"], "in time order");
        assert_eq!(plain.skipped, 2, "the view line and the header");
    }

    #[test]
    fn a_text_without_the_view_line_is_refused_with_a_message_and_bad_rows_are_named() {
        assert_eq!(read("0,a\n1,b\n"), Err(ViewFileError::NotAViewFile));
        assert!(!is_view_file("# a comment\n0,a\n"));
        assert!(ViewFileError::NotAViewFile.describe()[0].contains("not a view file"));
        let bad =
            read("# ratelab view: limit=2\ntime,key,region,route,cost\n1,a,mars,,1\n").unwrap_err();
        let lines = bad.describe();
        assert!(
            lines[1].starts_with("line 3: \"mars\" is not a region"),
            "{lines:?}"
        );
        let empty = read("# ratelab view: limit=2\n").unwrap_err();
        assert!(matches!(empty, ViewFileError::Rows(_)));
    }

    #[test]
    fn a_query_field_the_lab_would_correct_is_a_notice_and_the_rows_still_open() {
        let back = read("# ratelab view: limit=0\n0,a\n").unwrap().into_state();
        assert_eq!(back.notices.len(), 1);
        assert_eq!(back.state.pattern.given_len(), 1);
    }
}
