//! Marks a build by root with `cfg(as_root)`, so that tests which need root (network namespaces)
//! show as ignored, with the reason, in a developer's `cargo test` instead of passing silently.
//! CI builds and runs as root, so they run there.
//!
//! A build by root where Slurm's controller is installed, or in CI (`CI=true`), also gets
//! `cfg(slurm)`: the test of the Slurm recipe runs there, and in CI a missing Slurm fails it
//! rather than hiding it.

use std::path::{Path, PathBuf};

/// Where Debian's `slurm-wlm` puts the controller, beside the `PATH`.
const SLURMCTLD_DIRS: &[&str] = &["/usr/sbin", "/usr/local/sbin"];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(as_root)");
    println!("cargo::rustc-check-cfg=cfg(slurm)");
    println!("cargo::rerun-if-changed=build.rs");
    // A change of user (sudo) shows in these; rebuild the flag then.
    println!("cargo::rerun-if-env-changed=USER");
    println!("cargo::rerun-if-env-changed=SUDO_USER");
    println!("cargo::rerun-if-env-changed=CI");
    let root = is_root();
    if root {
        println!("cargo::rustc-cfg=as_root");
    }
    let dirs = search_dirs();
    let slurmctld = dirs
        .iter()
        .map(|d| d.join("slurmctld"))
        .find(|p| p.is_file());
    // Installing or removing Slurm changes the folder that holds (or would hold) it.
    match &slurmctld {
        Some(path) => println!("cargo::rerun-if-changed={}", path.display()),
        None => {
            for dir in dirs.iter().filter(|d| d.is_dir()) {
                println!("cargo::rerun-if-changed={}", dir.display());
            }
        }
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if root && (slurmctld.is_some() || ci) {
        println!("cargo::rustc-cfg=slurm");
    }
}

/// The absolute folders of `PATH`, then [`SLURMCTLD_DIRS`].
fn search_dirs() -> Vec<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| d.is_absolute())
        .collect();
    for d in SLURMCTLD_DIRS {
        if !dirs.iter().any(|x| x == Path::new(d)) {
            dirs.push(PathBuf::from(d));
        }
    }
    dirs
}

/// The effective user id from `/proc/self/status` (`Uid: real effective saved fs`).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("Uid:"))?;
            line.split_whitespace().nth(2).map(|euid| euid == "0")
        })
        .unwrap_or(false)
}
