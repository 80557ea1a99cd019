//! Reading envoy's own config into its row's settings (`profiles::config_text`).

use crate::core::profiles::config_text::{ConfigOf, FromConfig, Unreadable};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises: |text| text.contains("fill_interval"),
    read,
    forms: "the local rate limit filter's `token_bucket` (`max_tokens`, `tokens_per_fill`, `fill_interval`)",
};

fn read(_text: &str) -> Result<FromConfig, Unreadable> {
    Err(Unreadable::whole("this product's config is not read yet"))
}
