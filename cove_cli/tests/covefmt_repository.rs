//! covefmt over the repository's own `.cove` files: every one is formatted
//! (the check CI runs, as `gofmt -l` or `cargo fmt --check` would be run),
//! formatting is idempotent on every one, and messy copies of them (tabs,
//! stripped indentation, uneven spacing, trailing blanks) come out exactly
//! as the tidy originals do.

mod support;
use support::covefmt::{
    NOT_FORMATTED, format, formatted, left_unformatted, messy, repository_formatted,
};

#[test]
fn every_cove_file_in_the_repository_is_formatted() {
    let mut unformatted = Vec::new();
    let files = repository_formatted();
    assert!(
        files.len() > 100,
        "the walk finds the repository's programs"
    );
    for (file, source, result) in files.iter().filter(|(f, _, _)| !left_unformatted(f)) {
        match result {
            Ok(text) if text == source => {}
            Ok(_) => unformatted.push(file.display().to_string()),
            Err(why) => unformatted.push(why.clone()),
        }
    }
    assert!(
        unformatted.is_empty(),
        "run `cargo run -p cove_cli -- fmt .` (leaving out {NOT_FORMATTED:?}); not formatted:\n{}",
        unformatted.join("\n")
    );
}

#[test]
fn formatting_any_cove_file_of_the_repository_twice_changes_nothing_the_second_time() {
    let mut refused = 0;
    for (file, source, result) in repository_formatted() {
        let shown = file.display().to_string();
        match result {
            // A file that is its own formatting is a fixed point already.
            Ok(once) if once == source => {}
            Ok(once) => assert_eq!(&formatted(once), once, "{shown}: a second pass changes it"),
            // Only the deliberately broken programs may be refused.
            Err(why) => {
                assert!(left_unformatted(file), "{why}");
                refused += 1;
            }
        }
    }
    assert!(refused < 10, "{refused} files refused");
}

#[test]
fn messy_copies_of_the_repositorys_programs_format_to_the_tidy_originals() {
    let mut checked = 0;
    // Every third program: a pass over all of them is slow in a debug build,
    // and the rules a messy copy exercises are the same in each.
    let files = repository_formatted()
        .iter()
        .filter(|(f, _, _)| !left_unformatted(f))
        .step_by(3);
    for (file, source, _) in files {
        // A block comment over several lines keeps its inner indentation
        // as written, so stripping it changes the comment: leave those out.
        if source.contains("/*") {
            continue;
        }
        let messed = messy(source);
        assert_ne!(&messed, source);
        let shown = file.display().to_string();
        let tidy = format(&shown, &messed).unwrap_or_else(|why| panic!("{why}"));
        assert!(
            &tidy == source,
            "{shown}: the messy copy formats differently:\n{}",
            similar::TextDiff::from_lines(source.as_str(), &tidy).unified_diff()
        );
        assert!(
            !tidy
                .lines()
                .any(|l| l.starts_with('\t') || l.ends_with(' '))
        );
        checked += 1;
    }
    assert!(checked > 50, "only {checked} programs checked");
}
