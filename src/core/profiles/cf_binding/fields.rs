//! The URL fields of Cloudflare's Rate Limiting binding (`cf-limit`, `cf-period`): the parameters a
//! person set, each optional so that unset it follows the lab's limit and window through the
//! profile's `defaults_for`, the rows that read and write them in a link (their names, what each
//! accepts and the refusal saying so), and the product's parameters they make. The names and values
//! are the product's own, as the header of the product's module cites them; the shared readers are
//! `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{count, set, whole_text, USING_DEFAULT};
use crate::core::profiles::Tunable;
use crate::core::time::Span;

use super::CfBindingParams;

/// The `cf-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    pub limit: Option<u64>,
    pub period: Option<u64>,
}

/// The `cf-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "Limit (simple.limit)",
        field: Field {
            name: "cf-limit",
            read: |p, v| set(&mut p.cf_binding.limit, count(v, 1)),
            write: |p| whole_text(p.cf_binding.limit),
        },
        in_force: |s| {
            let p = s.products.cf_binding.params(s.limit, s.window);
            p.limit.to_string()
        },
    },
    Tunable {
        label: "Period, s (simple.period)",
        field: Field {
            name: "cf-period",
            read: |p, v| {
                let period = match v.trim() {
                    "10" => 10,
                    "60" => 60,
                    _ => {
                        return Err(format!(
                            "10 or 60: the only periods the binding accepts{USING_DEFAULT}"
                        ))
                    }
                };
                set(&mut p.cf_binding.period, Ok(period))
            },
            write: |p| whole_text(p.cf_binding.period),
        },
        in_force: |s| {
            let p = s.products.cf_binding.params(s.limit, s.window);
            p.period_secs.to_string()
        },
    },
];

impl Fields {
    /// The binding's `simple` settings: the fields set, the rest following the lab's limit and
    /// window.
    pub fn params(&self, limit: u64, window: Span) -> CfBindingParams {
        let mut p = CfBindingParams::defaults_for(limit, window);
        p.limit = self.limit.unwrap_or(p.limit);
        p.period_secs = self.period.unwrap_or(p.period_secs);
        p
    }
}
