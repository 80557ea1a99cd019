//! The page's shared state: the lab state (what the URL holds) and the computed run, and parts
//! with one job each (`Playback`, `Focus`, `Address`, `Work`, `Keeping`, `Page`;
//! docs/architecture.md says each in a sentence). Every change to the lab state goes through
//! `Lab::change`, which recomputes the run and rewrites the URL in one step.
//!
//! A large trace is computed a slice at a time (`core::lab::Computation`, a job run by
//! `scheduler::run_sliced`): the first slice runs at once, and if it does not finish within a
//! frame's work the rest runs between frames with a progress bar, so the page keeps answering.
//! Traffic that would make the link longer than it may be (`url::MAX_QUERY_CHARS`) is kept in the
//! browser's IndexedDB as a trace (`kept_trace`), up to a size the import panel states, and the
//! link names it (`trace=stored:<id>`). The address bar only
//! ever holds a link that opens the view again: while a trace is too long for a link and not
//! (or not yet) kept, it keeps the last such link, and the page says why.

use std::sync::Arc;

use leptos::prelude::*;

use crate::core::job::Job;
use crate::core::lab::{Computation, LabRun};
use crate::core::lab_state::{KeptTrace, LabState, Lanes};
use crate::core::theme::Theme;
use crate::core::time::Time;
#[cfg(feature = "workbench")]
use crate::core::traffic::Pattern;
use crate::core::url::{needs_keeping, reopens, to_query, MAX_KEPT_REQUESTS, MAX_LINK_CHARS};

pub use super::scheduler::Progress;
use super::scheduler::{run_sliced, Slicing};

/// How long after a change of the view alone the address bar is written.
const URL_PAUSE_MS: i32 = 200;

/// The page's state, in parts that each have one job. `state` and `run` are what is shown: the
/// lab state (what the link holds) and its computed run; the parts hold the rest.
#[derive(Clone, Copy)]
pub struct Lab {
    pub state: RwSignal<LabState>,
    pub run: RwSignal<Arc<LabRun>>,
    pub playback: Playback,
    pub focus: Focus,
    pub address: Address,
    pub work: Work,
    pub keeping: Keeping,
    pub page: Page,
}

/// Where playback stands.
#[derive(Clone, Copy)]
pub struct Playback {
    /// `None` shows the whole timeline; `Some(t)` shows it up to `t` (playing or paused).
    pub playhead: RwSignal<Option<Time>>,
    pub playing: RwSignal<bool>,
    /// Simulated seconds per real second.
    pub speed: RwSignal<f64>,
    /// The time between two ticks of the timelines' axis, in microseconds: the moving
    /// playhead's time is written to a tenth of it.
    pub axis_step: RwSignal<u64>,
}

/// What the person is looking at and acting on.
#[derive(Clone, Copy)]
pub struct Focus {
    /// Where the pointer is over the timeline.
    pub cursor: RwSignal<Option<Time>>,
    /// The request shown in the inspector (an index into the trace).
    pub selected: RwSignal<Option<usize>>,
    /// The sentence screen readers hear after each decision is shown.
    pub announcement: RwSignal<String>,
    /// The key "Send a request" sends for; `None` means the trace's first key.
    pub send_key: RwSignal<Option<String>>,
}

/// The address bar, and what the page says about the view it holds.
#[derive(Clone, Copy)]
pub struct Address {
    /// Messages about the URL or about a value a person typed.
    pub notices: RwSignal<Vec<String>>,
    /// Whether the address bar is due to be written after a change of how the view is looked at.
    url_due: StoredValue<bool>,
}

impl Address {
    /// Writes `query` in the address bar, as a new history entry when `remember`, with the
    /// notices said about it.
    fn write(&self, query: &str, remember: bool) {
        super::write_url(query, remember, &self.notices.get_untracked());
    }

    /// Writes the address bar (in place) a moment from now, once for any number of changes
    /// before then: browsers refuse an address rewritten too often.
    fn write_soon(self, state: RwSignal<LabState>) {
        if self.url_due.get_value() {
            return;
        }
        self.url_due.set_value(true);
        super::after(URL_PAUSE_MS, move || {
            self.url_due.set_value(false);
            // A module on its way shows the address as it is (`super::module_swap`).
            if state.with_untracked(reopens) && !super::module_swap::is_switching() {
                self.write(&state.with_untracked(to_query), false);
            }
        });
    }
}

/// The long work under way.
#[derive(Clone, Copy)]
pub struct Work {
    /// Long work under way, shown by the progress bar.
    pub progress: RwSignal<Option<Progress>>,
    /// The latest computation; an older one still running stops when it sees a newer number.
    job: RwSignal<u32>,
    /// The progress of work the bar does not show: keeping a trace, which `Keeping::said`
    /// announces, goes on while the charts are drawn with the bar.
    #[cfg(feature = "workbench")]
    unseen: RwSignal<Option<Progress>>,
}

impl Work {
    /// Numbers a new computation: any older one still running stops.
    fn next_job(&self) -> u32 {
        let job = self.job.get_untracked().wrapping_add(1);
        self.job.set(job);
        job
    }

    fn is_latest(&self, job: u32) -> bool {
        self.job.get_untracked() == job
    }
}

/// The traces kept in the browser.
#[derive(Clone, Copy)]
pub struct Keeping {
    /// Where the trace on screen is kept when no link can carry it, as a sentence for the page.
    pub said: RwSignal<Option<String>>,
    /// Counts the traces shown: keeping one in the browser takes a while, and its answer is
    /// used only if the page still shows that trace.
    trace_shown: RwSignal<u32>,
}

/// How far the page is built, and the scenario it explains.
#[derive(Clone, Copy)]
pub struct Page {
    /// Whether the timelines have been drawn once: the first view is on screen, and what lies
    /// below it can be built (see `app::App`).
    pub first_view_shown: RwSignal<bool>,
    /// Whether the sections below the first view are built too (`body[data-complete]`): what
    /// the first paint does not need (the embed's link to the full lab) waits for it.
    pub complete: RwSignal<bool>,
    /// The Durable Object scenario last chosen (its id), to explain while it is on screen.
    pub active_scenario: RwSignal<Option<&'static str>>,
}

/// Whether `next` needs what this page's module lacks: the first view's module has no product
/// profiles, no controls of the rules, no kept traces and no Durable Object lab.
fn needs_another_module(next: &LabState) -> bool {
    let needs_workbench =
        next.settings.sets_rules() || next.kept.is_named() || next.lanes == Lanes::Key;
    (!cfg!(feature = "products") && next.has_product_row())
        || (!cfg!(feature = "workbench") && needs_workbench)
        || (!cfg!(feature = "durable") && next.durable.enabled)
}

impl Lab {
    pub fn new(state: LabState, notices: Vec<String>) -> Lab {
        let run = Arc::new(LabRun::compute_with::<super::Linked>(&state));
        Lab {
            state: RwSignal::new(state),
            run: RwSignal::new(run),
            playback: Playback {
                playhead: RwSignal::new(None),
                playing: RwSignal::new(false),
                speed: RwSignal::new(1.0),
                axis_step: RwSignal::new(1),
            },
            focus: Focus {
                cursor: RwSignal::new(None),
                selected: RwSignal::new(None),
                announcement: RwSignal::new(String::new()),
                send_key: RwSignal::new(None),
            },
            address: Address {
                notices: RwSignal::new(notices),
                url_due: StoredValue::new(false),
            },
            work: Work {
                progress: RwSignal::new(None),
                job: RwSignal::new(0),
                #[cfg(feature = "workbench")]
                unseen: RwSignal::new(None),
            },
            keeping: Keeping {
                said: RwSignal::new(None),
                trace_shown: RwSignal::new(0),
            },
            page: Page {
                first_view_shown: RwSignal::new(false),
                complete: RwSignal::new(false),
                active_scenario: RwSignal::new(None),
            },
        }
    }

    /// Whether the page is an embed (`embed=1`), which only a new link changes.
    pub fn is_embed(&self) -> bool {
        self.state.with_untracked(|s| s.embed)
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
    pub fn show(&self, mut next: LabState, remember: bool) {
        if super::module_swap::is_switching() {
            // Another module is on its way to show the view the address holds: this page waits
            // for it (`super::module_swap`).
            return;
        }
        // An edit that changes the traffic without saying where it is kept (a preset, a request
        // sent by hand) leaves the kept trace behind: the new traffic is kept anew if it needs
        // to be.
        self.state.with_untracked(|now| {
            if now.pattern != next.pattern && now.kept == next.kept {
                next.kept = KeptTrace::No;
            }
        });
        if self.state.with_untracked(|s| *s == next) {
            return;
        }
        if remember {
            // A new view, a new history entry: the messages said about the view before stay
            // with its entry (`super::write_url`), and Back shows them again.
            self.address.notices.set(Vec::new());
        }
        if needs_another_module(&next) {
            // The module that has what it needs shows this view in place of this one: it reads
            // the address (web/loader.js picks it from there too).
            self.address.write(&to_query(&next), remember);
            super::switch_module(None);
            return;
        }
        if !remember && self.state.with_untracked(|s| s.same_run_as(&next)) {
            // Zoomed, panned, split by key or themed: the run stands, and only the drawing
            // changes. A wheel or a drag changes the view sixty times a second; the address
            // bar follows once the gesture pauses.
            let zoomed = self.state.with_untracked(|s| s.view != next.view);
            // A zoom's link is written once the gesture pauses, not for each of its steps.
            let query = (!zoomed && reopens(&next)).then(|| to_query(&next));
            self.state.set(next);
            match query {
                Some(query) => self.address.write(&query, false),
                None => self.address.write_soon(self.state),
            }
            return;
        }
        let job = self.work.next_job();
        let computation = Computation::<super::Linked>::new(&next);
        // A large trace (`core::lab::LARGE_TRACE`) is made and run in the tasks that follow, a
        // slice at a time, and shown in a task of its own.
        let large = computation.large();
        if large {
            self.show_progress(computation.progress().what, 0);
        }
        let lab = *self;
        run_sliced(
            self.work.progress,
            computation,
            Slicing {
                start_later: large,
                finish_later: large,
            },
            move || lab.work.is_latest(job),
            move |run| lab.apply(next, run, remember),
        );
    }

    /// Sets the colour theme, whether a person picked it or the page that frames an embed sent it.
    pub fn set_theme(&self, theme: Theme) {
        self.change(|s| s.theme = theme);
    }

    fn apply(&self, next: LabState, run: LabRun, remember: bool) {
        // New traffic, or a link grown too long around the same traffic (more rows, say).
        let to_keep = self.state.with_untracked(|s| {
            s.pattern != next.pattern
                || s.compose != next.compose
                || (needs_keeping(&next) && !needs_keeping(s))
        });
        let names_another =
            next.kept.is_named() && self.state.with_untracked(|s| s.kept != next.kept);
        self.run.set(Arc::new(run));
        if reopens(&next) {
            self.address.write(&to_query(&next), remember);
        }
        let trace_len = self.run.with_untracked(|r| r.trace.len());
        if self
            .focus
            .selected
            .get_untracked()
            .is_some_and(|i| i >= trace_len)
        {
            self.focus.selected.set(None);
        }
        if to_keep {
            let shown = self.keeping.trace_shown.get_untracked().wrapping_add(1);
            self.keeping.trace_shown.set(shown);
            // Its own task: writing a long trace should not add to the redraw's.
            let (lab, state) = (*self, next.clone());
            super::soon(move || lab.keep_trace(state, remember, shown));
        }
        self.state.set(next);
        if names_another {
            self.restore_trace();
        }
    }

    /// Keeps traffic too long for a link in the browser's IndexedDB as a trace (a person's trace
    /// and the composed segments' requests as one list, `LabState::traffic`), then puts the link
    /// naming it in the address bar (as a new history entry when `remember`); or says why it
    /// could not, and the address bar keeps the last link that opens a view again.
    fn keep_trace(&self, state: LabState, remember: bool, shown: u32) {
        if state.kept != KeptTrace::No {
            // Named: being read back; kept: read back, and the page said from where.
            return;
        }
        self.keeping.said.set(None);
        if !needs_keeping(&state) {
            return;
        }
        // Composed segments become part of the kept trace: the same requests, so the same run.
        let composed = !state.compose.is_empty();
        let pattern = match composed {
            true => state.traffic(),
            false => state.pattern.clone(),
        };
        let count = pattern.given_len();
        if count > MAX_KEPT_REQUESTS {
            self.not_kept(
                count,
                &format!("more than the page keeps in this browser ({MAX_KEPT_REQUESTS})"),
            );
            return;
        }
        #[cfg(feature = "workbench")]
        {
            self.keeping.said.set(Some(format!(
                "Keeping your {count} requests in this browser's IndexedDB…"
            )));
            let lab = *self;
            // Writing the list and hashing it for its id, a slice at a time (`core::url::kept`).
            let slicing = Slicing {
                start_later: true,
                finish_later: true,
            };
            let became = composed.then(|| pattern.clone());
            run_sliced(
                self.work.unseen,
                crate::core::url::kept::KeepTrace::new(pattern),
                slicing,
                move || lab.keeping.trace_shown.get_untracked() == shown,
                move |kept| lab.put_trace(kept, count, became, remember, shown),
            );
        }
        #[cfg(not(feature = "workbench"))]
        {
            let _ = (remember, shown);
            self.not_kept(count, "this part of the lab keeps no traces");
        }
    }

    /// Hands the trace's list to the browser, then puts the link naming it in the address bar
    /// and says where it is kept, or why it is not. `became` is the trace composed segments
    /// became part of, which the state then holds in their place.
    #[cfg(feature = "workbench")]
    fn put_trace(
        &self,
        kept: crate::core::url::kept::KeptText,
        count: usize,
        became: Option<Pattern>,
        remember: bool,
        shown: u32,
    ) {
        let (lab, id, bytes) = (*self, kept.id, kept.text.len());
        super::kept_trace::put(id.clone(), kept.text, move |written| {
            if lab.keeping.trace_shown.get_untracked() != shown {
                return; // the page shows other traffic by now
            }
            match written {
                Ok(()) => {
                    super::kept_trace::forget_earlier();
                    let composed = became.is_some();
                    lab.state.update(|s| {
                        if let Some(pattern) = became {
                            s.pattern = pattern;
                            s.compose.clear();
                        }
                        s.kept = KeptTrace::Kept(id.clone());
                    });
                    lab.address
                        .write(&lab.state.with_untracked(to_query), remember);
                    let what = match composed {
                        true => "requests (the composed segments' included, now one trace)",
                        false => "requests",
                    };
                    lab.keeping.said.set(Some(format!(
                        "Your {count} {what} are kept in this browser's IndexedDB (database \"{}\", store \"{}\", id {id}: {bytes} bytes of text). The link, trace={}, opens them again in this browser only; anywhere else it opens the default traffic. In the link itself they would pass {MAX_LINK_CHARS} characters.",
                        super::kept_trace::DATABASE,
                        super::kept_trace::STORE,
                        crate::core::url::kept_link(Some(&id)),
                    )));
                }
                Err(why) => {
                    lab.keeping.said.set(None);
                    lab.not_kept(count, &format!("this browser would not keep them ({why})"));
                }
            }
        });
    }

    /// Says that a trace too long for a link is kept nowhere, and why.
    fn not_kept(&self, count: usize, why: &str) {
        self.notice(format!(
            "Your {count} requests make a link longer than {MAX_LINK_CHARS} characters, and {why}: the trace lasts until the page is closed, and the address bar keeps the last view a link can open again."
        ));
    }

    /// What the page does with the trace of the link it opened: reads a kept one back, or keeps
    /// traffic that the link carried in full (a link may carry up to `MAX_TRACE_IN_URL`
    /// requests) but that makes it longer than the links the page writes, which then name it
    /// instead.
    pub fn open_trace(&self) {
        self.restore_trace();
        #[cfg(feature = "workbench")]
        if self.state.with_untracked(needs_keeping) {
            let (lab, shown) = (*self, self.keeping.trace_shown.get_untracked());
            let state = self.state.get_untracked();
            super::soon(move || lab.keep_trace(state, false, shown));
        }
    }

    /// For a link naming a kept trace (`trace=stored:<id>`), when the page opens it or shows it
    /// again (`apply`): reads the trace back from the browser with the progress bar up
    /// meanwhile, then shows it; or says it is not here and shows the rest of the view with the
    /// default traffic.
    pub fn restore_trace(&self) {
        let named = self.state.with_untracked(|s| s.kept.clone());
        let KeptTrace::Named(id) = named.clone() else {
            return;
        };
        #[cfg(feature = "workbench")]
        {
            self.show_progress(crate::core::url::kept::OPENING, 0);
            let lab = *self;
            match id {
                Some(id) => super::kept_trace::get(id, move |got| lab.reopen(named, got)),
                // A link written before the ids: its trace is the one in `localStorage`.
                None => lab.reopen(named, Ok(super::kept_trace::earlier())),
            }
        }
        #[cfg(not(feature = "workbench"))]
        {
            // web/loader.js gives such a link to the complete module; an old copy of the page
            // may not have.
            let _ = id;
            self.notice(
                "This link's trace is opened by the lab's complete module: reload the page.".into(),
            );
        }
    }

    /// Shows the trace read back for the link `named` (its list read a slice at a time, the
    /// progress bar up), or says why there is none.
    #[cfg(feature = "workbench")]
    fn reopen(&self, named: KeptTrace, got: Result<Option<String>, String>) {
        let lab = *self;
        let still_named = move || lab.state.with_untracked(|s| s.kept == named);
        if !still_named() {
            return; // another view took its place meanwhile
        }
        match got {
            Ok(Some(text)) => {
                let bytes = text.len();
                let reading = crate::core::url::kept::ReadKeptTrace::new(&text);
                drop(text);
                let slicing = Slicing {
                    start_later: true,
                    finish_later: true,
                };
                run_sliced(
                    self.work.progress,
                    reading,
                    slicing,
                    still_named,
                    move |read| {
                        lab.reopened(read.map(|points| (points, bytes)).map_err(|e| {
                            format!("what this browser keeps under it cannot be read ({e})")
                        }))
                    },
                );
            }
            Ok(None) => self.reopened(Err(
                "it is not here (another browser, or this one's site data was cleared)".into(),
            )),
            Err(why) => self.reopened(Err(format!("this browser would not give it back ({why})"))),
        }
    }

    /// Shows a trace read back for the link the state names, or says why there is none.
    #[cfg(feature = "workbench")]
    fn reopened(&self, read: Result<(Vec<crate::core::traffic::Point>, usize), String>) {
        self.work.progress.set(None);
        let KeptTrace::Named(id) = self.state.with_untracked(|s| s.kept.clone()) else {
            return;
        };
        match read {
            Ok((points, bytes)) => {
                if let Some(id) = &id {
                    self.keeping.said.set(Some(format!(
                        "Opened from this browser's IndexedDB (database \"{}\", store \"{}\", id {id}): {} requests, {bytes} bytes of text. The link opens them again in this browser only.",
                        super::kept_trace::DATABASE,
                        super::kept_trace::STORE,
                        points.len(),
                    )));
                }
                // A trace from `localStorage` is kept again in IndexedDB, under its id.
                self.change(|s| {
                    s.pattern = Pattern::from_points(points);
                    s.kept = id.map_or(KeptTrace::No, KeptTrace::Kept);
                });
            }
            Err(why) => {
                self.notice(format!(
                    "The link points at a trace kept in this browser (trace={}), and {why}; showing the default traffic.",
                    crate::core::url::kept_link(id.as_deref()),
                ));
                self.change(|s| s.kept = KeptTrace::No);
            }
        }
    }

    /// For a link opened with Back or Forward: shows it, reading a kept trace back (`apply`)
    /// unless it is the one on screen.
    pub fn show_link(&self, mut next: LabState) {
        if let KeptTrace::Named(Some(id)) = &next.kept {
            let kept = KeptTrace::Kept(id.clone());
            self.state.with_untracked(|now| {
                if now.kept == kept {
                    next.pattern = now.pattern.clone();
                    next.kept = kept;
                }
            });
        }
        self.show(next, false);
    }

    /// Shows that `what` is under way, `permille` thousandths done.
    pub fn show_progress(&self, what: &'static str, permille: u32) {
        self.work.progress.set(Some(Progress { what, permille }));
    }

    /// Adds a message to the notices at the top of the page (once), and keeps it with the view's
    /// history entry.
    pub fn notice(&self, message: String) {
        if self
            .address
            .notices
            .with_untracked(|n| n.contains(&message))
        {
            return;
        }
        self.address.notices.update(|n| n.push(message));
        self.address
            .notices
            .with_untracked(|n| super::write_notices(n));
    }

    /// Replaces the notices, those of the view's history entry too: a view opened with Back or
    /// Forward shows its own (`super::entry_notices`), and Dismiss empties them.
    pub fn set_notices(&self, notices: Vec<String>) {
        super::write_notices(&notices);
        self.address.notices.set(notices);
    }

    pub fn query(&self) -> String {
        self.state.with(to_query)
    }
}
