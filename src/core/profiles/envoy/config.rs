//! Reading an Envoy configuration (YAML, or JSON laid out one key a line) into the local rate
//! limit row's settings (`profiles::config_text`): the `token_bucket` of the HTTP filter
//! `envoy.filters.http.local_ratelimit` (`typed_config` of `@type`
//! `type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit`, or the
//! same message in a route's `typed_per_filter_config`), with its `stat_prefix` as the name.
//!
//! The values are Envoy's (envoyproxy/envoy: `api/envoy/type/v3/token_bucket.proto`, the local
//! rate limit's `local_ratelimit_impl.cc`, and the filter's documentation page
//! `configuration/http/http_filters/local_rate_limit_filter`): `max_tokens` and `tokens_per_fill`
//! are `uint32`s above 0, `tokens_per_fill` is 1 when left out, and `fill_interval` is a
//! protobuf `Duration` written as a string (`"1s"`, `"0.5s"`, up to nine decimals) that Envoy
//! reads in whole milliseconds (`PROTOBUF_GET_MS_REQUIRED`) and refuses under 50 ms ("local rate
//! limit token bucket fill timer must be >= 50ms").
//!
//! Which refill runs depends on the Envoy version, which a config does not say: current Envoy
//! (1.31 and later) refills continuously, the row's default. The timer refill of earlier Envoy is
//! read when a comment names such a version (`# Envoy 1.30 and earlier`, as the row's own snippet
//! writes) or when the runtime guard `envoy.reloadable_features.no_timer_based_rate_limit_token_bucket`
//! is set to `false`. Descriptors' own buckets, other filters' buckets, `filter_enabled` and
//! `filter_enforced` below 100 % (or left out, which Envoy takes as 0 %) are noted, not run.
//! Fixtures: Envoy's documentation examples under `docs/root/configuration/http/http_filters/
//! _include/local-rate-limit-*.yaml`.

use crate::core::config::{MAX_COUNT, MAX_WINDOW};
use crate::core::profiles::config_text::{
    before_comment, unquote, ConfigOf, FromConfig, Unreadable,
};
use crate::core::profiles::ProductSettings;
use crate::core::time::{Span, MICROS_PER_MILLI};

use super::{EnvoyRefill, Fields, MIN_FILL_INTERVAL};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises,
    read,
    forms: "Envoy YAML with `envoy.filters.http.local_ratelimit` and its `token_bucket`",
};

/// The runtime guard that, while it existed, switched the bucket back to the timer refill.
const TIMER_GUARD: &str = "envoy.reloadable_features.no_timer_based_rate_limit_token_bucket";

fn recognises(text: &str) -> bool {
    let entries = entries(text);
    let local = entries.iter().any(|e| {
        e.value.contains("envoy.filters.http.local_ratelimit")
            || e.value.contains("local_ratelimit.v3.LocalRateLimit")
            || e.key.as_deref() == Some("envoy.filters.http.local_ratelimit")
    });
    let has = |key: &str| entries.iter().any(|e| e.key.as_deref() == Some(key));
    // A fragment holding only the bucket is Envoy's too: no other product writes these keys.
    has("token_bucket") && (local || (has("fill_interval") && has("max_tokens")))
}

/// One line of the YAML: its number, indentation (a list's `- ` counted as indentation, so a
/// list item's keys line up), key and value (unquoted; empty for a block).
#[derive(Clone, Debug)]
struct Entry {
    line: usize,
    indent: usize,
    key: Option<String>,
    value: String,
    /// The line opens a list item (`- name: ...`): a new mapping starts with it.
    item: bool,
}

fn entries(text: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = before_comment(raw, "#");
        let mut indent = line.len() - line.trim_start().len();
        let mut content = line.trim();
        let item = content.starts_with("- ") || content == "-";
        while let Some(rest) = content
            .strip_prefix("- ")
            .or_else(|| (content == "-").then_some(""))
        {
            indent += content.len() - rest.trim_start().len();
            content = rest.trim_start();
        }
        if content.is_empty() {
            continue;
        }
        let (key, value) = match key_split(content) {
            Some((k, v)) => (Some(unquote(k)), v.trim()),
            None => (None, content),
        };
        let value = value.strip_suffix(',').unwrap_or(value).trim();
        out.push(Entry {
            line: i + 1,
            indent,
            key,
            value: value.to_string(),
            item,
        });
    }
    out
}

/// `content` split at its key's `:` (one followed by a space or the end, outside quotes).
fn key_split(content: &str) -> Option<(&str, &str)> {
    let mut quote: Option<char> = None;
    for (at, c) in content.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '{' | '[' => return None,
                ':' => {
                    let rest = &content[at + 1..];
                    if rest.is_empty() || rest.starts_with([' ', '\t']) {
                        return Some((&content[..at], rest));
                    }
                }
                _ => {}
            },
        }
    }
    None
}

/// The keys above entry `index`, nearest first.
fn ancestors(entries: &[Entry], index: usize) -> Vec<&Entry> {
    let mut out = Vec::new();
    let mut below = entries[index].indent;
    for e in entries[..index].iter().rev() {
        if e.indent < below && e.key.is_some() {
            out.push(e);
            below = e.indent;
        }
    }
    out
}

/// The entries at the level just below entry `index` (its block's own keys).
fn children(entries: &[Entry], index: usize) -> Vec<&Entry> {
    let indent = entries[index].indent;
    let block: Vec<&Entry> = entries[index + 1..]
        .iter()
        .take_while(|e| e.indent > indent)
        .collect();
    let level = block.iter().map(|e| e.indent).min().unwrap_or(0);
    block.into_iter().filter(|e| e.indent == level).collect()
}

/// The keys beside entry `index` in its own mapping.
fn siblings(entries: &[Entry], index: usize) -> Vec<&Entry> {
    let indent = entries[index].indent;
    // The mapping starts after a shallower line, or at the list item it opens with.
    let start = entries[..=index]
        .iter()
        .rposition(|e| e.indent < indent || (e.indent == indent && e.item))
        .map_or(0, |p| if entries[p].indent < indent { p + 1 } else { p });
    entries[start..]
        .iter()
        .enumerate()
        .take_while(|(n, e)| e.indent >= indent && !(*n > 0 && e.indent == indent && e.item))
        .map(|(_, e)| e)
        .filter(|e| e.indent == indent)
        .collect()
}

/// A mapping's value: its keys and values, from a block (`children`) or a flow map
/// (`{max_tokens: 5, fill_interval: 1s}`, possibly over several lines).
fn mapping(text: &str, entries: &[Entry], index: usize) -> Vec<(String, String, usize)> {
    let entry = &entries[index];
    if entry.value.starts_with('{') {
        let flow = flow_text(text, entry);
        return flow_pairs(&flow)
            .into_iter()
            .map(|(k, v)| (k, v, entry.line))
            .collect();
    }
    children(entries, index)
        .into_iter()
        .filter_map(|e| {
            let key = e.key.clone()?;
            let nested = entries
                .iter()
                .position(|x| x.line == e.line)
                .filter(|_| e.value.is_empty() || e.value == "{");
            // A nested block (`fill_interval:` with `seconds:` below) is kept as "{...}".
            let value = match nested {
                Some(_) => "{block}".to_string(),
                None => unquote(&e.value),
            };
            Some((key, value, e.line))
        })
        .collect()
}

/// The text of a flow map starting on `entry`'s line, up to its balancing `}`.
fn flow_text(text: &str, entry: &Entry) -> String {
    let mut out = String::new();
    let mut depth = 0i32;
    let lines = text.lines().skip(entry.line - 1);
    for (n, raw) in lines.enumerate() {
        let line = before_comment(raw, "#");
        let part = if n == 0 {
            line.find('{').map_or("", |at| &line[at..])
        } else {
            line
        };
        for c in part.chars() {
            out.push(c);
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return out;
                    }
                }
                _ => {}
            }
        }
        out.push(' ');
    }
    out
}

/// The `key: value` pairs of a flow map `{...}` (its top level).
fn flow_pairs(flow: &str) -> Vec<(String, String)> {
    let inner = flow
        .trim()
        .strip_prefix('{')
        .and_then(|s| s.trim_end().strip_suffix('}'))
        .unwrap_or("");
    let mut pairs = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 0;
    let mut push = |part: &str| {
        if let Some((k, v)) = part.split_once(':') {
            pairs.push((unquote(k), unquote(v)));
        }
    };
    for (at, c) in inner.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '{' | '[' => depth += 1,
                '}' | ']' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    push(&inner[start..at]);
                    start = at + 1;
                }
                _ => {}
            },
        }
    }
    push(&inner[start..]);
    pairs
}

/// A `token_bucket` found: its entry's index, and what it belongs to.
struct Bucket {
    index: usize,
    in_descriptor: bool,
    network: bool,
}

fn buckets(entries: &[Entry]) -> Vec<Bucket> {
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.key.as_deref() == Some("token_bucket"))
        .map(|(index, _)| {
            let above = ancestors(entries, index);
            let in_descriptor = above
                .iter()
                .any(|a| a.key.as_deref() == Some("descriptors"));
            let network = siblings(entries, index)
                .iter()
                .any(|s| s.key.as_deref() == Some("@type") && s.value.contains(".network."))
                || above.first().is_some_and(|parent| {
                    // The filter named beside its own `typed_config`.
                    parent.key.as_deref() == Some("typed_config")
                        && entries
                            .iter()
                            .position(|x| x.line == parent.line)
                            .is_some_and(|p| {
                                siblings(entries, p).iter().any(|s| {
                                    s.key.as_deref() == Some("name")
                                        && s.value.contains("filters.network.")
                                })
                            })
                });
            Bucket {
                index,
                in_descriptor,
                network,
            }
        })
        .collect()
}

fn read(text: &str) -> Result<FromConfig, Unreadable> {
    let entries = entries(text);
    let all = buckets(&entries);
    let Some(chosen) = all.iter().find(|b| !b.in_descriptor && !b.network) else {
        return Err(Unreadable::whole(if all.is_empty() {
            "no `token_bucket` in it: expected the local rate limit filter's `token_bucket` with `max_tokens` and `fill_interval`"
        } else {
            "no `token_bucket` of the HTTP local rate limit filter itself in it: the lab runs the filter's own bucket, not only its descriptors' or a network filter's"
        }));
    };
    let index = chosen.index;
    let bucket_line = entries[index].line;
    let fields = mapping(text, &entries, index);
    let value = |key: &str| fields.iter().find(|(k, _, _)| k == key);

    let max = match value("max_tokens") {
        Some((_, v, line)) => uint32(text, *line, "max_tokens", v)?,
        None => {
            return Err(Unreadable::at(
                text,
                bucket_line,
                "`token_bucket` without `max_tokens`",
            ))
        }
    };
    let fill = match value("tokens_per_fill") {
        Some((_, v, line)) => uint32(text, *line, "tokens_per_fill", v)?,
        None => 1,
    };
    let interval = match value("fill_interval") {
        Some((_, v, line)) => fill_interval(text, *line, v)?,
        None => {
            return Err(Unreadable::at(
                text,
                bucket_line,
                "`token_bucket` without `fill_interval`, which Envoy requires",
            ))
        }
    };
    let products = ProductSettings {
        envoy: Fields {
            max: Some(max),
            fill: Some(fill),
            interval: Some(interval),
            refill: Some(refill(text, &entries)),
        },
        ..ProductSettings::default()
    };
    let mut from = FromConfig::new("envoy", products);
    let beside = siblings(&entries, index);
    let sibling = |key: &str| beside.iter().find(|e| e.key.as_deref() == Some(key));
    from.name = sibling("stat_prefix").map(|e| unquote(&e.value));
    notes(text, &entries, &all, chosen, &mut from);
    Ok(from)
}

/// What the config holds besides the bucket that the row does not run.
fn notes(text: &str, entries: &[Entry], all: &[Bucket], chosen: &Bucket, from: &mut FromConfig) {
    let bucket_line = entries[chosen.index].line;
    let beside = siblings(entries, chosen.index);
    let sibling = |key: &str| {
        beside
            .iter()
            .find(|e| e.key.as_deref() == Some(key))
            .and_then(|e| entries.iter().position(|x| x.line == e.line))
    };
    for (key, what) in [("filter_enabled", "checks"), ("filter_enforced", "refuses")] {
        match sibling(key).map(|i| percent(text, entries, i)) {
            None => from.notes.push(format!(
                "`{key}` is not set, and Envoy then takes it as 0 %, so this filter {what} no request; the row {what} as if it were 100 %."
            )),
            Some(Some(p)) if p < 1.0 => from.notes.push(format!(
                "`{key}` is {} %; the row {what} every request, as at 100 %.",
                p * 100.0
            )),
            _ => {}
        }
    }
    let descriptors: Vec<usize> = all
        .iter()
        .filter(|b| b.in_descriptor)
        .map(|b| entries[b.index].line)
        .collect();
    if !descriptors.is_empty() {
        from.notes.push(format!(
            "The descriptors' own token buckets (line{} {}) limit only the requests they match; the row runs the filter's own bucket, on line {bucket_line}.",
            if descriptors.len() == 1 { "" } else { "s" },
            join(&descriptors)
        ));
    }
    for other in all
        .iter()
        .filter(|b| !b.in_descriptor && b.index != chosen.index)
    {
        let line = entries[other.index].line;
        from.notes.push(if other.network {
            format!("The network filter's token bucket on line {line} counts connections, not requests; it is not run.")
        } else {
            format!("Another local rate limit's token bucket is on line {line}; only the first, on line {bucket_line}, sets the row.")
        });
    }
    if let Some(i) = sibling("local_rate_limit_per_downstream_connection") {
        if entries[i].value == "true" {
            from.notes.push(format!(
                "`local_rate_limit_per_downstream_connection` (line {}) gives each connection its own bucket; the row keeps one for every request.",
                entries[i].line
            ));
        }
    }
    if let Some(i) = sibling("status") {
        from.notes.push(format!(
            "The filter's own `status` (line {}) is not modelled; the row answers 429.",
            entries[i].line
        ));
    }
}

fn join(lines: &[usize]) -> String {
    lines
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A `RuntimeFractionalPercent`'s `default_value` as a fraction (numerator over HUNDRED,
/// TEN_THOUSAND or MILLION), when it can be read.
fn percent(text: &str, entries: &[Entry], index: usize) -> Option<f64> {
    let outer = mapping(text, entries, index);
    let (_, default, line) = outer.iter().find(|(k, _, _)| k == "default_value")?;
    let pairs = if default.starts_with('{') && default != "{block}" {
        flow_pairs(default)
    } else {
        let at = entries.iter().position(|e| e.line == *line)?;
        mapping(text, entries, at)
            .into_iter()
            .map(|(k, v, _)| (k, v))
            .collect()
    };
    let get = |key: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let numerator: f64 = get("numerator").unwrap_or("0").parse().ok()?;
    let denominator = match get("denominator").unwrap_or("HUNDRED") {
        "HUNDRED" | "0" => 100.0,
        "TEN_THOUSAND" | "1" => 10_000.0,
        "MILLION" | "2" => 1_000_000.0,
        _ => return None,
    };
    Some(numerator / denominator)
}

/// The refill of the Envoy version the config says it runs on, current Envoy's when it says none.
fn refill(text: &str, entries: &[Entry]) -> EnvoyRefill {
    // The runtime guard set to false brings the timer back (1.31 to 1.33).
    if let Some(guard) = entries
        .iter()
        .find(|e| e.key.as_deref().is_some_and(|k| k.ends_with(TIMER_GUARD)))
    {
        if guard.value == "false" {
            return EnvoyRefill::Timer;
        }
    }
    // A comment naming the version: "Envoy 1.30 and earlier", "Envoy 1.29".
    for raw in text.lines() {
        let comment = raw.trim_start();
        let Some(comment) = comment.strip_prefix('#') else {
            continue;
        };
        let Some(at) = comment.find("Envoy 1.") else {
            continue;
        };
        let rest = &comment[at + "Envoy 1.".len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let later = rest[digits.len()..].trim_start().starts_with("and later")
            || rest[digits.len()..].trim_start().starts_with("or later");
        if let Ok(minor) = digits.parse::<u32>() {
            if minor <= 30 && !later {
                return EnvoyRefill::Timer;
            }
            return EnvoyRefill::Continuous;
        }
    }
    EnvoyRefill::Continuous
}

/// A `uint32` above 0 that the lab can hold.
fn uint32(text: &str, line: usize, key: &str, value: &str) -> Result<u64, Unreadable> {
    let at = |why: String| Unreadable::at(text, line, why);
    let n: u64 = value
        .trim()
        .parse()
        .map_err(|_| at(format!("`{key}: {value}` is not a whole number")))?;
    if n == 0 {
        return Err(at(format!("`{key}` must be above 0")));
    }
    if n > u64::from(u32::MAX) {
        return Err(at(format!(
            "`{key}: {n}` is more than a uint32 holds, which Envoy refuses"
        )));
    }
    if n > MAX_COUNT {
        return Err(at(format!(
            "`{key}: {n}` is more than the lab's largest, {MAX_COUNT}"
        )));
    }
    Ok(n)
}

/// A protobuf `Duration` string as Envoy reads `fill_interval`: in whole milliseconds, at least
/// 50.
fn fill_interval(text: &str, line: usize, value: &str) -> Result<Span, Unreadable> {
    let at = |why: String| Unreadable::at(text, line, why);
    if value.starts_with('{') {
        return Err(at(
            "Envoy reads a Duration written as a string such as `1s` or `0.5s`, not as seconds and nanos".to_string(),
        ));
    }
    let not_duration = || {
        at(format!(
            "`fill_interval: {value}` is not a Duration: write seconds with an `s`, such as `1s` or `0.5s`"
        ))
    };
    let seconds = value.trim().strip_suffix('s').ok_or_else(not_duration)?;
    if seconds.starts_with('-') {
        return Err(at(format!("`fill_interval: {value}` must be above 0")));
    }
    let (whole, frac) = seconds.split_once('.').unwrap_or((seconds, ""));
    if whole.is_empty()
        || whole.len() > 12
        || frac.len() > 9
        || !whole
            .chars()
            .chain(frac.chars())
            .all(|c| c.is_ascii_digit())
        || (seconds.contains('.') && frac.is_empty())
    {
        return Err(not_duration());
    }
    let whole: u64 = whole.parse().map_err(|_| not_duration())?;
    let nanos: u64 = format!("{frac:0<9}").parse().map_err(|_| not_duration())?;
    if whole == 0 && nanos == 0 {
        return Err(at(format!("`fill_interval: {value}` must be above 0")));
    }
    // Envoy keeps whole milliseconds, the rest dropped.
    let ms = whole
        .saturating_mul(1_000)
        .saturating_add(nanos / 1_000_000);
    let interval = Span(ms.saturating_mul(MICROS_PER_MILLI));
    if interval < MIN_FILL_INTERVAL {
        return Err(at(
            "Envoy refuses it: \"local rate limit token bucket fill timer must be >= 50ms\""
                .to_string(),
        ));
    }
    if interval > MAX_WINDOW {
        return Err(at(format!(
            "`fill_interval: {value}` is longer than the lab's longest window, 366 days"
        )));
    }
    Ok(interval)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::profiles::RowSettings;

    fn read_ok(text: &str) -> FromConfig {
        match read(text) {
            Ok(from) => from,
            Err(e) => panic!("{e}"),
        }
    }

    fn bucket(max: u64, fill: u64, interval: Span, refill: EnvoyRefill) -> Fields {
        Fields {
            max: Some(max),
            fill: Some(fill),
            interval: Some(interval),
            refill: Some(refill),
        }
    }

    // envoyproxy/envoy, docs/root/configuration/http/http_filters/_include/
    // local-rate-limit-global-configuration.yaml (commit 7e05cfee), the filter's part.
    const DOC_GLOBAL: &str = "static_resources:
  listeners:
  - address:
      socket_address:
        address: 0.0.0.0
        port_value: 8000
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          \"@type\": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: ingress_http
          http_filters:
          - name: envoy.filters.http.local_ratelimit
            typed_config:
              \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
              stat_prefix: http_local_rate_limiter
              token_bucket:
                max_tokens: 10000
                tokens_per_fill: 1000
                fill_interval: 1s
              filter_enabled:
                runtime_key: local_rate_limit_enabled
                default_value:
                  numerator: 100
                  denominator: HUNDRED
              filter_enforced:
                runtime_key: local_rate_limit_enforced
                default_value:
                  numerator: 100
                  denominator: HUNDRED
              response_headers_to_add:
              - append_action: OVERWRITE_IF_EXISTS_OR_ADD
                header:
                  key: x-local-rate-limit
                  value: 'true'
              local_rate_limit_per_downstream_connection: false
          - name: envoy.filters.http.router
            typed_config:
              \"@type\": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
";

    // envoyproxy/envoy, docs/.../_include/local-rate-limit-route-specific-configuration.yaml
    // (commit 1b03764d): the filter in the chain without a bucket, and the route's own.
    const DOC_ROUTE: &str = "          http_filters:
          - name: envoy.filters.http.local_ratelimit
            typed_config:
              \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
              stat_prefix: http_local_rate_limiter
          - name: envoy.filters.http.router
            typed_config:
              \"@type\": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
          route_config:
            name: local_route
            virtual_hosts:
            - name: local_service
              domains: [\"*\"]
              routes:
              - match: {prefix: \"/path/with/rate/limit\"}
                route: {cluster: service_protected_by_rate_limit}
                typed_per_filter_config:
                  envoy.filters.http.local_ratelimit:
                    \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
                    stat_prefix: http_local_rate_limiter
                    token_bucket:
                      max_tokens: 10000
                      tokens_per_fill: 1000
                      fill_interval: 1s
                    filter_enabled:
                      runtime_key: local_rate_limit_enabled
                      default_value:
                        numerator: 100
                        denominator: HUNDRED
                    filter_enforced:
                      runtime_key: local_rate_limit_enforced
                      default_value:
                        numerator: 100
                        denominator: HUNDRED
";

    // envoyproxy/envoy, docs/.../_include/local-rate-limit-with-descriptors.yaml (commit
    // 55964045), the route's filter config with its two descriptors.
    const DOC_DESCRIPTORS: &str = "                typed_per_filter_config:
                  envoy.filters.http.local_ratelimit:
                    \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
                    stat_prefix: test
                    token_bucket:
                      max_tokens: 1000
                      tokens_per_fill: 1000
                      fill_interval: 60s
                    filter_enabled:
                      runtime_key: test_enabled
                      default_value:
                        numerator: 100
                        denominator: HUNDRED
                    filter_enforced:
                      runtime_key: test_enforced
                      default_value:
                        numerator: 100
                        denominator: HUNDRED
                    descriptors:
                    - entries:
                      - key: client_cluster
                        value: foo
                      - key: path
                        value: /foo/bar
                      token_bucket:
                        max_tokens: 10
                        tokens_per_fill: 10
                        fill_interval: 60s
                    - entries:
                      - key: client_cluster
                        value: foo
                      - key: path
                        value: /foo/bar2
                      token_bucket:
                        max_tokens: 100
                        tokens_per_fill: 100
                        fill_interval: 60s
";

    const FIXTURES: [&str; 3] = [DOC_GLOBAL, DOC_ROUTE, DOC_DESCRIPTORS];

    #[test]
    fn the_documented_configs_give_envoys_own_token_bucket() {
        let global = read_ok(DOC_GLOBAL);
        assert_eq!(global.row, "envoy");
        assert_eq!(
            global.products.envoy,
            bucket(10_000, 1_000, Span::from_secs(1), EnvoyRefill::Continuous)
        );
        assert_eq!(global.name.as_deref(), Some("http_local_rate_limiter"));
        assert!(global.notes.is_empty(), "{:?}", global.notes);

        let route = read_ok(DOC_ROUTE);
        assert_eq!(
            route.products.envoy,
            bucket(10_000, 1_000, Span::from_secs(1), EnvoyRefill::Continuous)
        );
        assert!(route.notes.is_empty(), "{:?}", route.notes);

        let described = read_ok(DOC_DESCRIPTORS);
        assert_eq!(
            described.products.envoy,
            bucket(1_000, 1_000, Span::from_secs(60), EnvoyRefill::Continuous)
        );
        assert_eq!(described.name.as_deref(), Some("test"));
        assert_eq!(
            described.notes,
            vec!["The descriptors' own token buckets (lines 25, 34) limit only the requests they match; the row runs the filter's own bucket, on line 5."]
        );
        assert_eq!(described.second, None);
    }

    #[test]
    fn tokens_per_fill_is_one_when_left_out_and_the_interval_whole_milliseconds() {
        let text = "name: envoy.filters.http.local_ratelimit
typed_config:
  stat_prefix: api
  token_bucket: {max_tokens: 5, fill_interval: 0.0509999s}
  filter_enabled: {default_value: {numerator: 100, denominator: HUNDRED}}
  filter_enforced: {default_value: {numerator: 100}}";
        let from = read_ok(text);
        assert_eq!(
            from.products.envoy,
            bucket(5, 1, Span::from_millis(50), EnvoyRefill::Continuous)
        );
        assert!(from.notes.is_empty(), "{:?}", from.notes);
    }

    #[test]
    fn the_timer_refill_is_read_from_a_version_comment_or_the_runtime_guard() {
        let body = "- name: envoy.filters.http.local_ratelimit\n  typed_config:\n    token_bucket: {max_tokens: 5, tokens_per_fill: 5, fill_interval: 10s}\n";
        let refill = |text: &str| read_ok(text).products.envoy.refill;
        assert_eq!(
            refill(&format!("# Envoy 1.30 and earlier\n{body}")),
            Some(EnvoyRefill::Timer)
        );
        assert_eq!(
            refill(&format!("# runs on Envoy 1.28\n{body}")),
            Some(EnvoyRefill::Timer)
        );
        assert_eq!(
            refill(&format!("# Envoy 1.31 and later\n{body}")),
            Some(EnvoyRefill::Continuous)
        );
        assert_eq!(refill(body), Some(EnvoyRefill::Continuous));
        let guard = format!("{body}layered_runtime:\n  layers:\n  - name: static\n    static_layer:\n      {TIMER_GUARD}: false\n");
        assert_eq!(refill(&guard), Some(EnvoyRefill::Timer));
    }

    #[test]
    fn filter_enabled_and_enforced_left_out_or_below_full_are_noted() {
        let text = "- name: envoy.filters.http.local_ratelimit
  typed_config:
    stat_prefix: edge
    token_bucket:
      max_tokens: 3
      fill_interval: 1s
    filter_enabled:
      default_value:
        numerator: 50
    local_rate_limit_per_downstream_connection: true
    status:
      code: BadRequest";
        let from = read_ok(text);
        assert_eq!(
            from.notes,
            vec![
                "`filter_enabled` is 50 %; the row checks every request, as at 100 %.",
                "`filter_enforced` is not set, and Envoy then takes it as 0 %, so this filter refuses no request; the row refuses as if it were 100 %.",
                "`local_rate_limit_per_downstream_connection` (line 10) gives each connection its own bucket; the row keeps one for every request.",
                "The filter's own `status` (line 11) is not modelled; the row answers 429.",
            ]
        );
    }

    #[test]
    fn what_envoy_or_the_reader_refuses_is_refused_naming_its_line() {
        let with = |bucket: &str| {
            format!("- name: envoy.filters.http.local_ratelimit\n  typed_config:\n    token_bucket:\n{bucket}")
        };
        let cases = [
            (
                "      max_tokens: 5\n      fill_interval: 0.049s",
                5,
                "Envoy refuses it: \"local rate limit token bucket fill timer must be >= 50ms\"",
            ),
            ("      max_tokens: 5\n      fill_interval: 0.0509s", 0, ""),
            (
                "      max_tokens: 5\n      fill_interval: 60",
                5,
                "is not a Duration: write seconds with an `s`",
            ),
            (
                "      max_tokens: 5\n      fill_interval:\n        seconds: 1",
                5,
                "not as seconds and nanos",
            ),
            (
                "      max_tokens: 5\n      fill_interval: 0s",
                5,
                "must be above 0",
            ),
            (
                "      max_tokens: 0\n      fill_interval: 1s",
                4,
                "`max_tokens` must be above 0",
            ),
            (
                "      max_tokens: ten\n      fill_interval: 1s",
                4,
                "`max_tokens: ten` is not a whole number",
            ),
            (
                "      max_tokens: 5000000000\n      fill_interval: 1s",
                4,
                "more than a uint32 holds",
            ),
            (
                "      max_tokens: 2000000000\n      fill_interval: 1s",
                4,
                "more than the lab's largest",
            ),
            (
                "      max_tokens: 5\n      tokens_per_fill: 0\n      fill_interval: 1s",
                5,
                "`tokens_per_fill` must be above 0",
            ),
            (
                "      fill_interval: 1s",
                3,
                "`token_bucket` without `max_tokens`",
            ),
            (
                "      max_tokens: 5",
                3,
                "`token_bucket` without `fill_interval`",
            ),
        ];
        for (bucket, line, why) in cases {
            let text = with(bucket);
            match read(&text) {
                Ok(_) if line == 0 => {}
                Err(e) => {
                    assert_eq!(e.line, line, "{text}: {e}");
                    assert!(e.why.contains(why), "{text}: {e}");
                }
                Ok(from) => panic!("{text}: {from:?}"),
            }
        }
        let e =
            read("- name: envoy.filters.http.local_ratelimit\n  typed_config:\n    stat_prefix: x")
                .unwrap_err();
        assert_eq!(e.line, 0);
        assert!(e.why.starts_with("no `token_bucket` in it"), "{e}");
        let only_descriptors = "typed_config:\n  descriptors:\n  - entries:\n    - key: k\n    token_bucket: {max_tokens: 1, fill_interval: 1s}";
        let e = read(only_descriptors).unwrap_err();
        assert!(e.why.contains("not only its descriptors'"), "{e}");
    }

    #[test]
    fn a_second_filters_bucket_and_a_network_filters_are_noted() {
        let text = "- name: envoy.filters.network.local_ratelimit
  typed_config:
    \"@type\": type.googleapis.com/envoy.extensions.filters.network.local_ratelimit.v3.LocalRateLimit
    stat_prefix: conns
    token_bucket: {max_tokens: 100, fill_interval: 1s}
- name: envoy.filters.http.local_ratelimit
  typed_config:
    \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
    stat_prefix: api
    token_bucket: {max_tokens: 10, tokens_per_fill: 2, fill_interval: 2s}
    filter_enabled: {default_value: {numerator: 100}}
    filter_enforced: {default_value: {numerator: 100}}
- name: envoy.filters.http.local_ratelimit
  typed_config:
    stat_prefix: login
    token_bucket: {max_tokens: 1, fill_interval: 60s}
    filter_enabled: {default_value: {numerator: 100}}
    filter_enforced: {default_value: {numerator: 100}}";
        let from = read_ok(text);
        assert_eq!(
            from.products.envoy,
            bucket(10, 2, Span::from_secs(2), EnvoyRefill::Continuous)
        );
        assert_eq!(from.name.as_deref(), Some("api"));
        assert_eq!(
            from.notes,
            vec![
                "The network filter's token bucket on line 5 counts connections, not requests; it is not run.",
                "Another local rate limit's token bucket is on line 16; only the first, on line 10, sets the row.",
            ]
        );
    }

    #[test]
    fn the_recogniser_says_no_to_the_other_products_configs() {
        let others = [
            "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;",
            "let q = Quota::per_second(nonzero!(50u32));",
            "CL.THROTTLE user123 15 30 60 1",
            "const ratelimit = new Ratelimit({ limiter: Ratelimit.slidingWindow(10, \"10 s\") });",
            "[[unsafe.bindings]]\nname = \"MY_RATE_LIMITER\"\ntype = \"ratelimit\"\nsimple = { limit = 100, period = 60 }",
            "limiter := rate.NewLimiter(rate.Every(100*time.Millisecond), 5)",
            "const limiter = rateLimit({ windowMs: 15 * 60 * 1000, limit: 100 })",
            "from limits import parse; parse(\"10/minute\")",
            "{ \"RateLimiting\": { \"PermitLimit\": 4, \"Window\": \"00:00:12\" } }",
            "final RateLimiter rateLimiter = RateLimiter.create(2.0);",
        ];
        for text in others {
            assert!(!recognises(text), "{text}");
        }
        for fixture in FIXTURES {
            assert!(recognises(fixture));
        }
    }

    #[test]
    fn no_prefix_of_a_fixture_makes_the_reader_panic() {
        for fixture in FIXTURES {
            for (at, _) in fixture.char_indices() {
                let _ = recognises(&fixture[..at]);
                let _ = read(&fixture[..at]);
            }
        }
    }

    // proptest is a native dev-dependency (the wasm32 lints build these tests too).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn no_text_makes_the_reader_panic(text in "(token_bucket|max_tokens|fill_interval|descriptors|local_ratelimit|- |: |[{},#:\"0-9a-z. \n-])*") {
            let _ = read(&text);
        }
    }

    #[test]
    fn the_rows_own_snippet_reads_back_to_the_same_bucket() {
        let windows = [
            Span::from_secs(1),
            Span::from_secs(10),
            Span::from_secs(60),
            Span::from_millis(500),
            Span::from_secs(3600),
        ];
        let mut sets = vec![Fields::default()];
        for refill in [
            None,
            Some(EnvoyRefill::Timer),
            Some(EnvoyRefill::Continuous),
        ] {
            for (max, fill) in [(None, None), (Some(1), Some(1)), (Some(MAX_COUNT), Some(3))] {
                for interval in [
                    None,
                    Some(Span::from_millis(50)),
                    Some(Span(50_999)),
                    Some(Span::from_secs(86_400)),
                ] {
                    sets.push(Fields {
                        max,
                        fill,
                        interval,
                        refill,
                    });
                }
            }
        }
        for limit in [1, 2, 5, 7, 100, 1000] {
            for window in windows {
                for set in &sets {
                    let products = ProductSettings {
                        envoy: set.clone(),
                        ..ProductSettings::default()
                    };
                    let s = RowSettings {
                        limit,
                        window,
                        products: &products,
                    };
                    let written = super::super::snippet::write(&s);
                    assert!(written.nearest.is_none());
                    let mut want = products.envoy.params(limit, window);
                    // The limiter reads the interval in whole milliseconds.
                    want.fill_interval =
                        Span::from_millis(want.fill_interval.micros() / MICROS_PER_MILLI);
                    let from = read_ok(&written.text);
                    assert_eq!(from.row, "envoy");
                    assert_eq!(from.products.envoy.params(3, Span::from_secs(9)), want);
                    assert_eq!(from.name.as_deref(), Some("http_local_rate_limiter"));
                    assert!(from.notes.is_empty(), "{:?}", from.notes);
                }
            }
        }
    }
}
