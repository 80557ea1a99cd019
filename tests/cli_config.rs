//! `ratelab table|csv|check --config FILE --traffic FILE`: a config a person runs, read as the
//! page reads it (`core::config_file`), replays their traffic with the figures the page shows for
//! the same config and traffic; an unreadable config exits 2 with its line and why.
#![cfg(not(target_arch = "wasm32"))]

use std::process::{Command, Output};

use ratelab::core::config_file::{self, Rows};
use ratelab::core::export::decisions_csv;
use ratelab::core::import::import;
use ratelab::core::lab::LabRun;
use ratelab::core::limiter::{Algorithm, Complete};
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

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/configs/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A file of `contents` in the test's own temporary folder.
fn file(name: &str, contents: &str) -> String {
    let dir = std::env::temp_dir().join(format!("ratelab-cli-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.to_string_lossy().into_owned()
}

/// `count` requests from one address, `every_ms` apart from 0, as CSV.
fn one_client(count: u64, every_ms: u64) -> String {
    (0..count)
        .map(|i| {
            format!(
                "{}.{:03},203.0.113.7\n",
                i * every_ms / 1000,
                i * every_ms % 1000
            )
        })
        .collect()
}

/// The page's figures for `config` on `traffic`, the config applied as the page's panel applies
/// it (its row added to the query's rows): (let through, rejected) of the config's row.
fn page_figures(query: &str, config: &str, traffic: &str) -> (Algorithm, usize, usize) {
    let mut state = parse_query(query).state;
    let reading = config_file::read::<Complete>(config, None).expect("the page reads it");
    reading.apply(&mut state, Rows::Add);
    state.pattern = import(traffic).expect("the page reads it").into_pattern();
    let run = LabRun::compute(&state);
    let row = run.run(reading.row).expect("the config's row runs");
    (reading.row, row.passed() as usize, row.rejected as usize)
}

/// The table's figures of the row labelled `label`: let through and rejected.
fn table_figures(out: &str, label: &str) -> (usize, usize) {
    let line = out
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no row {label} in\n{out}"));
    let cells: Vec<usize> = line[label.len()..]
        .split_whitespace()
        .filter_map(|c| c.parse().ok())
        .collect();
    (cells[0], cells[2])
}

#[test]
fn an_nginx_conf_with_two_zones_replays_the_traffic_through_the_zone_its_location_uses() {
    let config = std::fs::read_to_string(fixture("two-zones.nginx.conf")).unwrap();
    let traffic = one_client(60, 10);
    let traffic_file = file("one-client.csv", &traffic);
    let out = ratelab(&[
        "table",
        "--config",
        &fixture("two-zones.nginx.conf"),
        "--traffic",
        &traffic_file,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    // Zone api, rate=10r/s burst=20 nodelay, on a request every 10 ms: the first and the 22
    // that fit the burst, then one each time the excess has leaked a whole request (every
    // 100 ms): at 300, 400 and 500 ms.
    assert_eq!(
        table_figures(&table, "nginx limit_req"),
        (26, 34),
        "{table}"
    );
    // Only the config's row runs; the other zone is named.
    assert!(!table.contains("Fixed window"), "{table}");
    assert!(text(&out.stderr).contains("login"), "{}", text(&out.stderr));
    let (row, passed, rejected) = page_figures("", &config, &traffic);
    assert_eq!(row, Algorithm::Nginx);
    assert_eq!((passed, rejected), (26, 34));
}

#[test]
fn express_rate_limit_options_give_the_pages_figures_and_its_csv() {
    let config = std::fs::read_to_string(fixture("express-options.js")).unwrap();
    let traffic = one_client(150, 100);
    let traffic_file = file("express-client.csv", &traffic);
    let out = ratelab(&[
        "table",
        "limit=3&window=7",
        "--config",
        &fixture("express-options.js"),
        "--traffic",
        &traffic_file,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    // 100 per 15 minutes, whatever the query's own limit: 150 in 15 s leave 50 refused.
    assert_eq!(
        table_figures(&table, "express-rate-limit"),
        (100, 50),
        "{table}"
    );
    let (row, passed, rejected) = page_figures("limit=3&window=7", &config, &traffic);
    assert_eq!(row, Algorithm::ExpressRateLimit);
    assert_eq!((passed, rejected), (100, 50));

    // The CSV is the page's own export for the same state, byte for byte.
    let out = ratelab(&[
        "csv",
        "--config",
        &fixture("express-options.js"),
        "--traffic",
        &traffic_file,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut state = parse_query("").state;
    config_file::read::<Complete>(&config, None)
        .unwrap()
        .apply(&mut state, Rows::Replace);
    state.pattern = import(&traffic).unwrap().into_pattern();
    assert_eq!(
        text(&out.stdout),
        decisions_csv::<Complete>(&LabRun::compute(&state))
    );
}

#[test]
fn check_judges_the_configs_row_on_the_traffic() {
    let traffic_file = file("check-client.csv", &one_client(150, 100));
    let out = ratelab(&[
        "check",
        "--config",
        &fixture("express-options.js"),
        "--traffic",
        &traffic_file,
        "--max-refused",
        "10",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("express-rate-limit"));
}

#[test]
fn an_unreadable_config_exits_2_naming_its_line_and_why() {
    let config = file(
        "no-rate.conf",
        "http {\n    limit_req_zone $binary_remote_addr zone=one:10m;\n}\n",
    );
    let out = ratelab(&["table", "--config", &config]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("line 2"), "{err}");
    assert!(err.contains("rate="), "{err}");

    let out = ratelab(&["table", "--config", &file("hello.txt", "hello\n")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no config the lab reads"));

    let out = ratelab(&["table", "--config", "/no/such/file.conf"]);
    assert_eq!(out.status.code(), Some(2));

    let out = ratelab(&["table", "--product", "nginx"]);
    assert_eq!(out.status.code(), Some(2), "--product needs --config");
}

#[test]
fn the_product_may_be_named_and_an_unknown_name_exits_2() {
    let config = file("cell.txt", "CL.THROTTLE user123 15 30 60\n");
    let out = ratelab(&["table", "--config", &config, "--product", "redis-cell"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("redis-cell"));
    let out = ratelab(&["table", "--config", &config, "--product", "haproxy"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no product is called"));
}
