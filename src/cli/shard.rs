//! `--shard I/N`: a slice of the keys, chosen by the hash the sliding-window seed shards with
//! (the first four bytes of SHA-256 of the key, big-endian, modulo N; `core::durable::shard`).
//! Keys are independent, so N runs over the same traffic, one per shard, decide every request
//! exactly once and exactly as one run does.

use std::collections::HashMap;

use crate::core::durable::shard::shard_of_key;

/// Shard `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

/// The most shards a run may be split into.
pub const MAX_SHARDS: u32 = 1 << 16;

impl Shard {
    /// `I/N`, with I from 0 to N - 1.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("a shard is I/N with I from 0 to N - 1 (like 0/4), not \"{text}\"");
        let (index, count) = text.trim().split_once('/').ok_or_else(bad)?;
        let index: u32 = index.trim().parse().map_err(|_| bad())?;
        let count: u32 = count.trim().parse().map_err(|_| bad())?;
        if !(1..=MAX_SHARDS).contains(&count) {
            return Err(format!(
                "the number of shards must be from 1 to {MAX_SHARDS}, not {count}"
            ));
        }
        if index >= count {
            return Err(format!(
                "shard {index} of {count} does not exist: shards are numbered from 0 to {}",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }

    /// True for the shard that writes what a whole run writes once (the CSV's header).
    pub fn is_first(self) -> bool {
        self.index == 0
    }
}

/// Which keys belong to a shard, each key hashed once.
pub struct ShardFilter {
    shard: Shard,
    known: HashMap<String, bool>,
}

impl ShardFilter {
    pub fn new(shard: Shard) -> ShardFilter {
        ShardFilter {
            shard,
            known: HashMap::new(),
        }
    }

    pub fn holds(&mut self, key: &str) -> bool {
        if let Some(&mine) = self.known.get(key) {
            return mine;
        }
        let mine = shard_of_key(key, self.shard.count) == self.shard.index;
        self.known.insert(key.to_string(), mine);
        mine
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_is_numbered_from_zero_and_a_bad_one_says_what_is_expected() {
        assert_eq!(Shard::parse("3/4"), Ok(Shard { index: 3, count: 4 }));
        assert!(Shard::parse("4/4").unwrap_err().contains("from 0 to 3"));
        assert!(Shard::parse("0/0").unwrap_err().contains("from 1 to"));
        assert!(Shard::parse("1-4").unwrap_err().contains("like 0/4"));
    }

    #[test]
    fn every_key_falls_in_exactly_one_shard() {
        let mut filters: Vec<ShardFilter> = (0..4)
            .map(|index| ShardFilter::new(Shard { index, count: 4 }))
            .collect();
        for i in 0..200 {
            let key = format!("ip:10.0.{}.{}", i / 256, i % 256);
            let holding = filters
                .iter_mut()
                .map(|f| f.holds(&key))
                .filter(|&h| h)
                .count();
            assert_eq!(holding, 1, "{key}");
        }
        // The seed's own example hash: the same index the Durable Object's shards use.
        let mut one = ShardFilter::new(Shard { index: 0, count: 1 });
        assert!(one.holds("tenant:acme"));
    }
}
