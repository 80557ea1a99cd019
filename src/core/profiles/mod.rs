//! Exact profiles of the limiters people deploy: each re-derives, in this project's own code, what
//! one product decides and what it answers, from its documentation and public source. A profile
//! keeps the product's own arithmetic and reply, so the lab can show where products differ.
//!
//! Every profile is a [`Limiter`], so it draws a timeline and fills a stats row like the core
//! algorithms, and a [`Product`], so the inspector can show the product's own reply under the
//! HTTP response the product sends (`response`).
//!
//! What a product row is, as one value, is also here: [`ProductRow`], which each product's own
//! module defines once (`nginx::ROW`, `upstash::FIXED_ROW`, ...) and `core::limiter::rows`
//! lists. Everything the lab says or does about a product row reads it: its slug and label, its
//! family of URL fields, its limiter, the HTTP response its client receives, what a refusal tells
//! an obeying client, its explanation, its "Use these settings" snippet, and where copies of it
//! are the product's own behaviour. A descriptor is a struct of names and function pointers
//! rather than a trait object: a row is data the core walks (`tests/product_rows.rs` checks every
//! piece of every row), several rows share one limiter type (Upstash's three algorithms, .NET's
//! three classes), and a program that links only the textbook algorithms (`limiter::TextbookOnly`,
//! the page's first module) reads only a row's names from its `const`. The descriptor reads only this layer and those below it (the
//! lab's limit, window and product fields, as [`RowSettings`]), so the products stay below
//! `core::limiter`, which holds the list. Its types, and [`ProductSettings`] (a part per family,
//! each the family's own `Fields`), live in this file rather than a child module of their own so
//! that the products, their settings and the descriptor form no import circle.

use crate::core::config::ConfigError;
use crate::core::decision::{Decision, Limiter, Settlement};
use crate::core::field::Field;
use crate::core::http::HttpResponse;
use crate::core::time::{format_seconds, Span, Time};

pub mod cf_binding;
pub mod config_text;
pub mod dotnet;
pub mod envoy;
pub mod express_rate_limit;
pub mod governor;
pub mod guava;
pub mod nginx;
pub mod python_limits;
pub mod redis_cell;
pub mod response;
pub mod settings;
pub mod upstash;
pub mod x_time_rate;

/// A product's own answer to one call, spelled as the product spells it: field names and values
/// in the order the product returns them (redis-cell's five integers, Upstash's
/// `{success, limit, remaining, reset}`, nginx's status code, ...).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProductReply {
    pub fields: Vec<(&'static str, String)>,
}

impl ProductReply {
    /// The value of one field, by name.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A product profile: decides like any [`Limiter`] and can also say what the product answered.
pub trait Product: Limiter {
    /// Decides a request of `cost` at `now` exactly as [`Limiter::decide`] does (same state
    /// change, same [`Decision`]) and returns the product's own reply alongside.
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply);

    /// Makes a fresh limiter the one of the key named `name`. Only express-rate-limit's reply
    /// names the client's key; every other product's state and reply are the same whatever the
    /// key is called.
    fn serve_key(&mut self, _name: &str) {}

    /// The storage this limiter's keys share with the other keys of its row, as it last saw it:
    /// Python `limits`' moving window keeps every key in one `MemoryStorage` with one expiry
    /// timer. `None` for every other product, whose keys are independent.
    fn shared_storage(&self) -> Option<python_limits::StorageTimer> {
        None
    }

    /// Takes on the shared storage as another key's call left it.
    fn join_shared_storage(&mut self, _storage: python_limits::StorageTimer) {}

    /// Rewrites the decision this limiter gave a request with an open verdict (see
    /// [`Limiter::settles_late`]), and its reply, with the settlement that ended it.
    fn settle_decision(
        &self,
        decision: &mut Decision,
        _reply: Option<&mut ProductReply>,
        settlement: Settlement,
    ) {
        decision.verdict = settlement.verdict;
    }
}

/// A boxed product is the product (the rows whose state is large keep it boxed).
impl<P: Product + ?Sized> Product for Box<P> {
    #[inline]
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        (**self).decide_with_reply(now, cost)
    }

    #[inline]
    fn serve_key(&mut self, name: &str) {
        (**self).serve_key(name)
    }

    #[inline]
    fn shared_storage(&self) -> Option<python_limits::StorageTimer> {
        (**self).shared_storage()
    }

    #[inline]
    fn join_shared_storage(&mut self, storage: python_limits::StorageTimer) {
        (**self).join_shared_storage(storage)
    }

    #[inline]
    fn settle_decision(
        &self,
        decision: &mut Decision,
        reply: Option<&mut ProductReply>,
        settlement: Settlement,
    ) {
        (**self).settle_decision(decision, reply, settlement)
    }
}

/// The lab's settings a product row reads: the limit and window every row follows, and the
/// products' own fields (`core::limiter::Settings::row_settings`).
#[derive(Clone, Copy, Debug)]
pub struct RowSettings<'a> {
    pub limit: u64,
    pub window: Span,
    pub products: &'a ProductSettings,
}

/// The products' parameters that differ from their defaults: one part per family, each the
/// family's own `Fields` (in its module's `fields.rs`, with the rows that read and write it). A
/// new family adds its line here and its `Family::fields`; the list, `core::limiter::rows`,
/// joins every family's rows into the one table a link is read and written with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProductSettings {
    pub nginx: nginx::Fields,
    pub governor: governor::Fields,
    pub redis_cell: redis_cell::Fields,
    pub upstash: upstash::Fields,
    pub envoy: envoy::Fields,
    pub cf_binding: cf_binding::Fields,
    pub x_time_rate: x_time_rate::Fields,
    pub express_rate_limit: express_rate_limit::Fields,
    pub python_limits: python_limits::Fields,
    pub dotnet: dotnet::Fields,
    pub guava: guava::Fields,
}

/// A product's family: the prefix of its URL fields, the name the page groups them under, and
/// the rows of those fields (its module's `fields::FIELDS`), in the order a link writes them.
#[derive(Clone, Copy)]
pub struct Family {
    pub prefix: &'static str,
    pub name: &'static str,
    pub fields: &'static [Tunable],
}

/// One of a product's URL fields as a person tunes it in its box: the link's field, the name a
/// person reads beside the box (the product's own word for it), and the value the product runs
/// with, in the field's own spelling, whether set or following the lab's limit and window.
#[derive(Clone, Copy)]
pub struct Tunable {
    pub field: Field<ProductSettings>,
    pub label: &'static str,
    pub in_force: fn(&RowSettings) -> String,
}

/// A row's explanation beside its figures: what it does with the parameters in use, what it keeps
/// per key, and what it is for. The page adds the run's outcome after `what`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    pub what: String,
    pub memory: String,
    pub when: String,
}

/// What a refusal told its client to do (`core::retry_hint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Told {
    /// Wait this long, then try again.
    Wait(Span),
    /// Nothing: the client backs off on its own (`core::retry_hint::backoff`).
    Nothing,
    /// That no wait helps: the client gives up.
    Never,
}

/// What a product row tells a refused client.
#[derive(Clone, Copy)]
pub enum Hint {
    /// The `Retry-After` header of its HTTP response, when it sends one.
    Header,
    /// A finer hint its library's clients read instead (governor's exact wait, redis-cell's
    /// `retry_after`, Upstash's `reset`), from the decision and the product's reply at `now`.
    Finer(fn(Time, &Decision, &ProductReply) -> Told),
}

/// A row's "Use these settings".
#[derive(Clone, Copy)]
pub enum SnippetOf {
    /// The configuration or code that sets the product up as the row is, offered as `file_name`.
    Written {
        file_name: &'static str,
        write: fn(&RowSettings) -> Written,
    },
    /// The row has none, and this says why.
    None(&'static str),
}

/// What a product's snippet writer gives: the text, and the nearest setting when the row's own
/// cannot be written exactly.
pub struct Written {
    pub text: String,
    pub nearest: Option<Nearest>,
}

/// The nearest setting the product accepts: the product fields that give it, and a sentence
/// saying what differs (without the figures, which `core::snippets` adds from a run).
pub struct Nearest {
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

/// One product row, with every piece the lab needs of it. `L` is the limiter's state for one key.
pub struct ProductRow<L> {
    /// The name used in URLs (`algos=`) and in `data-testid="stats-<slug>"`.
    pub slug: &'static str,
    /// The name shown to a person.
    pub label: &'static str,
    pub family: Family,
    /// A fresh limiter for one key, with the product's parameters as the settings give them.
    pub build: fn(&RowSettings) -> Result<L, ConfigError>,
    /// What the row's client receives for `decision`, given the product's own reply.
    pub response: fn(&RowSettings, &Decision, &ProductReply) -> HttpResponse,
    /// What a refusal tells an obeying client, and the same in words for the row's notes.
    pub hint: Hint,
    pub tells: &'static str,
    pub explain: fn(&RowSettings) -> Explanation,
    pub snippet: SnippetOf,
    /// The row's own parameters in the product's words, where they say more than the lab's limit
    /// and window ("rate=30r/m burst=20 nodelay"), for the row's line beside its timeline.
    pub terms: fn(&RowSettings) -> Option<String>,
    /// Where copies of the row are what the product really does, the sentence saying so.
    pub copies: Option<&'static str>,
    /// The reader of the product's own config, the same for every row of a family: it tells
    /// which of them a config sets (`config_text`).
    pub config: config_text::ConfigOf,
}

/// "5 per 10 s": the lab's limit as the snippets' first lines name it.
pub fn quota_text(s: &RowSettings) -> String {
    format!("{} per {} s", s.limit, format_seconds(s.window.micros()))
}

/// Whether any of a family's URL fields is set: the row then runs the person's own product
/// settings rather than following the lab's limit and window.
pub fn family_set(s: &RowSettings, family: &Family) -> bool {
    family
        .fields
        .iter()
        .any(|f| (f.field.write)(s.products).is_some())
}

/// An explanation from its three parts.
pub fn explanation(what: String, memory: &str, when: &str) -> Explanation {
    Explanation {
        what,
        memory: memory.to_string(),
        when: when.to_string(),
    }
}
