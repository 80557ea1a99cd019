//! The URL fields of Go's `golang.org/x/time/rate` (`xtime-rate`, `xtime-burst`): the parameters a
//! person set, each optional so that unset it follows the lab's limit and window through the
//! profile's `defaults_for`, the rows that read and write them in a link (their names, what each
//! accepts and the refusal saying so), and the product's parameters they make. The names and values
//! are the product's own, as the header of the product's module cites them; the shared readers are
//! `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{count, double, set, whole_text, ExactDouble};
use crate::core::profiles::Tunable;
use crate::core::time::Span;

use super::XTimeRateParams;

/// The `xtime-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// Go's `rate.Limit`, the float64 itself.
    pub rate: Option<ExactDouble>,
    pub burst: Option<u64>,
}

/// The `xtime-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "Events per second (rate.Limit)",
        field: Field {
            name: "xtime-rate",
            read: |p, v| set(&mut p.x_time_rate.rate, double(v, true)),
            write: |p| p.x_time_rate.rate.map(|r| r.to_string()),
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
    /// Go's limiter: the fields set, the rest following the lab's limit and window.
    pub fn params(&self, limit: u64, window: Span) -> XTimeRateParams {
        let mut p = XTimeRateParams::defaults_for(limit, window);
        if let Some(rate) = self.rate {
            p.limit = rate.value();
        }
        p.burst = self.burst.unwrap_or(p.burst);
        p
    }
}
