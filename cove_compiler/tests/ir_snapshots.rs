//! The IR the compiler emits for programs that cover every construct of
//! the language, one snapshot a program (`tests/programs/*.cove`).

mod common;

use std::path::Path;

fn compile(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(format!("{name}.cove"));
    let source = std::fs::read_to_string(&path).unwrap();
    match cove_compiler::compile_module(name, &source) {
        Ok(program) => common::dump(&program),
        Err(d) => panic!("{name} did not compile:\n{d}"),
    }
}

macro_rules! snapshot {
    ($($test:ident: $file:literal,)*) => {$(
        #[test]
        fn $test() {
            insta::assert_snapshot!($file, compile($file));
        }
    )*};
}

snapshot! {
    a_loop_over_interpolated_texts_lowers_to_a_fused_loop: "text_lengths_in_a_loop",
    int_arithmetic_loops_and_calls_lower_to_typed_opcodes: "arithmetic_and_loops",
    for_loops_over_ranges_and_lists_use_fused_compares: "for_loops",
    structs_and_enums_lower_to_fields_tags_and_payloads: "structs_and_enums",
    options_and_literal_matches_lower_to_tests_and_jumps: "options_and_matches",
    string_and_container_methods_resolve_to_catalogue_builtins: "strings_and_builtins",
    spawn_join_and_channels_lower_to_tasks: "tasks_and_channels",
    if_expressions_blocks_and_literals_evaluate_into_their_destination: "expressions",
    a_formatter_written_in_cove_compiles: "formatter",
    benchmark_style_loops_compile_to_tight_code: "bench_like",
    recursive_enums_and_structs_compile: "recursive_types",
    a_push_onto_a_var_list_is_an_instruction_unless_its_argument_may_assign: "var_list_pushes",
    a_typed_tuple_is_built_in_place_and_a_match_on_a_map_read_makes_no_option: "tuples_and_map_reads",
    a_division_by_a_power_of_two_beyond_32_bits_is_a_shift_and_a_remainder_a_mask: "random_numbers",
    a_map_walk_whose_body_changes_no_map_does_not_ask_for_each_key: "map_walks",
    a_tuple_result_is_returned_as_its_fields_to_a_let_that_takes_it_apart: "tuple_returns",
}
