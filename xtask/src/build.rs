//! Building the `cove` binaries a measurement compares.
//!
//! Each variant is one `cargo build --release -p cove_cli` with its own
//! features, copied out of `target/release` to a folder of its own so that
//! the next build cannot overwrite it. One target directory for all of them
//! rather than one each: cargo keys every compiled crate by its features, so
//! the dependencies common to the variants are built once and the switch
//! costs only the crates whose features differ.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A `cove` binary built a particular way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// The binary users get: today's runtime, the profiler linked in.
    Today,
    /// Today's runtime without the profiler linked in at all
    /// (`--no-default-features`): the "no profile" side of the native
    /// instruction comparison.
    NoProfiler,
    /// The runtime built with its `sampled-profile` feature: the rejected
    /// design, an `Option` profile field on `Machine` sampled at the
    /// safepoint.
    Sampled,
}

impl Variant {
    /// The folder name the binary is copied to, and its label in reports.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Today => "today",
            Variant::NoProfiler => "no-profiler",
            Variant::Sampled => "sampled",
        }
    }

    /// The cargo flags that select this variant.
    fn flags(self) -> &'static [&'static str] {
        match self {
            Variant::Today => &[],
            Variant::NoProfiler => &["--no-default-features"],
            Variant::Sampled => &["--features", "cove_runtime/sampled-profile"],
        }
    }
}

/// The workspace's root folder.
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// The target folder cargo builds into.
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
}

/// Builds `variant` in release mode and returns the path of its copy of
/// `cove`, or what cargo said when the build failed.
pub fn build(root: &Path, variant: Variant) -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!(
        "bench-overhead: building cove ({}): cargo build --release -p cove_cli {}",
        variant.name(),
        variant.flags().join(" ")
    );
    let output = Command::new(cargo)
        .current_dir(root)
        .args(["build", "--release", "--quiet", "-p", "cove_cli"])
        .args(variant.flags())
        .output()
        .map_err(|e| format!("could not start cargo: {e}"))?;
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        let first = said
            .lines()
            .find(|l| l.starts_with("error"))
            .unwrap_or("the build failed");
        return Err(first.trim().to_string());
    }
    let target = target_dir(root);
    let built = target.join("release").join(exe("cove"));
    let folder = target.join("overhead").join(variant.name());
    std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let copy = folder.join(exe("cove"));
    std::fs::copy(&built, &copy).map_err(|e| format!("{}: {e}", built.display()))?;
    Ok(copy)
}

/// A binary's file name on this platform.
fn exe(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}
