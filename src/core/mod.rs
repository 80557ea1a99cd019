//! The pure core: algorithms, time, traffic and the HTTP answers. No browser dependency, no
//! clock, no randomness except from a seed; everything here is tested natively.

pub mod algorithms;
pub mod clients;
pub mod combine;
pub mod compose;
pub mod config;
pub mod config_file;
pub mod control;
pub mod decision;
pub mod deployment;
pub mod durable;
pub mod embed;
pub mod explanation;
pub mod export;
pub mod field;
pub mod http;
pub mod import;
pub mod job;
pub mod lab;
pub mod lab_state;
pub mod limiter;
pub mod linking;
pub mod percent;
pub mod profiles;
/// Questions people ask and the views that answer them.
pub mod questions;
pub mod quote;
pub mod region;
pub mod replay;
pub mod retries;
pub mod retry_hint;
pub mod rng;
pub mod row_notes;
pub mod row_response;
pub mod run;
/// The Durable Object lab's scenarios, what choosing one does to the view, and their lessons.
pub mod scenarios;
pub mod second_limit;
pub mod sha256;
pub mod snippets;
pub mod so_far;
pub mod theme;
pub mod time;
pub mod traffic;
pub mod url;
pub mod view_file;
pub mod view_text;
