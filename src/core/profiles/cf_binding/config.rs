//! Reading a Worker's Rate Limiting binding into its row's settings (`profiles::config_text`):
//! in `wrangler.toml`, a `[[ratelimits]]` entry (`name`, `namespace_id`, and `simple = { limit,
//! period }` or a `[ratelimits.simple]` table) or the older `[[unsafe.bindings]]` entry with
//! `type = "ratelimit"`; in `wrangler.json` / `wrangler.jsonc`, the same as
//! `"ratelimits": [{ ... }]` or `"unsafe": { "bindings": [{ "type": "ratelimit", ... }] }`.
//! Bindings under `[env.<name>]` are read too.
//!
//! Sources: developers.cloudflare.com/workers/runtime-apis/bindings/rate-limit/ (the
//! `wrangler.jsonc` and `wrangler.toml` examples), wrangler 4.86.0 as installed from npm
//! (`config-schema.json`'s `ratelimits`; `validateRateLimitBinding` in `wrangler-dist/cli.js`:
//! `name` and `namespace_id` strings, `simple.limit` a number, `simple.period` 10 or 60; and the
//! `unsafe.bindings` of `type = "ratelimit"` it turns into the same binding).
//!
//! The first binding sets the row and names it; the others are named in notes. The binding has no
//! defaults: a binding without its `limit` or `period` is refused, as wrangler refuses it.

use crate::core::config::MAX_COUNT;
use crate::core::profiles::config_text::script::{
    blank_comments, closing, entries, entries_split, Value,
};
use crate::core::profiles::config_text::{
    arithmetic, before_comment, line_of, unquote, ConfigOf, FromConfig, Unreadable,
};
use crate::core::profiles::ProductSettings;

use super::PERIODS;

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises,
    read,
    forms:
        "a `wrangler.toml` or `wrangler.jsonc` rate-limit binding (`simple = { limit, period }`)",
};

fn recognises(text: &str) -> bool {
    if is_json(text) {
        let code = blank_comments(text);
        return code.contains("\"ratelimits\"")
            || json_type_is_ratelimit(&code)
            || (code.contains("\"simple\"") && code.contains("\"period\""));
    }
    toml_lines(text).any(|(_, line)| {
        let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        (compact.starts_with("[[") && compact.ends_with("ratelimits]]"))
            || compact == "type=\"ratelimit\""
            || (compact.starts_with("simple={") && compact.contains("period="))
    })
}

/// One binding as written: its values with their lines.
#[derive(Default)]
struct Binding {
    line: usize,
    unsafe_form: bool,
    name: Option<(usize, String)>,
    kind: Option<String>,
    namespace: Option<(usize, String)>,
    simple: Option<usize>,
    limit: Option<(usize, String)>,
    period: Option<(usize, String)>,
}

fn read(text: &str) -> Result<FromConfig, Unreadable> {
    let bindings = if is_json(text) {
        json_bindings(text)
    } else {
        toml_bindings(text)
    };
    let bindings: Vec<Binding> = bindings
        .into_iter()
        .filter(|b| !b.unsafe_form || b.kind.as_deref() == Some("ratelimit"))
        .collect();
    let Some(first) = bindings.first() else {
        return Err(Unreadable::whole(
            "no rate-limit binding in the text: a `[[ratelimits]]` entry, `\"ratelimits\": [...]`, or an unsafe binding of `type = \"ratelimit\"`",
        ));
    };
    let (limit, period) = settings_of(text, first)?;
    let name_of = |b: &Binding| b.name.as_ref().map(|(_, n)| n.clone());
    let mut from = FromConfig::new("cf-binding", {
        let mut products = ProductSettings::default();
        products.cf_binding.limit = Some(limit);
        products.cf_binding.period = Some(period);
        products
    });
    from.name = name_of(first);
    for other in &bindings[1..] {
        from.notes.push(format!(
            "The binding `{}` on line {} is defined too; only the first, `{}` on line {}, sets the row, since a row runs one limiter.",
            name_of(other).unwrap_or_default(),
            other.line,
            name_of(first).unwrap_or_default(),
            first.line
        ));
    }
    Ok(from)
}

/// The binding's `simple.limit` and `simple.period`, as wrangler accepts them.
fn settings_of(text: &str, b: &Binding) -> Result<(u64, u64), Unreadable> {
    if b.name.is_none() {
        return Err(Unreadable::at(
            text,
            b.line,
            "the binding has no `name`, which wrangler requires",
        ));
    }
    if let Some((line, raw)) = &b.namespace {
        if !b.unsafe_form && !is_quoted(raw) {
            return Err(Unreadable::at(
                text,
                *line,
                format!(
                    "`namespace_id` is {raw}: wrangler takes it only as a string, such as \"1001\""
                ),
            ));
        }
    } else if !b.unsafe_form {
        return Err(Unreadable::at(
            text,
            b.line,
            "the binding has no `namespace_id`, which wrangler requires",
        ));
    }
    let Some(simple) = b.simple else {
        return Err(Unreadable::at(
            text,
            b.line,
            "the binding has no `simple = { limit, period }`",
        ));
    };
    let (Some((limit_line, limit)), Some((period_line, period))) = (&b.limit, &b.period) else {
        return Err(Unreadable::at(
            text,
            simple,
            format!(
                "`simple` has no `{}`, which wrangler requires",
                if b.limit.is_none() { "limit" } else { "period" }
            ),
        ));
    };
    let whole = |raw: &str| {
        if is_quoted(raw) {
            return None;
        }
        arithmetic(raw).filter(|n| n.fract() == 0.0)
    };
    let period_value = whole(period).filter(|p| PERIODS.contains(&(*p as u64)) && *p >= 0.0);
    let Some(period_value) = period_value else {
        return Err(Unreadable::at(
            text,
            *period_line,
            format!("`period` is {period}: the binding takes only 10 or 60 seconds"),
        ));
    };
    let limit_value = match whole(limit) {
        Some(n) if (1.0..=MAX_COUNT as f64).contains(&n) => n as u64,
        _ => {
            return Err(Unreadable::at(
                text,
                *limit_line,
                format!("`limit` is {limit}: the lab reads a whole number from 1 to {MAX_COUNT}"),
            ))
        }
    };
    Ok((limit_value, period_value as u64))
}

fn is_quoted(raw: &str) -> bool {
    let raw = raw.trim();
    raw.len() >= 2
        && ((raw.starts_with('"') && raw.ends_with('"'))
            || (raw.starts_with('\'') && raw.ends_with('\'')))
}

fn is_json(text: &str) -> bool {
    blank_comments(text).trim_start().starts_with('{')
}

/// The TOML's lines, numbered from 1, without their comments, trimmed.
fn toml_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, before_comment(line, "#").trim()))
}

/// The bindings of a `wrangler.toml`, in order.
fn toml_bindings(text: &str) -> Vec<Binding> {
    let mut out: Vec<Binding> = Vec::new();
    // Whether the lines read belong to the last binding, and to its `simple` table.
    let mut in_binding = false;
    let mut in_simple = false;
    for (n, line) in toml_lines(text) {
        if line.starts_with('[') {
            let header: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            in_simple = false;
            in_binding = false;
            if let Some(path) = header.strip_prefix("[[").and_then(|h| h.strip_suffix("]]")) {
                let path = env_free(path);
                if path == "ratelimits" || path == "unsafe.bindings" {
                    out.push(Binding {
                        line: n,
                        unsafe_form: path == "unsafe.bindings",
                        ..Binding::default()
                    });
                    in_binding = true;
                }
            } else if let Some(path) = header.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
                let path = env_free(path);
                if path == "ratelimits.simple" || path == "unsafe.bindings.simple" {
                    if let Some(b) = out.last_mut() {
                        b.simple = Some(n);
                        in_binding = true;
                        in_simple = true;
                    }
                }
            }
            continue;
        }
        let Some(b) = out.last_mut().filter(|_| in_binding) else {
            continue;
        };
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key: String = key.chars().filter(|c| !c.is_whitespace()).collect();
        let key = unquote(&key);
        let value = value.trim();
        let key = if in_simple {
            format!("simple.{key}")
        } else {
            key
        };
        match key.as_str() {
            "name" => b.name = Some((n, unquote(value))),
            "type" => b.kind = Some(unquote(value)),
            "namespace_id" => b.namespace = Some((n, value.to_string())),
            "simple.limit" => {
                b.simple.get_or_insert(n);
                b.limit = Some((n, value.to_string()));
            }
            "simple.period" => {
                b.simple.get_or_insert(n);
                b.period = Some((n, value.to_string()));
            }
            "simple" => {
                b.simple = Some(n);
                // An inline table: `{ limit = 100, period = 60 }`.
                let inner = value.trim_start_matches('{').trim_end_matches('}');
                for pair in inner.split(',') {
                    if let Some((k, v)) = pair.split_once('=') {
                        match unquote(k.trim()).as_str() {
                            "limit" => b.limit = Some((n, v.trim().to_string())),
                            "period" => b.period = Some((n, v.trim().to_string())),
                            _ => {}
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// A table path without its `env.<name>.` (an environment's bindings are bindings too).
fn env_free(path: &str) -> &str {
    match path.strip_prefix("env.") {
        Some(rest) => rest.split_once('.').map_or(rest, |(_, p)| p),
        None => path,
    }
}

/// The bindings of a `wrangler.json(c)`, in order: the elements of every `"ratelimits"` array and
/// of every `"bindings"` array (those of `"unsafe"`).
fn json_bindings(text: &str) -> Vec<Binding> {
    let code = blank_comments(text);
    let mut out = Vec::new();
    for (key, unsafe_form) in [("\"ratelimits\"", false), ("\"bindings\"", true)] {
        for (at, _) in code.match_indices(key) {
            let rest = code.get(at + key.len()..).unwrap_or("");
            let Some(value) = rest.trim_start().strip_prefix(':') else {
                continue;
            };
            let array = value.trim_start();
            if !array.starts_with('[') {
                continue;
            }
            let open = code.len() - array.len();
            let Some(close) = closing(&code, open) else {
                continue;
            };
            for (start, element) in entries_split(&code, open + 1, close) {
                if element.starts_with('{') {
                    out.push(json_binding(&code, start, unsafe_form));
                }
            }
        }
    }
    out.sort_by_key(|b| b.line);
    out
}

/// One binding object of a `wrangler.json(c)`, whose `{` is at `open`.
fn json_binding(code: &str, open: usize, unsafe_form: bool) -> Binding {
    let mut b = Binding {
        line: line_of(code, open),
        unsafe_form,
        ..Binding::default()
    };
    let Some(close) = closing(code, open) else {
        return b;
    };
    for entry in entries(code, open + 1, close) {
        let Value::Written(value) = entry.value else {
            continue;
        };
        let line = line_of(code, entry.at);
        match entry.key.as_str() {
            "name" => b.name = Some((line, unquote(&value))),
            "type" => b.kind = Some(unquote(&value)),
            "namespace_id" => b.namespace = Some((line, value)),
            "simple" => {
                b.simple = Some(line);
                let inner_at =
                    entry.at + code.get(entry.at..).and_then(|r| r.find('{')).unwrap_or(0);
                if let Some(end) = closing(code, inner_at) {
                    for inner in entries(code, inner_at + 1, end) {
                        if let Value::Written(v) = inner.value {
                            let line = line_of(code, inner.at);
                            match inner.key.as_str() {
                                "limit" => b.limit = Some((line, v)),
                                "period" => b.period = Some((line, v)),
                                _ => {}
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    b
}

/// Whether a JSON text has a binding of `"type": "ratelimit"`.
fn json_type_is_ratelimit(code: &str) -> bool {
    code.match_indices("\"type\"").any(|(at, key)| {
        code.get(at + key.len()..)
            .and_then(|r| r.trim_start().strip_prefix(':'))
            .is_some_and(|v| v.trim_start().starts_with("\"ratelimit\""))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::profiles::RowSettings;
    use crate::core::time::Span;

    fn settings(text: &str) -> (Option<u64>, Option<u64>) {
        let f = read(text).unwrap().products.cf_binding;
        (f.limit, f.period)
    }

    fn refusal(text: &str) -> Unreadable {
        read(text).unwrap_err()
    }

    // developers.cloudflare.com/workers/runtime-apis/bindings/rate-limit/, the wrangler.jsonc
    // example.
    const DOCS_JSONC: &str = r#"{
  "main": "src/index.js",
  "ratelimits": [
    {
      "name": "MY_RATE_LIMITER",
      // An identifier you define, that is unique to your Cloudflare account.
      // Must be an integer.
      "namespace_id": "1001",
      // Limit: the number of tokens allowed within a given period in a single
      // Cloudflare location
      // Period: the duration of the period, in seconds. Must be either 10 or 60
      "simple": {
        "limit": 100,
        "period": 60
      }
    }
  ]
}"#;

    // developers.cloudflare.com/workers/runtime-apis/bindings/rate-limit/, the wrangler.toml
    // example.
    const DOCS_TOML: &str = r#"main = "src/index.js"

[[ratelimits]]
name = "MY_RATE_LIMITER"
namespace_id = "1001"

  [ratelimits.simple]
  limit = 100
  period = 60
"#;

    // The older unsafe binding the docs showed before `[[ratelimits]]` (wrangler turns an unsafe
    // binding of `type = "ratelimit"` into the same binding).
    const UNSAFE_TOML: &str = r#"# The rate limiting API is in open beta.
[[unsafe.bindings]]
name = "MY_RATE_LIMITER"
type = "ratelimit"
# An identifier you define, that is unique to your Cloudflare account.
# Must be an integer.
namespace_id = "1001"

# Limit: the number of tokens allowed within a given period in a single
# Cloudflare location
# Period: the duration of the period, in seconds. Must be either 10 or 60
simple = { limit = 100, period = 60 }
"#;

    const UNSAFE_JSON: &str = r#"{
  "unsafe": {
    "bindings": [
      { "name": "KV_LIKE", "type": "plain_text", "text": "x" },
      { "name": "FAST", "type": "ratelimit", "namespace_id": "1002", "simple": { "limit": 5, "period": 10 } }
    ]
  }
}"#;

    const FIXTURES: &[&str] = &[DOCS_JSONC, DOCS_TOML, UNSAFE_TOML, UNSAFE_JSON];

    #[test]
    fn the_docs_binding_is_100_per_60_seconds_in_either_spelling() {
        for text in [DOCS_JSONC, DOCS_TOML, UNSAFE_TOML] {
            let from = read(text).unwrap();
            assert_eq!(from.row, "cf-binding");
            assert_eq!(from.name.as_deref(), Some("MY_RATE_LIMITER"));
            assert_eq!(
                (
                    from.products.cf_binding.limit,
                    from.products.cf_binding.period
                ),
                (Some(100), Some(60))
            );
            assert_eq!(from.second, None);
            assert!(from.notes.is_empty(), "{:?}", from.notes);
        }
    }

    #[test]
    fn only_unsafe_bindings_of_type_ratelimit_are_read() {
        let from = read(UNSAFE_JSON).unwrap();
        assert_eq!(from.name.as_deref(), Some("FAST"));
        assert_eq!(settings(UNSAFE_JSON), (Some(5), Some(10)));
    }

    #[test]
    fn the_first_of_several_bindings_sets_the_row_and_the_others_are_named() {
        let text = "[[ratelimits]]\nname = \"API\"\nnamespace_id = \"1\"\nsimple = { limit = 10, period = 10 }\n\n[[env.staging.ratelimits]]\nname = \"LOGIN\"\nnamespace_id = \"2\"\nsimple.limit = 5\nsimple.period = 60\n";
        let from = read(text).unwrap();
        assert_eq!(from.name.as_deref(), Some("API"));
        assert_eq!(settings(text), (Some(10), Some(10)));
        assert_eq!(from.notes, vec!["The binding `LOGIN` on line 6 is defined too; only the first, `API` on line 1, sets the row, since a row runs one limiter.".to_string()]);
    }

    #[test]
    fn each_kind_of_unreadable_binding_is_refused_naming_its_line() {
        let cases: &[(&str, usize, &str)] = &[
            ("[[ratelimits]]\nname = \"L\"\nnamespace_id = \"1\"\nsimple = { limit = 100, period = 30 }", 4, "`period` is 30: the binding takes only 10 or 60 seconds"),
            ("[[ratelimits]]\nname = \"L\"\nnamespace_id = \"1\"\n[ratelimits.simple]\nlimit = 100\nperiod = \"60\"", 6, "`period` is \"60\": the binding takes only 10 or 60 seconds"),
            ("[[ratelimits]]\nname = \"L\"\nnamespace_id = \"1\"\nsimple = { limit = 0, period = 60 }", 4, "`limit` is 0: the lab reads a whole number from 1 to 1000000000"),
            ("[[ratelimits]]\nname = \"L\"\nnamespace_id = \"1\"\nsimple = { limit = 2.5, period = 60 }", 4, "`limit` is 2.5: the lab reads a whole number from 1 to 1000000000"),
            ("[[ratelimits]]\nname = \"L\"\nnamespace_id = \"1\"\nsimple = { period = 60 }", 4, "`simple` has no `limit`, which wrangler requires"),
            ("[[ratelimits]]\nname = \"L\"\nnamespace_id = \"1\"\n[ratelimits.simple]\nlimit = 10", 4, "`simple` has no `period`, which wrangler requires"),
            ("[[ratelimits]]\nname = \"L\"\nnamespace_id = \"1\"", 1, "the binding has no `simple = { limit, period }`"),
            ("[[ratelimits]]\nname = \"L\"\nnamespace_id = 1001\nsimple = { limit = 1, period = 10 }", 3, "`namespace_id` is 1001: wrangler takes it only as a string, such as \"1001\""),
            ("[[ratelimits]]\nname = \"L\"\nsimple = { limit = 1, period = 10 }", 1, "the binding has no `namespace_id`, which wrangler requires"),
            ("\n[[ratelimits]]\nnamespace_id = \"1\"\nsimple = { limit = 1, period = 10 }", 2, "the binding has no `name`, which wrangler requires"),
            ("{ \"ratelimits\": [{\n \"name\": \"L\", \"namespace_id\": \"1\",\n \"simple\": { \"limit\": 5, \"period\": 15 } }] }", 3, "`period` is 15: the binding takes only 10 or 60 seconds"),
        ];
        for (text, line, why) in cases {
            let e = refusal(text);
            assert_eq!((e.line, e.why.as_str()), (*line, *why), "{text}");
        }
        let e = refusal("[[unsafe.bindings]]\nname = \"X\"\ntype = \"plain_text\"");
        assert_eq!(e.line, 0);
        assert!(e.why.starts_with("no rate-limit binding"));
    }

    #[test]
    fn it_recognises_its_own_words_and_no_other_products() {
        for own in FIXTURES {
            assert!(recognises(own), "{own}");
        }
        for other in OTHER_PRODUCTS {
            assert!(!recognises(other), "{other}");
        }
    }

    /// One line of each other product's config (and the .NET and express configs most alike).
    const OTHER_PRODUCTS: &[&str] = &[
        "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;",
        "let lim = RateLimiter::direct(Quota::per_second(nonzero!(50u32)));",
        "CL.THROTTLE user123 15 30 60 1",
        "const ratelimit = new Ratelimit({ redis, limiter: Ratelimit.slidingWindow(10, \"10 s\") });",
        "- name: envoy.filters.http.local_ratelimit\n  token_bucket: { max_tokens: 10, tokens_per_fill: 10, fill_interval: 1s }",
        "limiter := rate.NewLimiter(rate.Every(time.Second), 5)",
        "app.use(rateLimit({ windowMs: 15 * 60 * 1000, limit: 100 }))",
        "{ windowMs: 60000, limit: 10, standardHeaders: 'draft-8' }",
        "from limits import parse; item = parse(\"10/minute\")",
        "options.AddFixedWindowLimiter(\"fixed\", o => { o.PermitLimit = 4; o.Window = TimeSpan.FromSeconds(12); });",
        "{ \"RateLimiting\": { \"PermitLimit\": 4, \"Window\": \"00:00:12\", \"QueueLimit\": 2 } }",
        "{ \"IpRateLimiting\": { \"GeneralRules\": [ { \"Endpoint\": \"*\", \"Period\": \"1s\", \"Limit\": 2 } ] } }",
        "RateLimiter limiter = RateLimiter.create(5.0);",
    ];

    #[test]
    fn no_text_cut_anywhere_makes_the_reader_panic() {
        for fixture in FIXTURES.iter().chain(OTHER_PRODUCTS) {
            for (at, _) in fixture.char_indices() {
                let cut = &fixture[..at];
                let _ = recognises(cut);
                let _ = read(cut);
            }
        }
    }

    // proptest is a native dev-dependency (the wasm32 lints build these tests too).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn no_text_at_all_makes_the_reader_panic(text in "[ -~\\n\\t{}()\\[\\]'\"`/*#=é]{0,80}") {
            let _ = recognises(&text);
            let _ = read(&text);
            let _ = read(&format!("[[ratelimits]]\nname = \"L\"\nsimple = {text}"));
            let _ = read(&format!("{{ \"ratelimits\": [ {{ {text}"));
        }
    }

    #[test]
    fn the_rows_own_snippet_reads_back_as_the_same_binding() {
        let windows = [
            Span::from_secs(1),
            Span::from_secs(10),
            Span::from_secs(60),
            Span::from_millis(500),
            Span::from_secs(3600),
        ];
        let mut variants = vec![super::super::Fields::default()];
        for period in PERIODS {
            for limit in [None, Some(1), Some(7), Some(MAX_COUNT)] {
                variants.push(super::super::Fields {
                    limit,
                    period: Some(period),
                });
            }
        }
        variants.push(super::super::Fields {
            limit: Some(3),
            period: None,
        });
        for limit in [1, 2, 5, 7, 100, 1000] {
            for window in windows {
                for variant in &variants {
                    let products = ProductSettings {
                        cf_binding: variant.clone(),
                        ..Default::default()
                    };
                    let s = RowSettings {
                        limit,
                        window,
                        products: &products,
                    };
                    let written = super::super::snippet::write(&s);
                    let wanted = match &written.nearest {
                        Some(n) => n.products.cf_binding.params(s.limit, s.window),
                        None => s.products.cf_binding.params(s.limit, s.window),
                    };
                    let from =
                        read(&written.text).unwrap_or_else(|e| panic!("{e}\n{}", written.text));
                    assert_eq!(from.row, "cf-binding");
                    assert_eq!(from.name.as_deref(), Some("RATE_LIMITER"));
                    let got = from.products.cf_binding.params(3, Span::from_secs(7));
                    assert_eq!(got, wanted, "{}", written.text);
                    assert!(recognises(&written.text));
                }
            }
        }
    }
}
