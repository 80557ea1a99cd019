//! The page's shared state: the lab state (what the URL holds), the computed run, and the
//! transient view state (playhead, cursor, selection). Every change to the lab state goes
//! through `Lab::change`, which recomputes the run and rewrites the URL in one step.

use std::sync::Arc;

use leptos::prelude::*;

use crate::core::lab::LabRun;
use crate::core::time::Time;
use crate::core::url_state::{to_query, LabState};

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
        }
    }

    /// Changes the lab state, recomputes everything and writes the new URL.
    pub fn change(&self, edit: impl FnOnce(&mut LabState)) {
        let mut next = self.state.get_untracked();
        edit(&mut next);
        if next == self.state.get_untracked() {
            return;
        }
        self.run.set(Arc::new(LabRun::compute(&next)));
        super::replace_url(&to_query(&next));
        let trace_len = self.run.with_untracked(|r| r.trace.len());
        if self.selected.get_untracked().is_some_and(|i| i >= trace_len) {
            self.selected.set(None);
        }
        self.state.set(next);
    }

    pub fn query(&self) -> String {
        self.state.with(to_query)
    }
}
