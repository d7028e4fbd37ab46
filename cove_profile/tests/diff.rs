//! The diff of two profiles: the seed's own story (a change that cut a run
//! from 751.1 M instructions to 722.1 M and made it slower, because the one
//! builtin call that replaced a byte loop allocates), the verdict on
//! constructed profiles, the pairing of entry modules and the refusal of
//! two different programs.

use cove_profile::Cost;
use cove_profile::Floor;
use cove_profile::diff::{DEFAULT_UNCERTAINTY, Diff, DifferentPrograms, Verdict};
use cove_profile::report::{
    FunctionEntry, Group, Profile, ProfileError, SCHEMA_VERSION, Subject, TaskEntry,
};
use cove_profile::{Estimate, StopCosts};

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
        cost: cost.into(),
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
        uncertainty: None,
        estimate: None,
        follows_tasks: false,
        total: total.into(),
        tasks: Vec::new(),
        functions: functions
            .iter()
            .map(|(name, c)| FunctionEntry {
                name: name.to_string(),
                file: None,
                line: None,
                calls: 1,
                own: (*c).into(),
                inclusive: (*c).into(),
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
fn fewer_instructions_and_more_estimated_time_is_slower_and_the_rows_that_did_it_are_flagged() {
    let diff = Diff::new(&before(), &after());
    let table = diff.table(0);
    assert!(table.contains("751,100,000 -> 722,100,000"), "{table}");
    assert!(
        table.starts_with("verdict: slower — time ×2.26 (±0.35), instructions ×0.961\n"),
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

/// A profile of one function, `m.main`, that ran `ran` instructions in
/// `estimated` nanoseconds of its own plus a floor of `floor` an
/// instruction, stating `uncertainty`.
fn timed(ran: u64, estimated: u64, floor: f64, uncertainty: Option<f64>) -> Profile {
    let nanos = estimated + (ran as f64 * floor) as u64;
    let mut p = profile(&[("m.main", cost(ran, nanos, 0))], &[], &[], &[]);
    p.floor.nanos = floor;
    p.uncertainty = uncertainty;
    p
}

/// The same profile as it would be without a clock: counts, no time.
fn untimed(ran: u64) -> Profile {
    let mut p = profile(&[("m.main", cost(ran, 0, 0))], &[], &[], &[]);
    p.clock = "none".to_string();
    p.floor.nanos = 0.0;
    p
}

#[test]
fn a_builtin_that_loses_is_slower_though_its_raw_profiled_time_fell_sixfold() {
    // The numbers: a byte loop of 3,642,237 instructions against
    // a `split` of 360,007 that is 1.24 times slower unprofiled. Raw, with
    // a floor of 40 ns an instruction, the second looks six times faster.
    let before = timed(3_642_237, 10_000_000, 40.0, Some(0.08));
    let after = timed(360_007, 12_400_000, 40.0, Some(0.08));
    assert!(after.total.nanos * 5 < before.total.nanos, "raw time fell");
    let diff = Diff::new(&before, &after);
    assert_eq!(diff.verdict(), Verdict::Slower);
    let table = diff.table(0);
    assert_eq!(
        table.lines().next(),
        Some("verdict: slower — time ×1.24 (±0.11), instructions ×0.0988"),
        "{table}"
    );
}

#[test]
fn a_fall_in_estimated_time_beyond_the_uncertainty_is_faster() {
    let diff = Diff::new(
        &timed(1_000, 1_000_000, 30.0, Some(0.08)),
        &timed(2_000, 700_000, 30.0, Some(0.08)),
    );
    assert_eq!(diff.verdict(), Verdict::Faster);
    assert_eq!(
        diff.summary().line(),
        "verdict: faster — time ×0.70 (±0.11), instructions ×2"
    );
}

/// A sampled profile of one run: 10 ms of processor time sampled, 1 ms of
/// it seen inside the profiler's slow stops, 2,000,000 fast stops and
/// 4,000,000 instructions, estimated after a calibration that put a fast
/// stop at `fast` ns and an instruction at 0.1 ns.
fn sampled_after_a_calibration(fast: f64) -> Profile {
    let costs = StopCosts {
        fast,
        instruction: 0.1,
        ..StopCosts::default()
    };
    let mut estimate = Estimate {
        samples: 100,
        sampled_nanos: 10_000_000,
        overhead_nanos: 0,
        stops: (1_000, 2_000_000),
        uncertainty: 0.08,
        spawned_samples: 0,
        heavy_stops: 0,
        moved_stops: 0,
        measured_nanos: 1_000_000,
        call_stops: 0,
        costs,
        measured_heavy_nanos: 0,
        instructions: Some(4_000_000),
        replay: None,
        fitted: None,
    };
    let net = estimate.net_nanos_at(&costs).expect("the pieces are there");
    estimate.overhead_nanos = (10_000_000.0 - net) as u64;
    let mut p = timed(4_000_000, net.round() as u64, 0.0, Some(0.08));
    p.clock = "sampled".to_string();
    p.estimate = Some(estimate);
    p
}

#[test]
fn two_profiles_of_one_run_made_after_different_calibrations_are_no_clear_change() {
    // 1 ns a fast stop puts the run at 6.6 ms, 2 ns at 4.6 ms: read as
    // made, the second profile would be 30% faster. At the mean of the two
    // calibrations both are 5.6 ms.
    let before = sampled_after_a_calibration(1.0);
    let after = sampled_after_a_calibration(2.0);
    assert_eq!(before.total.nanos, 6_600_000);
    assert_eq!(after.total.nanos, 4_600_000);
    let diff = Diff::new(&before, &after);
    let summary = diff.summary();
    assert_eq!(summary.recalibrated, Some((5_600_000.0, 5_600_000.0)));
    assert_eq!(
        summary.line(),
        "verdict: no clear change — time ×1.00 (±0.11), instructions ×1"
    );
    assert!(
        diff.table(0).contains(
            "the verdict's, both at one calibration (the mean of the two profiles' costs): \
             5,600,000 -> 5,600,000"
        ),
        "{}",
        diff.table(0)
    );
}

#[test]
fn two_replayed_profiles_are_compared_by_their_measured_totals_not_at_one_calibration() {
    // Calibrations as far apart as in the test above; but each total was
    // measured by a replay, which no calibration enters.
    let replayed = |fast: f64, nanos: u64| {
        let mut p = sampled_after_a_calibration(fast);
        let e = p.estimate.as_mut().expect("a sampled profile");
        e.replay = Some(cove_profile::Replay::once(nanos));
        e.uncertainty = 0.06;
        p.uncertainty = Some(e.uncertainty);
        p.total.nanos = nanos;
        p
    };
    let summary = Diff::new(&replayed(1.0, 5_000_000), &replayed(2.0, 6_000_000)).summary();
    assert_eq!(summary.recalibrated, None);
    assert_eq!(summary.verdict, Verdict::Slower);
    assert_eq!(
        summary.line(),
        "verdict: slower — time ×1.20 (±0.08), instructions ×1"
    );
}

#[test]
fn the_median_of_pairs_and_its_notch_make_the_side_by_side_ratio() {
    let timed =
        cove_profile::diff::SideBySide::of(&[1.30, 1.10, 1.20, 1.25, 1.15]).expect("five pairs");
    assert_eq!(timed.pairs, 5);
    assert!((timed.ratio - 1.20).abs() < 1e-12);
    // IQR 1.25 - 1.15 = 0.10; 1.58 x 0.10 / sqrt(5) / 1.20.
    let expected = 1.58 * 0.10 / 5f64.sqrt() / 1.20;
    assert!(
        (timed.uncertainty - expected).abs() < 1e-9,
        "{}",
        timed.uncertainty
    );
    assert_eq!(cove_profile::diff::SideBySide::of(&[]), None);
}

#[test]
fn a_side_by_side_timing_overrules_the_totals_in_the_verdict() {
    // The totals say 30% faster; the programs timed side by side say 10%
    // slower.
    let before = timed(1_000, 1_000_000, 0.0, Some(0.05));
    let after = timed(1_000, 700_000, 0.0, Some(0.05));
    let side = cove_profile::diff::SideBySide {
        pairs: 21,
        ratio: 1.10,
        uncertainty: 0.02,
    };
    let diff = Diff::new(&before, &after).with_side_by_side(side);
    assert_eq!(
        diff.summary().line(),
        "verdict: slower — time ×1.10 (±0.02), instructions ×1"
    );
    assert!(
        diff.table(0).contains(
            "side by side  ×1.100 (±2%): the verdict's, the median of 21 pairs of unwatched runs \
             of the two programs, interleaved"
        ),
        "{}",
        diff.table(0)
    );
}

#[test]
fn two_profiles_made_after_one_calibration_are_compared_as_made() {
    let before = sampled_after_a_calibration(1.5);
    let mut after = sampled_after_a_calibration(1.5);
    after.total.nanos = 4_000_000;
    let summary = Diff::new(&before, &after).summary();
    assert_eq!(summary.recalibrated, None);
    assert_eq!(summary.verdict, Verdict::Faster);
}

#[test]
fn a_change_within_the_uncertainty_is_no_clear_change() {
    let before = timed(1_000, 1_000_000, 30.0, Some(0.08));
    for after in [1_050_000, 950_000, 1_110_000] {
        let diff = Diff::new(&before, &timed(1_000, after, 30.0, Some(0.08)));
        assert_eq!(diff.verdict(), Verdict::NoClearChange, "{after}");
    }
    let line = Diff::new(&before, &timed(1_000, 1_050_000, 30.0, Some(0.08)))
        .summary()
        .line();
    assert_eq!(
        line,
        "verdict: no clear change — time ×1.05 (±0.11), instructions ×1"
    );
}

#[test]
fn a_profile_that_states_no_uncertainty_is_read_with_the_default() {
    let before = timed(1_000, 1_000_000, 30.0, None);
    let after = timed(1_000, 1_300_000, 30.0, None);
    let summary = Diff::new(&before, &after).summary();
    let expected = DEFAULT_UNCERTAINTY.hypot(DEFAULT_UNCERTAINTY);
    assert!((summary.uncertainty - expected).abs() < 1e-12);
    assert_eq!(
        summary.verdict,
        Verdict::NoClearChange,
        "±35% covers a 30% rise"
    );
    let stated = Diff::new(
        &timed(1_000, 1_000_000, 30.0, Some(0.05)),
        &timed(1_000, 1_300_000, 30.0, Some(0.05)),
    );
    assert_eq!(stated.verdict(), Verdict::Slower, "±7% does not");
}

#[test]
fn a_profile_without_time_gets_a_verdict_that_says_so_with_the_instruction_ratio() {
    let diff = Diff::new(&untimed(3_642_237), &untimed(360_007));
    assert_eq!(diff.verdict(), Verdict::NoTime);
    let table = diff.table(0);
    assert_eq!(
        table.lines().next(),
        Some("verdict: no time recorded (a profile without a clock) — instructions ×0.0988"),
        "{table}"
    );
    assert!(!table.contains("est. ns "), "{table}");
    let one_side = Diff::new(&timed(1_000, 1_000_000, 30.0, None), &untimed(1_000));
    assert_eq!(one_side.verdict(), Verdict::NoTime);
    insta::assert_snapshot!(table);
}

#[test]
fn a_rise_from_no_estimated_time_is_no_clear_change_not_a_division_by_zero() {
    let diff = Diff::new(
        &timed(1_000, 0, 30.0, None),
        &timed(1_000, 5_000, 30.0, None),
    );
    let summary = diff.summary();
    assert_eq!(summary.verdict, Verdict::NoClearChange);
    assert_eq!(summary.time_ratio, None);
    assert!(
        summary.line().contains("too little time"),
        "{}",
        summary.line()
    );
}

/// A profile of `entry` (a file whose stem is its entry module) run with
/// `args`, with `functions` of that module and one line each.
fn of_program(entry: &str, args: &[&str], hash: &str, functions: &[&str]) -> Profile {
    let stem = entry
        .rsplit('/')
        .next()
        .and_then(|f| f.strip_suffix(".cove"))
        .expect("a .cove path");
    let named: Vec<(String, Cost)> = functions
        .iter()
        .enumerate()
        .map(|(i, f)| (format!("{stem}.{f}"), cost(100 * (i as u64 + 1), 5_000, 0)))
        .collect();
    let refs: Vec<(&str, Cost)> = named.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    let lines: Vec<(String, Cost)> = named
        .iter()
        .enumerate()
        .map(|(i, (_, c))| (format!("/checkout/{stem}.cove:{}", i + 1), *c))
        .collect();
    let line_refs: Vec<(&str, Cost)> = lines.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    let callee = format!("{stem}.{}", functions.last().expect("a function"));
    let mut p = profile(
        &refs,
        &[(callee.as_str(), cost(10, 500, 0))],
        &[],
        &line_refs,
    );
    p.callees[0].detail = "call".to_string();
    p.program = Some(Subject {
        entry: entry.to_string(),
        args: args.iter().map(|a| a.to_string()).collect(),
        ir_hash: hash.to_string(),
        cove_version: "0.1.0".to_string(),
        started: 0,
    });
    p
}

#[test]
fn the_entry_modules_of_two_versions_in_two_files_are_paired() {
    let one = of_program("story/words_v1.cove", &[], "1111", &["main", "count"]);
    let two = of_program("story/words_v2.cove", &[], "2222", &["main", "count"]);
    let diff = Diff::checked(&one, &two).expect("one program, two versions");
    assert_eq!(diff.paired(), Some(("words_v1", "words_v2")));
    let names = |section: &str| -> Vec<String> {
        let mut names: Vec<String> = diff.rows(section).iter().map(|r| r.name.clone()).collect();
        names.sort();
        names
    };
    assert_eq!(names("function"), ["words_v1.count", "words_v1.main"]);
    assert_eq!(names("line"), ["words_v1.cove:1", "words_v1.cove:2"]);
    assert_eq!(names("callee"), ["words_v1.count"]);
    for row in diff.rows("function") {
        assert!(row.before.ran > 0 && row.after.ran > 0, "{row:?}");
    }
    insta::assert_snapshot!(diff.table(0));
}

#[test]
fn without_a_recorded_entry_the_entry_module_is_task_zeros_root() {
    let mut one = profile(&[("a.main", cost(1, 1, 0))], &[], &[], &[]);
    let mut two = profile(&[("b.main", cost(1, 1, 0))], &[], &[], &[]);
    for (p, root) in [(&mut one, "a.main"), (&mut two, "b.main")] {
        p.tasks.push(TaskEntry {
            task: 0,
            roots: vec![root.to_string()],
            total: p.total,
            waits: 0,
        });
    }
    let diff = Diff::new(&one, &two);
    assert_eq!(diff.paired(), Some(("a", "b")));
    assert_eq!(diff.rows("function").len(), 1);
}

#[test]
fn two_profiles_run_with_different_arguments_are_refused() {
    let one = of_program("fmt.cove", &["a.cove"], "1111", &["main", "scan"]);
    let two = of_program("fmt.cove", &["b.cove"], "2222", &["main", "scan"]);
    let refusal = Diff::checked(&one, &two).expect_err("another workload");
    assert!(matches!(refusal, DifferentPrograms::Arguments { .. }));
    assert!(
        refusal.to_string().contains("different arguments"),
        "{refusal}"
    );
}

#[test]
fn two_programs_with_less_than_half_their_functions_in_common_are_refused() {
    let fib = of_program("fib.cove", &[], "1111", &["main", "fib"]);
    let fmt = of_program(
        "covefmt.cove",
        &[],
        "2222",
        &["main", "scan", "lex", "format", "emit"],
    );
    match Diff::checked(&fib, &fmt) {
        Err(DifferentPrograms::Functions { common, either }) => {
            assert_eq!((common, either), (1, 6), "only the paired main is shared");
        }
        other => panic!("{other:?}"),
    }
    // A change to a few functions of many is an edit, not another program.
    let edited = of_program(
        "covefmt.cove",
        &[],
        "3333",
        &["main", "scan", "lex", "format", "write"],
    );
    assert!(Diff::checked(&fmt, &edited).is_ok());
}

#[test]
fn two_profiles_with_one_ir_hash_and_one_argument_list_are_one_program_whatever_else_differs() {
    let one = of_program("x.cove", &["1"], "abcd", &["main"]);
    let two = of_program("y.cove", &["1"], "abcd", &["other", "names", "entirely"]);
    assert!(Diff::checked(&one, &two).is_ok());
    let other_input = of_program("x.cove", &["2"], "abcd", &["main"]);
    assert!(matches!(
        Diff::checked(&one, &other_input),
        Err(DifferentPrograms::Arguments { .. })
    ));
}

#[test]
fn a_sampled_profile_estimated_at_nothing_is_too_short_to_compare_not_untimed() {
    // A sampled run so short that the profiler's own cost took all of it
    // is estimated at nothing; it had a clock, so the verdict says there
    // was too little time, not that none was recorded, and calls it no
    // change rather than infinitely faster.
    let before = sampled_after_a_calibration(1.0);
    let mut after = sampled_after_a_calibration(1.0);
    after.total.nanos = 0;
    let summary = Diff::new(&before, &after).summary();
    assert_eq!(summary.verdict, Verdict::NoClearChange);
    assert_eq!(summary.time_ratio, None);
    assert_eq!(
        summary.line(),
        "verdict: no clear change — too little time in one profile or both to compare, instructions ×1"
    );
}
