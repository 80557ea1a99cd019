//! The URL fields of nginx's `limit_req` (`nginx-rate`, `nginx-burst`, `nginx-delay`,
//! `nginx-status`): the parameters a person set, each optional so that unset it follows the lab's
//! limit and window through the profile's `defaults_for`, the rows that read and write them in a
//! link (their names, what each accepts and the refusal saying so), and the product's parameters
//! they make. The names and values are the product's own, as the header of the product's module
//! cites them; the shared readers are `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{count, set, whole_text, USING_DEFAULT};
use crate::core::profiles::Tunable;
use crate::core::time::Span;

use super::{parse_rate, NginxDelay, NginxParams, NginxRate};

/// The `nginx-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    pub rate: Option<NginxRate>,
    pub burst: Option<u64>,
    pub delay: Option<NginxDelay>,
    pub status: Option<u16>,
}

/// The `nginx-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "Rate (rate=)",
        field: Field {
            name: "nginx-rate",
            read: |p, v| {
                let rate = parse_rate(v.trim()).map_err(|e| {
                    format!("{e}; write it as nginx does, e.g. 10r/s or 30r/m{USING_DEFAULT}")
                })?;
                p.nginx.rate = Some(rate);
                Ok(())
            },
            write: |p| p.nginx.rate.map(|r| r.to_string()),
        },
        in_force: |s| {
            let p = s.products.nginx.params(s.limit, s.window);
            p.rate.to_string()
        },
    },
    Tunable {
        label: "Burst (burst=)",
        field: Field {
            name: "nginx-burst",
            read: |p, v| set(&mut p.nginx.burst, count(v, 0)),
            write: |p| whole_text(p.nginx.burst),
        },
        in_force: |s| {
            let p = s.products.nginx.params(s.limit, s.window);
            p.burst.to_string()
        },
    },
    Tunable {
        label: "Delay (delay= or nodelay)",
        field: Field {
            name: "nginx-delay",
            read: |p, v| {
                let delay = match v.trim() {
                    "nodelay" => NginxDelay::NoDelay,
                    n => NginxDelay::Delay(count(n, 0).map_err(|e| format!("nodelay or {e}"))?),
                };
                set(&mut p.nginx.delay, Ok(delay))
            },
            write: |p| {
                p.nginx.delay.map(|d| match d {
                    NginxDelay::NoDelay => "nodelay".to_string(),
                    NginxDelay::Delay(n) => n.to_string(),
                })
            },
        },
        in_force: |s| {
            let p = s.products.nginx.params(s.limit, s.window);
            match p.delay {
                NginxDelay::NoDelay => "nodelay".to_string(),
                NginxDelay::Delay(n) => n.to_string(),
            }
        },
    },
    Tunable {
        label: "Refusal status (limit_req_status)",
        field: Field {
            name: "nginx-status",
            read: |p, v| {
                let status = match v.trim().parse::<u16>() {
                    Ok(s) if (400..=599).contains(&s) => s,
                    _ => {
                        return Err(format!(
                            "a status from 400 to 599, as limit_req_status accepts{USING_DEFAULT}"
                        ))
                    }
                };
                set(&mut p.nginx.status, Ok(status))
            },
            write: |p| p.nginx.status.map(|s| s.to_string()),
        },
        in_force: |s| {
            let p = s.products.nginx.params(s.limit, s.window);
            p.status.to_string()
        },
    },
];

impl Fields {
    /// nginx's parameters: the fields set, the rest following the lab's limit and window.
    pub fn params(&self, limit: u64, window: Span) -> NginxParams {
        let mut p = NginxParams::defaults_for(limit, window);
        p.rate = self.rate.unwrap_or(p.rate);
        p.burst = self.burst.unwrap_or(p.burst);
        p.delay = self.delay.unwrap_or(p.delay);
        p.status = self.status.unwrap_or(p.status);
        p
    }
}
