//! Deployments that multiply: a row run as several independent copies of its limiter (processes,
//! isolates, locations), each keeping its own state, with the traffic spread over them.
//!
//! The Durable Object seed warns that counters kept in each isolate multiply the limit: two
//! copies that each enforce "5 per 10 s" let up to 10 per 10 s through. That is the real
//! behaviour of a limiter kept in process memory (Envoy's local rate limit keeps a bucket per
//! process; Cloudflare's Rate Limiting binding counts per location), and the lab shows it by
//! running every row as `instances` copies. How a request finds its copy is the load balancer's
//! choice ([`Spread`]): in turn, at random (drawn from the lab's seed, one draw per request, so
//! the same seed gives the same run), or by key (sticky, the key's SHA-256 choosing the copy, as
//! a hash ring over the key would).
//!
//! A run keeps one limiter per key and copy ([`Placement::slot`]); the busiest window still
//! counts a key's requests across all copies, because that is the promise a person reads.

use super::linking::Linking;
use super::rng::SeededRng;
use super::sha256::sha256;
use super::traffic::Trace;

/// The most copies a row runs as.
pub const MAX_INSTANCES: u32 = 64;

/// How requests are spread over the copies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Spread {
    /// Request `i` of the trace goes to copy `i mod instances`, whatever its key.
    #[default]
    RoundRobin,
    /// Each request to a copy drawn at random from the lab's seed.
    Random,
    /// Every request of a key to the same copy, chosen by the key's SHA-256.
    Key,
}

impl Spread {
    pub const ALL: [Spread; 3] = [Spread::RoundRobin, Spread::Random, Spread::Key];

    /// The name used in links (`spread=`).
    pub fn slug(self) -> &'static str {
        match self {
            Spread::RoundRobin => "round-robin",
            Spread::Random => "random",
            Spread::Key => "key",
        }
    }

    /// How a person reads it: "in turn", "at random", "by key".
    pub fn phrase(self) -> &'static str {
        match self {
            Spread::RoundRobin => "in turn",
            Spread::Random => "at random",
            Spread::Key => "by key",
        }
    }
}

/// How many copies each row runs as, and how the traffic is spread over them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Deployment {
    /// 1 to [`MAX_INSTANCES`]; 1 is one limiter, as a central store gives.
    pub instances: u32,
    pub spread: Spread,
    /// The lab's seed, for [`Spread::Random`].
    pub seed: u64,
}

impl Default for Deployment {
    fn default() -> Deployment {
        Deployment {
            instances: 1,
            spread: Spread::RoundRobin,
            seed: super::rng::DEFAULT_SEED,
        }
    }
}

impl Deployment {
    /// True when every row is one limiter per key.
    pub fn is_single(&self) -> bool {
        self.instances <= 1
    }

    /// Where each request of `trace` goes.
    pub fn placement<C: Linking>(&self, trace: &Trace) -> Placement {
        let mut placement = self.placement_of_no_keys::<C>();
        for name in trace.keys() {
            placement.add_key(name);
        }
        placement
    }

    /// A placement that learns the keys as they come ([`Placement::add_key`]), for a stream.
    pub fn placement_of_no_keys<C: Linking>(&self) -> Placement {
        // A program without the rules runs no copies (the page's first module hands a view with
        // copies to the complete one before it is computed: `ui::state::Lab::show`).
        let instances = if C::RULES {
            self.instances.clamp(1, MAX_INSTANCES)
        } else {
            1
        };
        Placement {
            instances,
            spread: self.spread,
            seed: self.seed,
            by_key: Vec::new(),
        }
    }
}

/// The copy a key sticks to: the first eight bytes of its SHA-256, modulo the copies.
fn key_instance(name: &str, instances: u32) -> u32 {
    let digest = sha256(name.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    (u64::from_be_bytes(first) % u64::from(instances)) as u32
}

/// Where the requests of one trace go: worked out once per run, asked once per request.
#[derive(Clone, Debug)]
pub struct Placement {
    instances: u32,
    spread: Spread,
    seed: u64,
    /// For [`Spread::Key`]: each key's copy, by key number.
    by_key: Vec<u32>,
}

impl Placement {
    pub fn instances(&self) -> u32 {
        self.instances
    }

    /// Numbers the next key (keys are numbered in order of first appearance, as a trace does).
    pub fn add_key(&mut self, name: &str) {
        if self.spread == Spread::Key && self.instances > 1 {
            self.by_key.push(key_instance(name, self.instances));
        }
    }

    /// The copy that decides request `index` of the trace, of key `key`.
    pub fn instance(&self, index: usize, key: u32) -> u32 {
        if self.instances == 1 {
            return 0;
        }
        let n = u64::from(self.instances);
        match self.spread {
            Spread::RoundRobin => (index as u64 % n) as u32,
            Spread::Random => {
                // A draw of its own per request, so that any request's copy is found without
                // drawing for the ones before it (the inspector asks for one request).
                let mut rng =
                    SeededRng::new(self.seed ^ (index as u64).wrapping_mul(0xA24B_AED4_963E_E407));
                rng.up_to(n - 1) as u32
            }
            Spread::Key => self.by_key.get(key as usize).copied().unwrap_or(0),
        }
    }

    /// The limiter slot of request `index` of key `key`: one per key and copy. A run asks for it
    /// once per request, so it is inline, and with one copy (most rows) it is the key's number.
    #[inline(always)]
    pub fn slot(&self, index: usize, key: u32) -> usize {
        if self.instances == 1 {
            return key as usize;
        }
        key as usize * self.instances as usize + self.instance(index, key) as usize
    }

    /// The CSV export's `copy` column for request `index` of `key`: the copy from 1, and only
    /// for a row run as several.
    pub fn copy_column(&self, index: usize, key: u32) -> Option<u32> {
        (self.instances > 1).then(|| self.instance(index, key) + 1)
    }

    /// How many slots a trace of `keys` keys needs.
    pub fn slots(&self, keys: usize) -> usize {
        keys.saturating_mul(self.instances as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::limiter::Complete;
    use crate::core::time::Time;

    fn trace_of_keys(keys: &[&str]) -> Trace {
        let mut trace = Trace::single_key(keys[0], vec![Time::ZERO]);
        for key in &keys[1..] {
            trace.push_key_requests(key, &[Time::ZERO]);
        }
        trace
    }

    #[test]
    fn one_copy_puts_every_request_in_its_keys_own_slot() {
        let placement = Deployment::default().placement::<Complete>(&trace_of_keys(&["a", "b"]));
        assert_eq!(placement.slot(7, 1), 1);
        assert_eq!(placement.slots(2), 2);
    }

    #[test]
    fn in_turn_request_i_goes_to_copy_i_modulo_the_copies() {
        let deployment = Deployment {
            instances: 3,
            ..Deployment::default()
        };
        let placement = deployment.placement::<Complete>(&trace_of_keys(&["a", "b"]));
        let copies: Vec<u32> = (0..7).map(|i| placement.instance(i, 0)).collect();
        assert_eq!(copies, [0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(placement.slot(4, 1), 4);
    }

    #[test]
    fn at_random_the_same_seed_gives_the_same_copies_and_uses_them_all() {
        let deployment = Deployment {
            instances: 4,
            spread: Spread::Random,
            seed: 9,
        };
        let trace = trace_of_keys(&["a"]);
        let drawn: Vec<u32> = (0..400)
            .map(|i| deployment.placement::<Complete>(&trace).instance(i, 0))
            .collect();
        let again: Vec<u32> = (0..400)
            .map(|i| deployment.placement::<Complete>(&trace).instance(i, 0))
            .collect();
        assert_eq!(drawn, again);
        for copy in 0..4 {
            let share = drawn.iter().filter(|&&c| c == copy).count();
            assert!((60..140).contains(&share), "copy {copy}: {share} of 400");
        }
        let other = Deployment {
            seed: 10,
            ..deployment
        }
        .placement::<Complete>(&trace);
        assert_ne!(
            drawn,
            (0..400).map(|i| other.instance(i, 0)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn by_key_every_request_of_a_key_goes_to_one_copy_chosen_by_its_sha256() {
        let deployment = Deployment {
            instances: 8,
            spread: Spread::Key,
            ..Deployment::default()
        };
        let names: Vec<String> = (0..64).map(|i| format!("user-{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let placement = deployment.placement::<Complete>(&trace_of_keys(&refs));
        for key in 0..64u32 {
            let first = placement.instance(0, key);
            assert!((1..50).all(|i| placement.instance(i, key) == first));
        }
        let used: std::collections::BTreeSet<u32> =
            (0..64).map(|k| placement.instance(0, k)).collect();
        assert!(used.len() >= 6, "64 keys spread over {used:?}");
        // SHA-256("a") starts ca978112ca1bbdca: 0xca978112ca1bbdca mod 8 = 2.
        assert_eq!(key_instance("a", 8), 2);
    }
}
