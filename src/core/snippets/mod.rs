//! "Use these settings": for a product row, the configuration or code that sets the product up
//! as the row is set up, as the product's own documentation spells it. Each product's writer is
//! in its own module (`core::profiles::<product>::snippet`, naming its sources), named with the
//! file it is offered as by the row's descriptor (`ProductRow::snippet`); this module asks the
//! row for it and, where the product cannot say exactly what the lab's settings say, writes the
//! sentence of what differs with the figures of the nearest setting on the trace. The Durable
//! Object card's `wrangler.toml` is here (`cloudflare`).
//!
//! The snippet always follows the parameters the row itself runs with
//! (`Settings::products.<product>(limit, window)`). Where those cannot be written in the product
//! (a redis-cell period that is not whole seconds, Guava's burst, which its public API fixes at
//! one second), the snippet writes the nearest the product accepts, and the figures are those of
//! the row run again with that nearest setting. Where the row follows the lab's limit and window
//! and the product has no spelling for them (nginx's whole requests per second or minute, the
//! Cloudflare binding's 10 or 60 s periods), the row already runs the nearest, and the sentence
//! says how it differs from the lab's limit.

use crate::core::durable::DurableParams;
use crate::core::limiter::{Algorithm, Complete, Settings};
use crate::core::profiles::{SnippetOf, Written};
use crate::core::run::{run_one, AlgorithmRun};
use crate::core::time::format_seconds;
use crate::core::traffic::Trace;

mod cloudflare;

pub use cloudflare::durable_object;

/// The configuration or code for one row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snippet {
    /// The row's slug (`nginx`, `cf-binding`, ...), or `do` for the Durable Object.
    pub slug: &'static str,
    /// The file it is offered as: `nginx.conf`, `main.rs`, `wrangler.toml`, ...
    pub file_name: &'static str,
    pub text: String,
    /// What differs from the row's settings, and the nearest setting's figures on the trace;
    /// `None` when the snippet says exactly what the row does.
    pub differences: Option<String>,
}

/// The snippet for a product row, or `None` for the six textbook algorithms. `row` is the
/// row's own run of `trace`, if there is one: when the row already runs the nearest setting its
/// figures are used, else the trace is run again with the nearest setting.
pub fn for_row(
    algorithm: Algorithm,
    settings: &Settings,
    trace: &Trace,
    row: Option<&AlgorithmRun>,
) -> Option<Snippet> {
    let written = write(algorithm, settings)?;
    let file_name = file_name(algorithm)?;
    let differences = written.nearest.map(|nearest| {
        let nearest_settings = Settings {
            products: nearest.products,
            ..settings.clone()
        };
        let figures = match row.filter(|r| nearest.row_runs_it && r.algorithm == algorithm) {
            Some(run) => figures_of(run, trace, settings),
            None => figures(trace, algorithm, &nearest_settings),
        };
        format!("{} {figures}", nearest.what)
    });
    Some(Snippet {
        slug: algorithm.slug(),
        file_name,
        text: written.text,
        differences,
    })
}

/// The settings a row's snippet sets the product up with: the row's own, or, where the snippet
/// writes the nearest setting the product accepts, the row's with that setting. `None` for the
/// textbook algorithms. (`scripts/check-snippets.sh` runs each snippet against this row.)
pub fn settings_written(algorithm: Algorithm, settings: &Settings) -> Option<Settings> {
    let written = write(algorithm, settings)?;
    Some(match written.nearest {
        Some(nearest) => Settings {
            products: nearest.products,
            ..settings.clone()
        },
        None => settings.clone(),
    })
}

/// The file the Durable Object card's snippet is offered as.
pub const DURABLE_FILE_NAME: &str = "wrangler.toml";

/// The Durable Object card's `wrangler.toml`.
pub fn for_durable(durable: &DurableParams, settings: &Settings) -> Snippet {
    Snippet {
        slug: "do",
        file_name: DURABLE_FILE_NAME,
        text: durable_object(durable, settings),
        differences: None,
    }
}

/// What the row's own snippet writer gives, or `None` for a row that has none.
fn write(algorithm: Algorithm, s: &Settings) -> Option<Written> {
    match algorithm.snippet::<Complete>() {
        SnippetOf::Written { write, .. } => Some(write(&s.row_settings())),
        SnippetOf::None(_) => None,
    }
}

/// The file a row's snippet is offered as.
pub fn file_name(algorithm: Algorithm) -> Option<&'static str> {
    match algorithm.snippet::<Complete>() {
        SnippetOf::Written { file_name, .. } => Some(file_name),
        SnippetOf::None(_) => None,
    }
}

/// "On this trace that setting lets 12 of 40 through, at most 5 in any 10 s window."
fn figures(trace: &Trace, algorithm: Algorithm, nearest: &Settings) -> String {
    match run_one::<Complete>(trace, algorithm, nearest) {
        Ok(run) => figures_of(&run, trace, nearest),
        Err(e) => format!("The lab cannot run that setting: {e}."),
    }
}

fn figures_of(run: &AlgorithmRun, trace: &Trace, settings: &Settings) -> String {
    format!(
        "On this trace that setting lets {} of {} through, at most {} in any {} s window.",
        run.passed(),
        trace.len(),
        run.max_in_window,
        format_seconds(settings.window.micros())
    )
}

#[cfg(test)]
mod tests;
