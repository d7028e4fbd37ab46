//! Every JSON profile `cove profile` writes is valid against the JSON
//! Schema in the repository, `cove_profile/schema/profile.schema.json`:
//! profiles of one module and of several, of spawned tasks followed, of a
//! run that failed, and of a program read from stdin.

mod support;

use std::io::Write as _;
use std::process::Stdio;

use support::{cove, run, stderr, stdout};

/// The repository's schema, compiled.
fn validator() -> jsonschema::Validator {
    let schema: serde_json::Value =
        serde_json::from_str(cove_profile::report::JSON_SCHEMA).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

/// The schema's complaints about `json`, one a line.
fn complaints(validator: &jsonschema::Validator, json: &str) -> Vec<String> {
    let value: serde_json::Value = serde_json::from_str(json).expect("the profile is JSON");
    validator
        .iter_errors(&value)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect()
}

#[test]
fn every_profile_the_cli_writes_is_valid_against_the_json_schema() {
    let validator = validator();
    let runs: [&[&str]; 5] = [
        &["profile", "--format", "json", "examples/fib.cove", "12"],
        &[
            "profile",
            "--format",
            "json",
            "examples/covefmt/main.cove",
            "--check",
            "examples/covefmt/sample.cove",
        ],
        &[
            "profile",
            "--format",
            "json",
            "--follow-tasks",
            "examples/channels.cove",
        ],
        &["profile", "--format", "json", "examples/fails.cove"],
        // Blocked time and waits, on a consumer that waits on recv.
        &[
            "profile",
            "--format",
            "json",
            "cove_cli/tests/fixtures/waiting/consumer.cove",
        ],
    ];
    for words in runs {
        let out = run(words);
        let json = stdout(&out);
        let errors = complaints(&validator, &json);
        assert!(
            errors.is_empty(),
            "{words:?}: {errors:#?}\n{}",
            stderr(&out)
        );
        let profile: serde_json::Value = serde_json::from_str(&json).unwrap();
        let entry = profile["program"]["entry"].as_str().unwrap_or_default();
        assert!(words.contains(&entry), "{words:?} names the entry {entry}");
    }
}

#[test]
fn a_profile_of_each_clock_is_valid_against_the_json_schema() {
    // The other tests run under the stepping clock; these are the real
    // ones, the sampled default (with its replay) and none.
    let validator = validator();
    for flags in [
        &[][..],
        &["--clock", "none"][..],
        &["--clock", "counter"][..],
    ] {
        let out = cove(&["profile", "--format", "json"])
            .args(flags)
            .args(["examples/fib.cove", "12"])
            .env_remove("COVE_FAKE_CLOCK")
            .output()
            .unwrap();
        let errors = complaints(&validator, &stdout(&out));
        assert!(
            errors.is_empty(),
            "{flags:?}: {errors:#?}\n{}",
            stderr(&out)
        );
    }
}

#[test]
fn a_profile_of_a_program_read_from_stdin_is_valid_too() {
    let mut child = cove(&["profile", "--format", "json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"export fn main() -> Int {\n  var t = 0\n  for i in 0..10 {\n    t += i\n  }\n  t - 45\n}\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let json = stdout(&out);
    assert!(complaints(&validator(), &json).is_empty(), "{json}");
    let profile: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(profile["program"]["entry"], "-");
    assert_eq!(profile["functions"][0]["file"], "<stdin>");
}
