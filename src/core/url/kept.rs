//! The two long steps of a trace kept in the browser (`trace=stored:<id>`, `super::trace_list`),
//! as jobs the page runs a slice at a time (`core::job`): writing a trace as its list while
//! hashing it for its id ([`KeepTrace`]), and reading the list back ([`ReadKeptTrace`]). For
//! 200,000 requests with keys (about 5.6 MB of text) each took about half a second in one piece
//! in headless Chromium; sliced, the page answers meanwhile. Whatever the slices, the output is
//! [`trace_list`]'s text with [`trace_id`]'s id, and [`parse_stored_trace`]'s requests.

use super::trace_list::{check_items, id_of, parse_item, push_item};
#[cfg(test)]
use super::trace_list::{trace_id, trace_list};
use crate::core::import::MAX_LINES;
use crate::core::job::{run_to_end, Job, Progress, Step};
use crate::core::sha256::Sha256;
use crate::core::traffic::{Pattern, Point, DEFAULT_KEY};

/// What the progress bar says while a kept trace is read back.
pub const OPENING: &str = "Opening your trace from this browser's IndexedDB";

/// A trace as the page keeps it: its list, and the id the link names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptText {
    pub text: String,
    pub id: String,
}

/// Writes a pattern's requests as a trace list, hashing the text as it grows.
pub struct KeepTrace {
    pattern: Pattern,
    next: usize,
    total: usize,
    text: String,
    hasher: Sha256,
}

impl KeepTrace {
    pub fn new(pattern: Pattern) -> KeepTrace {
        KeepTrace {
            total: pattern.given_len(),
            pattern,
            next: 0,
            text: String::new(),
            hasher: Sha256::new(),
        }
    }
}

impl Job for KeepTrace {
    type Output = KeptText;
    /// Requests written per step.
    const BUDGET: usize = 1_000;

    fn step(&mut self, budget: usize) -> Step {
        let to = self.next.saturating_add(budget.max(1)).min(self.total);
        let from = self.text.len();
        for i in self.next..to {
            if i > 0 {
                self.text.push(',');
            }
            match &self.pattern {
                Pattern::Trace(times) => {
                    push_item(&mut self.text, &Point::new(times[i], DEFAULT_KEY))
                }
                Pattern::Keyed(points) => push_item(&mut self.text, &points[i]),
                _ => {}
            }
        }
        self.hasher.update(&self.text.as_bytes()[from..]);
        self.next = to;
        match self.next == self.total {
            true => Step::Done,
            false => Step::More,
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            what: "Keeping your trace in this browser",
            done: self.next,
            total: self.total,
        }
    }

    fn finish(mut self) -> KeptText {
        while self.step(usize::MAX) == Step::More {}
        KeptText {
            id: id_of(&self.hasher.finish()),
            text: self.text,
        }
    }
}

/// Reads a kept trace list back, as [`super::parse_trace_items`] reads it with room for the
/// importer's line limit: the whole list is refused on the first bad item, with its position.
pub struct ReadKeptTrace {
    /// The list as kept, its names still escaped: each is decoded once its item is split off
    /// (`parse_item`), so a key holding a comma stays one key.
    text: String,
    /// Where the next item starts; past the end once every item is read.
    at: usize,
    /// The next item's index, from 0.
    index: usize,
    total: usize,
    points: Vec<Point>,
    error: Option<String>,
}

impl ReadKeptTrace {
    pub fn new(kept: &str) -> ReadKeptTrace {
        let text = kept.to_string();
        let total = text.split(',').count();
        let error = check_items(
            text.split(',').all(|s| s.trim().is_empty()),
            total,
            MAX_LINES,
        )
        .err();
        ReadKeptTrace {
            at: if error.is_some() { text.len() + 1 } else { 0 },
            points: Vec::with_capacity(if error.is_some() { 0 } else { total }),
            text,
            index: 0,
            total,
            error,
        }
    }
}

impl Job for ReadKeptTrace {
    type Output = Result<Vec<Point>, String>;
    /// Items read per step.
    const BUDGET: usize = 1_000;

    fn step(&mut self, budget: usize) -> Step {
        for _ in 0..budget.max(1) {
            if self.at > self.text.len() {
                return Step::Done;
            }
            let end = self.text[self.at..]
                .find(',')
                .map_or(self.text.len(), |j| self.at + j);
            let item = self.text[self.at..end].trim();
            let (i, last) = (self.index, end == self.text.len());
            self.index += 1;
            if !(item.is_empty() && last) {
                match parse_item(i, item) {
                    Ok(point) => self.points.push(point),
                    Err(e) => {
                        self.error = Some(e);
                        self.at = self.text.len() + 1;
                        return Step::Done;
                    }
                }
            }
            self.at = end + 1;
        }
        match self.at > self.text.len() {
            true => Step::Done,
            false => Step::More,
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            what: OPENING,
            done: self.index.min(self.total),
            total: self.total,
        }
    }

    fn finish(mut self) -> Result<Vec<Point>, String> {
        while self.step(usize::MAX) == Step::More {}
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.points),
        }
    }
}

/// Reads a trace the page kept in the browser (written by [`trace_list`]), up to the importer's
/// line limit: [`ReadKeptTrace`] at once.
pub fn parse_stored_trace(text: &str) -> Result<Vec<Point>, String> {
    run_to_end(ReadKeptTrace::new(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::job::tests::run_in_steps;
    use crate::core::region::Region;
    use crate::core::time::Time;
    use crate::core::url::parse_trace_items;
    use std::sync::Arc;

    fn keyed_points() -> Vec<Point> {
        (0..2_500u64)
            .map(|i| {
                let mut p = Point::new(Time(i * 1_000), if i % 3 == 0 { "a b" } else { "k" });
                p.cost = 1 + (i % 2) as u32;
                if i % 5 == 0 {
                    p.origin = Some(Region::Sydney);
                    p.route = Some("POST /login".into());
                }
                p
            })
            .collect()
    }

    fn keyed() -> Pattern {
        Pattern::Keyed(Arc::new(keyed_points()))
    }

    #[test]
    fn keeping_in_slices_writes_the_trace_list_and_its_id() {
        let times = Pattern::Trace(Arc::new((0..2_345u64).map(|i| Time(i * 7)).collect()));
        for pattern in [keyed(), times] {
            let text = trace_list(&pattern).unwrap();
            let whole = run_to_end(KeepTrace::new(pattern.clone()));
            assert_eq!(whole.text, text);
            assert_eq!(whole.id, trace_id(&text));
            for budget in [1, 7, 1_000] {
                let (sliced, steps) = run_in_steps(KeepTrace::new(pattern.clone()), budget);
                assert_eq!(sliced, whole, "budget {budget}");
                assert!(steps >= pattern.given_len() / budget, "{steps} steps");
            }
        }
    }

    #[test]
    fn reading_in_slices_gives_the_requests_or_the_first_bad_item_as_a_list_does() {
        let kept = trace_list(&keyed()).unwrap();
        let cases = [
            kept.clone(),
            format!("{kept},"),
            "1,2,x,4".to_string(),
            "1,,2".to_string(),
            "".to_string(),
            ", ,".to_string(),
            " 1 , 2@a%20b@syd@GET%20%2F ,".to_string(),
            "1@".to_string(),
            "1@acme%2C%20inc,2@%F0%9F%A6%80%25%26%23%2B%3D%3B".to_string(),
        ];
        for text in cases {
            let expected = parse_trace_items(&text, MAX_LINES);
            assert_eq!(parse_stored_trace(&text), expected, "{text:.40}");
            for budget in [1, 3, 1_000] {
                let (sliced, _) = run_in_steps(ReadKeptTrace::new(&text), budget);
                assert_eq!(sliced, expected, "{text:.40}, budget {budget}");
            }
        }
        assert_eq!(parse_stored_trace(&kept).unwrap(), keyed_points());
    }

    #[test]
    fn a_kept_key_holding_a_comma_or_an_escape_reads_back_as_one_key() {
        let keys = ["acme, inc", "50%", "%41", "a+b", "a@b", "🦀 \"q\" &#=;"];
        let points: Vec<Point> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| Point::new(Time(i as u64 * 1_000_000), *k))
            .collect();
        let kept = run_to_end(KeepTrace::new(Pattern::Keyed(Arc::new(points.clone()))));
        assert_eq!(parse_stored_trace(&kept.text).unwrap(), points);
    }

    #[test]
    fn a_kept_list_longer_than_the_importer_reads_is_refused_whole() {
        let text = vec!["1"; MAX_LINES + 1].join(",");
        let refused = parse_stored_trace(&text).unwrap_err();
        assert!(refused.contains("more than a link can carry"), "{refused}");
    }
}
