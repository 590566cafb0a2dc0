//! Marks a build by root with `cfg(as_root)`, so that tests which need root (network namespaces)
//! show as ignored, with the reason, in a developer's `cargo test` instead of passing silently.
//! CI builds and runs as root, so they run there.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(as_root)");
    println!("cargo::rerun-if-changed=build.rs");
    // A change of user (sudo) shows in these; rebuild the flag then.
    println!("cargo::rerun-if-env-changed=USER");
    println!("cargo::rerun-if-env-changed=SUDO_USER");
    if is_root() {
        println!("cargo::rustc-cfg=as_root");
    }
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
