//! Which of the site's page modules serves a link (docs/architecture.md, "Three modules"): the
//! rule web/loader.js follows before any module has loaded, written here in Rust from the URL
//! table's own names, so that a test (`tests/site_modules.rs`) can run the loader's JavaScript
//! on a corpus of links and hold it to this rule. Packaging, not the lab: it lives beside the
//! page, outside `core`.

use crate::core::limiter::Algorithm;
use crate::core::url::codec::{percent_decode, query_pairs, RAW_FIELDS};
use crate::core::url::fields::{CLIENTS, COUNTING, DEPLOYMENT, SECOND_LIMIT};
use crate::core::url::{question_link, MAX_QUERY_CHARS, STORED_TRACE};

/// The site's page modules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageModule {
    /// The six algorithms and everything else but the product profiles, the rules' controls,
    /// kept traces, questions and lanes by key.
    First,
    /// The first one's with the Durable Object lab.
    Durable,
    /// Everything.
    Complete,
}

/// The module that serves `query` (the link's query, with or without its `?`), `asked` when the
/// first module reloaded the page to open something only the complete one has.
pub fn module_for(query: &str, asked: bool) -> PageModule {
    let query = query.trim_start_matches('?');
    let pairs = query_pairs(query);
    // The first occurrence, decoded, as the loader's `URLSearchParams.get` reads it.
    let value = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(k, v)| match RAW_FIELDS.contains(&k.as_str()) {
                true => percent_decode(v),
                false => v.clone(),
            })
    };
    let names = |name: &str| pairs.iter().any(|(k, _)| k == name);
    let rows_beyond_the_first = value("algos").is_some_and(|list| {
        list.split(',')
            .map(str::trim)
            .any(|row| !row.is_empty() && !Algorithm::CORE.iter().any(|a| a.slug() == row))
    });
    let rules = [COUNTING, DEPLOYMENT, SECOND_LIMIT, CLIENTS];
    let rule_named = rules.iter().flat_map(|f| f.iter()).any(|f| names(f.name))
        || question_link::FIELDS.iter().any(|f| names(f.name));
    let trace = value("trace").unwrap_or_default();
    let trace = trace.trim();
    let kept = trace == STORED_TRACE || trace.starts_with(&format!("{STORED_TRACE}:"));
    let complete = asked
        || value("lanes").as_deref() == Some("key")
        || kept
        || query.len() > MAX_QUERY_CHARS
        || rule_named
        || rows_beyond_the_first;
    let durable = value("do").is_some_and(|v| v.trim() != "0");
    match (complete, durable) {
        (true, _) => PageModule::Complete,
        (false, true) => PageModule::Durable,
        (false, false) => PageModule::First,
    }
}
