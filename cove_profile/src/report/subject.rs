//! What a profile is a profile *of*: the program's identity, as the JSON
//! records it.
//!
//! A profile kept in a file is read later, often beside another one, and
//! the first question a reader or [`crate::diff`] asks of two files is
//! whether they are profiles of the same program. Function names answer it
//! badly (two unrelated programs both have a `main`), and a path answers it
//! badly too (one file edited between two runs is two programs). So the
//! profile records all three things a person would check — the entry path
//! as given, the arguments, and a hash of the program's IR — and leaves the
//! judgement to the reader of the pair.
//!
//! The hash is FNV-1a over [`cove_ir::print::program`]: the printed form is
//! a complete encoding of a `Program` (its module doc says so), so two
//! programs that print alike run alike. It costs one print of the program
//! when a report is made, never anything during the run. It is a
//! fingerprint, not a security measure.

use serde::{Deserialize, Serialize};

use cove_ir::program::Program;

/// The program a profile was taken of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    /// The entry file's path as the command line gave it.
    pub entry: String,
    /// The program's own arguments.
    pub args: Vec<String>,
    /// FNV-1a (64 bits, 16 hex digits) of the printed IR.
    pub ir_hash: String,
    /// The version of the crate that wrote the profile.
    pub cove_version: String,
    /// When the run started, in seconds since the Unix epoch.
    pub started: u64,
}

impl Subject {
    /// The identity of `program`, run from `entry` with `args`, started now.
    pub fn new(program: &Program, entry: &str, args: &[String]) -> Subject {
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Subject {
            entry: entry.to_string(),
            args: args.to_vec(),
            ir_hash: ir_hash(program),
            cove_version: env!("CARGO_PKG_VERSION").to_string(),
            started,
        }
    }
}

/// The 64-bit FNV-1a hash of `program`'s printed form, as 16 hex digits.
pub fn ir_hash(program: &Program) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in cove_ir::print::program(program).bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_program_hashes_alike_and_an_edited_one_does_not() {
        let a = cove_compiler::compile_module("m", "export fn main() -> Int { 1 }\n").unwrap();
        let b = cove_compiler::compile_module("m", "export fn main() -> Int { 1 }\n").unwrap();
        let c = cove_compiler::compile_module("m", "export fn main() -> Int { 2 }\n").unwrap();
        assert_eq!(ir_hash(&a), ir_hash(&b));
        assert_ne!(ir_hash(&a), ir_hash(&c));
        assert_eq!(ir_hash(&a).len(), 16);
    }
}
