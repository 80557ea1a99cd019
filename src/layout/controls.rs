//! The page's number controls as declarations: each names the link's field it sets
//! (`core::url`'s table), the words and unit beside it, the text of its number box, and, for
//! the twelve that have one, its slider (label, positions on its `super::scale`, what it shows,
//! what a move sets). One component of the page (`ui::controls::ControlRow`) draws any of them,
//! so adding a slider with its number box is one declaration in its section's list.
//!
//! A control is bound to its field both ways: the box's text is set through the field's own
//! `read` (`Lab::set_field`, with the link's checks and messages), and the text it shows for the
//! value in force is one that field reads back to that value (a test walks every declaration).
//! A slider moves the state through `Lab::change`: the address bar is rewritten in place. The `data-testid`s are the field's name: `<field>-slider`, `<field>-value` (what the
//! slider shows) and `<field>-number` (the box).
//!
//! Sections are lists, as the URL table's are, so that each of the page's modules links only
//! the controls it draws (the first view's has no Durable Object lab, no counting rules).

use crate::core::lab_state::LabState;
use crate::core::limiter::LeakDelay;
use crate::core::time::{format_seconds, Span, MICROS_PER_SEC};
use crate::core::url::durable_fields::MAX_SHARDS;
use crate::core::url::values::{millis_text, period_text, seconds_text};

use super::scale::{
    count_at, leak_delay_at, leak_delay_position, limit_at, rate_at, rate_position, span_at,
    span_position, window_at, COUNT_OR_ZERO_SCALE, COUNT_SCALE, EVICT_SCALE, JITTER_SCALE,
    LIMIT_SCALE, REFILL_SCALE, SERVICE_SCALE, SLIDER_STEPS, TIMEOUT_SCALE, WINDOW_SCALE,
};

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
    /// Sets the value a move to a position asks for (from the value in force: `super::scale`).
    pub set: fn(&mut LabState, i64),
}

/// A slider on a logarithmic scale of [`SLIDER_STEPS`] positions.
const fn scaled(
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

/// The finest step of the object's timings in a link: three decimals of a millisecond.
const MICROSECOND: Span = Span(1);

/// `limit` and `window`, at the top of the side column; an embed shows each when its
/// `controls=` names it, so the page places each by its name.
pub const LIMIT_AND_WINDOW: &[NumberControl] = &[LIMIT, WINDOW];

/// The limit every row follows.
pub const LIMIT: NumberControl = NumberControl {
    field: "limit",
    label: "Limit, requests",
    unit: "requests",
    text: |s| s.settings.limit.to_string(),
    slider: scaled(
        "Limit",
        |s| LIMIT_SCALE.position(s.settings.limit as f64),
        |s| format!("{} requests", s.settings.limit),
        |s, p| s.settings.limit = limit_at(p, s.settings.limit),
    ),
};

/// The window every row follows.
pub const WINDOW: NumberControl = NumberControl {
    field: "window",
    label: "Window, seconds",
    unit: "s",
    text: |s| format_seconds(s.settings.window.micros()),
    slider: scaled(
        "Window",
        |s| WINDOW_SCALE.position(s.settings.window.micros() as f64 / MICROS_PER_SEC as f64),
        |s| format!("{} s", format_seconds(s.settings.window.micros())),
        |s, p| s.settings.window = window_at(p, s.settings.window),
    ),
};

/// The token bucket's knobs in the tuning panel (its refill rate is GCRA's rate too).
pub const TOKEN_BUCKET: &[NumberControl] = &[
    NumberControl {
        field: "capacity",
        label: "Bucket capacity, tokens",
        unit: "tokens",
        text: |s| s.settings.bucket_capacity().to_string(),
        slider: scaled(
            "Bucket capacity",
            |s| COUNT_SCALE.position(s.settings.bucket_capacity() as f64),
            |s| format!("{} tokens", s.settings.bucket_capacity()),
            |s, p| {
                s.settings.capacity = Some(count_at(&COUNT_SCALE, p, s.settings.bucket_capacity()))
            },
        ),
    },
    NumberControl {
        field: "refill",
        label: "Refill rate, tokens a second",
        unit: "tokens/s",
        text: |s| {
            let rate = s.settings.quota().map(|q| s.settings.refill_rate(q));
            rate.map(|r| r.per_second_text()).unwrap_or_default()
        },
        slider: scaled(
            "Refill rate",
            |s| {
                let rate = s.settings.quota().map(|q| s.settings.refill_rate(q));
                rate.map(|r| rate_position(&REFILL_SCALE, r)).unwrap_or(0)
            },
            |s| {
                let rate = s.settings.quota().map(|q| s.settings.refill_rate(q));
                rate.map(|r| format!("{} tokens/s", r.per_second_text()))
                    .unwrap_or_default()
            },
            |s, p| {
                if let Ok(q) = s.settings.quota() {
                    s.settings.refill = Some(rate_at(&REFILL_SCALE, p, s.settings.refill_rate(q)));
                }
            },
        ),
    },
];

/// GCRA's knob in the tuning panel.
pub const GCRA: &[NumberControl] = &[NumberControl {
    field: "burst",
    label: "GCRA burst, requests",
    unit: "requests",
    text: |s| s.settings.gcra_burst().to_string(),
    slider: scaled(
        "GCRA burst",
        |s| COUNT_SCALE.position(s.settings.gcra_burst() as f64),
        |s| format!("{} requests", s.settings.gcra_burst()),
        |s, p| s.settings.gcra_burst = Some(count_at(&COUNT_SCALE, p, s.settings.gcra_burst())),
    ),
}];

/// The leaky bucket's knobs in the tuning panel.
pub const LEAKY_BUCKET: &[NumberControl] = &[
    NumberControl {
        field: "leak-burst",
        label: "Leaky bucket burst, requests",
        unit: "requests",
        text: |s| s.settings.leak_burst().to_string(),
        slider: scaled(
            "Leaky bucket burst",
            |s| COUNT_OR_ZERO_SCALE.position(s.settings.leak_burst() as f64),
            |s| format!("{} requests ahead of the rate", s.settings.leak_burst()),
            |s, p| {
                let burst = count_at(&COUNT_OR_ZERO_SCALE, p, s.settings.leak_burst());
                s.settings.leak_burst = Some(burst);
                // The delay counts requests of the burst, so it can be no larger.
                if let LeakDelay::After(d) = s.settings.leak_delay {
                    s.settings.leak_delay = LeakDelay::After(d.min(burst))
                }
            },
        ),
    },
    NumberControl {
        field: "leak-delay",
        label: "Leaky bucket: requests served at once, or nodelay",
        unit: "requests",
        text: |s| match s.settings.leak_delay {
            LeakDelay::NoDelay => "nodelay".to_string(),
            LeakDelay::After(d) => d.to_string(),
        },
        slider: scaled(
            "Leaky bucket: served at once",
            |s| leak_delay_position(s.settings.leak_delay, s.settings.leak_burst()),
            |s| match s.settings.leak_delay {
                LeakDelay::NoDelay => "all (nodelay)".to_string(),
                LeakDelay::After(0) => "none: every excess request waits".to_string(),
                LeakDelay::After(d) => format!("{d}, the rest wait"),
            },
            |s, p| {
                let burst = s.settings.leak_burst();
                s.settings.leak_delay = leak_delay_at(p, s.settings.leak_delay, burst)
            },
        ),
    },
];

/// The Durable Object lab's timings and shards.
pub const DURABLE: &[NumberControl] = &[
    NumberControl {
        field: "timeout",
        label: "Timeout, milliseconds",
        unit: "ms",
        text: |s| millis_text(s.durable.timeout),
        slider: scaled(
            "Timeout",
            |s| span_position(&TIMEOUT_SCALE, s.durable.timeout),
            |s| format!("{} ms", millis_text(s.durable.timeout)),
            |s, p| s.durable.timeout = span_at(&TIMEOUT_SCALE, p, s.durable.timeout, MICROSECOND),
        ),
    },
    NumberControl {
        field: "service",
        label: "Service time per decision, milliseconds",
        unit: "ms",
        text: |s| millis_text(s.durable.service),
        slider: scaled(
            "Service time per decision",
            |s| span_position(&SERVICE_SCALE, s.durable.service),
            |s| {
                let at_best = MICROS_PER_SEC / s.durable.service.micros().max(1);
                format!(
                    "{} ms ({at_best} a second at best)",
                    millis_text(s.durable.service)
                )
            },
            |s, p| s.durable.service = span_at(&SERVICE_SCALE, p, s.durable.service, MICROSECOND),
        ),
    },
    NumberControl {
        field: "jitter",
        label: "Network jitter per hop, milliseconds",
        unit: "ms",
        text: |s| millis_text(s.durable.jitter),
        slider: scaled(
            "Network jitter per hop",
            |s| span_position(&JITTER_SCALE, s.durable.jitter),
            |s| match s.durable.jitter {
                Span(0) => "none".to_string(),
                jitter => format!("up to {} ms", millis_text(jitter)),
            },
            |s, p| s.durable.jitter = span_at(&JITTER_SCALE, p, s.durable.jitter, MICROSECOND),
        ),
    },
    NumberControl {
        field: "evict",
        label: "Evicted after idle, seconds",
        unit: "s",
        text: |s| format_seconds(s.durable.evict.micros()),
        slider: scaled(
            "Evicted after idle",
            |s| span_position(&EVICT_SCALE, s.durable.evict),
            |s| format!("{} s", format_seconds(s.durable.evict.micros())),
            |s, p| {
                let millisecond = Span::from_millis(1);
                s.durable.evict = span_at(&EVICT_SCALE, p, s.durable.evict, millisecond)
            },
        ),
    },
    NumberControl {
        field: "shards",
        label: "Shards per key, or seed",
        unit: "shards",
        text: |s| {
            s.durable
                .shards
                .map_or_else(|| "seed".to_string(), |n| n.to_string())
        },
        // Few enough for a linear scale: each shard count is a position, and 0 is the seed's rule.
        slider: Some(SliderControl {
            label: "Shards per key",
            max: MAX_SHARDS as i64,
            position: |s| s.durable.shards.map(i64::from).unwrap_or(0),
            shown: |s| match s.durable.shards {
                Some(n) => n.to_string(),
                None => "the seed's rule by prefix (ip: 1, global: 16, others 4)".into(),
            },
            set: |s, p| s.durable.shards = shards_at(p),
        }),
    },
];

/// The shards a linear slider's position asks for: none (the seed's rule) at 0.
fn shards_at(position: i64) -> Option<u32> {
    let position = position.clamp(0, i64::from(MAX_SHARDS));
    u32::try_from(position).ok().filter(|&n| n > 0)
}

/// The Durable Object's scheduled faults, typed (a box is empty when none is scheduled): for a
/// keyboard, and for exact times (a drag across its chart sets them too).
pub const FAULTS: &[NumberControl] = &[
    NumberControl {
        field: "outage",
        label: "Outage, from and to in seconds",
        unit: "s, outage (20-30)",
        text: |s| s.durable.outage.map(period_text).unwrap_or_default(),
        slider: None,
    },
    NumberControl {
        field: "slow",
        label: "Slow period, from and to in seconds",
        unit: "s, slow (20-30)",
        text: |s| s.durable.slow.map(period_text).unwrap_or_default(),
        slider: None,
    },
    NumberControl {
        field: "evict-at",
        label: "Eviction, at seconds",
        unit: "s, eviction",
        text: |s| s.durable.evict_at.map(seconds_text).unwrap_or_default(),
        slider: None,
    },
];

/// The rules every row runs under that are numbers: copies of each row, and how many times an
/// obeying client retries. Each sits in a row of its own among the section's menus, so the page
/// places each by its name.
pub const COUNTING: &[NumberControl] = &[INSTANCES, RETRIES];

/// Copies of each row.
pub const INSTANCES: NumberControl = NumberControl {
    field: "instances",
    label: "Copies of each row",
    unit: "copies, 1 to 64",
    text: |s| s.settings.deployment.instances.to_string(),
    slider: None,
};

/// How many times an obeying client retries: its box is shown only for clients that obey.
pub const RETRIES: NumberControl = NumberControl {
    field: "retries",
    label: "Retries per client",
    unit: "retries, 0 to 50",
    text: |s| s.settings.clients.retries.to_string(),
    slider: None,
};

/// Every section's controls, in the page's order.
pub const SECTIONS: [&[NumberControl]; 7] = [
    LIMIT_AND_WINDOW,
    TOKEN_BUCKET,
    GCRA,
    LEAKY_BUCKET,
    DURABLE,
    FAULTS,
    COUNTING,
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
        assert_eq!(shards_at(0), None);
        assert_eq!(shards_at(-3), None);
        assert_eq!(shards_at(5), Some(5));
        assert_eq!(shards_at(i64::MAX), Some(MAX_SHARDS));
    }
}
