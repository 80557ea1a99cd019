//! An answer as the page shows it: sentences whose figures are marked, so the page can show each
//! figure beside the element that carries the same figure (a row's `data-allowed`, the Durable
//! Object row's `data-p95-ms`), and a test can check that the two agree.

use crate::core::limiter::Algorithm;

/// A piece of an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    Words(String),
    /// A figure the page also carries: `text` is the value of the attribute `data-<attribute>`
    /// of the element `data-testid="<testid>"` (the figures table's rows).
    Figure {
        text: String,
        testid: String,
        attribute: &'static str,
    },
}

/// What a question's view answers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    pub parts: Vec<Part>,
    /// The request the answer is about, for the inspector to show (an index into the trace).
    pub inspect: Option<usize>,
}

impl Answer {
    /// The answer as plain text.
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Words(w) => w.as_str(),
                Part::Figure { text, .. } => text.as_str(),
            })
            .collect()
    }

    /// Adds a sentence: `template`'s `{}` filled with `args` in order, a space before it when
    /// the answer has words already.
    pub(super) fn say(&mut self, template: &str, args: &[Arg<'_>]) {
        if !self.parts.is_empty() {
            self.words(" ");
        }
        let mut args = args.iter();
        let mut pieces = template.split("{}");
        if let Some(first) = pieces.next() {
            self.words(first);
        }
        for piece in pieces {
            match args.next() {
                Some(Arg::Num(value)) => self.words(&value.to_string()),
                Some(Arg::Text(text)) => self.words(text),
                Some(Arg::Owned(text)) => self.words(text),
                Some(Arg::Row(algorithm, attribute, value)) => {
                    self.figure(format!("stats-{}", algorithm.slug()), attribute, *value)
                }
                Some(Arg::Durable(attribute, value)) => {
                    self.figure("stats-do".to_string(), attribute, *value)
                }
                None => {}
            }
            self.words(piece);
        }
    }

    fn figure(&mut self, testid: String, attribute: &'static str, value: u64) {
        self.parts.push(Part::Figure {
            text: value.to_string(),
            testid,
            attribute,
        });
    }

    fn words(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.parts.last_mut() {
            Some(Part::Words(w)) => w.push_str(text),
            _ => self.parts.push(Part::Words(text.to_string())),
        }
    }
}

/// A value for a sentence's `{}`: plain words or a number, or a figure of a row (written when
/// the sentence is, so that making one costs no more than naming it).
pub(super) enum Arg<'a> {
    Num(u64),
    Text(&'a str),
    Owned(String),
    /// A figure of `algorithm`'s row in the figures table: `data-<attribute>` of `stats-<slug>`.
    Row(Algorithm, &'static str, u64),
    /// A figure of the Durable Object's row: `data-<attribute>` of `stats-do`.
    Durable(&'static str, u64),
}

/// A number the page does not carry as an attribute (a setting, a count of requests).
pub(super) fn num(value: u64) -> Arg<'static> {
    Arg::Num(value)
}

/// Words, or a value already written as text (a time, a name).
pub(super) fn txt(text: &str) -> Arg<'_> {
    Arg::Text(text)
}

/// Text made for the sentence.
pub(super) fn owned(text: String) -> Arg<'static> {
    Arg::Owned(text)
}

/// A figure of `algorithm`'s row in the figures table.
pub(super) fn row(algorithm: Algorithm, attribute: &'static str, value: u64) -> Arg<'static> {
    Arg::Row(algorithm, attribute, value)
}

/// A figure of the Durable Object's row.
pub(super) fn do_row(attribute: &'static str, value: u64) -> Arg<'static> {
    Arg::Durable(attribute, value)
}

/// "1 request", "5 requests".
pub(super) fn count(n: u64, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_fills_its_gaps_in_order_and_marks_the_figures() {
        let mut answer = Answer::default();
        answer.say(
            "{} let {} through.",
            &[txt("redis-cell"), row(Algorithm::RedisCell, "allowed", 16)],
        );
        answer.say("Then {}.", &[do_row("p95-ms", 12)]);
        assert_eq!(answer.text(), "redis-cell let 16 through. Then 12.");
        assert_eq!(
            answer.parts[1],
            Part::Figure {
                text: "16".into(),
                testid: "stats-redis-cell".into(),
                attribute: "allowed"
            }
        );
        assert_eq!(answer.parts[2], Part::Words(" through. Then ".into()));
    }
}
