//! Reading dotnet's own config into its row's settings (`profiles::config_text`).

use crate::core::profiles::config_text::{ConfigOf, FromConfig, Unreadable};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises: |text| text.contains("PermitLimit"),
    read,
    forms: "the options (`PermitLimit`, `Window`, `TokenLimit`, ...) in C# or `appsettings.json`",
};

fn read(_text: &str) -> Result<FromConfig, Unreadable> {
    Err(Unreadable::whole("this product's config is not read yet"))
}
