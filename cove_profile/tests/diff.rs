//! The diff of two profiles, on the seed's own story: a change that cut a
//! run from 751.1 M instructions to 722.1 M and made it slower, because the
//! one builtin call that replaced a byte loop allocates.

use cove_profile::Cost;
use cove_profile::Floor;
use cove_profile::diff::Diff;
use cove_profile::report::{FunctionEntry, Group, Profile, ProfileError, SCHEMA_VERSION};

fn cost(ran: u64, nanos: u64, allocations: u64) -> Cost {
    Cost {
        ran,
        nanos,
        words: allocations * 4,
        allocations,
    }
}

fn group(name: &str, cost: Cost) -> Group {
    Group {
        name: name.to_string(),
        detail: String::new(),
        file: None,
        line: None,
        cost,
    }
}

fn profile(
    functions: &[(&str, Cost)],
    callees: &[(&str, Cost)],
    opcodes: &[(&str, Cost)],
    lines: &[(&str, Cost)],
) -> Profile {
    let mut total = Cost::default();
    for (_, c) in functions {
        total.add(c);
    }
    Profile {
        format: "cove-profile".to_string(),
        version: SCHEMA_VERSION,
        program: None,
        clock: "real".to_string(),
        floor: Floor {
            nanos: 18.0,
            samples: 256,
        },
        follows_tasks: false,
        total,
        tasks: Vec::new(),
        functions: functions
            .iter()
            .map(|(name, c)| FunctionEntry {
                name: name.to_string(),
                file: None,
                line: None,
                calls: 1,
                own: *c,
                inclusive: *c,
            })
            .collect(),
        calls: Vec::new(),
        instructions: Vec::new(),
        opcodes: opcodes.iter().map(|(n, c)| group(n, *c)).collect(),
        callees: callees.iter().map(|(n, c)| group(n, *c)).collect(),
        lines: lines.iter().map(|(n, c)| group(n, *c)).collect(),
        stacks: Vec::new(),
    }
}

/// Before: `scan` walks the bytes of every line itself.
fn before() -> Profile {
    profile(
        &[
            ("covefmt.scan", cost(750_000_000, 15_000_000_000, 0)),
            ("covefmt.main", cost(1_100_000, 40_000_000, 100_000)),
        ],
        &[("String.byte_at", cost(150_000_000, 3_000_000_000, 0))],
        &[
            ("add.int", cost(300_000_000, 6_000_000_000, 0)),
            ("jump-lt.int", cost(300_000_000, 6_000_000_000, 0)),
            ("call-builtin", cost(151_100_000, 3_040_000_000, 100_000)),
        ],
        &[
            ("covefmt.cove:40", cost(750_000_000, 15_000_000_000, 0)),
            ("covefmt.cove:12", cost(1_100_000, 40_000_000, 100_000)),
        ],
    )
}

/// After: one `String.contains` a line instead, which allocates.
fn after() -> Profile {
    profile(
        &[
            ("covefmt.scan", cost(721_000_000, 16_400_000_000, 1_000_000)),
            ("covefmt.main", cost(1_100_000, 40_000_000, 100_000)),
        ],
        &[
            ("String.byte_at", cost(144_000_000, 2_880_000_000, 0)),
            ("String.contains", cost(1_000_000, 1_900_000_000, 1_000_000)),
        ],
        &[
            ("add.int", cost(288_000_000, 5_760_000_000, 0)),
            ("jump-lt.int", cost(288_000_000, 5_760_000_000, 0)),
            ("call-builtin", cost(146_100_000, 4_920_000_000, 1_100_000)),
        ],
        &[
            (
                "covefmt.cove:40",
                cost(721_000_000, 16_400_000_000, 1_000_000),
            ),
            ("covefmt.cove:12", cost(1_100_000, 40_000_000, 100_000)),
        ],
    )
}

#[test]
fn fewer_instructions_but_more_time_is_the_verdict_and_the_rows_that_did_it_are_flagged() {
    let diff = Diff::new(&before(), &after());
    let table = diff.table(0);
    assert!(table.contains("751,100,000 -> 722,100,000"), "{table}");
    assert!(
        table.contains("verdict: FEWER instructions but MORE time"),
        "{table}"
    );
    let scan = &diff.rows("function")[0];
    assert_eq!(
        scan.name, "covefmt.scan",
        "the largest rise in time comes first"
    );
    assert!(scan.fewer_but_slower());
    let callee = &diff.rows("callee")[0];
    assert_eq!(
        callee.name, "String.contains",
        "the new builtin is the largest rise"
    );
    assert_eq!(callee.before, Cost::default());
    insta::assert_snapshot!(table);
}

#[test]
fn two_json_profiles_diff_as_their_values_do() {
    let diff = Diff::from_json(&before().to_json(), &after().to_json()).expect("both read");
    assert_eq!(diff.table(0), Diff::new(&before(), &after()).table(0));
}

#[test]
fn a_text_that_is_not_a_profile_is_an_error_with_a_place() {
    match Profile::from_json("{\n  \"format\": 3\n}") {
        Err(ProfileError::Malformed { line, .. }) => assert_eq!(line, 2),
        other => panic!("{other:?}"),
    }
    let mut future = before();
    future.version = SCHEMA_VERSION + 1;
    let error = Profile::from_json(&future.to_json()).expect_err("a later schema is refused");
    assert!(matches!(error, ProfileError::Unsupported { .. }));
    assert!(error.to_string().contains("version"), "{error}");
}

#[test]
fn a_row_only_one_side_has_diffs_against_nothing() {
    let diff = Diff::new(&before(), &after());
    let table = diff.table(0);
    assert!(table.contains("new"), "{table}");
}

#[test]
fn lines_of_two_checkouts_in_two_directories_are_matched_by_file_name() {
    let one = profile(&[], &[], &[], &[("old/covefmt.cove:40", cost(10, 100, 0))]);
    let two = profile(&[], &[], &[], &[("new/covefmt.cove:40", cost(5, 200, 1))]);
    let diff = Diff::new(&one, &two);
    let lines = diff.rows("line");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0].name, "covefmt.cove:40");
    assert!(lines[0].fewer_but_slower());
}
