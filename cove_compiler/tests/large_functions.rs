//! Very large functions compile in time linear in their size: a `match` of
//! 100,000 arms and a function of 70,000 `let`s, which took 10.9 s and
//! 25.5 s when every branch rescanned the jumps and every name the
//! variables. No clock is read: the reproducers are kept at the size that
//! showed the fault, and a quadratic step would make them minutes long.

#[test]
fn a_match_of_a_hundred_thousand_arms_compiles() {
    let arms: String = (0..100_000).map(|i| format!("    {i} => {i}\n")).collect();
    let source = format!(
        "fn f(x: Int) -> Int {{\n  match x {{\n{arms}    _ => 0\n  }}\n}}\n\nfn main() -> Int {{\n  f(3)\n}}\n"
    );
    let program = cove_compiler::compile_module("m", &source).unwrap_or_else(|d| panic!("{d}"));
    assert!(program.functions.len() >= 2);
}

#[test]
fn seventy_thousand_lets_are_reported_as_too_many_registers_without_a_quadratic_wait() {
    let lets: String = (0..70_000).map(|i| format!("  let a{i} = {i}\n")).collect();
    let source = format!("fn main() -> Int {{\n{lets}  a0\n}}\n");
    let errors = cove_compiler::compile_module("m", &source).unwrap_err();
    assert!(
        errors.iter().any(|d| d.code() == "E0403"),
        "{}",
        errors
            .iter()
            .next()
            .map(|d| d.message().to_string())
            .unwrap_or_default()
    );
}
