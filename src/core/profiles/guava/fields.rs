//! The URL fields of Guava's `RateLimiter` (`guava-rate`, `guava-burst`): the parameters a person
//! set, each optional so that unset it follows the lab's limit and window through the profile's
//! `defaults_for`, the rows that read and write them in a link (their names, what each accepts and
//! the refusal saying so), and the product's parameters they make. The names and values are the
//! product's own, as the header of the product's module cites them; the shared readers are
//! `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{double, seconds, seconds_text, set, ExactDouble};
use crate::core::profiles::Tunable;
use crate::core::time::{Span, MICROS_PER_SEC};

use super::GuavaParams;

/// The `guava-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// Guava's `permitsPerSecond`, the double itself.
    pub rate: Option<ExactDouble>,
    pub burst: Option<Span>,
}

/// The `guava-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "Permits per second (create)",
        field: Field {
            name: "guava-rate",
            read: |p, v| set(&mut p.guava.rate, double(v, false)),
            write: |p| p.guava.rate.map(|r| r.to_string()),
        },
        in_force: |s| {
            let p = s.products.guava.params(s.limit, s.window);
            p.permits_per_second.to_string()
        },
    },
    Tunable {
        label: "Stored permits, s (maxBurstSeconds)",
        field: Field {
            name: "guava-burst",
            read: |p, v| set(&mut p.guava.burst, seconds(v, false)),
            write: |p| seconds_text(p.guava.burst),
        },
        in_force: |s| {
            let p = s.products.guava.params(s.limit, s.window);
            p.max_burst_seconds.to_string()
        },
    },
];

impl Fields {
    /// The decimal texts of the URL read as Java's `Double.parseDouble` reads them: one division
    /// of two integers exact in a double, so correctly rounded as the parse is.
    pub fn params(&self, limit: u64, window: Span) -> GuavaParams {
        let mut p = GuavaParams::defaults_for(limit, window);
        if let Some(rate) = self.rate {
            p.permits_per_second = rate.value();
        }
        if let Some(burst) = self.burst {
            p.max_burst_seconds = burst.micros() as f64 / MICROS_PER_SEC as f64;
        }
        p
    }
}
