//! The page's number controls, by the page's sections and in its order. Each is declared beside
//! the link field it sets (`super::fields`, `super::durable_fields`; the type is
//! `core::control::NumberControl`); this list is what the page walks to place them, and what the
//! tests below walk to hold each to its field.
//!
//! Sections are lists, as the link's tables are, so that each of the page's modules links only
//! the controls it draws (the first view's has no Durable Object lab, no counting rules).

use super::{durable_fields, fields};
use crate::core::control::NumberControl;

/// Every section's controls, in the page's order.
pub const SECTIONS: [&[NumberControl]; 7] = [
    fields::LIMIT_AND_WINDOW_CONTROLS,
    fields::TOKEN_BUCKET_CONTROLS,
    fields::GCRA_CONTROLS,
    fields::LEAKY_BUCKET_CONTROLS,
    durable_fields::CONTROLS,
    durable_fields::FAULT_CONTROLS,
    fields::COUNTING_CONTROLS,
];

/// Every control, in the page's order.
pub fn every_control() -> impl Iterator<Item = &'static NumberControl> {
    SECTIONS.into_iter().flatten()
}

/// The control that sets the link's field `field`.
pub fn control_of(field: &str) -> Option<&'static NumberControl> {
    every_control().find(|c| c.field == field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::lab_state::LabState;
    use crate::core::url::durable_fields::MAX_SHARDS;
    use crate::core::url::{field_names, parse_query, set_field, to_query};

    /// Views that set every control away from its default, and one at the defaults.
    fn views() -> Vec<LabState> {
        [
            "clients=obey",
            "clients=obey&limit=20000&window=3600&capacity=5000&refill=0.333333&burst=3000\
             &leak-burst=2000&leak-delay=1000&do=1&timeout=5000&service=12.5&jitter=0.25\
             &evict=7200&shards=48&outage=20-30&slow=5-9&evict-at=40&instances=3&retries=7",
            "limit=1&window=0.001&leak-burst=0&leak-delay=nodelay&jitter=0&shards=seed&clients=obey",
        ]
        .into_iter()
        .map(|query| {
            let parsed = parse_query(query);
            assert_eq!(parsed.notices, vec![], "{query}");
            parsed.state
        })
        .collect()
    }

    #[test]
    fn twelve_sliders_and_seventeen_number_boxes_each_on_a_field_of_the_link() {
        let names = field_names();
        let mut fields: Vec<&str> = every_control().map(|c| c.field).collect();
        for field in &fields {
            assert!(names.contains(field), "{field} is not a field of the link");
        }
        assert_eq!(fields.len(), 17);
        assert_eq!(every_control().filter(|c| c.slider.is_some()).count(), 12);
        fields.sort_unstable();
        fields.dedup();
        assert_eq!(fields.len(), 17, "one control a field");
        assert!(control_of("limit").is_some_and(|c| c.unit == "requests"));
        assert!(control_of("seed").is_none());
    }

    #[test]
    fn each_box_shows_a_text_its_field_reads_back_to_the_same_value() {
        for state in views() {
            for control in every_control() {
                let text = (control.text)(&state);
                let mut read = state.clone();
                if let Err(refused) = set_field(&mut read, control.field, &text) {
                    // An empty box is a fault not scheduled: the field takes no empty text.
                    assert!(
                        text.is_empty(),
                        "{}={text}: {}",
                        control.field,
                        refused.message
                    );
                    continue;
                }
                assert_eq!((control.text)(&read), text, "{}", control.field);
                if let Some(slider) = &control.slider {
                    let (before, after) = ((slider.position)(&state), (slider.position)(&read));
                    assert_eq!(before, after, "{}={text}", control.field);
                }
            }
        }
    }

    #[test]
    fn every_position_of_a_slider_sets_a_value_its_link_reads_back() {
        for state in views() {
            for control in every_control() {
                let Some(slider) = &control.slider else {
                    continue;
                };
                for position in [
                    0,
                    1,
                    slider.max / 3,
                    slider.max / 2,
                    slider.max - 1,
                    slider.max,
                ] {
                    let mut moved = state.clone();
                    (slider.set)(&mut moved, position);
                    let at = (slider.position)(&moved);
                    assert!((0..=slider.max).contains(&at), "{}: {at}", control.field);
                    let back = parse_query(&to_query(&moved));
                    assert_eq!(back.notices, vec![], "{} at {position}", control.field);
                    assert_eq!(
                        (control.text)(&back.state),
                        (control.text)(&moved),
                        "{} at {position}",
                        control.field
                    );
                    assert_eq!((slider.shown)(&back.state), (slider.shown)(&moved));
                }
            }
        }
    }

    #[test]
    fn a_slider_moved_to_where_it_is_keeps_the_value() {
        for state in views() {
            for control in every_control() {
                let Some(slider) = &control.slider else {
                    continue;
                };
                let mut kept = state.clone();
                (slider.set)(&mut kept, (slider.position)(&state));
                assert_eq!(
                    (control.text)(&kept),
                    (control.text)(&state),
                    "{}",
                    control.field
                );
            }
        }
    }

    #[test]
    fn a_slider_moved_one_step_moves_its_own_value_only() {
        let state = &views()[1];
        for control in every_control() {
            let Some(slider) = &control.slider else {
                continue;
            };
            let at = (slider.position)(state);
            let mut moved = state.clone();
            (slider.set)(&mut moved, if at > 0 { at - 1 } else { at + 1 });
            assert_ne!(
                (control.text)(&moved),
                (control.text)(state),
                "{}",
                control.field
            );
            for other in every_control().filter(|c| c.field != control.field) {
                assert_eq!(
                    (other.text)(&moved),
                    (other.text)(state),
                    "{} moved {}",
                    control.field,
                    other.field
                );
            }
        }
    }

    #[test]
    fn the_units_of_copies_and_retries_name_the_cores_bounds() {
        let bound = |field| control_of(field).map(|c| c.unit).unwrap_or_default();
        let copies = crate::core::deployment::MAX_INSTANCES;
        assert!(bound("instances").ends_with(&format!("to {copies}")));
        let retries = crate::core::clients::MAX_RETRIES;
        assert!(bound("retries").ends_with(&format!("to {retries}")));
    }

    #[test]
    fn the_shards_slider_is_the_seeds_rule_at_zero_and_a_count_after() {
        let slider = control_of("shards").and_then(|c| c.slider.as_ref());
        let Some(slider) = slider else {
            panic!("shards has a slider");
        };
        assert_eq!(slider.max, i64::from(MAX_SHARDS));
        let mut state = LabState::default();
        for (position, shards) in [
            (0, None),
            (-3, None),
            (5, Some(5)),
            (i64::MAX, Some(MAX_SHARDS)),
        ] {
            (slider.set)(&mut state, position);
            assert_eq!(state.durable.shards, shards, "at {position}");
        }
    }
}
