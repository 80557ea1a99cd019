//! The catalogue of rows: the lab's `Settings`, the list of rows (`rows`, one line per row, which
//! makes `Algorithm`, `AnyLimiter` and the sets of parts a program links, [`Parts`]), the textbook
//! algorithms' rows (`textbook`), and one key's state as [`AnyLimiter`], which a run keeps per slot
//! (`LimiterSlots`) without boxing the six algorithms, and [`Absent`], a product's state where the
//! products are not linked. Each product's row is described in its own module under
//! `super::profiles`.

mod rows;
pub mod textbook;

use rows::each;
pub use rows::{
    field_text, without_field, Algorithm, AnyLimiter, Complete, Parts, TextbookAndDurableObject,
    TextbookOnly, PRODUCT_FIELDS,
};

use std::fmt;

use super::algorithms::fixed_window::Alignment;
use super::algorithms::Textbook;
use super::clients::Clients;
use super::config::{ConfigError, Quota, Rate};
use super::decision::{Decision, Gauge, Limiter, Settlement, Verdict};
use super::deployment::Deployment;
use super::linking::Linking;
use super::profiles::Product;
use super::profiles::ProductReply;
use super::profiles::ProductSettings;
use super::profiles::RowSettings;
use super::second_limit::SecondLimit;
use super::time::{Span, Time};
use super::traffic::Request;

impl Algorithm {
    /// The textbook algorithms, shown when the URL names none: the first six of `ALL`, before
    /// the products.
    pub const CORE: [Algorithm; 6] = match Algorithm::ALL.first_chunk::<6>() {
        Some(core) => *core,
        None => panic!("ALL starts with the six algorithms"),
    };

    /// `chosen` without repeats, in the order rows are shown.
    pub fn in_row_order(chosen: &[Algorithm]) -> Vec<Algorithm> {
        Algorithm::ALL
            .into_iter()
            .filter(|a| chosen.contains(a))
            .collect()
    }

    pub fn from_slug(slug: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.slug() == slug)
    }

    /// A product's family: the prefix of its URL fields ([`PRODUCT_FIELDS`]) and the
    /// name the page groups them under; `None` for the six algorithms.
    pub fn product_family(self) -> Option<(&'static str, &'static str)> {
        self.family().map(|f| (f.prefix, f.name))
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// When a leaky bucket serves an accepted request at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeakDelay {
    /// `nodelay`: every accepted request is served at once.
    NoDelay,
    /// `delay=N`: the first N requests ahead of the rate are served at once, the rest are held
    /// back. `After(0)` is nginx's default, smoothing every excess request.
    After(u64),
}

impl Default for LeakDelay {
    fn default() -> LeakDelay {
        LeakDelay::After(0)
    }
}

/// The lab's parameters. `limit` per `window` is the promise every row is measured against; the
/// others tune single algorithms and default to values derived from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub limit: u64,
    pub window: Span,
    /// Token bucket capacity; default `limit`.
    pub capacity: Option<u64>,
    /// Refill of the token bucket and emission rate of GCRA; default `limit` per `window`.
    pub refill: Option<Rate>,
    /// GCRA burst; default `limit`.
    pub gcra_burst: Option<u64>,
    /// Leaky bucket burst (requests ahead of the rate); default `limit - 1`, so that at most
    /// `limit` are accepted at once, like the token bucket.
    pub leak_burst: Option<u64>,
    pub leak_delay: LeakDelay,
    /// Where the fixed window's windows start.
    pub fixed_align: Alignment,
    /// Whether the fixed window, the sliding log and the sliding-window counter count refused
    /// requests too (the products keep their own rule).
    pub count_refused: bool,
    /// How many copies each row runs as, and how requests are spread over them.
    pub deployment: Deployment,
    /// A second limit every row also checks (`super::second_limit`).
    pub also: Option<SecondLimit>,
    /// Whether refused clients wait as told and retry (`super::clients`).
    pub clients: Clients,
    /// The product profiles' own parameters; unset ones follow `limit` and `window`.
    pub products: ProductSettings,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            limit: 5,
            window: Span::from_secs(10),
            capacity: None,
            refill: None,
            gcra_burst: None,
            leak_burst: None,
            leak_delay: LeakDelay::default(),
            fixed_align: Alignment::Clock,
            count_refused: false,
            deployment: Deployment::default(),
            also: None,
            clients: Clients::default(),
            products: ProductSettings::default(),
        }
    }
}

/// The rules that run on some settings in a program ([`Settings::rules_in`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RulesInForce {
    /// More than one copy of each row.
    pub copies: bool,
    /// A second limit on every row.
    pub second_limit: bool,
    /// Refused clients wait as told and retry.
    pub obeying_clients: bool,
}

impl Settings {
    /// What a product row reads of the settings: the limit, the window and the product fields.
    pub fn row_settings(&self) -> RowSettings<'_> {
        RowSettings {
            limit: self.limit,
            window: self.window,
            products: &self.products,
        }
    }

    pub fn quota(&self) -> Result<Quota, ConfigError> {
        Quota::new(self.limit, self.window)
    }

    pub fn bucket_capacity(&self) -> u64 {
        self.capacity.unwrap_or(self.limit)
    }

    pub fn refill_rate(&self, quota: Quota) -> Rate {
        self.refill.unwrap_or_else(|| quota.rate())
    }

    pub fn gcra_burst(&self) -> u64 {
        self.gcra_burst.unwrap_or(self.limit)
    }

    pub fn leak_burst(&self) -> u64 {
        self.leak_burst.unwrap_or(self.limit.saturating_sub(1))
    }

    /// True when a rule other than the defaults is in force: copies, a second limit, a fixed
    /// window from the first request, refused requests counted, obeying clients (the page's first module has no
    /// controls for them, and hands such a view to the complete one).
    pub fn sets_rules(&self) -> bool {
        !self.deployment.is_single()
            || self.also.is_some()
            || self.fixed_align != Alignment::Clock
            || self.count_refused
            || self.clients.obey
    }

    /// True when refused clients wait as told and retry (`super::retries`); a program runs them
    /// only when it links the rules ([`Self::rules_in`]).
    pub fn obeying_clients(&self) -> bool {
        self.clients.obey
    }

    /// The rules a program that links `C` runs on these settings: none where it links no rules.
    /// (The page's first module hands a view with rules to the complete one before computing it:
    /// `ui::state::Lab::show`.)
    pub fn rules_in<C: Linking>(&self) -> RulesInForce {
        RulesInForce {
            copies: C::RULES && !self.deployment.is_single(),
            second_limit: C::RULES && self.also.is_some(),
            obeying_clients: C::RULES && self.clients.obey,
        }
    }

    /// The settings of the second limit, if any: the same rules at its count and window, every
    /// knob following those (a product's explicit fields belong to the first limit).
    pub fn second(&self) -> Option<(Settings, SecondLimit)> {
        let also = self.also?;
        let second = Settings {
            limit: also.count,
            window: also.window,
            capacity: None,
            refill: None,
            gcra_burst: None,
            leak_burst: None,
            leak_delay: match self.leak_delay {
                LeakDelay::NoDelay => LeakDelay::NoDelay,
                LeakDelay::After(_) => LeakDelay::default(),
            },
            fixed_align: self.fixed_align,
            count_refused: self.count_refused,
            deployment: self.deployment,
            also: None,
            clients: Clients::default(),
            products: ProductSettings::default(),
        };
        Some((second, also))
    }

    /// The settings one of `shards` shards enforces: every count divided (rounded up, as the seed
    /// divides the limit) and every rate divided, so the shards together enforce the whole.
    pub fn per_shard(&self, shards: u32) -> Settings {
        let n = u64::from(shards.max(1));
        if n == 1 {
            return self.clone();
        }
        let split = |count: u64| count.div_ceil(n).max(1);
        let leak_burst = self.leak_burst.map(|b| b.div_ceil(n));
        let mut shard = Settings {
            limit: split(self.limit),
            window: self.window,
            capacity: self.capacity.map(split),
            refill: self.refill.map(|rate| rate.divided_by(n)),
            gcra_burst: self.gcra_burst.map(split),
            leak_burst,
            leak_delay: self.leak_delay,
            fixed_align: self.fixed_align,
            count_refused: self.count_refused,
            deployment: self.deployment,
            also: self.also,
            clients: self.clients,
            products: self.products.clone(),
        };
        if let LeakDelay::After(d) = shard.leak_delay {
            shard.leak_delay = LeakDelay::After(d.div_ceil(n).min(shard.leak_burst()));
        }
        shard
    }
}

/// What the keys of one copy of a row share: the storage object of a product that keeps all its
/// keys in one (Python `limits`' `MemoryStorage`, whose one expiry timer prunes every key's
/// moving-window log).
pub type SharedStorage = super::profiles::python_limits::StorageTimer;

/// One limiter per slot (a key, or a key on one copy of a row), each a copy of one fresh limiter
/// made when its slot is first used and told the name of the key it serves: what runs, replays
/// and a second limit keep. Slots are numbered `key × copies + copy`, as
/// [`super::deployment::Placement::slot`] numbers them. A row whose keys share one storage
/// (see [`AnyLimiter::shared_storage`]) has one per copy, handed from call to call.
#[derive(Clone, Debug)]
pub struct LimiterSlots<C: Parts = Complete> {
    fresh: AnyLimiter<C>,
    slots: Vec<Option<AnyLimiter<C>>>,
    /// The keys' names, by key number.
    names: Vec<String>,
    copies: usize,
    /// Per copy, the storage its keys share, for a row that has one.
    storages: Vec<Option<SharedStorage>>,
}

impl<C: Parts> LimiterSlots<C> {
    /// No keys yet, for a row run as `copies` copies.
    pub fn new(fresh: AnyLimiter<C>, copies: usize) -> LimiterSlots<C> {
        let copies = copies.max(1);
        LimiterSlots {
            storages: vec![fresh.shared_storage(); copies],
            fresh,
            slots: Vec::new(),
            names: Vec::new(),
            copies,
        }
    }

    /// The limiter every slot starts as.
    pub fn fresh(&self) -> &AnyLimiter<C> {
        &self.fresh
    }

    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Numbers the next key, `name`, and makes room for its slots (unused until asked for).
    pub fn add_key(&mut self, name: &str) {
        self.names.push(name.to_string());
        self.slots
            .resize(self.names.len().saturating_mul(self.copies), None);
    }

    /// `f` on the limiter of `slot` (a slot past the end gets a fresh one, forgotten after),
    /// with its copy's shared storage as the copy's last call left it.
    pub fn with<R>(&mut self, slot: usize, f: impl FnOnce(&mut AnyLimiter<C>) -> R) -> R {
        let storage = self.storages.get_mut(slot % self.copies);
        let mut spare = None;
        let limiter = match self.slots.get_mut(slot) {
            Some(limiter) => limiter.get_or_insert_with(|| {
                let mut fresh = self.fresh.clone();
                if let Some(name) = self.names.get(slot / self.copies) {
                    fresh.serve_key(name);
                }
                fresh
            }),
            None => spare.insert(self.fresh.clone()),
        };
        match storage {
            Some(Some(shared)) => {
                limiter.join_shared_storage(*shared);
                let answer = f(limiter);
                if let Some(after) = limiter.shared_storage() {
                    *shared = after;
                }
                answer
            }
            _ => f(limiter),
        }
    }
}

/// One key's state of a product row, as a program that links the products keeps it.
pub trait ProductState: Product + Clone + fmt::Debug {}

impl<P: Product + Clone + fmt::Debug> ProductState for P {}

/// The state of a product row in a program that does not link the products (`Parts`): no value
/// exists, so every `match` over [`AnyLimiter`] drops the products' arms when it is compiled.
#[derive(Clone, Debug)]
pub enum Absent {}

impl Limiter for Absent {
    fn decide(&mut self, _: Time, _: u64) -> Decision {
        match *self {}
    }

    fn peek(&self, _: Time, _: u64) -> Decision {
        match *self {}
    }

    fn gauge(&self, _: Time) -> Gauge {
        match *self {}
    }

    fn is_at_rest(&self, _: Time) -> bool {
        match *self {}
    }
}

impl Product for Absent {
    fn decide_with_reply(&mut self, _: Time, _: u64) -> (Decision, ProductReply) {
        match *self {}
    }
}

/// A product's decisions over one key's requests, through [`Limiter::admit`]: a function of its
/// own per limiter type, so that the loops of the six algorithms, inlined into
/// [`AnyLimiter::admit_each`], are compiled as if the products were not there (measured with
/// `PARTS=instructions bash scripts/bench-core-compare.sh`, docs/performance.md).
#[inline(never)]
fn admit_each_of<'a, L: Limiter>(
    l: &mut L,
    requests: impl Iterator<Item = &'a Request>,
    verdict: &mut impl FnMut(Verdict),
) {
    for r in requests {
        verdict(l.admit(r.at, u64::from(r.cost)));
    }
}

impl<C: Parts> AnyLimiter<C> {
    /// Makes a fresh limiter the one of the key named `name`. Only express-rate-limit's reply
    /// names the client's key (`req.rateLimit.key` and the draft-8 partition key); every other
    /// product's state and reply are the same whatever the key is called.
    pub fn serve_key(&mut self, name: &str) {
        each!(self, l => { let _ = (l, name); } ; l.serve_key(name))
    }

    /// The storage this limiter's keys share with the other keys of its row, as it last saw
    /// it: Python `limits`' moving window keeps every key in one `MemoryStorage` with one expiry
    /// timer. `None` for every other row, whose keys are independent. (The fixed window and the
    /// sliding window counter share the storage too, but its timer only drops counters that
    /// `get` would already read as expired.)
    pub fn shared_storage(&self) -> Option<SharedStorage> {
        each!(self, l => { let _ = l; None } ; l.shared_storage())
    }

    /// Takes on the shared storage as another key's call left it (see
    /// [`AnyLimiter::shared_storage`]).
    pub fn join_shared_storage(&mut self, storage: SharedStorage) {
        each!(self, l => { let _ = (l, storage); } ; l.join_shared_storage(storage))
    }

    /// Decides `requests` (one key's, in order) on the fast path, telling `verdict` each answer.
    /// The row is matched once for the whole run instead of once per request, so each decision
    /// is the algorithm's own inlined arithmetic: the six algorithms' own loops, and one loop
    /// through `admit` per product's limiter type (shared by the rows of one type).
    pub fn admit_each<'a>(
        &mut self,
        requests: impl Iterator<Item = &'a Request>,
        mut verdict: impl FnMut(Verdict),
    ) {
        each!(self, l => l.admit_each(requests, &mut verdict) ; admit_each_of(l, requests, &mut verdict))
    }

    /// Rewrites the decision this limiter gave a request with an open verdict (see
    /// [`Limiter::settles_late`]), and a product's reply, with the settlement that ended it.
    pub fn settle_decision(
        &self,
        decision: &mut Decision,
        reply: Option<&mut ProductReply>,
        settlement: Settlement,
    ) {
        each!(self, l => {
            let _ = (l, reply);
            decision.verdict = settlement.verdict;
        } ; l.settle_decision(decision, reply, settlement))
    }

    /// Decides like [`Limiter::decide`]; a product profile also gives the product's own reply.
    pub fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, Option<ProductReply>) {
        each!(self, l => (l.decide(now, cost), None) ; {
            let (decision, reply) = l.decide_with_reply(now, cost);
            (decision, Some(reply))
        })
    }

    /// True when a refusal changes nothing but the limiter's clock, so that [`Limiter::peek`]
    /// at the same instant, after a refused [`Limiter::admit`], answers exactly what
    /// [`Limiter::decide`] would have: the six algorithms, unless they count refused requests.
    /// Obeying clients (`super::retries`) then decide every try on the fast path and work out
    /// the full answer only for a refusal. False for the products, whose refusals may write
    /// (a count, a cache, a timestamp).
    pub fn refusal_is_repeatable(&self) -> bool {
        each!(self, l => l.refusal_is_repeatable() ; { let _ = l; false })
    }
}

impl<C: Parts> Limiter for AnyLimiter<C> {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        each!(self, l => l.decide(now, cost))
    }

    fn admit(&mut self, now: Time, cost: u64) -> Verdict {
        each!(self, l => l.admit(now, cost))
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        each!(self, l => l.peek(now, cost))
    }

    fn gauge(&self, now: Time) -> Gauge {
        each!(self, l => l.gauge(now))
    }

    fn is_at_rest(&self, now: Time) -> bool {
        each!(self, l => l.is_at_rest(now))
    }

    fn settles_late(&self) -> bool {
        each!(self, l => l.settles_late())
    }

    fn take_settled(&mut self) -> Option<Settlement> {
        each!(self, l => l.take_settled())
    }

    fn settle_rest(&mut self) {
        each!(self, l => l.settle_rest())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shards_settings_divide_every_count_and_rate_and_still_build() {
        let settings = Settings {
            limit: 8,
            capacity: Some(8),
            refill: Some(Rate::parse_per_second("2").unwrap()),
            gcra_burst: Some(8),
            leak_burst: Some(7),
            leak_delay: LeakDelay::After(5),
            ..Settings::default()
        };
        let shard = settings.per_shard(4);
        assert_eq!(
            (
                shard.limit,
                shard.capacity,
                shard.gcra_burst,
                shard.leak_burst
            ),
            (2, Some(2), Some(2), Some(2))
        );
        assert_eq!(shard.refill, Some(Rate::parse_per_second("0.5").unwrap()));
        assert_eq!(shard.leak_delay, LeakDelay::After(2));
        for a in Algorithm::ALL {
            assert!(a.build(&shard).is_ok(), "{a}");
        }
    }

    #[test]
    fn every_product_field_belongs_to_exactly_one_family_and_every_product_has_fields() {
        let mut families: Vec<&str> = Algorithm::ALL
            .iter()
            .filter_map(|a| a.product_family().map(|(prefix, _)| prefix))
            .collect();
        families.dedup();
        for field in PRODUCT_FIELDS {
            let owners = families.iter().filter(|p| field.name.starts_with(**p));
            assert_eq!(owners.count(), 1, "{}", field.name);
        }
        for a in Algorithm::ALL {
            assert_eq!(a.product_family().is_some(), a.is_product(), "{a}");
            if let Some((prefix, _)) = a.product_family() {
                let fields = a.family().map_or(&[][..], |f| f.fields);
                assert!(!fields.is_empty(), "{a}");
                assert!(
                    fields.iter().all(|f| f.field.name.starts_with(prefix)),
                    "{a}"
                );
            }
        }
    }

    #[test]
    fn every_algorithm_round_trips_through_its_slug() {
        for a in Algorithm::ALL {
            assert_eq!(Algorithm::from_slug(a.slug()), Some(a));
        }
        assert_eq!(Algorithm::from_slug("sliding"), None);
    }

    /// Each row is built as its own: the limiter's state is the row's own variant, and no two
    /// product rows (several share a type: Upstash's three, .NET's three) build the same state.
    #[test]
    fn every_row_is_built_as_its_own_variant_and_no_two_products_build_the_same_state() {
        let mut states = Vec::new();
        for a in Algorithm::ALL {
            let limiter = a.build(&Settings::default()).unwrap();
            let state = format!("{limiter:?}");
            assert!(state.starts_with(&format!("{a:?}(")), "{a}: {state}");
            let inner = state[format!("{a:?}").len()..].to_string();
            if a.is_product() {
                assert!(!states.contains(&inner), "{a} builds another row's state");
                states.push(inner);
            }
        }
    }

    #[test]
    fn every_algorithm_builds_from_the_default_settings() {
        for a in Algorithm::ALL {
            assert!(a.build(&Settings::default()).is_ok(), "{a}");
        }
    }

    #[test]
    fn a_zero_limit_fails_to_build_instead_of_panicking() {
        let settings = Settings {
            limit: 0,
            ..Settings::default()
        };
        for a in Algorithm::ALL {
            assert_eq!(a.build(&settings).unwrap_err(), ConfigError::ZeroLimit);
        }
    }

    #[test]
    fn the_defaults_follow_the_explainer_capacity_limit_refill_limit_per_window() {
        let s = Settings::default();
        let quota = s.quota().unwrap();
        assert_eq!(s.bucket_capacity(), 5);
        assert_eq!(s.refill_rate(quota), Rate::parse_per_second("0.5").unwrap());
        assert_eq!(s.gcra_burst(), 5);
        assert_eq!(s.leak_burst(), 4);
    }
}
