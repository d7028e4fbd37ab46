//! The case a non-exhaustive `match` names (E0500) is one the arms really
//! miss, refined as deep as the arms look: each test compiles a `match`,
//! checks the cases named, then adds an arm for exactly those cases and
//! checks the `match` is then accepted — so the names are neither too
//! broad (`Some(_)` where `Some(Some(true))` is covered) nor too narrow.

/// The declarations every case may use.
const DECLS: &str =
    "enum E {\n  P(E, Bool)\n  Q\n}\n\nenum T {\n  A(Int, Option[Bool])\n  B(String)\n  C\n}\n\n";

/// A function matching a value of type `ty` with `arms`.
fn program(ty: &str, arms: &[&str]) -> String {
    let mut s = format!("{DECLS}fn f(v: {ty}) -> Int {{\n  match v {{\n");
    for arm in arms {
        s.push_str(&format!("    {arm} => 0\n"));
    }
    s.push_str("  }\n}\n\nfn main() {}\n");
    s
}

/// The cases the E0500 of `ty` matched by `arms` names, as written there.
fn named_missing(ty: &str, arms: &[&str]) -> Vec<String> {
    let errors = match cove_compiler::compile_module("m", &program(ty, arms)) {
        Ok(_) => panic!("the match on {ty} with {arms:?} was accepted"),
        Err(errors) => errors,
    };
    let all: Vec<_> = errors.iter().collect();
    assert_eq!(all.len(), 1, "{errors}");
    assert_eq!(all[0].code(), "E0500", "{errors}");
    let message = all[0].message();
    let list = message
        .split_once(": ")
        .and_then(|(_, rest)| rest.strip_suffix(" not covered"))
        .unwrap_or_else(|| panic!("unexpected message: {message}"));
    list.split(", `")
        .map(|m| m.trim_matches('`').to_string())
        .collect()
}

/// Asserts the cases named, then that arms for them complete the match.
fn names_exactly(ty: &str, arms: &[&str], expected: &[&str]) {
    assert_eq!(named_missing(ty, arms), expected, "{ty} with {arms:?}");
    let mut completed: Vec<&str> = arms.to_vec();
    completed.extend_from_slice(expected);
    if let Err(errors) = cove_compiler::compile_module("m", &program(ty, &completed)) {
        panic!("adding arms for {expected:?} left the match incomplete:\n{errors}");
    }
}

#[test]
fn a_missing_case_inside_two_options_is_named_to_the_bool() {
    names_exactly(
        "Option[Option[Bool]]",
        &["Some(Some(true))", "Some(None)", "None"],
        &["Some(Some(false))"],
    );
}

#[test]
fn a_missing_none_inside_a_some_is_named_as_such() {
    names_exactly(
        "Option[Option[Bool]]",
        &["Some(Some(true))", "Some(Some(false))", "None"],
        &["Some(None)"],
    );
}

#[test]
fn a_missing_case_of_a_recursive_enum_is_named_at_the_depth_the_arms_reach() {
    names_exactly(
        "E",
        &[
            "E.P(_, true)",
            "E.P(E.Q, false)",
            "E.P(E.P(_, true), false)",
            "E.Q",
        ],
        &["E.P(E.P(_, false), false)"],
    );
}

#[test]
fn a_wildcard_in_a_named_case_means_every_value_there_is_missing() {
    names_exactly("Option[E]", &["Some(E.Q)", "None"], &["Some(E.P(_, _))"]);
    names_exactly("Option[Bool]", &["None"], &["Some(_)"]);
}

#[test]
fn every_top_level_constructor_with_a_missing_case_is_named() {
    names_exactly(
        "T",
        &["T.A(_, None)", "T.A(_, Some(true))", "T.B(\"x\")"],
        &["T.A(_, Some(false))", "T.B(_)", "T.C"],
    );
    // One case per constructor: `T.A(1, Some(true))` is missing too, and
    // is named once an arm covers this one, with `_` for the `Int`s other
    // than the `0` the arms name.
    assert_eq!(
        named_missing(
            "T",
            &["T.A(0, Some(true))", "T.A(_, None)", "T.C", "T.B(_)"]
        ),
        ["T.A(0, Some(false))"]
    );
    assert_eq!(
        named_missing(
            "T",
            &[
                "T.A(0, Some(true))",
                "T.A(_, None)",
                "T.C",
                "T.B(_)",
                "T.A(0, Some(false))"
            ]
        ),
        ["T.A(_, Some(_))"]
    );
}

#[test]
fn a_missing_bool_beside_an_enum_is_named_with_the_enum_refined() {
    names_exactly(
        "Option[T]",
        &[
            "Some(T.A(_, Some(true)))",
            "Some(T.A(_, None))",
            "Some(T.B(_))",
            "Some(T.C)",
            "None",
        ],
        &["Some(T.A(_, Some(false)))"],
    );
}

#[test]
fn an_int_or_string_position_names_the_values_the_arms_do_not_name_as_a_wildcard() {
    names_exactly("Option[Int]", &["Some(0)", "Some(1)", "None"], &["Some(_)"]);
    names_exactly("Int", &["0", "1"], &["_"]);
    names_exactly("T", &["T.A(_, _)", "T.B(\"x\")", "T.C"], &["T.B(_)"]);
}

#[test]
fn many_literals_in_many_fields_are_searched_within_a_budget() {
    // Twelve literals in each of six `Int` fields: trying every literal as
    // a constructor would take millions of steps; the search settles for
    // `_` once its budget is spent, and the case it names is still missing.
    let mut source = String::from("enum W {\n  A(Int, Int, Int, Int, Int, Int)\n  B\n}\n\n");
    source.push_str("fn f(w: W) -> Int {\n  match w {\n");
    for field in 0..6 {
        for value in 0..12 {
            let mut args = vec!["_".to_string(); 6];
            args[field] = value.to_string();
            source.push_str(&format!("    W.A({}) => 0\n", args.join(", ")));
        }
    }
    source.push_str("    W.B => 0\n  }\n}\n\nfn main() {}\n");
    let started = std::time::Instant::now();
    let errors = match cove_compiler::compile_module("m", &source) {
        Ok(_) => panic!("accepted a non-exhaustive match"),
        Err(errors) => errors,
    };
    assert!(
        started.elapsed().as_secs() < 10,
        "took {:?}",
        started.elapsed()
    );
    let message = errors.iter().next().map(|d| d.message().to_string());
    assert_eq!(
        message.as_deref(),
        Some("this `match` does not cover every W: `W.A(_, _, _, _, _, _)` not covered")
    );
}
