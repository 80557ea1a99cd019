//! Plays a trace through governor limiters built as a "Use these settings" snippet builds them,
//! and prints the verdict of each request (allowed or rejected), for scripts/check-snippets.sh to
//! compare with the lab's governor row.
//!
//! quotas.rs, written by the checker beside this file, holds each view's lines from
//! `let burst = ...` to `.allow_burst(burst);`, copied from its main.rs. One direct limiter per
//! key on governor's own `FakeRelativeClock`, moved to each request's time; each request is
//! `check_n(cost)`, as the row is.
//! Usage: snippet-governor VIEW TRACE_CSV (lines at_ms,key,cost)
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::FakeRelativeClock;
use governor::RateLimiter;

mod quotas;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quota = quotas::quota(&args[1]);
    let clock = FakeRelativeClock::default();
    let a = RateLimiter::direct_with_clock(quota, clock.clone());
    let b = RateLimiter::direct_with_clock(quota, clock.clone());
    let mut now = 0;
    for line in std::fs::read_to_string(&args[2]).expect("the trace").lines() {
        let f: Vec<&str> = line.split(',').collect();
        let at: u64 = f[0].parse().expect("a time");
        clock.advance(Duration::from_millis(at - now));
        now = at;
        let cost = NonZeroU32::new(f[2].parse().expect("a cost")).expect("a cost above 0");
        let limiter = if f[1] == "a" { &a } else { &b };
        let passed = matches!(limiter.check_n(cost), Ok(Ok(())));
        println!("{}", if passed { "allowed" } else { "rejected" });
    }
}
