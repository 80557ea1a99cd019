//! The URL fields of Go's `golang.org/x/time/rate` (`xtime-rate`, `xtime-burst`): the parameters a
//! person set, each optional so that unset it follows the lab's limit and window through the
//! profile's `defaults_for`, the rows that read and write them in a link (their names, what each
//! accepts and the refusal saying so), and the product's parameters they make. The names and values
//! are the product's own, as the header of the product's module cites them; the shared readers are
//! `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{count, set, whole_text, USING_DEFAULT};
use crate::core::profiles::Tunable;
use crate::core::time::{format_seconds, parse_seconds, Span, MICROS_PER_SEC};

use super::XTimeRateParams;

/// The `xtime-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// Go's `rate.Limit` in millionths of an event per second, as written in decimal.
    pub rate: Option<u64>,
    pub burst: Option<u64>,
}

/// The `xtime-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "Events per second (rate.Limit)",
        field: Field {
            name: "xtime-rate",
            read: |p, v| {
                let rate = match parse_seconds(v) {
                    Ok(micro_events) => micro_events,
                    _ => {
                        return Err(format!(
                            "events per second, decimals allowed{USING_DEFAULT}"
                        ))
                    }
                };
                set(&mut p.x_time_rate.rate, Ok(rate))
            },
            write: |p| p.x_time_rate.rate.map(format_seconds),
        },
        in_force: |s| {
            let p = s.products.x_time_rate.params(s.limit, s.window);
            p.limit.to_string()
        },
    },
    Tunable {
        label: "Burst (b)",
        field: Field {
            name: "xtime-burst",
            read: |p, v| set(&mut p.x_time_rate.burst, count(v, 0)),
            write: |p| whole_text(p.x_time_rate.burst),
        },
        in_force: |s| {
            let p = s.products.x_time_rate.params(s.limit, s.window);
            p.burst.to_string()
        },
    },
];

impl Fields {
    /// The decimal rate read as Go reads a float literal: one correctly rounded division.
    pub fn params(&self, limit: u64, window: Span) -> XTimeRateParams {
        let mut p = XTimeRateParams::defaults_for(limit, window);
        if let Some(micro_events) = self.rate {
            p.limit = micro_events as f64 / MICROS_PER_SEC as f64;
        }
        p.burst = self.burst.unwrap_or(p.burst);
        p
    }
}
