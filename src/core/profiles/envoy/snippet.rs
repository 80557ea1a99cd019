//! Envoy: a static bootstrap whose HTTP connection manager runs the local rate limit filter
//! (`envoy.filters.http.local_ratelimit`, `LocalRateLimit` with `token_bucket {max_tokens,
//! tokens_per_fill, fill_interval}` and `filter_enabled`/`filter_enforced` at 100 %) before the
//! router, as envoyproxy.io documents the filter (configuration/http/http_filters/
//! local_rate_limit_filter). `fill_interval` is read in whole milliseconds, as the row reads it.

use crate::core::profiles::envoy::EnvoyRefill;
use crate::core::time::{format_seconds, MICROS_PER_MILLI};

use crate::core::profiles::{quota_text, RowSettings, Written};

pub(super) fn write(s: &RowSettings) -> Written {
    let e = s.products.envoy.params(s.limit, s.window);
    let ms = e.fill_interval.micros() / MICROS_PER_MILLI;
    let interval = format!("{}s", format_seconds(ms * MICROS_PER_MILLI));
    let refill = match e.refill {
        EnvoyRefill::Continuous => "Envoy 1.31 and later refill the bucket continuously.",
        EnvoyRefill::Timer => {
            "The row models Envoy 1.30 and earlier, which add tokens_per_fill on each tick."
        }
    };
    Written::exact(format!(
        "# Rate Limit Lab, Envoy local rate limit row (the lab's limit: {quota}).
# {refill}
static_resources:
  listeners:
  - name: main
    address:
      socket_address: {{ address: 0.0.0.0, port_value: 8080 }}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          \"@type\": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: ingress_http
          route_config:
            name: local_route
            virtual_hosts:
            - name: backend
              domains: [\"*\"]
              routes:
              - match: {{ prefix: \"/\" }}
                direct_response: {{ status: 200, body: {{ inline_string: \"ok\" }} }}
          http_filters:
          - name: envoy.filters.http.local_ratelimit
            typed_config:
              \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
              stat_prefix: http_local_rate_limiter
              token_bucket:
                max_tokens: {max}
                tokens_per_fill: {fill}
                fill_interval: {interval}
              filter_enabled:
                runtime_key: local_rate_limit_enabled
                default_value: {{ numerator: 100, denominator: HUNDRED }}
              filter_enforced:
                runtime_key: local_rate_limit_enforced
                default_value: {{ numerator: 100, denominator: HUNDRED }}
          - name: envoy.filters.http.router
            typed_config:
              \"@type\": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
",
        quota = quota_text(s),
        max = e.max_tokens,
        fill = e.tokens_per_fill,
    ))
}
