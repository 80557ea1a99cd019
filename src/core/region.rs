//! Regions: where a request comes from, and where a Durable Object lives.
//!
//! A request's region of origin is part of the traffic: the Cloudflare location it reached
//! (`Request::origin`; the region column of a CSV; the `syd` of a link's trace item
//! `9@tenant:a@syd`). The Durable Object simulation uses the same regions to place its objects,
//! and times the network between a Worker and an object with round trips of its own, in
//! `durable::network`.
//!
//! The six regions are the cities of the AWS regions whose round trips that table takes from the
//! "Latency Between AWS Global Regions" measurements (2017), as tabulated in the "AWS Regions"
//! post of the blog *A Computer Scientist Learns AWS* (April 2017). Each is written as the IATA
//! code of its airport (`fra`, `iad`, `gru`, `sin`, `syd`, `nrt`), the way Cloudflare names its
//! locations.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Region {
    Frankfurt,
    Ashburn,
    SaoPaulo,
    Singapore,
    Sydney,
    Tokyo,
}

impl Region {
    pub const ALL: [Region; 6] = [
        Region::Frankfurt,
        Region::Ashburn,
        Region::SaoPaulo,
        Region::Singapore,
        Region::Sydney,
        Region::Tokyo,
    ];

    /// The short code used in URLs (airport codes).
    pub fn code(self) -> &'static str {
        match self {
            Region::Frankfurt => "fra",
            Region::Ashburn => "iad",
            Region::SaoPaulo => "gru",
            Region::Singapore => "sin",
            Region::Sydney => "syd",
            Region::Tokyo => "nrt",
        }
    }

    pub fn from_code(code: &str) -> Option<Region> {
        Region::ALL.into_iter().find(|r| r.code() == code)
    }

    pub fn name(self) -> &'static str {
        match self {
            Region::Frankfurt => "Frankfurt",
            Region::Ashburn => "Ashburn",
            Region::SaoPaulo => "Sao Paulo",
            Region::Singapore => "Singapore",
            Region::Sydney => "Sydney",
            Region::Tokyo => "Tokyo",
        }
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for r in Region::ALL {
            assert_eq!(Region::from_code(r.code()), Some(r));
        }
    }
}
