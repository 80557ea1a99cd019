//! Seeded randomness for the simulation: the same seed gives the same run, on every platform.
//!
//! SplitMix64 (Steele, Lea and Flood, 2014) is small, fast and passes BigCrush for this use.
//! Exponential samples (Poisson arrivals) need a logarithm; `f64::ln` may differ in its last bit
//! between the native and the Wasm maths library, so a logarithm built from IEEE basic
//! operations only (which are exactly rounded everywhere) is used instead.

/// The lab's seed when a link names none.
pub const DEFAULT_SEED: u64 = 1;

#[derive(Clone, Debug)]
pub struct SeededRng {
    state: u64,
}

impl SeededRng {
    pub fn new(seed: u64) -> SeededRng {
        SeededRng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..=max` (Lemire's multiply-shift; the tiny bias is irrelevant here).
    pub fn up_to(&mut self, max: u64) -> u64 {
        if max == u64::MAX {
            return self.next_u64();
        }
        ((u128::from(self.next_u64()) * u128::from(max + 1)) >> 64) as u64
    }

    /// Uniform in (0, 1].
    pub fn unit_open(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// An exponential sample with the given mean, in whole microseconds.
    pub fn exponential_micros(&mut self, mean_micros: u64) -> u64 {
        let u = self.unit_open();
        let sample = -portable_ln(u) * mean_micros as f64;
        if sample.is_finite() && sample >= 0.0 {
            sample.round().min(u64::MAX as f64 / 2.0) as u64
        } else {
            0
        }
    }
}

/// Natural logarithm of `x` in (0, 1], from basic operations only: reduce to m × 2^k with m in
/// [1/√2, √2), then ln m = 2·atanh(s) with s = (m-1)/(m+1), summed to full precision.
pub fn portable_ln(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return f64::NEG_INFINITY;
    }
    let mut m = x;
    let mut k = 0i32;
    while m < std::f64::consts::FRAC_1_SQRT_2 {
        m *= 2.0;
        k -= 1;
    }
    while m >= std::f64::consts::SQRT_2 {
        m /= 2.0;
        k += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut term = s;
    let mut sum = 0.0;
    let mut n = 1.0;
    for _ in 0..40 {
        sum += term / n;
        term *= s2;
        n += 2.0;
    }
    2.0 * sum + f64::from(k) * std::f64::consts::LN_2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_sequence_and_another_seed_another() {
        let a: Vec<u64> = (0..5)
            .scan(SeededRng::new(7), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..5)
            .scan(SeededRng::new(7), |r, _| Some(r.next_u64()))
            .collect();
        let c: Vec<u64> = (0..5)
            .scan(SeededRng::new(8), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn the_portable_logarithm_matches_the_library_one() {
        for x in [1e-12, 0.001, 0.1, 0.5, 0.7, 0.9, 0.999_999, 1.0] {
            assert!((portable_ln(x) - x.ln()).abs() < 1e-12, "{x}");
        }
    }

    #[test]
    fn exponential_samples_have_the_requested_mean() {
        let mut rng = SeededRng::new(42);
        let n = 20_000;
        let total: u64 = (0..n).map(|_| rng.exponential_micros(1_000)).sum();
        let mean = total as f64 / n as f64;
        assert!((mean - 1_000.0).abs() < 30.0, "mean {mean}");
    }

    #[test]
    fn up_to_stays_in_range() {
        let mut rng = SeededRng::new(1);
        assert!((0..1000).map(|_| rng.up_to(3)).all(|v| v <= 3));
        assert_eq!(rng.up_to(0), 0);
    }
}
