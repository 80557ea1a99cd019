//! Each product row's HTTP response is the product's own (or, for a library, what its own
//! documentation's code sends), in the CSV export and in what the inspector shows, and the
//! textbook rows keep the common derivation.
#![cfg(not(target_arch = "wasm32"))]

use ratelab::core::decision::{Decision, Verdict};
use ratelab::core::export::decisions_csv;
use ratelab::core::http::HttpResponse;
use ratelab::core::lab::LabRun;
use ratelab::core::limiter::Complete;
use ratelab::core::limiter::{Algorithm, Settings};
use ratelab::core::profiles::ProductReply;
use ratelab::core::row_response::row_response;
use ratelab::core::run::decision_at;
use ratelab::core::time::Span;
use ratelab::core::url::parse_query;

/// Six requests at once against 5 per 10 s: five pass, the sixth is refused (nginx delays four
/// of the five, as its default `delay=0` does).
const SIX_AT_ONCE: &str = "limit=5&window=10&trace=0,0,0,0,0,0";

/// `(outcome, status, headers)` of `slug`'s rows in the CSV of `query`, in request order.
fn csv_rows(query: &str, slug: &str) -> Vec<(String, String, String)> {
    let csv = decisions_csv::<Complete>(&LabRun::compute(&parse_query(query).state));
    csv.lines()
        .skip(1)
        .filter_map(|line| {
            // time, key, limiter, outcome, status, then the headers (quoted when they hold a comma).
            let mut fields = line.splitn(6, ',');
            let (_, _, limiter) = (fields.next()?, fields.next()?, fields.next()?);
            let (outcome, status, headers) =
                (fields.next()?, fields.next()?, fields.next().unwrap_or(""));
            (limiter == slug).then(|| {
                (
                    outcome.to_string(),
                    status.to_string(),
                    headers.trim_matches('"').replace("\"\"", "\""),
                )
            })
        })
        .collect()
}

/// What the inspector shows for request `index` of `query` under `algorithm`.
fn inspector_response(query: &str, algorithm: Algorithm, index: usize) -> HttpResponse {
    let run = LabRun::compute(&parse_query(query).state);
    let (decision, reply) =
        decision_at::<Complete>(&run.trace, algorithm, &run.settings, index).unwrap();
    row_response::<Complete>(algorithm, &run.settings, &decision, reply.as_ref())
}

fn row(outcome: &str, status: &str, headers: &str) -> (String, String, String) {
    (outcome.to_string(), status.to_string(), headers.to_string())
}

/// nginx sends `limit_req_status` (503 unless set) with no `Retry-After` and no rate-limit
/// header; a delayed request is served with the upstream's 200.
#[test]
fn nginx_refuses_with_503_and_no_retry_after_unless_limit_req_status_says_otherwise() {
    let query = format!("{SIX_AT_ONCE}&algos=nginx");
    let rows = csv_rows(&query, "nginx");
    assert_eq!(rows[0], row("allowed", "200", ""));
    assert_eq!(rows[1], row("delayed", "200", ""));
    assert_eq!(rows[5], row("rejected", "503", ""));
    let shown = inspector_response(&query, Algorithm::Nginx, 5);
    assert_eq!(
        shown.to_text(),
        "HTTP/1.1 503 Service Temporarily Unavailable\n"
    );
    // limit_req_status 429, and a code nginx has no text for (it writes the bare code).
    assert_eq!(
        csv_rows(&format!("{query}&nginx-status=429"), "nginx")[5],
        row("rejected", "429", "")
    );
    assert_eq!(
        inspector_response(&format!("{query}&nginx-status=429"), Algorithm::Nginx, 5).to_text(),
        "HTTP/1.1 429 Too Many Requests\n"
    );
    assert_eq!(
        inspector_response(&format!("{query}&nginx-status=418"), Algorithm::Nginx, 5).to_text(),
        "HTTP/1.1 418 \n"
    );
}

/// governor answers `NotUntil` (here one interval, 2 s, away): 429 with that wait as
/// `Retry-After`, and nothing about what remains.
#[test]
fn governor_refuses_with_the_not_until_wait_and_no_remaining_count() {
    let query = format!("{SIX_AT_ONCE}&algos=governor");
    let rows = csv_rows(&query, "governor");
    assert_eq!(rows[0], row("allowed", "200", ""));
    assert_eq!(rows[5], row("rejected", "429", "Retry-After: 2"));
    assert_eq!(
        inspector_response(&query, Algorithm::Governor, 5).to_text(),
        "HTTP/1.1 429 Too Many Requests\nRetry-After: 2\n"
    );
}

/// redis-cell's README: limit, remaining, retry after and reset after are `X-RateLimit-Limit`,
/// `X-RateLimit-Remaining`, `Retry-After` and `X-RateLimit-Reset`; the README's own call
/// `CL.THROTTLE user123 15 30 60` answers `0, 16, 15, -1, 2`.
#[test]
fn redis_cell_sends_the_five_integers_as_its_readme_names_them() {
    let readme = "trace=1000&algos=redis-cell&cell-burst=15&cell-count=30&cell-period=60";
    assert_eq!(
        csv_rows(readme, "redis-cell")[0],
        row(
            "allowed",
            "200",
            "X-RateLimit-Limit: 16; X-RateLimit-Remaining: 15; X-RateLimit-Reset: 2"
        )
    );
    let query = format!("{SIX_AT_ONCE}&algos=redis-cell");
    let rows = csv_rows(&query, "redis-cell");
    assert_eq!(
        rows[5],
        row(
            "rejected",
            "429",
            "X-RateLimit-Limit: 5; X-RateLimit-Remaining: 0; Retry-After: 2; X-RateLimit-Reset: 10"
        )
    );
    assert_eq!(
        inspector_response(&query, Algorithm::RedisCell, 5).to_text(),
        "HTTP/1.1 429 Too Many Requests\nX-RateLimit-Limit: 5\nX-RateLimit-Remaining: 0\nRetry-After: 2\nX-RateLimit-Reset: 10\n"
    );
    // A call that can never pass (the module's -1) gets no Retry-After. Every request on the
    // page costs 1, which always fits a limit, so that reply is written out here.
    let never = ProductReply {
        fields: vec![
            ("limited", "1".into()),
            ("limit", "1".into()),
            ("remaining", "1".into()),
            ("retry_after", "-1".into()),
            ("reset_after", "0".into()),
        ],
    };
    let decision = Decision {
        verdict: Verdict::Rejected,
        limit: 1,
        remaining: 1,
        reset_after: Span::ZERO,
        retry_after: None,
    };
    let response = row_response::<Complete>(
        Algorithm::RedisCell,
        &Settings {
            limit: 1,
            window: Span::from_secs(1),
            ..Settings::default()
        },
        &decision,
        Some(&never),
    );
    assert_eq!(response.header("Retry-After"), None);
    assert_eq!(response.status, 429);
}

/// Upstash's example answers 429 or 200 with the reply in the body: no rate-limit header.
#[test]
fn upstash_answers_429_or_200_without_rate_limit_headers() {
    for (slug, algorithm) in [
        ("upstash-fixed", Algorithm::UpstashFixed),
        ("upstash-sliding", Algorithm::UpstashSliding),
        ("upstash-token", Algorithm::UpstashToken),
    ] {
        let query = format!("{SIX_AT_ONCE}&algos={slug}");
        let rows = csv_rows(&query, slug);
        assert_eq!(rows[0], row("allowed", "200", ""), "{slug}");
        assert_eq!(rows[5], row("rejected", "429", ""), "{slug}");
        assert_eq!(
            inspector_response(&query, algorithm, 5).to_text(),
            "HTTP/1.1 429 Too Many Requests\n",
            "{slug}"
        );
    }
}

/// Envoy's local reply: 429 with `x-envoy-ratelimited`, no `Retry-After`.
#[test]
fn envoy_answers_its_local_reply() {
    let query = format!("{SIX_AT_ONCE}&algos=envoy");
    let rows = csv_rows(&query, "envoy");
    assert_eq!(rows[0], row("allowed", "200", ""));
    assert_eq!(rows[5], row("rejected", "429", "x-envoy-ratelimited: true"));
    assert_eq!(
        inspector_response(&query, Algorithm::Envoy, 5).to_text(),
        "HTTP/1.1 429 Too Many Requests\nx-envoy-ratelimited: true\n"
    );
}

/// The binding answers only `{ success }`; the explainer seed's Worker sends 429 with its
/// binding's period as `Retry-After` (`"10"` for its 10 s period), and no remaining count it
/// could not know.
#[test]
fn the_binding_row_sends_what_the_seeds_worker_sends_429_with_the_period() {
    let query = format!("{SIX_AT_ONCE}&algos=cf-binding");
    let rows = csv_rows(&query, "cf-binding");
    assert_eq!(rows[0], row("allowed", "200", ""));
    assert_eq!(rows[5], row("rejected", "429", "Retry-After: 10"));
    let shown = inspector_response(&query, Algorithm::CfBinding, 5);
    assert_eq!(
        shown.to_text(),
        "HTTP/1.1 429 Too Many Requests\nRetry-After: 10\n"
    );
    assert_eq!(shown.header("RateLimit"), None);
    let minute = format!("{SIX_AT_ONCE}&algos=cf-binding&cf-period=60");
    let shown = inspector_response(&minute, Algorithm::CfBinding, 5);
    assert_eq!(shown.header("Retry-After"), Some("60"));
}

/// The textbook algorithms keep the common derivation: 429, `Retry-After`, the draft fields.
#[test]
fn the_textbook_rows_keep_the_common_response() {
    let query = format!("{SIX_AT_ONCE}&algos=fixed");
    let rows = csv_rows(&query, "fixed");
    assert_eq!(rows[5].1, "429");
    assert!(
        rows[5]
            .2
            .starts_with("Retry-After: 10; Cache-Control: no-store; RateLimit-Policy: "),
        "{}",
        rows[5].2
    );
}

/// For every product and every request, the CSV's status and headers are what the inspector
/// shows.
#[test]
fn the_csv_and_the_inspector_agree_for_every_product_and_request() {
    let products: Vec<Algorithm> = Algorithm::ALL
        .into_iter()
        .filter(|a| a.is_product())
        .collect();
    let slugs: Vec<&str> = products.iter().map(|a| a.slug()).collect();
    let query = format!(
        "limit=3&window=2&trace=0,0.1,0.2,0.3,0.4,1.9,2.05,4,4.001,9&algos={}",
        slugs.join(",")
    );
    for algorithm in products {
        for (i, (_, status, headers)) in csv_rows(&query, algorithm.slug()).into_iter().enumerate()
        {
            let shown = inspector_response(&query, algorithm, i);
            let joined: Vec<String> = shown
                .headers
                .iter()
                .map(|(n, v)| format!("{n}: {v}"))
                .collect();
            assert_eq!(
                (status, headers),
                (shown.status.to_string(), joined.join("; ")),
                "{algorithm} request {i}"
            );
        }
    }
}
