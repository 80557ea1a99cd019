//! The page's shared state: the lab state (what the URL holds), the computed run, and the
//! transient view state (playhead, cursor, selection). Every change to the lab state goes
//! through `Lab::change`, which recomputes the run and rewrites the URL in one step.
//!
//! A large trace is computed a slice at a time (`core::lab::Computation`, a job run by
//! `scheduler::run_sliced`): the first slice runs at once, and if it does not finish within a
//! frame's work the rest runs between frames with a progress bar, so the page keeps answering.
//! A trace too long for a link is kept in the page's own storage (`localStorage`), up to a size
//! the import panel states.

use std::sync::Arc;

use leptos::prelude::*;

use crate::core::job::Job;
use crate::core::lab::{Computation, LabRun};
use crate::core::lab_state::{LabState, Lanes};
use crate::core::theme::Theme;
use crate::core::time::Time;
use crate::core::traffic::Pattern;
use crate::core::url::{parse_stored_trace, to_query, trace_list_within, MAX_REQUESTS_IN_LINK};

pub use super::scheduler::Progress;
use super::scheduler::{run_sliced, Slicing};

/// Where the page keeps a trace too long for a link.
const STORAGE_KEY: &str = "ratelab-trace";
/// The most requests kept in storage, and the longest text: browsers give a page about five
/// million characters, and writing the text must fit in a frame's work.
pub const MAX_STORED_REQUESTS: usize = 200_000;
pub const MAX_STORED_CHARS: usize = 4_000_000;
/// How long after a change of the view alone the address bar is written.
const URL_PAUSE_MS: i32 = 200;

#[derive(Clone, Copy)]
pub struct Lab {
    pub state: RwSignal<LabState>,
    pub run: RwSignal<Arc<LabRun>>,
    /// `None` shows the whole timeline; `Some(t)` shows it up to `t` (playing or paused).
    pub playhead: RwSignal<Option<Time>>,
    pub playing: RwSignal<bool>,
    /// Simulated seconds per real second.
    pub speed: RwSignal<f64>,
    /// Where the pointer is over the timeline.
    pub cursor: RwSignal<Option<Time>>,
    /// The request shown in the inspector (an index into the trace).
    pub selected: RwSignal<Option<usize>>,
    /// Messages about the URL or about a value a person typed.
    pub notices: RwSignal<Vec<String>>,
    /// The sentence screen readers hear after each decision is shown.
    pub announcement: RwSignal<String>,
    /// The key "Send a request" sends for; `None` means the trace's first key.
    pub send_key: RwSignal<Option<String>>,
    /// The Durable Object scenario last chosen (its query), to explain while it is on screen.
    pub active_scenario: RwSignal<Option<&'static str>>,
    /// Long work under way, shown by the progress bar.
    pub progress: RwSignal<Option<Progress>>,
    /// Whether the timelines have been drawn once: the first view is on screen, and what lies
    /// below it can be built (see `app::App`).
    pub first_view_shown: RwSignal<bool>,
    /// The latest computation; an older one still running stops when it sees a newer number.
    job: RwSignal<u32>,
    /// Whether the address bar is due to be written after a change of how the view is looked at.
    url_due: StoredValue<bool>,
}

impl Lab {
    pub fn new(state: LabState, notices: Vec<String>) -> Lab {
        let run = Arc::new(LabRun::compute(&state));
        Lab {
            state: RwSignal::new(state),
            run: RwSignal::new(run),
            playhead: RwSignal::new(None),
            playing: RwSignal::new(false),
            speed: RwSignal::new(1.0),
            cursor: RwSignal::new(None),
            selected: RwSignal::new(None),
            notices: RwSignal::new(notices),
            announcement: RwSignal::new(String::new()),
            send_key: RwSignal::new(None),
            active_scenario: RwSignal::new(None),
            progress: RwSignal::new(None),
            first_view_shown: RwSignal::new(false),
            job: RwSignal::new(0),
            url_due: StoredValue::new(false),
        }
    }

    /// Changes the lab state, recomputes everything and writes the new URL.
    pub fn change(&self, edit: impl FnOnce(&mut LabState)) {
        self.show(self.edited(edit), false);
    }

    /// A deliberate change (a preset, a scenario, an import): like [`Lab::change`], and the view
    /// before it stays in the browser's history, so Back returns to it. Dragging a slider
    /// changes the view in place instead.
    pub fn change_and_remember(&self, edit: impl FnOnce(&mut LabState)) {
        self.show(self.edited(edit), true);
    }

    /// Sets one field from what a person typed (its URL name and text): a refusal is shown in the
    /// words a link with that text would get, and the field shows the value in force again.
    pub fn set_field(&self, name: &str, text: &str) {
        let mut next = self.state.get_untracked();
        match crate::core::url::set_field(&mut next, name, text) {
            Ok(()) => self.show(next, false),
            Err(refused) => {
                self.notice(refused.message);
                self.state.update(|_| {});
            }
        }
    }

    /// The current state with `edit` applied.
    fn edited(&self, edit: impl FnOnce(&mut LabState)) -> LabState {
        let mut next = self.state.get_untracked();
        edit(&mut next);
        next
    }

    /// Shows `next`: computes it (a slice at a time when large), then writes the address bar,
    /// as a new history entry when `remember`.
    pub fn show(&self, next: LabState, remember: bool) {
        if self.state.with_untracked(|s| *s == next) {
            return;
        }
        let needs_products = next.algorithms.iter().any(|a| a.is_product());
        let needs_rules = next.settings.sets_rules() || next.lanes == Lanes::Key;
        if (!cfg!(feature = "products") && needs_products)
            || (!cfg!(feature = "workbench") && needs_rules)
        {
            // The first view's module has no product profiles and no controls of the rules:
            // the page opens this view again with the complete module, which web/loader.js
            // picks from the address.
            super::write_url(&to_query(&next), remember);
            super::reload();
            return;
        }
        if !remember && self.state.with_untracked(|s| s.same_run_as(&next)) {
            // Zoomed, panned, split by key or themed: the run stands, and only the drawing
            // changes. A wheel or a drag changes the view sixty times a second; the address
            // bar follows once the gesture pauses.
            let zoomed = self.state.with_untracked(|s| s.view != next.view);
            let query = to_query(&next);
            self.state.set(next);
            match zoomed {
                true => self.write_url_soon(),
                false => super::write_url(&query, false),
            }
            return;
        }
        let job = self.job.get_untracked().wrapping_add(1);
        self.job.set(job);
        let computation = Computation::new(&next);
        // A large trace (`core::lab::LARGE_TRACE`) is made and run in the tasks that follow, a
        // slice at a time, and shown in a task of its own.
        let large = computation.large();
        if large {
            self.show_progress(computation.progress().what, 0);
        }
        let lab = *self;
        run_sliced(
            self.progress,
            computation,
            Slicing {
                start_later: large,
                finish_later: large,
            },
            move || lab.job.get_untracked() == job,
            move |run| lab.apply(next, run, remember),
        );
    }

    /// Writes the address bar (in place) a moment from now, once for any number of changes
    /// before then: browsers refuse an address rewritten too often.
    fn write_url_soon(&self) {
        if self.url_due.get_value() {
            return;
        }
        self.url_due.set_value(true);
        let lab = *self;
        super::after(URL_PAUSE_MS, move || {
            lab.url_due.set_value(false);
            super::write_url(&lab.state.with_untracked(to_query), false);
        });
    }

    /// Sets the colour theme, whether a person picked it or the page that frames an embed sent it.
    pub fn set_theme(&self, theme: Theme) {
        self.change(|s| s.theme = theme);
    }

    fn apply(&self, next: LabState, run: LabRun, remember: bool) {
        let pattern_changed = self.state.with_untracked(|s| s.pattern != next.pattern);
        self.run.set(Arc::new(run));
        super::write_url(&to_query(&next), remember);
        let trace_len = self.run.with_untracked(|r| r.trace.len());
        if self
            .selected
            .get_untracked()
            .is_some_and(|i| i >= trace_len)
        {
            self.selected.set(None);
        }
        if pattern_changed {
            // Its own task: writing a long trace should not add to the redraw's.
            let (lab, pattern) = (*self, next.pattern.clone());
            super::soon(move || lab.keep_trace(&pattern));
        }
        self.state.set(next);
    }

    /// Keeps a trace too long for a link in the page's storage, or says why it could not.
    fn keep_trace(&self, pattern: &Pattern) {
        let count = pattern.given_len();
        let Some(storage) = super::window().and_then(|w| w.local_storage().ok().flatten()) else {
            if count > MAX_REQUESTS_IN_LINK {
                self.notice("This page may not use storage here, so the trace lasts until the page is closed.".into());
            }
            return;
        };
        if count <= MAX_REQUESTS_IN_LINK {
            let _ = storage.remove_item(STORAGE_KEY);
            return;
        }
        let kept = count <= MAX_STORED_REQUESTS
            && trace_list_within(pattern, MAX_STORED_CHARS)
                .is_some_and(|text| storage.set_item(STORAGE_KEY, &text).is_ok());
        if !kept {
            let _ = storage.remove_item(STORAGE_KEY);
            self.notice(format!(
                "This trace is more than the page keeps ({MAX_STORED_REQUESTS} requests, {MAX_STORED_CHARS} characters as text): it lasts until the page is closed, and the link cannot bring it back."
            ));
        }
    }

    /// For a link saying `trace=stored`: brings back the trace the page kept, or says it is gone.
    pub fn restore_trace(&self) {
        if !self.state.with_untracked(|s| s.trace_in_storage) {
            return;
        }
        let kept = super::window()
            .and_then(|w| w.local_storage().ok().flatten())
            .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten());
        match kept.map(|text| parse_stored_trace(&text)) {
            Some(Ok(points)) => self.change(|s| {
                s.pattern = Pattern::from_points(points);
                s.trace_in_storage = false;
            }),
            _ => {
                self.notice("The link points at a trace kept in this browser, and it is not here (another browser, or cleared); showing the default traffic.".into());
                self.change(|s| s.trace_in_storage = false);
            }
        }
    }

    /// Shows that `what` is under way, `permille` thousandths done.
    pub fn show_progress(&self, what: &'static str, permille: u32) {
        self.progress.set(Some(Progress { what, permille }));
    }

    /// Adds a message to the notices at the top of the page.
    pub fn notice(&self, message: String) {
        self.notices.update(|n| n.push(message));
    }

    pub fn query(&self) -> String {
        self.state.with(to_query)
    }
}
