use std::process::ExitCode;

use quinn_discern_harness::cli::{execute, is_closed_pipe, parse};
use quinn_discern_harness::log::directives;

fn main() -> ExitCode {
    // Checked before any run: a run builds its log layer from the variable and cannot report.
    if let Err(e) = directives() {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    match execute(parse()) {
        Ok(code) => code,
        Err(e) if is_closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
