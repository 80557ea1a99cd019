//! One Durable Object as the rest of the lab sees it: its identity, fixed when the simulation
//! creates it, and the two counts the simulation keeps about it. The simulation (`sim`) fills
//! these in, the report (`report`) hands them out, and sharding (`shard`) reads them to say what
//! the shards did to a key's limit; none of the three has to ask another for it.

use crate::core::region::Region;

/// One object's identity, fixed when it is created.
#[derive(Clone, Debug)]
pub struct ObjectInfo {
    pub name: String,
    pub key: u32,
    pub shard: u32,
    pub region: Region,
    /// How many shards its key has.
    pub shards: u32,
    /// The limit this shard enforces.
    pub limit: u64,
    /// The most requests it ever held at once (queued or in service).
    pub max_queue: u32,
    /// How many times it started cold (created, or restarted after an eviction).
    pub cold_starts: u32,
}
