//! The `cove` command.

fn main() {
    eprintln!("cove: the command line is not built yet (issue 6)");
    std::process::exit(2);
}
