//! What the client of a product's row receives over HTTP: what the product sends, or, for a
//! library that only returns a verdict and figures, what the code its own documentation shows
//! turns them into. Each product's row names the one it answers with (`ProductRow::response`, in
//! the product's own module); the textbook algorithms answer with `core::http::respond`.
//!
//! - nginx `limit_req`: a rejection is `limit_req_status` (503 unless set; `ngx_http_limit_req_
//!   module.c` merges `NGX_HTTP_SERVICE_UNAVAILABLE`) with nginx's own status line
//!   (`ngx_http_header_filter_module.c`: "503 Service Temporarily Unavailable", and the bare code
//!   for a status it has no text for), and no `Retry-After` or rate-limit header: the module adds
//!   none. A passed or delayed request is the upstream's response, 200 here.
//! - governor: a Rust library whose `check_n` answers `Ok`, `NotUntil` or `InsufficientCapacity`
//!   and sends nothing itself. The row shows what that answer alone tells a server: 429 with
//!   `Retry-After` (the `NotUntil` wait in whole seconds, rounded up) for `NotUntil`, 429 without
//!   one for a batch that can never pass, and no remaining count (`check` returns none).
//! - redis-cell: its README names the five integers' HTTP equivalents: `X-RateLimit-Limit`,
//!   `X-RateLimit-Remaining`, `Retry-After` (the reply's retry time, when the call was limited
//!   and a retry can help) and `X-RateLimit-Reset`; a limited call is 429.
//! - Upstash `@upstash/ratelimit`: the library's Next.js example (`examples/nextjs/app/api/
//!   route.ts`) answers 429 when `success` is false, else 200, with `{ success, limit, remaining }`
//!   as the body and no rate-limit header.
//! - Envoy's local rate limit: its local reply, 429 with `x-envoy-ratelimited` as the profile's
//!   reply spells it (see `envoy.rs`); a passed request is the upstream's 200, with no
//!   `x-ratelimit-*` header (`enable_x_ratelimit_headers` is off by default).
//! - Cloudflare's Rate Limiting binding answers only `{ success }`; the Worker the explainer
//!   seed shows turns a refusal into `new Response("Too many requests", { status: 429, headers:
//!   { "Retry-After": "10" } })`: its binding's period, the only wait it can know (no remaining
//!   count). The row sends the period the binding is set to (10 or 60 s), as the Durable Object
//!   lab's binding tier does.
//!
//! Only status lines and headers are modelled, not bodies.

use crate::core::decision::Decision;
use crate::core::http::{retry_after_seconds, HttpResponse};

use super::ProductReply;

/// 200 for a request that passes, `refused` otherwise.
fn status(
    decision: &Decision,
    refused: (u16, &'static str),
    headers: Vec<(String, String)>,
) -> HttpResponse {
    if decision.allowed() {
        HttpResponse {
            status: 200,
            reason: "OK",
            headers: Vec::new(),
        }
    } else {
        HttpResponse {
            status: refused.0,
            reason: refused.1,
            headers,
        }
    }
}

fn header(name: &str, value: impl ToString) -> (String, String) {
    (name.to_string(), value.to_string())
}

/// A 429 and nothing else when refused, a 200 otherwise.
pub fn verdict_only(decision: &Decision) -> HttpResponse {
    status(decision, (429, "Too Many Requests"), Vec::new())
}

/// The seed's Worker over the binding: 429 with the binding's period as `Retry-After`.
pub fn binding_worker(decision: &Decision, period_secs: u64) -> HttpResponse {
    status(
        decision,
        (429, "Too Many Requests"),
        vec![("Retry-After".into(), period_secs.to_string())],
    )
}

pub fn nginx(decision: &Decision, reply: &ProductReply) -> HttpResponse {
    let code = reply
        .get("status")
        .and_then(|s| s.parse().ok())
        .unwrap_or(503);
    status(decision, (code, nginx_reason(code)), Vec::new())
}

/// The text nginx writes after an error status (`ngx_http_status_lines`); empty for a code it has
/// none for, where nginx writes the bare code.
pub fn nginx_reason(code: u16) -> &'static str {
    match code {
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Not Allowed",
        406 => "Not Acceptable",
        407 => "Proxy Authentication Required",
        408 => "Request Time-out",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Request Entity Too Large",
        414 => "Request-URI Too Large",
        415 => "Unsupported Media Type",
        416 => "Requested Range Not Satisfiable",
        421 => "Misdirected Request",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Temporarily Unavailable",
        504 => "Gateway Time-out",
        505 => "HTTP Version Not Supported",
        507 => "Insufficient Storage",
        _ => "",
    }
}

/// What a library that only returns a verdict and a wait tells a server written the usual way:
/// 200, or 429 with `Retry-After` (the wait, whole seconds rounded up) when the library names a
/// wait. governor, Go's x/time/rate and Guava's rows answer so.
pub fn refused_with_retry_after(decision: &Decision) -> HttpResponse {
    let retry = decision
        .retry_after
        .map(|wait| header("Retry-After", retry_after_seconds(wait)));
    status(
        decision,
        (429, "Too Many Requests"),
        retry.into_iter().collect(),
    )
}

pub fn governor(decision: &Decision) -> HttpResponse {
    refused_with_retry_after(decision)
}

pub fn redis_cell(decision: &Decision, reply: &ProductReply) -> HttpResponse {
    let field = |name| reply.get(name).unwrap_or("").to_string();
    let mut headers = vec![
        header("X-RateLimit-Limit", field("limit")),
        header("X-RateLimit-Remaining", field("remaining")),
    ];
    let retry = field("retry_after");
    if reply.get("limited") == Some("1") && retry != "-1" {
        headers.push(header("Retry-After", retry));
    }
    headers.push(header("X-RateLimit-Reset", field("reset_after")));
    let limited = reply
        .get("limited")
        .map_or(!decision.allowed(), |l| l == "1");
    if limited {
        HttpResponse {
            status: 429,
            reason: "Too Many Requests",
            headers,
        }
    } else {
        HttpResponse {
            status: 200,
            reason: "OK",
            headers,
        }
    }
}

pub fn envoy(decision: &Decision, reply: &ProductReply) -> HttpResponse {
    let code = reply
        .get("status")
        .and_then(|s| s.parse().ok())
        .unwrap_or(429);
    let marked = reply
        .get("x-envoy-ratelimited")
        .map(|v| header("x-envoy-ratelimited", v));
    status(
        decision,
        (code, "Too Many Requests"),
        marked.into_iter().collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nginx_writes_its_own_text_or_the_bare_code() {
        assert_eq!(nginx_reason(503), "Service Temporarily Unavailable");
        assert_eq!(nginx_reason(429), "Too Many Requests");
        assert_eq!(nginx_reason(418), "");
        let bare = HttpResponse {
            status: 418,
            reason: nginx_reason(418),
            headers: Vec::new(),
        };
        assert_eq!(bare.to_text(), "HTTP/1.1 418 \n");
    }
}
