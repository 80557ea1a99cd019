//! The seed documents' lessons about a central limiter, each a view one click away: the
//! Durable Object lab lists them with their explanations (`super::durable_lab`), and the first
//! view's module, which has no Durable Object lab, lists the same buttons, each of which reloads
//! the page into the module that has it (`super::durable_heading`).

use leptos::prelude::*;

use crate::core::url::parse_query;

use super::state::Lab;

/// The lab's first line and its row's checkbox, the same in every module (the first view's only
/// lists the scenarios and the checkbox: `super::durable_heading`).
pub const LAB_INTRO: &str = "The same requests through an emulated Durable Object: one object, far away, single-threaded, sometimes slow, evicted or unreachable.";
pub const SHOW_ROW: &str = "Show the Durable Object row";

/// A lesson from the seed documents: a state, and what its figures say.
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

/// One button per scenario: each replaces the view with the scenario's (the theme kept), as a
/// history entry.
#[component]
pub fn ScenarioButtons() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let buttons = every_scenario()
        .map(|sc| {
            let query = sc.query;
            view! {
                <button class="scenario" data-testid=format!("scenario-{}", sc.id) on:click=move |_| {
                    let next = parse_query(query).state;
                    lab.playhead.set(None);
                    lab.change_and_remember(|s| { let theme = s.theme; *s = next; s.theme = theme; });
                    lab.active_scenario.set(Some(query));
                }>{sc.title}</button>
            }
        })
        .collect_view();
    view! { <div class="scenarios" role="group" aria-label="Scenarios">{buttons}</div> }
}
