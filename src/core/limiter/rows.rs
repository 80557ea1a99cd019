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
//! and decides with its inlined arithmetic; `each!`, the one dispatch over its variants that
//! `super` uses; and the trait [`Parts`] with its two sets of parts, [`Complete`] and
//! [`TextbookOnly`]. `AnyLimiter<C>` holds a product's state as `C`'s type for that row: the
//! product's limiter in `Complete`, the uninhabited `Absent` in `TextbookOnly`, so that in a
//! program built with `TextbookOnly` (the page's first module) the products' arms of every
//! `match` are dropped when it is compiled, at no cost to the rows' speed where they are linked.
//! There a product line keeps its names (slug, label, family, the sentences about it) and builds
//! nothing: its limiter answers `ConfigError::ProductsNotBuilt`.
//!
//! The products' URL fields are joined here from the list too: each product's family names its
//! field rows (`profiles::Family::fields`, in the product's `fields.rs`), and
//! [`PRODUCT_FIELDS`] is every family's rows, once per family, in the order of the list, which is
//! the order a link writes them. The first view's module keeps these rows (a link read there
//! keeps its product fields), as it keeps a row's names.

use super::textbook;
use super::{Absent, ProductState, Settings};
use crate::core::config::ConfigError;
use crate::core::decision::Decision;
use crate::core::field::Field;
use crate::core::http::HttpResponse;
use crate::core::linking::Linking;
use crate::core::profiles::config_text::ConfigOf;
use crate::core::profiles::ProductReply;
use crate::core::profiles::RowSettings;
use crate::core::profiles::{Explanation, Family, ProductSettings, SnippetOf, Told};
use crate::core::time::Time;
use std::fmt;

use crate::core::algorithms::{
    FixedWindow, Gcra, LeakyBucket, SlidingCounter, SlidingLog, TokenBucket,
};

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

        /// Every product row's family, in the order of the list (a family of several rows once
        /// per row).
        const PRODUCT_FAMILIES: &[Family] = &[$( $prow.family, )*];

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

            /// The row's own parameters in few words, where they say more than the lab's limit
            /// and window (the leaky bucket's and nginx's `burst=`), in a program that links `C`.
            pub fn terms<C: Parts>(self, settings: &Settings) -> Option<String> {
                match self {
                    $( Algorithm::$t => ($trow.terms)(settings), )*
                    $( Algorithm::$p => match C::PRODUCTS {
                        true => ($prow.terms)(&settings.row_settings()),
                        false => None,
                    }, )*
                }
            }

            /// A product's family (the prefix of its URL fields, its rows of [`PRODUCT_FIELDS`],
            /// and the name the page groups them under); `None` for the textbook algorithms.
            pub fn family(self) -> Option<Family> {
                match self {
                    $( Algorithm::$t => None, )*
                    $( Algorithm::$p => Some($prow.family), )*
                }
            }

            /// The reader of the product's own config, in a program that links the products
            /// (`C`); `None` for the textbook algorithms and in a program without the products.
            pub fn config<C: Parts>(self) -> Option<ConfigOf> {
                match self {
                    $( Algorithm::$t => None, )*
                    $( Algorithm::$p => match C::PRODUCTS {
                        true => Some($prow.config),
                        false => None,
                    }, )*
                }
            }

            /// Builds a fresh limiter for one key, in a program that links the parts `C`.
            pub fn build_with<C: Parts>(
                self,
                settings: &Settings,
            ) -> Result<AnyLimiter<C>, ConfigError> {
                // Every row refuses a zero limit or window alike, whatever its own fields say.
                settings.quota()?;
                match self {
                    $( Algorithm::$t => Ok(AnyLimiter::$t(($trow.build)(settings)?)), )*
                    $( Algorithm::$p )|* => C::build_product(self, &settings.row_settings()),
                }
            }

            /// Builds a fresh limiter for one key, every part linked.
            pub fn build(self, settings: &Settings) -> Result<AnyLimiter, ConfigError> {
                self.build_with::<Complete>(settings)
            }

            /// The response the row sends for `decision` under `settings`; `reply` is a
            /// product's own reply.
            pub fn response<C: Parts>(
                self,
                settings: &Settings,
                decision: &Decision,
                reply: &ProductReply,
            ) -> HttpResponse {
                match self {
                    $( Algorithm::$t => ($trow.response)(settings, decision), )*
                    $( Algorithm::$p => match C::PRODUCTS {
                        true => ($prow.response)(&settings.row_settings(), decision, reply),
                        false => textbook::not_built_response(settings, decision),
                    }, )*
                }
            }

            /// What the row tells the client whose request `decision` refused at `now`.
            pub fn told<C: Parts>(
                self,
                settings: &Settings,
                now: Time,
                decision: &Decision,
                reply: &ProductReply,
            ) -> Told {
                match self {
                    $( Algorithm::$t => ($trow.told)(decision), )*
                    $( Algorithm::$p => match C::PRODUCTS {
                        true => textbook::product_told($prow.hint, now, decision, reply, || {
                            self.response::<C>(settings, decision, reply)
                        }),
                        false => textbook::header_told(&self.response::<C>(settings, decision, reply)),
                    }, )*
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
            pub fn explain<C: Parts>(self, settings: &Settings) -> Explanation {
                match self {
                    $( Algorithm::$t => ($trow.explain)(settings), )*
                    $( Algorithm::$p => match C::PRODUCTS {
                        true => ($prow.explain)(&settings.row_settings()),
                        false => textbook::not_built_explanation(),
                    }, )*
                }
            }

            /// The row's "Use these settings", or the statement that it has none.
            pub fn snippet<C: Parts>(self) -> SnippetOf {
                match self {
                    $( Algorithm::$t => $trow.snippet, )*
                    $( Algorithm::$p => match C::PRODUCTS {
                        true => $prow.snippet,
                        false => textbook::NOT_BUILT_SNIPPET,
                    }, )*
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

        /// Which parts a program links beyond the six textbook algorithms: whether it runs the
        /// product rows, with the type of one key's state for each (uninhabited, [`Absent`],
        /// where it leaves them out), and whether it runs the rules (copies, a second limit,
        /// obeying clients). A program names its parts where it is put together; the core
        /// compiles one way, and the code of a part a program leaves out is never instantiated.
        pub trait Parts: Linking + Clone + fmt::Debug {
            $( type $p: ProductState; )*
            /// A fresh limiter for the product row `row`.
            fn build_product(row: Algorithm, s: &RowSettings) -> Result<AnyLimiter<Self>, ConfigError>;
        }

        /// Every part: the products and the rules (the complete page module, the command line,
        /// the tests).
        #[derive(Clone, Copy, Debug)]
        pub struct Complete;

        impl Linking for Complete {
            const PRODUCTS: bool = true;
            const RULES: bool = true;
            const DURABLE: bool = true;
        }

        impl Parts for Complete {
            $( type $p = $pty; )*
            fn build_product(row: Algorithm, s: &RowSettings) -> Result<AnyLimiter<Self>, ConfigError> {
                match row {
                    $( Algorithm::$t )|* => Err(ConfigError::ProductsNotBuilt),
                    $( Algorithm::$p => Ok(AnyLimiter::$p((($prow.build)(s)?).into())), )*
                }
            }
        }

        /// The six textbook algorithms alone, without the rules or the Durable Object: a product
        /// row keeps its names and URL fields and builds nothing (`ConfigError::ProductsNotBuilt`).
        #[derive(Clone, Copy, Debug)]
        pub struct TextbookOnly;

        impl Linking for TextbookOnly {
            const PRODUCTS: bool = false;
            const RULES: bool = false;
            const DURABLE: bool = false;
        }

        /// The six textbook algorithms and the Durable Object's emulation, without the products
        /// or the rules.
        #[derive(Clone, Copy, Debug)]
        pub struct TextbookAndDurableObject;

        impl Linking for TextbookAndDurableObject {
            const PRODUCTS: bool = false;
            const RULES: bool = false;
            const DURABLE: bool = true;
        }

        /// The parts without the products: every product row's state is [`Absent`].
        macro_rules! without_products {
            ($d($d parts:ty),*) => {$d(
                impl Parts for $d parts {
                    $( type $p = Absent; )*
                    fn build_product(_: Algorithm, _: &RowSettings) -> Result<AnyLimiter<Self>, ConfigError> {
                        Err(ConfigError::ProductsNotBuilt)
                    }
                }
            )*};
        }
        without_products!(TextbookOnly, TextbookAndDurableObject);

        /// Any row's per-key state, a variant per row, dispatched without a virtual call; `C`
        /// says which product states can exist.
        #[derive(Clone, Debug)]
        pub enum AnyLimiter<C: Parts = Complete> {
            $( $t($tty), )*
            $( $p(C::$p), )*
        }

        /// `$d l => textbook ; product`: the one dispatch over [`AnyLimiter`]'s variants, with
        /// the textbook algorithms' arm and the products' (both the same when only one is
        /// given).
        macro_rules! each {
            ($d self_:expr, $d l:ident => $d textbook:expr ; $d product:expr) => {
                match $d self_ {
                    $( AnyLimiter::$t($d l) => $d textbook, )*
                    $( AnyLimiter::$p($d l) => $d product, )*
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

/// Every product field, in the order a link writes them: each family's rows
/// (`profiles::Family::fields`), family by family in the order of the list. The URL layer
/// iterates it and the README documents it.
pub const PRODUCT_FIELDS: &[Field<ProductSettings>] =
    &joined_fields::<{ joined_len(PRODUCT_FAMILIES) }>(PRODUCT_FAMILIES);

/// Whether `families[i]` is the first row of its family (the same prefix) in the list.
const fn first_of_family(families: &[Family], i: usize) -> bool {
    let mut j = 0;
    while j < i {
        if same_text(families[j].prefix, families[i].prefix) {
            return false;
        }
        j += 1;
    }
    true
}

const fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// How many rows the families' tables have, each family counted once.
const fn joined_len(families: &[Family]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < families.len() {
        if first_of_family(families, i) {
            n += families[i].fields.len();
        }
        i += 1;
    }
    n
}

/// The families' tables one after the other, each family once; `N` is [`joined_len`].
const fn joined_fields<const N: usize>(families: &[Family]) -> [Field<ProductSettings>; N] {
    let mut out = [families[0].fields[0].field; N];
    let mut n = 0;
    let mut i = 0;
    while i < families.len() {
        if first_of_family(families, i) {
            let fields = families[i].fields;
            let mut j = 0;
            while j < fields.len() {
                out[n] = fields[j].field;
                n += 1;
                j += 1;
            }
        }
        i += 1;
    }
    out
}

/// The text of the product field called `name` as a link writes it; `None` when it is unset (it
/// then follows the lab's limit and window) or no product has such a field.
pub fn field_text(p: &ProductSettings, name: &str) -> Option<String> {
    crate::core::field::find(PRODUCT_FIELDS, name).and_then(|f| (f.write)(p))
}

/// `p` with the product field called `name` unset again, so it follows the lab's limit and
/// window: every other field written and read back (the round trip the tests below check).
pub fn without_field(p: &ProductSettings, name: &str) -> ProductSettings {
    let mut fresh = ProductSettings::default();
    for f in PRODUCT_FIELDS.iter().filter(|f| f.name != name) {
        if let Some(text) = (f.write)(p) {
            let _ = (f.read)(&mut fresh, &text);
        }
    }
    fresh
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::field::find;
    use crate::core::profiles::redis_cell::RedisCellParams;
    use crate::core::time::Span;

    #[test]
    fn the_two_rows_modelling_nginx_each_name_their_own_burst() {
        let state = crate::core::url::parse_query(
            "limit=100&window=60&algos=leaky-bucket,nginx&nginx-burst=20&nginx-delay=nodelay",
        )
        .state;
        let s = &state.settings;
        assert_eq!(
            Algorithm::LeakyBucket.terms::<Complete>(s).as_deref(),
            Some("burst=99")
        );
        assert_eq!(
            Algorithm::Nginx.terms::<Complete>(s).as_deref(),
            Some("rate=100r/m burst=20 nodelay")
        );
        // A program without the products says nothing of a row it does not run.
        assert_eq!(Algorithm::Nginx.terms::<TextbookOnly>(s), None);
        assert_eq!(Algorithm::FixedWindow.terms::<Complete>(s), None);
    }

    /// Reads `value` into the field called `name`, as the URL layer does.
    fn read_field(s: &mut ProductSettings, name: &str, value: &str) -> Result<(), String> {
        let field = find(PRODUCT_FIELDS, name).ok_or_else(|| format!("no field {name}"))?;
        (field.read)(s, value)
    }

    /// The fields that differ from the defaults, as the URL layer writes them.
    fn written(s: &ProductSettings) -> Vec<(&'static str, String)> {
        PRODUCT_FIELDS
            .iter()
            .filter_map(|f| Some((f.name, (f.write)(s)?)))
            .collect()
    }

    #[test]
    fn a_field_unset_again_follows_the_lab_and_leaves_the_others_as_set() {
        let mut s = ProductSettings::default();
        read_field(&mut s, "nginx-burst", "4").unwrap();
        read_field(&mut s, "guava-rate", "2.5").unwrap();
        assert_eq!(field_text(&s, "nginx-burst").as_deref(), Some("4"));
        let cleared = without_field(&s, "nginx-burst");
        assert_eq!(field_text(&cleared, "nginx-burst"), None);
        assert_eq!(field_text(&cleared, "guava-rate").as_deref(), Some("2.5"));
        assert_eq!(
            cleared.nginx.params(5, Span::from_secs(10)).burst,
            4,
            "limit - 1 again"
        );
        assert_eq!(field_text(&s, "no-such-field"), None);
    }

    #[test]
    fn every_field_read_is_written_back_the_same() {
        let mut s = ProductSettings::default();
        let input = [
            ("nginx-rate", "30r/m"),
            ("nginx-burst", "4"),
            ("nginx-delay", "nodelay"),
            ("nginx-status", "429"),
            ("governor-period", "0.2"),
            ("governor-burst", "3"),
            ("cell-burst", "15"),
            ("cell-count", "30"),
            ("cell-period", "60"),
            ("upstash-tokens", "10"),
            ("upstash-window", "1.5"),
            ("upstash-refill", "2"),
            ("upstash-interval", "0.5"),
            ("upstash-max", "8"),
            ("upstash-timeout", "0"),
            ("upstash-latency", "0.05"),
            ("upstash-cache", "off"),
            ("envoy-max", "7"),
            ("envoy-fill", "2"),
            ("envoy-interval", "0.25"),
            ("envoy-refill", "timer"),
            ("cf-limit", "100"),
            ("cf-period", "60"),
            ("xtime-rate", "0.25"),
            ("xtime-burst", "3"),
            ("express-limit", "0"),
            ("express-window", "0.05"),
            ("express-headers", "draft-7"),
            ("express-legacy", "on"),
            ("express-status", "503"),
            ("limits-amount", "100"),
            ("limits-multiples", "2"),
            ("limits-per", "minute"),
            ("dotnet-limit", "4"),
            ("dotnet-window", "2.5"),
            ("dotnet-segments", "5"),
            ("dotnet-per-period", "2"),
            ("dotnet-queue", "3"),
            ("dotnet-order", "newest"),
            ("guava-rate", "2.5"),
            ("guava-burst", "4"),
        ];
        for (name, value) in input {
            read_field(&mut s, name, value).unwrap_or_else(|e| panic!("{name}={value}: {e}"));
        }
        let written: Vec<(&str, String)> = written(&s);
        let expected: Vec<(&str, String)> =
            input.iter().map(|(n, v)| (*n, v.to_string())).collect();
        assert_eq!(written, expected);
    }

    #[test]
    fn unset_fields_follow_the_lab_and_set_ones_override_it() {
        let mut s = ProductSettings::default();
        assert_eq!(
            s.redis_cell.params(5, Span::from_secs(10)),
            RedisCellParams::defaults_for(5, Span::from_secs(10))
        );
        read_field(&mut s, "cell-burst", "9").unwrap();
        let p = s.redis_cell.params(5, Span::from_secs(10));
        assert_eq!(
            (p.max_burst, p.count, p.period),
            (9, 5, Span::from_secs(10))
        );
        read_field(&mut s, "governor-period", "0.25").unwrap();
        assert_eq!(
            s.governor.params(5, Span::from_secs(10)).replenish_1_per_ns,
            250_000_000
        );
    }

    #[test]
    fn bad_values_are_refused_with_what_the_field_accepts() {
        let mut s = ProductSettings::default();
        assert!(read_field(&mut s, "cf-period", "30")
            .unwrap_err()
            .contains("10 or 60"));
        assert!(read_field(&mut s, "nginx-rate", "10 per second")
            .unwrap_err()
            .contains("10r/s"));
        assert!(read_field(&mut s, "nginx-status", "200")
            .unwrap_err()
            .contains("400 to 599"));
        assert!(read_field(&mut s, "envoy-refill", "sometimes")
            .unwrap_err()
            .contains("continuous or timer"));
        assert!(read_field(&mut s, "upstash-window", "-1").is_err());
        assert!(read_field(&mut s, "governor-burst", "0").is_err());
        assert_eq!(s, ProductSettings::default());
    }
}
