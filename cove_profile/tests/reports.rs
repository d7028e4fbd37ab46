//! Every report and format, snapshot-tested on a fixed program under a
//! stepping clock, so the figures are the same on every machine.

mod common;

use cove_profile::report::{By, Metric, Profile, Report};

#[test]
fn the_fixed_program_runs_as_its_source_says() {
    let (profiler, result) = common::profiled(10);
    assert_eq!(result, 1, "the length of the text of fib(3)");
    // main runs 6 instructions, fib(3) and fib(2) 7 each, the three leaves 2.
    assert_eq!(profiler.counted(), 6 + 7 + 7 + 3 * 2);
}

#[test]
fn the_table_by_instruction_names_each_instruction_with_its_line() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    insta::assert_snapshot!(Report::new(&program, &profiler).table(By::Instruction, 0));
}

#[test]
fn the_table_by_function_has_self_and_inclusive_cost() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    insta::assert_snapshot!(Report::new(&program, &profiler).table(By::Function, 0));
}

#[test]
fn the_table_by_opcode_sums_the_instructions_of_each_opcode() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    insta::assert_snapshot!(Report::new(&program, &profiler).table(By::Opcode, 0));
}

#[test]
fn the_table_by_callee_names_functions_and_builtins() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    insta::assert_snapshot!(Report::new(&program, &profiler).table(By::Callee, 0));
}

#[test]
fn the_table_by_line_shows_the_source_text() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    insta::assert_snapshot!(Report::new(&program, &profiler).table(By::Line, 0));
}

#[test]
fn the_table_of_calls_has_each_caller_and_callee_with_inclusive_cost() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    insta::assert_snapshot!(Report::new(&program, &profiler).table(By::Call, 0));
}

#[test]
fn a_table_sorted_by_time_puts_the_dear_builtin_first_and_stops_at_the_top_n() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let table = Report::new(&program, &profiler).table_sorted(By::Instruction, Metric::Nanos, 3);
    insta::assert_snapshot!(table);
    let first = table.lines().nth(6).expect("a first row");
    assert!(first.contains("println"), "{first}");
}

#[test]
fn the_json_profile_is_versioned_and_reads_back_to_itself() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let json = Report::new(&program, &profiler).json();
    insta::assert_snapshot!(json);
    let read = Profile::from_json(&json).expect("it reads back");
    assert_eq!(read.to_json(), json);
}

#[test]
fn the_callgrind_output_has_events_positions_and_call_edges() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    // Files are named by absolute path; the snapshot holds them relative.
    let cwd = std::env::current_dir().unwrap().display().to_string();
    insta::assert_snapshot!(
        Report::new(&program, &profiler)
            .callgrind()
            .replace(&cwd, "[cwd]")
    );
}

#[test]
fn folded_stacks_of_each_metric_sum_to_the_runs_total() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let report = Report::new(&program, &profiler);
    for metric in Metric::ALL {
        let folded = report.folded(metric);
        let sum: u64 = folded
            .lines()
            .map(|line| {
                line.rsplit_once(' ')
                    .expect("a count")
                    .1
                    .parse::<u64>()
                    .expect("a number")
            })
            .sum();
        assert_eq!(sum, metric.of(&report.total()), "{metric:?}");
        insta::assert_snapshot!(format!("folded_{}", metric.name()), folded);
    }
}

#[test]
fn the_flame_graph_is_an_svg_with_every_function_in_it() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let svg = Report::new(&program, &profiler)
        .svg(Metric::Ran)
        .expect("it draws");
    assert!(svg.starts_with("<?xml"), "{}", &svg[..40]);
    assert!(svg.contains("m.fib") && svg.contains("m.main"));
    insta::assert_snapshot!(svg);
}

#[test]
fn a_flame_graph_of_a_metric_the_run_never_spent_is_an_error_not_a_panic() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let report = Report::new(&program, &profiler);
    let folded = report.folded(Metric::Words);
    assert!(!folded.is_empty());
    let empty = cove_profile::Profiler::new();
    let nothing = Report::new(&program, &empty);
    assert!(nothing.svg(Metric::Ran).is_err());
}

#[test]
fn a_profile_read_against_the_wrong_program_names_unknowns_instead_of_panicking() {
    let (profiler, _) = common::profiled(10);
    let other = cove_ir::program::Program::new();
    let report = Report::new(&other, &profiler);
    let text = report.text(5);
    assert!(text.contains("<unknown function>"), "{text}");
    let _ = report.callgrind();
    let _ = report.json();
}

#[test]
fn the_full_text_report_has_every_grouping() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    insta::assert_snapshot!(Report::new(&program, &profiler).text(4));
}

#[test]
fn the_table_by_task_says_where_each_task_started() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    insta::assert_snapshot!(Report::new(&program, &profiler).table(By::Task, 0));
}
