//! What an embedded view (`embed=1`) shows, and the messages it exchanges with the page that
//! frames it.
//!
//! An embed shows the timelines with the controls its link names (`controls=preset,play` by
//! default) and an optional caption. It tells the framing page its height, so that a small
//! script there (`web/embed.js`) can size the frame, and it takes one message from that page: a
//! theme to follow. Both messages are plain objects with a `type` field; anything else a page
//! posts is ignored. The shapes are documented in the README ("Share and embed").

use super::lab_state::Theme;

/// The `type` of the message an embed posts to its parent whenever its height changes:
/// `{ type: "ratelab:height", height: <CSS pixels, a whole number> }`.
pub const HEIGHT_MESSAGE: &str = "ratelab:height";

/// The `type` of the one message an embed takes from its parent:
/// `{ type: "ratelab:theme", theme: "light" | "dark" | "auto" }`.
pub const THEME_MESSAGE: &str = "ratelab:theme";

/// The longest caption a link may carry, in characters.
pub const MAX_CAPTION_CHARS: usize = 200;

/// A control an embed can show. The full page always shows all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// The traffic preset menu.
    Preset,
    /// Play, step, reset, speed and the playhead's time.
    Play,
    /// "Send a request" and its key.
    Send,
    /// The limit slider.
    Limit,
    /// The window slider.
    Window,
    /// Which algorithms and products have a row.
    Algos,
    /// The per-algorithm settings.
    Tuning,
    /// The theme menu.
    Theme,
}

impl Control {
    /// Every control, in the order a link lists them.
    pub const ALL: [Control; 8] = [
        Control::Preset,
        Control::Play,
        Control::Send,
        Control::Limit,
        Control::Window,
        Control::Algos,
        Control::Tuning,
        Control::Theme,
    ];

    /// What an embed shows when its link names no controls.
    pub const DEFAULT: [Control; 2] = [Control::Preset, Control::Play];

    /// Its name in `controls=` and in the page's `data-control` attribute.
    pub fn slug(self) -> &'static str {
        match self {
            Control::Preset => "preset",
            Control::Play => "play",
            Control::Send => "send",
            Control::Limit => "limit",
            Control::Window => "window",
            Control::Algos => "algos",
            Control::Tuning => "tuning",
            Control::Theme => "theme",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Control> {
        Control::ALL.into_iter().find(|c| c.slug() == slug)
    }
}

/// The names of `controls`, space-separated, for the page's `data-controls` attribute (which
/// the stylesheet matches with `~=`).
pub fn control_names(controls: &[Control]) -> String {
    let names: Vec<&str> = controls.iter().map(|c| c.slug()).collect();
    names.join(" ")
}

/// The theme a message from the framing page asks for, given its `type` and `theme` fields as
/// strings (`None` where the message has no such field, or one that is not a string). Any other
/// shape asks for nothing.
pub fn theme_from_message(kind: Option<&str>, theme: Option<&str>) -> Option<Theme> {
    if kind != Some(THEME_MESSAGE) {
        return None;
    }
    match theme? {
        "light" => Some(Theme::Light),
        "dark" => Some(Theme::Dark),
        "auto" => Some(Theme::Auto),
        _ => None,
    }
}

/// What each sandbox flag of the offered snippet allows, and why it is there (README, "Share and
/// embed"): scripts run the lab; its own origin lets its files load from any host (without it
/// the frame's origin is opaque and every file needs a CORS header); popups let "Open in Rate
/// Limit Lab" open a normal tab. Navigating the framing page, forms, dialogs and downloads stay
/// forbidden.
pub const SANDBOX: &str =
    "allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox";

/// Pixels of what an embed shows besides its timelines (title, lede, time axis, legend, margins)
/// at phone width, where they wrap the most.
const FRAME_PX: u32 = 260;
/// A line of controls at phone width, and the caption's line.
const CONTROL_LINE_PX: u32 = 44;
const CAPTION_PX: u32 = 26;

/// A frame height that fits an embed whose timelines are `timelines_px` tall
/// (`layout::timeline::Layout::height`) at desktop and phone widths, for the snippet's `height`
/// (embed.js then sets the exact height).
pub fn suggested_height(timelines_px: f64, controls: &[Control], caption: bool) -> u32 {
    // At phone width each shown control takes about a line; the theme menu sits in the header.
    let lines = controls.iter().filter(|&&c| c != Control::Theme).count() as u32;
    let timelines = timelines_px.clamp(0.0, 10_000.0).ceil() as u32;
    FRAME_PX + timelines + CONTROL_LINE_PX * lines + if caption { CAPTION_PX } else { 0 }
}

/// The HTML a person pastes into their documentation to embed the view at `embed_url` (the lab's
/// address with its query, `embed=1` included), with the resize script at `script_url` (the
/// site's `embed.js`).
pub fn snippet(embed_url: &str, script_url: &str, height: u32) -> String {
    format!(
        "<iframe data-ratelab src=\"{embed_url}\" title=\"Rate Limit Lab\" width=\"100%\" height=\"{height}\" style=\"border:0\" loading=\"lazy\" sandbox=\"{SANDBOX}\"></iframe>\n<script src=\"{script_url}\" defer></script>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snippet_frames_the_view_with_its_own_origin_and_loads_the_resize_script() {
        let html = snippet(
            "https://example.org/lab/?pattern=steady&embed=1",
            "https://example.org/lab/embed.js",
            520,
        );
        assert_eq!(
            html,
            "<iframe data-ratelab src=\"https://example.org/lab/?pattern=steady&embed=1\" \
             title=\"Rate Limit Lab\" width=\"100%\" height=\"520\" style=\"border:0\" \
             loading=\"lazy\" sandbox=\"allow-scripts allow-same-origin allow-popups \
             allow-popups-to-escape-sandbox\"></iframe>\n\
             <script src=\"https://example.org/lab/embed.js\" defer></script>"
        );
    }

    #[test]
    fn the_suggested_height_grows_with_rows_controls_and_a_caption() {
        let base = suggested_height(288.0, &Control::DEFAULT, false);
        assert_eq!(suggested_height(336.0, &Control::DEFAULT, false), base + 48);
        assert_eq!(suggested_height(287.5, &Control::DEFAULT, false), base);
        assert!(suggested_height(288.0, &Control::ALL, false) > base);
        assert_eq!(
            suggested_height(288.0, &Control::DEFAULT, true),
            base + CAPTION_PX
        );
        assert_eq!(
            suggested_height(
                288.0,
                &[Control::Preset, Control::Play, Control::Theme],
                false
            ),
            base,
            "the theme menu sits in the header"
        );
        assert_eq!(
            suggested_height(f64::INFINITY, &[], false),
            suggested_height(10_000.0, &[], false)
        );
        assert_eq!(suggested_height(f64::NAN, &[], false), FRAME_PX);
    }

    #[test]
    fn every_control_reads_back_from_its_own_name() {
        for control in Control::ALL {
            assert_eq!(Control::from_slug(control.slug()), Some(control));
        }
        assert_eq!(Control::from_slug("Play"), None);
        assert_eq!(Control::from_slug(""), None);
    }

    #[test]
    fn the_attribute_lists_the_controls_in_their_given_order() {
        assert_eq!(control_names(&Control::DEFAULT), "preset play");
        assert_eq!(control_names(&[]), "");
    }

    #[test]
    fn a_theme_message_of_the_documented_shape_sets_the_theme() {
        assert_eq!(
            theme_from_message(Some("ratelab:theme"), Some("dark")),
            Some(Theme::Dark)
        );
        assert_eq!(
            theme_from_message(Some("ratelab:theme"), Some("light")),
            Some(Theme::Light)
        );
        assert_eq!(
            theme_from_message(Some("ratelab:theme"), Some("auto")),
            Some(Theme::Auto)
        );
    }

    #[test]
    fn messages_of_any_other_shape_ask_for_nothing() {
        assert_eq!(theme_from_message(None, Some("dark")), None);
        assert_eq!(
            theme_from_message(Some("ratelab:height"), Some("dark")),
            None
        );
        assert_eq!(theme_from_message(Some("theme"), Some("dark")), None);
        assert_eq!(theme_from_message(Some("ratelab:theme"), None), None);
        assert_eq!(
            theme_from_message(Some("ratelab:theme"), Some("Dark")),
            None
        );
        assert_eq!(
            theme_from_message(Some("ratelab:theme"), Some("coal")),
            None
        );
    }
}
