//! `discern plot`: an application's JSON log of the controllers' events into CSV and plots.

use std::path::Path;
use std::process::ExitCode;

use super::PlotArgs;

pub(super) fn plot_cmd(args: &PlotArgs) -> anyhow::Result<ExitCode> {
    let out = args.out.clone().unwrap_or_else(|| {
        let stem = args.log.file_stem().unwrap_or_default().to_string_lossy();
        Path::new("out").join(stem.as_ref())
    });
    let files = crate::logplot::plot_log(&args.log, &out)?;
    let names: Vec<String> = files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    outln!("outputs in {}: {}", out.display(), names.join(", "))?;
    Ok(ExitCode::SUCCESS)
}
