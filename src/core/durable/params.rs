//! The lab's Durable Object knobs (what the URL and the controls set), and the simulation
//! configuration they make.

use crate::core::limiter::{Algorithm, Settings};
use crate::core::region::Region;
use crate::core::time::Span;
use crate::core::traffic::Trace;

use super::config::{DoCode, FailMode, Fault, FaultKind, Placement, Route, SimConfig, Tier};
use super::shard::{ShardBy, ShardRule};
use super::traffic::SimTraffic;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DurableParams {
    /// Show the Durable Object row (`do=1`).
    pub enabled: bool,
    /// The algorithm the object runs (`do-algo`, default the seed's sliding log).
    pub algorithm: Algorithm,
    /// Where the traffic comes from (`from`): request `i` leaves from `from[i % len]`.
    pub from: Vec<Region>,
    /// Where the object lives (`home`); `None` leaves it to placement.
    pub home: Option<Region>,
    pub timeout: Span,
    /// The fail mode of the route the trace uses (`fail`), and of every route a person's traffic
    /// names unless it is listed in `closed_routes`.
    pub fail: FailMode,
    /// Routes of a person's traffic that fail closed (`closed-routes`, a comma list).
    pub closed_routes: Vec<String>,
    pub service: Span,
    pub persist: bool,
    /// Idle time before eviction (`evict`).
    pub evict: Span,
    /// The object is unreachable from `start` to `end` (`outage`).
    pub outage: Option<(Span, Span)>,
    /// Every decision takes `SLOW_BY` longer from `start` to `end` (`slow`).
    pub slow: Option<(Span, Span)>,
    /// Every object is evicted at this time, a deploy or a restart (`evict-at`).
    pub evict_at: Option<Span>,
    /// Up to this much extra on every network hop (`jitter`, milliseconds).
    pub jitter: Span,
    /// One shard count for every key (`shards=N`; 1, one object per key, unless set), or `None`
    /// for the sliding-window seed's rule by key prefix (`shards=seed`).
    pub shards: Option<u32>,
    pub shard_by: ShardBy,
    pub placement: Placement,
    pub seed: u64,
    /// The Worker keeps known offenders in a first-tier cache (`cache=1`).
    pub cache: bool,
    /// Cloudflare's Rate Limiting binding instead of the object (`tier=binding`, `period=`).
    pub tier: Tier,
    /// The runtime's occasional pauses under sustained load (`gc`, on by default).
    pub gc: bool,
    /// The order of the object's check, write and call out (`do-code`).
    pub code: DoCode,
    /// How long the other service takes with `do-code=await-between` (`await-ms`).
    pub await_call: Span,
}

/// How much longer every decision takes during a slow period (`slow=`): a cold start, a noisy
/// neighbour, storage having a bad minute.
pub const SLOW_BY: Span = Span::from_millis(250);

impl Default for DurableParams {
    fn default() -> DurableParams {
        let sim = SimConfig::default();
        DurableParams {
            enabled: false,
            algorithm: sim.algorithm,
            from: vec![Region::Frankfurt],
            home: None,
            timeout: sim.timeout,
            fail: FailMode::Open,
            closed_routes: Vec::new(),
            service: sim.service,
            persist: sim.persist,
            evict: sim.evict_after,
            outage: None,
            slow: None,
            evict_at: None,
            jitter: sim.jitter,
            shards: Some(1),
            shard_by: sim.shard_by,
            placement: sim.placement,
            seed: sim.seed,
            cache: sim.first_tier_cache,
            tier: sim.tier,
            gc: sim.gc,
            code: sim.code,
            await_call: sim.await_call,
        }
    }
}

impl DurableParams {
    /// The simulation these knobs describe, for the lab's limit and window.
    /// The simulation's configuration; `routes` are the routes the trace names (after the lab's
    /// own route, index 0).
    pub fn sim_config(&self, settings: &Settings, routes: &[String]) -> SimConfig {
        let mut config = SimConfig {
            algorithm: self.algorithm,
            settings: settings.clone(),
            timeout: self.timeout,
            service: self.service,
            persist: self.persist,
            evict_after: self.evict,
            placement: self.placement,
            home: self.home,
            shards: self.shards.map_or_else(ShardRule::seed, ShardRule::uniform),
            shard_by: self.shard_by,
            seed: self.seed,
            first_tier_cache: self.cache,
            tier: self.tier,
            gc: self.gc,
            code: self.code,
            await_call: self.await_call,
            ..SimConfig::default()
        };
        if let Some(route) = config.routes.first_mut() {
            route.fail = self.fail;
        }
        config.routes.truncate(1);
        config.routes.extend(routes.iter().map(|name| Route {
            name: name.clone(),
            fail: if self.closed_routes.contains(name) {
                FailMode::Closed
            } else {
                self.fail
            },
        }));
        if let Some((start, end)) = self.outage {
            config.faults.push(Fault {
                kind: FaultKind::Unreachable,
                start,
                end,
            });
        }
        if let Some((start, end)) = self.slow {
            config.faults.push(Fault {
                kind: FaultKind::Slow(SLOW_BY),
                start,
                end,
            });
        }
        if let Some(at) = self.evict_at {
            config.faults.push(Fault {
                kind: FaultKind::Evict,
                start: at,
                end: at,
            });
        }
        config.jitter = self.jitter;
        config
    }

    /// The lab's trace: each request on its own route (the lab's, index 0, unless the traffic
    /// names one) and from its own region when the traffic says so, else from the `from`
    /// regions in turn.
    pub fn traffic(&self, trace: &Trace) -> SimTraffic {
        let first = self.origin();
        let mut traffic = SimTraffic::from_trace(trace, first, 0);
        for (i, (sim, request)) in traffic
            .requests
            .iter_mut()
            .zip(trace.requests())
            .enumerate()
        {
            let turn = self
                .from
                .get(i % self.from.len().max(1))
                .copied()
                .unwrap_or(first);
            sim.origin = request.origin.unwrap_or(turn);
            sim.route = request.route;
        }
        traffic
    }

    /// The first origin, the one the lab describes.
    pub fn origin(&self) -> Region {
        self.from.first().copied().unwrap_or(Region::Frankfurt)
    }
}
