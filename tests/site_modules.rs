//! The page's modules (docs/architecture.md, "Three modules") and the loader that picks one for a
//! link (web/loader.js) follow one rule, written in Rust (`ratelab::site::module_for`): the
//! loader has the rule's shape and is given its names from Rust when the site is built
//! (`site::loader_tables`). The loader picks the complete module for any row outside the first
//! view's list, a rule, a question, lanes by key, a kept trace or a longer one than the page's
//! links; a link showing the Durable Object goes to the Durable Object's module; an embed goes
//! where its view would. The names are the ones the page itself reads and writes.

use ratelab::core::limiter::Algorithm;
use ratelab::site::{loader_names, loader_tables};

/// The loader as the site inlines it into index.html (before its comments are dropped).
fn loader_source() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/web/loader.js"))
        .expect("web/loader.js is readable")
}

/// Every name the tables declare is read by the loader, and the loader reads no other table.
#[test]
fn the_loader_reads_every_name_the_rust_tables_give_it_and_no_other() {
    let loader = loader_source();
    let code: String = loader
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(code.matches("/*__LOADER_TABLES__*/").count(), 1);
    let declared: Vec<String> = loader_tables()
        .lines()
        .filter_map(|line| {
            line.strip_prefix("var ")?
                .split(' ')
                .next()
                .map(String::from)
        })
        .collect();
    for name in &declared {
        assert!(
            code.contains(name.as_str()),
            "web/loader.js never reads {name}"
        );
    }
    let mut used: Vec<&str> = code
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.len() > 3 && w.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .filter(|w| !w.starts_with("__"))
        .collect();
    used.sort_unstable();
    used.dedup();
    for name in used {
        assert!(
            declared.iter().any(|d| d == name)
                || ["FILES", "COMPLETE", "DURABLE", "FIRST"].contains(&name),
            "web/loader.js reads {name}, which the tables do not declare"
        );
    }
}

#[test]
fn the_first_view_module_gets_exactly_the_six_algorithms() {
    let core: Vec<&str> = Algorithm::CORE.iter().map(|a| a.slug()).collect();
    assert_eq!(loader_names().first_view_rows, core);
}

#[test]
fn every_row_outside_the_six_is_a_product_that_the_first_view_module_hands_on() {
    for a in Algorithm::ALL {
        assert_eq!(a.is_product(), !Algorithm::CORE.contains(&a), "{a}");
    }
}

/// Whatever the first module is handed, it hands over to the complete module when the view
/// uses a rule: every rule field, set away from its default, makes `sets_rules` true, and each
/// is among the loader's rule fields.
#[test]
fn every_rule_set_away_from_its_default_calls_for_the_complete_module() {
    use ratelab::core::url::parse_query;
    let names = loader_names();
    for query in [
        "instances=2",
        "fixed-align=first",
        "count-refused=1",
        "also=2/1",
        "clients=obey",
    ] {
        assert!(parse_query(query).state.settings.sets_rules(), "{query}");
        let field = query.split('=').next().unwrap_or_default();
        assert!(names.rule_fields.contains(&field), "{field}");
    }
    assert!(!parse_query("limit=3&window=2").state.settings.sets_rules());
}

/// The names the rule reads are the ones the page writes: lanes by key, the Durable Object, an
/// embed, a kept trace, a question.
#[test]
fn the_rules_names_are_the_ones_the_page_writes() {
    use ratelab::core::lab_state::Lanes;
    use ratelab::core::url::{parse_query, to_query, STORED_TRACE};
    let names = loader_names();
    let first_pair = |edit: &dyn Fn(&mut ratelab::core::lab_state::LabState)| {
        let mut state = parse_query("").state;
        edit(&mut state);
        let query = to_query(&state);
        let (name, value) = query.split_once('=').expect("a field");
        (name.to_string(), value.to_string())
    };
    let lanes = first_pair(&|s| s.lanes = Lanes::Key);
    assert_eq!(lanes, (names.lanes_field.into(), names.lanes_by_key.into()));
    let durable = first_pair(&|s| s.durable.enabled = true);
    assert_eq!(durable, (names.durable_field.into(), "1".into()));
    assert!(parse_query(&format!("{}=0", names.durable_field)).state == parse_query("").state);
    let embed = first_pair(&|s| s.embed = true);
    assert_eq!(embed, (names.embed_field.into(), "1".into()));
    // The page reads the same words as an embed as the loader, and nothing else.
    for (raw, is_embed) in [
        ("1", true),
        (" 1 ", true),
        ("0", false),
        ("", false),
        ("true", false),
    ] {
        let read = parse_query(&format!("{}={raw}", names.embed_field))
            .state
            .embed;
        assert_eq!(read, is_embed, "embed={raw:?}");
    }
    assert_eq!(names.kept_trace, STORED_TRACE);
    for query in ["trace=stored", "trace=stored:0123456789abcdef"] {
        assert!(parse_query(query).state.kept.is_named(), "{query}");
    }
    assert_eq!(names.question_fields, ["q"]);
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
    let tables = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("loader-tables.js");
    std::fs::write(&tables, loader_tables()).expect("the tables are written");
    let mut node = std::process::Command::new("node")
        .arg(script)
        .arg(&tables)
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
