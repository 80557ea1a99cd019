//! Questions people ask (`core::questions`), on the page: the open question with its answer
//! above the timelines, the answer's figures marked so they can be read beside the figures table
//! (`data-figure`, `data-figure-of`), and the list of every question, filtered by product, each a
//! real link (`?q=<slug>`) that opens in place, so that Back returns to the list. The answer is
//! the core's, computed from the run on screen: a slider moved while a question is open changes
//! its figures. Only in the complete module: the first one has the list's heading alone
//! (`super::workbench`).

use leptos::prelude::*;

use crate::core::questions::{find, topics, Part, Topic, QUESTIONS};
use crate::core::url::parse_query;

use super::state::Lab;

/// The open question's heading, focused when a person opens a question from the list.
const HEADING_ID: &str = "question-title";

/// Focuses the element with `id` (it scrolls into view with the focus).
fn focus_id(id: &str) {
    use wasm_bindgen::JsCast;
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

/// The open question and its answer, above the timelines.
/// The characters of the open question's card, its title and its answer (0 when none is open):
/// what an embed's suggested height makes room for (`core::embed::suggested_height`).
pub fn open_question_chars(lab: Lab) -> usize {
    let Some(question) = lab.state.with(|s| s.question).and_then(find) else {
        return 0;
    };
    let answer = lab
        .run
        .with(|run| lab.state.with(|s| question.answer(s, run)));
    question.title.chars().count() + answer.text().chars().count()
}

#[component]
pub fn QuestionView() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let question = move || lab.state.with(|s| s.question).and_then(find);
    let answered = move || {
        let question = question()?;
        Some(
            lab.run
                .with(|run| lab.state.with(|s| question.answer(s, run))),
        )
    };
    // The request the answer is about goes to the inspector when it changes; a question newly
    // opened takes the focus to its heading.
    Effect::new(
        move |before: Option<(Option<&'static str>, Option<usize>)>| {
            let slug = lab.state.with(|s| s.question);
            let inspect = answered().and_then(|a| a.inspect);
            if let (Some(i), true) = (inspect, before.is_none_or(|b| b.1 != inspect)) {
                lab.focus.selected.set(Some(i));
            }
            if before.is_some_and(|b| b.0 != slug) && slug.is_some() {
                super::next_frame(|| focus_id(HEADING_ID));
            }
            (slug, inspect)
        },
    );
    let embed = lab.is_embed();
    let title = move || question().map(|q| q.title).unwrap_or_default();
    let answer = move || {
        answered()
            .map(|a| a.parts)
            .unwrap_or_default()
            .into_iter()
            .map(|part| match part {
                Part::Words(words) => words.into_any(),
                Part::Figure {
                    text,
                    testid,
                    attribute,
                } => view! {
                    <strong class="figure" data-figure=attribute data-figure-of=testid>{text}</strong>
                }
                .into_any(),
            })
            .collect::<Vec<AnyView>>()
    };
    // Always in the page, hidden while no question is open: one view, its text following.
    view! {
        <section class="question" class:hidden=move || question().is_none() data-testid="question" aria-labelledby=HEADING_ID>
            <p class="question-kicker">"A question people ask"</p>
            <h2 id=HEADING_ID tabindex="-1">{title}</h2>
            <p class="answer" data-testid="answer">{answer}</p>
            {(!embed).then(|| view! {
                <p class="question-links">
                    <a href="#questions" data-testid="all-questions">"All questions"</a>
                    <button type="button" data-testid="question-close" on:click=move |_| lab.change_and_remember(|s| s.question = None)>"Close the question"</button>
                </p>
            })}
        </section>
    }
}

/// Opens question `slug` in place, as a new entry of the browser's history.
fn open(lab: Lab, slug: &'static str) {
    let next = parse_query(&format!("q={slug}")).state;
    lab.playback.playhead.set(None);
    lab.change_and_remember(|s| {
        let theme = s.theme;
        *s = next;
        s.theme = theme;
    });
}

/// The list of questions, filtered by product.
#[component]
pub fn QuestionList() -> impl IntoView {
    let lab = expect_context::<Lab>();
    // The product chosen (its place in `Topic::ALL`), and the question last opened from the list
    // (its place in `QUESTIONS`): plain indices, the same signal type as the page's others.
    let filter = RwSignal::new(None::<usize>);
    let opened = RwSignal::new(None::<usize>);
    // Back to a view without a question gives the focus back to the link that opened it.
    let back = window_event_listener(leptos::ev::popstate, move |_| {
        if let (Some(q), None) = (
            opened.get_untracked().and_then(|i| QUESTIONS.get(i)),
            parse_query(&super::current_query()).state.question,
        ) {
            opened.set(None);
            super::next_frame(move || focus_id(&format!("question-link-{}", q.slug)));
        }
    });
    on_cleanup(move || back.remove());
    if super::workbench::asked_to_open("questions") {
        super::next_frame(|| focus_id("questions-heading"));
    }
    let options = topics()
        .into_iter()
        .map(|t| view! { <option value=t.slug()>{t.label()}</option> })
        .collect_view();
    let shown = move || {
        let chosen = filter.get().and_then(|i| Topic::ALL.get(i).copied());
        QUESTIONS
            .iter()
            .enumerate()
            .filter(move |(_, q)| chosen.is_none_or(|t| q.concerns(t)))
    };
    let count = move || format!("{} of {} questions", shown().count(), QUESTIONS.len());
    let items = move || {
        let open_now = lab.state.with(|s| s.question);
        shown()
            .map(|(i, q)| {
                let slug = q.slug;
                let about: Vec<&str> = q.topics.iter().map(|t| t.label()).collect();
                view! {
                    <li>
                        <a
                            href=format!("?q={slug}")
                            id=format!("question-link-{slug}")
                            data-testid=format!("question-{slug}")
                            aria-current=(open_now == Some(slug)).then_some("true")
                            on:click=move |ev: leptos::ev::MouseEvent| {
                                // A new tab or window is the browser's to open.
                                if ev.ctrl_key() || ev.meta_key() || ev.shift_key() || ev.alt_key() || ev.button() != 0 {
                                    return;
                                }
                                ev.prevent_default();
                                opened.set(Some(i));
                                open(lab, slug);
                            }
                        >{q.title}</a>
                        <span class="question-about">{about.join(", ")}</span>
                    </li>
                }
                .into_any()
            })
            .collect::<Vec<AnyView>>()
    };
    view! {
        <section class="questions" id="questions" data-testid="questions" aria-labelledby="questions-heading">
            <h2 id="questions-heading" tabindex="-1">"Questions people ask"</h2>
            <p class="hint">"The questions users of rate limiters ask again and again in the libraries' issue trackers. Each opens a view of the lab that answers it, in sentences that quote that view's own figures; change the view and the answer follows."</p>
            <div class="questions-filter">
                <label for="questions-filter">"Product"</label>
                <select id="questions-filter" data-testid="questions-filter" on:change=move |ev| {
                    let slug = event_target_value(&ev);
                    filter.set(Topic::ALL.iter().position(|t| t.slug() == slug));
                }>
                    <option value="">"Every product"</option>
                    {options}
                </select>
            </div>
            <p class="questions-count" data-testid="questions-count">{count}</p>
            <ol class="question-list">{items}</ol>
        </section>
    }
}
