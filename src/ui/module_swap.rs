//! Swapping the page's module without a reload (docs/architecture.md, "Three modules"). When a
//! view needs what the running module lacks (a product row, a rule, the Durable Object lab, a
//! section of the complete module), the running module writes the view's address and asks
//! web/loader.js (`window.ratelabSwitch`) for the module that address needs. The page stays as
//! it is, and usable, while the new module arrives; the new module's `ui::start` then retires
//! the old one (`window.ratelabRetire`) and mounts itself in the same task, so no frame shows
//! neither. What a person was doing carries over: the control that had the focus (by its
//! `data-testid`), the scroll position, and the history entries, whose addresses the new module
//! reads as the old one wrote them.
//!
//! Retiring leaves nothing of the old module listening: its Leptos roots are cleaned up (their
//! `on_cleanup`s remove their window listeners) and their nodes removed, what it set up outside Leptos (observers,
//! listeners, the tour's dialog) is undone by the actions registered with [`on_retire`], and
//! its pending timers and frames find it retired ([`is_retired`]) and do nothing.

use std::cell::{Cell, RefCell};

use leptos::prelude::{IntoView, Owner};
use leptos::tachys::view::{Mountable, Render};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

thread_local! {
    /// The module's mounted Leptos roots, removed when it retires.
    static ROOTS: RefCell<Vec<Root>> = const { RefCell::new(Vec::new()) };
    /// What undoes the module's own listeners and observers when it retires.
    static ON_RETIRE: RefCell<Vec<Box<dyn FnOnce()>>> = RefCell::new(Vec::new());
    static RETIRED: Cell<bool> = const { Cell::new(false) };
    /// Whether the loader is already bringing the next module.
    static SWITCHING: Cell<bool> = const { Cell::new(false) };
    /// What the page carried from the module before, until the whole page is built.
    static CARRIED: RefCell<Option<Carried>> = const { RefCell::new(None) };
}

/// The loader's function that brings the module the address needs (web/loader.js).
const SWITCH: &str = "ratelabSwitch";
/// The running module's function that retires it, called by the next module's `ui::start`.
const RETIRE: &str = "ratelabRetire";

/// Mounts `view` at the end of `parent` as a root of its own, kept until the module retires:
/// then its owner is cleaned up (its effects stop, its `on_cleanup`s run) and its nodes are
/// removed as a whole, everything between two comments that enclose it (what it adds later, a
/// section built once the page is shown, lands between them too). Leptos's `mount_to` would
/// unmount the view node by node instead, whose code for every element of the page the first
/// module has no room for.
pub(crate) fn mount_root<N: IntoView>(parent: &web_sys::HtmlElement, view: impl FnOnce() -> N) {
    let _ = any_spawner::Executor::init_wasm_bindgen();
    let Some(document) = parent.owner_document() else {
        return;
    };
    let start = document.create_comment("root");
    let end = document.create_comment("/root");
    let _ = parent.append_child(&start);
    let owner = Owner::new();
    owner.with(|| {
        let mut built = view().into_view().build();
        built.mount(parent, None);
        // Its nodes are removed as a whole when the module retires; its listeners go with them.
        std::mem::forget(built);
    });
    let _ = parent.append_child(&end);
    ROOTS.with(|roots| {
        roots.borrow_mut().push(Root {
            owner,
            start: start.into(),
            end: end.into(),
        })
    });
}

/// One mounted root: its owner, and the comments its nodes lie between.
struct Root {
    owner: Owner,
    start: web_sys::Node,
    end: web_sys::Node,
}

impl Root {
    /// Stops the root's reactive work and removes its nodes, the comments included.
    fn remove(self) {
        self.owner.cleanup();
        let mut next = Some(self.start);
        while let Some(node) = next {
            next = node.next_sibling();
            if let Some(parent) = node.parent_node() {
                let _ = parent.remove_child(&node);
            }
            if node.is_same_node(Some(&self.end)) {
                break;
            }
        }
    }
}

/// Runs `undo` when the module retires: for what lives outside Leptos's owners (an observer, a
/// listener on the window or the body, an element added by hand).
pub(crate) fn on_retire(undo: impl FnOnce() + 'static) {
    ON_RETIRE.with(|actions| actions.borrow_mut().push(Box::new(undo)));
}

/// True once another module has taken the page: a timer or a frame of this one does nothing.
pub(crate) fn is_retired() -> bool {
    RETIRED.with(Cell::get)
}

/// True once this module has asked for another: it changes neither the view nor the address
/// while that one is on its way.
pub(crate) fn is_switching() -> bool {
    SWITCHING.with(Cell::get)
}

/// Asks for the module the page's address needs, `section` naming what to open there (or do:
/// `workbench::DOWNLOAD_PNG`); the page stays as it is until that module takes over. False when
/// no loader is there to ask (a build served without web/loader.js has every part anyway).
pub(crate) fn switch_module(section: Option<&str>) -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let Some(switch) = js_sys::Reflect::get(&window, &JsValue::from_str(SWITCH))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    else {
        return false;
    };
    if SWITCHING.with(|s| s.replace(true)) {
        // Already on its way: it reads the address when it mounts, so it shows the latest view.
        return true;
    }
    if let Some(body) = window.document().and_then(|d| d.body()) {
        let _ = body.set_attribute("aria-busy", "true");
    }
    let section = section.map_or(JsValue::NULL, JsValue::from_str);
    match switch.call1(&window, &section) {
        // The loader brings the module, whose start retires this one.
        Ok(asked) if asked.as_bool() != Some(false) => {}
        // The loader's rule gives this module (tests/site_modules.rs holds it to `site::module_for`,
        // which agrees with what this module lacks): the page stays as it is.
        _ => {
            SWITCHING.with(|s| s.set(false));
            if let Some(body) = window.document().and_then(|d| d.body()) {
                let _ = body.remove_attribute("aria-busy");
            }
        }
    }
    true
}

/// Lets the next module retire this one (`window.ratelabRetire`), whoever asked for it: this
/// module ([`switch_module`]) or the loader (a file dropped on a page that reads none).
pub(crate) fn offer_retirement() {
    if let Some(window) = web_sys::window() {
        let retire = Closure::once_into_js(retire);
        let _ = js_sys::Reflect::set(&window, &JsValue::from_str(RETIRE), &retire);
    }
}

/// Where the person was on the page: what `retire` hands to the next module.
#[derive(Clone, Debug, Default, PartialEq)]
struct Carried {
    /// The `data-testid` of the focused control, or of the nearest element around it that has
    /// one, and whether the focus was on that element's `<summary>` (a section's heading).
    focus: Option<(String, bool)>,
    /// Where that element's top was on screen (CSS pixels from the viewport's top): the new page
    /// puts it there again, so that what the person used stays under their pointer even when the
    /// new view adds a row above it.
    focus_top: Option<f64>,
    scroll_x: f64,
    scroll_y: f64,
    /// How far the side column, which scrolls on its own beside the timelines, was scrolled.
    side_scroll: f64,
    /// The page's height, held until the new page is built, so the scroll position stays.
    height: f64,
}

/// Retires this module: notes where the person was, unmounts every root, undoes what it set up
/// outside Leptos. Returns the note as a JavaScript object for the next module.
fn retire() -> JsValue {
    let carried = where_the_person_is();
    RETIRED.with(|r| r.set(true));
    let roots = ROOTS.with(|roots| std::mem::take(&mut *roots.borrow_mut()));
    // A section's root lies inside the page's: its nodes go with the page's, its work stops
    // with its own owner.
    for root in roots {
        root.remove();
    }
    let actions = ON_RETIRE.with(|a| std::mem::take(&mut *a.borrow_mut()));
    for undo in actions {
        undo();
    }
    if let Some(window) = web_sys::window() {
        let _ = js_sys::Reflect::delete_property(&window, &JsValue::from_str(RETIRE));
        if let Some(body) = window.document().and_then(|d| d.body()) {
            for name in ["data-ready", "data-complete", "data-tour", "aria-busy"] {
                let _ = body.remove_attribute(name);
            }
        }
    }
    to_js(&carried)
}

fn where_the_person_is() -> Carried {
    let Some(window) = web_sys::window() else {
        return Carried::default();
    };
    let document = window.document();
    let marked = document
        .as_ref()
        .and_then(|d| d.active_element())
        .and_then(|active| {
            let marked = active.closest("[data-testid]").ok().flatten()?;
            let on_summary = active.tag_name().eq_ignore_ascii_case("summary");
            Some((marked, on_summary))
        });
    let focus_top = marked
        .as_ref()
        .map(|(element, _)| element.get_bounding_client_rect().top());
    let focus = marked.and_then(|(element, on_summary)| {
        Some((element.get_attribute("data-testid")?, on_summary))
    });
    let height = document
        .and_then(|d| d.document_element())
        .map(|root| f64::from(root.scroll_height()))
        .unwrap_or(0.0);
    let side_scroll = side_column().map(|side| f64::from(side.scroll_top()));
    Carried {
        focus,
        focus_top,
        scroll_x: window.scroll_x().unwrap_or(0.0),
        scroll_y: window.scroll_y().unwrap_or(0.0),
        side_scroll: side_scroll.unwrap_or(0.0),
        height,
    }
}

fn to_js(carried: &Carried) -> JsValue {
    let object = js_sys::Object::new();
    let set = |name: &str, value: JsValue| {
        let _ = js_sys::Reflect::set(&object, &JsValue::from_str(name), &value);
    };
    if let Some((testid, on_summary)) = &carried.focus {
        set("focus", JsValue::from_str(testid));
        set("summary", JsValue::from_bool(*on_summary));
    }
    if let Some(top) = carried.focus_top {
        set("top", JsValue::from_f64(top));
    }
    set("x", JsValue::from_f64(carried.scroll_x));
    set("y", JsValue::from_f64(carried.scroll_y));
    set("side", JsValue::from_f64(carried.side_scroll));
    set("height", JsValue::from_f64(carried.height));
    object.into()
}

fn from_js(value: &JsValue) -> Carried {
    let get = |name: &str| js_sys::Reflect::get(value, &JsValue::from_str(name)).ok();
    let number = |name: &str| get(name).and_then(|v| v.as_f64()).unwrap_or(0.0);
    Carried {
        focus: get("focus").and_then(|v| v.as_string()).map(|testid| {
            let on_summary = get("summary").and_then(|v| v.as_bool()).unwrap_or(false);
            (testid, on_summary)
        }),
        focus_top: get("top").and_then(|v| v.as_f64()),
        scroll_x: number("x"),
        scroll_y: number("y"),
        side_scroll: number("side"),
        height: number("height"),
    }
}

/// In a module that has just arrived: retires the module running the page, if one is, and
/// holds the page at its height so that the scroll position survives until this module's page
/// is built ([`restore`]).
pub(crate) fn take_over() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(retire) = js_sys::Reflect::get(&window, &JsValue::from_str(RETIRE))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    else {
        return;
    };
    let Ok(note) = retire.call0(&window) else {
        return;
    };
    let carried = from_js(&note);
    if let Some(body) = window.document().and_then(|d| d.body()) {
        let _ = body
            .style()
            .set_property("min-height", &format!("{}px", carried.height.ceil()));
    }
    CARRIED.with(|c| *c.borrow_mut() = Some(carried));
}

/// Once this module's page is mounted (`whole` false) and once it is whole (`whole` true):
/// scrolls back to where the person was and, when whole, gives the focus back and lets the
/// page take its own height.
pub(crate) fn restore(whole: bool) {
    let Some(carried) = CARRIED.with(|c| c.borrow().clone()) else {
        return;
    };
    let Some(window) = web_sys::window() else {
        return;
    };
    window.scroll_to_with_x_and_y(carried.scroll_x, carried.scroll_y);
    let side = side_column();
    if let Some(side) = &side {
        side.set_scroll_top(carried.side_scroll.round() as i32);
    }
    if !whole {
        return;
    }
    CARRIED.with(|c| c.borrow_mut().take());
    let Some(document) = window.document() else {
        return;
    };
    if let Some((testid, on_summary)) = &carried.focus {
        let marked = focus_by_testid(&document, testid, *on_summary);
        // Focusing may scroll the control into view: the person's position wins, and the control
        // goes back to where it was on screen.
        window.scroll_to_with_x_and_y(carried.scroll_x, carried.scroll_y);
        if let Some(side) = &side {
            side.set_scroll_top(carried.side_scroll.round() as i32);
        }
        if let (Some(marked), Some(top)) = (marked, carried.focus_top) {
            let moved = marked.get_bounding_client_rect().top() - top;
            // A control of the side column moves with the column's own scroll, where it has one.
            match side.filter(|side| side.contains(Some(marked.as_ref())) && scrolls(side)) {
                Some(side) => side.scroll_by_with_x_and_y(0.0, moved),
                None => window.scroll_by_with_x_and_y(0.0, moved),
            }
        }
    }
    if let Some(body) = document.body() {
        let _ = body.style().remove_property("min-height");
    }
}

/// The side column (`.side`), which scrolls on its own at desktop widths.
fn side_column() -> Option<web_sys::Element> {
    let document = web_sys::window()?.document()?;
    document.query_selector(".side").ok().flatten()
}

/// Whether an element scrolls its own content (taller content than its box).
fn scrolls(element: &web_sys::Element) -> bool {
    element.scroll_height() > element.client_height()
}

/// The elements that take the focus, as a selector.
const FOCUSABLE: &str = "input, select, textarea, button, summary, a[href], [tabindex]";

/// Focuses the element marked `testid`: its heading when the focus was on its `<summary>`, the element
/// itself when it takes the focus, else the first control inside it. Returns the marked element.
fn focus_by_testid(
    document: &web_sys::Document,
    testid: &str,
    on_summary: bool,
) -> Option<web_sys::Element> {
    let selector = format!("[data-testid=\"{}\"]", testid.replace('"', "\\\""));
    let marked = document.query_selector(&selector).ok().flatten()?;
    let inner = |s: &str| marked.query_selector(s).ok().flatten();
    // A section's heading: its `<summary>`, or the heading that takes the focus where the
    // section is open for good (the questions' list).
    let target = match on_summary {
        true => inner(":scope > summary, :scope > h2[tabindex]"),
        false => None,
    }
    .or_else(|| {
        let focusable = marked.matches(FOCUSABLE).unwrap_or(false);
        focusable.then(|| marked.clone())
    })
    .or_else(|| inner(FOCUSABLE));
    if let Some(element) = target.and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = element.focus();
    }
    Some(marked)
}
