//! In the browser: mounts the page. Natively: the command line (`src/cli/`), e.g.
//! `cargo run -- table "limit=5&window=10&pattern=steady"` or a bare query for the table.

#[cfg(target_arch = "wasm32")]
fn main() {
    ratelab::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    ratelab::cli::main()
}
