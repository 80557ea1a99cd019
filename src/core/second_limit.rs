//! A second limit on the same traffic (`also=COUNT/SECONDS`): each row checks a request against
//! its own limit and against a second one of the same algorithm, kept on the same key or on a
//! coarser one. The Durable Object seed's advice is to combine a loose limit per address with a
//! tight one per key; here many tenants behind one address (`203.0.113.7:alice`,
//! `203.0.113.7:bob`) share the address's limit when it is keyed by the key's prefix.
//!
//! Two ways of combining them are both in use ([`Spend`]):
//! - `all`: checked one after the other, as chained middleware does: the first limit spends as
//!   it decides, so a request the second limit refuses has already used up part of the first;
//! - `passed`: both are asked first without spending, and both spend only when both let it
//!   through (a refusing limit still records its refusal as its own rule says, for a limiter that
//!   counts refused hits).
//!
//! A request either limit refuses is refused; one both let through is served when the later of
//! the two would serve it. It is "refused by the first" when its own limit refused it, else "by
//! the second". The second limit uses the row's algorithm with `COUNT` per `SECONDS` and every
//! knob following those (a product's explicit fields belong to the first).

use super::time::Span;

/// Which key the second limit counts on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SecondKey {
    /// The request's own key.
    #[default]
    Same,
    /// The part of the key before its last `:` (the whole key when it has none).
    Prefix,
}

impl SecondKey {
    pub const ALL: [SecondKey; 2] = [SecondKey::Same, SecondKey::Prefix];

    /// The name used in links (`also-key=`).
    pub fn slug(self) -> &'static str {
        match self {
            SecondKey::Same => "same",
            SecondKey::Prefix => "prefix",
        }
    }

    /// The key the second limit counts `key` on.
    pub fn of(self, key: &str) -> &str {
        match self {
            SecondKey::Same => key,
            SecondKey::Prefix => key.rsplit_once(':').map_or(key, |(prefix, _)| prefix),
        }
    }
}

/// When the two limits spend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Spend {
    /// One after the other: the first spends even when the second refuses.
    #[default]
    All,
    /// Only when both let the request through.
    Passed,
}

impl Spend {
    pub const ALL: [Spend; 2] = [Spend::All, Spend::Passed];

    /// The name used in links (`spend=`).
    pub fn slug(self) -> &'static str {
        match self {
            Spend::All => "all",
            Spend::Passed => "passed",
        }
    }
}

/// The second limit of every row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SecondLimit {
    pub count: u64,
    pub window: Span,
    pub key: SecondKey,
    pub spend: Spend,
}

/// Which limit refused a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefusedBy {
    First,
    Second,
}

impl RefusedBy {
    /// How the CSV export and the inspector name it.
    pub fn word(self) -> &'static str {
        match self {
            RefusedBy::First => "first",
            RefusedBy::Second => "second",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_is_the_key_before_its_last_colon() {
        assert_eq!(SecondKey::Prefix.of("203.0.113.7:alice"), "203.0.113.7");
        assert_eq!(SecondKey::Prefix.of("tenant:a:b"), "tenant:a");
        assert_eq!(SecondKey::Prefix.of("solo"), "solo");
        assert_eq!(SecondKey::Same.of("tenant:a"), "tenant:a");
    }
}
