//! The emulated Durable Object: a seeded, discrete-event simulation of Workers in several
//! regions calling a central limiter that is far away, single-threaded, sometimes slow, evicted
//! or unreachable. Pure: no clock, no OS randomness, no browser.

pub mod config;
pub mod network;
pub mod object;
pub mod params;
pub mod report;

pub mod shard;
pub mod sim;
pub mod traffic;

pub use config::{
    DoCode, FailMode, Fault, FaultKind, Placement, RetryPolicy, Route, SimConfig, SimConfigError,
    Tier,
};
pub use object::ObjectInfo;
pub use params::DurableParams;
pub use report::{KeyStats, Outcome, RequestRecord, SimReport};
pub use shard::{ShardBy, ShardRule};
pub use sim::{simulate, Simulation};
pub use traffic::{SimRequest, SimTraffic};
