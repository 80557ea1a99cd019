//! The URL fields of Guava's `RateLimiter` (`guava-rate`, `guava-burst`): the parameters a person
//! set, each optional so that unset it follows the lab's limit and window through the profile's
//! `defaults_for`, the rows that read and write them in a link (their names, what each accepts and
//! the refusal saying so), and the product's parameters they make. The names and values are the
//! product's own, as the header of the product's module cites them; the shared readers are
//! `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{seconds, seconds_text, set, USING_DEFAULT};
use crate::core::profiles::Tunable;
use crate::core::time::{format_seconds, parse_seconds, Span, MICROS_PER_SEC};

use super::GuavaParams;

/// The `guava-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// Guava's `permitsPerSecond` in millionths of a permit, as written in decimal.
    pub rate: Option<u64>,
    pub burst: Option<Span>,
}

/// The `guava-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "Permits per second (create)",
        field: Field {
            name: "guava-rate",
            read: |p, v| {
                let rate = match parse_seconds(v) {
                    Ok(micro_permits) if micro_permits > 0 => micro_permits,
                    _ => {
                        return Err(format!(
                            "permits per second above 0, decimals allowed{USING_DEFAULT}"
                        ))
                    }
                };
                set(&mut p.guava.rate, Ok(rate))
            },
            write: |p| p.guava.rate.map(format_seconds),
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
        if let Some(micro_permits) = self.rate {
            p.permits_per_second = micro_permits as f64 / MICROS_PER_SEC as f64;
        }
        if let Some(burst) = self.burst {
            p.max_burst_seconds = burst.micros() as f64 / MICROS_PER_SEC as f64;
        }
        p
    }
}
