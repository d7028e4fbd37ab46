//! `cargo xtask`: project chores.

fn main() {
    eprintln!("usage: cargo xtask <task> (no tasks yet)");
    std::process::exit(2);
}
