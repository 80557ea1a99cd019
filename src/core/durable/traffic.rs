//! Traffic for the simulation: every request has a time, a key, an origin region and a route.

use crate::core::region::Region;
use crate::core::rng::SeededRng;
use crate::core::time::{Span, Time};
use crate::core::traffic::Trace;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimRequest {
    pub at: Time,
    /// Index into `SimTraffic::keys`.
    pub key: u32,
    pub origin: Region,
    /// Index into `SimConfig::routes`.
    pub route: u16,
    /// What it asks of the limiter (the trace's cost; 1 for the emulation's own traffic).
    pub cost: u32,
}

/// Requests in arrival order, with their key names.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SimTraffic {
    pub keys: Vec<String>,
    pub requests: Vec<SimRequest>,
}

impl SimTraffic {
    /// A lab trace sent from one region on one route.
    pub fn from_trace(trace: &Trace, origin: Region, route: u16) -> SimTraffic {
        let requests = trace
            .requests()
            .iter()
            .map(|r| SimRequest {
                at: r.at,
                key: r.key,
                origin,
                route,
                cost: r.cost,
            })
            .collect();
        SimTraffic {
            keys: trace.keys().to_vec(),
            requests,
        }
    }

    /// Adds requests (any order) and keeps the whole in arrival order.
    pub fn push(
        &mut self,
        key: &str,
        origin: Region,
        route: u16,
        times: impl IntoIterator<Item = Time>,
    ) {
        let id = self.key_id(key);
        self.requests.extend(times.into_iter().map(|at| SimRequest {
            at,
            key: id,
            origin,
            route,
            cost: 1,
        }));
        self.requests.sort_by_key(|r| r.at);
    }

    fn key_id(&mut self, key: &str) -> u32 {
        match self.keys.iter().position(|k| k == key) {
            Some(i) => i as u32,
            None => {
                self.keys.push(key.to_string());
                (self.keys.len() - 1) as u32
            }
        }
    }

    /// Seeded Poisson arrivals: on average `per_second` requests a second for `duration`, each
    /// for one of `keys` chosen uniformly, from origins chosen uniformly.
    pub fn poisson(
        per_second: u64,
        duration: Span,
        keys: &[String],
        origins: &[Region],
        route: u16,
        seed: u64,
    ) -> SimTraffic {
        let mut rng = SeededRng::new(seed);
        let mut traffic = SimTraffic::default();
        let ids: Vec<u32> = keys.iter().map(|k| traffic.key_id(k)).collect();
        if per_second == 0 || ids.is_empty() || origins.is_empty() {
            return traffic;
        }
        let mean_gap = (1_000_000 / per_second).max(1);
        let mut t = 0u64;
        loop {
            t = t.saturating_add(rng.exponential_micros(mean_gap));
            if t >= duration.micros() {
                break;
            }
            let key = ids[rng.up_to(ids.len() as u64 - 1) as usize];
            let origin = origins[rng.up_to(origins.len() as u64 - 1) as usize];
            traffic.requests.push(SimRequest {
                at: Time(t),
                key,
                origin,
                route,
                cost: 1,
            });
        }
        traffic
    }

    pub fn key_name(&self, key: u32) -> &str {
        self.keys
            .get(key as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }
}
