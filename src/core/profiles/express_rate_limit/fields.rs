//! The URL fields of express-rate-limit (`express-limit`, `express-window`, `express-headers`,
//! `express-legacy`, `express-status`): the parameters a person set, each optional so that unset it
//! follows the lab's limit and window through the profile's `defaults_for`, the rows that read and
//! write them in a link (their names, what each accepts and the refusal saying so), and the
//! product's parameters they make. The names and values are the product's own, as the header of the
//! product's module cites them; the shared readers are `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{
    count, on_off, on_off_text, seconds, seconds_text, set, whole_text, USING_DEFAULT,
};
use crate::core::profiles::Tunable;
use crate::core::time::{format_seconds, Span, MICROS_PER_MILLI};

use super::{ExpressRateLimitParams, StandardHeaders};

/// The `express-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    pub limit: Option<u64>,
    pub window: Option<Span>,
    pub headers: Option<StandardHeaders>,
    pub legacy: Option<bool>,
    pub status: Option<u16>,
}

/// The `express-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "Limit (limit)",
        field: Field {
            name: "express-limit",
            read: |p, v| set(&mut p.express_rate_limit.limit, count(v, 0)),
            write: |p| whole_text(p.express_rate_limit.limit),
        },
        in_force: |s| {
            let p = s.products.express_rate_limit.params(s.limit, s.window);
            p.limit.to_string()
        },
    },
    Tunable {
        label: "Window, s (windowMs / 1000)",
        field: Field {
            name: "express-window",
            read: |p, v| set(&mut p.express_rate_limit.window, seconds(v, false)),
            write: |p| seconds_text(p.express_rate_limit.window),
        },
        in_force: |s| {
            let p = s.products.express_rate_limit.params(s.limit, s.window);
            format_seconds(p.window_ms * MICROS_PER_MILLI)
        },
    },
    Tunable {
        label: "Headers (standardHeaders)",
        field: Field {
            name: "express-headers",
            read: |p, v| {
                let headers = StandardHeaders::parse(v).map_err(|_| {
                    format!("draft-6, draft-7, draft-8 or false (standardHeaders){USING_DEFAULT}")
                })?;
                set(&mut p.express_rate_limit.headers, Ok(headers))
            },
            write: |p| p.express_rate_limit.headers.map(|h| h.word().to_string()),
        },
        in_force: |s| {
            let p = s.products.express_rate_limit.params(s.limit, s.window);
            p.standard_headers.word().to_string()
        },
    },
    Tunable {
        label: "X-RateLimit headers (legacyHeaders)",
        field: Field {
            name: "express-legacy",
            read: |p, v| set(&mut p.express_rate_limit.legacy, on_off(v)),
            write: |p| on_off_text(p.express_rate_limit.legacy),
        },
        in_force: |s| {
            let p = s.products.express_rate_limit.params(s.limit, s.window);
            if p.legacy_headers { "on" } else { "off" }.to_string()
        },
    },
    Tunable {
        label: "Refusal status (statusCode)",
        field: Field {
            name: "express-status",
            read: |p, v| {
                let status = match v.trim().parse::<u16>() {
                    Ok(s) if (100..=999).contains(&s) => s,
                    _ => {
                        return Err(format!(
                            "a status from 100 to 999, as Node can write it{USING_DEFAULT}"
                        ))
                    }
                };
                set(&mut p.express_rate_limit.status, Ok(status))
            },
            write: |p| p.express_rate_limit.status.map(|s| s.to_string()),
        },
        in_force: |s| {
            let p = s.products.express_rate_limit.params(s.limit, s.window);
            p.status_code.to_string()
        },
    },
];

impl Fields {
    /// The middleware's options: the fields set, the rest following the lab's limit and window.
    pub fn params(&self, limit: u64, window: Span) -> ExpressRateLimitParams {
        let mut p = ExpressRateLimitParams::defaults_for(limit, window);
        p.limit = self.limit.unwrap_or(p.limit);
        if let Some(window) = self.window {
            p.window_ms = window.micros() / MICROS_PER_MILLI;
        }
        p.standard_headers = self.headers.unwrap_or(p.standard_headers);
        p.legacy_headers = self.legacy.unwrap_or(p.legacy_headers);
        p.status_code = self.status.unwrap_or(p.status_code);
        p
    }
}
