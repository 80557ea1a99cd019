//! What the client of each row receives over HTTP, for the inspector and the CSV export: the
//! textbook algorithms answer with the lab's common derivation (`http::respond`); a product row
//! answers as that product does (`profiles::response`, which names each product's sources).

use super::decision::Decision;
use super::http::{respond, HttpResponse, Policy};
use super::limiter::{Algorithm, Settings};
#[cfg(feature = "products")]
use super::profiles::response::{binding_worker, envoy, governor, nginx, redis_cell, verdict_only};
use super::profiles::ProductReply;
#[cfg(feature = "products")]
use super::profiles::{dotnet, express_rate_limit, guava, python_limits, x_time_rate};

/// The response `algorithm`'s row sends for `decision` under the lab's `settings`; `reply` is the
/// product's own reply (the textbook algorithms have none).
pub fn row_response(
    algorithm: Algorithm,
    settings: &Settings,
    decision: &Decision,
    reply: Option<&ProductReply>,
) -> HttpResponse {
    if algorithm.is_product() {
        return product_response(algorithm, settings, decision, reply);
    }
    let policy = Policy::new("default", settings.limit, settings.window);
    respond(&policy, decision)
}

/// What a product row's client receives: the product's own answer.
#[cfg(feature = "products")]
fn product_response(
    algorithm: Algorithm,
    settings: &Settings,
    decision: &Decision,
    reply: Option<&ProductReply>,
) -> HttpResponse {
    let empty = ProductReply::default();
    let reply = reply.unwrap_or(&empty);
    match algorithm {
        Algorithm::Nginx => nginx(decision, reply),
        Algorithm::Governor => governor(decision),
        Algorithm::RedisCell => redis_cell(decision, reply),
        Algorithm::Envoy => envoy(decision, reply),
        Algorithm::UpstashFixed | Algorithm::UpstashSliding | Algorithm::UpstashToken => {
            verdict_only(decision)
        }
        Algorithm::CfBinding => {
            let period = settings
                .products
                .cf_binding(settings.limit, settings.window)
                .period_secs;
            binding_worker(decision, period)
        }
        Algorithm::XTimeRate => x_time_rate::http_response(decision, reply),
        Algorithm::ExpressRateLimit => express_rate_limit::http_response(decision, reply),
        Algorithm::LimitsFixed | Algorithm::LimitsMoving | Algorithm::LimitsSliding => {
            python_limits::http_response(decision, reply)
        }
        Algorithm::DotnetFixed | Algorithm::DotnetSliding | Algorithm::DotnetToken => {
            dotnet::http_response(decision, reply)
        }
        // Guava, the last product (`row_response` sends only products here).
        _ => guava::http_response(decision, reply),
    }
}

/// Without the product profiles no product row runs, so none answers; the lab's common
/// derivation stands in.
#[cfg(not(feature = "products"))]
fn product_response(
    _algorithm: Algorithm,
    settings: &Settings,
    decision: &Decision,
    _reply: Option<&ProductReply>,
) -> HttpResponse {
    respond(
        &Policy::new("default", settings.limit, settings.window),
        decision,
    )
}
