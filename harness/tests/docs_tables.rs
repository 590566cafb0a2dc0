//! Every generated table in `docs/RESULTS.md` has a script that writes it. `scripts/results.sh`
//! rewrites the paper sections' tables and refuses a table it does not know, so a section added
//! by another script (`scripts/realtime_noise.py`, `scripts/kernel_eval.py`) must be named where
//! `scripts/results_tables.py` leaves such sections alone; otherwise the next full regeneration
//! stops half way. This runs the script's own check, in a second, rather than the half hour of
//! sweeps that would find it. And every script that writes them starts: its imports resolve and
//! it answers `--help`, so that a broken import (one script loading another that loads it back)
//! shows here and not at the end of an hour's board.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `python3 ARGS` in the repository's root, without leaving compiled files behind; None where
/// python3 cannot run outside CI (CI installs it).
fn python3(root: &Path, args: &[&str]) -> Option<Output> {
    match Command::new("python3")
        .args(args)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(root)
        .output()
    {
        Ok(output) => Some(output),
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipped: python3 cannot run ({e}); CI installs it");
            None
        }
        Err(e) => panic!("python3 cannot run ({e}): apt-get install -y python3"),
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_generated_table_in_the_results_has_a_script_that_writes_it() {
    let root = root();
    let Some(output) = python3(
        &root,
        &["scripts/results_tables.py", "--check", "docs/RESULTS.md"],
    ) else {
        return;
    };
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn every_script_starts_and_answers_help() {
    let root = root();
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(root.join("scripts"))
        .expect("scripts/")
        .map(|entry| entry.expect("a scripts/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "py"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 5, "{scripts:?}");
    for script in scripts {
        let path = script.to_str().expect("a UTF-8 path");
        let Some(output) = python3(&root, &[path, "--help"]) else {
            return;
        };
        assert!(
            output.status.success() && output.stdout.starts_with(b"usage:"),
            "{path} --help: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
