//! `cove diff`: what changed between two JSON profiles of one program, and
//! whether the run got faster.
//!
//! The comparison is the profiler's ([`cove_profile::diff`]); this reads
//! the two files, says which one is unreadable when one is, refuses two
//! profiles of different programs unless `--force` is given, times the two
//! programs side by side where it can (see [`crate::rerun`]), and prints
//! the table. Exit status 0 when both were compared, 74 when a file cannot be
//! read, 65 (`EX_DATAERR`) when one is not a profile, and 2 (a usage error)
//! for a refusal: the files are fine, the question is not.

use std::path::Path;

use cove_profile::diff::Diff;
use cove_profile::report::Profile;

use crate::cli::DiffArgs;
use crate::pipe;
use crate::rerun::{self, SideBySideOutcome};
use crate::status::Status;
use crate::style::Style;

/// Runs `cove diff`.
pub fn diff(args: &DiffArgs) -> Status {
    let before = match read(&args.before) {
        Ok(profile) => profile,
        Err(status) => return status,
    };
    let after = match read(&args.after) {
        Ok(profile) => profile,
        Err(status) => return status,
    };
    let diff = if args.force {
        Diff::new(&before, &after)
    } else {
        match Diff::checked(&before, &after) {
            Ok(diff) => diff,
            Err(why) => {
                let error = Style::stderr().error("error");
                pipe::eprint(format_args!(
                    "{error}: {} and {}: {why}\n  = help: `cove diff --force` compares them anyway\n",
                    args.before.display(),
                    args.after.display()
                ));
                return Status::Refused;
            }
        }
    };
    // The verdict from the two programs timed side by side, where they
    // may be (see `rerun`).
    let timed = if args.no_rerun {
        SideBySideOutcome::Quietly
    } else {
        rerun::side_by_side(&before, &after, args.rerun)
    };
    let diff = match timed {
        SideBySideOutcome::Timed(timed) => diff.with_side_by_side(timed),
        SideBySideOutcome::Quietly => diff,
        SideBySideOutcome::Skipped(why) => {
            pipe::eprint(format_args!(
                "{}: the verdict is the profiles' totals', not timed side by side: {why}\n",
                Style::stderr().warn("note")
            ));
            diff
        }
        SideBySideOutcome::Interrupted => return Status::INTERRUPTED,
    };
    let table = diff.table(args.top);
    // A reader that closed the pipe early had what it wanted.
    match pipe::stdout(table.as_bytes()) {
        Ok(()) => Status::OK,
        Err(e) => {
            let error = Style::stderr().error("error");
            pipe::eprint(format_args!("{error}: stdout: {e}\n"));
            Status::IoError
        }
    }
}

/// The profile in `path`, or the status after saying what is wrong with it.
fn read(path: &Path) -> Result<Profile, Status> {
    let error = Style::stderr().error("error");
    let text = std::fs::read_to_string(path).map_err(|e| {
        pipe::eprint(format_args!("{error}: {}: {e}\n", path.display()));
        Status::IoError
    })?;
    Profile::from_json(&text).map_err(|e| {
        pipe::eprint(format_args!(
            "{error}: {}: not a profile from `cove profile --format json`: {e}\n",
            path.display()
        ));
        Status::BadInput
    })
}
