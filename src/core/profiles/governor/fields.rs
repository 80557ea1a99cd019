//! The URL fields of governor (`governor-period`, `governor-burst`): the parameters a person set,
//! each optional so that unset it follows the lab's limit and window through the profile's
//! `defaults_for`, the rows that read and write them in a link (their names, what each accepts and
//! the refusal saying so), and the product's parameters they make. The names and values are the
//! product's own, as the header of the product's module cites them; the shared readers are
//! `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{count, nanos, nanos_text, set, whole_text};
use crate::core::profiles::Tunable;
use crate::core::time::Span;

use super::GovernorParams;

/// The `governor-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// governor's replenish interval in nanoseconds, as its `Quota` keeps it: one cell per this
    /// long.
    pub period_ns: Option<u64>,
    pub burst: Option<u64>,
}

/// The `governor-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "Replenish one every, s (Quota::with_period)",
        field: Field {
            name: "governor-period",
            read: |p, v| set(&mut p.governor.period_ns, nanos(v)),
            write: |p| p.governor.period_ns.map(nanos_text),
        },
        in_force: |s| {
            let p = s.products.governor.params(s.limit, s.window);
            nanos_text(p.replenish_1_per_ns)
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
        if let Some(period_ns) = self.period_ns {
            p.replenish_1_per_ns = period_ns;
        }
        p.burst = self.burst.unwrap_or(p.burst);
        p
    }
}
