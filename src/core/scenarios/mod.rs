//! The Durable Object lab's scenarios: the seed documents' lessons about a central limiter, each
//! a view one click away (a link's fields), and what choosing one does to the view on screen.
//!
//! A scenario applies every field its link sets, and the rest at their defaults, except the
//! traffic (`trace`, `pattern`, `compose`) when the traffic on screen is the person's own (a
//! trace they imported or pasted, segments they composed, requests they clicked, a link's
//! `trace=`): that traffic stays, so a person can run their own requests through a scenario's
//! setup, and the scenario's own traffic is one more click ([`preset`]). Its lesson's sentences
//! are worked out from the run shown (`lessons`).

pub mod lessons;

use crate::core::lab_state::{KeptTrace, LabState};
use crate::core::url::parse_query;

/// A lesson from the seed documents: the view that shows it (a link's fields).
pub struct Scenario {
    pub id: &'static str,
    pub title: &'static str,
    pub query: &'static str,
}

pub const SCENARIOS: [Scenario; 8] = [
    Scenario { id: "far-object", title: "The far-away object", query: "pattern=steady&do=1&from=fra&home=gru&shards=1" },
    Scenario {
        id: "hot-key",
        title: "A hot key melts one object",
        query: "limit=20000&window=1&pattern=double&do=1&from=iad&home=iad&shards=1",
    },
    Scenario { id: "shard-by-key", title: "Sharding by key: one tenant, one shard", query: "limit=20&pattern=double&do=1&from=iad&home=iad&shards=seed" },
    Scenario {
        id: "shard-by-request",
        title: "Sharding per request",
        query: "limit=20&pattern=double&do=1&from=iad&home=iad&shards=seed&shard-by=request",
    },
    Scenario {
        id: "eviction",
        title: "Eviction without persistence: a free window",
        query: "limit=5&window=120&trace=0,0.1,0.2,0.3,0.4,0.5,70&do=1&from=fra&home=fra&shards=1&persist=0&evict=60",
    },
    Scenario {
        id: "alarms",
        title: "Alarms keep storage bounded",
        query: "window=10&trace=0@ip:a,20@ip:b,40@ip:c,60@ip:d,80@ip:e,100@ip:f,120@ip:g,140@ip:h,160@ip:i,180@ip:j,200@ip:k,220@ip:l,240@ip:m,260@ip:n,280@ip:o,300@ip:p,320@ip:q,340@ip:r,360@ip:s,380@ip:t,400@ip:u,420@ip:v,440@ip:w,460@ip:x,480@ip:y,500@ip:z,520@ip:aa,540@ip:ab,560@ip:ac,580@ip:ad,600@ip:ae,620@ip:af,640@ip:ag,660@ip:ah,680@ip:ai,700@ip:aj&do=1&from=fra&home=fra",
    },
    Scenario { id: "cache", title: "A first-tier cache takes the hop out", query: "pattern=retry-storm&do=1&from=syd&home=fra&timeout=400&shards=1&cache=1" },
    Scenario {
        id: "await-between",
        title: "The await that breaks the limiter",
        query: "limit=10&window=1&pattern=burst-trickle&do=1&shards=1&do-code=await-between",
    },
];

pub const BINDING: Scenario = Scenario {
    id: "binding",
    title: "Cloudflare's binding counts per location",
    query: "pattern=double&do=1&from=fra,nrt,iad&tier=binding&period=10",
};

/// The scenarios in the order the lab lists them: the seed's lessons, then the binding.
pub fn every_scenario() -> impl Iterator<Item = &'static Scenario> {
    SCENARIOS.iter().chain(std::iter::once(&BINDING))
}

/// The scenario whose id is `id`.
pub fn find(id: &str) -> Option<&'static Scenario> {
    every_scenario().find(|sc| sc.id == id)
}

impl Scenario {
    /// The scenario's whole view, its own traffic included, in the theme of `now`.
    pub fn preset(&self, now: &LabState) -> LabState {
        parse_query(self.query).state.with_theme(now.theme)
    }

    /// The view choosing the scenario gives when `now` is on screen: its view, keeping the
    /// person's own traffic ([`own_traffic`]) in place of the scenario's.
    pub fn applied(&self, now: &LabState) -> LabState {
        let mut next = self.preset(now);
        if own_traffic(now) {
            next.pattern = now.pattern.clone();
            next.compose = now.compose.clone();
            next.kept = now.kept.clone();
        }
        next
    }

    /// Whether the scenario's own traffic is a list of requests it gives (a `trace=`) rather
    /// than one of the presets.
    pub fn has_own_trace(&self) -> bool {
        parse_query(self.query).state.pattern.given_len() > 0
    }
}

/// Whether the traffic of `state` is the person's own: requests they gave (imported, pasted,
/// clicked, a link's `trace=`, a kept trace) or composed segments, and not the traffic a
/// scenario brought with it.
pub fn own_traffic(state: &LabState) -> bool {
    let given =
        state.pattern.given_len() > 0 || !state.compose.is_empty() || state.kept != KeptTrace::No;
    given
        && !every_scenario().any(|sc| {
            let view = parse_query(sc.query).state;
            view.pattern == state.pattern
                && view.compose == state.compose
                && view.kept == state.kept
        })
}

/// The scenario whose view `state` is (whatever its theme, and with the person's own traffic in
/// place of the scenario's), if any.
pub fn shown(state: &LabState) -> Option<&'static Scenario> {
    every_scenario().find(|sc| sc.applied(state) == *state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::compose::parse_segments;
    use crate::core::theme::Theme;
    use crate::core::time::{Span, Time};
    use crate::core::traffic::Pattern;
    use std::sync::Arc;

    fn far() -> &'static Scenario {
        find("far-object").expect("the far-away object is a scenario")
    }

    fn with_trace(times: &[u64]) -> LabState {
        LabState {
            pattern: Pattern::Trace(Arc::new(
                times.iter().map(|&s| Time::from_secs(s)).collect(),
            )),
            ..LabState::default()
        }
    }

    #[test]
    fn every_scenario_reads_without_a_notice_and_has_a_unique_id() {
        let mut ids = Vec::new();
        for sc in every_scenario() {
            let parsed = parse_query(sc.query);
            assert!(parsed.notices.is_empty(), "{}: {:?}", sc.id, parsed.notices);
            assert!(
                parsed.state.durable.enabled,
                "{} shows the Durable Object row",
                sc.id
            );
            assert!(!ids.contains(&sc.id), "{}", sc.id);
            ids.push(sc.id);
        }
    }

    #[test]
    fn over_a_preset_a_scenario_applies_its_whole_view_and_keeps_only_the_theme() {
        let now = LabState {
            theme: Theme::Dark,
            settings: parse_query("limit=42").state.settings,
            ..LabState::default()
        };
        let next = far().applied(&now);
        assert_eq!(next, parse_query(far().query).state.with_theme(Theme::Dark));
        assert_eq!(next.pattern, Pattern::Steady);
        assert_eq!(
            next.settings.limit, 5,
            "a field it does not set goes to its default"
        );
        assert!(!own_traffic(&now));
    }

    #[test]
    fn over_a_persons_trace_a_scenario_applies_every_field_but_the_traffic() {
        let now = with_trace(&[0, 1, 2, 3]);
        assert!(own_traffic(&now));
        let next = far().applied(&now);
        assert_eq!(next.pattern, now.pattern, "the trace stays");
        let view = parse_query(far().query).state;
        assert_eq!(
            next.durable, view.durable,
            "where the object lives, its shards, do=1"
        );
        assert_eq!(
            next.durable.home,
            Some(crate::core::region::Region::SaoPaulo)
        );
        assert_eq!(next.settings, view.settings);
        assert_eq!(shown(&next).map(|sc| sc.id), Some("far-object"));
        assert_eq!(far().preset(&next), view, "one click gives its own traffic");
        assert_eq!(
            shown(&far().preset(&next)).map(|sc| sc.id),
            Some("far-object")
        );
    }

    #[test]
    fn a_scenario_with_a_trace_of_its_own_keeps_the_persons_trace_too() {
        let eviction = find("eviction").expect("eviction is a scenario");
        assert!(eviction.has_own_trace());
        assert!(!far().has_own_trace());
        let now = with_trace(&[0, 1, 2]);
        let next = eviction.applied(&now);
        assert_eq!(next.pattern, now.pattern);
        assert_eq!(
            next.settings.window,
            Span::from_secs(120),
            "its window applies"
        );
        assert!(!next.durable.persist);
    }

    #[test]
    fn composed_segments_and_a_kept_trace_are_the_persons_own_and_stay() {
        let composed = LabState {
            compose: parse_segments("10@5").expect("a segment"),
            ..LabState::default()
        };
        assert!(own_traffic(&composed));
        let next = far().applied(&composed);
        assert_eq!(next.compose, composed.compose);
        assert_eq!(
            next.pattern,
            Pattern::Edge,
            "the pattern under the segments stays too"
        );

        let named = LabState {
            kept: KeptTrace::Named(Some("0123456789abcdef".into())),
            ..LabState::default()
        };
        assert!(
            own_traffic(&named),
            "a link's trace=stored: not read back yet"
        );
        assert_eq!(far().applied(&named).kept, named.kept);
    }

    #[test]
    fn a_scenarios_own_trace_is_not_the_persons_so_the_next_scenario_brings_its_own() {
        let eviction = find("eviction").expect("eviction is a scenario");
        let alarms = find("alarms").expect("alarms is a scenario");
        let after_eviction = eviction.applied(&LabState::default());
        assert!(!own_traffic(&after_eviction));
        let next = alarms.applied(&after_eviction);
        assert_eq!(next, parse_query(alarms.query).state);
        assert_eq!(shown(&next).map(|sc| sc.id), Some("alarms"));
    }

    #[test]
    fn a_view_that_differs_from_the_scenario_in_a_field_it_sets_is_not_it() {
        let mut next = far().applied(&with_trace(&[0, 1]));
        next.durable.timeout = Span::from_millis(400);
        assert!(shown(&next).is_none());
        assert!(shown(&LabState::default()).is_none());
        assert!(shown(&with_trace(&[0, 1])).is_none());
    }
}
