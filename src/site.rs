//! Which of the site's page modules serves a link (docs/architecture.md, "Three modules"): the
//! rule web/loader.js follows before any module has loaded, written here once in Rust from the
//! catalogue's and the URL table's own names. The loader's JavaScript carries only the rule's
//! shape: its names are written into it from [`loader_tables`] when the site is built
//! (`examples/loader_tables.rs`, run by scripts/build-site.sh), and a test
//! (`tests/site_modules.rs`) runs it on a corpus of links and holds it to [`module_for`].
//! Packaging, not the lab: it lives beside the page, outside `core`.

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

/// The names the rule reads in a link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoaderNames {
    /// The field listing the rows, and the rows the first module has (`Algorithm::CORE`).
    pub rows_field: &'static str,
    pub first_view_rows: Vec<&'static str>,
    /// The fields of the rules (copies, a second limit, the counting rules, obeying clients) and
    /// of a question: only the complete module has them.
    pub rule_fields: Vec<&'static str>,
    pub question_fields: Vec<&'static str>,
    /// `lanes=key`: lanes by key, drawn by the complete module only.
    pub lanes_field: &'static str,
    pub lanes_by_key: &'static str,
    /// `trace=stored:<id>` (or `stored` alone): a trace kept in the browser, which only the
    /// complete module reads back.
    pub trace_field: &'static str,
    pub kept_trace: &'static str,
    /// A query longer than this (its characters after the `?`) carries a trace the page keeps.
    pub query_chars: usize,
    /// `do=` other than `0`: the Durable Object's module.
    pub durable_field: &'static str,
    /// `embed=1`: the page is an embed (the loader only gives its header the embed's sizes).
    pub embed_field: &'static str,
}

/// The rule's names, from the catalogue and the URL table.
pub fn loader_names() -> LoaderNames {
    LoaderNames {
        rows_field: "algos",
        first_view_rows: Algorithm::CORE.iter().map(|a| a.slug()).collect(),
        rule_fields: [COUNTING, DEPLOYMENT, SECOND_LIMIT, CLIENTS]
            .iter()
            .flat_map(|fields| fields.iter().map(|f| f.name))
            .collect(),
        question_fields: question_link::FIELDS.iter().map(|f| f.name).collect(),
        lanes_field: "lanes",
        lanes_by_key: "key",
        trace_field: "trace",
        kept_trace: STORED_TRACE,
        query_chars: MAX_QUERY_CHARS,
        durable_field: "do",
        embed_field: "embed",
    }
}

/// The loader's names as JavaScript declarations, one per line, for web/loader.js's
/// `/*__LOADER_TABLES__*/` (scripts/site_modules.py writes them in).
pub fn loader_tables() -> String {
    let names = loader_names();
    let text = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let list = |items: &[&str]| {
        let items: Vec<String> = items.iter().map(|s| text(s)).collect();
        format!("[{}]", items.join(", "))
    };
    [
        ("ROWS_FIELD", text(names.rows_field)),
        ("FIRST_VIEW_ROWS", list(&names.first_view_rows)),
        ("RULE_FIELDS", list(&names.rule_fields)),
        ("QUESTION_FIELDS", list(&names.question_fields)),
        ("LANES_FIELD", text(names.lanes_field)),
        ("LANES_BY_KEY", text(names.lanes_by_key)),
        ("TRACE_FIELD", text(names.trace_field)),
        ("KEPT_TRACE", text(names.kept_trace)),
        ("QUERY_CHARS", names.query_chars.to_string()),
        ("DURABLE_FIELD", text(names.durable_field)),
        ("EMBED_FIELD", text(names.embed_field)),
    ]
    .iter()
    .map(|(name, value)| format!("var {name} = {value};\n"))
    .collect()
}

/// The module that serves `query` (the link's query, with or without its `?`), `asked` when the
/// running module asked for the complete one to open a section only that one has.
pub fn module_for(query: &str, asked: bool) -> PageModule {
    let names = loader_names();
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
    let named = |name: &str| pairs.iter().any(|(k, _)| k == name);
    let rows_beyond_the_first = value(names.rows_field).is_some_and(|list| {
        list.split(',')
            .map(str::trim)
            .any(|row| !row.is_empty() && !names.first_view_rows.contains(&row))
    });
    let rule_named = names
        .rule_fields
        .iter()
        .chain(&names.question_fields)
        .any(|f| named(f));
    let trace = value(names.trace_field).unwrap_or_default();
    let trace = trace.trim();
    let kept = trace == names.kept_trace || trace.starts_with(&format!("{}:", names.kept_trace));
    let complete = asked
        || value(names.lanes_field).as_deref() == Some(names.lanes_by_key)
        || kept
        || query.len() > names.query_chars
        || rule_named
        || rows_beyond_the_first;
    let durable = value(names.durable_field).is_some_and(|v| v.trim() != "0");
    match (complete, durable) {
        (true, _) => PageModule::Complete,
        (false, true) => PageModule::Durable,
        (false, false) => PageModule::First,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loaders_tables_declare_every_name_once_as_javascript() {
        let tables = loader_tables();
        assert!(tables.contains(
            "var FIRST_VIEW_ROWS = [\"fixed\", \"sliding-log\", \"sliding-counter\", \"token-bucket\", \"gcra\", \"leaky-bucket\"];\n"
        ));
        assert!(tables.contains("var QUESTION_FIELDS = [\"q\"];\n"));
        assert!(tables.contains(&format!("var QUERY_CHARS = {MAX_QUERY_CHARS};\n")));
        assert_eq!(tables.lines().count(), 11);
        for line in tables.lines() {
            assert!(line.starts_with("var ") && line.ends_with(';'), "{line}");
        }
    }
}
