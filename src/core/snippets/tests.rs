use super::*;
use crate::core::durable::config::{FailMode, Tier};
use crate::core::profiles::nginx::NginxDelay;
use crate::core::time::{Span, Time};

/// One key, a request every quarter second for ten seconds.
fn trace() -> Trace {
    Trace::single_key("a", (0..40).map(|i| Time::from_millis(i * 250)).collect())
}

fn lab(limit: u64, window: Span) -> Settings {
    Settings {
        limit,
        window,
        ..Settings::default()
    }
}

fn snippet(algorithm: Algorithm, s: &Settings) -> Snippet {
    for_row(algorithm, s, &trace(), None).expect("a product row has a snippet")
}

#[test]
fn every_product_row_has_a_snippet_and_a_file_name_and_the_six_algorithms_have_none() {
    let s = Settings::default();
    for a in Algorithm::ALL {
        let found = for_row(a, &s, &trace(), None);
        assert_eq!(found.is_some(), a.is_product(), "{a:?}");
        if let Some(found) = found {
            assert_eq!(found.slug, a.slug());
            assert!(found.text.contains("Rate Limit Lab"), "{a:?}");
            assert!(found.text.contains("5 per 10 s"), "{a:?}");
        }
    }
}

#[test]
fn the_nginx_snippet_is_the_zone_and_the_location_with_the_rows_rate_burst_and_status() {
    let found = snippet(Algorithm::Nginx, &Settings::default());
    assert_eq!(found.file_name, "nginx.conf");
    assert_eq!(
        found.text,
        "# Rate Limit Lab, nginx limit_req row (the lab's limit: 5 per 10 s).
# Put this file inside the http { } block, e.g. include it from nginx.conf.
limit_req_zone $binary_remote_addr zone=ratelab:10m rate=30r/m;

server {
    listen 8080;

    location / {
        limit_req zone=ratelab burst=4;
        limit_req_status 503;
        # Your application. limit_req runs before the request is passed on; a `return` here
        # would answer first, and nothing would be limited.
        proxy_pass http://127.0.0.1:8081;
    }
}

# A stand-in for your application: remove it and point proxy_pass at yours.
server {
    listen 127.0.0.1:8081;
    return 200 \"ok\\n\";
}
"
    );
    assert_eq!(found.differences, None, "30r/m is exactly 5 per 10 s");
}

#[test]
fn the_nginx_snippet_writes_nodelay_or_delay_and_the_status_set_for_the_row() {
    let mut s = lab(7, Span::from_secs(1));
    s.products.nginx.delay = Some(NginxDelay::NoDelay);
    s.products.nginx.status = Some(429);
    let text = snippet(Algorithm::Nginx, &s).text;
    assert!(text.contains("rate=7r/s;"), "{text}");
    assert!(
        text.contains("limit_req zone=ratelab burst=6 nodelay;"),
        "{text}"
    );
    assert!(text.contains("limit_req_status 429;"), "{text}");
    s.products.nginx.delay = Some(NginxDelay::Delay(2));
    s.products.nginx.burst = Some(0);
    let text = snippet(Algorithm::Nginx, &s).text;
    assert!(text.contains("limit_req zone=ratelab delay=2;"), "{text}");
}

#[test]
fn nginx_says_what_differs_when_the_labs_limit_is_no_whole_rate_per_second_or_minute() {
    let s = lab(5, Span::from_secs(7));
    let found = snippet(Algorithm::Nginx, &s);
    assert!(found.text.contains("rate=43r/m;"), "{}", found.text);
    assert_eq!(
        found.differences.as_deref(),
        Some("nginx writes a rate as whole requests per second or per minute, and 5 per 7 s is about 42.857142 a minute: the nearest it can write is rate=43r/m. On this trace that setting lets 11 of 40 through, at most 6 in any 7 s window.")
    );
}

#[test]
fn the_nearest_settings_figures_are_those_of_the_row_when_the_row_already_runs_them() {
    let t = trace();
    for (a, s) in [
        (Algorithm::Nginx, lab(5, Span::from_secs(7))),
        (Algorithm::CfBinding, lab(3, Span::from_secs(15))),
    ] {
        let row = run_one::<Complete>(&t, a, &s).expect("the row runs");
        let said = for_row(a, &s, &t, None)
            .and_then(|found| found.differences)
            .unwrap_or_default();
        let from_row = for_row(a, &s, &t, Some(&row)).and_then(|found| found.differences);
        assert_eq!(from_row.as_deref(), Some(said.as_str()), "{a:?}");
        let figures = format!(
            "lets {} of 40 through, at most {} in any {} s window.",
            row.passed(),
            row.max_in_window,
            format_seconds(s.window.micros())
        );
        assert!(said.ends_with(&figures), "{a:?}: {said}");
    }
}

#[test]
fn the_binding_names_the_nearest_period_and_its_figures_for_a_window_it_cannot_count_in() {
    let found = snippet(Algorithm::CfBinding, &lab(3, Span::from_secs(15)));
    assert_eq!(found.file_name, "wrangler.toml");
    assert!(
        found.text.ends_with(
            "[[ratelimits]]
name = \"RATE_LIMITER\"
# An integer of your choosing, unique in your Cloudflare account.
namespace_id = \"1001\"

  [ratelimits.simple]
  limit = 12
  period = 60
"
        ),
        "{}",
        found.text
    );
    assert_eq!(
        found.differences.as_deref(),
        Some("The binding counts only in periods of 10 or 60 s: the nearest to 3 per 15 s is 12 per 60 s (limit = 12, period = 60), the same average or less, counted in 60 s periods. On this trace that setting lets 12 of 40 through, at most 12 in any 15 s window.")
    );
    let exact = snippet(Algorithm::CfBinding, &lab(100, Span::from_secs(60)));
    assert_eq!(exact.differences, None);
}

#[test]
fn a_binding_period_set_in_the_link_is_the_persons_own_and_is_written_without_a_difference() {
    let mut s = lab(3, Span::from_secs(15));
    s.products.cf_binding.period = Some(10);
    let found = snippet(Algorithm::CfBinding, &s);
    assert!(found.text.contains("period = 10\n"), "{}", found.text);
    assert_eq!(found.differences, None);
}

#[test]
fn redis_cell_scales_a_fractional_period_to_whole_seconds_when_that_keeps_the_same_interval() {
    let found = snippet(Algorithm::RedisCell, &lab(5, Span::from_millis(7_500)));
    assert!(
        found
            .text
            .ends_with("CL.THROTTLE ratelab:127.0.0.1 4 10 15 1\n"),
        "{}",
        found.text
    );
    assert_eq!(found.differences, None);
    let default = snippet(Algorithm::RedisCell, &Settings::default());
    assert!(default
        .text
        .ends_with("CL.THROTTLE ratelab:127.0.0.1 4 5 10 1\n"));
}

#[test]
fn redis_cell_rounds_to_the_nearest_whole_second_when_no_small_factor_makes_one() {
    let found = snippet(Algorithm::RedisCell, &lab(5, Span(1_234_567)));
    assert!(
        found
            .text
            .ends_with("CL.THROTTLE ratelab:127.0.0.1 4 4 1 1\n"),
        "{}",
        found.text
    );
    let said = found.differences.unwrap_or_default();
    assert!(
        said.starts_with("CL.THROTTLE takes its period in whole seconds: the nearest to 5 per 1.234567 s is 4 per 1 s."),
        "{said}"
    );
}

#[test]
fn governor_go_and_express_write_the_rows_own_figures() {
    let s = lab(7, Span::from_secs(1));
    let governor = snippet(Algorithm::Governor, &s).text;
    assert!(
        governor.contains("Quota::with_period(Duration::from_nanos(142857142))"),
        "{governor}"
    );
    assert!(governor.contains("NonZeroU32::new(7)"), "{governor}");
    let go = snippet(Algorithm::XTimeRate, &lab(5, Span::from_secs(3))).text;
    assert!(
        go.contains("rate.NewLimiter(rate.Limit(1.6666666666666667), 5)"),
        "{go}"
    );
    let express = snippet(Algorithm::ExpressRateLimit, &s).text;
    assert!(
        express.contains("rateLimit({ windowMs: 1000, limit: 7, standardHeaders: 'draft-8', legacyHeaders: false })"),
        "{express}"
    );
}

#[test]
fn upstash_writes_each_algorithm_with_the_librarys_duration_strings() {
    let s = lab(5, Span::from_millis(1_500));
    let fixed = snippet(Algorithm::UpstashFixed, &s).text;
    assert!(
        fixed.contains("Ratelimit.fixedWindow(5, \"1500 ms\")"),
        "{fixed}"
    );
    let token = snippet(Algorithm::UpstashToken, &Settings::default()).text;
    assert!(
        token.contains("Ratelimit.tokenBucket(5, \"10 s\", 5)"),
        "{token}"
    );
    let mut off = Settings::default();
    off.products.upstash.cache = Some(false);
    let sliding = snippet(Algorithm::UpstashSliding, &off).text;
    assert!(sliding.contains("ephemeralCache: false,"), "{sliding}");
}

#[test]
fn python_limits_names_the_whole_seconds_it_counts_in() {
    let found = snippet(Algorithm::LimitsMoving, &lab(5, Span::from_millis(7_500)));
    assert!(
        found.text.contains("parse(\"5 per 7 second\")"),
        "{}",
        found.text
    );
    assert!(found
        .text
        .contains("MovingWindowRateLimiter(MemoryStorage())"));
    assert!(found
        .differences
        .unwrap_or_default()
        .starts_with("limits counts its windows in whole seconds: the nearest to 5 per 7.5 s is \"5 per 7 second\"."));
    let minute = snippet(Algorithm::LimitsFixed, &lab(100, Span::from_secs(60)));
    assert!(minute.text.contains("parse(\"100 per 1 minute\")"));
    assert_eq!(minute.differences, None);
}

#[test]
fn dotnet_writes_the_options_in_timespan_ticks() {
    let found = snippet(Algorithm::DotnetSliding, &lab(4, Span::from_millis(2_500)));
    assert_eq!(found.file_name, "Program.cs");
    assert!(found
        .text
        .contains("new SlidingWindowRateLimiter(new SlidingWindowRateLimiterOptions"));
    assert!(found
        .text
        .contains("    Window = TimeSpan.FromTicks(25000000), // 2.5 s\n"));
    assert!(found.text.contains("    PermitLimit = 4,\n"));
}

#[test]
fn guava_is_exact_for_one_second_and_otherwise_says_its_public_api_stores_one_second() {
    let second = snippet(Algorithm::Guava, &lab(7, Span::from_secs(1)));
    assert!(
        second.text.contains("RateLimiter.create(7.0);"),
        "{}",
        second.text
    );
    assert_eq!(second.differences, None);
    let ten = snippet(Algorithm::Guava, &Settings::default());
    assert!(ten.text.contains("RateLimiter.create(0.5);"));
    assert_eq!(
        ten.differences.as_deref(),
        Some("Guava's public RateLimiter.create stores at most one second of unused permits; the row stores 10 s of them. The snippet is that nearest setting. On this trace that setting lets 5 of 40 through, at most 5 in any 10 s window.")
    );
}

#[test]
fn the_envoy_snippet_holds_the_rows_token_bucket() {
    let found = snippet(Algorithm::Envoy, &lab(5, Span::from_millis(2_500)));
    assert!(found.text.contains(
        "              token_bucket:
                max_tokens: 5
                tokens_per_fill: 5
                fill_interval: 2.5s
"
    ));
}

#[test]
fn the_durable_objects_wrangler_toml_holds_its_binding_and_the_workers_timeout_and_fail_mode() {
    let mut d = DurableParams {
        timeout: Span::from_millis(150),
        fail: FailMode::Closed,
        ..DurableParams::default()
    };
    let found = for_durable(&d, &Settings::default());
    assert_eq!((found.slug, found.file_name), ("do", "wrangler.toml"));
    assert!(found.text.contains(
        "[[durable_objects.bindings]]
name = \"LIMITER\"
class_name = \"RateLimiter\"
"
    ));
    assert!(found
        .text
        .contains("TIMEOUT_MS = \"150\"\nFAIL_MODE = \"closed\"\n"));
    assert!(!found.text.contains("[[ratelimits]]"));
    d.tier = Tier::Binding { period_secs: 60 };
    let binding = for_durable(&d, &Settings::default()).text;
    assert!(
        binding.contains("  limit = 5\n  period = 60\n"),
        "{binding}"
    );
}
