//! The catalogue of algorithms: their names, how each is built from the lab's settings, and one
//! enum that holds any of them so a key's state can live in a map without boxing. The catalogue
//! holds the six textbook algorithms and the exact product profiles (`super::profiles`).

use std::fmt;

use super::algorithms::fixed_window::Alignment;
use super::algorithms::{
    FixedWindow, Gcra, LeakyBucket, LeakyBucketConfig, SlidingCounter, SlidingLog, TokenBucket,
};
use super::clients::Clients;
use super::config::{ConfigError, Quota, Rate};
use super::decision::{Decision, Gauge, Limiter, Settlement, Verdict};
use super::deployment::Deployment;
use super::profiles::settings::ProductSettings;
use super::profiles::ProductReply;
#[cfg(feature = "products")]
use super::profiles::{
    cf_binding::CfRateLimitBinding,
    dotnet::DotnetLimiter,
    envoy::EnvoyLocalRateLimit,
    express_rate_limit::ExpressRateLimit,
    governor::Governor,
    guava::Guava,
    nginx::NginxLimitReq,
    python_limits::{
        FixedWindowRateLimiter, MovingWindowRateLimiter, SlidingWindowCounterRateLimiter,
    },
    redis_cell::RedisCell,
    upstash::Upstash,
    upstash::UpstashKind,
    x_time_rate::XTimeRate,
    Product,
};
use super::second_limit::SecondLimit;
use super::time::{Span, Time};
use super::traffic::Request;

/// Every algorithm the lab runs, in the order rows are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    FixedWindow,
    SlidingLog,
    SlidingCounter,
    TokenBucket,
    Gcra,
    LeakyBucket,
    Nginx,
    Governor,
    RedisCell,
    UpstashFixed,
    UpstashSliding,
    UpstashToken,
    Envoy,
    CfBinding,
    XTimeRate,
    ExpressRateLimit,
    LimitsFixed,
    LimitsMoving,
    LimitsSliding,
    DotnetFixed,
    DotnetSliding,
    DotnetToken,
    Guava,
}

impl Algorithm {
    pub const ALL: [Algorithm; 23] = [
        Algorithm::FixedWindow,
        Algorithm::SlidingLog,
        Algorithm::SlidingCounter,
        Algorithm::TokenBucket,
        Algorithm::Gcra,
        Algorithm::LeakyBucket,
        Algorithm::Nginx,
        Algorithm::Governor,
        Algorithm::RedisCell,
        Algorithm::UpstashFixed,
        Algorithm::UpstashSliding,
        Algorithm::UpstashToken,
        Algorithm::Envoy,
        Algorithm::CfBinding,
        Algorithm::XTimeRate,
        Algorithm::ExpressRateLimit,
        Algorithm::LimitsFixed,
        Algorithm::LimitsMoving,
        Algorithm::LimitsSliding,
        Algorithm::DotnetFixed,
        Algorithm::DotnetSliding,
        Algorithm::DotnetToken,
        Algorithm::Guava,
    ];

    /// The textbook algorithms, shown when the URL names none: the first six of `ALL`, before
    /// the products.
    pub const CORE: [Algorithm; 6] = match Algorithm::ALL.first_chunk::<6>() {
        Some(core) => *core,
        None => panic!("ALL starts with the six algorithms"),
    };

    /// True for an exact profile of a product, whose own reply the inspector shows.
    pub fn is_product(self) -> bool {
        self >= Algorithm::Nginx
    }

    /// The name used in URLs (`algos=`) and in `data-testid="stats-<slug>"`.
    pub fn slug(self) -> &'static str {
        match self {
            Algorithm::FixedWindow => "fixed",
            Algorithm::SlidingLog => "sliding-log",
            Algorithm::SlidingCounter => "sliding-counter",
            Algorithm::TokenBucket => "token-bucket",
            Algorithm::Gcra => "gcra",
            Algorithm::LeakyBucket => "leaky-bucket",
            Algorithm::Nginx => "nginx",
            Algorithm::Governor => "governor",
            Algorithm::RedisCell => "redis-cell",
            Algorithm::UpstashFixed => "upstash-fixed",
            Algorithm::UpstashSliding => "upstash-sliding",
            Algorithm::UpstashToken => "upstash-token",
            Algorithm::Envoy => "envoy",
            Algorithm::CfBinding => "cf-binding",
            Algorithm::XTimeRate => "x-time-rate",
            Algorithm::ExpressRateLimit => "express-rate-limit",
            Algorithm::LimitsFixed => "limits-fixed",
            Algorithm::LimitsMoving => "limits-moving",
            Algorithm::LimitsSliding => "limits-sliding",
            Algorithm::DotnetFixed => "dotnet-fixed",
            Algorithm::DotnetSliding => "dotnet-sliding",
            Algorithm::DotnetToken => "dotnet-token",
            Algorithm::Guava => "guava",
        }
    }

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

    /// A product's family: the prefix of its URL fields (`profiles::settings::FIELDS`) and the
    /// name the page groups them under; `None` for the six algorithms.
    pub fn product_family(self) -> Option<(&'static str, &'static str)> {
        Some(match self {
            Algorithm::Nginx => ("nginx-", "nginx limit_req"),
            Algorithm::Governor => ("governor-", "governor"),
            Algorithm::RedisCell => ("cell-", "redis-cell"),
            Algorithm::UpstashFixed | Algorithm::UpstashSliding | Algorithm::UpstashToken => {
                ("upstash-", "Upstash")
            }
            Algorithm::Envoy => ("envoy-", "Envoy"),
            Algorithm::CfBinding => ("cf-", "Cloudflare binding"),
            Algorithm::XTimeRate => ("xtime-", "Go x/time/rate"),
            Algorithm::ExpressRateLimit => ("express-", "express-rate-limit"),
            Algorithm::LimitsFixed | Algorithm::LimitsMoving | Algorithm::LimitsSliding => {
                ("limits-", "Python limits")
            }
            Algorithm::DotnetFixed | Algorithm::DotnetSliding | Algorithm::DotnetToken => {
                ("dotnet-", ".NET RateLimiting")
            }
            Algorithm::Guava => ("guava-", "Guava"),
            _ => return None,
        })
    }

    /// The name shown to a person.
    pub fn label(self) -> &'static str {
        match self {
            Algorithm::FixedWindow => "Fixed window",
            Algorithm::SlidingLog => "Sliding log",
            Algorithm::SlidingCounter => "Sliding-window counter",
            Algorithm::TokenBucket => "Token bucket",
            Algorithm::Gcra => "GCRA",
            Algorithm::LeakyBucket => "Leaky bucket (nginx)",
            Algorithm::Nginx => "nginx limit_req",
            Algorithm::Governor => "governor (Rust)",
            Algorithm::RedisCell => "redis-cell CL.THROTTLE",
            Algorithm::UpstashFixed => "Upstash fixedWindow",
            Algorithm::UpstashSliding => "Upstash slidingWindow",
            Algorithm::UpstashToken => "Upstash tokenBucket",
            Algorithm::Envoy => "Envoy local rate limit",
            Algorithm::CfBinding => "Cloudflare binding",
            Algorithm::XTimeRate => "Go x/time/rate",
            Algorithm::ExpressRateLimit => "express-rate-limit",
            Algorithm::LimitsFixed => "Python limits, fixed window",
            Algorithm::LimitsMoving => "Python limits, moving window",
            Algorithm::LimitsSliding => "Python limits, sliding window counter",
            Algorithm::DotnetFixed => ".NET fixed window",
            Algorithm::DotnetSliding => ".NET sliding window",
            Algorithm::DotnetToken => ".NET token bucket",
            Algorithm::Guava => "Guava RateLimiter",
        }
    }

    /// Builds a fresh limiter for one key.
    pub fn build(self, settings: &Settings) -> Result<AnyLimiter, ConfigError> {
        let quota = settings.quota()?;
        Ok(match self {
            Algorithm::FixedWindow => AnyLimiter::FixedWindow(FixedWindow::with_options(
                quota,
                settings.fixed_align,
                settings.count_refused,
            )),
            Algorithm::SlidingLog => {
                AnyLimiter::SlidingLog(SlidingLog::with_options(quota, settings.count_refused))
            }
            Algorithm::SlidingCounter => AnyLimiter::SlidingCounter(SlidingCounter::with_options(
                quota,
                settings.count_refused,
            )),
            Algorithm::TokenBucket => AnyLimiter::TokenBucket(TokenBucket::new(
                settings.bucket_capacity(),
                settings.refill_rate(quota),
            )?),
            Algorithm::Gcra => AnyLimiter::Gcra(Gcra::new(
                settings.refill_rate(quota),
                settings.gcra_burst(),
            )?),
            Algorithm::LeakyBucket => {
                let burst = settings.leak_burst();
                let delay = match settings.leak_delay {
                    LeakDelay::NoDelay => burst,
                    LeakDelay::After(n) => n,
                };
                AnyLimiter::LeakyBucket(LeakyBucket::new(LeakyBucketConfig::new(
                    quota.rate(),
                    burst,
                    delay,
                )?))
            }
            product => product_limiter(product, settings)?,
        })
    }
}

/// A product row's limiter for one key, with the product's parameters as the settings give them.
#[cfg(feature = "products")]
fn product_limiter(product: Algorithm, settings: &Settings) -> Result<AnyLimiter, ConfigError> {
    let (p, limit, window) = (&settings.products, settings.limit, settings.window);
    Ok(match product {
        Algorithm::Nginx => AnyLimiter::Nginx(NginxLimitReq::new(p.nginx(limit, window))?),
        Algorithm::Governor => AnyLimiter::Governor(Governor::new(p.governor(limit, window))?),
        Algorithm::RedisCell => {
            AnyLimiter::RedisCell(RedisCell::from_params(p.redis_cell(limit, window))?)
        }
        Algorithm::UpstashFixed | Algorithm::UpstashSliding | Algorithm::UpstashToken => {
            let kind = match product {
                Algorithm::UpstashFixed => UpstashKind::FixedWindow,
                Algorithm::UpstashSliding => UpstashKind::SlidingWindow,
                _ => UpstashKind::TokenBucket,
            };
            AnyLimiter::Upstash(Box::new(Upstash::new(p.upstash(kind, limit, window))?))
        }
        Algorithm::Envoy => AnyLimiter::Envoy(EnvoyLocalRateLimit::new(p.envoy(limit, window))?),
        Algorithm::CfBinding => {
            AnyLimiter::CfBinding(CfRateLimitBinding::new(p.cf_binding(limit, window))?)
        }
        Algorithm::XTimeRate => {
            AnyLimiter::XTimeRate(XTimeRate::new(p.x_time_rate(limit, window))?)
        }
        Algorithm::ExpressRateLimit => {
            AnyLimiter::Express(Box::new(ExpressRateLimit::new(p.express(limit, window))?))
        }
        Algorithm::LimitsFixed => AnyLimiter::LimitsFixed(Box::new(FixedWindowRateLimiter::new(
            p.python_limits(limit, window),
        )?)),
        Algorithm::LimitsMoving => AnyLimiter::LimitsMoving(Box::new(
            MovingWindowRateLimiter::new(p.python_limits(limit, window))?,
        )),
        Algorithm::LimitsSliding => AnyLimiter::LimitsSliding(Box::new(
            SlidingWindowCounterRateLimiter::new(p.python_limits(limit, window))?,
        )),
        Algorithm::DotnetFixed => {
            AnyLimiter::Dotnet(Box::new(p.dotnet_fixed(limit, window).build()?))
        }
        Algorithm::DotnetSliding => {
            AnyLimiter::Dotnet(Box::new(p.dotnet_sliding(limit, window).build()?))
        }
        Algorithm::DotnetToken => {
            AnyLimiter::Dotnet(Box::new(p.dotnet_token(limit, window).build()?))
        }
        Algorithm::Guava => AnyLimiter::Guava(Guava::new(p.guava(limit, window))?),
        // `Algorithm::build` makes these itself; listed so that a product without an arm above
        // does not compile.
        textbook @ (Algorithm::FixedWindow
        | Algorithm::SlidingLog
        | Algorithm::SlidingCounter
        | Algorithm::TokenBucket
        | Algorithm::Gcra
        | Algorithm::LeakyBucket) => return textbook.build(settings),
    })
}

/// Without the product profiles, a product row cannot be built here (the page then loads the
/// module that has them).
#[cfg(not(feature = "products"))]
fn product_limiter(_product: Algorithm, _settings: &Settings) -> Result<AnyLimiter, ConfigError> {
    Err(ConfigError::ProductsNotBuilt)
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

impl Settings {
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

    /// True when refused clients wait as told and retry (`super::retries`). The page's first
    /// module runs none: a view with them is handed to the complete module before it is
    /// computed, as for the second limit.
    pub fn obeying_clients(&self) -> bool {
        cfg!(feature = "workbench") && self.clients.obey
    }

    /// The settings of the second limit, if any: the same rules at its count and window, every
    /// knob following those (a product's explicit fields belong to the first limit).
    pub fn second(&self) -> Option<(Settings, SecondLimit)> {
        // The page's first module runs no second limit: a view with one is handed to the
        // complete module before it is computed (`ui::state::Lab::show`, web/loader.js).
        if !cfg!(feature = "workbench") {
            return None;
        }
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
#[cfg(feature = "products")]
pub type SharedStorage = super::profiles::python_limits::StorageTimer;

/// Without the product profiles no row shares a storage among its keys.
#[cfg(not(feature = "products"))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SharedStorage {}

/// One limiter per slot (a key, or a key on one copy of a row), each a copy of one fresh limiter
/// made when its slot is first used and told the name of the key it serves: what runs, replays
/// and a second limit keep. Slots are numbered `key × copies + copy`, as
/// [`super::deployment::Placement::slot`] numbers them. A row whose keys share one storage
/// (see [`AnyLimiter::shared_storage`]) has one per copy, handed from call to call.
#[derive(Clone, Debug)]
pub struct LimiterSlots {
    fresh: AnyLimiter,
    slots: Vec<Option<AnyLimiter>>,
    /// The keys' names, by key number.
    names: Vec<String>,
    copies: usize,
    /// Per copy, the storage its keys share, for a row that has one.
    storages: Vec<Option<SharedStorage>>,
}

impl LimiterSlots {
    /// No keys yet, for a row run as `copies` copies.
    pub fn new(fresh: AnyLimiter, copies: usize) -> LimiterSlots {
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
    pub fn fresh(&self) -> &AnyLimiter {
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
    pub fn with<R>(&mut self, slot: usize, f: impl FnOnce(&mut AnyLimiter) -> R) -> R {
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

/// Any algorithm's per-key state, dispatched without allocation.
#[derive(Clone, Debug)]
pub enum AnyLimiter {
    FixedWindow(FixedWindow),
    SlidingLog(SlidingLog),
    SlidingCounter(SlidingCounter),
    TokenBucket(TokenBucket),
    Gcra(Gcra),
    LeakyBucket(LeakyBucket),
    #[cfg(feature = "products")]
    Nginx(NginxLimitReq),
    #[cfg(feature = "products")]
    Governor(Governor),
    #[cfg(feature = "products")]
    RedisCell(RedisCell),
    /// Boxed: its ephemeral cache and two windows make it several times larger than the others.
    #[cfg(feature = "products")]
    Upstash(Box<Upstash>),
    #[cfg(feature = "products")]
    Envoy(EnvoyLocalRateLimit),
    #[cfg(feature = "products")]
    CfBinding(CfRateLimitBinding),
    #[cfg(feature = "products")]
    XTimeRate(XTimeRate),
    /// Boxed, as the ones below: they hold their texts, logs or queues inline.
    #[cfg(feature = "products")]
    Express(Box<ExpressRateLimit>),
    #[cfg(feature = "products")]
    LimitsFixed(Box<FixedWindowRateLimiter>),
    #[cfg(feature = "products")]
    LimitsMoving(Box<MovingWindowRateLimiter>),
    #[cfg(feature = "products")]
    LimitsSliding(Box<SlidingWindowCounterRateLimiter>),
    #[cfg(feature = "products")]
    Dotnet(Box<DotnetLimiter>),
    #[cfg(feature = "products")]
    Guava(Guava),
}

macro_rules! each {
    ($self:expr, $l:ident => $body:expr) => {
        match $self {
            AnyLimiter::FixedWindow($l) => $body,
            AnyLimiter::SlidingLog($l) => $body,
            AnyLimiter::SlidingCounter($l) => $body,
            AnyLimiter::TokenBucket($l) => $body,
            AnyLimiter::Gcra($l) => $body,
            AnyLimiter::LeakyBucket($l) => $body,
            #[cfg(feature = "products")]
            AnyLimiter::Nginx($l) => $body,
            #[cfg(feature = "products")]
            AnyLimiter::Governor($l) => $body,
            #[cfg(feature = "products")]
            AnyLimiter::RedisCell($l) => $body,
            #[cfg(feature = "products")]
            AnyLimiter::Upstash($l) => $body,
            #[cfg(feature = "products")]
            AnyLimiter::Envoy($l) => $body,
            #[cfg(feature = "products")]
            AnyLimiter::CfBinding($l) => $body,
            #[cfg(feature = "products")]
            AnyLimiter::XTimeRate($l) => $body,
            #[cfg(feature = "products")]
            AnyLimiter::Express($l) => $body,
            #[cfg(feature = "products")]
            AnyLimiter::LimitsFixed($l) => $body,
            #[cfg(feature = "products")]
            AnyLimiter::LimitsMoving($l) => $body,
            #[cfg(feature = "products")]
            AnyLimiter::LimitsSliding($l) => $body,
            #[cfg(feature = "products")]
            AnyLimiter::Dotnet($l) => $body,
            #[cfg(feature = "products")]
            AnyLimiter::Guava($l) => $body,
        }
    };
}

impl AnyLimiter {
    /// Makes a fresh limiter the one of the key named `name`. Only express-rate-limit's reply
    /// names the client's key (`req.rateLimit.key` and the draft-8 partition key); every other
    /// product's state and reply are the same whatever the key is called.
    pub fn serve_key(&mut self, name: &str) {
        // Without the product profiles no limiter takes the name.
        #[cfg(not(feature = "products"))]
        let _ = name;
        match self {
            #[cfg(feature = "products")]
            AnyLimiter::Express(l) => l.set_key(name),
            AnyLimiter::FixedWindow(_)
            | AnyLimiter::SlidingLog(_)
            | AnyLimiter::SlidingCounter(_)
            | AnyLimiter::TokenBucket(_)
            | AnyLimiter::Gcra(_)
            | AnyLimiter::LeakyBucket(_) => {}
            #[cfg(feature = "products")]
            AnyLimiter::Nginx(_) => {}
            #[cfg(feature = "products")]
            AnyLimiter::Governor(_) => {}
            #[cfg(feature = "products")]
            AnyLimiter::RedisCell(_) => {}
            #[cfg(feature = "products")]
            AnyLimiter::Upstash(_) => {}
            #[cfg(feature = "products")]
            AnyLimiter::Envoy(_) => {}
            #[cfg(feature = "products")]
            AnyLimiter::CfBinding(_) => {}
            #[cfg(feature = "products")]
            AnyLimiter::XTimeRate(_) => {}
            #[cfg(feature = "products")]
            AnyLimiter::LimitsFixed(_) => {}
            #[cfg(feature = "products")]
            AnyLimiter::LimitsMoving(_) => {}
            #[cfg(feature = "products")]
            AnyLimiter::LimitsSliding(_) => {}
            #[cfg(feature = "products")]
            AnyLimiter::Dotnet(_) => {}
            #[cfg(feature = "products")]
            AnyLimiter::Guava(_) => {}
        }
    }

    /// The storage this limiter's keys share with the other keys of its row, as it last saw
    /// it: Python `limits`' moving window keeps every key in one `MemoryStorage` with one expiry
    /// timer. `None` for every other algorithm, whose keys are independent.
    pub fn shared_storage(&self) -> Option<SharedStorage> {
        match self {
            #[cfg(feature = "products")]
            AnyLimiter::LimitsMoving(l) => Some(l.storage_timer()),
            AnyLimiter::FixedWindow(_)
            | AnyLimiter::SlidingLog(_)
            | AnyLimiter::SlidingCounter(_)
            | AnyLimiter::TokenBucket(_)
            | AnyLimiter::Gcra(_)
            | AnyLimiter::LeakyBucket(_) => None,
            #[cfg(feature = "products")]
            AnyLimiter::Nginx(_) => None,
            #[cfg(feature = "products")]
            AnyLimiter::Governor(_) => None,
            #[cfg(feature = "products")]
            AnyLimiter::RedisCell(_) => None,
            #[cfg(feature = "products")]
            AnyLimiter::Upstash(_) => None,
            #[cfg(feature = "products")]
            AnyLimiter::Envoy(_) => None,
            #[cfg(feature = "products")]
            AnyLimiter::CfBinding(_) => None,
            #[cfg(feature = "products")]
            AnyLimiter::XTimeRate(_) => None,
            #[cfg(feature = "products")]
            AnyLimiter::Express(_) => None,
            // The fixed window and the sliding window counter share the storage too, but its
            // timer only drops counters that `get` would already read as expired.
            #[cfg(feature = "products")]
            AnyLimiter::LimitsFixed(_) => None,
            #[cfg(feature = "products")]
            AnyLimiter::LimitsSliding(_) => None,
            #[cfg(feature = "products")]
            AnyLimiter::Dotnet(_) => None,
            #[cfg(feature = "products")]
            AnyLimiter::Guava(_) => None,
        }
    }

    /// Takes on the shared storage as another key's call left it (see
    /// [`AnyLimiter::shared_storage`]).
    pub fn join_shared_storage(&mut self, storage: SharedStorage) {
        #[cfg(feature = "products")]
        if let AnyLimiter::LimitsMoving(l) = self {
            l.join_storage_timer(storage);
        }
        #[cfg(not(feature = "products"))]
        match storage {}
    }

    /// Decides `requests` (one key's, in order) on the fast path, telling `verdict` each answer.
    /// The algorithm is matched once for the whole run instead of once per request, so each
    /// decision is the algorithm's own inlined arithmetic.
    pub fn admit_each<'a>(
        &mut self,
        requests: impl Iterator<Item = &'a Request>,
        mut verdict: impl FnMut(Verdict),
    ) {
        fn each_of<'a, L: Limiter>(
            l: &mut L,
            requests: impl Iterator<Item = &'a Request>,
            verdict: &mut impl FnMut(Verdict),
        ) {
            for r in requests {
                verdict(l.admit(r.at, u64::from(r.cost)));
            }
        }
        // The six algorithms get a loop each; the products, whose decisions cost far more than a
        // dispatch, share one through `admit`.
        match self {
            AnyLimiter::FixedWindow(l) => each_of(l, requests, &mut verdict),
            AnyLimiter::SlidingLog(l) => each_of(l, requests, &mut verdict),
            AnyLimiter::SlidingCounter(l) => each_of(l, requests, &mut verdict),
            AnyLimiter::TokenBucket(l) => l.admit_each(requests, &mut verdict),
            AnyLimiter::Gcra(l) => l.admit_each(requests, &mut verdict),
            AnyLimiter::LeakyBucket(l) => l.admit_each(requests, &mut verdict),
            #[cfg(feature = "products")]
            product => each_of(product, requests, &mut verdict),
        }
    }

    /// Rewrites the decision this limiter gave a request with an open verdict (see
    /// [`Limiter::settles_late`]), and a product's reply, with the settlement that ended it.
    pub fn settle_decision(
        &self,
        decision: &mut Decision,
        reply: Option<&mut ProductReply>,
        settlement: Settlement,
    ) {
        match self {
            #[cfg(feature = "products")]
            AnyLimiter::Dotnet(l) => l.settle_decision(decision, reply, settlement),
            _ => {
                let _ = reply;
                decision.verdict = settlement.verdict;
            }
        }
    }

    /// Decides like [`Limiter::decide`]; a product profile also gives the product's own reply.
    pub fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, Option<ProductReply>) {
        #[cfg(feature = "products")]
        {
            let (decision, reply) = match self {
                AnyLimiter::Nginx(l) => l.decide_with_reply(now, cost),
                AnyLimiter::Governor(l) => l.decide_with_reply(now, cost),
                AnyLimiter::RedisCell(l) => l.decide_with_reply(now, cost),
                AnyLimiter::Upstash(l) => l.decide_with_reply(now, cost),
                AnyLimiter::Envoy(l) => l.decide_with_reply(now, cost),
                AnyLimiter::CfBinding(l) => l.decide_with_reply(now, cost),
                AnyLimiter::XTimeRate(l) => l.decide_with_reply(now, cost),
                AnyLimiter::Express(l) => l.decide_with_reply(now, cost),
                AnyLimiter::LimitsFixed(l) => l.decide_with_reply(now, cost),
                AnyLimiter::LimitsMoving(l) => l.decide_with_reply(now, cost),
                AnyLimiter::LimitsSliding(l) => l.decide_with_reply(now, cost),
                AnyLimiter::Dotnet(l) => l.decide_with_reply(now, cost),
                AnyLimiter::Guava(l) => l.decide_with_reply(now, cost),
                other => return (other.decide(now, cost), None),
            };
            (decision, Some(reply))
        }
        #[cfg(not(feature = "products"))]
        (self.decide(now, cost), None)
    }
}

impl AnyLimiter {
    /// True when a refusal changes nothing but the limiter's clock, so that [`Limiter::peek`]
    /// at the same instant, after a refused [`Limiter::admit`], answers exactly what
    /// [`Limiter::decide`] would have: the six algorithms, unless they count refused requests.
    /// Obeying clients (`super::retries`) then decide every try on the fast path and work out
    /// the full answer only for a refusal. False for the products, whose refusals may write
    /// (a count, a cache, a timestamp).
    pub fn refusal_is_repeatable(&self) -> bool {
        match self {
            AnyLimiter::FixedWindow(l) => !l.counts_refused(),
            AnyLimiter::SlidingLog(l) => !l.counts_refused(),
            AnyLimiter::SlidingCounter(l) => !l.counts_refused(),
            AnyLimiter::TokenBucket(_) | AnyLimiter::Gcra(_) | AnyLimiter::LeakyBucket(_) => true,
            #[cfg(feature = "products")]
            _ => false,
        }
    }
}

impl Limiter for AnyLimiter {
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

    // Only .NET's profile settles late: one comparison of the variant for every other limiter,
    // rather than a dispatch through `each!`.
    fn settles_late(&self) -> bool {
        match self {
            #[cfg(feature = "products")]
            AnyLimiter::Dotnet(l) => l.settles_late(),
            _ => false,
        }
    }

    fn take_settled(&mut self) -> Option<Settlement> {
        match self {
            #[cfg(feature = "products")]
            AnyLimiter::Dotnet(l) => l.take_settled(),
            _ => None,
        }
    }

    fn settle_rest(&mut self) {
        match self {
            #[cfg(feature = "products")]
            AnyLimiter::Dotnet(l) => l.settle_rest(),
            _ => {}
        }
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
        use crate::core::profiles::settings::FIELDS;
        let mut families: Vec<&str> = Algorithm::ALL
            .iter()
            .filter_map(|a| a.product_family().map(|(prefix, _)| prefix))
            .collect();
        families.dedup();
        for field in FIELDS {
            let owners = families.iter().filter(|p| field.name.starts_with(**p));
            assert_eq!(owners.count(), 1, "{}", field.name);
        }
        for a in Algorithm::ALL {
            assert_eq!(a.product_family().is_some(), a.is_product(), "{a}");
            if let Some((prefix, _)) = a.product_family() {
                assert!(FIELDS.iter().any(|f| f.name.starts_with(prefix)), "{a}");
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

    /// Each product row is built as its own product: the limiter's state is that product's type
    /// (and kind, where one type serves several rows), and it answers with that product's reply.
    #[cfg(feature = "products")]
    #[test]
    fn every_product_row_is_built_as_its_own_product() {
        let expected = |a: Algorithm| match a {
            Algorithm::Nginx => ("Nginx(NginxLimitReq {", "limit_req_status"),
            Algorithm::Governor => ("Governor(Governor {", "remaining_burst_capacity"),
            Algorithm::RedisCell => ("RedisCell(RedisCell {", "key in Redis"),
            Algorithm::UpstashFixed => ("algorithm: FixedWindow {", "reset"),
            Algorithm::UpstashSliding => ("algorithm: SlidingWindow {", "reset"),
            Algorithm::UpstashToken => ("algorithm: TokenBucket {", "reset"),
            Algorithm::Envoy => ("Envoy(EnvoyLocalRateLimit {", "tokens_remaining"),
            Algorithm::CfBinding => ("CfBinding(CfRateLimitBinding {", "success"),
            Algorithm::XTimeRate => ("XTimeRate(XTimeRate {", "reserve_ok"),
            Algorithm::ExpressRateLimit => ("Express(ExpressRateLimit {", "used"),
            Algorithm::LimitsFixed => ("LimitsFixed(FixedWindowRateLimiter {", "reset_time"),
            Algorithm::LimitsMoving => ("LimitsMoving(MovingWindowRateLimiter {", "reset_time"),
            Algorithm::LimitsSliding => (
                "LimitsSliding(SlidingWindowCounterRateLimiter {",
                "reset_time",
            ),
            Algorithm::DotnetFixed => ("Dotnet(DotnetLimiter { kind: Fixed,", "IsAcquired"),
            Algorithm::DotnetSliding => ("Dotnet(DotnetLimiter { kind: Sliding {", "IsAcquired"),
            Algorithm::DotnetToken => ("Dotnet(DotnetLimiter { kind: Token {", "IsAcquired"),
            Algorithm::Guava => ("Guava(Guava {", "storedPermits"),
            textbook => panic!("{textbook} is not a product"),
        };
        for a in Algorithm::ALL.into_iter().filter(|a| a.is_product()) {
            let (state, field) = expected(a);
            let mut limiter = a.build(&Settings::default()).unwrap();
            assert!(format!("{limiter:?}").contains(state), "{a}: {limiter:?}");
            let (_, reply) = limiter.decide_with_reply(Time::ZERO, 1);
            let reply = reply.unwrap_or_else(|| panic!("{a} gave no reply"));
            assert!(
                reply.get(field).is_some(),
                "{a} answered {:?}",
                reply.fields
            );
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
