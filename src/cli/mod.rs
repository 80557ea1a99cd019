//! The command line: `ratelab table|csv|check QUERY [--traffic FILE]`, the page's core on
//! traffic of any length (native only; the page's bundle holds none of it). Exit codes: 0 done,
//! 1 `check` found rows refusing too much, 2 something to fix in the command or its input.

mod args;
mod figures;
mod read;
mod rows;
mod run;
mod shard;
mod source;

use std::process::ExitCode;

use clap::Parser;

pub use args::{Cli, Command};

/// What stopped a command, as the lines it prints.
#[derive(Debug)]
pub enum CliError {
    /// Something in the command or its input to fix (exit 2).
    Input(Vec<String>),
    /// Standard output was closed by its reader (`| head`): nothing is wrong (exit 0).
    Closed,
}

impl CliError {
    pub fn input(message: impl Into<String>) -> CliError {
        CliError::Input(vec![message.into()])
    }
}

/// Exit code of a `check` that found rows refusing more than allowed.
pub const EXIT_CHECK_FAILED: u8 = 1;
/// Exit code of a command that could not run as given.
pub const EXIT_INPUT: u8 = 2;

/// Runs the command line of this process.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(CliError::Closed) => ExitCode::SUCCESS,
        Err(CliError::Input(lines)) => {
            for (i, line) in lines.iter().enumerate() {
                if i == 0 {
                    eprintln!("error: {line}");
                } else {
                    eprintln!("  {line}");
                }
            }
            ExitCode::from(EXIT_INPUT)
        }
    }
}
