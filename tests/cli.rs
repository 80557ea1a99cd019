//! The `ratelab` binary as a person or a CI job runs it: each subcommand, its exit codes, the CSV
//! against the page's own export byte for byte, and four shards run at once against one run.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Write;
use std::process::{Command, Output, Stdio};

use ratelab::core::export::decisions_csv;
use ratelab::core::import::import;
use ratelab::core::lab::LabRun;
use ratelab::core::limiter::Complete;
use ratelab::core::traffic::{Pattern, Point};
use ratelab::core::url::parse_query;

fn ratelab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ratelab"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A file of `contents` in the test's own temporary folder.
fn file(name: &str, contents: &str) -> String {
    file_of_bytes(name, contents.as_bytes())
}

/// A file of `contents`, which need not be text, in the test's own temporary folder.
fn file_of_bytes(name: &str, contents: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("ratelab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.to_string_lossy().into_owned()
}

/// The page's CSV for `query` with `traffic` imported as the page's import panel takes it
/// (`ui/import_panel.rs`: a time list for the times format; keys, regions and costs otherwise,
/// and routes for a CSV), made by the function the page's download calls.
fn page_csv(query: &str, traffic: Option<&str>) -> String {
    let mut state = parse_query(query).state;
    if let Some(traffic) = traffic {
        let imported = import(traffic).expect("the page reads it");
        state.pattern = imported.into_pattern();
    }
    decisions_csv::<Complete>(&LabRun::compute(&state))
}

/// An access log of `lines` requests from `keys` addresses, a few a second, in time order.
fn access_log(lines: usize, keys: usize) -> String {
    let mut log = String::new();
    let mut seed = 7u64;
    for i in 0..lines {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let host = (seed >> 33) as usize % keys;
        let second = i / 4;
        log.push_str(&format!(
            "10.0.{}.{} - - [10/Oct/2026:{:02}:{:02}:{:02} +0000] \"GET /items/{} HTTP/1.1\" 200 512\n",
            host / 256,
            host % 256,
            13 + second / 3600,
            second / 60 % 60,
            second % 60,
            i % 17
        ));
    }
    log
}

#[test]
fn a_bare_query_and_table_print_the_pages_figures() {
    let bare = ratelab(&["limit=5&window=10&pattern=steady"]);
    let table = ratelab(&["table", "?limit=5&window=10&pattern=steady"]);
    assert!(bare.status.success() && table.status.success());
    assert_eq!(bare.stdout, table.stdout);
    let out = text(&table.stdout);
    // The explainer's steady run: the fixed window lets 30 through, the token bucket 34.
    let row = |label: &str| -> Vec<String> {
        let line = out.lines().find(|l| l.starts_with(label)).unwrap();
        line[label.len()..]
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(row("Fixed window")[..4], ["30", "0", "30", "5"]);
    assert_eq!(row("Token bucket")[..4], ["34", "0", "26", "9"]);
    assert!(out.contains("60 requests, limit 5 per window"), "{out}");
}

#[test]
fn table_with_obeying_clients_adds_their_retries_as_the_page_counts_them() {
    let out = ratelab(&["table", "trace=0,1,2&limit=1&algos=fixed&clients=obey"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = text(&out.stdout);
    assert!(
        out.lines().next().unwrap().contains("p95 wait (ms)"),
        "{out}"
    );
    // Three clients, two refused once, one of them again after waiting as told.
    let row: Vec<&str> = out
        .lines()
        .find(|l| l.starts_with("Fixed window"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        row[2..],
        ["3", "0", "3", "1", "3", "1", "0", "18000"],
        "{out}"
    );
    let sharded = ratelab(&["table", "clients=obey", "--shard", "0/2"]);
    assert_eq!(sharded.status.code(), Some(2));
}

#[test]
fn table_with_the_durable_object_adds_its_row() {
    let out = ratelab(&["table", "do=1&algos=sliding-log"]);
    assert!(out.status.success());
    let out = text(&out.stdout);
    // The edge preset with the object in Frankfurt lets the same 5 of 10 through as the log.
    let row = out
        .lines()
        .find(|l| l.starts_with("Durable Object"))
        .unwrap();
    assert_eq!(row.split_whitespace().nth(2), Some("5"), "{out}");
}

#[test]
fn csv_equals_the_pages_csv_byte_for_byte() {
    let log = access_log(3_000, 40);
    let cases: Vec<(&str, Option<String>)> = vec![
        ("limit=2&window=10&trace=0,1,2,3,12@tenant:b&algos=fixed,token-bucket&do=1", None),
        ("pattern=several-keys&algos=fixed,sliding-log,sliding-counter,token-bucket,gcra,leaky-bucket", None),
        ("pattern=retry-storm&limit=3&window=2&algos=nginx,governor,redis-cell,upstash-fixed,upstash-sliding,upstash-token,envoy,cf-binding", None),
        ("limit=3&window=1&algos=fixed,leaky-bucket,redis-cell", Some("# times\n0\n0.1\n0.1\n0.25\n1.5\n".into())),
        (
            "limit=2&window=10&algos=gcra,governor,upstash-token",
            Some("time,key,region,route,cost\n0,tenant:a,fra,GET /,1\n0,=cmd(),syd,,\n1,tenant:a,,POST /login,3\n600,k,,,17\n".into()),
        ),
        ("limit=10&window=60&algos=fixed,sliding-log,leaky-bucket,nginx", Some(log.clone())),
        ("limit=10&window=60&algos=fixed,sliding-log&do=1", Some(log.clone())),
        ("limit=10&window=60&algos=fixed,gcra,nginx,governor&clients=obey&retries=3", Some(log)),
    ];
    for (i, (query, traffic)) in cases.iter().enumerate() {
        let mut args = vec!["csv", query];
        let path;
        if let Some(traffic) = traffic {
            path = file(&format!("traffic-{i}.txt"), traffic);
            args.extend(["--traffic", &path]);
        }
        let out = ratelab(&args);
        assert!(out.status.success(), "{query}: {}", text(&out.stderr));
        let page = page_csv(query, traffic.as_deref());
        assert!(
            out.stdout == page.as_bytes(),
            "{query}: the command line's CSV differs from the page's"
        );
    }
}

#[test]
fn traffic_can_come_from_standard_input() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ratelab"))
        .args(["csv", "limit=1&algos=fixed", "--traffic", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"0,a\n1,a\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        out.stdout,
        page_csv("limit=1&algos=fixed", Some("0,a\n1,a\n")).as_bytes()
    );
}

#[test]
fn check_exits_1_naming_the_rows_that_refuse_more_than_the_share() {
    let path = file("check.csv", "time,key\n0,a\n1,a\n2,a\n3,b\n");
    let out = ratelab(&[
        "check",
        "limit=2&window=10&algos=fixed,gcra&burst=3",
        "--traffic",
        &path,
        "--max-refused",
        "20",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    // The fixed window refuses a's third request: 1 of 4, 25%.
    assert!(
        stdout.contains("fixed (Fixed window) refused 1 of the 4 requests: 25%, more than 20%"),
        "{stdout}"
    );
    assert!(!stdout.contains("gcra (GCRA)"), "{stdout}");
    assert!(text(&out.stderr).contains("check failed: fixed"));

    let passing = ratelab(&[
        "check",
        "limit=2&window=10&algos=fixed",
        "--traffic",
        &path,
        "--max-refused",
        "25%",
    ]);
    assert_eq!(passing.status.code(), Some(0), "{}", text(&passing.stderr));
    assert!(text(&passing.stdout).contains("every row refused at most 25% of the 4 requests"));
}

#[test]
fn a_link_naming_a_trace_kept_in_a_browser_needs_the_traffic_given() {
    for query in ["limit=3&trace=stored:0123456789abcdef", "trace=stored"] {
        let out = ratelab(&["table", query]);
        assert_eq!(out.status.code(), Some(2), "{query}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("kept in a browser's IndexedDB"), "{stderr}");
    }
    let path = file("kept.csv", "0,a\n1,a\n");
    let out = ratelab(&[
        "table",
        "limit=3&trace=stored:0123456789abcdef",
        "--traffic",
        &path,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn check_refuses_a_query_with_a_bad_field_instead_of_judging_its_default() {
    let path = file("bad-field.csv", "0,a\n");
    let out = ratelab(&["check", "limit=0", "--traffic", &path, "--max-refused", "5"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("the limit must be at least 1"), "{stderr}");
}

#[test]
fn bad_lines_are_named_by_number_as_the_page_names_them_and_exit_2() {
    let path = file("bad.csv", "time,key\n0,a\n2\n3,b,mars\n5,c\n1,a\n");
    for command in ["table", "csv"] {
        let out = ratelab(&[command, "limit=2", "--traffic", &path]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("line 3: expected time,key[,region[,route[,cost]]] but found 1 fields"),
            "{stderr}"
        );
        assert!(
            stderr.contains("line 4: \"mars\" is not a region"),
            "{stderr}"
        );
        assert!(
            stderr.contains("line 6: 1 s comes before the 5 s of line 5;"),
            "{stderr}"
        );
    }
    let missing = ratelab(&["table", "", "--traffic", "/nonexistent/traffic.log"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).starts_with("error: cannot read /nonexistent/traffic.log"));
}

#[test]
fn a_usage_mistake_exits_2_with_what_was_expected() {
    let out = ratelab(&["csv", "limit=2", "--shard", "4/4"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("numbered from 0 to 3"));
    let out = ratelab(&["check", "limit=2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--traffic"));
    let out = ratelab(&["csv", "do=1", "--shard", "0/2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Durable Object"));
}

/// Python `limits`' moving window keeps every key in one storage with one timer, so its keys
/// cannot be split into shards; its other rows can.
#[test]
fn shard_refuses_the_moving_window_row_whose_keys_share_one_storage() {
    let out = ratelab(&["csv", "algos=limits-moving,fixed", "--shard", "0/2"]);
    assert_eq!(out.status.code(), Some(2));
    let said = text(&out.stderr);
    assert!(said.contains("limits-moving"), "{said}");
    assert!(said.contains("one storage"), "{said}");
    let out = ratelab(&["csv", "algos=limits-fixed,limits-sliding", "--shard", "0/2"]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn four_shards_run_in_parallel_decide_every_row_of_one_run() {
    four_shards_are_one_run(
        "shards.log",
        "limit=10&window=60&algos=fixed,sliding-log,token-bucket,leaky-bucket,redis-cell",
    );
}

/// Copies in turn are chosen by a request's place in the whole traffic, so shards still add up.
#[test]
fn four_shards_of_rows_run_as_copies_in_turn_decide_every_row_of_one_run() {
    four_shards_are_one_run(
        "shards-copies.log",
        "limit=10&window=60&instances=3&algos=fixed,sliding-log,token-bucket",
    );
}

fn four_shards_are_one_run(name: &str, query: &str) {
    let path = file(name, &access_log(20_000, 300));
    let whole = ratelab(&["csv", query, "--traffic", &path]);
    assert!(whole.status.success());
    let children: Vec<_> = (0..4)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_ratelab"))
                .args([
                    "csv",
                    query,
                    "--traffic",
                    &path,
                    "--shard",
                    &format!("{i}/4"),
                ])
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let parts: Vec<String> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success());
            text(&out.stdout)
        })
        .collect();
    // Only shard 0 writes the header, so the parts one after another make one file.
    assert!(parts[0].starts_with("time_s,key,"));
    assert!(parts[1..]
        .iter()
        .all(|p| !p.starts_with("time_s,") && !p.is_empty()));
    let mut union: Vec<&str> = parts.iter().flat_map(|p| p.lines()).collect();
    let whole = text(&whole.stdout);
    let mut one: Vec<&str> = whole.lines().collect();
    assert_eq!(union.len(), one.len());
    union.sort_unstable();
    one.sort_unstable();
    assert!(union == one, "the shards' rows are the rows of one run");
    // And each key's rows are all in one shard, in the order of one run.
    for part in &parts {
        let key = part.lines().nth(1).unwrap().split(',').nth(1).unwrap();
        let mine: Vec<&str> = part
            .lines()
            .filter(|l| l.split(',').nth(1) == Some(key))
            .collect();
        let theirs: Vec<&str> = whole
            .lines()
            .filter(|l| l.split(',').nth(1) == Some(key))
            .collect();
        assert_eq!(mine, theirs);
    }
}

#[test]
fn check_on_a_shard_judges_that_shards_requests() {
    let path = file("shard-check.log", &access_log(2_000, 50));
    let out = ratelab(&[
        "check",
        "limit=1&window=60&algos=fixed",
        "--traffic",
        &path,
        "--max-refused",
        "1",
        "--shard",
        "2/3",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("requests of shard 2/3"));
}

#[test]
fn table_on_a_streamed_access_log_gives_the_pages_figures() {
    let log = access_log(5_000, 60);
    let path = file("table.log", &log);
    let query = "limit=4&window=30&algos=fixed,sliding-log,sliding-counter,token-bucket,gcra,leaky-bucket,nginx,envoy";
    let out = ratelab(&["table", query, "--traffic", &path]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = text(&out.stdout);
    let mut state = parse_query(query).state;
    state.pattern = Pattern::from_points(
        import(&log)
            .unwrap()
            .requests
            .into_iter()
            .map(|r| Point::new(r.at, r.key))
            .collect(),
    );
    let page = LabRun::compute(&state);
    for run in &page.runs {
        let line = out
            .lines()
            .find(|l| l.starts_with(run.algorithm.label()))
            .unwrap();
        let figures: Vec<u64> = line[run.algorithm.label().len()..]
            .split_whitespace()
            .take(4)
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(
            figures,
            [run.passed(), run.delayed, run.rejected, run.max_in_window],
            "{}",
            run.algorithm.label()
        );
    }
    assert!(out.contains("5000 requests"), "{out}");
}

#[test]
fn a_binary_file_is_refused_with_one_line_naming_what_it_looks_like() {
    let mut png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec();
    png.extend((0..20_000u32).map(|i| (i * 7919 % 251) as u8));
    let path = file_of_bytes("traffic.png", &png);
    for args in [
        vec!["table", "limit=2", "--traffic", &path],
        vec!["csv", "limit=2", "--traffic", &path],
        vec!["check", "limit=2", "--traffic", &path, "--max-refused", "5"],
        vec!["table", "limit=2&do=1", "--traffic", &path],
    ] {
        let out = ratelab(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let stderr = text(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with(&format!(
                "error: {path}: this looks like a binary file: a PNG image (it starts with 89 50 4e 47);"
            )),
            "{args:?}: {stderr}"
        );
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_ratelab"))
        .args(["table", "limit=2", "--traffic", "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"1\n2\x00\x01\x02\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: standard input: this looks like a binary file: byte 4 is 0 (NUL), which text \
         never holds; the lab reads text (one time per line, CSV or an access log)\n"
    );
}

#[test]
fn a_megabyte_long_bad_line_gives_a_short_error() {
    let path = file("long.txt", &format!("1\n2\n{}\n3\n", "9x".repeat(500_000)));
    for args in [
        vec!["table", "limit=2", "--traffic", &path],
        vec!["csv", "limit=2", "--traffic", &path],
        vec!["table", "limit=2&do=1", "--traffic", &path],
    ] {
        let out = ratelab(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.len() < 1024, "{args:?}: {} bytes", stderr.len());
        assert!(
            stderr.contains(&format!("line 3: \"{}…\" is not a number", "9x".repeat(40))),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_latin1_access_log_is_read_with_its_odd_bytes_as_the_page_reads_them() {
    let mut log = access_log(200, 5).into_bytes();
    let at = log.len() - 1;
    // A user agent with "é" written in Latin-1: one byte that is not UTF-8.
    log.splice(at..at, b" \"-\" \"caf\xe9\"".iter().copied());
    let path = file_of_bytes("latin1.log", &log);
    let out = ratelab(&["table", "limit=4", "--traffic", &path]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("200 requests"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_utf16_file_with_a_byte_order_mark_is_read_as_its_text() {
    let csv = "0,a\n1,a\n";
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(csv.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let path = file_of_bytes("utf16.csv", &utf16);
    for query in ["limit=1&algos=fixed", "limit=1&algos=fixed&clients=obey"] {
        let out = ratelab(&["csv", query, "--traffic", &path]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), page_csv(query, Some(csv)), "{query}");
    }
}

/// A view file the page would download: `query` and requests with keys of every kind.
fn view_file(query: &str) -> (String, String) {
    let keys = [
        "acme, inc",
        "say \"hi\"",
        "100%&#+=;",
        "🚀 Zürich",
        "=cmd()",
    ];
    let points: Vec<Point> = (0..200u64)
        .map(|i| Point {
            cost: 1 + (i % 3) as u32,
            ..Point::new(
                ratelab::core::time::Time(i * 37_001),
                keys[i as usize % keys.len()],
            )
        })
        .collect();
    let mut state = parse_query(query).state;
    state.pattern = Pattern::from_points(points);
    let trace = state
        .traffic()
        .generate(state.settings.limit, state.settings.window);
    let text = ratelab::core::view_file::write(&state, &trace);
    // The same traffic as a plain CSV, for the query given separately.
    let plain: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    (text, plain)
}

#[test]
fn a_view_files_query_applies_when_no_query_is_given() {
    let query = "limit=3&window=2.5&algos=fixed,gcra,token-bucket";
    let (view, plain) = view_file(query);
    assert!(
        view.starts_with("# ratelab view: limit=3&window=2.5&algos="),
        "{view}"
    );
    let view_path = file("view.csv", &view);
    let plain_path = file("plain.csv", &plain);
    let from_view = ratelab(&["table", "--traffic", &view_path]);
    let separately = ratelab(&["table", query, "--traffic", &plain_path]);
    assert!(from_view.status.success(), "{}", text(&from_view.stderr));
    assert_eq!(text(&from_view.stdout), text(&separately.stdout));
    assert!(text(&from_view.stdout).contains("GCRA"));
    assert!(
        !text(&from_view.stdout).contains("Sliding"),
        "only the file's rows"
    );
    let csv = ratelab(&["csv", "--traffic", &view_path]);
    assert_eq!(text(&csv.stdout), page_csv(query, Some(&plain)));
    let check = ratelab(&["check", "--traffic", &view_path, "--max-refused", "100"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    assert_eq!(
        text(&check.stdout).lines().next(),
        text(&separately.stdout).lines().next()
    );
}

#[test]
fn a_query_given_with_a_view_file_wins_and_the_files_traffic_is_used() {
    let (view, plain) = view_file("limit=3&window=2.5&algos=fixed,gcra");
    let view_path = file("view-override.csv", &view);
    let plain_path = file("plain-override.csv", &plain);
    let given = "limit=50&window=1&algos=sliding-log";
    let overridden = ratelab(&["table", given, "--traffic", &view_path]);
    let separately = ratelab(&["table", given, "--traffic", &plain_path]);
    assert!(overridden.status.success());
    assert_eq!(text(&overridden.stdout), text(&separately.stdout));
    assert!(
        !text(&overridden.stdout).contains("GCRA")
            && text(&overridden.stdout).contains("Sliding log")
    );
}

#[test]
fn a_view_file_on_standard_input_gives_its_query_too() {
    let query = "limit=2&algos=fixed";
    let (view, plain) = view_file(query);
    let mut child = Command::new(env!("CARGO_BIN_EXE_ratelab"))
        .args(["csv", "--traffic", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(view.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), page_csv(query, Some(&plain)));
}
