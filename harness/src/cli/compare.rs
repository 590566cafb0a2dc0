//! `discern compare BASE NEW`: one controller on two random-path boards of the same draw.

use std::process::ExitCode;

use super::CompareArgs;
use crate::score::paths::compare::{compare_boards, read_board};

pub(super) fn compare_cmd(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let base = read_board(&args.base)?;
    let new = read_board(&args.new)?;
    let comparison = compare_boards(&base, &new, &args.controller)?;
    outln!(
        "`{}` on {} paths: {} (new) against {} (base)",
        comparison.controller,
        comparison.paths,
        args.new.display(),
        args.base.display()
    )?;
    outln!("{}", comparison.table().render())?;
    let outcomes = |counts: &std::collections::BTreeMap<String, usize>| {
        counts
            .iter()
            .map(|(outcome, n)| format!("{outcome} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    outln!("outcomes, base: {}", outcomes(&comparison.base_outcomes))?;
    outln!("outcomes, new: {}", outcomes(&comparison.new_outcomes))?;
    Ok(ExitCode::SUCCESS)
}
