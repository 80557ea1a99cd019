//! The page's colour theme, a part of the view that a link (`theme=`), a person (the theme
//! menu) and the page that frames an embed (its theme message) can each set.

/// The colour theme: follow the system, or force one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Theme {
    #[default]
    Auto,
    Light,
    Dark,
}

impl Theme {
    pub fn slug(self) -> &'static str {
        match self {
            Theme::Auto => "auto",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}
