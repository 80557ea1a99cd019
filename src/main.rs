//! In the browser: mounts the page. Natively: prints the page's table for a URL query, e.g.
//! `cargo run -- "limit=5&window=10&pattern=steady"`.

#[cfg(target_arch = "wasm32")]
fn main() {
    ratelab::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use ratelab::core::run::run_all;
    use ratelab::core::url::parse_query;

    let query = std::env::args().nth(1).unwrap_or_default();
    let parsed = parse_query(&query);
    for notice in &parsed.notices {
        eprintln!("note: {}", notice.message);
    }
    let state = parsed.state;
    let trace = state
        .pattern
        .generate(state.settings.limit, state.settings.window);
    match run_all(&trace, &state.algorithms, &state.settings) {
        Ok(runs) => {
            println!(
                "{:<34} {:>8} {:>8} {:>8} {:>14}",
                "algorithm", "allowed", "delayed", "rejected", "max in window"
            );
            for run in runs {
                println!(
                    "{:<34} {:>8} {:>8} {:>8} {:>14}",
                    run.algorithm.label(),
                    run.allowed,
                    run.delayed,
                    run.rejected,
                    run.max_in_window
                );
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
