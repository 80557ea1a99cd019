//! What the page shows, as one value: the lab's settings, the traffic, the rows, the Durable
//! Object's knobs and the view. The model knows nothing of where it is kept: `core::url` maps it
//! to and from a link, and `core::lab` computes what it shows.

use super::compose::{composed_points, Segment};
use super::durable::DurableParams;
use super::embed::Control;
use super::limiter::{Algorithm, Settings};
use super::theme::Theme;
use super::time::{Span, Time};
use super::traffic::Pattern;

pub use super::config::{MAX_LAB_LIMIT, MAX_LAB_WINDOW, MIN_LAB_WINDOW};
/// The narrowest stretch of the time axis the timelines zoom to: a millisecond, a thousand
/// microseconds across the canvas.
pub const MIN_VIEW: Span = Span::from_millis(1);

/// How a row shows a trace of several keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// Every request on one line.
    One,
    /// A lane per key (`layout::timeline::MAX_LANES` at most).
    Key,
}

/// Everything the page shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabState {
    pub settings: Settings,
    pub pattern: Pattern,
    /// Segments added to the pattern's requests (`compose=`, `super::compose`).
    pub compose: Vec<Segment>,
    pub algorithms: Vec<Algorithm>,
    pub durable: DurableParams,
    /// The compact view for an iframe.
    pub embed: bool,
    /// The controls the compact view shows, in `Control::ALL`'s order.
    pub controls: Vec<Control>,
    /// The view's title in place of the lab's name, for an embed in documentation (empty: none).
    pub caption: String,
    pub theme: Theme,
    /// The stretch of the time axis the timelines show (`view=`), from and to; `None` shows the
    /// whole trace. Kept as given: the page fits it to the trace it runs (`layout::zoom`).
    pub view: Option<(Time, Time)>,
    /// One lane per row, or one per key.
    pub lanes: Lanes,
    /// Where a trace too long for a link is kept, as the link names it (`trace=stored:<id>`).
    pub kept: KeptTrace,
    /// The question the view answers (`q=`, a slug of `core::questions`), shown above the
    /// timelines with its answer for whatever the view becomes; `None` for none.
    pub question: Option<&'static str>,
}

/// Where the page keeps a person's traffic that is too long for a link (one that would pass
/// `url::MAX_LINK_CHARS` characters, `url::needs_keeping`): in the browser's IndexedDB under an id made from the
/// trace's own text, which the link names, so the same link reopens the same trace in the same
/// browser. The model only holds the id; the page does the keeping (`ui::kept_trace`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum KeptTrace {
    /// Nothing is kept: the pattern's trace, if any, goes in the link when it fits, and in no
    /// link when it is too long.
    #[default]
    No,
    /// The link names a kept trace that the page has not read back yet: its id, or `None` for
    /// the id-less `trace=stored` of links written before the ids (a trace kept in
    /// `localStorage`).
    Named(Option<String>),
    /// The pattern is the trace kept under this id.
    Kept(String),
}

impl KeptTrace {
    /// Whether a link names a trace the page has yet to read back.
    pub fn is_named(&self) -> bool {
        matches!(self, KeptTrace::Named(_))
    }
}

impl LabState {
    /// Whether the page shows `control`: the full page shows every control, an embed those its
    /// link names (`controls=`).
    pub fn shows(&self, control: Control) -> bool {
        !self.embed || self.controls.contains(&control)
    }

    /// Whether a row is a product's exact profile (only the complete module runs those).
    pub fn has_product_row(&self) -> bool {
        self.algorithms.iter().any(|a| a.is_product())
    }

    /// The same state in another theme (a scenario keeps the person's theme).
    pub fn with_theme(mut self, theme: Theme) -> LabState {
        self.theme = theme;
        self
    }

    /// The traffic the view runs: the pattern's requests and the composed segments'. With
    /// segments, the pattern's requests (for `limit` per `window`) and theirs become one list of
    /// points.
    pub fn traffic(&self) -> Pattern {
        if self.compose.is_empty() {
            return self.pattern.clone();
        }
        let base = self
            .pattern
            .generate(self.settings.limit, self.settings.window);
        let mut points = Pattern::points_of(&base);
        points.extend(composed_points(&self.compose, self.durable.seed));
        Pattern::from_points(points)
    }

    /// Whether `other` runs the same as this state and differs only in how it is looked at (the
    /// zoom, the lanes, the theme): the page then redraws without running anything again.
    pub fn same_run_as(&self, other: &LabState) -> bool {
        // Every field named, so that a field added later is sorted into one kind or the other.
        let LabState {
            settings,
            pattern,
            compose,
            algorithms,
            durable,
            embed,
            controls,
            caption,
            theme: _,
            view: _,
            lanes: _,
            kept,
            question,
        } = self;
        *settings == other.settings
            && *pattern == other.pattern
            && *compose == other.compose
            && *algorithms == other.algorithms
            && *durable == other.durable
            && *embed == other.embed
            && *controls == other.controls
            && *caption == other.caption
            && *kept == other.kept
            && *question == other.question
    }

    /// Sets the lab's seed, which the Durable Object's emulation and the Poisson pattern share.
    pub fn set_seed(&mut self, seed: u64) {
        self.durable.seed = seed;
        self.settings.deployment.seed = seed;
        if let Pattern::Poisson { seed: drawn_from } = &mut self.pattern {
            *drawn_from = seed;
        }
    }
}

impl Default for LabState {
    fn default() -> LabState {
        LabState {
            settings: Settings::default(),
            pattern: Pattern::Edge,
            compose: Vec::new(),
            algorithms: Algorithm::CORE.to_vec(),
            durable: DurableParams::default(),
            embed: false,
            controls: Control::DEFAULT.to_vec(),
            caption: String::new(),
            theme: Theme::Auto,
            view: None,
            lanes: Lanes::One,
            kept: KeptTrace::No,
            question: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_page_shows_every_control_and_an_embed_only_those_its_link_names() {
        let page = LabState::default();
        assert!(Control::ALL.into_iter().all(|c| page.shows(c)));
        let embed = LabState {
            embed: true,
            controls: vec![Control::Limit, Control::Theme],
            ..LabState::default()
        };
        let shown: Vec<Control> = Control::ALL
            .into_iter()
            .filter(|&c| embed.shows(c))
            .collect();
        assert_eq!(shown, [Control::Limit, Control::Theme]);
    }

    #[test]
    fn a_view_has_a_product_row_only_when_it_names_a_product() {
        assert!(!LabState::default().has_product_row());
        let with_nginx = LabState {
            algorithms: vec![Algorithm::FixedWindow, Algorithm::Nginx],
            ..LabState::default()
        };
        assert!(with_nginx.has_product_row());
    }
}
