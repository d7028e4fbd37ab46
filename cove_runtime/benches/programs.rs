//! The benchmark programs of `examples/bench/`, each compiled once and timed
//! through `Vm::run_entry` alone, with their output thrown away.
//!
//! The programs are read from this package's own copy, `benches/programs/`,
//! so the bench runs from a downloaded crate too; `cove_tests`'s
//! `packaged_links.rs` fails when the copy differs from `examples/bench/`.
//!
//! `cargo bench -p cove_runtime` runs them; `cargo bench -p cove_runtime -- fib`
//! runs one. The same programs in Lua 5.4 sit beside the Cove ones, for a
//! side-by-side `hyperfine` run (see docs/RUNTIME.md).

use std::path::Path;

use cove_runtime::Vm;
use criterion::{Criterion, criterion_group, criterion_main};

const PROGRAMS: &[&str] = &[
    "fib",
    "loop",
    "strings",
    "binary_trees",
    "nbody",
    "wordcount",
    "arith",
    "sieve",
    "fannkuch",
    "spectral_norm",
    "mandelbrot",
    "fasta",
    "knucleotide",
    "append",
    "matmul",
    "sorting",
    "nsieve_bits",
    "nqueens",
    "intmap",
    "splitting",
    "levenshtein",
    "closures",
    "higher_order",
    "linked_list",
    "memo",
    "map_walk",
    "tuples",
    "gauss",
    "sudoku",
    "collatz",
    "tak",
    "ackermann",
    "richards",
    "interp",
    "strrev",
    "strmap",
    "jacobi",
    "exprparse",
    "dijkstra",
    "records",
    "permute",
    "towers",
    "storage",
    "bounce",
    "heapsort",
    "mergesort",
    "knapsack",
    "formatting",
    "rounding",
    // Tasks and channels, which have no Lua twin.
    "channels",
    // A directory program: the covefmt workload, which has no Lua twin.
    "covefmt/main",
];

fn programs(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/programs");
    let mut group = c.benchmark_group("programs");
    group.sample_size(10);
    for name in PROGRAMS {
        let path = dir.join(format!("{name}.cove"));
        let program = cove_compiler::compile_files(&path).expect("a benchmark program compiles");
        let module = program
            .modules
            .last()
            .expect("an entry module")
            .name
            .clone();
        group.bench_function(*name, |b| {
            b.iter(|| {
                let mut vm = Vm::new(&program).with_output(Box::new(std::io::sink()));
                vm.run_entry(&module, "main", Vec::new())
                    .expect("a benchmark program runs")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, programs);
criterion_main!(benches);
