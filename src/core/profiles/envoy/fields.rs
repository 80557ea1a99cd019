//! The URL fields of Envoy's local rate limit (`envoy-max`, `envoy-fill`, `envoy-interval`,
//! `envoy-refill`): the parameters a person set, each optional so that unset it follows the lab's
//! limit and window through the profile's `defaults_for`, the rows that read and write them in a
//! link (their names, what each accepts and the refusal saying so), and the product's parameters
//! they make. The names and values are the product's own, as the header of the product's module
//! cites them; the shared readers are `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{
    count, seconds, seconds_text, set, whole_text, USING_DEFAULT,
};
use crate::core::profiles::Tunable;
use crate::core::time::{format_seconds, Span};

use super::{EnvoyParams, EnvoyRefill};

/// The `envoy-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    pub max: Option<u64>,
    pub fill: Option<u64>,
    pub interval: Option<Span>,
    pub refill: Option<EnvoyRefill>,
}

/// The `envoy-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "Bucket size (max_tokens)",
        field: Field {
            name: "envoy-max",
            read: |p, v| set(&mut p.envoy.max, count(v, 1)),
            write: |p| whole_text(p.envoy.max),
        },
        in_force: |s| {
            let p = s.products.envoy.params(s.limit, s.window);
            p.max_tokens.to_string()
        },
    },
    Tunable {
        label: "Tokens per fill (tokens_per_fill)",
        field: Field {
            name: "envoy-fill",
            read: |p, v| set(&mut p.envoy.fill, count(v, 1)),
            write: |p| whole_text(p.envoy.fill),
        },
        in_force: |s| {
            let p = s.products.envoy.params(s.limit, s.window);
            p.tokens_per_fill.to_string()
        },
    },
    Tunable {
        label: "Fill interval, s (fill_interval)",
        field: Field {
            name: "envoy-interval",
            read: |p, v| set(&mut p.envoy.interval, seconds(v, false)),
            write: |p| seconds_text(p.envoy.interval),
        },
        in_force: |s| {
            let p = s.products.envoy.params(s.limit, s.window);
            format_seconds(p.fill_interval.micros())
        },
    },
    Tunable {
        label: "Refill: continuous or timer",
        field: Field {
            name: "envoy-refill",
            read: |p, v| {
                let refill = match v.trim() {
                    "continuous" => EnvoyRefill::Continuous,
                    "timer" => EnvoyRefill::Timer,
                    _ => return Err(format!("continuous or timer{USING_DEFAULT}")),
                };
                set(&mut p.envoy.refill, Ok(refill))
            },
            write: |p| {
                p.envoy.refill.map(|r| match r {
                    EnvoyRefill::Continuous => "continuous".to_string(),
                    EnvoyRefill::Timer => "timer".to_string(),
                })
            },
        },
        in_force: |s| {
            let p = s.products.envoy.params(s.limit, s.window);
            match p.refill {
                EnvoyRefill::Continuous => "continuous",
                EnvoyRefill::Timer => "timer",
            }
            .to_string()
        },
    },
];

impl Fields {
    /// The token bucket's parameters: the fields set, the rest following the lab's limit and
    /// window.
    pub fn params(&self, limit: u64, window: Span) -> EnvoyParams {
        let mut p = EnvoyParams::defaults_for(limit, window);
        p.max_tokens = self.max.unwrap_or(p.max_tokens);
        p.tokens_per_fill = self.fill.unwrap_or(p.tokens_per_fill);
        p.fill_interval = self.interval.unwrap_or(p.fill_interval);
        p.refill = self.refill.unwrap_or(p.refill);
        p
    }
}
