//! Everything the Durable Object simulation can be told, with documented defaults.
//!
//! Build one with `SimConfig::default()` and change fields, in the manner of a builder: every
//! default below says where it comes from. The object's costs (a decision, a durable write, idle
//! eviction, the pauses) are this project's own measurements of the seed's code in workerd (via
//! miniflare, on a 2-core machine, over loopback: medians of three 10-second runs), and the
//! eviction delays Cloudflare's Durable Object lifecycle documentation.

use crate::core::limiter::{Algorithm, Parts, Settings};
use crate::core::region::Region;
use crate::core::time::Span;

use super::shard::{ShardBy, ShardRule};

/// What a route does when the limiter cannot answer in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailMode {
    /// Let the request through, marked `x-ratelimit-mode: degraded` (the seed's default for
    /// ordinary traffic: a limiter outage must not become a site outage).
    Open,
    /// Refuse it with 503 Service Unavailable: the client did nothing wrong (so not 429), the
    /// service cannot check the limit right now, and 503 with `Retry-After` says it is temporary.
    /// For logins and payments, where an unmetered endpoint is what credential stuffing needs.
    Closed,
}

impl FailMode {
    pub fn slug(self) -> &'static str {
        match self {
            FailMode::Open => "open",
            FailMode::Closed => "closed",
        }
    }
}

/// A route and its failure policy, configured in one place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub name: String,
    pub fail: FailMode,
}

/// Where a new object is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Placement {
    /// In the region of the first request for its name (the platform's default).
    #[default]
    First,
    /// Near its heaviest caller: the origin that sends the key the most requests over the whole
    /// trace, i.e. where smart placement settles once it has seen the traffic.
    Smart,
}

impl Placement {
    pub fn slug(self) -> &'static str {
        match self {
            Placement::First => "first",
            Placement::Smart => "smart",
        }
    }
}

/// Which limiter answers first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Tier {
    /// Every request asks its Durable Object.
    #[default]
    DurableObject,
    /// Cloudflare's Rate Limiting binding instead: a fixed window kept separately in each
    /// location, period 10 or 60 s only, answering only success (no remaining count).
    Binding { period_secs: u64 },
}

/// What clients do when turned away (429 or a fail-closed 503).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RetryPolicy {
    #[default]
    Never,
    /// Retry as soon as the answer arrives: the retry storm.
    Immediately { max_retries: u8 },
    /// Wait the `Retry-After` (1 s for a 503), plus up to `jitter`, then retry.
    AfterRetryAfter { max_retries: u8, jitter: Span },
}

/// How the object's code orders its check, its write and a call to another service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DoCode {
    /// The seed's order: read the state, decide, write, all without awaiting anything but
    /// storage. The input gate holds other calls back meanwhile, so decisions never interleave.
    #[default]
    Safe,
    /// The code awaits another service (a `fetch`, a timer) between reading its state and
    /// writing it: the input gate opens, calls that arrive meanwhile read the same state, and each
    /// writes back the state it computed from what it read (the last write wins).
    AwaitBetween,
}

impl DoCode {
    pub fn slug(self) -> &'static str {
        match self {
            DoCode::Safe => "safe",
            DoCode::AwaitBetween => "await-between",
        }
    }
}

/// Under sustained load an object pauses about once a second for 50 to 150 ms (garbage
/// collection; measured): after each second of work with no idle gap of at least
/// `GC_PAUSE_MAX`, the next task waits a pause drawn from `GC_PAUSE_MIN..=GC_PAUSE_MAX`.
pub const GC_EVERY: Span = Span::from_secs(1);
pub const GC_PAUSE_MIN: Span = Span::from_millis(50);
pub const GC_PAUSE_MAX: Span = Span::from_millis(150);

/// A fault on a schedule: active from `start` (inclusive) to `end` (exclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub start: Span,
    pub end: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// Every object is unreachable: calls sent in the period are never answered.
    Unreachable,
    /// Every decision takes this much longer.
    Slow(Span),
    /// Every object is evicted at `start` (a deploy, a restart); `end` is ignored.
    Evict,
    /// The region is cut off from the others: calls into or out of it are lost.
    RegionDown(Region),
}

/// The simulation's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimConfig {
    /// The algorithm each object runs (the seed runs the sliding log).
    pub algorithm: Algorithm,
    /// Limit and window for every key (each shard gets `ceil(limit / shards)`).
    pub settings: Settings,
    /// How long the Worker waits for the object: 120 ms, the seed's `DECISION_TIMEOUT_MS`.
    pub timeout: Span,
    /// Time one decision holds the object: 150 µs, about 6,700 decisions a second at best
    /// (measured: 0.13 to 0.14 ms a decision with the log in memory, pauses included).
    pub service: Span,
    /// Each one-way hop adds a seeded delay from 0 to this: 5 ms.
    pub jitter: Span,
    /// With `persist`, every decision writes before its answer leaves, and the write holds the
    /// object (nothing else runs while it is awaited): 350 µs. An allowed decision's `put` and
    /// the seed's `setAlarm` go as one write; a denied one still writes its alarm, modelled at the
    /// same cost. Measured: about 0.5 ms a decision with the write, 2,000 a second.
    pub storage_write: Span,
    /// A restarted object reads storage before serving its first request: 5 ms.
    pub storage_read: Span,
    /// Persist the limiter's state on each allowed decision (the sliding-window seed: yes; the
    /// one-object-per-user seed: no, state lives in memory only).
    pub persist: bool,
    /// An object idle this long is evicted: 10 s, Cloudflare's figure for an object that can
    /// hibernate (no timers, no pending fetch, no WebSocket API: the seed's limiter), and what
    /// was measured (70 to 140 s for one that cannot).
    pub evict_after: Span,
    /// The alarm fires `window + alarm_cleanup` after a decision and deletes the storage of a key
    /// holding nothing: 5 minutes, the seed's `IDLE_CLEANUP_MS`.
    pub alarm_cleanup: Span,
    pub placement: Placement,
    /// Forces every object into this region (the lab's "object region" control).
    pub home: Option<Region>,
    /// One object per key (the one-object-per-user seed); `ShardRule::seed()` is the
    /// sliding-window seed's rule by key prefix.
    pub shards: ShardRule,
    pub shard_by: ShardBy,
    /// Routes by index; requests name theirs. Default: `GET /products` fails open and
    /// `POST /login` fails closed, as the seed recommends.
    pub routes: Vec<Route>,
    pub faults: Vec<Fault>,
    /// A cache in each Worker location of keys known to be over their limit until their retry
    /// time, answered 429 there without the hop (the seed's "cheap in-isolate check").
    pub first_tier_cache: bool,
    pub tier: Tier,
    pub retry: RetryPolicy,
    /// The order of the object's check, write and calls out (the seed's: `Safe`).
    pub code: DoCode,
    /// With `DoCode::AwaitBetween`, how long the other service takes to answer: 20 ms.
    pub await_call: Span,
    /// The runtime's occasional pauses under sustained load (see `GC_EVERY`), drawn from a
    /// generator of their own so that turning them off leaves every other draw as it was.
    pub gc: bool,
    pub seed: u64,
}

impl Default for SimConfig {
    fn default() -> SimConfig {
        SimConfig {
            algorithm: Algorithm::SlidingLog,
            settings: Settings::default(),
            timeout: Span::from_millis(120),
            service: Span(150),
            jitter: Span::from_millis(5),
            storage_write: Span(350),
            storage_read: Span::from_millis(5),
            persist: true,
            evict_after: Span::from_secs(10),
            alarm_cleanup: Span::from_secs(300),
            placement: Placement::First,
            home: None,
            shards: ShardRule::default(),
            shard_by: ShardBy::Key,
            routes: vec![
                Route {
                    name: "GET /products".into(),
                    fail: FailMode::Open,
                },
                Route {
                    name: "POST /login".into(),
                    fail: FailMode::Closed,
                },
            ],
            faults: Vec::new(),
            first_tier_cache: false,
            tier: Tier::DurableObject,
            retry: RetryPolicy::Never,
            code: DoCode::Safe,
            await_call: Span::from_millis(20),
            gc: true,
            seed: crate::core::rng::DEFAULT_SEED,
        }
    }
}

/// Why a simulation configuration was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimConfigError {
    Limiter(crate::core::config::ConfigError),
    BindingPeriod(u64),
    NoRoutes,
    ZeroTimeout,
    AlarmTooSoon,
}

impl std::fmt::Display for SimConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimConfigError::Limiter(e) => write!(f, "{e}"),
            SimConfigError::BindingPeriod(p) => {
                write!(
                    f,
                    "the Rate Limiting binding's period can only be 10 or 60 seconds, not {p}"
                )
            }
            SimConfigError::NoRoutes => write!(f, "at least one route is needed"),
            SimConfigError::ZeroTimeout => write!(f, "the timeout must be longer than 0 ms"),
            SimConfigError::AlarmTooSoon => {
                write!(f, "the alarm's cleanup delay must be at least 1 second")
            }
        }
    }
}

impl SimConfig {
    /// Checks the settings in a program that links the parts `C`.
    pub fn validate<C: Parts>(&self) -> Result<(), SimConfigError> {
        self.settings.quota().map_err(SimConfigError::Limiter)?;
        // Every shard count in use must give settings the algorithm accepts.
        for shards in [1, self.shards.ip, self.shards.global, self.shards.other] {
            self.algorithm
                .build_with::<C>(&self.settings.per_shard(shards))
                .map_err(SimConfigError::Limiter)?;
        }
        if self.alarm_cleanup < Span::from_secs(1) {
            return Err(SimConfigError::AlarmTooSoon);
        }
        if let Tier::Binding { period_secs } = self.tier {
            if period_secs != 10 && period_secs != 60 {
                return Err(SimConfigError::BindingPeriod(period_secs));
            }
        }
        if self.routes.is_empty() {
            return Err(SimConfigError::NoRoutes);
        }
        if self.timeout == Span::ZERO {
            return Err(SimConfigError::ZeroTimeout);
        }
        Ok(())
    }

    /// The fail mode of route `index` (the first route's when out of range).
    pub fn fail_mode(&self, route: u16) -> FailMode {
        self.routes
            .get(usize::from(route))
            .or(self.routes.first())
            .map(|r| r.fail)
            .unwrap_or(FailMode::Open)
    }

    /// Extra service time from `Slow` faults active at `at`.
    pub(crate) fn slowdown_at(&self, at: crate::core::time::Time) -> Span {
        let extra: u64 = self
            .faults
            .iter()
            .filter(|f| f.covers(at))
            .filter_map(|f| match f.kind {
                FaultKind::Slow(extra) => Some(extra.micros()),
                _ => None,
            })
            .sum();
        Span(extra)
    }
}

impl Fault {
    pub fn covers(&self, at: crate::core::time::Time) -> bool {
        at.micros() >= self.start.micros() && at.micros() < self.end.micros()
    }
}
