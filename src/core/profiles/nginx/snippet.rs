//! nginx: a `limit_req_zone` with the row's rate, and a server whose location applies it with
//! `limit_req` (`burst=`, `nodelay` or `delay=`), answers refusals with `limit_req_status` and
//! passes the rest on with `proxy_pass`, to a stand-in server for the application. (The content
//! must not be a `return` in that location: `return` runs in nginx's rewrite phase, before
//! limit_req's preaccess phase, and would answer every request unlimited.)
//! The file goes inside nginx's `http { }` block (an `include` there, or conf.d/). Directives as
//! documented on nginx.org/en/docs/http/ngx_http_limit_req_module.html.
//!
//! nginx has no window, only a rate of whole requests per second (`r/s`) or per minute (`r/m`):
//! when the row follows the lab's limit and window and that rate is not exactly the lab's
//! average, the row runs the nearest per-minute rate (`NginxParams::defaults_for`) and the page
//! says so.

use crate::core::profiles::nginx::NginxRate;
use crate::core::time::{format_seconds, MICROS_PER_SEC};

use crate::core::profiles::{quota_text, Nearest, RowSettings, Written};

pub(super) fn write(s: &RowSettings) -> Written {
    let p = s.products.nginx.params(s.limit, s.window);
    let args = p.directive();
    let limit_req = match args.split_once(' ') {
        Some((_rate, rest)) => format!("limit_req zone=ratelab {rest};"),
        None => "limit_req zone=ratelab;".to_string(),
    };
    let text = format!(
        "# Rate Limit Lab, nginx limit_req row (the lab's limit: {quota}).
# Put this file inside the http {{ }} block, e.g. include it from nginx.conf.
limit_req_zone $binary_remote_addr zone=ratelab:10m rate={rate};

server {{
    listen 8080;

    location / {{
        {limit_req}
        limit_req_status {status};
        # Your application. limit_req runs before the request is passed on; a `return` here
        # would answer first, and nothing would be limited.
        proxy_pass http://127.0.0.1:8081;
    }}
}}

# A stand-in for your application: remove it and point proxy_pass at yours.
server {{
    listen 127.0.0.1:8081;
    return 200 \"ok\\n\";
}}
",
        quota = quota_text(s),
        rate = p.rate,
        status = p.status,
    );
    let nearest = (s.products.nginx.rate.is_none() && !exact(s, p.rate)).then(|| {
        let mut products = s.products.clone();
        products.nginx.rate = Some(p.rate);
        Nearest {
            products,
            what: format!(
                "nginx writes a rate as whole requests per second or per minute, and {} is {} a minute: the nearest it can write is rate={}.",
                quota_text(s),
                per_minute(s),
                p.rate
            ),
            row_runs_it: true,
        }
    });
    Written { text, nearest }
}

/// Whether `rate` is exactly the lab's limit per window.
fn exact(s: &RowSettings, rate: NginxRate) -> bool {
    let (count, per_us) = match rate {
        NginxRate::PerSecond(n) => (n, MICROS_PER_SEC),
        NginxRate::PerMinute(n) => (n, 60 * MICROS_PER_SEC),
    };
    // limit / window == count / per, cross-multiplied.
    u128::from(s.limit) * u128::from(per_us) == u128::from(count) * u128::from(s.window.micros())
}

/// The lab's limit per minute, to six decimals at most.
fn per_minute(s: &RowSettings) -> String {
    let window = u128::from(s.window.micros().max(1));
    let micro_per_minute =
        u128::from(s.limit) * 60 * u128::from(MICROS_PER_SEC) * u128::from(MICROS_PER_SEC) / window;
    let text = format_seconds(u64::try_from(micro_per_minute).unwrap_or(u64::MAX));
    let exact =
        (u128::from(s.limit) * 60 * u128::from(MICROS_PER_SEC) * u128::from(MICROS_PER_SEC))
            % window
            == 0;
    if exact {
        text
    } else {
        format!("about {text}")
    }
}
