//! The formats for other tools — pprof, speedscope, lcov, HTML, annotated
//! source — and the JSON profile against its JSON Schema, on the fixed
//! program under a stepping clock. Each is read back by a reader other than
//! the code that wrote it (prost, serde_json, jsonschema) and checked
//! against the profile's own exact totals; the real tools read them in
//! `cove_cli/tests/tools.rs`.

mod common;

use std::io::Read as _;

use cove_profile::report::{Annotate, JSON_SCHEMA, Report, pprof};
use prost::Message as _;

/// The current directory as the reports write absolute paths under it.
fn cwd() -> String {
    std::env::current_dir()
        .expect("a current directory")
        .display()
        .to_string()
}

#[test]
fn the_json_profile_is_valid_against_its_json_schema() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let schema: serde_json::Value = serde_json::from_str(JSON_SCHEMA).expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema");
    for report in [
        Report::new(&program, &profiler),
        Report::new(&program, &profiler).with_subject("m.cove", &["a".to_string()]),
    ] {
        let profile: serde_json::Value = serde_json::from_str(&report.json()).expect("JSON");
        let errors: Vec<String> = validator
            .iter_errors(&profile)
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");
    }
}

#[test]
fn the_json_schema_rejects_a_profile_with_a_field_it_does_not_define() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let schema: serde_json::Value = serde_json::from_str(JSON_SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let mut profile: serde_json::Value =
        serde_json::from_str(&Report::new(&program, &profiler).json()).unwrap();
    profile["functions"][0]["surprise"] = serde_json::json!(1);
    assert!(!validator.is_valid(&profile));
    profile["functions"][0]
        .as_object_mut()
        .unwrap()
        .remove("surprise");
    profile["total"]["ran"] = serde_json::json!(-1);
    assert!(
        !validator.is_valid(&profile),
        "a negative count is not a count"
    );
}

#[test]
fn functions_and_lines_carry_their_file_and_line_as_fields() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let profile = Report::new(&program, &profiler).profile();
    let fib = profile
        .functions
        .iter()
        .find(|f| f.name == "m.fib")
        .unwrap();
    assert_eq!(fib.file.as_deref(), Some("m.cove"));
    assert_eq!(fib.line, Some(2), "fib's first instruction is on line 2");
    for line in &profile.lines {
        let (file, number) = line.name.rsplit_once(':').unwrap();
        assert_eq!(line.file.as_deref(), Some(file));
        assert_eq!(line.line.map(|n| n.to_string()).as_deref(), Some(number));
    }
}

/// The pprof file, gunzipped and decoded.
fn decoded(report: &Report<'_>) -> pprof::Profile {
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(report.pprof().as_slice())
        .read_to_end(&mut bytes)
        .expect("the pprof file is gzipped");
    pprof::Profile::decode(bytes.as_slice()).expect("it is a profile.proto")
}

#[test]
fn the_pprof_samples_add_up_to_the_exact_totals_of_every_sample_type() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let report = Report::new(&program, &profiler);
    let profile = decoded(&report);
    let name = |i: i64| profile.string_table[i as usize].as_str();
    let types: Vec<&str> = profile.sample_type.iter().map(|t| name(t.r#type)).collect();
    assert_eq!(
        types,
        ["instructions", "nanoseconds", "words", "allocations"]
    );
    assert_eq!(name(profile.default_sample_type), "instructions");
    let mut sums = [0i64; 4];
    for sample in &profile.sample {
        for (sum, value) in sums.iter_mut().zip(&sample.value) {
            *sum += value;
        }
    }
    let total = report.total();
    assert_eq!(
        sums,
        [total.ran, total.nanos, total.words, total.allocations].map(|n| n as i64)
    );
}

#[test]
fn the_pprof_lines_hold_exactly_the_profiles_cost_of_each_line() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let report = Report::new(&program, &profiler);
    let profile = decoded(&report);
    let name = |i: i64| profile.string_table[i as usize].clone();
    // Each sample's innermost frame is a line of a function: sum them.
    let mut by_line = std::collections::BTreeMap::new();
    for sample in &profile.sample {
        let leaf = profile
            .location
            .iter()
            .find(|l| l.id == sample.location_id[0])
            .expect("the leaf location exists");
        let line = &leaf.line[0];
        let function = profile
            .function
            .iter()
            .find(|f| f.id == line.function_id)
            .expect("the function exists");
        *by_line
            .entry(format!("{}:{}", "m.cove", line.line))
            .or_insert(0i64) += sample.value[0];
        assert_eq!(name(function.filename), format!("{}/m.cove", cwd()));
    }
    let expected: std::collections::BTreeMap<String, i64> = report
        .profile()
        .lines
        .iter()
        .map(|l| (l.name.clone(), l.cost.ran as i64))
        .collect();
    assert_eq!(by_line, expected);
}

#[test]
fn the_speedscope_file_has_one_profile_per_metric_whose_weights_are_the_totals() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let report = Report::new(&program, &profiler);
    let file: serde_json::Value = serde_json::from_str(&report.speedscope()).unwrap();
    assert_eq!(
        file["$schema"],
        "https://www.speedscope.app/file-format-schema.json"
    );
    let frames = file["shared"]["frames"].as_array().unwrap();
    assert_eq!(frames[0]["name"], "m.fib");
    let profiles = file["profiles"].as_array().unwrap();
    let names: Vec<&str> = profiles
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "task 0: instructions",
            "task 0: ns",
            "task 0: words",
            "task 0: allocations"
        ]
    );
    let total = report.total();
    for (profile, expected) in
        profiles
            .iter()
            .zip([total.ran, total.nanos, total.words, total.allocations])
    {
        let sum: u64 = profile["weights"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_u64().unwrap())
            .sum();
        assert_eq!(sum, expected, "{}", profile["name"]);
        assert_eq!(profile["endValue"].as_u64(), Some(expected));
    }
}

#[test]
fn lcov_counts_every_line_that_holds_code_and_every_function() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let lcov = Report::new(&program, &profiler)
        .lcov()
        .replace(&cwd(), "[cwd]");
    insta::assert_snapshot!(lcov);
}

#[test]
fn annotated_source_prints_every_line_with_its_cost_and_each_functions_totals() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let text = Report::new(&program, &profiler).annotate(&Annotate::default());
    insta::assert_snapshot!(text);
}

#[test]
fn a_threshold_folds_the_cold_lines_but_keeps_the_function_headers() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let report = Report::new(&program, &profiler);
    let all = report.annotate(&Annotate::default());
    let folded = report.annotate(&Annotate {
        threshold: 20.0,
        color: false,
    });
    assert!(folded.lines().count() < all.lines().count());
    assert!(folded.contains("lines below 20%"), "{folded}");
    assert_eq!(folded.matches("-- fn ").count(), 2, "{folded}");
    assert!(!folded.contains('\x1b'), "no colour when not asked");
    let coloured = report.annotate(&Annotate {
        threshold: 0.0,
        color: true,
    });
    assert!(coloured.contains("\x1b[1;31m"), "a hot line is coloured");
}

#[test]
fn the_html_page_is_self_contained_and_holds_tables_flame_graph_and_source() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let html = Report::new(&program, &profiler)
        .with_subject("m.cove", &["x<y".to_string()])
        .html();
    assert!(html.starts_with("<!DOCTYPE html>"));
    for needle in [
        "<title>cove profile: m.cove x&lt;y</title>",
        "id=\"function-table\"",
        "<td class=\"name\">m.fib</td>",
        "<svg",
        "fib(n - 1) + fib(n - 2)",
        "<script>",
    ] {
        assert!(html.contains(needle), "{needle} is missing");
    }
    for external in [
        "src=\"http",
        "href=\"http",
        "<link",
        "url(http",
        "@import",
        "<iframe",
    ] {
        assert!(
            !html.contains(external),
            "{external} reaches outside the file"
        );
    }
    assert!(!html.contains("x<y"), "arguments are escaped");
}

#[test]
fn the_flame_graph_title_names_the_program() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let svg = Report::new(&program, &profiler)
        .with_subject("m.cove", &["7".to_string()])
        .svg(cove_profile::report::Metric::Ran)
        .unwrap();
    assert!(svg.contains("m.cove 7 (instructions)"), "{svg}");
}
