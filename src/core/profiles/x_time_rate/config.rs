//! Reading x_time_rate's own config into its row's settings (`profiles::config_text`).

use crate::core::profiles::config_text::{ConfigOf, FromConfig, Unreadable};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises: |text| text.contains("rate.NewLimiter"),
    read,
    forms: "`rate.NewLimiter(rate.Every(...), b)` or `rate.NewLimiter(rate.Limit(...), b)`",
};

fn read(_text: &str) -> Result<FromConfig, Unreadable> {
    Err(Unreadable::whole("this product's config is not read yet"))
}
