//! The profiler through its public API, from outside the crates: compile
//! with `cove_compiler`, run with `Vm::new(&program).with_debugger(&profiler)`,
//! and read the profile.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cove_ir::op::Instr;
use cove_profile::{Cost, Profiler, SteppingClock};
use cove_runtime::Vm;
use cove_runtime::vm::debug::{Debugger, Resume, Stop};

/// A loop, so the instruction the loop is made of is counted many times
/// and the one before it once.
const COUNTED: &str = "export fn main() -> Int {
  var total = 0
  var i = 0
  while i < 100 {
    total = total + i
    i = i + 1
  }
  total
}
";

/// A loop that builds a string a turn, so that some instructions allocate
/// and the ones around them do not.
const ALLOCATES: &str = "export fn main() -> Int {
  var total = 0
  var i = 0
  while i < 200 {
    let text = \"n={i}\"
    total = total + text.length()
    i = i + 1
  }
  total
}
";

fn compile(source: &str) -> cove_ir::program::Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

/// **The count is the run's own count**: the profiler is called once per
/// instruction by the loop that counts them.
#[test]
fn every_instruction_the_run_executed_is_counted_once() {
    let program = compile(COUNTED);
    let profiler = Profiler::new();
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("m", "main", Vec::new()).expect("it answers");
    assert_eq!(profiler.counted(), vm.instructions());
    assert!(profiler.counted() > 100, "{}", profiler.counted());
}

#[test]
fn the_hottest_instruction_is_one_the_loop_runs() {
    let program = compile(COUNTED);
    let profiler = Profiler::new();
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("m", "main", Vec::new()).expect("it answers");

    let hottest = profiler.hottest();
    assert!(hottest.len() > 1, "more than one instruction ran");
    for pair in hottest.windows(2) {
        assert!(pair[0].1.ran >= pair[1].1.ran, "sorted by how often");
    }
    assert!(
        hottest[0].1.ran >= 100,
        "the top instruction is one of the hundred turns, not the prologue"
    );
}

/// **Every allocation the run made is attributed to an instruction**: the
/// heap figures are differences of two counters, so none can be lost.
#[test]
fn what_the_heap_handed_out_is_attributed_to_the_instructions_that_ran() {
    let program = compile(ALLOCATES);
    let profiler = Profiler::new();
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("m", "main", Vec::new()).expect("it answers");

    let total = profiler.total();
    assert!(
        total.allocations > 0,
        "a program that builds strings allocates: {total:?}"
    );
    assert!(
        total.words >= total.allocations,
        "an object is at least its header: {total:?}"
    );
    let mut summed = Cost::default();
    for (_, cost) in profiler.rows() {
        summed.add(&cost);
    }
    assert_eq!(summed.allocations, total.allocations);
    assert_eq!(summed.words, total.words);
}

/// Wraps a profiler and makes its clock charge every heap word handed out
/// fifty nanoseconds, as an allocator would, before the profiler reads it:
/// what allocating costs, without a timed assertion.
struct ChargesTheHeap<'a> {
    profiler: &'a Profiler,
    clock: Arc<SteppingClock>,
    words: AtomicU64,
}

impl Debugger for ChargesTheHeap<'_> {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        let before = self.words.swap(stop.allocated_words(), Ordering::Relaxed);
        self.clock
            .advance(stop.allocated_words().saturating_sub(before) * 50);
        self.profiler.at(stop)
    }
}

/// **A `call-builtin` that allocates is dearer than an `add.int`, and the
/// profile says so**: the time an instruction took is put on it, not on its
/// neighbour.
#[test]
fn an_instruction_that_allocates_costs_more_than_one_that_adds() {
    let program = compile(ALLOCATES);
    let clock = Arc::new(SteppingClock::new(5));
    let profiler = Profiler::with_clock(Arc::clone(&clock));
    let charging = ChargesTheHeap {
        profiler: &profiler,
        clock,
        words: AtomicU64::new(0),
    };
    let mut vm = Vm::new(&program).with_debugger(&charging);
    vm.run_entry("m", "main", Vec::new()).expect("it answers");

    let mut dearest = 0.0_f64;
    let mut cheapest = f64::MAX;
    for (_, cost) in profiler.rows() {
        if cost.ran < 10 {
            continue;
        }
        let each = cost.nanos_per_instruction();
        if cost.allocations > 0 {
            dearest = dearest.max(each);
        } else {
            cheapest = cheapest.min(each);
        }
    }
    assert!(
        dearest > cheapest,
        "an allocating instruction averaged {dearest} ns and the cheapest non-allocating one {cheapest}"
    );
    let adds = profiler
        .rows()
        .into_iter()
        .filter(|((f, pc), _)| {
            matches!(
                program.function(*f).code[*pc as usize],
                Instr::AddInt { .. }
            )
        })
        .map(|(_, c)| c.nanos_per_instruction())
        .fold(f64::MAX, f64::min);
    assert!(dearest > adds, "{dearest} against an add.int's {adds}");
}

#[test]
fn a_function_holds_the_instructions_of_its_own_program_counters() {
    let program = compile(COUNTED);
    let profiler = Profiler::new();
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("m", "main", Vec::new()).expect("it answers");

    let per = profiler.by_function();
    assert_eq!(per.len(), 1, "one function ran");
    assert_eq!(per[0].1.ran, profiler.counted());
}

#[test]
fn a_profiler_that_watched_nothing_counts_nothing() {
    let profiler = Profiler::new();
    assert_eq!(profiler.counted(), 0);
    assert!(profiler.hottest().is_empty());
    assert!(profiler.by_function().is_empty());
    assert!(profiler.rows().is_empty());
    assert_eq!(profiler.total(), Cost::default());
}

/// A debugger anybody could write against the seam.
#[derive(Default)]
struct Counter(AtomicU64);

impl Debugger for Counter {
    fn at(&self, _stop: &Stop<'_>) -> Resume {
        self.0.fetch_add(1, Ordering::Relaxed);
        Resume::Go
    }
}

#[test]
fn a_debugger_written_outside_the_crates_sees_every_instruction() {
    let program = compile(COUNTED);
    let counter = Counter::default();
    let mut vm = Vm::new(&program).with_debugger(&counter);
    vm.run_entry("m", "main", Vec::new()).expect("it answers");
    assert_eq!(counter.0.load(Ordering::Relaxed), vm.instructions());
    assert!(vm.instructions() > 100);
}

/// Ties are broken by the instruction's identity, so two runs of one program
/// report the same order (an unchanged program must not look changed).
#[test]
fn two_runs_of_one_program_report_the_same_order() {
    let program = compile(ALLOCATES);
    let order = || {
        let profiler = Profiler::new();
        let mut vm = Vm::new(&program).with_debugger(&profiler);
        vm.run_entry("m", "main", Vec::new()).expect("it answers");
        let rows: Vec<_> = profiler
            .hottest()
            .into_iter()
            .map(|(at, c)| (at, c.ran))
            .collect();
        let functions: Vec<_> = profiler
            .by_function()
            .into_iter()
            .map(|(f, c)| (f, c.ran))
            .collect();
        (rows, functions)
    };
    assert_eq!(order(), order());
}

/// A run that fails still leaves the profile of the part that ran, counted
/// as exactly as a run that finished.
#[test]
fn a_run_that_fails_leaves_the_profile_of_what_ran() {
    let program = compile(
        "export fn main() -> Int {
  var i = 0
  while i < 50 {
    i = i + 1
  }
  10 / (i - 50)
}
",
    );
    let profiler = Profiler::new();
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    assert!(
        vm.run_entry("m", "main", Vec::new()).is_err(),
        "division by zero"
    );
    assert_eq!(profiler.counted(), vm.instructions());
    assert!(profiler.counted() > 50);
    let report = cove_profile::report::Report::new(&program, &profiler);
    assert!(
        report
            .table(cove_profile::report::By::Function, 0)
            .contains("m.main")
    );
}

/// The counter clock changes what a nanosecond costs to read, not what is
/// counted: the count is still the run's own, and the report says which
/// clock timed it.
#[test]
fn a_profile_timed_by_the_counter_clock_counts_the_same_and_names_its_clock() {
    let program = compile(ALLOCATES);
    let profiler = Profiler::with_counter_clock();
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("m", "main", Vec::new()).expect("it answers");
    assert_eq!(profiler.counted(), vm.instructions());
    assert!(
        ["counter", "real"].contains(&profiler.clock_name()),
        "{}",
        profiler.clock_name()
    );
    assert!(profiler.is_real_time());
    let report = cove_profile::report::Report::new(&program, &profiler).text(3);
    assert!(
        report.contains(&format!("{} clock", profiler.clock_name())),
        "{report}"
    );
    assert_eq!(Profiler::new().clock_name(), "real");
    assert_eq!(
        Profiler::with_clock(SteppingClock::new(1)).clock_name(),
        "injected"
    );
}
