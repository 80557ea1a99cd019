//! The view in words, for a picture that leaves the page: the caption under an exported PNG says
//! what a reader needs to read the charts without the page (the limit, the traffic, the rows,
//! every other setting the link carries, the stretch of time shown), and the link brings the
//! view back.

use super::lab::LabRun;
use super::lab_state::LabState;
use super::time::{format_seconds, Time};
use super::url::to_query;

/// The fields the caption's own sentences state, or that change only how the page looks: the
/// rest of a link's fields are listed as they are written.
const STATED: [&str; 12] = [
    "limit", "window", "trace", "pattern", "compose", "algos", "view", "lanes", "theme", "embed",
    "controls", "caption",
];

/// "8 s", "0.25 s", "1.5 s": one unit for every time in the caption.
fn seconds(t: Time) -> String {
    format!("{} s", format_seconds(t.micros()))
}

/// The caption's sentences for `state`, run as `run`, its timelines showing `from` to `to`.
pub fn caption_lines(state: &LabState, run: &LabRun, (from, to): (Time, Time)) -> Vec<String> {
    let settings = &run.settings;
    let keys = run.trace.keys().len();
    let mut lines = vec![
        format!(
            "Limit: {} requests per {} on each key.",
            settings.limit,
            seconds(Time(settings.window.micros()))
        ),
        format!(
            "Traffic: {}, {} requests from {} key{}, over {}{}.",
            state.pattern.label(),
            run.trace.len(),
            keys,
            if keys == 1 { "" } else { "s" },
            seconds(run.horizon),
            match state.compose.len() {
                0 => String::new(),
                n => format!(
                    ", with {n} composed segment{}",
                    if n == 1 { "" } else { "s" }
                ),
            }
        ),
    ];
    let mut rows: Vec<&str> = run.runs.iter().map(|r| r.algorithm.label()).collect();
    if matches!(run.durable, Some(Ok(_))) {
        rows.push("Durable Object");
    }
    lines.push(format!("Rows: {}.", rows.join(", ")));
    let query = to_query(state);
    let others: Vec<&str> = query
        .split('&')
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or_default();
            !name.is_empty() && !STATED.contains(&name)
        })
        .collect();
    if !others.is_empty() {
        lines.push(format!("Also set: {}.", others.join(", ")));
    }
    if from > Time::ZERO || to < run.horizon {
        lines.push(format!(
            "Showing {} to {} of {}.",
            seconds(from),
            seconds(to),
            seconds(run.horizon)
        ));
    }
    if let Some(error) = &run.error {
        lines.push(error.clone());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::url::parse_query;

    fn caption(query: &str, shown: Option<(u64, u64)>) -> Vec<String> {
        let state = parse_query(query).state;
        let run = LabRun::compute(&state);
        let (from, to) = shown.map_or((Time::ZERO, run.horizon), |(a, b)| {
            (Time::from_millis(a), Time::from_millis(b))
        });
        caption_lines(&state, &run, (from, to))
    }

    #[test]
    fn the_default_view_is_told_as_its_limit_traffic_and_rows() {
        assert_eq!(
            caption("", None),
            [
                "Limit: 5 requests per 10 s on each key.",
                "Traffic: Burst at the window edge, 10 requests from 1 key, over 20 s.",
                "Rows: Fixed window, Sliding log, Sliding-window counter, Token bucket, GCRA, Leaky bucket (nginx).",
            ]
        );
    }

    #[test]
    fn every_other_setting_of_the_link_is_listed_and_a_zoom_is_told() {
        let lines = caption(
            "limit=3&window=2.5&pattern=several-keys&algos=fixed,token-bucket&capacity=8&do=1&from=syd&seed=7&theme=dark&view=1-4&lanes=key",
            Some((1_000, 4_000)),
        );
        assert_eq!(lines[0], "Limit: 3 requests per 2.5 s on each key.");
        assert!(
            lines[1].starts_with("Traffic: Several keys at once, "),
            "{}",
            lines[1]
        );
        assert!(lines[1].contains(" from 3 keys, over "), "{}", lines[1]);
        assert_eq!(
            lines[2],
            "Rows: Fixed window, Token bucket, Durable Object."
        );
        // The theme, the view and the lanes change how it looks, not what it shows.
        assert_eq!(lines[3], "Also set: capacity=8, do=1, from=syd, seed=7.");
        assert!(
            lines[4].starts_with("Showing 1 s to 4 s of "),
            "{}",
            lines[4]
        );
    }

    #[test]
    fn composed_segments_are_counted_and_a_trace_is_not_spelled_out() {
        let lines = caption("trace=0,1,2@k&compose=5@1;2/s@0-3", None);
        assert!(
            lines[1].starts_with("Traffic: Your own request times, ")
                && lines[1].contains("from 2 keys")
                && lines[1].ends_with(", with 2 composed segments."),
            "{}",
            lines[1]
        );
        assert!(lines.iter().all(|l| !l.contains("trace=")));
    }
}
