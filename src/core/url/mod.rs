//! The lab's state as a link, both ways. The contract is one table, [`SECTIONS`]: every field a
//! link may carry, grouped by the part of the state it sets, in the order a link writes them. One
//! reader ([`parse_query`]) and one writer ([`to_query`]) iterate it; the README's parameter
//! tables list the same fields (a test compares them).
//!
//! Every value comes from a person (a link, a bookmark, an edited address bar), so nothing here
//! can panic: a bad field gets a specific message naming it, keeps its default, and the rest of
//! the state still applies. Unknown fields are ignored, so links made by later versions open.
//!
//! - [`codec`]: `%XX` escapes and `name=value` pairs;
//! - [`values`]: how numbers, flags, choices, milliseconds and periods are read;
//! - [`fields`] and [`durable_fields`]: the rows of the lab's fields and of the Durable Object's
//!   (the products' rows are `limiter::PRODUCT_FIELDS`, each family's own rows joined in the
//!   order of the list of rows);
//! - [`trace_list`]: the grammar of `trace=`, which the page's storage uses too, and [`kept`]:
//!   writing a trace for the browser to keep, and reading it back, a slice at a time.
//! - [`question_link`]: `q=`, a question's view with the link's fields read over it.
//! - [`controls`]: the page's sliders and number boxes, each declared beside its field, listed by
//!   the page's sections.

pub mod codec;
pub mod controls;
pub mod durable_fields;
pub mod fields;
pub mod kept;
pub mod question_link;
pub mod trace_list;
pub mod values;

use crate::core::durable::DurableParams;
use crate::core::field::Field;
use crate::core::lab_state::{KeptTrace, LabState};
use crate::core::limiter::{Settings, PRODUCT_FIELDS};
use crate::core::profiles::ProductSettings;
use codec::{field_value, query_pairs};

pub use kept::parse_stored_trace;
pub use trace_list::{
    kept_link, parse_kept_link, parse_trace_items, parse_trace_list, trace_id, trace_list,
    trace_list_within, MAX_KEPT_REQUESTS, MAX_TRACE_IN_URL, STORED_TRACE, TRACE_ID_LEN,
};

/// The longest link the page writes, in characters: its address and its query. Longer ones
/// risk a server's `414 Request-URI Too Long`, and the page and its traffic with it.
pub const MAX_LINK_CHARS: usize = 2_000;
/// The room the page's own address takes in a link (`https://host/path/` and the `?`), and
/// `&embed=1` for the embed's: what a link's query may not use.
pub const ADDRESS_ROOM: usize = 200;
/// The longest query the page writes (after the `?`). A view whose traffic (`trace=`'s list and
/// `compose=`'s segments) would make it longer has its traffic kept in the browser's IndexedDB
/// as a trace, and the link says `trace=stored:<id>` instead ([`needs_keeping`]).
pub const MAX_QUERY_CHARS: usize = MAX_LINK_CHARS - ADDRESS_ROOM;

/// A group of fields and the part of the state they set.
pub enum Section {
    Lab(&'static [Field<LabState>]),
    Settings(&'static [Field<Settings>]),
    Products(&'static [Field<ProductSettings>]),
    Durable(&'static [Field<DurableParams>]),
}

/// Every field of a link, in the order it is read and written.
pub const SECTIONS: [Section; 11] = [
    Section::Lab(question_link::FIELDS),
    Section::Settings(fields::LIMIT_AND_WINDOW),
    Section::Lab(fields::TRAFFIC),
    Section::Settings(fields::TUNING),
    Section::Settings(fields::COUNTING),
    Section::Settings(fields::DEPLOYMENT),
    Section::Settings(fields::SECOND_LIMIT),
    Section::Settings(fields::CLIENTS),
    Section::Products(PRODUCT_FIELDS),
    Section::Durable(durable_fields::FIELDS),
    Section::Lab(fields::SEED_AND_VIEW),
];

/// The page's own form sends `algo=<name>` once per ticked algorithm instead of `algos=`.
const FORM_ALGORITHM: &str = "algo";

/// A message about one field that could not be used as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub field: &'static str,
    pub message: String,
}

/// The state read from a query, and what had to be corrected on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub state: LabState,
    pub notices: Vec<Notice>,
}

/// Reads the lab state from a query (with or without its leading `?`).
pub fn parse_query(query: &str) -> Parsed {
    let pairs = with_form_algorithms(query_pairs(query));
    let mut state = LabState::default();
    let mut notices = Vec::new();
    // A question's view first, then the link's fields over it (`question_link`).
    let pairs = question_link::start_from_question(&mut state, pairs);
    let defaults = LabState::default();
    let over_a_question = state != defaults;
    read_every_section(&mut state, &pairs, &mut notices);
    // A refused value over a question's view leaves the question's value in force, which the
    // message then names instead of the default.
    for notice in notices.iter_mut().filter(|_| over_a_question) {
        if written_field(&state, notice.field) != written_field(&defaults, notice.field) {
            notice.message = keeping(&state, notice.field, &notice.message);
        }
    }
    Parsed { state, notices }
}

/// Sets one field from the text a person typed, as a link would: `Err` carries the message a
/// link with that text would get, except that it names the value kept (the field's value in
/// `state`, which stays as it was) where a link would name the default it falls back to.
pub fn set_field(state: &mut LabState, name: &str, text: &str) -> Result<(), Notice> {
    let pairs = [(name.to_string(), text.to_string())];
    let mut next = state.clone();
    let mut notices = Vec::new();
    read_every_section(&mut next, &pairs, &mut notices);
    match notices.pop() {
        Some(mut notice) => {
            notice.message = keeping(state, notice.field, &notice.message);
            Err(notice)
        }
        None => {
            *state = next;
            Ok(())
        }
    }
}

/// The longest value a message quotes as the one kept; a longer one (a list of segments, say) is
/// named by its field.
const MAX_KEPT_IN_MESSAGE: usize = 40;

/// A refusal's message (`why; using the fallback.`) with what is in force instead of what a link
/// falls back to: the field's value in `in_force` ("keeping 100."), or, when that is the
/// default, the fallback's own words ("keeping the default, 5."). A message without a fallback
/// comes back as it is.
fn keeping(in_force: &LabState, name: &str, message: &str) -> String {
    let Some((why, fallback)) = message.rsplit_once("; ") else {
        return message.to_string();
    };
    // As a person reads it, not as a link escapes it.
    let in_force = written_field(in_force, name)
        .flatten()
        .map(|text| crate::core::percent::percent_decode(&text));
    match in_force {
        Some(text) if text.chars().count() <= MAX_KEPT_IN_MESSAGE => {
            format!("{why}; keeping {text}{}.", unit_of(name))
        }
        Some(_) => format!("{why}; keeping the {name} in force."),
        None => match fallback.strip_prefix("using ") {
            Some(rest) => format!("{why}; keeping {rest}"),
            None => message.to_string(),
        },
    }
}

/// The unit a field's text is in, as a message writes it after the value.
fn unit_of(name: &str) -> &'static str {
    match name {
        "window" | "evict" => " s",
        "timeout" | "service" | "jitter" | "await-ms" => " ms",
        _ => "",
    }
}

/// The text a link writes for the field `name` of `state` (`None` inside at its default), or
/// `None` for a field no section has.
fn written_field(state: &LabState, name: &str) -> Option<Option<String>> {
    fn of<T>(fields: &[Field<T>], part: &T, name: &str) -> Option<Option<String>> {
        let field = fields.iter().find(|f| f.name == name)?;
        Some((field.write)(part))
    }
    SECTIONS.iter().find_map(|section| match section {
        Section::Lab(fields) => of(fields, state, name),
        Section::Settings(fields) => of(fields, &state.settings, name),
        Section::Products(fields) => of(fields, &state.settings.products, name),
        Section::Durable(fields) => of(fields, &state.durable, name),
    })
}

/// Writes the state as a query (without `?`): fields in the table's order, defaults left out.
/// The traffic goes in full while the query stays within [`MAX_QUERY_CHARS`]; past that, a kept
/// trace is named by its id (`trace=stored:<id>`), and traffic kept nowhere is left out: that
/// query does not open the view again ([`reopens`]).
pub fn to_query(state: &LabState) -> String {
    link(state).0
}

/// The query [`to_query`] writes, and whether it opens the same view again.
fn link(state: &LabState) -> (String, bool) {
    let pairs = written_pairs(state);
    let list_left_out = state.kept == KeptTrace::No
        && state.pattern.given_len() > 0
        && !pairs.iter().any(|(name, _)| *name == "trace");
    let full = joined(state, pairs.clone());
    if full.len() <= MAX_QUERY_CHARS || state.kept.is_named() {
        let fits = full.len() <= MAX_QUERY_CHARS;
        return (full, fits && !list_left_out);
    }
    // Too long: the traffic by the name it is kept under, or not at all.
    let mut pairs = pairs;
    match &state.kept {
        KeptTrace::Kept(id) => {
            for (name, value) in &mut pairs {
                if *name == "trace" {
                    *value = kept_link(Some(id));
                }
            }
            let query = joined(state, pairs);
            let fits = query.len() <= MAX_QUERY_CHARS;
            (query, fits && state.compose.is_empty())
        }
        _ => {
            pairs.retain(|(name, _)| !["trace", "compose"].contains(name));
            (joined(state, pairs), false)
        }
    }
}

/// `pairs` as a query; with a question open, only what differs from its view (`question_link`).
fn joined(state: &LabState, pairs: Vec<(&'static str, String)>) -> String {
    let pairs = question_link::relative_to_question(state, pairs);
    let parts: Vec<String> = pairs
        .into_iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    parts.join("&")
}

/// Every field that differs from its default, as (name, value) pairs in the table's order.
fn written_pairs(state: &LabState) -> Vec<(&'static str, String)> {
    let mut pairs = Vec::new();
    for section in &SECTIONS {
        match section {
            Section::Lab(fields) => write(fields, state, &mut pairs),
            Section::Settings(fields) => write(fields, &state.settings, &mut pairs),
            Section::Products(fields) => write(fields, &state.settings.products, &mut pairs),
            Section::Durable(fields) => write(fields, &state.durable, &mut pairs),
        }
    }
    pairs
}

/// Whether the link [`to_query`] writes opens this state again, within [`MAX_QUERY_CHARS`]. Not
/// for traffic too long for a link that the page has not kept ([`needs_keeping`]): the link has
/// no `trace=` and would open other traffic, so the page leaves the address bar as it was.
pub fn reopens(state: &LabState) -> bool {
    link(state).1
}

/// Whether the view's traffic, a person's trace or composed segments, makes its link longer than
/// [`MAX_QUERY_CHARS`] and is kept nowhere yet: the page then keeps the traffic it runs
/// (`LabState::traffic`, the trace and the segments' requests as one list) in the browser, and
/// the link names it (`trace=stored:<id>`).
pub fn needs_keeping(state: &LabState) -> bool {
    state.kept == KeptTrace::No
        && (state.pattern.given_len() > 0 || !state.compose.is_empty())
        && !reopens(state)
}

/// The Durable Object's fields as (name, value) pairs, defaults left out: what a form that does
/// not show these knobs carries along as hidden fields.
pub fn durable_pairs(d: &DurableParams) -> Vec<(&'static str, String)> {
    let mut pairs = Vec::new();
    write(durable_fields::FIELDS, d, &mut pairs);
    pairs
}

/// Every field's name, in the table's order.
pub fn field_names() -> Vec<&'static str> {
    fn names<T>(fields: &[Field<T>]) -> impl Iterator<Item = &'static str> + '_ {
        fields.iter().map(|f| f.name)
    }
    let mut all = Vec::new();
    for section in &SECTIONS {
        match section {
            Section::Lab(fields) => all.extend(names(fields)),
            Section::Settings(fields) => all.extend(names(fields)),
            Section::Products(fields) => all.extend(names(fields)),
            Section::Durable(fields) => all.extend(names(fields)),
        }
    }
    all
}

/// Reads the fields `pairs` name, each into the part of `state` its section sets.
fn read_every_section(state: &mut LabState, pairs: &[(String, String)], notices: &mut Vec<Notice>) {
    for section in &SECTIONS {
        match section {
            Section::Lab(fields) => read(fields, state, pairs, notices),
            Section::Settings(fields) => read(fields, &mut state.settings, pairs, notices),
            Section::Products(fields) => read(fields, &mut state.settings.products, pairs, notices),
            Section::Durable(fields) => read(fields, &mut state.durable, pairs, notices),
        }
    }
}

fn read<T>(
    fields: &[Field<T>],
    part: &mut T,
    pairs: &[(String, String)],
    notices: &mut Vec<Notice>,
) {
    for field in fields {
        if let Some(raw) = field_value(pairs, field.name) {
            if let Err(why) = (field.read)(part, raw) {
                notices.push(Notice {
                    field: field.name,
                    message: format!("{}={}: {why}", field.name, quoted(raw)),
                });
            }
        }
    }
}

fn write<T>(fields: &[Field<T>], part: &T, pairs: &mut Vec<(&'static str, String)>) {
    pairs.extend(
        fields
            .iter()
            .filter_map(|field| Some((field.name, (field.write)(part)?))),
    );
}

/// `algos=` as the page's form says it: one `algo=` per ticked box, unless the query also has a
/// non-empty `algos=`.
fn with_form_algorithms(mut pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    let ticked: Vec<&str> = pairs
        .iter()
        .filter(|(k, _)| k == FORM_ALGORITHM)
        .map(|(_, v)| v.as_str())
        .collect();
    let listed = field_value(&pairs, "algos").is_some_and(|v| !v.is_empty());
    if !ticked.is_empty() && !listed {
        let joined = ticked.join(",");
        pairs.push(("algos".to_string(), joined));
    }
    pairs
}

/// Shortens what a person typed for quoting in a message.
fn quoted(value: &str) -> String {
    let mut shown: String = value.chars().take(40).collect();
    if value.chars().count() > 40 {
        shown.push('…');
    }
    format!("\"{shown}\"")
}

#[cfg(test)]
mod tests;
