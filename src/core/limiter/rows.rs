//! The list of the lab's rows, one line each, in the order the page shows them: the six
//! textbook algorithms (their descriptors in `super::textbook`), then the products (each
//! descriptor, a `profiles::ProductRow`, in the product's own module under
//! `core::profiles`). A line names the row's variant, the type of one key's limiter state, and
//! the descriptor.
//!
//! The `rows!` macro makes from the list, so that no other code names a row: the enum
//! [`Algorithm`] and `Algorithm::ALL`; every `Algorithm` method that reads a row's piece (one
//! generated `match` that lists every row); the enum [`AnyLimiter`] of one key's state, a
//! variant per row, unboxed for the textbook algorithms so that a run matches the algorithm once
//! and decides with its inlined arithmetic; and `each!`, the one dispatch over its variants that
//! `super` uses. Without the feature `products` (the page's first module) a product line keeps
//! its names (slug, label, family, the sentences about it) and builds nothing: its limiter
//! answers `ConfigError::ProductsNotBuilt` and none of its code is reachable.

use super::textbook;
use super::Settings;
use crate::core::config::ConfigError;
use crate::core::decision::Decision;
use crate::core::http::HttpResponse;
use crate::core::profiles::ProductReply;
use crate::core::profiles::{Explanation, Family, SnippetOf, Told};
use crate::core::time::Time;

use crate::core::algorithms::{
    FixedWindow, Gcra, LeakyBucket, SlidingCounter, SlidingLog, TokenBucket,
};

/// `$yes` in a build with the product profiles, `$no` without them.
#[cfg(feature = "products")]
macro_rules! built {
    ($yes:expr, $no:expr) => {
        $yes
    };
}
#[cfg(not(feature = "products"))]
macro_rules! built {
    ($yes:expr, $no:expr) => {
        $no
    };
}

macro_rules! rows {
    (
        $d:tt
        textbook { $( $t:ident($tty:ty) => $trow:expr, )* }
        products { $( $p:ident($pty:ty) => $prow:expr, )* }
    ) => {
        /// Every row the lab runs, in the order rows are shown.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Algorithm {
            $( $t, )*
            $( $p, )*
        }

        /// How many rows the list has.
        const ROW_COUNT: usize = [$( stringify!($t), )* $( stringify!($p), )*].len();

        impl Algorithm {
            /// Every row, in the order rows are shown.
            pub const ALL: [Algorithm; ROW_COUNT] = [$( Algorithm::$t, )* $( Algorithm::$p, )*];

            /// True for an exact profile of a product, whose own reply the inspector shows.
            pub fn is_product(self) -> bool {
                match self {
                    $( Algorithm::$t => false, )*
                    $( Algorithm::$p => true, )*
                }
            }

            /// The name used in URLs (`algos=`) and in `data-testid="stats-<slug>"`.
            pub fn slug(self) -> &'static str {
                match self {
                    $( Algorithm::$t => $trow.slug, )*
                    $( Algorithm::$p => $prow.slug, )*
                }
            }

            /// The name shown to a person.
            pub fn label(self) -> &'static str {
                match self {
                    $( Algorithm::$t => $trow.label, )*
                    $( Algorithm::$p => $prow.label, )*
                }
            }

            /// A product's family (the prefix of its URL fields, `profiles::settings::FIELDS`,
            /// and the name the page groups them under); `None` for the textbook algorithms.
            pub fn family(self) -> Option<Family> {
                match self {
                    $( Algorithm::$t => None, )*
                    $( Algorithm::$p => Some($prow.family), )*
                }
            }

            /// Builds a fresh limiter for one key.
            pub fn build(self, settings: &Settings) -> Result<AnyLimiter, ConfigError> {
                // Every row refuses a zero limit or window alike, whatever its own fields say.
                settings.quota()?;
                match self {
                    $( Algorithm::$t => ($trow.build)(settings), )*
                    $( Algorithm::$p => built!(
                        Ok(AnyLimiter::$p((($prow.build)(&settings.row_settings())?).into())),
                        Err(ConfigError::ProductsNotBuilt)
                    ), )*
                }
            }

            /// The response the row sends for `decision` under `settings`; `reply` is a
            /// product's own reply.
            pub fn response(
                self,
                settings: &Settings,
                decision: &Decision,
                reply: &ProductReply,
            ) -> HttpResponse {
                match self {
                    $( Algorithm::$t => ($trow.response)(settings, decision), )*
                    $( Algorithm::$p => built!(
                        ($prow.response)(&settings.row_settings(), decision, reply),
                        textbook::not_built_response(settings, decision, reply)
                    ), )*
                }
            }

            /// What the row tells the client whose request `decision` refused at `now`.
            pub fn told(
                self,
                settings: &Settings,
                now: Time,
                decision: &Decision,
                reply: &ProductReply,
            ) -> Told {
                match self {
                    $( Algorithm::$t => ($trow.told)(decision), )*
                    $( Algorithm::$p => built!(
                        textbook::product_told(
                            $prow.hint,
                            now,
                            decision,
                            reply,
                            || self.response(settings, decision, reply),
                        ),
                        {
                            let _ = now;
                            textbook::header_told(&self.response(settings, decision, reply))
                        }
                    ), )*
                }
            }

            /// What the row tells a refused client, in words.
            pub fn tells(self) -> &'static str {
                match self {
                    $( Algorithm::$t => $trow.tells, )*
                    $( Algorithm::$p => $prow.tells, )*
                }
            }

            /// The row's explanation with the parameters in `settings`.
            pub fn explain(self, settings: &Settings) -> Explanation {
                match self {
                    $( Algorithm::$t => ($trow.explain)(settings), )*
                    $( Algorithm::$p => built!(
                        ($prow.explain)(&settings.row_settings()),
                        textbook::not_built_explanation()
                    ), )*
                }
            }

            /// The row's "Use these settings", or the statement that it has none.
            pub fn snippet(self) -> SnippetOf {
                match self {
                    $( Algorithm::$t => $trow.snippet, )*
                    $( Algorithm::$p => built!($prow.snippet, textbook::NOT_BUILT_SNIPPET), )*
                }
            }

            /// Whether the page draws the row's level strip (the token bucket's tokens, the
            /// sliding log's entries).
            pub fn draws_level(self) -> bool {
                match self {
                    $( Algorithm::$t => $trow.draws_level, )*
                    $( Algorithm::$p => false, )*
                }
            }

            /// Where copies of the row are the product's own behaviour, the sentence saying so.
            pub fn copies_note(self) -> Option<&'static str> {
                match self {
                    $( Algorithm::$t => None, )*
                    $( Algorithm::$p => $prow.copies, )*
                }
            }

            /// For a row that counts refused requests when told to (`count-refused=1`), the
            /// sentence of what counting its refusals did, from its refusals and passes.
            pub fn counts_refused_note(self) -> Option<fn(u64, u64) -> String> {
                match self {
                    $( Algorithm::$t => $trow.counts_refused, )*
                    $( Algorithm::$p => None, )*
                }
            }

            /// The row's own last note under `settings` (the fixed window's windows started at a
            /// key's first request).
            pub fn own_note(self, settings: &Settings) -> Option<String> {
                match self {
                    $( Algorithm::$t => ($trow.own_note)(settings), )*
                    $( Algorithm::$p => None, )*
                }
            }
        }

        /// Any row's per-key state, a variant per row, dispatched without a virtual call.
        #[derive(Clone, Debug)]
        pub enum AnyLimiter {
            $( $t($tty), )*
            $( #[cfg(feature = "products")] $p($pty), )*
        }

        /// `$d l => textbook ; product`: the one dispatch over [`AnyLimiter`]'s variants, with
        /// the textbook algorithms' arm and the products' (both the same when only one is
        /// given).
        macro_rules! each {
            ($d self_:expr, $d l:ident => $d textbook:expr ; $d product:expr) => {
                match $d self_ {
                    $( AnyLimiter::$t($d l) => $d textbook, )*
                    $( #[cfg(feature = "products")] AnyLimiter::$p($d l) => $d product, )*
                }
            };
            ($d self_:expr, $d l:ident => $d body:expr) => {
                each!($d self_, $d l => $d body ; $d body)
            };
        }
        pub(super) use each;
    };
}

use crate::core::profiles::{
    cf_binding, dotnet, envoy, express_rate_limit, governor, guava, nginx, python_limits,
    redis_cell, upstash, x_time_rate,
};
#[cfg(feature = "products")]
use crate::core::profiles::{
    cf_binding::CfRateLimitBinding,
    dotnet::DotnetLimiter,
    envoy::EnvoyLocalRateLimit,
    express_rate_limit::ExpressRateLimit,
    governor::Governor,
    guava::Guava,
    nginx::NginxLimitReq,
    python_limits::{
        FixedWindowRateLimiter, MovingWindowRateLimiter, SlidingWindowCounterRateLimiter,
    },
    redis_cell::RedisCell,
    upstash::Upstash,
    x_time_rate::XTimeRate,
};

rows! {
    $
    textbook {
        FixedWindow(FixedWindow) => textbook::FIXED_WINDOW,
        SlidingLog(SlidingLog) => textbook::SLIDING_LOG,
        SlidingCounter(SlidingCounter) => textbook::SLIDING_COUNTER,
        TokenBucket(TokenBucket) => textbook::TOKEN_BUCKET,
        Gcra(Gcra) => textbook::GCRA,
        LeakyBucket(LeakyBucket) => textbook::LEAKY_BUCKET,
    }
    products {
        Nginx(NginxLimitReq) => nginx::ROW,
        Governor(Governor) => governor::ROW,
        RedisCell(RedisCell) => redis_cell::ROW,
        // Boxed: its ephemeral cache and two windows make it several times larger than the others.
        UpstashFixed(Box<Upstash>) => upstash::FIXED_ROW,
        UpstashSliding(Box<Upstash>) => upstash::SLIDING_ROW,
        UpstashToken(Box<Upstash>) => upstash::TOKEN_ROW,
        Envoy(EnvoyLocalRateLimit) => envoy::ROW,
        CfBinding(CfRateLimitBinding) => cf_binding::ROW,
        XTimeRate(XTimeRate) => x_time_rate::ROW,
        // Boxed, as the ones below: they hold their texts, logs or queues inline.
        ExpressRateLimit(Box<ExpressRateLimit>) => express_rate_limit::ROW,
        LimitsFixed(Box<FixedWindowRateLimiter>) => python_limits::FIXED_ROW,
        LimitsMoving(Box<MovingWindowRateLimiter>) => python_limits::MOVING_ROW,
        LimitsSliding(Box<SlidingWindowCounterRateLimiter>) => python_limits::SLIDING_ROW,
        DotnetFixed(Box<DotnetLimiter>) => dotnet::FIXED_ROW,
        DotnetSliding(Box<DotnetLimiter>) => dotnet::SLIDING_ROW,
        DotnetToken(Box<DotnetLimiter>) => dotnet::TOKEN_ROW,
        Guava(Guava) => guava::ROW,
    }
}
