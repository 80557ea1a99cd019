//! Prints the names web/loader.js reads in a link, as JavaScript declarations, from the rule in
//! `src/site.rs` (`ratelab::site::loader_tables`): scripts/build-site.sh runs it and
//! scripts/site_modules.py writes its output into the loader, so the rule's names are written
//! once, in Rust.

fn main() {
    print!("{}", ratelab::site::loader_tables());
}
