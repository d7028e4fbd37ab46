//! Bytes read as two JSON profiles, through the reader `cove diff` uses:
//! a value or an error, never a panic.
#![no_main]

use cove_profile::diff::Diff;
use cove_profile::report::Profile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (before, after) = data.split_at(data.len() / 2);
    let (before, after) = (
        String::from_utf8_lossy(before),
        String::from_utf8_lossy(after),
    );
    let _ = Profile::from_json(&text);
    if let Ok(diff) = Diff::from_json(&before, &after) {
        let _ = diff.table(20);
    }
});
