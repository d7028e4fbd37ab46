//! Golden input and output pairs for every formatting rule of covefmt, one
//! test a rule: each snapshot shows what was given and what came out, and
//! each output must come out of a second pass unchanged.

mod support;
use support::covefmt::formatted;

/// Formats `input`, checks the result is stable, and shows both.
fn golden(input: &str) -> String {
    let output = formatted(input);
    assert_eq!(formatted(&output), output, "a second pass changes it");
    format!("--- input\n{input}--- output\n{output}")
}

#[test]
fn blocks_are_indented_two_spaces_a_level_whatever_the_input_used() {
    insta::assert_snapshot!(golden(
        "fn main() {\nlet x = 1\n\tif x > 0 {\n\t\t\tprintln(x)\n    }\n        }\n"
    ));
}

#[test]
fn binary_operators_get_one_space_each_side_and_a_sign_none() {
    insta::assert_snapshot!(golden(
        "fn f(a: Int, b: Int) -> Int {\n  let c=a+b*-a\n  let d = -(a-b)%2\n  c<<1|d&3^a>>2\n}\n"
    ));
}

#[test]
fn commas_get_one_space_after_and_brackets_none_inside() {
    insta::assert_snapshot!(golden(
        "fn main() {\n  let xs = [ 1 ,2,  3 ]\n  println( xs[ 0 ] )\n  let m = Map[ String,Int ]( )\n}\n"
    ));
}

#[test]
fn trailing_whitespace_goes_and_the_file_ends_in_one_newline() {
    insta::assert_snapshot!(golden("fn main() {   \n  println(1)\t \n}\n\n\n"));
}

#[test]
fn blank_lines_collapse_to_one_and_none_open_or_close_a_block() {
    insta::assert_snapshot!(golden(
        "\n\nfn a() {\n\n  println(1)\n\n\n\n  println(2)\n\n}\n\n\n\nfn b() {\n}\n"
    ));
}

#[test]
fn comments_stay_where_they_were_at_the_end_of_a_line_and_on_their_own() {
    insta::assert_snapshot!(golden(
        "// A header.\nfn main() {\n      // Own line, re-indented.\n  let x = 1    // after code\n  /* block */ println(x)\n}\n"
    ));
}

#[test]
fn string_literals_and_their_interpolations_are_untouched() {
    insta::assert_snapshot!(golden(
        "fn main() {\n  let n=2\n  println(\"a  {n+1}  {\"x\".length()}\\t\\{ \\}  \"  )\n}\n"
    ));
}

#[test]
fn a_long_call_breaks_one_argument_a_line_with_the_closing_bracket_back_out() {
    insta::assert_snapshot!(golden(
        "fn main() {\n  let total = add_everything_together(first_argument_value, second_argument_value, third_argument_value)\n}\n"
    ));
}

#[test]
fn a_long_expression_breaks_after_its_loosest_operators_filling_each_line() {
    insta::assert_snapshot!(golden(
        "fn main() {\n  let ok = alpha_value * 2 + beta_value * 3 > limit_value && gamma_value_here < delta_value_here || epsilon_value_is_set\n}\n"
    ));
}

#[test]
fn a_long_list_of_plain_elements_fills_its_lines() {
    insta::assert_snapshot!(golden(
        "fn main() {\n  let xs = [100000, 200000, 300000, 400000, 500000, 600000, 700000, 800000, 900000, 1000000, 1100000, 1200000]\n}\n"
    ));
}

#[test]
fn lines_continued_by_hand_are_joined_back_when_they_fit() {
    insta::assert_snapshot!(golden(
        "fn main() {\n  let sum = total(\n    1,\n    2\n  )\n  let words = \"a b\"\n    .to_upper()\n    .split(\" \")\n  let ok = sum > 5\n    && words.length() == 2\n}\n"
    ));
}

#[test]
fn a_list_with_a_trailing_comma_keeps_one_element_a_line() {
    insta::assert_snapshot!(golden(
        "fn main() {\n  let xs = [\n  1,\n      2,\n  ]\n  println(xs)\n}\n"
    ));
}

#[test]
fn a_statement_with_a_comment_inside_keeps_its_lines_and_indents_the_continuation() {
    insta::assert_snapshot!(golden(
        "fn main() {\n  let x = 1 + // one\n  2\n  println(x)\n}\n"
    ));
}

#[test]
fn keywords_and_calls_differ_in_the_space_before_a_parenthesis() {
    insta::assert_snapshot!(golden(
        "fn main()->Int{\n  if(true){return(1)}\n  let p=Point{x:1,y:2}\n  match p.x{1=>0,_=>-1}\n}\n"
    ));
}

#[test]
fn a_function_type_or_expression_has_no_space_before_its_parenthesis() {
    insta::assert_snapshot!(golden(
        "fn twice(f: fn (Int) -> Int, x: Int) -> Int {\n  f(f(x))\n}\nfn main() {\n  let g: fn () = fn () { println(1) }\n  println(twice(fn (x: Int) { x + 1 }, 1))\n  if (true) {\n    g()\n  }\n}\n"
    ));
}

#[test]
fn struct_and_enum_declarations_keep_one_field_a_line() {
    insta::assert_snapshot!(golden(
        "struct Point {\nx: Int,\n    y: Int,\n}\n\nenum Shape {\n  Circle(Int),\n      Square(Int, Int),\n}\n"
    ));
}

#[test]
fn numbers_with_exponents_and_ranges_keep_their_tokens() {
    insta::assert_snapshot!(golden(
        "fn main() {\n  let x = 2.5e-3+1e9\n  for i in 0..10 { println(i) }\n  println(0xff-1)\n}\n"
    ));
}

#[test]
fn a_file_that_asks_to_be_skipped_is_left_as_it_is() {
    let input = "// covefmt: skip (laid out by hand)\nfn main() {\n      println(1)\n}\n";
    assert_eq!(formatted(input), input);
}

#[test]
fn an_empty_file_stays_empty() {
    assert_eq!(formatted(""), "");
    assert_eq!(formatted("\n\n  \n"), "");
}
