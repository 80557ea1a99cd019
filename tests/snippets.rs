//! The snippets of a few representative views, written to a folder for their products' own
//! checkers (`scripts/check-snippets.sh` sets `RATELAB_SNIPPETS_DIR`): one folder per view, one
//! per row inside it (`<view>/<slug>/<file name>`, and `<view>/do/wrangler.toml`). Without the
//! variable the test only checks that every product row of every view has its snippet.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;

use ratelab::core::durable::config::{FailMode, Tier};
use ratelab::core::durable::DurableParams;
use ratelab::core::limiter::{Algorithm, Settings};
use ratelab::core::profiles::dotnet::QueueProcessingOrder;
use ratelab::core::profiles::envoy::EnvoyRefill;
use ratelab::core::profiles::express_rate_limit::StandardHeaders;
use ratelab::core::profiles::nginx::NginxDelay;
use ratelab::core::snippets;
use ratelab::core::time::{Span, Time};
use ratelab::core::traffic::Trace;

/// The views: the page's default, a per-second limit with the products' options changed, and
/// windows that some products cannot write exactly.
fn views() -> Vec<(&'static str, Settings, DurableParams)> {
    let default = Settings::default();
    let mut per_second = Settings {
        limit: 7,
        window: Span::from_secs(1),
        ..Settings::default()
    };
    let p = &mut per_second.products;
    p.nginx_delay = Some(NginxDelay::NoDelay);
    p.nginx_status = Some(429);
    p.upstash_cache = Some(false);
    p.envoy_refill = Some(EnvoyRefill::Timer);
    p.express_headers = Some(StandardHeaders::Off);
    p.express_legacy = Some(true);
    p.express_status = Some(503);
    p.dotnet_queue = Some(2);
    p.dotnet_order = Some(QueueProcessingOrder::NewestFirst);
    let odd = Settings {
        limit: 5,
        window: Span::from_millis(7_500),
        ..Settings::default()
    };
    let mut delayed = Settings {
        limit: 3,
        window: Span::from_secs(15),
        ..Settings::default()
    };
    delayed.products.nginx_delay = Some(NginxDelay::Delay(1));
    let minute = Settings {
        limit: 100,
        window: Span::from_secs(60),
        ..Settings::default()
    };
    let closed = DurableParams {
        timeout: Span::from_millis(300),
        fail: FailMode::Closed,
        ..DurableParams::default()
    };
    let binding = DurableParams {
        tier: Tier::Binding { period_secs: 60 },
        ..DurableParams::default()
    };
    vec![
        ("default", default, DurableParams::default()),
        ("per-second", per_second, closed),
        ("fraction", odd, DurableParams::default()),
        ("fifteen", delayed, binding),
        ("minute", minute, DurableParams::default()),
    ]
}

#[test]
fn every_views_snippets_are_written_for_their_products_checkers() {
    let trace = Trace::single_key("a", (0..40).map(|i| Time::from_millis(i * 250)).collect());
    let out = std::env::var_os("RATELAB_SNIPPETS_DIR").map(PathBuf::from);
    for (name, settings, durable) in views() {
        let mut all: Vec<_> = Algorithm::ALL
            .into_iter()
            .filter(|a| a.is_product())
            .map(|a| snippets::for_row(a, &settings, &trace, None).expect("a product's snippet"))
            .collect();
        all.push(snippets::for_durable(&durable, &settings));
        assert_eq!(all.len(), 18, "{name}");
        let Some(out) = &out else { continue };
        for snippet in all {
            let folder = out.join(name).join(snippet.slug);
            std::fs::create_dir_all(&folder).expect("the folder can be made");
            std::fs::write(folder.join(snippet.file_name), &snippet.text)
                .expect("the snippet can be written");
        }
    }
}
