use std::process::ExitCode;

use clap::Parser;
use discern_harness::cli::{execute, Cli};

fn main() -> ExitCode {
    match execute(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
