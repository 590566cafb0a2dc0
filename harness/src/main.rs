use std::process::ExitCode;

use quinn_discern_harness::cli::{execute, parse};

fn main() -> ExitCode {
    match execute(parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
