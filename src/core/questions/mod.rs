//! Questions people ask: the ones users of rate-limiting libraries ask again and again in their
//! issue trackers, each with the view of the lab that answers it (a link's fields, opened with
//! `q=<slug>`, `core::url::question_link`) and a function from that view's run to two or three
//! sentences quoting its figures. Nothing in an answer is written by hand but the words: every
//! figure comes from the run (or from the setting that produced it), so the answer stays true
//! when the view changes, and follows a slider a person moves while the question is open.
//!
//! Where each question is asked (read for the wording, never copied):
//! - burst plus one: brandur/redis-cell#70 ("the total limit of the key (max_burst + 1)"), and
//!   governor's and x/time/rate's documentation of the burst as the bucket's size;
//! - nginx's page burst: openfoodfacts/openfoodfacts-infrastructure#304 (6000r/m refusing a
//!   page's images), desec-io/desec-stack#304 (30r/s refusing five parallel requests);
//! - a second server: express-rate-limit/express-rate-limit#200 and #331 (the memory store, one
//!   per process);
//! - Retry-After and still 429: clients that retry as told, this lab's `clients=obey`
//!   (`super::retries`), Upstash's `reset` and its ephemeral cache;
//! - refused requests counted: express-rate-limit/express-rate-limit#325;
//! - the fixed window's edges: alisaifee/limits#250, plausible/analytics#6497;
//! - a cost above the burst: boinkor-net/governor#11 (`InsufficientCapacity`), golang/go#38434
//!   (`ReserveN` not OK when n exceeds the burst);
//! - remaining and reset of a GCRA: brandur/redis-cell#12;
//! - two limits at once: express-rate-limit/express-rate-limit#331;
//! - the far or unreachable limiter, the hot key: Cloudflare's Durable Objects rate-limiter
//!   example and limits (cloudflare/cloudflare-docs#12547, #10550), this lab's seed documents;
//! - the binding letting more through: icssc/anteater-api#435 ("ratelimits are local to
//!   location", periods of 10 or 60 s).

mod answers;
mod durable;
mod say;

pub use say::{Answer, Part};

use crate::core::lab::LabRun;
use crate::core::lab_state::LabState;

/// What a question concerns, for the list's filter: a product, or the textbook algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topic {
    Algorithms,
    Nginx,
    Governor,
    RedisCell,
    XTimeRate,
    ExpressRateLimit,
    Upstash,
    Envoy,
    PythonLimits,
    Cloudflare,
}

impl Topic {
    /// Every topic, in the order the filter offers them.
    pub const ALL: [Topic; 10] = [
        Topic::Algorithms,
        Topic::Nginx,
        Topic::Governor,
        Topic::RedisCell,
        Topic::XTimeRate,
        Topic::ExpressRateLimit,
        Topic::Upstash,
        Topic::Envoy,
        Topic::PythonLimits,
        Topic::Cloudflare,
    ];

    /// The filter's value for it.
    pub fn slug(self) -> &'static str {
        match self {
            Topic::Algorithms => "algorithms",
            Topic::Nginx => "nginx",
            Topic::Governor => "governor",
            Topic::RedisCell => "redis-cell",
            Topic::XTimeRate => "x-time-rate",
            Topic::ExpressRateLimit => "express-rate-limit",
            Topic::Upstash => "upstash",
            Topic::Envoy => "envoy",
            Topic::PythonLimits => "limits",
            Topic::Cloudflare => "cloudflare",
        }
    }

    /// The name the filter shows.
    pub fn label(self) -> &'static str {
        match self {
            Topic::Algorithms => "The textbook algorithms",
            Topic::Nginx => "nginx limit_req",
            Topic::Governor => "governor (Rust)",
            Topic::RedisCell => "redis-cell",
            Topic::XTimeRate => "Go x/time/rate",
            Topic::ExpressRateLimit => "express-rate-limit",
            Topic::Upstash => "Upstash",
            Topic::Envoy => "Envoy",
            Topic::PythonLimits => "Python limits",
            Topic::Cloudflare => "Cloudflare (binding, Durable Objects)",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Topic> {
        Topic::ALL.into_iter().find(|t| t.slug() == slug)
    }
}

/// One question and the view that answers it.
pub struct Question {
    /// Its name in a link: `q=<slug>`.
    pub slug: &'static str,
    /// The question, as people ask it.
    pub title: &'static str,
    /// What it concerns, for the list's filter.
    pub topics: &'static [Topic],
    /// The view that answers it: a link's fields, read over the lab's defaults.
    pub view: &'static str,
    answer: fn(&LabState, &LabRun) -> Answer,
}

impl Question {
    /// The answer for the view on screen: `state` and the run computed from it.
    pub fn answer(&self, state: &LabState, run: &LabRun) -> Answer {
        (self.answer)(state, run)
    }

    pub fn concerns(&self, topic: Topic) -> bool {
        self.topics.contains(&topic)
    }
}

/// The twelve questions, in the order the list shows them.
pub const QUESTIONS: [Question; 12] = [
    Question {
        slug: "burst-plus-one",
        title: "I set a burst of 15; why did 16 pass?",
        topics: &[Topic::RedisCell, Topic::Governor, Topic::XTimeRate],
        view: "limit=15&window=60&pattern=clicks&compose=20@0&algos=redis-cell,governor,x-time-rate&cell-burst=15",
        answer: answers::burst_plus_one,
    },
    Question {
        slug: "nginx-page-burst",
        title: "Why does nginx refuse my page's burst at 6000r/m?",
        topics: &[Topic::Nginx],
        view: "limit=6000&window=60&pattern=clicks&compose=400/s@0-0.05&algos=leaky-bucket,nginx&leak-burst=19&leak-delay=8&nginx-rate=6000r/m&nginx-burst=0",
        answer: answers::nginx_page_burst,
    },
    Question {
        slug: "second-server",
        title: "My limit doubled when I added a second server",
        topics: &[Topic::Algorithms, Topic::ExpressRateLimit, Topic::Envoy, Topic::Cloudflare],
        view: "pattern=steady&algos=sliding-log,envoy,cf-binding,express-rate-limit&instances=2",
        answer: answers::second_server,
    },
    Question {
        slug: "retry-after-429",
        title: "My client waited Retry-After and still got 429",
        topics: &[Topic::Algorithms, Topic::Upstash],
        view: "pattern=clicks&compose=15@0.5&algos=fixed,sliding-log,upstash-fixed&clients=obey",
        answer: answers::retry_after_429,
    },
    Question {
        slug: "refused-count",
        title: "Do refused requests count?",
        topics: &[Topic::Algorithms, Topic::ExpressRateLimit, Topic::Nginx],
        view: "pattern=steady&algos=sliding-log,nginx,express-rate-limit&count-refused=1",
        answer: answers::refused_count,
    },
    Question {
        slug: "window-edge",
        title: "Why were 10 let through in one 10-second window with a limit of 5?",
        topics: &[Topic::Algorithms, Topic::Upstash, Topic::ExpressRateLimit, Topic::PythonLimits],
        view: "algos=fixed,sliding-log,upstash-fixed,express-rate-limit,limits-fixed",
        answer: answers::window_edge,
    },
    Question {
        slug: "cost-over-burst",
        title: "A request costing more than the burst never passes",
        topics: &[Topic::Governor, Topic::XTimeRate, Topic::RedisCell, Topic::Algorithms],
        view: "limit=10&trace=0*12,1,2*3,30*12,31*10,60*12&algos=token-bucket,governor,redis-cell,x-time-rate",
        answer: answers::cost_over_burst,
    },
    Question {
        slug: "gcra-remaining-reset",
        title: "What do remaining and reset mean for GCRA?",
        topics: &[Topic::Algorithms, Topic::Governor, Topic::RedisCell],
        view: "trace=0,0,0,0,0,0,3&algos=gcra,governor,redis-cell",
        answer: answers::gcra_remaining_reset,
    },
    Question {
        slug: "which-limit",
        title: "Per-IP and per-key at once: which one refused me?",
        topics: &[Topic::Algorithms, Topic::ExpressRateLimit],
        view: WHICH_LIMIT_VIEW,
        answer: answers::which_limit,
    },
    Question {
        slug: "limiter-down",
        title: "What happens when the limiter is far away or down?",
        topics: &[Topic::Cloudflare],
        view: "pattern=steady&algos=sliding-log&do=1&from=fra&home=iad&outage=20-30",
        answer: durable::limiter_down,
    },
    Question {
        slug: "binding-more",
        title: "Why does Cloudflare's binding let more through than I set?",
        topics: &[Topic::Cloudflare],
        view: "limit=3&window=15&pattern=clicks&compose=2/s@0-60&algos=sliding-log,cf-binding&instances=2",
        answer: answers::binding_more,
    },
    Question {
        slug: "hot-key",
        title: "One hot key melts my Durable Object",
        topics: &[Topic::Cloudflare],
        view: "limit=1000&window=1&pattern=double&algos=sliding-log&do=1&from=iad&home=iad&shards=1",
        answer: durable::hot_key,
    },
];

/// The view of "which limit": Alice's and Bob's keys behind one address, the rows, and the
/// second limit on the address.
const WHICH_LIMIT_VIEW: &str = "trace=0@203.0.113.7:alice,0.5@203.0.113.7:alice,1@203.0.113.7:alice,1.5@203.0.113.7:alice,2@203.0.113.7:bob,2.5@203.0.113.7:bob,3@203.0.113.7:bob,3.5@203.0.113.7:bob,4@203.0.113.7:alice,4.5@203.0.113.7:alice,5@203.0.113.7:alice&algos=sliding-log,fixed,express-rate-limit&also=6/10&also-key=prefix";

/// The question named `slug`.
pub fn find(slug: &str) -> Option<&'static Question> {
    QUESTIONS.iter().find(|q| q.slug == slug)
}

/// What a link needs of a question (`core::url::question_link`): its slug and its view, without
/// its answer, so that reading a link carries none of the answers' code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuestionLink {
    pub slug: &'static str,
    pub view: &'static str,
}

/// Every question's link, in the order of [`QUESTIONS`].
pub static LINKS: [QuestionLink; QUESTIONS.len()] = links();

const fn links() -> [QuestionLink; QUESTIONS.len()] {
    let mut out = [QuestionLink { slug: "", view: "" }; QUESTIONS.len()];
    let mut i = 0;
    while i < QUESTIONS.len() {
        out[i] = QuestionLink {
            slug: QUESTIONS[i].slug,
            view: QUESTIONS[i].view,
        };
        i += 1;
    }
    out
}

/// The link of the question called `slug`.
pub fn link(slug: &str) -> Option<&'static QuestionLink> {
    LINKS.iter().find(|q| q.slug == slug)
}

/// The topics some question concerns, in the filter's order.
pub fn topics() -> Vec<Topic> {
    Topic::ALL
        .into_iter()
        .filter(|t| QUESTIONS.iter().any(|q| q.concerns(*t)))
        .collect()
}

#[cfg(test)]
mod tests;
