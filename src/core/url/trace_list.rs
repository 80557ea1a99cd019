//! The trace list, the grammar a link (`trace=`) and the page's storage use for a person's
//! traffic: comma-separated items `time[*cost][@key[@region[@route]]]`, times in seconds
//! (`8,8.398@tenant:a,600*17@k,9@tenant:a@syd@POST%20%2Flogin`), names percent-encoded
//! (`core::percent`: a name never holds a `,`, `@`, `&`, `#`, `+` or `%` of its own). The list is
//! split first, then each part of an item decoded, so a key may hold any character
//! (`1@acme%2C%20inc` is key `acme, inc`). A link may also carry the whole list escaped once more
//! (a form or `URLSearchParams` writes `1%2C2%40k`): a value with no `,` or `@` of its own is
//! decoded once before it is split.
//! A trace that would make the link too long (`super::MAX_QUERY_CHARS`) is kept in the browser's
//! IndexedDB as this same text, and the link names it instead: `trace=stored:<id>`, the id being
//! the first 64 bits of the text's SHA-256 (FIPS 180-4, `core::sha256`) in lowercase hex, so the
//! same trace always gets the same id.

use super::codec::{percent_decode, percent_encode};
use crate::core::region::Region;
use crate::core::sha256::sha256;
use crate::core::time::{format_seconds, parse_seconds, Time};
use crate::core::traffic::{parse_cost, Pattern, Point, DEFAULT_KEY, MAX_KEY_LEN};

/// The most request times a `trace=` parameter may carry (a link the page reads; the links it
/// writes are far shorter, `super::MAX_QUERY_CHARS`).
pub const MAX_TRACE_IN_URL: usize = 100_000;
/// `trace=stored:<id>`: the trace this browser keeps under `<id>`. Alone, `trace=stored` is a
/// link written before the ids, naming the one trace the page kept in `localStorage`.
pub const STORED_TRACE: &str = "stored";
/// The most requests the page keeps in the browser: opening a kept trace reads its whole list in
/// one step, which stays a fraction of a second at this size; a longer trace lasts until the
/// page is closed.
pub const MAX_KEPT_REQUESTS: usize = 200_000;
/// The characters of a kept trace's id: 64 bits in hex.
pub const TRACE_ID_LEN: usize = 16;

/// The id a trace list is kept under: the first 64 bits of its SHA-256, in lowercase hex. Made
/// from the text alone, so keeping the same trace twice keeps one copy under one id, and a link
/// names exactly the trace it was written for.
pub fn trace_id(list: &str) -> String {
    id_of(&sha256(list.as_bytes()))
}

/// A digest's first [`TRACE_ID_LEN`] hex digits.
pub(super) fn id_of(digest: &[u8; 32]) -> String {
    digest[..TRACE_ID_LEN / 2]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Reads a `trace=` value that names a kept trace: `None` when it names none (it is a list of
/// times), `Some(Ok(Some(id)))` for `stored:<id>`, `Some(Ok(None))` for the id-less `stored` of
/// earlier links, and `Some(Err(_))` for `stored:` followed by anything but an id. `raw` is the
/// value as the link holds it: its colon may be escaped (`stored%3A<id>`, as `URLSearchParams`
/// writes it), and names no key, so it is decoded whole first.
pub fn parse_kept_link(raw: &str) -> Option<Result<Option<String>, String>> {
    let decoded = crate::core::percent::percent_decode(raw);
    let rest = decoded.trim().strip_prefix(STORED_TRACE)?;
    if rest.is_empty() {
        return Some(Ok(None));
    }
    let id = rest.strip_prefix(':')?;
    let is_id = id.len() == TRACE_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    Some(match is_id {
        true => Ok(Some(id.to_string())),
        false => Err(format!(
            "after stored: comes the {TRACE_ID_LEN}-character id the page wrote (0-9 and a-f)"
        )),
    })
}

/// The `trace=` value naming the trace kept under `id` (`stored:<id>`), or the id-less `stored`.
pub fn kept_link(id: Option<&str>) -> String {
    match id {
        Some(id) => format!("{STORED_TRACE}:{id}"),
        None => STORED_TRACE.to_string(),
    }
}

/// Parses `trace=` as the link has it, undecoded: comma-separated seconds, each optionally
/// followed by `@key` (`1.5@tenant:a`); items without a key belong to the default key. The whole
/// list is refused on the first bad item, with its position, so a typo never silently drops a
/// request. A list escaped whole (no `,` or `@` of its own) is decoded once first.
pub fn parse_trace_list(raw: &str) -> Result<Vec<Point>, String> {
    if raw.contains([',', '@']) {
        parse_trace_items(raw, MAX_TRACE_IN_URL)
    } else {
        parse_trace_items(&percent_decode(raw), MAX_TRACE_IN_URL)
    }
}

/// A trace list as [`parse_trace_list`] reads it, with room for up to `max` items (the page's
/// storage holds longer lists than a link). An item is `time[*cost][@key[@region[@route]]]`:
/// `600*17@k` is a request for 17 at 600 s from key `k`.
pub fn parse_trace_items(raw: &str, max: usize) -> Result<Vec<Point>, String> {
    let items: Vec<&str> = raw.split(',').map(str::trim).collect();
    check_items(items.iter().all(|s| s.is_empty()), items.len(), max)?;
    let mut points = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if item.is_empty() && i + 1 == items.len() {
            continue; // a trailing comma
        }
        points.push(parse_item(i, item)?);
    }
    Ok(points)
}

/// Refuses a list whose items are all empty or more than `max`.
pub(super) fn check_items(all_empty: bool, count: usize, max: usize) -> Result<(), String> {
    if all_empty {
        return Err("the list of request times is empty".into());
    }
    if count > max {
        return Err(format!(
            "{count} request times is more than a link can carry ({max} at most)"
        ));
    }
    Ok(())
}

/// Reads item `i` (from 0) of a list, already trimmed and not yet decoded:
/// `time[*cost][@key[@region[@route]]]`, each part decoded once split off.
pub(super) fn parse_item(i: usize, item: &str) -> Result<Point, String> {
    let mut parts = item.splitn(4, '@').map(|part| {
        let decoded = percent_decode(part.trim());
        decoded.trim().to_string()
    });
    let head = parts.next().unwrap_or_default();
    let (time_text, cost) = match head.split_once('*') {
        Some((time, cost)) => (
            time,
            parse_cost(cost).map_err(|e| format!("item {} of the list: {e}", i + 1))?,
        ),
        None => (head.as_str(), 1),
    };
    let key = parts.next().unwrap_or_else(|| DEFAULT_KEY.to_string());
    if key.is_empty() || key.chars().count() > MAX_KEY_LEN || key.chars().any(char::is_control) {
        return Err(format!(
            "item {} of the list: the key after @ must be 1 to {MAX_KEY_LEN} printable characters",
            i + 1
        ));
    }
    let at = parse_seconds(time_text).map_err(|e| format!("item {} of the list: {e}", i + 1))?;
    let origin = match parts.next().filter(|r| !r.is_empty()) {
        Some(code) => Some(Region::from_code(code.as_str()).ok_or_else(|| {
            format!(
                "item {} of the list: \"{code}\" is not a region (fra, iad, gru, sin, syd, nrt)",
                i + 1
            )
        })?),
        None => None,
    };
    let route = parts.next().filter(|r| !r.is_empty());
    Ok(Point {
        at: Time(at),
        key,
        origin,
        route,
        cost,
    })
}

/// A person's trace as the `trace=` list (`8,8.398@tenant:a,9@tenant:a@syd@POST%20%2Flogin`,
/// names percent-encoded), or `None` for a preset or an empty trace. The page keeps a long trace
/// in its storage in this form.
pub fn trace_list(pattern: &Pattern) -> Option<String> {
    trace_list_within(pattern, usize::MAX)
}

/// [`trace_list`], or `None` as soon as the text would pass `max_chars` (so that a trace too
/// large to keep costs little to find out).
pub fn trace_list_within(pattern: &Pattern, max_chars: usize) -> Option<String> {
    let mut out = String::new();
    let mut push = |p: &Point| {
        if !out.is_empty() {
            out.push(',');
        }
        push_item(&mut out, p);
        out.len() <= max_chars
    };
    let fits = match pattern {
        Pattern::Trace(times) => times.iter().all(|&t| push(&Point::new(t, DEFAULT_KEY))),
        Pattern::Keyed(points) => points.iter().all(&mut push),
        _ => return None,
    };
    (fits && !out.is_empty()).then_some(out)
}

/// Writes one request as a list item: `time[*cost][@key[@region[@route]]]`, names
/// percent-encoded.
pub(super) fn push_item(out: &mut String, p: &Point) {
    out.push_str(&format_seconds(p.at.micros()));
    if p.cost != 1 {
        out.push('*');
        out.push_str(&p.cost.to_string());
    }
    if p.key != DEFAULT_KEY || p.origin.is_some() || p.route.is_some() {
        out.push('@');
        out.push_str(&percent_encode(&p.key));
    }
    if p.origin.is_some() || p.route.is_some() {
        out.push('@');
        out.push_str(p.origin.map(Region::code).unwrap_or_default());
    }
    if let Some(route) = &p.route {
        out.push('@');
        out.push_str(&percent_encode(route));
    }
}
