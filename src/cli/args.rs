//! The command line's words: three subcommands (and a bare query, which prints the table), each
//! taking the page's URL query, parsed with `clap`.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use super::shard::Shard;

#[derive(Debug, Parser)]
#[command(
    name = "ratelab",
    version,
    about = "Rate Limit Lab on the command line: the page's limiters on your own traffic.",
    long_about = "Rate Limit Lab on the command line: the page's limiters on your own traffic.\n\n\
        Every subcommand reads the URL query the page reads (`limit=5&window=10&algos=fixed,gcra`, \
        with or without its `?`, or the page's whole address). A bare query prints the table.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// A URL query: prints the page's table for it, as `ratelab table QUERY`.
    pub query: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The page's table: what each row let through, delayed and rejected, and the most in one
    /// window.
    Table {
        /// The page's URL query; left out, a view file's own (`--traffic VIEW-FILE`), or the
        /// lab's defaults.
        query: Option<String>,
        #[command(flatten)]
        traffic: TrafficArg,
        #[command(flatten)]
        config: ConfigArg,
    },
    /// Every decision, exactly the page's CSV export, to standard output as it is made.
    Csv {
        /// The page's URL query; left out, a view file's own (`--traffic VIEW-FILE`), or the
        /// lab's defaults.
        query: Option<String>,
        #[command(flatten)]
        traffic: TrafficArg,
        #[command(flatten)]
        config: ConfigArg,
        #[command(flatten)]
        shard: ShardArg,
    },
    /// Exits 1, naming the rows, when any row refuses more than PERCENT of the requests.
    Check {
        /// The page's URL query; left out, a view file's own (`--traffic VIEW-FILE`), or the
        /// lab's defaults.
        query: Option<String>,
        /// The traffic to judge (`-` for standard input), or a view file.
        #[arg(long, value_name = "FILE")]
        traffic: PathBuf,
        /// The largest share of the requests a row may refuse, in percent (`5`, `0.5`, `5%`).
        #[arg(long, value_name = "PERCENT", value_parser = parse_percent)]
        max_refused: f64,
        #[command(flatten)]
        config: ConfigArg,
        #[command(flatten)]
        shard: ShardArg,
    },
}

#[derive(Debug, clap::Args)]
pub struct TrafficArg {
    /// Your own traffic in place of the query's (`-` for standard input): one time per line,
    /// CSV (time,key[,region[,route[,cost]]]) or an access log, as the page's import reads; or
    /// a view file from the page ("Download this view"), whose query applies unless a QUERY is
    /// given.
    #[arg(long, value_name = "FILE")]
    pub traffic: Option<PathBuf>,
}

#[derive(Debug, Default, clap::Args)]
pub struct ConfigArg {
    /// A product's config you run (an nginx.conf, express-rate-limit's options, a
    /// wrangler.toml, ...): its row, with the config's settings, replaces the query's `algos=`;
    /// the query's other fields still apply.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The product the config is for (`nginx`, `express-rate-limit`, `upstash`, ...), when it
    /// is not told from the file itself.
    #[arg(long, value_name = "NAME", requires = "config")]
    pub product: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct ShardArg {
    /// Only the keys whose SHA-256 falls in shard I of N (I from 0 to N - 1), so that N runs
    /// together make one run.
    #[arg(long, value_name = "I/N", value_parser = Shard::parse)]
    pub shard: Option<Shard>,
}

/// A share in percent, 0 to 100, with or without its `%`.
fn parse_percent(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%').trim();
    number
        .parse::<f64>()
        .ok()
        .filter(|p| (0.0..=100.0).contains(p))
        .ok_or_else(|| format!("a share in percent from 0 to 100 (like 5 or 0.5), not \"{text}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_percent_may_carry_its_sign_and_stays_between_0_and_100() {
        assert_eq!(parse_percent("5"), Ok(5.0));
        assert_eq!(parse_percent("0.5%"), Ok(0.5));
        assert!(parse_percent("101").is_err());
        assert!(parse_percent("NaN").is_err());
        assert!(parse_percent("five").unwrap_err().contains("\"five\""));
    }
}
