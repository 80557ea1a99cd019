//! Reading nginx's own config into its row's settings (`profiles::config_text`): a whole
//! `nginx.conf` (`http { server { location { } } }`) or a fragment of one, with the directives of
//! `ngx_http_limit_req_module`:
//!
//! - `limit_req_zone KEY zone=NAME:SIZE rate=Nr/s|Nr/m [sync];`
//! - `limit_req zone=NAME [burst=N] [nodelay | delay=N];`
//! - `limit_req_status CODE;` and `limit_req_dry_run on|off;`
//!
//! The words are nginx's own (nginx.org/en/docs/http/ngx_http_limit_req_module.html), and the
//! reading follows the module's directive parsers and its merge of a location's settings with the
//! enclosing blocks' (nginx/nginx, `src/http/modules/ngx_http_limit_req_module.c`:
//! `ngx_http_limit_req_zone`, `ngx_http_limit_req`, `ngx_http_limit_req_merge_conf`):
//! - a rate written without a unit (`rate=10`) is requests per second, as `ngx_atoi` reads it;
//!   `burst=` and `delay=` take a whole number from 1 (`burst=0` is refused by nginx, so here
//!   too); `nodelay` and `delay=` are read in order, the later one winning;
//! - a block's `limit_req` list replaces its parents' only when it has one of its own, and
//!   `limit_req_status` is the innermost one set, 503 when none is (400 to 599 accepted);
//! - a zone may be defined after a `limit_req` uses it, but never twice, and a zone no
//!   `limit_req_zone` defines is refused, as nginx refuses to start with it.
//!
//! One nginx row runs one zone: the one the first `limit_req` of the first location that has one
//! applies (else the first `limit_req` of any block, else the first zone defined, with nginx's
//! defaults for `limit_req`). A second `limit_req` on the same requests becomes the lab's second
//! limit when that limit says it exactly (see [`second_limit`]); the rest is named in notes.
//!
//! Choice where nginx has a default the lab does not take: a `limit_req_zone` without `rate=` is
//! refused, although nginx would run it at 1r/s, because a zone with no rate written is almost
//! always a paste that lost a word.

use crate::core::config::{MAX_LAB_LIMIT, MAX_LAB_WINDOW, MIN_LAB_WINDOW};
use crate::core::profiles::config_text::{ConfigOf, FromConfig, Unreadable};
use crate::core::profiles::ProductSettings;
use crate::core::second_limit::{SecondKey, SecondLimit, Spend};
use crate::core::time::{format_seconds, Span, MICROS_PER_SEC};

use super::{parse_rate, Fields, NginxDelay, NginxLimitReq, NginxParams, NginxRate};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises,
    read,
    forms: "`limit_req_zone ... rate=` with `limit_req zone=...`",
};

/// nginx's own words: a `limit_req_zone`, or a `limit_req zone=`.
fn recognises(text: &str) -> bool {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or(""))
        .any(|line| {
            let mut words = line.split_whitespace();
            while let Some(word) = words.next() {
                if word == "limit_req_zone" {
                    return true;
                }
                if word == "limit_req"
                    && words.clone().next().is_some_and(|w| w.starts_with("zone="))
                {
                    return true;
                }
            }
            false
        })
}

/// A word of the config, unquoted, with the line it starts on.
#[derive(Clone, Debug)]
struct Word {
    text: String,
    line: usize,
}

/// What nginx's config is made of: words, and the `;`, `{` and `}` that end them.
#[derive(Clone, Debug)]
enum Piece {
    Word(Word),
    Semicolon,
    Open,
    Close,
}

/// The config cut into nginx's pieces: `#` starts a comment at the start of a word, quotes hold
/// spaces and `;`, and `${name}` stays inside its word.
fn pieces(text: &str) -> Result<Vec<Piece>, Unreadable> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            c if c.is_whitespace() => {}
            '#' => {
                while chars.peek().is_some_and(|&n| n != '\n') {
                    chars.next();
                }
            }
            ';' => out.push(Piece::Semicolon),
            '{' => out.push(Piece::Open),
            '}' => out.push(Piece::Close),
            '"' | '\'' => {
                let start = line;
                let mut word = String::new();
                let mut closed = false;
                while let Some(n) = chars.next() {
                    if n == '\n' {
                        line += 1;
                    }
                    if n == '\\' {
                        if let Some(escaped) = chars.next() {
                            if escaped == '\n' {
                                line += 1;
                            }
                            word.push(escaped);
                        }
                    } else if n == c {
                        closed = true;
                        break;
                    } else {
                        word.push(n);
                    }
                }
                if !closed {
                    return Err(Unreadable::at(
                        text,
                        start,
                        format!("the quote {c} opened here is never closed"),
                    ));
                }
                out.push(Piece::Word(Word {
                    text: word,
                    line: start,
                }));
            }
            _ => {
                let mut word = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n == '{' && word.ends_with('$') {
                        // `${name}`: a variable, not a block.
                        for v in chars.by_ref() {
                            word.push(v);
                            if v == '}' {
                                break;
                            }
                        }
                        continue;
                    }
                    if n.is_whitespace() || matches!(n, ';' | '{' | '}' | '"' | '\'') {
                        break;
                    }
                    word.push(n);
                    chars.next();
                }
                // The `...` documentation writes for "the rest of the config" is no word.
                if word != "..." && word != "…" {
                    out.push(Piece::Word(Word { text: word, line }));
                }
            }
        }
    }
    Ok(out)
}

/// A zone: `limit_req_zone KEY zone=NAME:SIZE rate=...`.
#[derive(Clone, Debug)]
struct Zone {
    name: String,
    key: String,
    rate: NginxRate,
    line: usize,
    /// The block it is written in.
    block: usize,
    /// `sync` (NGINX Plus: the zone shared across a cluster).
    sync: bool,
    /// The rate was written without `r/s` or `r/m`.
    bare_rate: bool,
}

/// One `limit_req zone=NAME [burst=N] [nodelay | delay=N]`.
#[derive(Clone, Debug)]
struct LimitReq {
    zone: String,
    burst: u64,
    delay: NginxDelay,
    line: usize,
}

/// A block (`http`, `server`, `location /api/`, ...) and what it sets itself.
#[derive(Clone, Debug)]
struct Block {
    /// How a note names it: "`location /api/`", "the `server` block".
    label: String,
    is_location: bool,
    parent: Option<usize>,
    limits: Vec<LimitReq>,
    status: Option<u16>,
    dry_run: Option<bool>,
}

/// Everything of the module the config holds.
struct Parsed {
    zones: Vec<Zone>,
    /// In the order they open; 0 is the text's top level.
    blocks: Vec<Block>,
}

fn read(text: &str) -> Result<FromConfig, Unreadable> {
    let parsed = parse(text)?;
    for block in &parsed.blocks {
        for limit in &block.limits {
            if !parsed.zones.iter().any(|z| z.name == limit.zone) {
                return Err(Unreadable::at(
                    text,
                    limit.line,
                    format!(
                        "`limit_req` names zone `{}`, which no `limit_req_zone` defines",
                        limit.zone
                    ),
                ));
            }
        }
    }
    let chosen = choose(&parsed).ok_or_else(|| {
        Unreadable::whole(
            "no `limit_req_zone` in it: nginx's limit is a `limit_req_zone KEY zone=NAME:SIZE rate=...;` that a `limit_req zone=NAME;` applies",
        )
    })?;
    let zone_of = |name: &str| parsed.zones.iter().find(|z| z.name == name);
    let Some(first_zone) = zone_of(&chosen.limits[0].zone) else {
        return Err(Unreadable::whole("the zone the row runs is not defined"));
    };
    let first = &chosen.limits[0];
    let params = NginxParams {
        rate: first_zone.rate,
        burst: first.burst,
        delay: first.delay,
        status: chosen.status,
    };
    if let Err(e) = NginxLimitReq::new(params) {
        let line = if chosen.defined_only {
            first_zone.line
        } else {
            first.line
        };
        return Err(Unreadable::at(
            text,
            line,
            format!("{e}, more than the lab runs"),
        ));
    }
    let products = ProductSettings {
        nginx: Fields {
            rate: Some(params.rate),
            burst: Some(params.burst),
            delay: Some(params.delay),
            status: Some(params.status),
        },
        ..ProductSettings::default()
    };
    let mut from = FromConfig::new(super::ROW.slug, products);
    from.name = Some(first_zone.name.clone());
    let place = parsed.blocks[chosen.block].label.clone();

    if chosen.defined_only {
        from.notes.push(format!(
            "No `limit_req` applies a zone, so nginx limits nothing yet; the row runs zone `{}` as `limit_req zone={};` would: no burst, every excess request delayed.",
            first_zone.name, first_zone.name
        ));
    }
    from.notes.push(format!(
        "Zone `{}` counts requests per `{}`; the lab counts them by each request's own key (its address, tenant or whatever the traffic names).",
        first_zone.name, first_zone.key
    ));

    // The second `limit_req` on the same requests, and any after it.
    let mut shown = vec![first_zone.name.clone()];
    if let Some(second) = chosen.limits.get(1) {
        if let Some(second_zone) = zone_of(&second.zone) {
            let second_params = NginxParams {
                rate: second_zone.rate,
                burst: second.burst,
                delay: second.delay,
                status: chosen.status,
            };
            let said = format!(
                "zone `{}` ({})",
                second_zone.name,
                second_params.directive()
            );
            match (second_zone.key == first_zone.key, second_limit(&second_params)) {
                (true, Some((count, window))) => {
                    shown.push(second_zone.name.clone());
                    from.second = Some(SecondLimit {
                        count,
                        window,
                        key: SecondKey::Same,
                        spend: Spend::Passed,
                    });
                    from.notes.push(format!(
                        "{place} applies {said} too: it is the lab's second limit, {count} per {} s on the same key, and as nginx does, a request counts in both zones only when both let it through.",
                        format_seconds(window.micros())
                    ));
                }
                (false, _) => from.notes.push(format!(
                    "{place} applies {said} too, but the lab's second limit is not shown: that zone counts per `{}`, not per `{}`, and the lab's second limit counts on the same key as the first.",
                    second_zone.key, first_zone.key
                )),
                (true, None) => from.notes.push(format!(
                    "{place} applies {said} too, but the lab's second limit is not shown: it runs nginx's defaults for a count and a window (a burst one less than the count, every excess request delayed, refusals answered 503), and this `limit_req` is not that for any count and window."
                )),
            }
        }
        for more in chosen.limits.iter().skip(2) {
            from.notes.push(format!(
                "{place} applies zone `{}` as well; the lab shows at most two limits, so it is not shown.",
                more.zone
            ));
        }
    }

    // The other zones, and the other places the row's zone is applied differently.
    let why = match (chosen.defined_only, parsed.blocks[chosen.block].is_location) {
        (true, _) => "the first defined, as no `limit_req` applies any",
        (false, true) => "the first a location applies",
        (false, false) => "the first a `limit_req` applies",
    };
    let named: Vec<&str> = chosen.limits.iter().map(|l| l.zone.as_str()).collect();
    for zone in parsed
        .zones
        .iter()
        .filter(|z| !named.contains(&z.name.as_str()))
    {
        let users: Vec<String> = parsed
            .blocks
            .iter()
            .filter(|b| b.limits.iter().any(|l| l.zone == zone.name))
            .map(|b| b.label.clone())
            .collect();
        let used = match users.as_slice() {
            [] => "no `limit_req` applies it".to_string(),
            [one] => format!("{one} applies it"),
            many => format!("{} apply it", many.join(", ")),
        };
        from.notes.push(format!(
            "Zone `{}` (rate={}) is defined too; {used}. The row runs `{}`, {why}.",
            zone.name, zone.rate, first_zone.name
        ));
    }
    for (i, block) in parsed.blocks.iter().enumerate() {
        if i == chosen.block {
            continue;
        }
        for other in block.limits.iter().filter(|l| l.zone == first_zone.name) {
            if other.burst != first.burst || other.delay != first.delay {
                let p = NginxParams {
                    burst: other.burst,
                    delay: other.delay,
                    ..params
                };
                from.notes.push(format!(
                    "{} applies zone `{}` too, with {}; the row runs it as {place} does.",
                    block.label,
                    other.zone,
                    p.directive()
                ));
            }
        }
    }

    for zone in parsed.zones.iter().filter(|z| shown.contains(&z.name)) {
        if zone.bare_rate {
            from.notes.push(format!(
                "Zone `{}` writes its rate without a unit; nginx reads it as {}.",
                zone.name, zone.rate
            ));
        }
        if zone.sync {
            from.notes.push(format!(
                "Zone `{}` has `sync` (NGINX Plus shares it across a cluster); the row is one nginx.",
                zone.name
            ));
        }
    }
    if dry_run(&parsed.blocks, chosen.block) {
        from.notes.push(format!(
            "`limit_req_dry_run on` applies to {place}: nginx only logs what it would limit and refuses nothing; the row shows what it would do."
        ));
    }
    from.notes = from.notes.into_iter().map(capitalised).collect();
    Ok(from)
}

/// A note begins with a capital, as `the `server` block ...` would not.
fn capitalised(note: String) -> String {
    let mut chars = note.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => note,
    }
}

/// The `limit_req` list the row runs, the block whose settings apply, and its status.
struct Chosen {
    block: usize,
    limits: Vec<LimitReq>,
    status: u16,
    /// No `limit_req` applies any zone: the first zone defined, with nginx's defaults.
    defined_only: bool,
}

/// The first location with a `limit_req` of its own or inherited; else the first block with one;
/// else the first zone defined.
fn choose(parsed: &Parsed) -> Option<Chosen> {
    let blocks = &parsed.blocks;
    let in_location = (0..blocks.len())
        .filter(|&b| blocks[b].is_location)
        .find_map(|b| limits_in_force(blocks, b).map(|from| (b, from)));
    let found = in_location.or_else(|| {
        (0..blocks.len())
            .find(|&b| !blocks[b].limits.is_empty())
            .map(|b| (b, b))
    });
    if let Some((block, from)) = found {
        return Some(Chosen {
            block,
            limits: blocks[from].limits.clone(),
            status: status_in_force(blocks, block),
            defined_only: false,
        });
    }
    let zone = parsed.zones.first()?;
    Some(Chosen {
        block: zone.block,
        limits: vec![LimitReq {
            zone: zone.name.clone(),
            burst: 0,
            delay: NginxDelay::default(),
            line: zone.line,
        }],
        status: status_in_force(blocks, zone.block),
        defined_only: true,
    })
}

/// The block whose `limit_req` list applies in `block`: its own, else its parents' (nginx
/// inherits the list only when a block has none of its own).
fn limits_in_force(blocks: &[Block], block: usize) -> Option<usize> {
    let mut at = Some(block);
    while let Some(b) = at {
        if !blocks[b].limits.is_empty() {
            return Some(b);
        }
        at = blocks[b].parent;
    }
    None
}

/// The innermost `limit_req_status` around `block`, 503 when none is set.
fn status_in_force(blocks: &[Block], block: usize) -> u16 {
    let mut at = Some(block);
    while let Some(b) = at {
        if let Some(status) = blocks[b].status {
            return status;
        }
        at = blocks[b].parent;
    }
    503
}

/// The innermost `limit_req_dry_run` around `block`, off when none is set.
fn dry_run(blocks: &[Block], block: usize) -> bool {
    let mut at = Some(block);
    while let Some(b) = at {
        if let Some(on) = blocks[b].dry_run {
            return on;
        }
        at = blocks[b].parent;
    }
    false
}

/// The lab's second limit that runs `params` exactly: a count and a window whose nginx defaults
/// (`Fields::default().params(count, window)`) decide as `params` do, within the lab's bounds for
/// a second limit.
fn second_limit(params: &NginxParams) -> Option<(u64, Span)> {
    let count = params.burst.checked_add(1)?;
    if count > MAX_LAB_LIMIT {
        return None;
    }
    let scaled = u128::from(count) * u128::from(MICROS_PER_SEC);
    // The windows whose average rate is nearest the zone's: the defaults' rate is whole
    // requests per second when exact, else per minute rounded, so try each side of it.
    let centres = match params.rate {
        NginxRate::PerSecond(n) => vec![scaled / u128::from(n.max(1))],
        NginxRate::PerMinute(n) => vec![
            scaled * 60 / u128::from(n.max(1)),
            if n % 60 == 0 {
                scaled / u128::from((n / 60).max(1))
            } else {
                0
            },
        ],
    };
    centres
        .into_iter()
        .flat_map(|c| [c, c + 1, c.saturating_sub(1), c + 2, c.saturating_sub(2)])
        .filter_map(|w| u64::try_from(w).ok())
        .filter(|&w| (MIN_LAB_WINDOW.micros()..=MAX_LAB_WINDOW.micros()).contains(&w))
        .map(Span)
        .find(|&w| runs_the_same(&Fields::default().params(count, w), params))
        .map(|w| (count, w))
}

/// Whether two settings decide every request alike: the module keeps only the rate in
/// thousandths per second, so `60r/m` is `1r/s`.
fn runs_the_same(a: &NginxParams, b: &NginxParams) -> bool {
    a.rate.milli_per_sec() == b.rate.milli_per_sec()
        && a.burst == b.burst
        && a.delay == b.delay
        && a.status == b.status
}

/// The directives of the module in `text`, with the blocks they are in.
fn parse(text: &str) -> Result<Parsed, Unreadable> {
    let mut parsed = Parsed {
        zones: Vec::new(),
        blocks: vec![Block {
            label: "the top level".to_string(),
            is_location: false,
            parent: None,
            limits: Vec::new(),
            status: None,
            dry_run: None,
        }],
    };
    let mut open = vec![0usize];
    let mut words: Vec<Word> = Vec::new();
    let unended = |words: &[Word]| {
        let line = words.first().map_or(0, |w| w.line);
        let name = words.first().map_or("", |w| w.text.as_str());
        Unreadable::at(text, line, format!("`{name}` is not ended by `;`"))
    };
    for piece in pieces(text)? {
        match piece {
            Piece::Word(w) => words.push(w),
            Piece::Semicolon => {
                if let Some((name, args)) = words.split_first() {
                    let block = open.last().copied().unwrap_or(0);
                    directive(text, &mut parsed, block, name, args)?;
                }
                words.clear();
            }
            Piece::Open => {
                let parent = open.last().copied().unwrap_or(0);
                let name = words.first().map_or("", |w| w.text.as_str());
                let label = match name {
                    "location" => format!(
                        "`location {}`",
                        words
                            .iter()
                            .skip(1)
                            .map(|w| w.text.as_str())
                            .collect::<Vec<_>>()
                            .join(" ")
                    ),
                    "" => "a block".to_string(),
                    other => format!("the `{other}` block"),
                };
                parsed.blocks.push(Block {
                    label,
                    is_location: name == "location",
                    parent: Some(parent),
                    limits: Vec::new(),
                    status: None,
                    dry_run: None,
                });
                open.push(parsed.blocks.len() - 1);
                words.clear();
            }
            Piece::Close => {
                if !words.is_empty() {
                    return Err(unended(&words));
                }
                // A `}` with no block open is left alone: a fragment may start inside one.
                if open.len() > 1 {
                    open.pop();
                }
            }
        }
    }
    if !words.is_empty() {
        return Err(unended(&words));
    }
    Ok(parsed)
}

/// Reads one directive of the module into `parsed`; every other directive is left alone.
fn directive(
    text: &str,
    parsed: &mut Parsed,
    block: usize,
    name: &Word,
    args: &[Word],
) -> Result<(), Unreadable> {
    let refuse = |why: String| Err(Unreadable::at(text, name.line, why));
    match name.text.as_str() {
        "limit_req_zone" => {
            let zone = zone(text, name, args, block)?;
            if let Some(earlier) = parsed.zones.iter().find(|z| z.name == zone.name) {
                return refuse(format!(
                    "zone `{}` is defined already, on line {}",
                    zone.name, earlier.line
                ));
            }
            parsed.zones.push(zone);
        }
        "limit_req" => {
            let limit = limit_req(text, name, args)?;
            let Some(b) = parsed.blocks.get_mut(block) else {
                return Ok(());
            };
            if b.limits.iter().any(|l| l.zone == limit.zone) {
                return refuse(format!(
                    "zone `{}` is applied twice in the same block, which nginx refuses",
                    limit.zone
                ));
            }
            b.limits.push(limit);
        }
        "limit_req_status" => {
            let [code] = args else {
                return refuse("`limit_req_status` takes one code, like 429".to_string());
            };
            let status = match code.text.parse::<u16>() {
                Ok(s)
                    if (400..=599).contains(&s)
                        && code.text.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    s
                }
                _ => {
                    return refuse(format!(
                        "`limit_req_status {}`: nginx takes a code from 400 to 599",
                        code.text
                    ))
                }
            };
            let Some(b) = parsed.blocks.get_mut(block) else {
                return Ok(());
            };
            if b.status.is_some() {
                return refuse(
                    "`limit_req_status` is set twice in the same block, which nginx refuses"
                        .to_string(),
                );
            }
            b.status = Some(status);
        }
        "limit_req_dry_run" => {
            let on = match args {
                [w] if w.text == "on" => true,
                [w] if w.text == "off" => false,
                _ => return refuse("`limit_req_dry_run` takes `on` or `off`".to_string()),
            };
            if let Some(b) = parsed.blocks.get_mut(block) {
                b.dry_run = Some(on);
            }
        }
        _ => {}
    }
    Ok(())
}

/// `limit_req_zone KEY zone=NAME:SIZE rate=... [sync]`, read as `ngx_http_limit_req_zone` does.
fn zone(text: &str, name: &Word, args: &[Word], block: usize) -> Result<Zone, Unreadable> {
    let refuse = |why: String| Unreadable::at(text, name.line, why);
    let Some((key, params)) = args.split_first() else {
        return Err(refuse(
            "`limit_req_zone` needs a key, `zone=NAME:SIZE` and `rate=`".to_string(),
        ));
    };
    let mut zone_name = None;
    let mut rate = None;
    let mut bare_rate = false;
    let mut sync = false;
    for word in params {
        let w = word.text.as_str();
        let refuse = |why: String| Unreadable::at(text, word.line, why);
        if let Some(value) = w.strip_prefix("zone=") {
            let Some((n, size)) = value.split_once(':') else {
                return Err(refuse(format!(
                    "`{w}` has no size: nginx wants `zone=NAME:SIZE`, like zone=one:10m"
                )));
            };
            if n.is_empty() {
                return Err(refuse(format!("`{w}` names no zone")));
            }
            if !is_size(size) {
                return Err(refuse(format!(
                    "`{w}`: `{size}` is not a size nginx reads, like 10m or 64k"
                )));
            }
            zone_name = Some(n.to_string());
        } else if let Some(value) = w.strip_prefix("rate=") {
            // nginx takes a bare number as requests per second.
            let bare = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
            let spelled = if bare {
                format!("{value}r/s")
            } else {
                value.to_string()
            };
            rate = Some(parse_rate(&spelled).map_err(|e| refuse(format!("`{w}`: {e}")))?);
            bare_rate = bare;
        } else if w == "sync" {
            sync = true;
        } else {
            return Err(refuse(format!("`limit_req_zone` does not take `{w}`")));
        }
    }
    let Some(zone_name) = zone_name else {
        return Err(refuse("`limit_req_zone` without `zone=`".to_string()));
    };
    let Some(rate) = rate else {
        return Err(refuse(
            "`limit_req_zone` without `rate=` (nginx would quietly run it at 1r/s; write the rate you mean)".to_string(),
        ));
    };
    Ok(Zone {
        name: zone_name,
        key: key.text.clone(),
        rate,
        line: name.line,
        block,
        sync,
        bare_rate,
    })
}

/// A size as `ngx_parse_size` reads it: digits, then at most one of k, K, m, M, g, G.
fn is_size(size: &str) -> bool {
    let digits = size
        .strip_suffix(['k', 'K', 'm', 'M', 'g', 'G'])
        .unwrap_or(size);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `limit_req zone=NAME [burst=N] [nodelay | delay=N]`, read as `ngx_http_limit_req` does.
fn limit_req(text: &str, name: &Word, args: &[Word]) -> Result<LimitReq, Unreadable> {
    let mut zone = None;
    let mut burst = 0;
    let mut delay = NginxDelay::default();
    for word in args {
        let w = word.text.as_str();
        let refuse = |why: String| Unreadable::at(text, word.line, why);
        if let Some(value) = w.strip_prefix("zone=") {
            if value.is_empty() {
                return Err(refuse("`zone=` names no zone".to_string()));
            }
            zone = Some(value.to_string());
        } else if let Some(value) = w.strip_prefix("burst=") {
            burst = from_one(value)
                .map_err(|why| refuse(format!("`{w}` {why} (leave `burst=` out for no burst)")))?;
        } else if let Some(value) = w.strip_prefix("delay=") {
            delay = NginxDelay::Delay(from_one(value).map_err(|why| {
                refuse(format!(
                    "`{w}` {why} (leave `delay=` out to delay every excess request)"
                ))
            })?);
        } else if w == "nodelay" {
            delay = NginxDelay::NoDelay;
        } else {
            return Err(refuse(format!("`limit_req` does not take `{w}`")));
        }
    }
    let Some(zone) = zone else {
        return Err(Unreadable::at(
            text,
            name.line,
            "`limit_req` without `zone=`",
        ));
    };
    Ok(LimitReq {
        zone,
        burst,
        delay,
        line: name.line,
    })
}

/// A whole number from 1, as nginx takes `burst=` and `delay=`.
fn from_one(value: &str) -> Result<u64, &'static str> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err("is not a whole number");
    }
    match value.parse::<u64>() {
        Ok(0) => Err("is refused by nginx, which takes a whole number from 1"),
        Ok(n) => Ok(n),
        Err(_) => Err("is more than the lab runs"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::profiles::{RowSettings, SnippetOf};

    fn nginx(text: &str) -> Fields {
        read(text).unwrap().products.nginx
    }

    fn fields(rate: NginxRate, burst: u64, delay: NginxDelay, status: u16) -> Fields {
        Fields {
            rate: Some(rate),
            burst: Some(burst),
            delay: Some(delay),
            status: Some(status),
        }
    }

    fn why(text: &str) -> Unreadable {
        read(text).unwrap_err()
    }

    /// nginx.org/en/docs/http/ngx_http_limit_req_module.html, "Example Configuration".
    const DOCS_EXAMPLE: &str = "http {
    limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;

    ...

    server {

        ...

        location /search/ {
            limit_req zone=one burst=5;
        }
    }
}";

    /// nginx.org/en/docs/http/ngx_http_limit_req_module.html, `limit_req`: `nodelay`.
    const DOCS_NODELAY: &str = "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;

server {
    location /search/ {
        limit_req zone=one burst=5 nodelay;
    }
}";

    /// nginx.org/en/docs/http/ngx_http_limit_req_module.html, `limit_req`: several directives.
    const DOCS_PERIP_PERSERVER: &str =
        "limit_req_zone $binary_remote_addr zone=perip:10m rate=1r/s;
limit_req_zone $server_name zone=perserver:10m rate=10r/s;

server {
    ...
    limit_req zone=perip burst=5 nodelay;
    limit_req zone=perserver burst=10;
}";

    /// nginx.org/en/docs/http/ngx_http_limit_req_module.html, `limit_req_zone`.
    const DOCS_ZONE_ONLY: &str = "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;";

    /// NGINX blog, "Rate Limiting with NGINX" (nginx.com/blog/rate-limiting-nginx/): the basic
    /// configuration and its burst.
    const BLOG_BURST: &str = "limit_req_zone $binary_remote_addr zone=mylimit:10m rate=10r/s;

server {
    location /login/ {
        limit_req zone=mylimit burst=20;

        proxy_pass http://my_upstream;
    }
}";

    /// NGINX blog, "Rate Limiting with NGINX": two-stage rate limiting.
    const BLOG_TWO_STAGE: &str = "limit_req_zone $binary_remote_addr zone=ip:10m rate=5r/s;

server {
    listen 80;
    location / {
        limit_req zone=ip burst=12 delay=8;
        proxy_pass http://website;
    }
}";

    /// NGINX blog, "Rate Limiting with NGINX": `limit_req_status` set in the location.
    const BLOG_STATUS: &str = "limit_req_zone $binary_remote_addr zone=mylimit:10m rate=10r/s;
server {
    location /login/ {
        limit_req zone=mylimit;
        limit_req_log_level warn;
        limit_req_status 444;
    }
}";

    /// A whole nginx.conf with two zones, each on its own location.
    const TWO_ZONES: &str = "user nginx;
events { worker_connections 1024; }

http {
    # One zone per purpose.
    limit_req_zone $binary_remote_addr zone=api:10m rate=10r/s;
    limit_req_zone $binary_remote_addr
                   zone=login:10m
                   rate=1r/s;   # spans three lines
    limit_req_status 429;

    server {
        listen 80;
        location /api/ {
            limit_req zone=api burst=20 nodelay;
            proxy_pass http://app;
        }
        location /login/ {
            limit_req zone=login;
            limit_req_status 503;
        }
    }
}
";

    const FIXTURES: &[&str] = &[
        DOCS_EXAMPLE,
        DOCS_NODELAY,
        DOCS_PERIP_PERSERVER,
        DOCS_ZONE_ONLY,
        BLOG_BURST,
        BLOG_TWO_STAGE,
        BLOG_STATUS,
        TWO_ZONES,
    ];

    #[test]
    fn the_docs_example_runs_zone_one_at_1_per_second_with_a_burst_of_5_delayed() {
        let from = read(DOCS_EXAMPLE).unwrap();
        assert_eq!(from.row, "nginx");
        assert_eq!(from.name.as_deref(), Some("one"));
        assert_eq!(
            from.products.nginx,
            fields(NginxRate::PerSecond(1), 5, NginxDelay::Delay(0), 503)
        );
        assert_eq!(from.second, None);
        assert_eq!(
            from.notes,
            vec!["Zone `one` counts requests per `$binary_remote_addr`; the lab counts them by each request's own key (its address, tenant or whatever the traffic names)."]
        );
    }

    #[test]
    fn nodelay_is_read_as_nginx_serving_the_burst_at_once() {
        assert_eq!(
            nginx(DOCS_NODELAY),
            fields(NginxRate::PerSecond(1), 5, NginxDelay::NoDelay, 503)
        );
    }

    #[test]
    fn the_blogs_examples_give_their_burst_delay_and_status() {
        assert_eq!(
            nginx(BLOG_BURST),
            fields(NginxRate::PerSecond(10), 20, NginxDelay::Delay(0), 503)
        );
        assert_eq!(
            nginx(BLOG_TWO_STAGE),
            fields(NginxRate::PerSecond(5), 12, NginxDelay::Delay(8), 503)
        );
        assert_eq!(
            nginx(BLOG_STATUS),
            fields(NginxRate::PerSecond(10), 0, NginxDelay::Delay(0), 444)
        );
        assert_eq!(read(BLOG_TWO_STAGE).unwrap().name.as_deref(), Some("ip"));
    }

    #[test]
    fn two_zones_on_two_locations_run_the_first_and_name_the_other() {
        let from = read(TWO_ZONES).unwrap();
        assert_eq!(from.name.as_deref(), Some("api"));
        assert_eq!(
            from.products.nginx,
            fields(NginxRate::PerSecond(10), 20, NginxDelay::NoDelay, 429)
        );
        assert_eq!(from.second, None);
        assert!(from.notes.contains(&"Zone `login` (rate=1r/s) is defined too; `location /login/` applies it. The row runs `api`, the first a location applies.".to_string()), "{:?}", from.notes);
    }

    #[test]
    fn the_innermost_limit_req_status_wins_and_503_is_the_default() {
        let text = "limit_req_zone $uri zone=z:1m rate=2r/s;
http { limit_req_status 429; server { limit_req_status 430; location / { limit_req zone=z; } } }";
        assert_eq!(nginx(text).status, Some(430));
        let text = "limit_req_zone $uri zone=z:1m rate=2r/s;
server { location / { limit_req zone=z; } }";
        assert_eq!(nginx(text).status, Some(503));
    }

    #[test]
    fn a_limit_req_in_the_server_block_is_inherited_by_a_location_without_its_own() {
        let text = "limit_req_zone $uri zone=a:1m rate=2r/s;
limit_req_zone $uri zone=b:1m rate=3r/s;
server {
    limit_req zone=a burst=4;
    location /x/ { limit_req_status 429; }
    location /y/ { limit_req zone=b; }
}";
        let from = read(text).unwrap();
        assert_eq!(
            from.products.nginx,
            fields(NginxRate::PerSecond(2), 4, NginxDelay::Delay(0), 429)
        );
        assert_eq!(from.name.as_deref(), Some("a"));
    }

    #[test]
    fn a_zone_no_limit_req_applies_runs_with_nginxs_defaults_and_says_so() {
        let from = read(DOCS_ZONE_ONLY).unwrap();
        assert_eq!(
            from.products.nginx,
            fields(NginxRate::PerSecond(1), 0, NginxDelay::Delay(0), 503)
        );
        assert!(
            from.notes[0].starts_with("No `limit_req` applies a zone"),
            "{:?}",
            from.notes
        );
    }

    #[test]
    fn nodelay_and_delay_are_read_in_order_the_later_winning() {
        let zone = "limit_req_zone $uri zone=z:1m rate=30r/m;\n";
        assert_eq!(
            nginx(&format!("{zone}limit_req zone=z burst=9 delay=3 nodelay;")).delay,
            Some(NginxDelay::NoDelay)
        );
        assert_eq!(
            nginx(&format!("{zone}limit_req zone=z burst=9 nodelay delay=3;")).delay,
            Some(NginxDelay::Delay(3))
        );
        assert_eq!(
            nginx(&format!("{zone}limit_req zone=z;")).rate,
            Some(NginxRate::PerMinute(30))
        );
    }

    #[test]
    fn a_rate_without_a_unit_is_requests_per_second_as_nginx_reads_it() {
        let from = read("limit_req_zone $uri zone=z:1m rate=7;\nlimit_req zone=z;").unwrap();
        assert_eq!(from.products.nginx.rate, Some(NginxRate::PerSecond(7)));
        assert!(from.notes.iter().any(|n| n.contains("without a unit")));
    }

    #[test]
    fn quotes_comments_and_variables_in_braces_are_read_as_nginx_reads_them() {
        let text = "limit_req_zone \"${binary_remote_addr}x\" zone=z:1m rate=3r/s; # a ; comment {\nlimit_req 'zone=z' burst=2;";
        let from = read(text).unwrap();
        assert_eq!(from.products.nginx.burst, Some(2));
        assert!(
            from.notes[0].contains("`${binary_remote_addr}x`"),
            "{:?}",
            from.notes
        );
    }

    #[test]
    fn two_zones_on_one_path_become_the_second_limit_when_it_says_them_exactly() {
        // 1r/s with burst=4 is the lab's second limit for 5 per 5 s: 5 - 1 = 4, delayed, 503.
        let text = "limit_req_zone $binary_remote_addr zone=fast:1m rate=10r/s;
limit_req_zone $binary_remote_addr zone=slow:1m rate=1r/s;
server { location / {
    limit_req zone=fast burst=20 nodelay;
    limit_req zone=slow burst=4;
} }";
        let from = read(text).unwrap();
        assert_eq!(from.name.as_deref(), Some("fast"));
        assert_eq!(
            from.second,
            Some(SecondLimit {
                count: 5,
                window: Span::from_secs(5),
                key: SecondKey::Same,
                spend: Spend::Passed,
            })
        );
        assert!(
            !from.notes.iter().any(|n| n.contains("is defined too")),
            "{:?}",
            from.notes
        );
        // A per-minute zone: 30r/m, burst=9 is 10 per 20 s.
        let text = text
            .replace("rate=1r/s", "rate=30r/m")
            .replace("burst=4", "burst=9");
        let second = read(&text).unwrap().second.unwrap();
        assert_eq!((second.count, second.window), (10, Span::from_secs(20)));
        assert_eq!(
            Fields::default().params(10, Span::from_secs(20)).rate,
            NginxRate::PerMinute(30)
        );
    }

    #[test]
    fn a_second_limit_the_lab_cannot_say_is_named_in_a_note() {
        let from = read(DOCS_PERIP_PERSERVER).unwrap();
        assert_eq!(from.name.as_deref(), Some("perip"));
        assert_eq!(
            from.products.nginx,
            fields(NginxRate::PerSecond(1), 5, NginxDelay::NoDelay, 503)
        );
        assert_eq!(from.second, None);
        assert!(
            !from.notes.iter().any(|n| n.contains("is defined too")),
            "{:?}",
            from.notes
        );
        assert!(from.notes.iter().any(|n| n.starts_with("The `server` block applies zone `perserver` (rate=10r/s burst=10) too, but the lab's second limit is not shown: that zone counts per `$server_name`")), "{:?}", from.notes);

        let nodelay = DOCS_PERIP_PERSERVER
            .replace("$server_name", "$binary_remote_addr")
            .replace("burst=10;", "burst=10 nodelay;");
        let from = read(&nodelay).unwrap();
        assert_eq!(from.second, None);
        assert!(
            from.notes
                .iter()
                .any(|n| n.contains("is not that for any count and window")),
            "{:?}",
            from.notes
        );
        // The same with the defaults' own delay is said exactly: 11 per 1.1 s.
        let same_key = DOCS_PERIP_PERSERVER.replace("$server_name", "$binary_remote_addr");
        let second = read(&same_key).unwrap().second.unwrap();
        assert_eq!((second.count, second.window), (11, Span::from_millis(1100)));
    }

    #[test]
    fn every_second_limit_found_runs_the_zone_it_was_found_for() {
        for rate in [
            NginxRate::PerSecond(1),
            NginxRate::PerSecond(3),
            NginxRate::PerSecond(1000),
            NginxRate::PerMinute(1),
            NginxRate::PerMinute(7),
            NginxRate::PerMinute(60),
            NginxRate::PerMinute(90),
        ] {
            for burst in [0, 1, 4, 59, 999] {
                let p = NginxParams {
                    burst,
                    ..NginxParams::new(rate)
                };
                if let Some((count, window)) = second_limit(&p) {
                    assert!(runs_the_same(&Fields::default().params(count, window), &p));
                }
            }
        }
        assert!(second_limit(&NginxParams::new(NginxRate::PerMinute(60))).is_some());
    }

    #[test]
    fn each_kind_of_unreadable_line_is_refused_with_its_line_and_why() {
        let cases: &[(&str, usize, &str)] = &[
            ("http {\n  limit_req_zone $binary_remote_addr zone=one:10m;\n}", 2, "`limit_req_zone` without `rate=`"),
            ("limit_req_zone $a rate=1r/s;", 1, "`limit_req_zone` without `zone=`"),
            ("limit_req_zone $a zone=one rate=1r/s;", 1, "`zone=one` has no size"),
            ("limit_req_zone $a zone=one:ten rate=1r/s;", 1, "`ten` is not a size"),
            ("limit_req_zone $a zone=one:1m rate=1.5r/s;", 1, "`rate=1.5r/s`: nginx writes a rate"),
            ("limit_req_zone $a zone=one:1m rate=10r/h;", 1, "`rate=10r/h`"),
            ("limit_req_zone $a zone=one:1m rate=0r/s;", 1, "`rate=0r/s`: the rate must be more than 0"),
            ("limit_req_zone $a zone=one:1m rate=1r/s burst=5;", 1, "`limit_req_zone` does not take `burst=5`"),
            ("limit_req_zone $a zone=one:1m rate=1r/s;\n\nlimit_req zone=two;", 3, "`limit_req` names zone `two`, which no `limit_req_zone` defines"),
            ("limit_req_zone $a zone=one:1m rate=1r/s;\nlimit_req zone=one burst=abc;", 2, "`burst=abc` is not a whole number"),
            ("limit_req_zone $a zone=one:1m rate=1r/s;\nlimit_req zone=one burst=0;", 2, "`burst=0` is refused by nginx"),
            ("limit_req_zone $a zone=one:1m rate=1r/s;\nlimit_req zone=one burst=5 delay=x;", 2, "`delay=x` is not a whole number"),
            ("limit_req_zone $a zone=one:1m rate=1r/s;\nlimit_req burst=5;", 2, "`limit_req` without `zone=`"),
            ("limit_req_zone $a zone=one:1m rate=1r/s;\nlimit_req zone=one fast;", 2, "`limit_req` does not take `fast`"),
            ("limit_req_zone $a zone=one:1m rate=1r/s;\nlimit_req zone=one;\nlimit_req zone=one;", 3, "applied twice in the same block"),
            ("limit_req_zone $a zone=one:1m rate=1r/s;\nlimit_req_zone $b zone=one:1m rate=2r/s;", 2, "zone `one` is defined already, on line 1"),
            ("limit_req_zone $a zone=one:1m rate=1r/s;\nlimit_req zone=one;\nlimit_req_status 200;", 3, "`limit_req_status 200`: nginx takes a code from 400 to 599"),
            ("limit_req_zone $a zone=one:1m rate=1r/s;\nlimit_req zone=one;\nlimit_req_status many;", 3, "from 400 to 599"),
            ("limit_req_zone $a zone=one:1m\n  rate=1r/s", 1, "`limit_req_zone` is not ended by `;`"),
            ("limit_req_zone $a zone=one:1m rate=1r/s;\nserver { location / {\n  limit_req zone=one burst=5\n} }", 3, "`limit_req` is not ended by `;`"),
            ("limit_req_zone \"$a zone=one:1m rate=1r/s;", 1, "never closed"),
            ("limit_req_zone $a zone=one:1m rate=2000000000r/s;", 1, "`rate=2000000000r/s`: the rate is too large"),
            ("limit_req_zone $a zone=one:1m rate=1r/s;\nlimit_req zone=one burst=2000000000;", 2, "the burst is too large"),
        ];
        for (text, line, why) in cases {
            let e = read(text).unwrap_err();
            assert_eq!(e.line, *line, "{text}: {e}");
            assert!(e.why.contains(why), "{text}: {e}");
        }
        let e = why("server { location / { proxy_pass http://app; } }");
        assert_eq!(e.line, 0);
        assert!(e.why.starts_with("no `limit_req_zone` in it"), "{e}");
    }

    #[test]
    fn it_recognises_nginx_and_none_of_the_other_products() {
        assert!(recognises(DOCS_EXAMPLE));
        assert!(recognises("limit_req zone=one burst=5;"));
        for other in [
            "let q = Quota::per_second(nonzero!(5u32)).allow_burst(nonzero!(10u32));",
            "CL.THROTTLE user123 15 30 60 1",
            "const ratelimit = new Ratelimit({ redis, limiter: Ratelimit.slidingWindow(10, \"10 s\") });",
            "token_bucket: { max_tokens: 10, tokens_per_fill: 10, fill_interval: 1s }",
            "[[unsafe.bindings]]\nname = \"MY_RATE_LIMITER\"\ntype = \"ratelimit\"\nnamespace_id = \"1001\"\nsimple = { limit = 100, period = 60 }",
            "{ \"ratelimits\": [{ \"name\": \"MY_RATE_LIMITER\", \"namespace_id\": \"1001\", \"simple\": { \"limit\": 100, \"period\": 60 } }] }",
            "limiter := rate.NewLimiter(rate.Every(time.Second), 5)",
            "const limiter = rateLimit({ windowMs: 15 * 60 * 1000, limit: 100 })",
            "limits.parse(\"10/minute\")",
            "options.AddFixedWindowLimiter(\"fixed\", o => { o.PermitLimit = 4; o.Window = TimeSpan.FromSeconds(12); });",
            "RateLimiter limiter = RateLimiter.create(5.0);",
            "\"limit_reqs\": 5",
        ] {
            assert!(!recognises(other), "{other}");
        }
    }

    #[test]
    fn no_prefix_of_any_fixture_panics() {
        for fixture in FIXTURES {
            for (at, _) in fixture.char_indices() {
                let _ = read(&fixture[..at]);
                let _ = recognises(&fixture[..at]);
            }
        }
    }

    // proptest is a native dev-dependency (the wasm32 lints build these tests too).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn no_text_panics(text in "[a-z_ =;{}#\"'$0-9/:\\n\\\\]{0,80}") {
            let _ = read(&format!("limit_req_zone {text}"));
            let _ = read(&text);
        }
    }

    #[test]
    fn what_the_snippet_writes_reads_back_to_the_same_limiter() {
        let SnippetOf::Written { write, .. } = super::super::ROW.snippet else {
            panic!("nginx writes a snippet");
        };
        let windows = [
            Span::from_secs(1),
            Span::from_secs(10),
            Span::from_secs(60),
            Span::from_millis(500),
            Span::from_secs(3600),
        ];
        let mut set = vec![Fields::default()];
        for rate in [
            NginxRate::PerSecond(3),
            NginxRate::PerMinute(1),
            NginxRate::PerMinute(90),
        ] {
            set.push(Fields {
                rate: Some(rate),
                ..Fields::default()
            });
        }
        for burst in [0, 1, 12, MAX_LAB_LIMIT] {
            set.push(Fields {
                burst: Some(burst),
                ..Fields::default()
            });
        }
        for delay in [
            NginxDelay::NoDelay,
            NginxDelay::Delay(0),
            NginxDelay::Delay(8),
        ] {
            set.push(Fields {
                delay: Some(delay),
                ..Fields::default()
            });
        }
        for status in [400, 429, 503, 599] {
            set.push(Fields {
                status: Some(status),
                ..Fields::default()
            });
        }
        set.push(fields(
            NginxRate::PerMinute(30),
            4,
            NginxDelay::Delay(2),
            429,
        ));
        for limit in [1, 2, 5, 7, 100, 1000] {
            for window in windows {
                for nginx in &set {
                    let products = ProductSettings {
                        nginx: nginx.clone(),
                        ..ProductSettings::default()
                    };
                    let s = RowSettings {
                        limit,
                        window,
                        products: &products,
                    };
                    let written = write(&s);
                    let expected = match &written.nearest {
                        Some(n) => n.products.nginx.params(limit, window),
                        None => s.products.nginx.params(limit, window),
                    };
                    let from =
                        read(&written.text).unwrap_or_else(|e| panic!("{e}\n{}", written.text));
                    assert_eq!(from.row, "nginx");
                    assert_eq!(from.name.as_deref(), Some("ratelab"));
                    assert_eq!(from.second, None);
                    assert_eq!(
                        from.products.nginx.params(1, Span::from_secs(1)),
                        expected,
                        "{limit} per {window:?} with {nginx:?}"
                    );
                }
            }
        }
    }
}
