//! The URL fields of Python's `limits` (`limits-amount`, `limits-multiples`, `limits-per`): the
//! parameters a person set, each optional so that unset it follows the lab's limit and window
//! through the profile's `defaults_for`, the rows that read and write them in a link (their names,
//! what each accepts and the refusal saying so), and the product's parameters they make. The names
//! and values are the product's own, as the header of the product's module cites them; the shared
//! readers are `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{count, set, whole_text, USING_DEFAULT};
use crate::core::profiles::Tunable;
use crate::core::time::Span;

use super::{Granularity, PyLimitsParams};

/// The `limits-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// `PermitLimit` of the fixed and sliding windows, `TokenLimit` of the token bucket.
    pub amount: Option<u64>,
    pub multiples: Option<u64>,
    pub per: Option<Granularity>,
}

/// The `limits-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "Amount (\"N per ...\")",
        field: Field {
            name: "limits-amount",
            read: |p, v| set(&mut p.python_limits.amount, count(v, 0)),
            write: |p| whole_text(p.python_limits.amount),
        },
        in_force: |s| {
            let p = s.products.python_limits.params(s.limit, s.window);
            p.amount.to_string()
        },
    },
    Tunable {
        label: "Multiples (\"... per N ...\")",
        field: Field {
            name: "limits-multiples",
            read: |p, v| set(&mut p.python_limits.multiples, count(v, 1)),
            write: |p| whole_text(p.python_limits.multiples),
        },
        in_force: |s| {
            let p = s.products.python_limits.params(s.limit, s.window);
            p.multiples.to_string()
        },
    },
    Tunable {
        label: "Per (second, minute, ...)",
        field: Field {
            name: "limits-per",
            read: |p, v| {
                let per = Granularity::from_name(v).ok_or_else(|| {
                    format!("second, minute, hour, day, month or year{USING_DEFAULT}")
                })?;
                set(&mut p.python_limits.per, Ok(per))
            },
            write: |p| p.python_limits.per.map(|g| g.name().to_string()),
        },
        in_force: |s| {
            let p = s.products.python_limits.params(s.limit, s.window);
            p.granularity.name().to_string()
        },
    },
];

impl Fields {
    /// The item `limits-amount per limits-multiples limits-per`; unset, the lab's limit per
    /// window (one of `limits-per`, when only that is set).
    pub fn params(&self, limit: u64, window: Span) -> PyLimitsParams {
        let d = PyLimitsParams::defaults_for(limit, window);
        let (multiples, per) = match self.per {
            Some(per) => (self.multiples.unwrap_or(1), per),
            None => (self.multiples.unwrap_or(d.multiples), d.granularity),
        };
        PyLimitsParams::new(self.amount.unwrap_or(d.amount), multiples, per)
    }
}
