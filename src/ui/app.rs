//! The whole page: reads the URL once, then keeps it in step with every change.

use leptos::prelude::*;

use crate::core::embed::control_names;
use crate::core::theme::Theme;
use crate::core::url::parse_query;

use super::controls::{Controls, ThemePicker};
use super::inspector::announce;
use super::questions::QuestionView;
use super::state::Lab;
use super::tables::StatsTable;
use super::timeline::Timelines;

#[component]
pub fn App() -> impl IntoView {
    let parsed = parse_query(&super::current_query());
    // The messages about the link, unless its history entry keeps those said about its view
    // (the page reloaded, a module took over from another, or Back opened an entry it wrote).
    let notices = super::entry_notices()
        .unwrap_or_else(|| parsed.notices.into_iter().map(|n| n.message).collect());
    super::write_notices(&notices);
    let lab = Lab::new(parsed.state, notices);
    provide_context(lab);
    lab.open_trace();
    // Back and Forward walk the views a person chose deliberately (`Lab::change_and_remember`):
    // the address bar already holds the one to show, and its entry the messages said about it
    // (an entry the page did not write gets its link's).
    let history = window_event_listener(leptos::ev::popstate, move |_| {
        lab.playback.playhead.set(None);
        let parsed = parse_query(&super::current_query());
        lab.set_notices(
            super::entry_notices()
                .unwrap_or_else(|| parsed.notices.into_iter().map(|n| n.message).collect()),
        );
        lab.show_link(parsed.state);
    });
    on_cleanup(move || history.remove());

    // The theme is an attribute on <html>, so plain CSS can follow it.
    Effect::new(move |_| {
        let theme = lab.state.with(|s| s.theme);
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            match theme {
                Theme::Auto => {
                    let _ = root.remove_attribute("data-theme");
                }
                other => {
                    let _ = root.set_attribute("data-theme", other.slug());
                }
            }
        }
    });
    // The live region says what the selected request got.
    Effect::new(move |_| {
        let text = match lab.focus.selected.get() {
            Some(i) => lab.run.with(|run| announce(run, i)),
            None => String::new(),
        };
        lab.focus.announcement.set(text);
    });

    // What the first screen does not show is built once that screen has been painted, in a root
    // of its own inside `below`: on a slow phone, building and laying out every section before
    // the first paint made the first view wait for all of them. `data-complete` on <body> says
    // when they are there.
    let below = NodeRef::<leptos::html::Div>::new();
    // What an embed shows is fixed by its link: only a new link changes it. A caption is the
    // view's title.
    let (controls, title) = lab.state.with_untracked(|s| {
        let title = match s.caption.is_empty() {
            true => "Rate Limit Lab".to_string(),
            false => s.caption.clone(),
        };
        (control_names(&s.controls), title)
    });
    let embed = lab.is_embed();
    let shows_theme = lab
        .state
        .with_untracked(|s| s.shows(crate::core::embed::Control::Theme));
    Effect::new(move |built: Option<bool>| {
        if built == Some(true) || !lab.page.first_view_shown.get() {
            return built.unwrap_or(false);
        }
        super::next_frame(move || {
            super::soon(move || {
                if let (Some(parent), false) = (below.get_untracked(), embed) {
                    full_page::build_below(parent, lab);
                }
                if embed {
                    super::embed::talk_to_parent(lab);
                }
                lab.page.complete.set(true);
                super::mark_complete();
            })
        });
        true
    });
    let lede = move || {
        lab.run.with(|run| {
            format!(
                "The same {} requests reach every limiter. Each promises at most {} requests per {} s.",
                run.trace.len(),
                run.settings.limit,
                crate::core::time::format_seconds(run.settings.window.micros())
            )
        })
    };
    let notices = move || {
        let list = lab.address.notices.get();
        (!list.is_empty()).then(|| {
            view! {
                <div class="notices" role="alert" data-testid="notices">
                    <ul>{list.into_iter().map(|n| view! { <li data-testid="notice">{n}</li> }).collect_view()}</ul>
                    <button class="dismiss" on:click=move |_| lab.set_notices(Vec::new())>"Dismiss"</button>
                </div>
            }
            .into_any()
        })
    };

    view! {
        <div class="page" class:embed=embed data-controls=controls>
            <header class="top">
                <h1 data-testid="title">{title}</h1>
                <p class="lede" data-testid="lede">{lede}</p>
                {shows_theme.then(|| view! { <ThemePicker/> })}
                {embed.then(|| view! {
                    // Its address is written once the page is whole: on a phone, writing the
                    // link the first time (every field's code run for the first time) took
                    // about 10 ms of the embed's first view.
                    <a class="open-full" target="_blank" rel="noopener" href=move || lab.page.complete.get().then(|| super::url_for(&lab.query().replace("&embed=1", "").replace("embed=1", "")))>"Open in Rate Limit Lab ↗"</a>
                })}
            </header>
            {notices}
            {kept_line(lab)}
            {move || lab.work.progress.get().map(|progress| view! {
                <div class="progress" role="status" data-testid="progress">
                    <span>{progress.what}</span>
                    <progress max="1000" value=progress.permille></progress>
                </div>
            }.into_any())}
            <p class="live" aria-live="polite" data-testid="live">{move || lab.focus.announcement.get()}</p>
            <div class="layout">
                <aside class="side">
                    <Controls/>
                    {full_page::counting_controls(embed)}
                </aside>
                <main class="main">
                    <QuestionView/>
                    <Timelines/>
                    {full_page::inspector(embed)}
                    <StatsTable/>
                    <div class="below-first-view" node_ref=below></div>
                </main>
            </div>
        </div>
    }
}

/// Where the trace on screen is kept (`Lab::kept`), under the notices. Only the complete module
/// keeps traces, so the first view's has no such line.
#[cfg(feature = "workbench")]
fn kept_line(lab: Lab) -> impl IntoView {
    move || {
        lab.keeping.said.get().map(|kept| {
            view! { <p class="kept" role="status" data-testid="trace-kept">{kept}</p> }
        })
    }
}

#[cfg(not(feature = "workbench"))]
fn kept_line(_: Lab) -> impl IntoView {}

/// What an embed never shows: the counting rules' section and the inspector (an embed shows what
/// its link sets, and its link opens the full lab), and the sections below the first view.
mod full_page {
    use leptos::prelude::*;

    use crate::ui::compose_panel::ComposePanel;
    use crate::ui::config_panel::ConfigPanel;
    use crate::ui::controls::ShareEmbed;
    use crate::ui::counting_controls::CountingControls;
    #[cfg(not(feature = "durable"))]
    use crate::ui::durable_heading::DurableLab;
    #[cfg(feature = "durable")]
    use crate::ui::durable_lab::DurableLab;
    use crate::ui::explain::Explanations;
    use crate::ui::import_panel::ImportPanel;
    use crate::ui::inspector::Inspector;
    use crate::ui::questions::QuestionList;
    use crate::ui::state::Lab;
    use crate::ui::tables::DecisionTable;
    use crate::ui::view_file::ViewFilePanel;

    pub fn counting_controls(embed: bool) -> impl IntoView {
        (!embed).then(|| view! { <CountingControls/> })
    }

    pub fn inspector(embed: bool) -> impl IntoView {
        (!embed).then(|| view! { <Inspector/> })
    }

    /// Builds the sections below the first view in `parent`, a root of their own.
    pub fn build_below(parent: web_sys::HtmlDivElement, lab: Lab) {
        crate::ui::module_swap::mount_root(&parent.into(), move || {
            provide_context(lab);
            view! {
                <ImportPanel/>
                <ConfigPanel/>
                <ViewFilePanel/>
                <ComposePanel/>
                <DurableLab/>
                <QuestionList/>
                <DecisionTable/>
                <ShareEmbed/>
                <Explanations/>
            }
        });
    }
}
