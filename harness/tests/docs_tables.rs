//! Every generated table in `docs/RESULTS.md` has a script that writes it. `scripts/results.sh`
//! rewrites the paper sections' tables and refuses a table it does not know, so a section added
//! by another script (`scripts/realtime_noise.py`, `scripts/kernel_eval.py`) must be named where
//! `scripts/results_tables.py` leaves such sections alone; otherwise the next full regeneration
//! stops half way. This runs the script's own check, in a second, rather than the half hour of
//! sweeps that would find it.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn every_generated_table_in_the_results_has_a_script_that_writes_it() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let output = match Command::new("python3")
        .args(["scripts/results_tables.py", "--check", "docs/RESULTS.md"])
        .current_dir(&root)
        .output()
    {
        Ok(output) => output,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipped: python3 cannot run ({e}); CI installs it");
            return;
        }
        Err(e) => panic!("python3 cannot run ({e}): apt-get install -y python3"),
    };
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
