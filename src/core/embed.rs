//! What an embedded view (`embed=1`) shows, and the messages it exchanges with the page that
//! frames it.
//!
//! An embed shows the timelines with the controls its link names (`controls=preset,play` by
//! default), under its caption when it has one. It tells the framing page its height, so that a
//! small script there (`web/embed.js`) can size the frame, and it takes one message from that
//! page: a theme to follow. Both messages are short strings with a `ratelab:` prefix (the form
//! iframe resizers use), so that neither side has to trust the shape of an object; anything
//! else a page posts is ignored. The README documents them ("Share and embed").

use super::limiter::Algorithm;
use super::theme::Theme;

/// What an embed posts to its parent whenever its height changes: `ratelab:height:<CSS pixels>`.
pub fn height_message(height_px: u32) -> String {
    format!("ratelab:height:{height_px}")
}

/// The one message an embed takes from its parent: `ratelab:theme:light`, `ratelab:theme:dark`
/// or `ratelab:theme:auto`.
const THEME_MESSAGE: &str = "ratelab:theme:";

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

/// The theme a message from the framing page asks for. Any other message asks for nothing.
pub fn theme_from_message(message: &str) -> Option<Theme> {
    match message.strip_prefix(THEME_MESSAGE)? {
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

/// What an embed shows besides its timelines' rows at phone width (375 px), where everything
/// wraps the most: the title line, the lede, the time axis, the legend and the margins, with a
/// little room to spare. Measured in Chromium; the e2e tests check the sum against the page.
const FRAME_PX: u32 = 390;
/// Pixels of each control at phone width; `products_listed` when the products' boxes are shown
/// (their list is open in a view with a product row, closed to one line otherwise).
fn control_px(control: Control, products_listed: bool) -> u32 {
    match control {
        Control::Preset => 50,
        Control::Play => 78,
        Control::Send => 50,
        // The slider, and under it the box to type the value in.
        Control::Limit | Control::Window => 78,
        // A box per row, two to a line at phone width, a line about 30 px with its label
        // wrapped, under the group's legend; the products' list's own line counts as two boxes.
        Control::Algos => {
            let boxes = match products_listed {
                true => Algorithm::ALL.len(),
                false => Algorithm::CORE.len(),
            };
            50 + 15 * (boxes as u32 + 2)
        }
        Control::Tuning => 45,
        // The theme menu shares the header's line with the link to the full lab.
        Control::Theme => 12,
    }
}
/// A caption's characters per line at phone width, and its line height.
const CAPTION_CHARS_PER_LINE: usize = 34;
const CAPTION_LINE_PX: u32 = 24;
/// An open question's card at phone width: its characters (title and answer) per line, a line's
/// height, and the card's own margins, padding and heading line.
const QUESTION_CHARS_PER_LINE: usize = 40;
const QUESTION_LINE_PX: u32 = 21;
const QUESTION_CARD_PX: u32 = 60;

/// A frame height that fits an embed whose timelines' rows (and the line of tools under them)
/// are `timelines_px` tall (`layout::timeline::Layout::height_with_tools`), with `controls`
/// (`products_listed`: the view has a product row, so the products' boxes are listed), a
/// caption of `caption_chars` characters and an open question of `question_chars` (its title and
/// answer; 0 for none), at desktop and phone widths: the snippet's `height` (embed.js then sets
/// the exact height). It is the phone's need, where everything wraps most, so a desktop frame
/// has room to spare and none is cut.
pub fn suggested_height(
    timelines_px: f64,
    controls: &[Control],
    products_listed: bool,
    caption_chars: usize,
    question_chars: usize,
) -> u32 {
    let controls: u32 = controls
        .iter()
        .map(|&c| control_px(c, products_listed))
        .sum();
    let timelines = timelines_px.clamp(0.0, 10_000.0).ceil() as u32;
    let caption_lines = caption_chars.div_ceil(CAPTION_CHARS_PER_LINE).clamp(1, 10) as u32;
    let question = match question_chars {
        0 => 0,
        chars => {
            let lines = chars.div_ceil(QUESTION_CHARS_PER_LINE).min(200) as u32;
            QUESTION_CARD_PX + QUESTION_LINE_PX * lines
        }
    };
    FRAME_PX + timelines + controls + CAPTION_LINE_PX * (caption_lines - 1) + question
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
    fn the_suggested_height_grows_with_rows_controls_and_a_long_caption() {
        let base = suggested_height(420.0, &Control::DEFAULT, false, 0, 0);
        assert_eq!(base, FRAME_PX + 420 + 128);
        assert_eq!(
            suggested_height(490.0, &Control::DEFAULT, false, 0, 0),
            base + 70
        );
        assert_eq!(
            suggested_height(419.5, &Control::DEFAULT, false, 0, 0),
            base
        );
        // Every control: 391 px, and the algorithm boxes 50 px and 15 px a box, the products'
        // list's line as two; its seventeen boxes only when a product has a row.
        let algos = 50 + 15 * (Algorithm::CORE.len() as u32 + 2);
        assert_eq!(
            suggested_height(420.0, &Control::ALL, false, 0, 0),
            base - 128 + 391 + algos
        );
        assert_eq!(
            suggested_height(420.0, &Control::ALL, true, 0, 0),
            base - 128 + 391 + algos + 15 * 17
        );
        assert_eq!(
            suggested_height(420.0, &Control::DEFAULT, true, 0, 0),
            base,
            "the products' boxes count only where the algorithms' boxes are shown"
        );
        assert_eq!(suggested_height(420.0, &[], false, 0, 0), base - 128);
        assert_eq!(
            suggested_height(420.0, &Control::DEFAULT, false, 34, 0),
            base,
            "one line"
        );
        assert_eq!(
            suggested_height(420.0, &Control::DEFAULT, false, 35, 0),
            base + 24
        );
        assert_eq!(
            suggested_height(420.0, &Control::DEFAULT, false, 200, 0),
            base + 5 * 24
        );
        assert_eq!(
            suggested_height(f64::INFINITY, &[], false, 0, 0),
            suggested_height(10_000.0, &[], false, 0, 0)
        );
        assert_eq!(suggested_height(f64::NAN, &[], false, 0, 0), FRAME_PX);
        // An open question adds its card: its heading and padding, and a line per 40 characters.
        assert_eq!(
            suggested_height(420.0, &Control::DEFAULT, false, 0, 400),
            base + QUESTION_CARD_PX + 10 * QUESTION_LINE_PX
        );
        assert_eq!(
            suggested_height(420.0, &Control::DEFAULT, false, 0, 401),
            base + QUESTION_CARD_PX + 11 * QUESTION_LINE_PX
        );
    }

    #[test]
    fn a_theme_message_of_the_documented_shape_sets_the_theme() {
        assert_eq!(theme_from_message("ratelab:theme:dark"), Some(Theme::Dark));
        assert_eq!(
            theme_from_message("ratelab:theme:light"),
            Some(Theme::Light)
        );
        assert_eq!(theme_from_message("ratelab:theme:auto"), Some(Theme::Auto));
    }

    #[test]
    fn messages_of_any_other_shape_ask_for_nothing() {
        for other in [
            "",
            "dark",
            "ratelab:theme:",
            "ratelab:theme:Dark",
            "ratelab:theme:coal",
            "ratelab:theme:dark ",
            " ratelab:theme:dark",
            "ratelab:height:dark",
            "ratelab:theme=dark",
            r#"{"type":"ratelab:theme","theme":"dark"}"#,
        ] {
            assert_eq!(theme_from_message(other), None, "{other:?}");
        }
    }

    #[test]
    fn the_height_message_names_whole_pixels() {
        assert_eq!(height_message(564), "ratelab:height:564");
    }
}
