//! Reading python_limits's own config into its row's settings (`profiles::config_text`).

use crate::core::profiles::config_text::{ConfigOf, FromConfig, Unreadable};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises: |text| text.contains("RateLimiter"),
    read,
    forms: "rate strings (`\"10/minute\"`, `\"5 per 10 seconds\"`) with the strategy's name",
};

fn read(_text: &str) -> Result<FromConfig, Unreadable> {
    Err(Unreadable::whole("this product's config is not read yet"))
}
