//! express-rate-limit: `app.use(rateLimit({ windowMs, limit, standardHeaders, legacyHeaders,
//! statusCode }))` in an Express app, as express-rate-limit's readme writes it. The options are
//! the row's own (`ExpressRateLimitParams::options_text`), so the snippet is exact. The module
//! exports the app; run on its own it listens on port 3000.

use crate::core::profiles::{quota_text, RowSettings, Written};

pub(super) fn write(s: &RowSettings) -> Written {
    let e = s.products.express_rate_limit.params(s.limit, s.window);
    Written::exact(format!(
        "// Rate Limit Lab, express-rate-limit row (the lab's limit: {quota}).
const express = require(\"express\");
const {{ rateLimit }} = require(\"express-rate-limit\");

const app = express();
app.use(rateLimit({options}));
app.get(\"/\", (req, res) => res.send(\"ok\"));

module.exports = app;
if (require.main === module) app.listen(3000);
",
        quota = quota_text(s),
        options = e.options_text(),
    ))
}
