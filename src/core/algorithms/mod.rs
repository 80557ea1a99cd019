//! The rate-limiting algorithms, one per module. Each keeps the state of a single key.

pub mod fixed_window;
pub mod gcra;
pub mod leaky_bucket;
pub mod sliding_counter;
pub mod sliding_log;
pub mod token_bucket;

pub use fixed_window::FixedWindow;
pub use gcra::Gcra;
pub use leaky_bucket::{LeakyBucket, LeakyBucketConfig};
pub use sliding_counter::SlidingCounter;
pub use sliding_log::SlidingLog;
pub use token_bucket::TokenBucket;
