//! Coverage over code the compiler has threaded: a line whose only
//! instructions are jumps that every jump now passes by holds no code a
//! run could reach, so it is neither a hit nor a miss; every line that
//! ran is still a hit.

use cove_profile::report::Report;
use cove_profile::{Profiler, SteppingClock};
use cove_runtime::Vm;

/// Line 4 (`loop {`) held only the loop's back edge, which the arm's own
/// jump back now passes by; line 12's `break` was only a jump to the
/// `return` of line 15, and is now that return, on line 15.
const WALK: &str = "fn count(xs: List[Option[Int]]) -> Int {
  var n = 0
  var i = 0
  loop {
    match xs.get(i) {
      Some(x) => {
        if x.is_some() {
          n += 1
        }
        i += 1
      }
      None => break
    }
  }
  n
}

export fn main() -> Int {
  count([Some(1), None, Some(3)])
}
";

fn lines_of(lcov: &str) -> Vec<(u32, u64)> {
    lcov.lines()
        .filter_map(|l| l.strip_prefix("DA:"))
        .map(|l| {
            let (line, hits) = l.split_once(',').expect("DA:line,hits");
            (line.parse().expect("a line"), hits.parse().expect("hits"))
        })
        .collect()
}

#[test]
fn a_line_left_with_only_unreached_jumps_is_neither_hit_nor_missed() {
    let program = cove_compiler::compile_module("m", WALK).unwrap_or_else(|d| panic!("{d}"));
    // The premise: line 4 has instructions, none reachable, and line 12
    // none at all.
    let count = &program.functions[0];
    let reachable = cove_ir::op::reachable(&count.code);
    let on_line = |line: u32| -> Vec<bool> {
        count
            .lines
            .iter()
            .zip(&reachable)
            .filter(|(l, _)| **l == line)
            .map(|(_, r)| *r)
            .collect()
    };
    let four = on_line(4);
    assert!(
        !four.is_empty() && four.iter().all(|r| !r),
        "line 4: {four:?}"
    );
    assert!(on_line(12).is_empty());
    let profiler = Profiler::with_clock(SteppingClock::new(10));
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("m", "main", Vec::new()).expect("it answers");
    let lines = lines_of(&Report::new(&program, &profiler).lcov());
    let numbers: Vec<u32> = lines.iter().map(|(l, _)| *l).collect();
    assert!(!numbers.contains(&4) && !numbers.contains(&12), "{lines:?}");
    // Everything else of `count` ran: the match four times (three
    // elements and the end), the unwrap's test three, the count twice.
    for (line, hits) in [(2, 1), (3, 1), (5, 4), (7, 3), (8, 2), (10, 3), (15, 1)] {
        assert!(lines.contains(&(line, hits)), "line {line}: {lines:?}");
    }
    assert!(
        lines.iter().all(|(_, hits)| *hits > 0),
        "no line a miss: {lines:?}"
    );
}

#[test]
fn code_after_a_return_is_not_reachable_and_a_loop_of_jumps_is() {
    use cove_ir::op::{Instr, Reg, reachable};
    let code = [
        Instr::Jump { target: 2 },
        Instr::Return { src: Reg(0) },
        Instr::JumpNone {
            opt: Reg(1),
            target: 4,
        },
        Instr::Jump { target: 2 },
        Instr::Return { src: Reg(0) },
        Instr::ReturnUnit {},
    ];
    assert_eq!(reachable(&code), [true, false, true, true, true, false]);
}
