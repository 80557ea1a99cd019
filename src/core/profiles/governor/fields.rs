//! The URL fields of governor (`governor-period`, `governor-burst`): the parameters a person set,
//! each optional so that unset it follows the lab's limit and window through the profile's
//! `defaults_for`, the rows that read and write them in a link (their names, what each accepts and
//! the refusal saying so), and the product's parameters they make. The names and values are the
//! product's own, as the header of the product's module cites them; the shared readers are
//! `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{count, seconds, seconds_text, set, whole_text};
use crate::core::profiles::Tunable;
use crate::core::time::{format_seconds, Span};

use super::GovernorParams;

/// The `governor-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// governor's replenish interval: one cell per this long.
    pub period: Option<Span>,
    pub burst: Option<u64>,
}

/// The `governor-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "Replenish one every, s (Quota::with_period)",
        field: Field {
            name: "governor-period",
            read: |p, v| set(&mut p.governor.period, seconds(v, false)),
            write: |p| seconds_text(p.governor.period),
        },
        in_force: |s| {
            let p = s.products.governor.params(s.limit, s.window);
            format_seconds(p.replenish_1_per_ns / 1_000)
        },
    },
    Tunable {
        label: "Burst (allow_burst)",
        field: Field {
            name: "governor-burst",
            read: |p, v| set(&mut p.governor.burst, count(v, 1)),
            write: |p| whole_text(p.governor.burst),
        },
        in_force: |s| {
            let p = s.products.governor.params(s.limit, s.window);
            p.burst.to_string()
        },
    },
];

impl Fields {
    /// governor's quota: the fields set, the rest following the lab's limit and window.
    pub fn params(&self, limit: u64, window: Span) -> GovernorParams {
        let mut p = GovernorParams::defaults_for(limit, window);
        if let Some(period) = self.period {
            p.replenish_1_per_ns = period.micros().saturating_mul(1_000);
        }
        p.burst = self.burst.unwrap_or(p.burst);
        p
    }
}
