//! A number a person sets on the page, declared beside the link's field it sets: the words and
//! unit of its box, the box's text for the value in force, and, for a slider, its label, its
//! positions on a [`scale`] (which spans the bounds the field accepts), what it shows and what a
//! move sets. The declarations live with their fields in `core::url` (`fields`,
//! `durable_fields`), and `core::url::controls` lists them by the page's sections. One component
//! of the page (`ui::controls::ControlRow`) draws any of them, so adding a slider with its
//! number box is one declaration beside its field and one line in its section's list.
//!
//! A control is bound to its field both ways: the box's text is set through the field's own
//! `read` (with the link's checks and messages), and the text it shows for the value in force
//! is one that field reads back to that value (`core::url::controls` walks every declaration).
//! The `data-testid`s are the field's name: `<field>-slider`, `<field>-value` (what the slider
//! shows) and `<field>-number` (the box).

pub mod scale;

use crate::core::lab_state::LabState;
use scale::SLIDER_STEPS;

/// A number a person sets on the page: the box for its link field, and a slider when it has one.
pub struct NumberControl {
    /// The link's field it sets (`limit`), and its `data-testid`s' first word.
    pub field: &'static str,
    /// The box's accessible name ("Limit, requests").
    pub label: &'static str,
    /// What the box's number is in, written beside it ("requests", "ms").
    pub unit: &'static str,
    /// The box's text for the value in force: what the field reads back to that same value.
    pub text: fn(&LabState) -> String,
    /// Its slider, if it has one.
    pub slider: Option<SliderControl>,
}

/// A slider over positions `0..=max`, one step a press of an arrow key.
pub struct SliderControl {
    /// What it sets, written above it ("Limit").
    pub label: &'static str,
    /// The last position: [`SLIDER_STEPS`] on a logarithmic scale, fewer on a linear one.
    pub max: i64,
    /// Where the value in force sits.
    pub position: fn(&LabState) -> i64,
    /// The value in words, beside the label and as the slider's `aria-valuetext`.
    pub shown: fn(&LabState) -> String,
    /// Sets the value a move to a position asks for (from the value in force: [`scale`]).
    pub set: fn(&mut LabState, i64),
}

/// A slider on a logarithmic scale of [`SLIDER_STEPS`] positions.
pub const fn scaled(
    label: &'static str,
    position: fn(&LabState) -> i64,
    shown: fn(&LabState) -> String,
    set: fn(&mut LabState, i64),
) -> Option<SliderControl> {
    Some(SliderControl {
        label,
        max: SLIDER_STEPS,
        position,
        shown,
        set,
    })
}
