//! The network between regions, as the simulation times a hop between a Worker and an object.
//! The regions themselves are the traffic's, in `core::region`.
//!
//! Round-trip times are the average inter-region RTTs between the AWS regions in these cities,
//! from the "Latency Between AWS Global Regions" measurements (2017), as tabulated in the
//! "AWS Regions" post of the blog *A Computer Scientist Learns AWS* (April 2017), rounded to the
//! millisecond and made symmetric by averaging both directions. Cloudflare's own backbone is
//! often faster, but these are public, reproducible figures, and they put Frankfurt to Sao Paulo
//! at 195 ms, inside the 150 to 220 ms the sliding-window seed quotes. A Worker calling an
//! object in its own region pays 2 ms round trip.

use crate::core::region::Region;
use crate::core::time::Span;

impl Region {
    /// Average round-trip time between two regions.
    pub fn rtt(self, other: Region) -> Span {
        Span::from_millis(RTT_MS[index(self)][index(other)])
    }

    /// Half the round trip: the base of one hop before jitter.
    pub fn one_way(self, other: Region) -> Span {
        Span(self.rtt(other).micros() / 2)
    }
}

/// A region's row and column in `RTT_MS`: its place in `Region::ALL`.
fn index(region: Region) -> usize {
    region as usize
}

/// Rows and columns in the order of `Region::ALL`: fra, iad, gru, sin, syd, nrt.
const RTT_MS: [[u64; 6]; 6] = [
    //  fra  iad  gru  sin  syd  nrt
    [2, 89, 195, 326, 323, 237],  // Frankfurt
    [89, 2, 120, 217, 230, 145],  // Ashburn
    [195, 120, 2, 328, 322, 257], // Sao Paulo
    [326, 217, 328, 2, 175, 74],  // Singapore
    [323, 230, 322, 175, 2, 104], // Sydney
    [237, 145, 257, 74, 104, 2],  // Tokyo
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frankfurt_to_sao_paulo_is_within_the_seeds_150_to_220_ms() {
        let rtt = Region::Frankfurt.rtt(Region::SaoPaulo);
        assert!(rtt >= Span::from_millis(150) && rtt <= Span::from_millis(220));
    }

    #[test]
    fn the_matrix_is_symmetric_and_a_region_is_closest_to_itself() {
        for a in Region::ALL {
            for b in Region::ALL {
                assert_eq!(a.rtt(b), b.rtt(a));
                assert!(a.rtt(a) <= a.rtt(b));
            }
        }
    }
}
