//! What the client of each row receives over HTTP, for the inspector and the CSV export: the
//! row's descriptor says (`core::limiter::rows`): the textbook algorithms answer with the lab's
//! common derivation (`http::respond`, `core::limiter::textbook`); a product row answers as that
//! product does, with the function its own module names (`profiles::<product>::ROW.response`,
//! most of them in `profiles::response`, which names each product's sources).

use super::decision::Decision;
use super::http::HttpResponse;
use super::limiter::{Algorithm, Parts, Settings};
use super::profiles::ProductReply;

/// The response `algorithm`'s row sends for `decision` under the lab's `settings`; `reply` is the
/// product's own reply (the textbook algorithms have none).
pub fn row_response<C: Parts>(
    algorithm: Algorithm,
    settings: &Settings,
    decision: &Decision,
    reply: Option<&ProductReply>,
) -> HttpResponse {
    match reply {
        Some(reply) => algorithm.response::<C>(settings, decision, reply),
        None => algorithm.response::<C>(settings, decision, &ProductReply::default()),
    }
}
