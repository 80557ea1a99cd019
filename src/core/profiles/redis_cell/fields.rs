//! The URL fields of redis-cell's `CL.THROTTLE` (`cell-burst`, `cell-count`, `cell-period`): the
//! parameters a person set, each optional so that unset it follows the lab's limit and window
//! through the profile's `defaults_for`, the rows that read and write them in a link (their names,
//! what each accepts and the refusal saying so), and the product's parameters they make. The names
//! and values are the product's own, as the header of the product's module cites them; the shared
//! readers are `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{count, seconds, seconds_text, set, whole_text};
use crate::core::profiles::Tunable;
use crate::core::time::{format_seconds, Span};

use super::RedisCellParams;

/// The `cell-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    pub burst: Option<u64>,
    pub count: Option<u64>,
    pub period: Option<Span>,
}

/// The `cell-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "Max burst (max_burst)",
        field: Field {
            name: "cell-burst",
            read: |p, v| set(&mut p.redis_cell.burst, count(v, 0)),
            write: |p| whole_text(p.redis_cell.burst),
        },
        in_force: |s| {
            let p = s.products.redis_cell.params(s.limit, s.window);
            p.max_burst.to_string()
        },
    },
    Tunable {
        label: "Count per period (count)",
        field: Field {
            name: "cell-count",
            read: |p, v| set(&mut p.redis_cell.count, count(v, 1)),
            write: |p| whole_text(p.redis_cell.count),
        },
        in_force: |s| {
            let p = s.products.redis_cell.params(s.limit, s.window);
            p.count.to_string()
        },
    },
    Tunable {
        label: "Period, s (period)",
        field: Field {
            name: "cell-period",
            read: |p, v| set(&mut p.redis_cell.period, seconds(v, false)),
            write: |p| seconds_text(p.redis_cell.period),
        },
        in_force: |s| {
            let p = s.products.redis_cell.params(s.limit, s.window);
            format_seconds(p.period.micros())
        },
    },
];

impl Fields {
    /// `CL.THROTTLE`'s arguments: the fields set, the rest following the lab's limit and
    /// window.
    pub fn params(&self, limit: u64, window: Span) -> RedisCellParams {
        let mut p = RedisCellParams::defaults_for(limit, window);
        p.max_burst = self.burst.unwrap_or(p.max_burst);
        p.count = self.count.unwrap_or(p.count);
        p.period = self.period.unwrap_or(p.period);
        p
    }
}
