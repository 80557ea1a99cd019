//! The page's modules (docs/architecture.md, "Three modules") and the loader that picks one for a
//! link (web/loader.js) agree on the link's names: the loader picks the complete module for any
//! row outside the first view's list, and the first view's module, built without the product
//! profiles, reloads for any product row. A link naming a kept trace, or carrying a longer one
//! than the page's links, goes to the complete module, the only one that keeps traces and reads
//! them back. A link showing the Durable Object goes to the Durable Object's module; an embed
//! goes where its view would.

use ratelab::core::limiter::Algorithm;

/// The loader as the site inlines it into index.html (before its comments are dropped).
fn loader_source() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/web/loader.js"))
        .expect("web/loader.js is readable")
}

fn loader_first_view_rows() -> Vec<String> {
    let loader = loader_source();
    let list = loader
        .split("FIRST_VIEW_ROWS = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("web/loader.js declares FIRST_VIEW_ROWS = [...]");
    list.split(',')
        .map(|name| name.trim().trim_matches('"').to_string())
        .collect()
}

#[test]
fn the_loader_sends_exactly_the_six_algorithms_to_the_first_view_module() {
    let core: Vec<String> = Algorithm::CORE
        .iter()
        .map(|a| a.slug().to_string())
        .collect();
    assert_eq!(loader_first_view_rows(), core);
}

#[test]
fn every_row_outside_the_six_is_a_product_that_the_first_view_module_hands_on() {
    for a in Algorithm::ALL {
        assert_eq!(a.is_product(), !Algorithm::CORE.contains(&a), "{a}");
    }
}

fn loader_list(name: &str) -> Vec<String> {
    let loader = loader_source();
    let list = loader
        .split(&format!("{name} = ["))
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .unwrap_or_else(|| panic!("web/loader.js declares {name} = [...]"));
    list.split(',')
        .map(|name| name.trim().trim_matches('"').to_string())
        .collect()
}

/// A link that sets one of the rules has no controls in the first module, so the loader must
/// send it to the complete one: its list is the URL table's fields of the rules.
#[test]
fn the_loader_sends_every_link_that_sets_a_rule_to_the_complete_module() {
    use ratelab::core::url::fields::{CLIENTS, COUNTING, DEPLOYMENT, SECOND_LIMIT};
    let rules: Vec<String> = [COUNTING, DEPLOYMENT, SECOND_LIMIT, CLIENTS]
        .iter()
        .flat_map(|fields| fields.iter().map(|f| f.name.to_string()))
        .collect();
    assert_eq!(loader_list("RULE_FIELDS"), rules);
}

/// The questions live in the complete module only, so a link that opens one goes there.
#[test]
fn the_loader_sends_every_link_that_opens_a_question_to_the_complete_module() {
    let fields: Vec<String> = ratelab::core::url::question_link::FIELDS
        .iter()
        .map(|f| f.name.to_string())
        .collect();
    assert_eq!(fields, ["q"]);
    assert_eq!(loader_list("QUESTION_FIELDS"), fields);
}

/// Whatever the first module is handed, it reloads into the complete module when the view
/// uses a rule: every rule field, set away from its default, makes `sets_rules` true.
#[test]
fn every_rule_set_away_from_its_default_calls_for_the_complete_module() {
    use ratelab::core::url::parse_query;
    for query in [
        "instances=2",
        "fixed-align=first",
        "count-refused=1",
        "also=2/1",
        "clients=obey",
    ] {
        assert!(parse_query(query).state.settings.sets_rules(), "{query}");
    }
    assert!(!parse_query("limit=3&window=2").state.settings.sets_rules());
}

/// Only the complete module keeps traces and reads them back (`ui::kept_trace`): the loader
/// sends every link naming one there, by the word the link grammar uses, and every link longer
/// than the page's own links, by its characters (the page keeps the traffic that made it long
/// and names it instead).
#[test]
fn the_loader_sends_every_link_naming_or_carrying_a_long_trace_to_the_complete_module() {
    use ratelab::core::url::{parse_query, MAX_QUERY_CHARS, STORED_TRACE};
    let loader = loader_source();
    assert!(
        loader.contains(&format!("var KEPT_TRACE = \"{STORED_TRACE}\";")),
        "web/loader.js declares KEPT_TRACE as the link grammar's word"
    );
    assert!(loader.contains(r#"trace == KEPT_TRACE || trace.indexOf(KEPT_TRACE + ":") == 0"#));
    assert!(
        loader.contains(&format!("var QUERY_CHARS = {MAX_QUERY_CHARS};")),
        "web/loader.js declares QUERY_CHARS as MAX_QUERY_CHARS"
    );
    assert!(loader.contains("location.search.length - 1 > QUERY_CHARS"));
    assert!(
        !loader.contains(".split(\",\").length"),
        "no count of a list's items"
    );
    for query in ["trace=stored", "trace=stored:0123456789abcdef"] {
        assert!(parse_query(query).state.kept.is_named(), "{query}");
    }
}

/// Lanes by key are drawn by the complete module only: the loader sends a link asking for them
/// there, by the name the URL table writes.
#[test]
fn the_loader_sends_a_link_with_a_lane_per_key_to_the_complete_module() {
    use ratelab::core::lab_state::Lanes;
    use ratelab::core::url::{parse_query, to_query};
    let loader = loader_source();
    let mut state = parse_query("").state;
    state.lanes = Lanes::Key;
    let (name, value) = to_query(&state)
        .split_once('=')
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .expect("a link with lanes");
    assert!(
        loader.contains(&format!("query.get(\"{name}\") == \"{value}\"")),
        "web/loader.js checks {name}={value}"
    );
}

/// The Durable Object lab is in the Durable Object's module and the complete one: the loader
/// sends a link showing the Durable Object to the former, by the name the URL table gives it.
#[test]
fn the_loader_sends_a_link_showing_the_durable_object_to_the_durable_objects_module() {
    use ratelab::core::url::{parse_query, to_query};
    let loader = loader_source();
    let mut state = parse_query("").state;
    state.durable.enabled = true;
    let query = to_query(&state);
    let (name, value) = query
        .split_once('=')
        .expect("a link with the Durable Object");
    assert_eq!(value, "1", "{query}");
    assert!(
        loader.contains(&format!("var DURABLE_FIELD = \"{name}\";")),
        "web/loader.js declares DURABLE_FIELD as {name}"
    );
    assert!(
        loader.contains(r#"query.has(DURABLE_FIELD) && query.get(DURABLE_FIELD).trim() != "0""#)
    );
    assert!(parse_query(&format!("{name}=0")).state == parse_query("").state);
}

/// An embed's header takes the embed's sizes while its module arrives: the loader marks exactly
/// the links the page reads as embeds, by the URL table's name and its one value for "on", and
/// sends them to the module their view needs, as any view.
#[test]
fn the_loader_reads_exactly_the_links_the_page_reads_as_embeds() {
    use ratelab::core::url::{parse_query, to_query};
    let loader = loader_source();
    let mut state = parse_query("").state;
    state.embed = true;
    let query = to_query(&state);
    let (name, value) = query.split_once('=').expect("a link for an embed");
    assert_eq!(value, "1", "{query}");
    assert!(
        loader.contains(&format!("var EMBED_FIELD = \"{name}\";")),
        "web/loader.js declares EMBED_FIELD as {name}"
    );
    assert!(loader.contains(r#"var embed = (query.get(EMBED_FIELD) || "").trim() == "1";"#));
    // The page reads the same words as an embed, and nothing else.
    for (raw, embed) in [
        ("1", true),
        (" 1 ", true),
        ("0", false),
        ("", false),
        ("true", false),
    ] {
        let read = parse_query(&format!("{name}={raw}")).state.embed;
        assert_eq!(read, embed, "{name}={raw:?}");
    }
    assert!(
        !loader.contains("__EMBED_"),
        "an embed gets the module its view needs, as any view"
    );
}

/// The loader's JavaScript, run on a corpus of links (`tests/loader_pick.mjs`, with Node), picks
/// the module the Rust rule (`ratelab::site::module_for`) names for each.
#[test]
fn the_loaders_javascript_picks_the_module_the_rust_rule_names_for_every_link_of_a_corpus() {
    use ratelab::site::{module_for, PageModule};
    use std::io::Write;
    let long_trace: Vec<String> = (0..700).map(|i| i.to_string()).collect();
    let long = format!("trace={}", long_trace.join(","));
    let mut corpus: Vec<(String, bool)> = [
        "",
        "limit=3&window=2",
        "algos=fixed,gcra",
        "algos=fixed, nginx",
        "algos=%20governor",
        "algos=,",
        "algos=fixed&algos=nginx",
        "instances=1",
        "fixed-align=first",
        "also=2/1",
        "clients=obey",
        "retries=3",
        "q=why-429",
        "lanes=key",
        "lanes=%20key",
        "lanes=one",
        "trace=stored",
        "trace=stored:0123456789abcdef",
        "trace=stored%3A0123456789abcdef",
        "trace=%20stored",
        "trace=0,1,2",
        "do=1",
        "do=0",
        "do=%200",
        "do=",
        "do=1&algos=nginx",
        "do=1&embed=1",
        "embed=1",
        "embed=%201",
        "embed=true",
        "embed=1&algos=governor",
        "embed=1&trace=stored:ab",
        "theme=dark&caption=a%26b",
    ]
    .iter()
    .map(|q| (q.to_string(), false))
    .collect();
    corpus.push((long.clone(), false));
    corpus.push((format!("{long}&do=1"), false));
    corpus.push(("limit=3".into(), true));
    corpus.push(("do=1".into(), true));
    let input: Vec<String> = corpus
        .iter()
        .map(|(q, asked)| {
            let escaped = q.replace('\\', "\\\\").replace('"', "\\\"");
            format!("{{\"query\":\"{escaped}\",\"asked\":{asked}}}")
        })
        .collect();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/loader_pick.mjs");
    let mut node = std::process::Command::new("node")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("node runs (the machine's Node.js)");
    node.stdin
        .take()
        .expect("node's standard input")
        .write_all(format!("[{}]", input.join(",")).as_bytes())
        .expect("the corpus is written to node");
    let out = node.wait_with_output().expect("node finishes");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let picks = String::from_utf8(out.stdout).expect("node prints UTF-8");
    let picks: Vec<&str> = picks
        .trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(|p| p.trim_matches('"'))
        .collect();
    assert_eq!(picks.len(), corpus.len(), "{picks:?}");
    let name = |m: PageModule| match m {
        PageModule::First => "first",
        PageModule::Durable => "durable",
        PageModule::Complete => "complete",
    };
    for ((query, asked), pick) in corpus.iter().zip(&picks) {
        let shown: String = query.chars().take(60).collect();
        assert_eq!(
            *pick,
            name(module_for(query, *asked)),
            "{shown} (asked: {asked})"
        );
    }
    // The corpus reaches every module.
    for module in ["first", "durable", "complete"] {
        assert!(picks.contains(&module), "{module}");
    }
}
