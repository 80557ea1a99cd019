//! Sharding: which object a request goes to.
//!
//! By default every key has one object of its own, named after the key: the one-object-per-user
//! seed's `idFromName(apiKey)`, and the sliding-window seed's design before its step 3 shards it.
//! That object enforces the whole limit, so near its caller it decides exactly as the algorithm
//! it runs.
//!
//! The sliding-window seed's step 3 names an object `"<key>#<n>"` with `n` = the first four bytes
//! of SHA-256(key), read big-endian, modulo the shard count, and picks the shard count from the
//! key's prefix (`ip:` 1, `global:` 16, anything else 4): [`ShardRule::seed`]. Each shard enforces
//! `ceil(limit / shards)`.
//! Hashing the key alone means every request of one key lands on the same shard, so a single hot
//! key is held to `limit / shards`, not `limit`: sharding by key only spreads *different* keys.
//! Spreading each request over the shards is the alternative that keeps a hot key's aggregate
//! limit near `limit`. Both are here, so the simulation can show the difference.

use crate::core::rng::SeededRng;
use crate::core::sha256::sha256;
use crate::core::time::{format_seconds, Span};

use super::object::ObjectInfo;

/// How the shard count is chosen for a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardRule {
    /// Shards for `ip:` keys (the seed's rule: 1).
    pub ip: u32,
    /// Shards for `global:` keys (the seed's rule: 16).
    pub global: u32,
    /// Shards for every other key (the seed's rule: 4).
    pub other: u32,
}

/// One object per key.
impl Default for ShardRule {
    fn default() -> ShardRule {
        ShardRule::uniform(1)
    }
}

impl ShardRule {
    /// The sliding-window seed's `shardsFor`: by key prefix, `ip:` 1, `global:` 16, others 4.
    pub fn seed() -> ShardRule {
        ShardRule {
            ip: 1,
            global: 16,
            other: 4,
        }
    }

    /// Every key gets the same number of shards.
    pub fn uniform(shards: u32) -> ShardRule {
        let n = shards.max(1);
        ShardRule {
            ip: n,
            global: n,
            other: n,
        }
    }

    pub fn shards_for(&self, key: &str) -> u32 {
        let n = if key.starts_with("ip:") {
            self.ip
        } else if key.starts_with("global:") {
            self.global
        } else {
            self.other
        };
        n.max(1)
    }
}

/// How a request picks one of its key's shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ShardBy {
    /// The seed's code: the shard is a hash of the key, so a key always lands on one shard.
    #[default]
    Key,
    /// Each request picks a shard at random (seeded): one key's traffic spreads over all shards.
    Request,
}

impl ShardBy {
    pub fn slug(self) -> &'static str {
        match self {
            ShardBy::Key => "key",
            ShardBy::Request => "request",
        }
    }
}

/// The seed's `shardName` index: SHA-256 of the key, first four bytes big-endian, mod `shards`.
pub fn shard_of_key(key: &str, shards: u32) -> u32 {
    let digest = sha256(key.as_bytes());
    let head = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
    head % shards.max(1)
}

/// Picks the shard for one request.
pub fn pick_shard(key: &str, shards: u32, by: ShardBy, rng: &mut SeededRng) -> u32 {
    match by {
        ShardBy::Key => shard_of_key(key, shards),
        ShardBy::Request => rng.up_to(u64::from(shards.max(1)) - 1) as u32,
    }
}

/// The object's name, as the seed builds it.
pub fn object_name(key: &str, shard: u32) -> String {
    format!("{key}#{shard}")
}

/// The limit each shard enforces (`Math.ceil(LIMIT / shards)` in the seed).
pub fn per_shard_limit(limit: u64, shards: u32) -> u64 {
    limit.div_ceil(u64::from(shards.max(1))).max(1)
}

/// What sharding did to the limit a key is held to: a few words for the row's label, and the
/// sentence that explains them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardingNote {
    /// One short line: "one of 4 shards: ceil(5 / 4) = 2", "4 shards × ceil(5 / 4) = 8".
    pub label: String,
    pub sentence: String,
}

/// What sharding did to the limit a key is held to, or `None` when it changed nothing (every key
/// on one object, or shards that add up to the limit exactly). By key, all of a key's requests
/// reach one shard, which allows `ceil(limit / shards)`; per request, a key's shards together let
/// through `shards × ceil(limit / shards)`.
pub fn sharding_note(
    objects: &[ObjectInfo],
    limit: u64,
    window: Span,
    by: ShardBy,
) -> Option<ShardingNote> {
    // The distinct shard counts that change the limit, in increasing order (a handful at most:
    // the seed's rule has two, so a plain insertion keeps the sort code out of the page).
    let mut counts: Vec<u32> = Vec::new();
    for n in objects.iter().map(|o| o.shards) {
        let per_shard = per_shard_limit(limit, n);
        let reaches = if by == ShardBy::Key {
            per_shard
        } else {
            u64::from(n) * per_shard
        };
        if let (true, Err(at)) = (n > 1 && reaches != limit, counts.binary_search(&n)) {
            counts.insert(at, n);
        }
    }
    let each: Vec<String> = counts
        .iter()
        .map(|&n| {
            let per_shard = per_shard_limit(limit, n);
            match by {
                ShardBy::Key => format!("ceil({limit} / {n}) = {per_shard}"),
                ShardBy::Request => format!(
                    "{n} shards × ceil({limit} / {n}) = {}",
                    u64::from(n) * per_shard
                ),
            }
        })
        .collect();
    let (label, how) = match (by, counts.as_slice()) {
        (_, []) => return None,
        (ShardBy::Key, [n]) => (
            format!("one of {n} shards: "),
            "Sharded by key: all of a key's requests reach one shard, which allows",
        ),
        (ShardBy::Key, _) => (
            "one shard: ".to_string(),
            "Sharded by key: all of a key's requests reach one shard, which allows",
        ),
        (ShardBy::Request, _) => (
            String::new(),
            "Sharded per request: a key's shards together let through up to",
        ),
    };
    let items = each.join(" or ");
    Some(ShardingNote {
        label: format!("{label}{items}"),
        sentence: format!(
            "{how} {items} per {} s, not {limit}.",
            format_seconds(window.micros())
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_shard_counts_follow_the_key_prefix() {
        let rule = ShardRule::seed();
        assert_eq!(rule.shards_for("ip:203.0.113.7"), 1);
        assert_eq!(rule.shards_for("global:search"), 16);
        assert_eq!(rule.shards_for("tenant:acme"), 4);
    }

    #[test]
    fn by_default_every_key_has_one_object() {
        for key in ["ip:203.0.113.7", "global:search", "tenant:acme"] {
            assert_eq!(ShardRule::default().shards_for(key), 1, "{key}");
        }
    }

    #[test]
    fn sharding_by_key_always_sends_one_key_to_the_same_shard() {
        let mut rng = SeededRng::new(1);
        let first = pick_shard("tenant:acme", 4, ShardBy::Key, &mut rng);
        assert!((0..100).all(|_| pick_shard("tenant:acme", 4, ShardBy::Key, &mut rng) == first));
        assert_eq!(
            object_name("tenant:acme", first),
            format!("tenant:acme#{first}")
        );
    }

    #[test]
    fn sharding_per_request_uses_every_shard() {
        let mut rng = SeededRng::new(1);
        let mut seen = [false; 4];
        for _ in 0..200 {
            seen[pick_shard("tenant:acme", 4, ShardBy::Request, &mut rng) as usize] = true;
        }
        assert_eq!(seen, [true; 4]);
    }

    fn objects(shards: &[u32]) -> Vec<ObjectInfo> {
        shards
            .iter()
            .map(|&n| ObjectInfo {
                name: String::new(),
                key: 0,
                shard: 0,
                region: crate::core::region::Region::Frankfurt,
                shards: n,
                limit: 0,
                max_queue: 0,
                cold_starts: 0,
            })
            .collect()
    }

    #[test]
    fn the_row_says_what_sharding_did_to_the_limit_and_nothing_when_it_did_nothing() {
        let ten = Span::from_secs(10);
        let note = |shards: &[u32], limit: u64, by: ShardBy| {
            sharding_note(&objects(shards), limit, ten, by).map(|n| (n.label, n.sentence))
        };
        let pair = |label: &str, sentence: &str| Some((label.to_string(), sentence.to_string()));
        assert_eq!(note(&[1, 1], 5, ShardBy::Key), None);
        assert_eq!(
            note(&[4], 5, ShardBy::Key),
            pair("one of 4 shards: ceil(5 / 4) = 2", "Sharded by key: all of a key's requests reach one shard, which allows ceil(5 / 4) = 2 per 10 s, not 5.")
        );
        assert_eq!(
            note(&[1, 16, 4, 4], 5, ShardBy::Key),
            pair(
                "one shard: ceil(5 / 4) = 2 or ceil(5 / 16) = 1",
                "Sharded by key: all of a key's requests reach one shard, which allows ceil(5 / 4) = 2 or ceil(5 / 16) = 1 per 10 s, not 5."
            )
        );
        assert_eq!(note(&[4], 1, ShardBy::Key), None, "ceil(1 / 4) is still 1");
        assert_eq!(
            note(&[4], 5, ShardBy::Request),
            pair("4 shards × ceil(5 / 4) = 8", "Sharded per request: a key's shards together let through up to 4 shards × ceil(5 / 4) = 8 per 10 s, not 5.")
        );
        assert_eq!(
            note(&[4], 20, ShardBy::Request),
            None,
            "4 shards of 5 are 20"
        );
    }

    #[test]
    fn each_shard_enforces_the_limit_divided_and_rounded_up() {
        assert_eq!(per_shard_limit(100, 16), 7);
        assert_eq!(per_shard_limit(100, 4), 25);
        assert_eq!(per_shard_limit(5, 16), 1);
    }
}
