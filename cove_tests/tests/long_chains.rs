//! A chain of binary operators is long, not deep: `1 + 1 + ... + 1` with
//! thousands of terms, a string built from hundreds of pieces, or a long
//! `&&` of conditions compiles and computes the right answer, and the
//! passes that walk the left-nested tree of such a chain do so in loops, so
//! a chain at the parser's limit does not overflow the compiler's stack.
//! Real nesting (parentheses, blocks, calls) keeps its own, lower limit.

use cove_tests::output;

fn codes(source: &str) -> Vec<String> {
    match cove_compiler::compile_module("m", source) {
        Ok(_) => Vec::new(),
        Err(errors) => errors.iter().map(|d| d.code().to_string()).collect(),
    }
}

#[test]
fn a_sum_of_ten_thousand_terms_compiles_and_computes_its_value() {
    let source = format!(
        "fn main() -> Int {{\n  let x = {}\n  x\n}}\n",
        vec!["1"; 10_000].join(" + ")
    );
    assert_eq!(output(&source), "=> 10000");
}

#[test]
fn a_string_built_from_hundreds_of_pieces_compiles() {
    let pieces: Vec<String> = (0..250).map(|i| format!("\"a{i}\"")).collect();
    let source = format!(
        "fn main() {{\n  let s = \"\" + {}\n  println(s.length())\n}}\n",
        pieces.join(" + ")
    );
    // 10 pieces of 2 bytes, 90 of 3 and 150 of 4.
    assert_eq!(output(&source), "890\n=> ()");
}

#[test]
fn mixed_precedence_chains_keep_their_grouping() {
    let terms: Vec<String> = (1..=3000)
        .map(|i| match i % 3 {
            0 => format!("{i} * 2"),
            1 => format!("{i} % 7"),
            _ => format!("-{i} / 3"),
        })
        .collect();
    let expected: i64 = (1..=3000i64)
        .map(|i| match i % 3 {
            0 => i * 2,
            1 => i % 7,
            _ => -i / 3,
        })
        .sum();
    let source = format!(
        "fn main() -> Int {{\n  let x = {}\n  x\n}}\n",
        terms.join(" + ")
    );
    assert_eq!(output(&source), format!("=> {expected}"));
}

#[test]
fn long_and_and_or_chains_branch_as_short_ones_do() {
    let all = vec!["t"; 10_000].join(" && ");
    let any = vec!["f"; 10_000].join(" || ");
    let source = format!(
        "fn main() {{\n  let t = true\n  let f = false\n  if {all} {{ println(\"all\") }}\n  if {any} {{ println(\"any\") }} else {{ println(\"none\") }}\n  let a = {all} && f\n  let b = {any} || t\n  println(\"{{a}} {{b}}\")\n}}\n"
    );
    assert_eq!(output(&source), "all\nnone\nfalse true\n=> ()");
}

#[test]
fn a_chain_at_the_limit_compiles_without_overflowing_the_stack() {
    // The lowering walks the chain in a loop; only the tree's `Drop`
    // follows it recursively. (Measured in a debug build: a recursive
    // lowering overflows the compiler's stack near 400,000 links, the loop
    // still compiles 1,000,000; the limit keeps a wide margin.) The `>` is
    // the chain's last operator.
    let n = 100_000;
    let source = format!(
        "fn f(x: Int) -> Int {{\n  if {} > 0 {{ 1 }} else {{ 0 }}\n}}\nfn main() -> Int {{\n  f(1)\n}}\n",
        vec!["x"; n].join(" + ")
    );
    assert_eq!(codes(&source), Vec::<String>::new());
}

#[test]
fn a_chain_past_the_limit_is_one_diagnostic() {
    let source = format!(
        "fn main() -> Int {{\n  {}\n}}\n",
        vec!["1"; 100_002].join(" - ")
    );
    assert_eq!(codes(&source), ["E0013"]);
}

#[test]
fn parentheses_still_count_as_nesting() {
    let deep = |n: usize| {
        format!(
            "fn main() -> Int {{\n  {}1{}\n}}\n",
            "(1 + ".repeat(n),
            ")".repeat(n)
        )
    };
    assert_eq!(output(&deep(150)), "=> 151");
    assert_eq!(codes(&deep(300)), ["E0013"]);
}
