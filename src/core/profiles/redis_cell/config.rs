//! Reading redis_cell's own config into its row's settings (`profiles::config_text`).

use crate::core::profiles::config_text::{ConfigOf, FromConfig, Unreadable};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises: |text| text.contains("CL.THROTTLE"),
    read,
    forms: "`CL.THROTTLE key max_burst count period [quantity]`",
};

fn read(_text: &str) -> Result<FromConfig, Unreadable> {
    Err(Unreadable::whole("this product's config is not read yet"))
}
