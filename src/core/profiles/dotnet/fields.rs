//! The URL fields of .NET's `System.Threading.RateLimiting` (`dotnet-limit`, `dotnet-window`,
//! `dotnet-segments`, `dotnet-per-period`, `dotnet-queue`, `dotnet-order`): the parameters a person
//! set, each optional so that unset it follows the lab's limit and window through the profile's
//! `defaults_for`, the rows that read and write them in a link (their names, what each accepts and
//! the refusal saying so), and the product's parameters they make. The names and values are the
//! product's own, as the header of the product's module cites them; the shared readers are
//! `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{
    count, seconds, seconds_text, set, whole_text, USING_DEFAULT,
};
use crate::core::profiles::Tunable;
use crate::core::time::{format_seconds, Span};

use super::{FixedWindowParams, QueueProcessingOrder, SlidingWindowParams, TokenBucketParams};

/// The `dotnet-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// `PermitLimit` of the fixed and sliding windows, `TokenLimit` of the token bucket.
    pub limit: Option<u64>,
    /// `Window` of the fixed and sliding windows, `ReplenishmentPeriod` of the token bucket.
    pub window: Option<Span>,
    pub segments: Option<u64>,
    pub per_period: Option<u64>,
    pub queue: Option<u64>,
    /// `QueueProcessingOrder` of all three.
    pub order: Option<QueueProcessingOrder>,
}

/// The `dotnet-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "PermitLimit / TokenLimit",
        field: Field {
            name: "dotnet-limit",
            read: |p, v| set(&mut p.dotnet.limit, count(v, 1)),
            write: |p| whole_text(p.dotnet.limit),
        },
        in_force: |s| {
            let p = s.products.dotnet.fixed(s.limit, s.window);
            p.permit_limit.to_string()
        },
    },
    Tunable {
        label: "Window / ReplenishmentPeriod, s",
        field: Field {
            name: "dotnet-window",
            read: |p, v| set(&mut p.dotnet.window, seconds(v, false)),
            write: |p| seconds_text(p.dotnet.window),
        },
        in_force: |s| {
            let p = s.products.dotnet.fixed(s.limit, s.window);
            format_seconds(p.window.micros())
        },
    },
    Tunable {
        label: "SegmentsPerWindow",
        field: Field {
            name: "dotnet-segments",
            read: |p, v| set(&mut p.dotnet.segments, count(v, 1)),
            write: |p| whole_text(p.dotnet.segments),
        },
        in_force: |s| {
            let p = s.products.dotnet.sliding(s.limit, s.window);
            p.segments_per_window.to_string()
        },
    },
    Tunable {
        label: "TokensPerPeriod",
        field: Field {
            name: "dotnet-per-period",
            read: |p, v| set(&mut p.dotnet.per_period, count(v, 1)),
            write: |p| whole_text(p.dotnet.per_period),
        },
        in_force: |s| {
            let p = s.products.dotnet.token(s.limit, s.window);
            p.tokens_per_period.to_string()
        },
    },
    Tunable {
        label: "QueueLimit",
        field: Field {
            name: "dotnet-queue",
            read: |p, v| set(&mut p.dotnet.queue, count(v, 0)),
            write: |p| whole_text(p.dotnet.queue),
        },
        in_force: |s| {
            let p = s.products.dotnet.fixed(s.limit, s.window);
            p.queue_limit.to_string()
        },
    },
    Tunable {
        label: "QueueProcessingOrder",
        field: Field {
            name: "dotnet-order",
            read: |p, v| {
                let order = match v.trim() {
                    "oldest" => QueueProcessingOrder::OldestFirst,
                    "newest" => QueueProcessingOrder::NewestFirst,
                    _ => {
                        return Err(format!(
                            "oldest or newest (QueueProcessingOrder){USING_DEFAULT}"
                        ))
                    }
                };
                set(&mut p.dotnet.order, Ok(order))
            },
            write: |p| {
                p.dotnet.order.map(|o| match o {
                    QueueProcessingOrder::OldestFirst => "oldest".to_string(),
                    QueueProcessingOrder::NewestFirst => "newest".to_string(),
                })
            },
        },
        in_force: |s| {
            let p = s.products.dotnet.fixed(s.limit, s.window);
            match p.queue_processing_order {
                QueueProcessingOrder::OldestFirst => "oldest",
                QueueProcessingOrder::NewestFirst => "newest",
            }
            .to_string()
        },
    },
];

impl Fields {
    /// `FixedWindowRateLimiterOptions`: the fields set, the rest following the lab's limit and
    /// window.
    pub fn fixed(&self, limit: u64, window: Span) -> FixedWindowParams {
        let mut p = FixedWindowParams::defaults_for(limit, window);
        p.permit_limit = self.limit.unwrap_or(p.permit_limit);
        p.window = self.window.unwrap_or(p.window);
        p.queue_limit = self.queue.unwrap_or(p.queue_limit);
        p.queue_processing_order = self.order.unwrap_or(p.queue_processing_order);
        p
    }

    /// `SlidingWindowRateLimiterOptions`, the same way.
    pub fn sliding(&self, limit: u64, window: Span) -> SlidingWindowParams {
        let mut p = SlidingWindowParams::defaults_for(limit, window);
        p.permit_limit = self.limit.unwrap_or(p.permit_limit);
        p.window = self.window.unwrap_or(p.window);
        p.segments_per_window = self.segments.unwrap_or(p.segments_per_window);
        p.queue_limit = self.queue.unwrap_or(p.queue_limit);
        p.queue_processing_order = self.order.unwrap_or(p.queue_processing_order);
        p
    }

    /// `TokenBucketRateLimiterOptions`, the same way.
    pub fn token(&self, limit: u64, window: Span) -> TokenBucketParams {
        let mut p = TokenBucketParams::defaults_for(limit, window);
        p.token_limit = self.limit.unwrap_or(p.token_limit);
        p.replenishment_period = self.window.unwrap_or(p.replenishment_period);
        p.tokens_per_period = self.per_period.unwrap_or(p.tokens_per_period);
        p.queue_limit = self.queue.unwrap_or(p.queue_limit);
        p.queue_processing_order = self.order.unwrap_or(p.queue_processing_order);
        p
    }
}
