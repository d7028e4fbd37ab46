use cove_runtime::{Value, Vm};
fn main() {
    let text = "module m \"m.cove\"\n\
fn f0 fib in m export\n  params t2\n  result t2\n  registers 3\n  refs\n\
  @0  jump-ge.int.imm r0, 2, @2\n  @1  return r0\n  @2  add.int.imm r1, r0, -1\n  @3  call r1, m.fib, r1, 1\n\
  @4  add.int.imm r2, r0, -2\n  @5  call r2, m.fib, r2, 1\n  @6  add.int r1, r1, r2\n  @7  return r1\n";
    let p = cove_ir::parse::program(text).unwrap();
    let mut vm = Vm::new(&p);
    let t = std::time::Instant::now();
    let r = vm.run_entry("m", "fib", vec![Value::Int(32)]);
    println!("{r:?} {:?} {} instrs", t.elapsed(), vm.instructions());
}
