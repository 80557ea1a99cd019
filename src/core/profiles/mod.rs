//! Exact profiles of the limiters people deploy: each re-derives, in this project's own code, what
//! one product decides and what it answers, from its documentation and public source. A profile
//! keeps the product's own arithmetic and reply, so the lab can show where products differ.
//!
//! Profiles so far: redis-cell's `CL.THROTTLE`. (nginx, governor, Upstash, Envoy and Cloudflare's
//! binding are still to come; the core algorithms cover their general shapes.)

pub mod redis_cell;
