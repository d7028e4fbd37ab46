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

#[test]
fn ten_thousand_unknown_names_among_ten_thousand_variables_are_reported_without_a_quadratic_wait() {
    // Found by the `compile_bytes` fuzz target: each unknown name searched
    // every variable in scope for a "did you mean", so checking took the
    // product of the two (4,000 of each: 18 s in a debug build). Each use
    // `w{i}` is one edit from the variable `v{i}`.
    let lets: String = (0..10_000).map(|i| format!("  let v{i} = {i}\n")).collect();
    let uses: String = (0..10_000).map(|i| format!("  s += w{i}\n")).collect();
    let source = format!("fn main() -> Int {{\n{lets}  var s = 0\n{uses}  s\n}}\n");
    let errors = cove_compiler::compile_module("m", &source).unwrap_err();
    assert!(errors.truncated(), "past the hundred errors shown");
    let first = errors.iter().next().expect("an error");
    assert_eq!(first.code(), "E0200", "{}", first.message());
    assert_eq!(first.message(), "unknown name `w0`");
    // The errors shown still say what was meant.
    assert_eq!(first.help(), Some("did you mean `v0`?"));
}
