//! express-rate-limit, the npm middleware for Express, with its default `MemoryStore`: a fixed
//! window per client that starts at the client's first hit, counting every hit.
//!
//! Read from express-rate-limit/express-rate-limit at version 8.6.2 (package.json; commit
//! c416f78): `source/rate-limit.ts` (the option parser and the middleware), `source/memory-store.ts`,
//! `source/headers.ts`, `source/validations.ts`, and the tests `test/library/middleware-test.ts`,
//! `memory-store-test.ts`, `headers-test.ts`, `options-test.ts`, `validation-test.ts`.
//!
//! What the library does, and how the profile maps it:
//! - Every request that is not skipped calls `store.increment(key)`; the middleware then refuses
//!   it when `totalHits > limit` (strictly greater), so `limit` requests pass per window. The hit
//!   is counted whether or not it is refused: **a refused request increments the count** (the
//!   `used` of `req.rateLimit`) **and leaves the reset time where it was**. Since the window's end
//!   is fixed at its first hit, counting refused hits changes no later verdict: the next window
//!   opens at the same moment either way. (`skipFailedRequests` / `skipSuccessfulRequests`,
//!   which decrement after the response, depend on the app's status codes and are not modelled.)
//! - The MemoryStore keeps per key `{ totalHits, resetTime }`. A new client gets
//!   `resetTime = Date.now() + windowMs`. On each increment, when `resetTime <= now` the client
//!   is reset (`totalHits = 0`, `resetTime = now + windowMs`) before counting. So a key's window is
//!   `[first hit, first hit + windowMs)` in whole milliseconds, and a hit at exactly
//!   `first hit + windowMs` opens the next window (it is counted 1, not refused).
//! - The store also runs one `setInterval(clearExpired, windowMs)`, started when the limiter is
//!   created and shared by all keys: each tick moves the `current` map to `previous` and drops the
//!   old `previous`; a hit moves a client back to `current`. A client is therefore dropped at the
//!   second tick after its last hit, which is at least `windowMs` after that hit, so at or after
//!   its own `resetTime`: being dropped and being reset give the same next answer (a new window at
//!   the next hit, counted 1). The sweep frees memory and never ends a window early, so the profile
//!   models only the per-key `resetTime`. (The sweep runs on Node's monotonic timer, the windows on
//!   `Date.now()`; were the wall clock stepped between them, the two could disagree: not modelled,
//!   the lab has one clock.)
//! - `remaining = max(limit - totalHits, 0)`. `req.rateLimit` is `{ limit, used, remaining,
//!   resetTime, key }`, the reply's fields here (with `statusCode` first).
//! - Headers (`source/headers.ts`), all set on passed and refused responses alike:
//!   - `legacyHeaders` (default `true`; the old `headers` option): `X-RateLimit-Limit`,
//!     `X-RateLimit-Remaining`, then `Date` (the current time, `toUTCString()`, "to help avoid
//!     issues with incorrect clocks") and `X-RateLimit-Reset` = `ceil(resetTime / 1000)`, epoch
//!     seconds.
//!   - `standardHeaders` (default `false`; `true` means `'draft-6'`): the reset is
//!     `max(0, ceil((resetTime - now) / 1000))` seconds and the window `ceil(windowMs / 1000)`.
//!     `'draft-6'`: `RateLimit-Policy: <limit>;w=<window>`, `RateLimit-Limit`,
//!     `RateLimit-Remaining`, `RateLimit-Reset`. `'draft-7'`: `RateLimit-Policy` as in draft 6 and
//!     `RateLimit: limit=<l>, remaining=<r>, reset=<s>`. `'draft-8'`: `RateLimit: "<name>";
//!     r=<remaining>; t=<reset>` and `RateLimit-Policy: "<name>"; q=<limit>; w=<window>;
//!     pk=:<partition key>:`, where the partition key is the first 12 hex digits of SHA-256 of the
//!     client's key, as text, in base64 (16 characters), and the name is `identifier`, by default
//!     `<limit>-in-<duration>` with the duration in `sec` under a minute, `min` under an hour,
//!     `hr`/`hrs` under a day, else `day`/`days`, the number written as JavaScript writes a double
//!     (`windowMs / 1000`, `/ 60000`, ...: "0.05sec", "1.5min", "2hrs").
//!   - A refused response gets `Retry-After` with the same rounded-up reset seconds, only when
//!     `legacyHeaders` or `standardHeaders` is on, and the status `statusCode` (429 by default)
//!     from the default handler. A passed request goes on to the app: 200 here.
//!
//! Time: `Date.now()` is whole milliseconds since the Unix epoch; the lab's time 0 is taken as
//! epoch 0, so `now_ms = floor(lab µs / 1000)`, `X-RateLimit-Reset` counts seconds from the lab's
//! start and `Date` reads "Thu, 01 Jan 1970 ..." at its start. A time earlier than one already
//! seen is treated as that later time.
//!
//! Parameters and what is refused:
//! - `windowMs` must be from 1 to 2^31 - 1 (the largest `setInterval` delay): outside that the
//!   library logs `ERR_ERL_WINDOW_MS` (its validations log, never throw) and Node then runs the
//!   sweep every 1 ms, which does end windows early; the profile refuses such a window with the
//!   library's message instead of modelling that. The profile takes whole milliseconds: a
//!   fractional `windowMs` is accepted by the library, but `Date` truncates `now + windowMs` to a
//!   whole millisecond and Node truncates the interval, so its decisions are those of the whole
//!   part; [`ExpressRateLimitParams::defaults_for`] rounds a lab window down to whole ms (a window
//!   under 1 ms then becomes 0 and is refused, as the library's validation flags it).
//! - `limit` 0 is accepted (the library warns `WRN_ERL_MAX_ZERO` and blocks every request); the
//!   legacy `max` is the same field (`limit` wins when both are given). Above 10^9: too large.
//! - `statusCode` must be 100 to 999: Node's `writeHead` throws `ERR_HTTP_INVALID_STATUS_CODE`
//!   for any other.
//! - `identifier` goes into a header: printable ASCII (and tab) only, since Node throws on control
//!   characters (`ERR_INVALID_CHAR`); Latin-1 letters, which Node would pass, are refused too.
//!   The key and the identifier are at most 64 bytes.
//!
//! Choices where the library has nothing to say:
//! - The library counts one hit per request. A request of cost `c` is read as `c` hits at the same
//!   millisecond: all `c` are counted, and the lab's one verdict is the last hit's (refused when
//!   the total exceeds `limit`). Its `retry_after` is the end of the window, when `c` hits fit in a
//!   new window (`None` when `c > limit`, which never fits).
//! - Cost 0 looks without counting, like `limiter.getKey(key)`: the verdict a hit that counted
//!   nothing would get (refused only when the count is already over the limit), state unchanged;
//!   with no live window, its reply shows the window a hit would open now.
//! - `retry_after` is the exact wait until the window ends (the `Retry-After` header rounds it up
//!   to whole seconds); `reset_after` is the same wait, zero when no window is open.
//! - One profile is one key under one limiter; `skip`, `message` and custom handlers and stores
//!   are not modelled. The key is what `keyGenerator` returned: the middleware passes that very
//!   string to `store.increment(key)`, to `req.rateLimit.key` and to `setDraft8Headers`, which
//!   hashes it (`hash.update(key)`, so as UTF-8) into the partition key. The lab makes each of
//!   its keys' limiters with that key ([`ExpressRateLimit::set_key`]), so every reply names its
//!   own key; a limiter made on its own holds `params.key` (default "127.0.0.1", what the
//!   default key generator returns for a local IPv4 client, also reached as `::ffff:127.0.0.1`).
//! - The default key generator (`ipKeyGenerator(req.ip, ipv6Subnet)`, `source/ip-key-generator.ts`)
//!   turns an IPv6 client's address into its /56 network in CIDR form (`2001:db8:abcd:ab00::/56`,
//!   `Address6.networkForm()`), so that clients of one /56 share a count. The profile does not
//!   apply it: a lab key is taken as the generator's result, so two IPv6 keys of one /56 keep
//!   two limiters and name themselves. To model that generator, name the keys as it returns them.
//! - JavaScript's `Date` ends at 8.64e15 ms (year 275760); the profile writes later dates on as if
//!   it did not (only times near `u64::MAX` µs get there).

use std::fmt;

use crate::core::config::{ConfigError, MAX_COUNT};
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::http::HttpResponse;
use crate::core::sha256::sha256;
use crate::core::time::{Span, Time, MICROS_PER_MILLI};

use super::{Product, ProductReply};
use crate::core::profiles::{explanation, Family, Hint, ProductRow, SnippetOf};
mod config;
mod fields;
mod snippet;

pub use fields::Fields;

/// The largest `windowMs` the MemoryStore accepts: the largest delay `setInterval` takes.
pub const MAX_WINDOW_MS: u64 = (1 << 31) - 1;

/// The library's message for a window it flags (`ERR_ERL_WINDOW_MS`), without the value.
pub const WINDOW_MS_ERROR: &str = "Invalid windowMs value: must be a number between 1 and 2147483647 when using the default MemoryStore (express-rate-limit's ERR_ERL_WINDOW_MS)";

/// The library's message for a `standardHeaders` value it does not know.
pub const DRAFT_VERSION_ERROR: &str = "standardHeaders: only the following versions of the IETF draft specification are supported: draft-6, draft-7, draft-8.";

/// Why a status code is refused.
pub const STATUS_CODE_ERROR: &str = "statusCode must be an integer from 100 to 999: Node's HTTP server throws ERR_HTTP_INVALID_STATUS_CODE (\"Invalid status code\") for any other";

/// Why an identifier is refused.
pub const IDENTIFIER_ERROR: &str = "the identifier is written into the RateLimit headers, so it must be printable ASCII: Node throws ERR_INVALID_CHAR for a header value with control characters";

/// Why a key or identifier is refused for its length.
pub const TEXT_LENGTH_ERROR: &str =
    "the key and the identifier are at most 64 bytes long in this profile";

/// `standardHeaders`: which IETF draft's `RateLimit` headers are sent, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StandardHeaders {
    /// `false`, the default: none.
    #[default]
    Off,
    /// `'draft-6'` (also `true`): `RateLimit-Policy`, `-Limit`, `-Remaining`, `-Reset`.
    Draft6,
    /// `'draft-7'`: `RateLimit-Policy` and the combined `RateLimit`.
    Draft7,
    /// `'draft-8'`: the named `RateLimit` and `RateLimit-Policy` with a partition key.
    Draft8,
}

impl StandardHeaders {
    /// Reads the option as written in JavaScript: `false`, `true` (draft 6), `draft-6`,
    /// `draft-7` or `draft-8` (quotes optional).
    pub fn parse(text: &str) -> Result<StandardHeaders, ConfigError> {
        let t = text.trim().trim_matches(|c| c == '\'' || c == '"');
        match t {
            "false" => Ok(StandardHeaders::Off),
            "true" | "draft-6" => Ok(StandardHeaders::Draft6),
            "draft-7" => Ok(StandardHeaders::Draft7),
            "draft-8" => Ok(StandardHeaders::Draft8),
            _ => Err(ConfigError::Unsupported(DRAFT_VERSION_ERROR)),
        }
    }

    /// The option's value as the library resolves it: `false`, `draft-6`, `draft-7`, `draft-8`.
    pub fn word(self) -> &'static str {
        match self {
            StandardHeaders::Off => "false",
            StandardHeaders::Draft6 => "draft-6",
            StandardHeaders::Draft7 => "draft-7",
            StandardHeaders::Draft8 => "draft-8",
        }
    }
}

/// A short piece of text held inline, so that the parameters stay `Copy`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ShortText {
    bytes: [u8; ShortText::MAX_LEN],
    len: u8,
}

impl ShortText {
    pub const MAX_LEN: usize = 64;

    /// `text`, when it is at most [`ShortText::MAX_LEN`] bytes of UTF-8.
    pub fn new(text: &str) -> Result<ShortText, ConfigError> {
        let src = text.as_bytes();
        if src.len() > Self::MAX_LEN {
            return Err(ConfigError::Unsupported(TEXT_LENGTH_ERROR));
        }
        let mut bytes = [0u8; Self::MAX_LEN];
        bytes[..src.len()].copy_from_slice(src);
        Ok(ShortText {
            bytes,
            len: src.len() as u8,
        })
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }

    /// True when every character may stand in a header value as written.
    fn is_header_safe(&self) -> bool {
        self.as_str()
            .bytes()
            .all(|b| b == b'\t' || (0x20..=0x7e).contains(&b))
    }
}

impl fmt::Debug for ShortText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// The default client key: what the default `keyGenerator` returns for a local IPv4 client.
pub fn default_key() -> ShortText {
    ShortText::new("127.0.0.1").unwrap_or(ShortText {
        bytes: [0; ShortText::MAX_LEN],
        len: 0,
    })
}

/// The options of `rateLimit({...})` the profile models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpressRateLimitParams {
    /// `limit` (legacy `max`): hits allowed per window. Default 5.
    pub limit: u64,
    /// `windowMs`, whole milliseconds. Default 60000.
    pub window_ms: u64,
    /// `standardHeaders`. Default `false`.
    pub standard_headers: StandardHeaders,
    /// `legacyHeaders` (legacy `headers`): the `X-RateLimit-*` headers. Default `true`.
    pub legacy_headers: bool,
    /// `statusCode` of a refused request. Default 429.
    pub status_code: u16,
    /// `identifier`, the draft-8 quota name; `None` for the default `<limit>-in-<duration>`.
    pub identifier: Option<ShortText>,
    /// What `keyGenerator` returns for the client (default "127.0.0.1").
    pub key: ShortText,
}

impl Default for ExpressRateLimitParams {
    /// `rateLimit()` with no options: 5 per minute, legacy headers on, standard headers off.
    fn default() -> ExpressRateLimitParams {
        ExpressRateLimitParams {
            limit: 5,
            window_ms: 60_000,
            standard_headers: StandardHeaders::Off,
            legacy_headers: true,
            status_code: 429,
            identifier: None,
            key: default_key(),
        }
    }
}

impl ExpressRateLimitParams {
    /// The lab's "`limit` per `window`" as the readme's usage example writes it:
    /// `rateLimit({ windowMs, limit, standardHeaders: 'draft-8', legacyHeaders: false })`, with
    /// `limit = limit` and `windowMs` = the window in whole milliseconds, rounded down (the store
    /// uses only the whole milliseconds of a fractional `windowMs`). Everything else keeps the
    /// library's defaults (429, the default identifier).
    pub fn defaults_for(limit: u64, window: Span) -> ExpressRateLimitParams {
        ExpressRateLimitParams {
            limit,
            window_ms: window.micros() / MICROS_PER_MILLI,
            standard_headers: StandardHeaders::Draft8,
            legacy_headers: false,
            ..ExpressRateLimitParams::default()
        }
    }

    /// The draft-8 quota name: `identifier`, or the library's default `<limit>-in-<duration>`.
    pub fn quota_name(&self) -> String {
        match self.identifier {
            Some(name) => name.as_str().to_string(),
            None => default_identifier(self.limit, self.window_ms),
        }
    }

    /// The options as they would be passed to `rateLimit`, e.g.
    /// `{ windowMs: 60000, limit: 5, standardHeaders: 'draft-8', legacyHeaders: false }`.
    pub fn options_text(&self) -> String {
        let mut s = format!(
            "{{ windowMs: {}, limit: {}, standardHeaders: ",
            self.window_ms, self.limit
        );
        match self.standard_headers {
            StandardHeaders::Off => s.push_str("false"),
            h => s.push_str(&format!("'{}'", h.word())),
        }
        s.push_str(&format!(", legacyHeaders: {}", self.legacy_headers));
        if self.status_code != 429 {
            s.push_str(&format!(", statusCode: {}", self.status_code));
        }
        if let Some(name) = self.identifier {
            s.push_str(&format!(", identifier: '{}'", name.as_str()));
        }
        s.push_str(" }");
        s
    }
}

/// `${limit}-in-${duration}`, the library's default `identifier`, computed in doubles as it is.
pub fn default_identifier(limit: u64, window_ms: u64) -> String {
    let ms = window_ms as f64;
    let seconds = ms / 1000.0;
    let minutes = ms / (1000.0 * 60.0);
    let hours = ms / (1000.0 * 60.0 * 60.0);
    let days = ms / (1000.0 * 60.0 * 60.0 * 24.0);
    let duration = if seconds < 60.0 {
        format!("{}sec", js_number(seconds))
    } else if minutes < 60.0 {
        format!("{}min", js_number(minutes))
    } else if hours < 24.0 {
        format!(
            "{}hr{}",
            js_number(hours),
            if hours > 1.0 { "s" } else { "" }
        )
    } else {
        format!(
            "{}day{}",
            js_number(days),
            if days > 1.0 { "s" } else { "" }
        )
    };
    format!("{limit}-in-{duration}")
}

/// A double as JavaScript's `String(x)` writes it, for the magnitudes met here (1e-6 to 1e21,
/// where JavaScript uses no exponent): the shortest digits that read back to the same double,
/// which is also what Rust's `Display` writes.
fn js_number(x: f64) -> String {
    format!("{x}")
}

/// A client of the MemoryStore: `{ totalHits, resetTime }`, the reset time in epoch ms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Client {
    total_hits: u64,
    reset_ms: u64,
}

/// What one request does.
#[derive(Clone, Copy, Debug)]
struct Assessment {
    decision: Decision,
    /// The client after the request (unchanged for cost 0).
    stored: Option<Client>,
    /// The hits and reset time `req.rateLimit` reports.
    shown: Client,
    now_ms: u64,
}

/// One key under one `rateLimit` middleware with the default MemoryStore.
#[derive(Clone, Debug)]
pub struct ExpressRateLimit {
    params: ExpressRateLimitParams,
    /// The client's key, what `keyGenerator` returned for it: `params.key` until the lab names
    /// the key this limiter serves ([`ExpressRateLimit::set_key`]). Held apart from the
    /// parameters because a lab key may be longer than they hold inline.
    key: String,
    client: Option<Client>,
    latest: Time,
}

impl ExpressRateLimit {
    pub fn new(params: ExpressRateLimitParams) -> Result<ExpressRateLimit, ConfigError> {
        if params.window_ms < 1 || params.window_ms > MAX_WINDOW_MS {
            return Err(ConfigError::Unsupported(WINDOW_MS_ERROR));
        }
        if params.limit > MAX_COUNT {
            return Err(ConfigError::TooLarge("limit"));
        }
        if !(100..=999).contains(&params.status_code) {
            return Err(ConfigError::Unsupported(STATUS_CODE_ERROR));
        }
        if params.identifier.is_some_and(|name| !name.is_header_safe()) {
            return Err(ConfigError::Unsupported(IDENTIFIER_ERROR));
        }
        Ok(ExpressRateLimit {
            params,
            key: params.key.as_str().to_string(),
            client: None,
            latest: Time::ZERO,
        })
    }

    pub fn params(&self) -> &ExpressRateLimitParams {
        &self.params
    }

    /// Makes this the limiter of `key`: the middleware hands the key its `keyGenerator`
    /// returned to the store and to `setDraft8Headers`, so `req.rateLimit.key` and the draft-8
    /// partition key are this request's own.
    pub fn set_key(&mut self, key: &str) {
        key.clone_into(&mut self.key);
    }

    /// The client's key the replies name.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The client as the store would find it at `now_ms`: `None` when there is none or its
    /// window has ended (`resetTime <= now`, when the next hit resets it).
    fn live(&self, now_ms: u64) -> Option<Client> {
        self.client.filter(|c| c.reset_ms > now_ms)
    }

    // Inline in `decide` and `decide_with_reply`: see `decision::peek_on_a_copy`.
    #[inline(always)]
    fn assess(&self, now: Time, cost: u64) -> Assessment {
        let now = now.max(self.latest);
        let now_ms = now.micros() / MICROS_PER_MILLI;
        let limit = self.params.limit;
        let live = self.live(now_ms);
        // A hit on no live window opens one: count 0, reset `windowMs` from now.
        let base = live.unwrap_or(Client {
            total_hits: 0,
            reset_ms: now_ms.saturating_add(self.params.window_ms),
        });
        let shown = Client {
            total_hits: base.total_hits.saturating_add(cost),
            ..base
        };
        let stored = if cost == 0 { self.client } else { Some(shown) };
        let refused = shown.total_hits > limit;
        let until_reset = Span(
            shown
                .reset_ms
                .saturating_mul(MICROS_PER_MILLI)
                .saturating_sub(now.micros()),
        );
        let decision = Decision {
            verdict: if refused {
                Verdict::Rejected
            } else {
                Verdict::Allowed
            },
            limit,
            remaining: limit.saturating_sub(shown.total_hits),
            reset_after: if cost == 0 && live.is_none() {
                Span::ZERO
            } else {
                until_reset
            },
            retry_after: (refused && cost <= limit).then_some(until_reset),
        };
        Assessment {
            decision,
            stored,
            shown,
            now_ms,
        }
    }

    /// Hits counted in the window open at `now` (0 when none is).
    pub fn total_hits(&self, now: Time) -> u64 {
        let now_ms = now.max(self.latest).micros() / MICROS_PER_MILLI;
        self.live(now_ms).map_or(0, |c| c.total_hits)
    }

    /// `req.rateLimit` and the response's status and headers, in the order the middleware sets
    /// them.
    fn reply(&self, a: &Assessment) -> ProductReply {
        let p = &self.params;
        let info = a.shown;
        let refused = !a.decision.allowed();
        let remaining = a.decision.remaining;
        // getResetSeconds: max(0, ceil((resetTime - now) / 1000)), in whole ms.
        let reset_seconds = info.reset_ms.saturating_sub(a.now_ms).div_ceil(1000);
        let window_seconds = p.window_ms.div_ceil(1000);
        let status = if refused { p.status_code } else { 200 };
        let mut fields: Vec<(&'static str, String)> = vec![
            ("statusCode", status.to_string()),
            ("limit", p.limit.to_string()),
            ("used", info.total_hits.to_string()),
            ("remaining", remaining.to_string()),
            ("resetTime", iso_string(info.reset_ms)),
            ("key", self.key.clone()),
        ];
        if p.legacy_headers {
            fields.push(("X-RateLimit-Limit", p.limit.to_string()));
            fields.push(("X-RateLimit-Remaining", remaining.to_string()));
            fields.push(("Date", utc_string(a.now_ms)));
            fields.push((
                "X-RateLimit-Reset",
                info.reset_ms.div_ceil(1000).to_string(),
            ));
        }
        match p.standard_headers {
            StandardHeaders::Off => {}
            StandardHeaders::Draft6 => {
                fields.push((
                    "RateLimit-Policy",
                    format!("{};w={window_seconds}", p.limit),
                ));
                fields.push(("RateLimit-Limit", p.limit.to_string()));
                fields.push(("RateLimit-Remaining", remaining.to_string()));
                fields.push(("RateLimit-Reset", reset_seconds.to_string()));
            }
            StandardHeaders::Draft7 => {
                fields.push((
                    "RateLimit-Policy",
                    format!("{};w={window_seconds}", p.limit),
                ));
                fields.push((
                    "RateLimit",
                    format!(
                        "limit={}, remaining={remaining}, reset={reset_seconds}",
                        p.limit
                    ),
                ));
            }
            StandardHeaders::Draft8 => {
                let name = p.quota_name();
                fields.push((
                    "RateLimit",
                    format!("\"{name}\"; r={remaining}; t={reset_seconds}"),
                ));
                fields.push((
                    "RateLimit-Policy",
                    format!(
                        "\"{name}\"; q={}; w={window_seconds}; pk=:{}:",
                        p.limit,
                        partition_key(&self.key)
                    ),
                ));
            }
        }
        if refused && (p.legacy_headers || p.standard_headers != StandardHeaders::Off) {
            fields.push(("Retry-After", reset_seconds.to_string()));
        }
        ProductReply { fields }
    }
}

impl Limiter for ExpressRateLimit {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        let a = self.assess(now, cost);
        self.client = a.stored;
        self.latest = now.max(self.latest);
        a.decision
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    fn gauge(&self, now: Time) -> Gauge {
        Gauge {
            level: self.total_hits(now) as f64,
            max: self.params.limit as f64,
            unit: "hits",
        }
    }

    fn is_at_rest(&self, now: Time) -> bool {
        let now_ms = now.max(self.latest).micros() / MICROS_PER_MILLI;
        self.live(now_ms).is_none()
    }
}

impl Product for ExpressRateLimit {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let a = self.assess(now, cost);
        let reply = self.reply(&a);
        self.client = a.stored;
        self.latest = now.max(self.latest);
        (a.decision, reply)
    }

    fn serve_key(&mut self, name: &str) {
        self.set_key(name);
    }
}

/// The headers the middleware sets, by the names it sets them under.
const HEADER_NAMES: [&str; 10] = [
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "Date",
    "X-RateLimit-Reset",
    "RateLimit-Policy",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "RateLimit",
    "Retry-After",
];

/// What the client receives, as the middleware sends it: a passed request goes on to the app
/// (the library's test server answers 200) with the rate-limit headers already set; a refused one
/// gets `statusCode` (429 unless set) from the default handler, with Node's reason phrase
/// ("unknown" for a code Node has no text for), the same headers and `Retry-After`. Only the
/// headers the library sets are listed (not those Node and Express add, such as their own `Date`
/// when the legacy headers are off, `Content-Type` or `X-Powered-By`), in the order it sets them.
pub fn http_response(decision: &Decision, reply: &ProductReply) -> HttpResponse {
    let status = reply
        .get("statusCode")
        .and_then(|s| s.parse::<u16>().ok())
        .unwrap_or(if decision.allowed() { 200 } else { 429 });
    let headers = reply
        .fields
        .iter()
        .filter(|(name, _)| HEADER_NAMES.contains(name))
        .map(|(name, value)| (name.to_string(), value.clone()))
        .collect();
    HttpResponse {
        status,
        reason: node_reason(status),
        headers,
    }
}

/// Node's `http.STATUS_CODES` text for a code, "unknown" for one it has none for (as
/// `writeHead` writes it).
pub fn node_reason(code: u16) -> &'static str {
    match code {
        100 => "Continue",
        101 => "Switching Protocols",
        102 => "Processing",
        103 => "Early Hints",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        203 => "Non-Authoritative Information",
        204 => "No Content",
        205 => "Reset Content",
        206 => "Partial Content",
        207 => "Multi-Status",
        208 => "Already Reported",
        226 => "IM Used",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        305 => "Use Proxy",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        407 => "Proxy Authentication Required",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Payload Too Large",
        414 => "URI Too Long",
        415 => "Unsupported Media Type",
        416 => "Range Not Satisfiable",
        417 => "Expectation Failed",
        418 => "I'm a Teapot",
        421 => "Misdirected Request",
        422 => "Unprocessable Entity",
        423 => "Locked",
        424 => "Failed Dependency",
        425 => "Too Early",
        426 => "Upgrade Required",
        428 => "Precondition Required",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        506 => "Variant Also Negotiates",
        507 => "Insufficient Storage",
        508 => "Loop Detected",
        509 => "Bandwidth Limit Exceeded",
        510 => "Not Extended",
        511 => "Network Authentication Required",
        _ => "unknown",
    }
}

/// The draft-8 partition key: the first 12 hex digits of SHA-256 of the key, base64-encoded as
/// text (12 ASCII bytes, so 16 characters without padding).
pub fn partition_key(key: &str) -> String {
    let digest = sha256(key.as_bytes());
    let mut hex = [0u8; 12];
    for (i, byte) in digest.iter().take(6).enumerate() {
        hex[2 * i] = HEX[usize::from(byte >> 4)];
        hex[2 * i + 1] = HEX[usize::from(byte & 0x0f)];
    }
    base64(&hex)
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Standard base64 with padding (RFC 4648), as Node's `Buffer.toString('base64')`.
fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Year, month (1-12), day of the civil date `days` after 1970-01-01 (proleptic Gregorian).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    // Howard Hinnant's algorithm, for days on or after the epoch.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// The parts of an epoch-ms instant: days since the epoch and the time of day.
fn split_ms(ms: u64) -> (u64, u64, u64, u64, u64) {
    let days = ms / 86_400_000;
    let in_day = ms % 86_400_000;
    (
        days,
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000,
    )
}

/// `new Date(ms).toUTCString()`, e.g. "Thu, 01 Jan 1970 00:00:00 GMT".
pub fn utc_string(ms: u64) -> String {
    const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (days, h, m, s, _) = split_ms(ms);
    let (year, month, day) = civil_from_days(days);
    let weekday = WEEKDAYS[((days + 4) % 7) as usize];
    let month_name = MONTHS[(month - 1) as usize % 12];
    format!("{weekday}, {day:02} {month_name} {year:04} {h:02}:{m:02}:{s:02} GMT")
}

/// `new Date(ms).toISOString()`, e.g. "1970-01-01T00:01:00.000Z" (a six-digit `+` year past 9999).
pub fn iso_string(ms: u64) -> String {
    let (days, h, m, s, milli) = split_ms(ms);
    let (year, month, day) = civil_from_days(days);
    let year = if year > 9999 {
        format!("+{year:06}")
    } else {
        format!("{year:04}")
    };
    format!("{year}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// The express-rate-limit row (`core::limiter::rows`).
pub const ROW: ProductRow<ExpressRateLimit> = ProductRow {
    slug: "express-rate-limit",
    label: "express-rate-limit",
    family: Family {
        prefix: "express-",
        name: "express-rate-limit",
        fields: fields::FIELDS,
    },
    build: |s| ExpressRateLimit::new(s.products.express_rate_limit.params(s.limit, s.window)),
    response: |_, decision, reply| http_response(decision, reply),
    hint: Hint::Header,
    tells: "the Retry-After header of its response, when it sends one",
    explain: |s| {
        let e = s.products.express_rate_limit.params(s.limit, s.window);
        explanation(
            format!("express-rate-limit with its memory store, {}: a window of {} ms per key from the key's first hit, and every hit counted, refused ones too; a refusal is a {} with Retry-After. Each lab key is taken as keyGenerator's result and named in its own replies (req.rateLimit.key, the draft-8 pk); the default generator's grouping of IPv6 clients by /56 is not applied.", e.options_text(), e.window_ms, e.status_code),
            "A hit count and a reset time per key in the Node process, swept by one timer.",
            "An Express app on one process; with several processes each keeps its own count.",
        )
    },
    snippet: SnippetOf::Written {
        file_name: "app.js",
        write: snippet::write,
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(limit: u64, window_ms: u64) -> ExpressRateLimit {
        ExpressRateLimit::new(ExpressRateLimitParams {
            limit,
            window_ms,
            ..ExpressRateLimitParams::default()
        })
        .unwrap()
    }

    fn ms(n: u64) -> Time {
        Time::from_millis(n)
    }

    #[test]
    fn a_refused_request_is_still_counted_but_does_not_move_the_reset_time() {
        let mut l = limiter(2, 1000);
        l.decide(ms(0), 1);
        l.decide(ms(10), 1);
        let (d, reply) = l.decide_with_reply(ms(20), 1);
        assert_eq!(d.verdict, Verdict::Rejected);
        assert_eq!(reply.get("used"), Some("3"));
        let (_, reply) = l.decide_with_reply(ms(999), 1);
        assert_eq!(reply.get("used"), Some("4"));
        assert_eq!(reply.get("resetTime"), Some("1970-01-01T00:00:01.000Z"));
        assert_eq!(l.decide(ms(1000), 1).verdict, Verdict::Allowed);
        assert_eq!(l.total_hits(ms(1000)), 1);
    }

    #[test]
    fn the_window_starts_at_the_first_hit_and_ends_exactly_window_ms_later() {
        let mut l = limiter(1, 100);
        assert!(l.decide(ms(37), 1).allowed());
        assert!(!l.decide(ms(136), 1).allowed());
        let d = l.decide(ms(137), 1);
        assert!(d.allowed(), "resetTime <= now opens a new window");
        assert_eq!(d.reset_after, Span::from_millis(100));
    }

    #[test]
    fn microseconds_are_floored_to_the_millisecond_date_now_reads() {
        let mut l = limiter(1, 100);
        l.decide(Time(5_999), 1);
        // Date.now() read 5 ms, so the window ends at 105 ms: 99 ms after the second hit at 6 ms.
        let d = l.decide(Time(6_000), 1);
        assert_eq!(d.retry_after, Some(Span(99_000)));
        assert!(l.decide(Time(105_000), 1).allowed());
    }

    #[test]
    fn a_time_going_backwards_is_read_as_the_latest_time_seen() {
        let mut l = limiter(1, 100);
        l.decide(ms(500), 1);
        let d = l.decide(ms(0), 1);
        assert_eq!(d.verdict, Verdict::Rejected);
        assert_eq!(d.retry_after, Some(Span::from_millis(100)));
    }

    #[test]
    fn cost_zero_looks_without_counting_or_opening_a_window() {
        let mut l = limiter(1, 100);
        let d = l.decide(ms(0), 0);
        assert_eq!(
            (d.verdict, d.remaining, d.reset_after),
            (Verdict::Allowed, 1, Span::ZERO)
        );
        assert!(l.is_at_rest(ms(0)));
        l.decide(ms(0), 1);
        l.decide(ms(1), 1);
        let d = l.decide(ms(2), 0);
        assert_eq!(d.verdict, Verdict::Rejected, "already over the limit");
        assert_eq!(l.total_hits(ms(2)), 2);
    }

    #[test]
    fn a_cost_counts_that_many_hits_and_one_larger_than_the_limit_never_passes() {
        let mut l = limiter(3, 1000);
        assert!(l.decide(ms(0), 2).allowed());
        let d = l.decide(ms(0), 2);
        assert_eq!(d.verdict, Verdict::Rejected);
        assert_eq!(d.retry_after, Some(Span::from_secs(1)));
        assert_eq!(l.total_hits(ms(0)), 4);
        assert_eq!(l.decide(ms(0), 4).retry_after, None);
    }

    #[test]
    fn limit_zero_refuses_everything_with_no_wait_that_helps() {
        let mut l = limiter(0, 1000);
        let d = l.decide(ms(0), 1);
        assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
    }

    #[test]
    fn peek_changes_nothing() {
        let mut l = limiter(2, 1000);
        l.decide(ms(0), 1);
        let before = l.client;
        let p = l.peek(ms(5), 1);
        assert_eq!(l.client, before);
        assert_eq!(p, l.decide(ms(5), 1));
    }

    #[test]
    fn windows_outside_1_to_2_pow_31_minus_1_ms_are_refused_with_the_librarys_message() {
        for bad in [0, MAX_WINDOW_MS + 1, 30 * 24 * 60 * 60 * 1000] {
            let err = ExpressRateLimit::new(ExpressRateLimitParams {
                window_ms: bad,
                ..ExpressRateLimitParams::default()
            })
            .unwrap_err();
            assert!(err.to_string().contains("Invalid windowMs value"), "{bad}");
        }
        assert!(ExpressRateLimit::new(ExpressRateLimitParams {
            window_ms: MAX_WINDOW_MS,
            ..ExpressRateLimitParams::default()
        })
        .is_ok());
    }

    #[test]
    fn status_codes_node_cannot_write_and_unsafe_identifiers_are_refused() {
        let p = ExpressRateLimitParams::default();
        assert!(ExpressRateLimit::new(ExpressRateLimitParams {
            status_code: 99,
            ..p
        })
        .is_err());
        assert!(ExpressRateLimit::new(ExpressRateLimitParams {
            status_code: 1000,
            ..p
        })
        .is_err());
        assert!(ExpressRateLimit::new(ExpressRateLimitParams {
            status_code: 420,
            ..p
        })
        .is_ok());
        let bad = ShortText::new("a\nb").unwrap();
        assert_eq!(
            ExpressRateLimit::new(ExpressRateLimitParams {
                identifier: Some(bad),
                ..p
            })
            .unwrap_err(),
            ConfigError::Unsupported(IDENTIFIER_ERROR)
        );
        assert!(ShortText::new(&"x".repeat(65)).is_err());
    }

    #[test]
    fn standard_headers_are_read_as_javascript_writes_them() {
        assert_eq!(StandardHeaders::parse("true"), Ok(StandardHeaders::Draft6));
        assert_eq!(
            StandardHeaders::parse("'draft-7'"),
            Ok(StandardHeaders::Draft7)
        );
        assert_eq!(
            StandardHeaders::parse("draft-8"),
            Ok(StandardHeaders::Draft8)
        );
        assert_eq!(StandardHeaders::parse("false"), Ok(StandardHeaders::Off));
        assert_eq!(
            StandardHeaders::parse("draft-9"),
            Err(ConfigError::Unsupported(DRAFT_VERSION_ERROR))
        );
    }

    #[test]
    fn defaults_for_floors_the_window_to_whole_milliseconds() {
        let p = ExpressRateLimitParams::defaults_for(10, Span(1_500_999));
        assert_eq!((p.limit, p.window_ms), (10, 1_500));
        assert_eq!(p.standard_headers, StandardHeaders::Draft8);
        assert!(!p.legacy_headers);
        let tiny = ExpressRateLimitParams::defaults_for(10, Span(999));
        assert!(ExpressRateLimit::new(tiny).is_err());
        assert_eq!(
            p.options_text(),
            "{ windowMs: 1500, limit: 10, standardHeaders: 'draft-8', legacyHeaders: false }"
        );
    }

    #[test]
    fn the_default_identifier_writes_the_window_as_javascript_writes_doubles() {
        assert_eq!(default_identifier(2, 50), "2-in-0.05sec");
        assert_eq!(default_identifier(1, 5_000), "1-in-5sec");
        assert_eq!(default_identifier(5, 60_000), "5-in-1min");
        assert_eq!(default_identifier(5, 90_000), "5-in-1.5min");
        assert_eq!(default_identifier(5, 100_000), "5-in-1.6666666666666667min");
        assert_eq!(default_identifier(6, 3_600_000), "6-in-1hr");
        assert_eq!(default_identifier(5, 7_200_000), "5-in-2hrs");
        assert_eq!(default_identifier(7, 86_400_000), "7-in-1day");
        assert_eq!(default_identifier(8, 172_800_000), "8-in-2days");
        assert_eq!(default_identifier(1, 59_999), "1-in-59.999sec");
    }

    /// The figures `getPartitionKey` gives: `'foo'` is headers-test.ts's draft-8 key
    /// (`keyGenerator: () => 'foo'`); the others were computed with the library's own function
    /// in Node, which hashes the string as UTF-8 (`hash.update(key)`).
    #[test]
    fn the_partition_key_is_the_one_the_library_computes_for_any_key() {
        for (key, pk) in [
            ("foo", "MmMyNmI0NmI2OGZm"),
            ("tenant:demo", "MzE2YTI4NDk5YjMw"),
            ("203.0.113.14", "MjMwZWYwZmI3MjFl"),
            ("127.0.0.1", "MTJjYTE3YjQ5YWYy"),
            ("2001:db8::1", "NWFmZDE5ZTg1NmQx"),
            ("café ☕", "YTdlNDZkNTQyODk4"),
            ("ключ", "MWRlMzZhMzJhZjc5"),
        ] {
            assert_eq!(partition_key(key), pk, "{key}");
        }
    }

    #[test]
    fn a_limiter_told_its_key_names_it_in_req_rate_limit_and_the_draft_8_policy() {
        let mut l =
            ExpressRateLimit::new(ExpressRateLimitParams::defaults_for(9, Span::from_secs(2)))
                .unwrap();
        l.set_key("203.0.113.14");
        let (_, reply) = l.decide_with_reply(ms(0), 1);
        assert_eq!(reply.get("key"), Some("203.0.113.14"));
        assert_eq!(
            reply.get("RateLimit-Policy"),
            Some("\"9-in-2sec\"; q=9; w=2; pk=:MjMwZWYwZmI3MjFl:")
        );
    }

    #[test]
    fn a_key_longer_than_the_parameters_hold_is_named_whole() {
        let mut l =
            ExpressRateLimit::new(ExpressRateLimitParams::defaults_for(1, Span::from_secs(1)))
                .unwrap();
        let long = "k".repeat(200);
        l.set_key(&long);
        let (_, reply) = l.decide_with_reply(ms(0), 1);
        assert_eq!(reply.get("key"), Some(long.as_str()));
        let pk = format!("pk=:{}:", partition_key(&long));
        assert!(reply
            .get("RateLimit-Policy")
            .is_some_and(|p| p.ends_with(&pk)));
    }

    #[test]
    fn base64_matches_the_standard_vectors() {
        assert_eq!(base64(b"foob"), "Zm9vYg==");
        assert_eq!(base64(b"fooba"), "Zm9vYmE=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn dates_are_written_as_javascript_writes_them() {
        assert_eq!(utc_string(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(iso_string(60_000), "1970-01-01T00:01:00.000Z");
        assert_eq!(utc_string(951_782_400_000), "Tue, 29 Feb 2000 00:00:00 GMT");
        assert_eq!(iso_string(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
        assert_eq!(
            iso_string(253_402_300_800_000),
            "+010000-01-01T00:00:00.000Z"
        );
    }

    #[test]
    fn unknown_status_codes_get_nodes_word_unknown() {
        assert_eq!(node_reason(429), "Too Many Requests");
        assert_eq!(node_reason(420), "unknown");
    }

    #[test]
    fn extreme_times_and_limits_do_not_panic() {
        let mut l = limiter(MAX_COUNT, MAX_WINDOW_MS);
        for t in [0, u64::MAX - 1, u64::MAX] {
            let (d, _) = l.decide_with_reply(Time(t), u64::MAX);
            assert_eq!(d.verdict, Verdict::Rejected);
        }
        assert!(!l.is_at_rest(Time(u64::MAX)));
    }
}
