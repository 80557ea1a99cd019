//! The discrete-event simulation of Workers calling Durable Objects.
//!
//! Events (a send, an arrival at an object, the end of a decision, an answer reaching the Worker,
//! a Worker's timeout, an alarm) are processed in time order from a priority queue; ties keep the
//! order they were scheduled in, and a new request from the traffic goes before events at the
//! same instant. An answer is in time when it reaches the Worker at or before the deadline. Every random choice (jitter, per-request shard, retry jitter)
//! comes from one seeded generator drawn in event order, so a seed always gives the same run.
//!
//! The mechanisms, each real rather than a label:
//! - an object serves one request at a time, in arrival order, each for `service` (plus any
//!   `Slow` fault, plus the durable write with `persist`): a hot object builds a queue, and its
//!   latency grows until timeouts start;
//! - under sustained load it pauses now and then (`gc`): after each second of work without an
//!   idle gap of `GC_PAUSE_MAX`, its next task waits 50 to 150 ms, drawn from a generator of its
//!   own;
//! - with `DoCode::AwaitBetween` a decision is two tasks: the check, which decides on a copy of
//!   the state, then (after `await_call`, while the object serves others) the write, which puts
//!   that copy back when the call was allowed; the answer leaves after the write;
//! - the Worker gives up after `timeout` and applies its route's fail mode; an answer that comes
//!   back later is recorded as `late`: the object still counted it;
//! - storage: with `persist`, every decision writes before its answer leaves (the limiter's state
//!   when allowed, and the alarm either way), holding the object meanwhile, and an object that restarts reads it back before serving anyone. Storage holds the
//!   state as of the last allowed decision, which restores to exactly the in-memory state,
//!   because a rejection changes nothing but the passage of time (a test checks this);
//! - eviction after `evict_after` idle (or an `Evict` fault) drops the memory: without
//!   persistence the next request meets a fresh limiter, i.e. a free window;
//! - the alarm, set `window + alarm_cleanup` after each decision, deletes the storage of a key
//!   whose limiter holds nothing, so stored keys track active keys, not all keys ever seen.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::core::algorithms::FixedWindow;
use crate::core::config::Quota;
use crate::core::decision::{Decision, Limiter, Verdict};
use crate::core::limiter::{AnyLimiter, Complete, Parts, Settings};
use crate::core::region::Region;
use crate::core::time::{Span, Time};

use super::config::{
    DoCode, FailMode, FaultKind, Placement, RetryPolicy, SimConfig, SimConfigError, Tier, GC_EVERY,
    GC_PAUSE_MAX, GC_PAUSE_MIN,
};
use super::object::ObjectInfo;
use super::report::{Outcome, ReportWalk, RequestRecord, SimReport};
use super::shard::{object_name, per_shard_limit, pick_shard, shard_of_key, ShardBy};
use super::traffic::SimTraffic;
use crate::core::rng::SeededRng;

struct ObjectState<C: Parts = Complete> {
    /// `None` until first used, and again after its state is lost.
    limiter: Option<AnyLimiter<C>>,
    in_memory: bool,
    busy: bool,
    queue: VecDeque<Task>,
    /// Calls whose code is awaiting another service (`DoCode::AwaitBetween`): the object is not
    /// idle, so it is not evicted.
    awaiting: u32,
    /// Work done since the last pause, or since an idle gap long enough to collect garbage in.
    busy_since_gc: Span,
    last_active: Time,
    stored: bool,
    alarm_at: Option<Time>,
    alarm_pending: Option<Time>,
    /// Scheduled evictions up to this time have been looked at.
    evictions_seen_until: Time,
    /// An eviction is due as soon as the object is next idle.
    eviction_due: bool,
}

/// What an object does next: decide a call, or (after its await) write what a call decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Task {
    Decide(u32),
    Write(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    Send(u32),
    Arrive(u32),
    ServiceDone(u32),
    Respond(u32),
    Timeout(u32),
    Alarm(u32),
    /// The other service answered a call's await: its write joins the object's queue.
    Resume(u32),
}

struct Sim<C: Parts = Complete> {
    config: SimConfig,
    traffic: SimTraffic,
    rng: SeededRng,
    /// The pauses' own generator.
    gc_rng: SeededRng,
    /// The calls awaiting between their check and their write (a few at a time), each with the
    /// state it will write if it was allowed.
    pending: Vec<(u32, Option<AnyLimiter<C>>)>,
    events: BinaryHeap<Reverse<(Time, u64, Event)>>,
    seq: u64,
    records: Vec<RequestRecord>,
    finalized: Vec<bool>,
    objects: Vec<ObjectInfo>,
    states: Vec<ObjectState<C>>,
    /// Per key, per shard: the object's index.
    by_name: Vec<Vec<Option<u32>>>,
    /// Per key: where smart placement puts its objects.
    smart_home: Vec<Option<Region>>,
    /// Per key and Worker location: known over its limit until then (the first-tier cache).
    blocked_until: Vec<[Option<Time>; REGIONS]>,
    /// Per key and location: the binding's counter.
    binding: Vec<[Option<FixedWindow>; REGIONS]>,
    /// The binding's fixed window (limit per 10 or 60 s), when it is the tier in use.
    binding_quota: Option<Quota>,
    /// Changes to the number of stored keys: (when, +1 or -1), in the order they were made.
    stored_changes: Vec<(Time, i8)>,
    /// Per key: its shard count and, sharding by key, its shard (a SHA-256 per key, not per request).
    key_shards: Vec<Option<(u32, u32)>>,
    /// The time of the event being handled.
    now: Time,
    /// Whether answers must be given in time order: retries and the first-tier cache act on them.
    causal: bool,
}

/// Runs `traffic` through the emulated Workers and Durable Objects, every part linked.
pub fn simulate(config: &SimConfig, traffic: &SimTraffic) -> Result<SimReport, SimConfigError> {
    let mut simulation = Simulation::<Complete>::new(config.clone(), traffic.clone())?;
    while simulation.advance(usize::MAX) {}
    Ok(simulation.finish())
}

/// A simulation run a slice at a time, so that a page can emulate a large trace between frames.
/// Slicing changes nothing: the events are the same, in the same order, with the same random
/// draws, as [`simulate`] running it at once.
pub struct Simulation<C: Parts = Complete> {
    sim: Sim<C>,
    /// The next request of the traffic to send.
    next_original: usize,
    /// True once nothing is left to happen.
    ended: bool,
    /// The report's walk over the records, after the events.
    walk: Option<ReportWalk>,
    /// True once every record is walked.
    walked: bool,
}

impl<C: Parts> Simulation<C> {
    pub fn new(config: SimConfig, traffic: SimTraffic) -> Result<Simulation<C>, SimConfigError> {
        config.validate::<C>()?;
        let binding_quota = match config.tier {
            Tier::Binding { period_secs } => Some(
                Quota::new(config.settings.limit, Span::from_secs(period_secs))
                    .map_err(SimConfigError::Limiter)?,
            ),
            Tier::DurableObject => None,
        };
        let keys = traffic.keys.len();
        let requests = traffic.requests.len();
        let sim = Sim {
            rng: SeededRng::new(config.seed),
            gc_rng: SeededRng::new(config.seed ^ GC_STREAM),
            pending: Vec::new(),
            events: BinaryHeap::new(),
            seq: 0,
            records: Vec::with_capacity(requests),
            finalized: Vec::with_capacity(requests),
            objects: Vec::new(),
            states: Vec::new(),
            by_name: vec![Vec::new(); keys],
            smart_home: if config.placement == Placement::Smart {
                heaviest_origins(&traffic)
            } else {
                Vec::new()
            },
            blocked_until: if config.first_tier_cache {
                vec![[None; REGIONS]; keys]
            } else {
                Vec::new()
            },
            binding: if binding_quota.is_some() {
                vec![Default::default(); keys]
            } else {
                Vec::new()
            },
            binding_quota,
            stored_changes: Vec::new(),
            key_shards: vec![None; keys],
            causal: config.retry != RetryPolicy::Never || config.first_tier_cache,
            now: Time::ZERO,
            config,
            traffic,
        };
        Ok(Simulation {
            sim,
            next_original: 0,
            ended: false,
            walk: None,
            walked: false,
        })
    }

    /// Requests of the traffic sent so far, and how many there are.
    pub fn progress(&self) -> (usize, usize) {
        (self.next_original, self.sim.traffic.requests.len())
    }

    /// Handles up to `budget` more sends and events, then walks up to as many records for the
    /// report, then (in a call of its own) groups the served times by key; false once all of
    /// that is done.
    pub fn advance(&mut self, budget: usize) -> bool {
        let budget = budget.max(1);
        let mut used = 0;
        let sim = &mut self.sim;
        while !self.ended && used < budget {
            used += 1;
            let next_event_time = sim.events.peek().map(|Reverse((t, _, _))| *t);
            let next_send = sim.traffic.requests.get(self.next_original).map(|r| r.at);
            match (next_send, next_event_time) {
                (Some(send_at), Some(event_at)) if event_at < send_at => sim.step(),
                (Some(_), _) => {
                    let request = sim.traffic.requests[self.next_original];
                    self.next_original += 1;
                    sim.now = request.at;
                    let id = sim.new_record(
                        request.key,
                        request.origin,
                        request.route,
                        0,
                        request.cost,
                        request.at,
                    );
                    sim.send(id, request.at);
                }
                (None, Some(_)) => sim.step(),
                (None, None) => self.ended = true,
            }
        }
        if !self.ended || used == budget {
            return !self.has_ended();
        }
        let walk = self
            .walk
            .get_or_insert_with(|| ReportWalk::new(sim.traffic.keys.len(), sim.records.len()));
        if !self.walked {
            self.walked = !walk.walk(&sim.records, budget - used);
            return true;
        }
        // Grouping the served times by key is a step of its own.
        walk.group()
    }

    /// True once the events are over, the records walked and the served times grouped: what is
    /// left of the report is working out its figures, in `finish`.
    pub fn has_ended(&self) -> bool {
        self.walk.as_ref().is_some_and(ReportWalk::grouped)
    }

    /// True when what is left is long work for a large trace, done in one piece (grouping the
    /// served times, then the figures), which a page gives a fresh slice.
    pub fn heavy_next(&self) -> bool {
        self.walked
    }

    /// The report; events not yet handled are handled first.
    pub fn finish(mut self) -> SimReport {
        while self.advance(usize::MAX) {}
        let walk = self.walk.take();
        let Sim {
            config,
            traffic,
            records,
            objects,
            stored_changes,
            ..
        } = self.sim;
        let walk = walk.unwrap_or_else(|| ReportWalk::new(traffic.keys.len(), records.len()));
        SimReport::from_walk(
            walk,
            &config,
            &traffic,
            records,
            objects,
            stored_series(stored_changes),
        )
    }
}

/// The number of stored keys over time, from its changes: a write is stamped when its answer
/// leaves and a deletion when its alarm fires, so the changes are sorted before they are summed.
fn stored_series(mut changes: Vec<(Time, i8)>) -> Vec<(Time, u32)> {
    changes.sort_unstable_by_key(|&(t, delta)| (t, delta));
    let mut count: i64 = 0;
    let mut series = vec![(Time::ZERO, 0)];
    for (t, delta) in changes {
        count = (count + i64::from(delta)).max(0);
        series.push((t, count as u32));
    }
    series
}

const REGIONS: usize = Region::ALL.len();

/// Sets the pauses' generator apart from the main one (any constant would do).
const GC_STREAM: u64 = 0x6763_7061_7573_6573;

/// For smart placement: the origin that sends each key the most requests (ties: the one that
/// sent first).
fn heaviest_origins(traffic: &SimTraffic) -> Vec<Option<Region>> {
    // Per key and region: (requests, index of the first one).
    let mut counts: Vec<[(u64, usize); REGIONS]> =
        vec![[(0, usize::MAX); REGIONS]; traffic.keys.len()];
    for (i, r) in traffic.requests.iter().enumerate() {
        if let Some(slots) = counts.get_mut(r.key as usize) {
            let slot = &mut slots[r.origin as usize];
            slot.0 += 1;
            slot.1 = slot.1.min(i);
        }
    }
    counts
        .into_iter()
        .map(|slots| {
            Region::ALL
                .into_iter()
                .zip(slots)
                .filter(|(_, (count, _))| *count > 0)
                .max_by_key(|&(_, (count, first))| (count, std::cmp::Reverse(first)))
                .map(|(region, _)| region)
        })
        .collect()
}

impl<C: Parts> Sim<C> {
    fn schedule(&mut self, at: Time, event: Event) {
        self.seq += 1;
        self.events.push(Reverse((at, self.seq, event)));
    }

    fn jitter(&mut self) -> Span {
        Span(self.rng.up_to(self.config.jitter.micros()))
    }

    fn hop(&mut self, from: Region, to: Region) -> Span {
        let base = from.one_way(to);
        Span(base.micros() + self.jitter().micros())
    }

    fn new_record(
        &mut self,
        key: u32,
        origin: Region,
        route: u16,
        attempt: u8,
        cost: u32,
        sent: Time,
    ) -> u32 {
        self.records
            .push(RequestRecord::new(key, origin, route, attempt, cost, sent));
        self.finalized.push(false);
        (self.records.len() - 1) as u32
    }

    fn step(&mut self) {
        let Some(Reverse((at, _, event))) = self.events.pop() else {
            return;
        };
        self.now = at;
        match event {
            Event::Send(id) => self.send(id, at),
            Event::Arrive(id) => self.arrive(id, at),
            Event::ServiceDone(object) => self.service_done(object, at),
            Event::Respond(id) => self.respond(id, at),
            Event::Timeout(id) => self.timeout(id, at),
            Event::Alarm(object) => self.alarm(object, at),
            Event::Resume(id) => self.resume(id, at),
        }
    }

    /// A call crossing the network at `at` between these regions is lost.
    fn lost(&self, at: Time, from: Region, to: Region) -> bool {
        self.config
            .faults
            .iter()
            .filter(|f| f.covers(at))
            .any(|f| match f.kind {
                FaultKind::Unreachable => true,
                FaultKind::RegionDown(region) => from != to && (region == from || region == to),
                _ => false,
            })
    }

    fn send(&mut self, id: u32, at: Time) {
        let (origin, key, cost) = (
            self.records[id as usize].origin,
            self.records[id as usize].key,
            u64::from(self.records[id as usize].cost),
        );

        if let Some(quota) = self.binding_quota {
            let decision = match self.binding.get_mut(key as usize) {
                Some(slots) => slots[origin as usize]
                    .get_or_insert_with(|| FixedWindow::new(quota))
                    .decide(at, cost),
                // A key outside the traffic's table: counted alone, but still answered.
                None => FixedWindow::new(quota).decide(at, cost),
            };
            self.records[id as usize].local = true;
            self.finish(id, at, Some(decision));
            return;
        }

        if self.config.first_tier_cache {
            if let Some(until) = self
                .blocked_until
                .get(key as usize)
                .and_then(|slots| slots[origin as usize])
            {
                if at < until {
                    let decision = Decision {
                        verdict: Verdict::Rejected,
                        limit: self.config.settings.limit,
                        remaining: 0,
                        reset_after: until.since(at),
                        retry_after: Some(until.since(at)),
                    };
                    self.records[id as usize].local = true;
                    self.finish(id, at, Some(decision));
                    return;
                }
            }
        }

        let (shards, shard) = self.shard_for(key);
        let object = self.object_for(key, shard, shards, origin);
        let region = self.objects[object as usize].region;
        self.records[id as usize].object = Some(object);
        let lost = self.lost(at, origin, region);
        if self.causal {
            // One microsecond past the deadline: an answer arriving exactly at it is in time,
            // the same rule `respond` applies when no timeout event is scheduled.
            self.schedule(
                at.plus(self.config.timeout).plus(Span(1)),
                Event::Timeout(id),
            );
        } else if lost {
            // Nothing acts on this answer's timing: settle it now, as the timeout would.
            self.finish(id, at.plus(self.config.timeout), None);
        }
        if !lost {
            let arrival = at.plus(self.hop(origin, region));
            self.schedule(arrival, Event::Arrive(id));
        }
    }

    fn shard_for(&mut self, key: u32) -> (u32, u32) {
        let cached = self.key_shards.get(key as usize).copied().flatten();
        let (shards, by_key) = match cached {
            Some(pair) => pair,
            None => {
                let name = self.traffic.key_name(key);
                let shards = self.config.shards.shards_for(name);
                let pair = (shards, shard_of_key(name, shards));
                if let Some(slot) = self.key_shards.get_mut(key as usize) {
                    *slot = Some(pair);
                }
                pair
            }
        };
        match self.config.shard_by {
            ShardBy::Key => (shards, by_key),
            ShardBy::Request => (
                shards,
                pick_shard("", shards, ShardBy::Request, &mut self.rng),
            ),
        }
    }

    fn object_for(&mut self, key: u32, shard: u32, shards: u32, origin: Region) -> u32 {
        if let Some(Some(index)) = self
            .by_name
            .get(key as usize)
            .and_then(|shards| shards.get(shard as usize))
        {
            return *index;
        }
        let region = self
            .config
            .home
            .or_else(|| self.smart_home.get(key as usize).copied().flatten())
            .unwrap_or(origin);
        let index = self.objects.len() as u32;
        self.objects.push(ObjectInfo {
            name: object_name(self.traffic.key_name(key), shard),
            key,
            shard,
            region,
            shards,
            limit: per_shard_limit(self.config.settings.limit, shards),
            max_queue: 0,
            cold_starts: 0,
        });
        self.states.push(ObjectState {
            limiter: None,
            in_memory: false,
            busy: false,
            queue: VecDeque::new(),
            awaiting: 0,
            busy_since_gc: Span::ZERO,
            last_active: Time::ZERO,
            stored: false,
            alarm_at: None,
            alarm_pending: None,
            evictions_seen_until: Time::ZERO,
            eviction_due: false,
        });
        if let Some(slots) = self.by_name.get_mut(key as usize) {
            if slots.len() <= shard as usize {
                slots.resize(shard as usize + 1, None);
            }
            slots[shard as usize] = Some(index);
        }
        index
    }

    fn arrive(&mut self, id: u32, at: Time) {
        self.records[id as usize].arrived = Some(at);
        let Some(object) = self.records[id as usize].object else {
            return;
        };
        let o = object as usize;
        let evict_after = self.config.evict_after;
        let persist = self.config.persist;
        let faults = &self.config.faults;
        let state = &mut self.states[o];
        let seen = state.evictions_seen_until;
        if faults.iter().any(|f| {
            matches!(f.kind, FaultKind::Evict)
                && f.start.micros() > seen.micros()
                && f.start.micros() <= at.micros()
        }) {
            // A scheduled eviction (a restart) happened since we last looked; a busy object
            // finishes what it holds first.
            state.eviction_due = true;
        }
        state.evictions_seen_until = at;
        if state.in_memory && !state.busy && state.queue.is_empty() && state.awaiting == 0 {
            let idle_evicted = at >= state.last_active.plus(evict_after);
            if idle_evicted || state.eviction_due {
                state.in_memory = false;
                state.eviction_due = false;
                if !persist {
                    state.limiter = None;
                }
            }
        }
        state.queue.push_back(Task::Decide(id));
        let held = state.queue.len() as u32 + u32::from(state.busy);
        self.records[id as usize].queue_depth = held;
        let info = &mut self.objects[o];
        info.max_queue = info.max_queue.max(held);
        if !self.states[o].busy {
            self.start_next(object, at);
        }
    }

    fn limiter_settings(&self, object: u32) -> Settings {
        self.config
            .settings
            .per_shard(self.objects[object as usize].shards)
    }

    fn start_next(&mut self, object: u32, now: Time) {
        let o = object as usize;
        let Some(task) = self.states[o].queue.pop_front() else {
            return;
        };
        let start = now.plus(self.gc_pause(o, now));
        match task {
            Task::Decide(id) => self.decide(object, id, start),
            Task::Write(id) => self.write(object, id, start),
        }
    }

    /// The pause before a task starting at `now`: garbage from the last second of sustained work.
    /// An idle gap of `GC_PAUSE_MAX` or more was time enough to collect it unseen.
    fn gc_pause(&mut self, o: usize, now: Time) -> Span {
        let state = &mut self.states[o];
        if now >= state.last_active.plus(GC_PAUSE_MAX) {
            state.busy_since_gc = Span::ZERO;
        }
        if !self.config.gc || state.busy_since_gc < GC_EVERY {
            return Span::ZERO;
        }
        state.busy_since_gc = Span::ZERO;
        let spread = GC_PAUSE_MAX.micros() - GC_PAUSE_MIN.micros();
        Span(GC_PAUSE_MIN.micros() + self.gc_rng.up_to(spread))
    }

    /// The object is held from `from` to `until`, then takes its next task.
    fn hold(&mut self, object: u32, from: Time, until: Time) {
        let state = &mut self.states[object as usize];
        state.busy = true;
        state.last_active = until;
        state.busy_since_gc = Span(state.busy_since_gc.0.saturating_add(until.since(from).0));
        self.schedule(until, Event::ServiceDone(object));
    }

    /// With persistence: the write of a decision made at `decided` (the state when allowed, the
    /// seed's alarm either way), ending at `done`.
    fn persist(&mut self, o: usize, decided: Time, allowed: bool, done: Time) {
        if allowed && !self.states[o].stored {
            self.states[o].stored = true;
            self.stored_changes.push((done, 1));
        }
        let alarm_at = decided
            .plus(self.config.settings.window)
            .plus(self.config.alarm_cleanup);
        self.states[o].alarm_at = Some(alarm_at);
        if self.states[o].alarm_pending.is_none() {
            self.states[o].alarm_pending = Some(alarm_at);
            self.schedule(alarm_at, Event::Alarm(o as u32));
        }
    }

    /// Reads the state and decides call `id`, starting at `start`.
    fn decide(&mut self, object: u32, id: u32, mut start: Time) {
        let o = object as usize;
        let now = start;
        if !self.states[o].in_memory {
            self.objects[o].cold_starts += 1;
            self.states[o].busy_since_gc = Span::ZERO;
            if self.config.persist {
                // The constructor reads storage inside blockConcurrencyWhile: nobody is served
                // before the read completes.
                start = start.plus(self.config.storage_read);
                if !self.states[o].stored {
                    self.states[o].limiter = None;
                }
            }
            self.states[o].in_memory = true;
        }
        if self.states[o].limiter.is_none() {
            let settings = self.limiter_settings(object);
            // validate() built every shard count's settings once, so this succeeds.
            self.states[o].limiter = self.config.algorithm.build_with::<C>(&settings).ok();
        }
        let cost = u64::from(self.records[id as usize].cost);
        let code = self.config.code;
        let Some(limiter) = self.states[o].limiter.as_mut() else {
            // Unreachable after validate(); if it ever happens, the call fails like a timeout
            // and the object moves on to its next request.
            if !self.finalized[id as usize] {
                let deadline = self.records[id as usize].sent.plus(self.config.timeout);
                self.finish(id, deadline, None);
            }
            self.start_next(object, now);
            return;
        };
        let (decision, copy) = match code {
            DoCode::Safe => (limiter.decide(start, cost), None),
            DoCode::AwaitBetween => {
                // Decides on what it read; the state changes only when the write lands.
                let mut copy = limiter.clone();
                (copy.decide(start, cost), Some(copy))
            }
        };
        let mut done = start
            .plus(self.config.service)
            .plus(self.config.slowdown_at(start));
        let gave_up = self.finalized[id as usize];
        let record = &mut self.records[id as usize];
        record.decided = Some(start);
        record.decision = Some(decision);
        if gave_up {
            // The Worker stopped waiting before the object even started on it.
            record.late = true;
        }
        if let Some(copy) = copy {
            // The code now awaits another service; the object serves others meanwhile.
            self.states[o].awaiting += 1;
            self.pending.push((id, decision.allowed().then_some(copy)));
            self.hold(object, now, done);
            self.schedule(done.plus(self.config.await_call), Event::Resume(id));
            return;
        }
        if self.config.persist {
            done = done.plus(self.config.storage_write);
            self.persist(o, start, decision.allowed(), done);
        }
        self.hold(object, now, done);
        self.answer(id, o, done);
    }

    /// The other service answered call `id`: its write waits its turn at the object.
    fn resume(&mut self, id: u32, _at: Time) {
        let Some(object) = self.records[id as usize].object else {
            return;
        };
        let state = &mut self.states[object as usize];
        state.queue.push_back(Task::Write(id));
        if !state.busy {
            self.start_next(object, self.now);
        }
    }

    /// Writes what call `id` decided (the state it computed, when allowed), then answers.
    fn write(&mut self, object: u32, id: u32, start: Time) {
        let o = object as usize;
        let state = &mut self.states[o];
        state.awaiting = state.awaiting.saturating_sub(1);
        let written = match self.pending.iter().position(|(call, _)| *call == id) {
            Some(at) => self.pending.swap_remove(at).1,
            None => None,
        };
        let allowed = written.is_some();
        if written.is_some() {
            state.limiter = written;
        }
        let mut done = start;
        if self.config.persist {
            done = done.plus(self.config.storage_write);
            let decided = self.records[id as usize].decided.unwrap_or(start);
            self.persist(o, decided, allowed, done);
        }
        self.hold(object, start, done);
        self.answer(id, o, done);
    }

    /// The object's answer to call `id` leaves at `depart`.
    fn answer(&mut self, id: u32, o: usize, depart: Time) {
        let origin = self.records[id as usize].origin;
        let region = self.objects[o].region;
        if !self.lost(depart, region, origin) {
            let back = depart.plus(self.hop(region, origin));
            self.schedule(back, Event::Respond(id));
        } else if !self.causal && !self.finalized[id as usize] {
            // The answer is lost on its way back; with no timeout event, settle it as one would.
            let deadline = self.records[id as usize].sent.plus(self.config.timeout);
            self.finish(id, deadline, None);
        }
    }

    fn service_done(&mut self, object: u32, at: Time) {
        let state = &mut self.states[object as usize];
        state.busy = false;
        if state.queue.is_empty() && state.awaiting == 0 && state.eviction_due {
            state.in_memory = false;
            state.eviction_due = false;
            if !self.config.persist {
                state.limiter = None;
            }
        }
        self.start_next(object, at);
    }

    fn respond(&mut self, id: u32, at: Time) {
        let deadline = self.records[id as usize].sent.plus(self.config.timeout);
        if !self.causal && !self.finalized[id as usize] && at > deadline {
            // No timeout event was scheduled: the Worker gave up at its deadline.
            self.finish(id, deadline, None);
        }
        if self.finalized[id as usize] {
            // The Worker already gave up; the object counted the request all the same.
            self.records[id as usize].late = true;
            return;
        }
        let decision = self.records[id as usize].decision;
        self.finish(id, at, decision);
    }

    fn timeout(&mut self, id: u32, _at: Time) {
        if self.finalized[id as usize] {
            return;
        }
        // The event fires a microsecond late so that an answer at the deadline wins the tie;
        // the Worker's answer is stamped at the deadline itself.
        let deadline = self.records[id as usize].sent.plus(self.config.timeout);
        self.finish(id, deadline, None);
    }

    /// The Worker answers the client: from a decision, or by the route's fail mode without one.
    fn finish(&mut self, id: u32, at: Time, decision: Option<Decision>) {
        let i = id as usize;
        self.finalized[i] = true;
        let record = &mut self.records[i];
        record.answered = at;
        if decision.is_none() && record.decided.is_some() {
            // The object decided, but its answer never reached the Worker in time.
            record.late = true;
        }
        record.decision = decision.or(record.decision);
        record.outcome = match decision {
            Some(d) => match d.verdict {
                Verdict::Allowed => Outcome::Allowed,
                Verdict::Delayed { .. } => Outcome::Delayed,
                Verdict::Rejected => Outcome::Rejected,
            },
            None => match self.config.fail_mode(record.route) {
                FailMode::Open => Outcome::DegradedAllowed,
                FailMode::Closed => Outcome::FailedClosed,
            },
        };
        let (outcome, origin, key, route, attempt, cost) = (
            record.outcome,
            record.origin,
            record.key,
            record.route,
            record.attempt,
            record.cost,
        );
        // The cache holds a key as one client over its limit, which is only true when one object
        // enforces the key's limit: with requests spread over shards, another shard may say yes.
        let decided = record.decided;
        if outcome == Outcome::Rejected
            && self.config.first_tier_cache
            && !record.local
            && self.config.shard_by == ShardBy::Key
        {
            if let (Some(wait), Some(decided)) = (decision.and_then(|d| d.retry_after), decided) {
                // Blocked until the object's own retry time, counted from when it decided.
                if let Some(slots) = self.blocked_until.get_mut(key as usize) {
                    slots[origin as usize] = Some(decided.plus(wait));
                }
            }
        }
        if matches!(outcome, Outcome::Rejected | Outcome::FailedClosed) {
            let wait = match self.config.retry {
                RetryPolicy::Never => None,
                RetryPolicy::Immediately { max_retries } => {
                    (attempt < max_retries).then_some(Span::ZERO)
                }
                RetryPolicy::AfterRetryAfter {
                    max_retries,
                    jitter,
                } => (attempt < max_retries).then(|| {
                    let told = match (outcome, self.config.tier) {
                        (Outcome::FailedClosed, _) => Span::from_secs(1),
                        (_, Tier::Binding { period_secs }) => Span::from_secs(period_secs),
                        _ => decision
                            .and_then(|d| d.retry_after)
                            .map(|w| Span::from_secs(w.ceil_secs().max(1)))
                            .unwrap_or(Span::from_secs(1)),
                    };
                    Span(told.micros() + self.rng.up_to(jitter.micros()))
                }),
            };
            if let Some(wait) = wait {
                // Never schedule into the past (a timeout is handled a microsecond after its deadline).
                let retry_at = at.plus(wait).max(self.now);
                let retry = self.new_record(
                    key,
                    origin,
                    route,
                    attempt.saturating_add(1),
                    cost,
                    retry_at,
                );
                self.schedule(retry_at, Event::Send(retry));
            }
        }
    }

    fn alarm(&mut self, object: u32, at: Time) {
        let o = object as usize;
        self.states[o].alarm_pending = None;
        let Some(alarm_at) = self.states[o].alarm_at else {
            return;
        };
        if alarm_at > at {
            // A later decision moved the alarm: wake up then instead.
            self.states[o].alarm_pending = Some(alarm_at);
            self.schedule(alarm_at, Event::Alarm(object));
            return;
        }
        self.states[o].alarm_at = None;
        if !self.states[o].stored {
            return;
        }
        let at_rest = self.states[o]
            .limiter
            .as_ref()
            .is_none_or(|l| l.is_at_rest(at));
        if at_rest {
            self.states[o].stored = false;
            if !self.states[o].in_memory {
                self.states[o].limiter = None;
            }
            self.stored_changes.push((at, -1));
        } else {
            let again = at.plus(self.config.alarm_cleanup);
            self.states[o].alarm_at = Some(again);
            self.states[o].alarm_pending = Some(again);
            self.schedule(again, Event::Alarm(object));
        }
    }
}
