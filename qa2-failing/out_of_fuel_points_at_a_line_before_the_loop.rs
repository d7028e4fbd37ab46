// When fuel runs out (or an interrupt lands) right after a loop's backward
// jump, the backtrace names the line of the instruction that sits before
// the loop's first instruction in the code — a line outside the loop that
// ran once — instead of a line of the loop.
//
// Drop into cove_runtime/tests/ and run with cargo test. Or from the CLI:
//   cove run --fuel 1001 this-program.cove   -> "at m.main (m.cove:3)"
//   cove run --fuel 1000 this-program.cove   -> "at m.main (m.cove:5)"
//
// Program (lines):           disasm:
//   1 fn main() {
//   2   var i = 0            @0 load.int r0, 0
//   3   println("start")     @1 load.const / @2 call-builtin println
//   4   while true {         @4 jump @3
//   5     i += 1             @3 add.int.imm r0, r0, 1
//   6   }
//   7 }
//
// Expected: the innermost frame's line is 4 or 5 (the loop), for every fuel.
// Actual: with an odd fuel (1001, 1003, 1025, ...) it is line 3, the
//   println before the loop. The CLI shows that line's source as where the
//   run stopped; Ctrl-C / InterruptHandle::interrupt has the same 50% chance.
//
// Cause: cove_runtime/src/vm/machine.rs, Machine::backtrace takes `pc` as
//   "the index after the instruction that faulted" and reports line_of(pc - 1).
//   At a safepoint (fuel, interrupt) the pc handed in is the next instruction
//   to run; after `jump @3` that is 3, so pc - 1 = @2, the println — the
//   code-order predecessor of the jump target, not the instruction that ran.
use cove_runtime::{ErrorKind, Limits, Vm};

#[test]
fn out_of_fuel_in_a_loop_names_a_line_of_the_loop_whatever_the_fuel() {
    let program = cove_compiler::compile_module(
        "m",
        "fn main() {\n  var i = 0\n  println(\"start\")\n  while true {\n    i += 1\n  }\n}\n",
    )
    .unwrap();
    for fuel in 1000..1010 {
        let mut vm = Vm::new(&program)
            .with_output(Box::new(std::io::sink()))
            .with_limits(Limits {
                fuel: Some(fuel),
                ..Limits::default()
            });
        let error = vm.run_entry("m", "main", vec![]).unwrap_err();
        assert_eq!(error.kind, ErrorKind::OutOfFuel);
        let line = error.backtrace[0].line;
        // Fails for fuel 1001: Some(3).
        assert!(
            line == Some(4) || line == Some(5),
            "fuel {fuel}: the error names line {line:?}"
        );
    }
}
