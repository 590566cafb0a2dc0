use std::process::ExitCode;

use quinn_discern_harness::cli::{execute, is_closed_pipe, parse};

fn main() -> ExitCode {
    match execute(parse()) {
        Ok(code) => code,
        Err(e) if is_closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
