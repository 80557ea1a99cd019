//! `q=<slug>`: a link that opens a question's view (`core::questions`) and shows its answer.
//!
//! Reading: the question's own fields are read first, over the lab's defaults; the link's other
//! fields are then read over them, so `?q=window-edge&limit=3` is the question's view at a limit
//! of 3. A field the link leaves empty (`limit=`) takes the lab's default instead of the
//! question's value. The traffic (`trace`, `pattern`, `compose`) goes as one: a link naming any
//! of them replaces all of the question's. A bad value gets its message and keeps the question's
//! value.
//!
//! Writing: while a question is open the link says `q=<slug>` and then only what differs from
//! the question's view, empty for a field back at its default, so the link stays short and reads
//! back as the same view (a property test checks it).
//!
//! The link reads and writes only a question's slug and view (`questions::LINKS`), never its
//! answer: the page's loader sends every link with `q` to the complete module, which answers.

use super::codec::{field_value, query_pairs};
use crate::core::field::Field;
use crate::core::lab_state::LabState;

/// The field.
pub const FIELDS: &[Field<LabState>] = &[Field {
    name: "q",
    read: |s, raw| match crate::core::questions::link(raw.trim()) {
        Some(question) => {
            s.question = Some(question.slug);
            Ok(())
        }
        None => {
            let known: Vec<&str> = crate::core::questions::LINKS
                .iter()
                .map(|q| q.slug)
                .collect();
            Err(format!(
                "not a known question (use {}); showing the view without one.",
                known.join(", ")
            ))
        }
    },
    write: |s| s.question.map(str::to_string),
}];

/// The fields that together say what traffic the view runs.
const TRAFFIC: [&str; 3] = ["trace", "pattern", "compose"];

/// For a link naming a known question: sets `state` to the question's view with the fields the
/// link overrides taken out, and returns the link's pairs to read over it (without the empty
/// ones that only took a question's field out). Any other link's pairs come back as they are.
pub(super) fn start_from_question(
    state: &mut LabState,
    pairs: Vec<(String, String)>,
) -> Vec<(String, String)> {
    let Some(question) =
        field_value(&pairs, "q").and_then(|q| crate::core::questions::link(q.trim()))
    else {
        return pairs;
    };
    let named = |name: &str| pairs.iter().any(|(k, _)| k == name);
    let emptied = |name: &str| pairs.iter().any(|(k, v)| k == name && v.is_empty());
    let traffic_named = TRAFFIC.iter().any(|n| named(n));
    // A field the link gives a value keeps the question's until that value is read (a bad one
    // then leaves it); an emptied field, and the traffic the link replaces, go at once.
    let replaced = |name: &str| emptied(name) || (traffic_named && TRAFFIC.contains(&name));
    let view = query_pairs(question.view);
    let kept: Vec<(String, String)> = view
        .iter()
        .filter(|(name, _)| !replaced(name))
        .cloned()
        .collect();
    let mut ignored = Vec::new();
    super::read_every_section(state, &kept, &mut ignored);
    let in_view = |name: &str| view.iter().any(|(k, _)| k == name);
    pairs
        .into_iter()
        .filter(|(name, value)| {
            !(value.is_empty()
                && (in_view(name) || (traffic_named && TRAFFIC.contains(&name.as_str()))))
        })
        .collect()
}

/// With a question open, the pairs a link writes: `q`, then each field whose text differs from
/// the question's view, in the table's order, empty for one the view sets and the state leaves
/// at its default. The traffic's fields go as one, as they are read. Without a question, `pairs`
/// as they are.
pub(super) fn relative_to_question(
    state: &LabState,
    pairs: Vec<(&'static str, String)>,
) -> Vec<(&'static str, String)> {
    let Some(question) = state.question.and_then(crate::core::questions::link) else {
        return pairs;
    };
    let view = super::written_pairs(&super::parse_query(question.view).state);
    let value = |list: &[(&'static str, String)], name: &str| {
        list.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
    };
    let traffic_differs = TRAFFIC.iter().any(|n| value(&pairs, n) != value(&view, n));
    let mut out = Vec::new();
    for name in super::field_names() {
        let (mine, theirs) = (value(&pairs, name), value(&view, name));
        let as_one = traffic_differs && TRAFFIC.contains(&name);
        match (mine, theirs) {
            (Some(mine), _) if name == "q" => out.push((name, mine)),
            (Some(mine), Some(theirs)) if mine == theirs && !as_one => {}
            (Some(mine), _) => out.push((name, mine)),
            (None, Some(_)) => out.push((name, String::new())),
            (None, None) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{parse_query, to_query};
    use crate::core::questions::QUESTIONS;
    use crate::core::traffic::Pattern;

    #[test]
    fn a_question_alone_opens_its_view_and_writes_back_as_the_question_alone() {
        for question in &QUESTIONS {
            let link = format!("q={}", question.slug);
            let parsed = parse_query(&link);
            assert!(parsed.notices.is_empty(), "{link}: {:?}", parsed.notices);
            let mut view = parse_query(question.view);
            assert!(
                view.notices.is_empty(),
                "{}: {:?}",
                question.slug,
                view.notices
            );
            view.state.question = Some(question.slug);
            assert_eq!(parsed.state, view.state, "{link}");
            assert_eq!(to_query(&parsed.state), link);
        }
    }

    #[test]
    fn the_links_other_fields_apply_over_the_questions_and_an_empty_one_takes_the_default() {
        let parsed = parse_query("q=burst-plus-one&limit=20&cell-burst=");
        assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
        let s = &parsed.state;
        assert_eq!(s.settings.limit, 20);
        assert_eq!(s.settings.products.redis_cell.burst, None);
        assert_eq!(s.question, Some("burst-plus-one"));
        // The question's own fields the link does not name stay.
        assert_eq!(s.settings.window.micros(), 60_000_000);
        assert_eq!(to_query(s), "q=burst-plus-one&limit=20&cell-burst=");
    }

    #[test]
    fn a_links_traffic_replaces_all_of_the_questions_traffic() {
        let parsed = parse_query("q=burst-plus-one&pattern=steady");
        assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
        assert_eq!(parsed.state.pattern, Pattern::Steady);
        assert!(parsed.state.compose.is_empty());
        let written = to_query(&parsed.state);
        assert_eq!(written, "q=burst-plus-one&pattern=steady&compose=");
        assert_eq!(parse_query(&written).state, parsed.state);
    }

    #[test]
    fn a_bad_value_in_the_link_is_named_and_keeps_the_questions_value() {
        let parsed = parse_query("q=window-edge&limit=0");
        assert_eq!(parsed.notices.len(), 1);
        assert_eq!(parsed.notices[0].field, "limit");
        assert_eq!(parsed.state.question, Some("window-edge"));
        assert_eq!(parsed.state.settings.limit, 5);
        assert!(
            parsed.notices[0]
                .message
                .ends_with("; using the default, 5."),
            "the question's limit is the default: {}",
            parsed.notices[0].message
        );
        let burst = parse_query("q=burst-plus-one&limit=0");
        assert_eq!(burst.state.settings.limit, 15);
        assert!(
            burst.notices[0].message.ends_with("; keeping 15."),
            "the message names the question's limit, in force: {}",
            burst.notices[0].message
        );
    }

    #[test]
    fn an_unknown_question_is_named_and_the_rest_of_the_link_applies() {
        let parsed = parse_query("q=why&limit=3");
        assert_eq!(parsed.notices.len(), 1);
        assert!(
            parsed.notices[0]
                .message
                .starts_with("q=\"why\": not a known question (use burst-plus-one, "),
            "{}",
            parsed.notices[0].message
        );
        assert_eq!(parsed.state.question, None);
        assert_eq!(parsed.state.settings.limit, 3);
        assert_eq!(to_query(&parsed.state), "limit=3");
    }

    #[test]
    fn moving_a_setting_back_to_its_default_keeps_the_question_and_says_so_in_the_link() {
        let mut state = parse_query("q=second-server").state;
        state.settings.deployment.instances = 1;
        let written = to_query(&state);
        assert_eq!(written, "q=second-server&instances=");
        assert_eq!(parse_query(&written).state, state);
    }
}
