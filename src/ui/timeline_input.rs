//! The timeline canvas's input besides the arrow keys: the pointer over it (the window bracket
//! follows it), a click (selects the nearest request), and zooming and panning: the wheel with
//! Ctrl or ⌘ (what a trackpad's pinch sends), Shift with the wheel or a sideways wheel, a drag, a
//! two-finger pinch, and the keys `+`, `-` and `0` on the focused timeline, each turned into a
//! stretch of time (`layout::zoom::Range`) that the link keeps as `view=`. A plain wheel is left
//! to the page, which scrolls.

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::core::time::Time;
use crate::layout::timeline::Layout;
use crate::layout::zoom::{Range, KEY_ZOOM};

use super::state::Lab;

/// How much a wheel turn zooms: a notch (100 pixels of scroll) by about a fifth.
const WHEEL_ZOOM_PER_PX: f64 = 0.002;
/// How far a pointer travels before a press is a drag rather than a click.
const DRAG_FROM_PX: f64 = 4.0;

/// Listens on the timeline's canvas for the pointer and the wheel, through one closure for them
/// all (each listener a view declares costs the page's module more), which also keeps the
/// pointers pressed. Being the canvas's own, the wheel's listener may hold the page back from
/// scrolling; one on the document could not.
pub fn listen(canvas: &web_sys::Element, lab: Lab, layout: Memo<Layout>) {
    let mut pointers = Pointers::default();
    let on_event = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
        layout.with_untracked(|l| {
            if let Some(ev) = ev.dyn_ref::<web_sys::WheelEvent>() {
                return wheel(lab, l, ev);
            }
            let Some(ev) = ev.dyn_ref::<web_sys::MouseEvent>() else {
                return;
            };
            let pointer = ev.dyn_ref::<web_sys::PointerEvent>();
            match (ev.type_().as_str(), pointer) {
                ("pointerdown", Some(ev)) => pointers.press(l, ev),
                ("pointermove", Some(ev)) => {
                    lab.focus
                        .cursor
                        .set(Some(l.time_at(f64::from(ev.offset_x()))));
                    if let Some(range) = pointers.drag(l, ev) {
                        show(lab, l, range);
                    }
                }
                ("pointerleave", _) => lab.focus.cursor.set(None),
                ("click", _) if !std::mem::take(&mut pointers.dragged) => select(lab, l, ev),
                (_, Some(ev)) => pointers.release(l, ev),
                _ => {}
            }
        })
    });
    for name in [
        "wheel",
        "pointerdown",
        "pointermove",
        "pointerup",
        "pointercancel",
        "pointerleave",
        "click",
    ] {
        let _ = canvas.add_event_listener_with_callback(name, on_event.as_ref().unchecked_ref());
    }
    // The canvas lives as long as the page.
    on_event.forget();
}

/// A click on the timeline selects the request nearest the pointer (in the lane under it, when
/// the rows are split by key), within 10 pixels.
fn select(lab: Lab, l: &Layout, ev: &web_sys::MouseEvent) {
    let (x, y) = (f64::from(ev.offset_x()), f64::from(ev.offset_y()));
    let lane = l.lane_at(y);
    let nearest = lab.run.with_untracked(|run| {
        let requests = run.trace.requests();
        let shown = l.shown(requests);
        requests[shown.clone()]
            .iter()
            .zip(shown)
            .filter(|(r, _)| l.lanes.lane(r.key) == lane)
            .map(|(r, i)| (i, (l.x(r.at) - x).abs()))
            .filter(|&(_, d)| d <= 10.0)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    });
    if nearest.is_some() {
        lab.focus.selected.set(nearest);
    }
}

/// Shows `range` of the timelines (the whole trace when it covers it).
fn show(lab: Lab, layout: &Layout, range: Range) {
    let view = range.as_view(layout.horizon);
    if lab.state.with_untracked(|s| s.view) != view {
        lab.change(|s| s.view = view);
    }
}

/// Moves the stretch shown so that time `t` (a request the keys selected) is inside it.
pub fn follow(lab: Lab, layout: &Layout, t: Time) {
    show(lab, layout, layout.range.revealing(t, layout.horizon));
}

/// `+`, `-` or `0` on the focused timeline: zoom in or out around `anchor` (the selected
/// request or the playhead), or show the whole trace. False for any other key.
pub fn key(lab: Lab, layout: &Layout, key: &str, anchor: Option<Time>) -> bool {
    let at = anchor.filter(|t| layout.range.contains(*t)).unwrap_or(Time(
        (layout.range.from.micros() + layout.range.to.micros()) / 2,
    ));
    let (r, w, h) = (layout.range, layout.width, layout.horizon);
    match key {
        "+" | "=" => show(lab, layout, r.zoomed_at(at, KEY_ZOOM, w, h)),
        "-" | "_" => show(lab, layout, r.zoomed_at(at, 1.0 / KEY_ZOOM, w, h)),
        "0" => show(lab, layout, Range::whole(h)),
        _ => return false,
    }
    true
}

/// A wheel turn over the timeline: with Ctrl or ⌘ it zooms around the pointer; sideways, or
/// with Shift, it pans a zoomed view. A plain turn is left to the page.
fn wheel(lab: Lab, layout: &Layout, ev: &web_sys::WheelEvent) {
    let per_unit = match ev.delta_mode() {
        1 => 16.0,  // lines
        2 => 400.0, // pages
        _ => 1.0,
    };
    let (dx, dy) = (ev.delta_x() * per_unit, ev.delta_y() * per_unit);
    let x = f64::from(ev.offset_x());
    let (r, w, h) = (layout.range, layout.width, layout.horizon);
    if ev.ctrl_key() || ev.meta_key() {
        ev.prevent_default();
        let factor = (-dy * WHEEL_ZOOM_PER_PX).exp();
        show(lab, layout, r.zoomed_at(layout.time_at(x), factor, w, h));
    } else if (ev.shift_key() || dx.abs() > dy.abs()) && !r.is_whole(h) {
        ev.prevent_default();
        let by = if dx != 0.0 { dx } else { dy };
        show(lab, layout, r.panned(by, w, h));
    }
}

/// The pointers pressed on the timeline: one drags the stretch shown, two pinch it.
#[derive(Clone, Debug, Default)]
struct Pointers {
    /// Each pointer down: its id and where it is.
    down: Vec<(i32, f64)>,
    /// The time under each of the first two pointers when the gesture started: they stay under
    /// them. One for a drag.
    held: Vec<Time>,
    /// How far the pointer has travelled since it came down.
    travelled: f64,
    /// Whether the last press moved the view: its click selects nothing.
    dragged: bool,
}

impl Pointers {
    /// A pointer pressed: the start of a drag, or of a pinch if another is down.
    fn press(&mut self, layout: &Layout, ev: &web_sys::PointerEvent) {
        if ev.pointer_type() == "mouse" && ev.button() != 0 {
            return;
        }
        if let Some(target) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        {
            // Moves and the release come here even from outside the canvas.
            let _ = target.set_pointer_capture(ev.pointer_id());
        }
        self.down.push((ev.pointer_id(), f64::from(ev.offset_x())));
        self.hold(layout);
        self.travelled = 0.0;
        self.dragged = false;
    }

    /// The times under the first two pointers, from now on.
    fn hold(&mut self, layout: &Layout) {
        self.held = self
            .down
            .iter()
            .take(2)
            .map(|&(_, x)| layout.time_at(x))
            .collect();
    }

    /// A pointer moved: the stretch that keeps the times held under the pointers, once the
    /// press is a drag.
    fn drag(&mut self, layout: &Layout, ev: &web_sys::PointerEvent) -> Option<Range> {
        let (id, x) = (ev.pointer_id(), f64::from(ev.offset_x()));
        let spot = self.down.iter_mut().find(|(down, _)| *down == id)?;
        self.travelled += (x - spot.1).abs();
        spot.1 = x;
        self.dragged |= self.travelled > DRAG_FROM_PX || self.down.len() > 1;
        let (r, w, h) = (layout.range, layout.width, layout.horizon);
        match (self.dragged, &self.held[..], &self.down[..]) {
            (true, &[t], &[(_, x)]) => Some(Range::placing(t, x, r.span() as f64, w, h)),
            (true, &[t1, t2], &[(_, x1), (_, x2), ..]) => Some(r.through((t1, x1), (t2, x2), w, h)),
            _ => None,
        }
    }

    /// A pointer lifted (or taken by the browser): a pinch left with one finger drags from there.
    fn release(&mut self, layout: &Layout, ev: &web_sys::PointerEvent) {
        let id = ev.pointer_id();
        self.down.retain(|(down, _)| *down != id);
        self.hold(layout);
    }
}
