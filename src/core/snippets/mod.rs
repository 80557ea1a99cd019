//! "Use these settings": for a product row, the configuration or code that sets the product up
//! as the row is set up, as the product's own documentation spells it (each file here names its
//! sources). One module per product family; this one picks the right one for a row, names the
//! file it is offered as, and, where the product cannot say exactly what the lab's settings say,
//! writes the sentence of what differs with the figures of the nearest setting on the trace.
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
use crate::core::limiter::{Algorithm, Settings};
use crate::core::profiles::settings::ProductSettings;
use crate::core::run::{run_one, AlgorithmRun};
use crate::core::time::format_seconds;
use crate::core::traffic::Trace;

mod cloudflare;
mod dotnet;
mod envoy;
mod express;
mod go;
mod governor;
mod guava;
mod nginx;
mod python;
mod redis_cell;
mod upstash;

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

/// What a product family's module writes: the text, and the nearest setting when the row's own
/// cannot be written exactly.
pub(crate) struct Written {
    pub text: String,
    pub nearest: Option<Nearest>,
}

/// The nearest setting the product accepts: the product fields that give it, and a sentence
/// saying what differs (without the figures).
pub(crate) struct Nearest {
    pub products: ProductSettings,
    pub what: String,
    /// The row itself already runs this setting (it follows the lab's limit and window through
    /// the product's nearest), so its own figures are the nearest setting's.
    pub row_runs_it: bool,
}

impl Written {
    pub fn exact(text: String) -> Written {
        Written {
            text,
            nearest: None,
        }
    }
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

/// The Durable Object card's `wrangler.toml`.
pub fn for_durable(durable: &DurableParams, settings: &Settings) -> Snippet {
    Snippet {
        slug: "do",
        file_name: "wrangler.toml",
        text: durable_object(durable, settings),
        differences: None,
    }
}

fn write(algorithm: Algorithm, s: &Settings) -> Option<Written> {
    Some(match algorithm {
        Algorithm::Nginx => nginx::write(s),
        Algorithm::Governor => governor::write(s),
        Algorithm::RedisCell => redis_cell::write(s),
        Algorithm::UpstashFixed | Algorithm::UpstashSliding | Algorithm::UpstashToken => {
            upstash::write(algorithm, s)
        }
        Algorithm::Envoy => envoy::write(s),
        Algorithm::CfBinding => cloudflare::binding(s),
        Algorithm::XTimeRate => go::write(s),
        Algorithm::ExpressRateLimit => express::write(s),
        Algorithm::LimitsFixed | Algorithm::LimitsMoving | Algorithm::LimitsSliding => {
            python::write(algorithm, s)
        }
        Algorithm::DotnetFixed | Algorithm::DotnetSliding | Algorithm::DotnetToken => {
            dotnet::write(algorithm, s)
        }
        Algorithm::Guava => guava::write(s),
        _ => return None,
    })
}

/// The file a row's snippet is offered as.
pub fn file_name(algorithm: Algorithm) -> Option<&'static str> {
    Some(match algorithm {
        Algorithm::Nginx => "nginx.conf",
        Algorithm::Governor => "main.rs",
        Algorithm::RedisCell => "cl-throttle.redis",
        Algorithm::UpstashFixed | Algorithm::UpstashSliding | Algorithm::UpstashToken => {
            "ratelimit.ts"
        }
        Algorithm::Envoy => "envoy.yaml",
        Algorithm::CfBinding => "wrangler.toml",
        Algorithm::XTimeRate => "main.go",
        Algorithm::ExpressRateLimit => "app.js",
        Algorithm::LimitsFixed | Algorithm::LimitsMoving | Algorithm::LimitsSliding => {
            "limits_example.py"
        }
        Algorithm::DotnetFixed | Algorithm::DotnetSliding | Algorithm::DotnetToken => "Program.cs",
        Algorithm::Guava => "Example.java",
        _ => return None,
    })
}

/// "On this trace that setting lets 12 of 40 through, at most 5 in any 10 s window."
fn figures(trace: &Trace, algorithm: Algorithm, nearest: &Settings) -> String {
    match run_one(trace, algorithm, nearest) {
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

/// "5 per 10 s": the lab's limit as the snippets' first lines name it.
pub(crate) fn quota_text(s: &Settings) -> String {
    format!("{} per {} s", s.limit, format_seconds(s.window.micros()))
}

/// Whether any of a product's URL fields (those starting with `prefix`) is set: the row then
/// runs the person's own product settings rather than following the lab's limit and window.
pub(crate) fn family_set(s: &Settings, prefix: &str) -> bool {
    crate::core::profiles::settings::FIELDS
        .iter()
        .filter(|f| f.name.starts_with(prefix))
        .any(|f| (f.write)(&s.products).is_some())
}

#[cfg(test)]
mod tests;
