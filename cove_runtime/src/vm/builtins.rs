//! The builtin functions and methods: one arm per [`Builtin`] of the
//! catalogue, so a builtin added to `cove_ir` and forgotten here does not
//! compile.
//!
//! A builtin receives its arguments as raw register bits (the receiver
//! first) and returns the bits of its result. It knows the types it works on
//! from its own identity (`List.sort` of `Int` and of `String` are two
//! builtins) or from the header of the object it is given, never by looking
//! at a value. Builtins may allocate freely: a collection waits until the
//! instruction is done (see [`crate::heap`]).
//!
//! Strings are UTF-8 and indexed by byte. Output goes through the writers
//! the embedder installed on the `Vm`.

use std::io::Write as _;

use cove_ir::builtins::Builtin;
use cove_ir::format::FormatSpec;

use crate::error::{ErrorKind, Fault, Faulty};
use crate::heap::{Table, a_of, b_of};
use crate::limits::InterruptHandle;
use crate::vm::exec::{index_out_of_range, unwrap_none};
use crate::vm::machine::Machine;
use crate::vm::tasks::{Blocked, Scheduler, Waited};

/// The text of a string that is known to be UTF-8.
fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or_default()
}

/// Whether `at` falls on a character boundary of the UTF-8 `bytes`: at
/// either end, or on a byte that is not a continuation byte.
fn char_boundary(bytes: &[u8], at: usize) -> bool {
    at == 0 || at == bytes.len() || bytes.get(at).is_some_and(|b| b & 0xc0 != 0x80)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    if needle.len() > haystack.len() {
        return None;
    }
    let first = needle[0];
    (0..=haystack.len() - needle.len())
        .find(|&i| haystack[i] == first && &haystack[i..i + needle.len()] == needle)
}

/// Makes a run that ended well, or by `exit`, end in an I/O error instead
/// when its output could not be flushed at the end: the last of what it
/// wrote never arrived.
pub(crate) fn flushed(
    result: &mut Result<crate::Value, crate::RunError>,
    flush: std::io::Result<()>,
) {
    let Err(e) = flush else { return };
    let ended_well = match result {
        Ok(_) => true,
        Err(error) => matches!(error.kind, ErrorKind::Exit(_)),
    };
    if ended_well {
        let fault = output_failed("output", &e);
        if let Ok(value) =
            std::mem::replace(result, Err(crate::RunError::new(fault.kind, fault.message)))
        {
            value.drop_deep();
        }
    }
}

/// The fault of a write to the program's output (or error output) that
/// failed.
pub(crate) fn output_failed(which: &str, e: &std::io::Error) -> Fault {
    Fault::new(
        ErrorKind::Io,
        format!("cannot write the program's {which}: {e}"),
    )
}

fn bool_bits(b: bool) -> u64 {
    u64::from(b)
}

fn invalid(message: impl Into<String>) -> Fault {
    Fault::new(ErrorKind::InvalidArgument, message)
}

/// A byte range of a string or list, checked against its length.
fn range(start: i64, end: i64, len: usize) -> Faulty<(usize, usize)> {
    if start < 0 || end < start || end as u64 > len as u64 {
        return Err(Fault::new(
            ErrorKind::IndexOutOfRange,
            format!("range {start}..{end} is out of bounds for length {len}"),
        ));
    }
    Ok((start as usize, end as usize))
}

/// How often a long builtin's loop looks at the interrupt flag: every
/// 4096 steps, a few microseconds of work apart.
#[derive(Default)]
struct Poll {
    steps: u32,
    stop: bool,
}

impl Poll {
    /// Whether the run was asked to stop, looked at every 4096 calls.
    #[inline]
    fn stopped(&mut self, interrupt: &InterruptHandle) -> bool {
        self.steps = self.steps.wrapping_add(1);
        if self.steps % 4096 == 0 && interrupt.is_interrupted() {
            self.stop = true;
        }
        self.stop
    }
}

/// A vector of the host's with room for `n` items, or the heap's
/// out-of-memory fault when the host will not give it. A builtin's
/// scratch space the size of its data (the byte ranges of a string's
/// characters, a copy of a list's items) is as much the run's memory as
/// its heap; taken with `Vec::with_capacity` or `collect`, a host that
/// refuses it (under `ulimit -v`) aborted the process and lost the output
/// not yet written. `what` says what it was for.
fn host_vec<T>(n: usize, what: &str) -> Faulty<Vec<T>> {
    let mut items = Vec::new();
    crate::heap::host_room(&mut items, n, format_args!("{what}"))?;
    Ok(items)
}

/// The Int a Float truncates to toward zero, `None` for one with none.
/// 2^63 and -2^63 are exact as floats, and every float in [-2^63, 2^63)
/// truncates into range; -2^63 itself is `Int.MIN`. NaN is in no range.
pub(crate) fn truncated(x: f64) -> Option<i64> {
    (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0)
        .contains(&x)
        .then(|| x.trunc() as i64)
}

/// Pushes `item` onto a vector of the host's scratch space whose length is
/// not known before it is built (the pieces of a string split at a
/// separator), growing it with `try_reserve` so that a host that refuses
/// the room is the heap's out-of-memory fault, as for [`host_vec`]: a
/// string of 120,000,000 separators doubled its ranges to 512 MiB and
/// aborted under `ulimit -v`.
fn host_push<T>(items: &mut Vec<T>, item: T, what: &str) -> Faulty<()> {
    if items.len() == items.capacity() {
        crate::heap::host_room(items, items.len().max(4), format_args!("{what}"))?;
    }
    items.push(item);
    Ok(())
}

/// The length in bytes of `t` in upper case (`upper`) or lower case: each
/// character maps to the same characters wherever it is, but for a capital
/// sigma, which maps to `σ` or to `ς`, both two bytes.
fn case_mapped_len(t: &str, upper: bool) -> usize {
    if t.is_ascii() {
        return t.len();
    }
    t.chars()
        .map(|c| {
            if upper {
                c.to_uppercase().map(char::len_utf8).sum::<usize>()
            } else {
                c.to_lowercase().map(char::len_utf8).sum::<usize>()
            }
        })
        .sum()
}

/// `t` in upper case (`upper`) or lower case, exactly as `str::to_uppercase`
/// and `str::to_lowercase` give it, built in room taken from the host with
/// `try_reserve`: the standard functions grow a `String` of their own, and
/// a host that refused it aborted the process (a 400 MB string under
/// `ulimit -v 1000000`).
///
/// Every character maps alone but a capital sigma, which is `ς` at the end
/// of a word and `σ` elsewhere (Unicode's Final_Sigma, as
/// `str::to_lowercase` applies it): see [`final_sigma`].
///
/// The builtins come here for a string that is not ASCII only: an ASCII
/// one maps byte for byte inside the heap (`Memory::alloc_ascii_case`).
fn case_mapped(t: &str, upper: bool) -> Faulty<Vec<u8>> {
    let mut out = host_vec(case_mapped_len(t, upper), "changing a string's case")?;
    let mut buf = [0; 4];
    for (i, c) in t.char_indices() {
        if upper {
            for u in c.to_uppercase() {
                out.extend_from_slice(u.encode_utf8(&mut buf).as_bytes());
            }
        } else if c == '\u{3a3}' {
            let sigma = if final_sigma(t, i) { 'ς' } else { 'σ' };
            out.extend_from_slice(sigma.encode_utf8(&mut buf).as_bytes());
        } else {
            for l in c.to_lowercase() {
                out.extend_from_slice(l.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    Ok(out)
}

/// `map.value-at` of a key the map does not have: never in compiled code,
/// which asks `map.has-at` first, but a hand-written program may.
#[cold]
pub(crate) fn no_such_key() -> Fault {
    Fault::new(
        ErrorKind::UnwrapNone,
        "`map.value-at` of a key the map does not have",
    )
}

/// The byte ranges of the words of `t`, split at Unicode's White_Space as
/// `str::split_whitespace` splits. An ASCII string is split by its bytes,
/// whose white space is 9 to 13 and 32 (`split_ascii_whitespace` leaves
/// out 11, the vertical tab): half the native instructions of the
/// standard split, which decodes every character to test it.
fn word_ranges(t: &str) -> impl Iterator<Item = (usize, usize)> + Clone + '_ {
    let base = t.as_ptr() as usize;
    let range = move |w: &[u8]| {
        let start = w.as_ptr() as usize - base;
        (start, start + w.len())
    };
    let ascii = t.is_ascii().then(|| {
        t.as_bytes()
            .split(|b| matches!(b, 9..=13 | 32))
            .filter(|w| !w.is_empty())
            .map(range)
    });
    let unicode = ascii
        .is_none()
        .then(|| t.split_whitespace().map(move |w| range(w.as_bytes())));
    ascii
        .into_iter()
        .flatten()
        .chain(unicode.into_iter().flatten())
}

/// How a character counts for the Final_Sigma rule.
#[derive(PartialEq)]
enum SigmaContext {
    /// Case_Ignorable: skipped over.
    Ignorable,
    /// Cased and not Case_Ignorable.
    Cased,
    /// Neither.
    Other,
}

/// What `c` is to the Final_Sigma rule, asked of `str::to_lowercase` itself
/// (whose Unicode tables are not public) on two strings of four
/// characters: in `AΣc` the sigma is final unless `c` is cased and not
/// ignorable, and in `AΣcA` it is final only when `c` is neither.
fn sigma_context(c: char) -> SigmaContext {
    let is_final = |probe: String| probe.to_lowercase().chars().nth(1) == Some('ς');
    if !is_final(format!("A\u{3a3}{c}")) {
        SigmaContext::Cased
    } else if is_final(format!("A\u{3a3}{c}A")) {
        SigmaContext::Other
    } else {
        SigmaContext::Ignorable
    }
}

/// Whether the capital sigma at byte `at` of `t` ends a word: the first
/// character before it that is not Case_Ignorable is cased, and the first
/// after it that is not is not cased (or there is none), as
/// `str::to_lowercase` decides.
fn final_sigma(t: &str, at: usize) -> bool {
    fn then_cased(chars: impl Iterator<Item = char>) -> bool {
        chars
            .map(sigma_context)
            .find(|k| *k != SigmaContext::Ignorable)
            == Some(SigmaContext::Cased)
    }
    then_cased(t[..at].chars().rev()) && !then_cased(t[at + 2..].chars())
}

/// `items` copied into a [`host_vec`].
fn host_copy<T: Copy>(items: &[T], what: &str) -> Faulty<Vec<T>> {
    let mut copy = host_vec(items.len(), what)?;
    copy.extend_from_slice(items);
    Ok(copy)
}

/// `items` `n` times over in a [`host_vec`]; the caller has checked that
/// the result fits the heap bound.
fn host_repeat<T: Copy>(items: &[T], n: usize, what: &str) -> Faulty<Vec<T>> {
    if items.is_empty() {
        return Ok(Vec::new());
    }
    let mut repeated = host_vec(items.len().saturating_mul(n), what)?;
    for _ in 0..n {
        repeated.extend_from_slice(items);
    }
    Ok(repeated)
}

impl Machine<'_> {
    /// Pays, before it starts, for a sort of `n` elements: about
    /// `n log2 n` comparisons, one unit of work each. A sort the fuel left
    /// cannot pay for fails before it takes the time.
    fn pay_for_sort(&mut self, n: usize) -> Faulty<()> {
        let n = n as u64;
        let comparisons = n * u64::from(64 - n.leading_zeros());
        self.heap
            .did_work(comparisons.saturating_mul(crate::limits::WORK_PER_FUEL));
        self.pay_for_work()
    }

    /// A new string of the bytes `start..end` of the string `r`.
    fn substr(&mut self, r: u64, start: usize, end: usize) -> Faulty<u64> {
        self.heap.alloc_substr(r, start, end)
    }

    /// `String.slice`: a new string of the bytes `start..end` of the
    /// string `s`, which must be in range and on character boundaries.
    /// Out of the builtin function, as [`Memory::list_pop`] is, so that the
    /// dispatch loop calls it directly (k-nucleotide slices at every
    /// position of its sequence).
    #[inline(never)]
    pub(crate) fn str_slice(&mut self, s: u64, start: i64, end: i64) -> Faulty<u64> {
        let bytes = self.heap.str_bytes(s);
        let (start, end) = range(start, end, bytes.len())?;
        // A string is UTF-8 by construction, so a byte starts a character
        // unless it is a continuation byte: two loads, where validating
        // the whole string made a loop of slices quadratic.
        if !char_boundary(bytes, start) || !char_boundary(bytes, end) {
            return Err(invalid(format!(
                "slice {start}..{end} does not fall on character boundaries"
            )));
        }
        self.substr(s, start, end)
    }

    /// Whether the pieces found so far, `ranges`, could be on the heap,
    /// asked each time their vector is full (before it doubles): each
    /// piece will be a string of a word or more and a slot of the list, so
    /// the byte ranges (two words a piece) never take more of the host
    /// than the heap bound lets the pieces take. Before, a split of a
    /// string of 120,000,000 separators under `--max-heap 50000000` built
    /// 1.9 GB of ranges before its result was asked of the bound.
    fn pieces_fit(&self, ranges: &Vec<(usize, usize)>) -> Faulty<()> {
        if ranges.len() == ranges.capacity() {
            self.heap.words_fit(2 * ranges.len() as u64)?;
        }
        Ok(())
    }

    /// A new list of strings, one for each byte range of the string `r`.
    fn pieces(&mut self, r: u64, ranges: &[(usize, usize)]) -> Faulty<u64> {
        // Splitting a string into its characters takes two dozen times its
        // words: ask the run's budget before building that much, and hold
        // it there while it is built.
        let words: u64 = ranges
            .iter()
            .map(|(start, end)| 1 + crate::heap::words_for(end - start) as u64)
            .sum();
        self.heap.will_hold(words + 4 + ranges.len() as u64)?;
        self.heap.alloc_list_with(
            true,
            cove_ir::program::Program::STR.0,
            ranges.len(),
            |heap, i| heap.alloc_substr(r, ranges[i].0, ranges[i].1),
        )
    }

    /// `Some(value)`, or `None`.
    fn some(&mut self, value: Option<u64>, is_ref: bool, ty: u32) -> Faulty<u64> {
        match value {
            None => Ok(0),
            Some(v) => self.heap.alloc_some(is_ref, ty, v),
        }
    }

    /// Writes to the program's output. A failed write (a full disk,
    /// `/dev/full`) ends the run with an I/O error: output the program
    /// believes written and is not must not pass for success, and a
    /// program printing in a loop must not run on writing nowhere.
    fn write_out(&self, bytes: &[u8], newline: bool) -> Faulty<()> {
        let mut out = self.shared.out.lock();
        out.write_all(bytes)
            .and_then(|()| {
                if newline {
                    out.write_all(b"\n")
                } else {
                    Ok(())
                }
            })
            .map_err(|e| output_failed("output", &e))
    }

    /// Runs one builtin on its arguments.
    pub(crate) fn builtin(&mut self, builtin: Builtin, args: &[u64]) -> Faulty<u64> {
        let arg = |i: usize| args.get(i).copied().unwrap_or(0);
        let int = |i: usize| arg(i) as i64;
        let float = |i: usize| f64::from_bits(arg(i));
        Ok(match builtin {
            // ---- functions ----------------------------------------------
            Builtin::Print => {
                self.write_out(self.heap.str_bytes(arg(0)), false)?;
                0
            }
            Builtin::Println => {
                self.write_out(self.heap.str_bytes(arg(0)), true)?;
                0
            }
            Builtin::Eprintln => {
                self.shared
                    .out
                    .lock()
                    .flush()
                    .map_err(|e| output_failed("output", &e))?;
                let mut err = self.shared.err.lock();
                err.write_all(self.heap.str_bytes(arg(0)))
                    .and_then(|()| err.write_all(b"\n"))
                    .and_then(|()| err.flush())
                    .map_err(|e| output_failed("error output", &e))?;
                0
            }
            Builtin::ReadFile => {
                let path = self.heap.str_text(arg(0)).into_owned();
                let bytes = crate::vm::input::read_file(&self.heap, &path)?;
                if std::str::from_utf8(&bytes).is_err() {
                    return Err(Fault::new(
                        ErrorKind::Io,
                        format!("cannot read {path}: stream did not contain valid UTF-8"),
                    ));
                }
                self.heap.alloc_str(&bytes)?
            }
            Builtin::WriteFile => {
                let path = self.heap.str_text(arg(0)).into_owned();
                if !self.shared.file_writes {
                    return Err(Fault::new(
                        ErrorKind::Io,
                        format!("cannot write {path}: this run may not write files"),
                    ));
                }
                if let Err(e) = std::fs::write(&path, self.heap.str_bytes(arg(1))) {
                    return Err(Fault::new(
                        ErrorKind::Io,
                        format!("cannot write {path}: {e}"),
                    ));
                }
                0
            }
            Builtin::Args => {
                let mut refs = Vec::with_capacity(self.shared.args.len());
                for a in &self.shared.args {
                    refs.push(self.heap.alloc_str(a.as_bytes())?);
                }
                self.heap
                    .alloc_list(true, cove_ir::program::Program::STR.0, &refs)?
            }
            Builtin::Exit => {
                let code = int(0);
                let code =
                    i32::try_from(code).unwrap_or(if code < 0 { i32::MIN } else { i32::MAX });
                return Err(Fault::new(ErrorKind::Exit(code), format!("exit({code})")));
            }
            Builtin::Assert => {
                if arg(0) == 0 {
                    return Err(Fault::new(ErrorKind::AssertionFailed, "assertion failed"));
                }
                0
            }
            Builtin::AssertMessage => {
                if arg(0) == 0 {
                    let message = self.heap.str_text(arg(1)).into_owned();
                    return Err(Fault::new(
                        ErrorKind::AssertionFailed,
                        format!("assertion failed: {message}"),
                    ));
                }
                0
            }

            // ---- String -------------------------------------------------
            Builtin::StrLength => self.heap.str_bytes(arg(0)).len() as u64,
            Builtin::StrByteAt => {
                let bytes = self.heap.str_bytes(arg(0));
                let i = int(1);
                match usize::try_from(i).ok().and_then(|i| bytes.get(i)) {
                    Some(b) => u64::from(*b),
                    None => {
                        return Err(Fault::new(
                            ErrorKind::IndexOutOfRange,
                            format!(
                                "byte index {i} is out of range for a string of length {}",
                                bytes.len()
                            ),
                        ));
                    }
                }
            }
            Builtin::StrSlice => self.str_slice(arg(0), int(1), int(2))?,
            Builtin::StrContains => {
                bool_bits(find(self.heap.str_bytes(arg(0)), self.heap.str_bytes(arg(1))).is_some())
            }
            Builtin::StrStartsWith => bool_bits(
                self.heap
                    .str_bytes(arg(0))
                    .starts_with(self.heap.str_bytes(arg(1))),
            ),
            Builtin::StrEndsWith => bool_bits(
                self.heap
                    .str_bytes(arg(0))
                    .ends_with(self.heap.str_bytes(arg(1))),
            ),
            Builtin::StrFind => {
                let at = find(self.heap.str_bytes(arg(0)), self.heap.str_bytes(arg(1)));
                self.some(
                    at.map(|i| i as u64),
                    false,
                    cove_ir::program::Program::INT.0,
                )?
            }
            Builtin::StrSplit => {
                let s = arg(0);
                let bytes = self.heap.str_bytes(s);
                let sep = self.heap.str_bytes(arg(1));
                let mut ranges = Vec::new();
                if sep.is_empty() {
                    // Splitting on nothing gives the characters, each a
                    // string of two words and an element of the list.
                    self.heap
                        .words_fit(3 * text(bytes).chars().count() as u64)?;
                    ranges = host_vec(text(bytes).chars().count(), "splitting a string")?;
                    ranges.extend(
                        text(bytes)
                            .char_indices()
                            .map(|(i, c)| (i, i + c.len_utf8())),
                    );
                } else {
                    let mut start = 0;
                    while let Some(at) = find(&bytes[start..], sep) {
                        self.pieces_fit(&ranges)?;
                        host_push(&mut ranges, (start, start + at), "splitting a string")?;
                        start += at + sep.len();
                    }
                    host_push(&mut ranges, (start, bytes.len()), "splitting a string")?;
                }
                self.pieces(s, &ranges)?
            }
            Builtin::StrLines => {
                let s = arg(0);
                let bytes = self.heap.str_bytes(s);
                let mut ranges = Vec::new();
                let mut start = 0;
                while start < bytes.len() {
                    let end = bytes[start..]
                        .iter()
                        .position(|b| *b == b'\n')
                        .map_or(bytes.len(), |i| start + i);
                    let trimmed = if end > start && bytes[end - 1] == b'\r' {
                        end - 1
                    } else {
                        end
                    };
                    self.pieces_fit(&ranges)?;
                    host_push(&mut ranges, (start, trimmed), "splitting a string")?;
                    start = end + 1;
                }
                self.pieces(s, &ranges)?
            }
            Builtin::StrTrim => {
                let s = arg(0);
                let t = text(self.heap.str_bytes(s));
                let start = t.len() - t.trim_start().len();
                let end = t.trim_end().len().max(start);
                self.substr(s, start, end)?
            }
            Builtin::StrReplace => {
                let (whole, from) = (
                    text(self.heap.str_bytes(arg(0))),
                    text(self.heap.str_bytes(arg(1))),
                );
                let to = self.heap.str_bytes(arg(2));
                // The result's length first: it may be far past the limit.
                // An empty `from` matches before every char and at the end.
                let found = if from.is_empty() {
                    whole.chars().count() + 1
                } else {
                    whole.matches(from).count()
                };
                let len = (whole.len() as u128 - (found * from.len()) as u128)
                    + found as u128 * to.len() as u128;
                self.heap
                    .str_fits(usize::try_from(len).unwrap_or(usize::MAX))?;
                // Built in room taken from the host with `try_reserve`, the
                // length known: `str::replace` grew its own `String`, and a
                // host that refused it aborted (a 300 MB result under
                // `ulimit -v 1000000`).
                let mut replaced = host_vec(len as usize, "replacing in a string")?;
                if from.is_empty() {
                    for c in whole.chars() {
                        replaced.extend_from_slice(to);
                        replaced.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    }
                    replaced.extend_from_slice(to);
                } else {
                    let mut last = 0;
                    for (at, _) in whole.match_indices(from) {
                        replaced.extend_from_slice(&whole.as_bytes()[last..at]);
                        replaced.extend_from_slice(to);
                        last = at + from.len();
                    }
                    replaced.extend_from_slice(&whole.as_bytes()[last..]);
                }
                self.heap.alloc_str(&replaced)?
            }
            Builtin::StrRepeat => {
                let n = int(1);
                if n < 0 {
                    return Err(invalid(format!("repeat count {n} is negative")));
                }
                let bytes = self.heap.str_bytes(arg(0));
                let total = (bytes.len() as u64).checked_mul(n as u64);
                match total {
                    Some(total) if total <= u64::from(u32::MAX) => {
                        self.heap.str_fits(total as usize)?
                    }
                    _ => {
                        return Err(Fault::new(
                            ErrorKind::HeapLimit,
                            "the repeated string is longer than a string may be",
                        ));
                    }
                }
                let repeated = host_repeat(bytes, n as usize, "repeating a string")?;
                self.heap.alloc_str(&repeated)?
            }
            Builtin::StrToUpper | Builtin::StrToLower => {
                let upper = builtin == Builtin::StrToUpper;
                if self.heap.str_bytes(arg(0)).is_ascii() {
                    self.heap.alloc_ascii_case(arg(0), upper)?
                } else {
                    let t = text(self.heap.str_bytes(arg(0)));
                    self.heap.str_fits(case_mapped_len(t, upper))?;
                    let mapped = case_mapped(t, upper)?;
                    self.heap.alloc_str(&mapped)?
                }
            }
            Builtin::StrParseInt => {
                let t = text(self.heap.str_bytes(arg(0)));
                match t.parse::<i64>() {
                    Ok(n) => n as u64,
                    Err(_) => {
                        return Err(Fault::new(
                            ErrorKind::Parse,
                            format!("cannot parse {t:?} as an Int"),
                        ));
                    }
                }
            }
            Builtin::StrParseFloat => {
                let t = text(self.heap.str_bytes(arg(0)));
                match t.parse::<f64>() {
                    Ok(x) => x.to_bits(),
                    Err(_) => {
                        return Err(Fault::new(
                            ErrorKind::Parse,
                            format!("cannot parse {t:?} as a Float"),
                        ));
                    }
                }
            }

            // ---- List ---------------------------------------------------
            Builtin::ListLength => self.heap.list_len(arg(0)) as u64,
            Builtin::ListPush => {
                self.heap.list_push(arg(0), arg(1))?;
                0
            }
            Builtin::ListPop => self.heap.list_pop(arg(0))?,
            // The dispatch loop answers this itself too.
            Builtin::ListDropLast => {
                self.heap.list_drop_last(arg(0));
                0
            }
            Builtin::ListGet => {
                let list = arg(0);
                let item = usize::try_from(int(1))
                    .ok()
                    .and_then(|i| self.heap.list_items(list).get(i).copied());
                let (is_ref, ty) = self.heap.list_elem(list);
                self.some(item, is_ref, ty)?
            }
            Builtin::ListInsert => {
                let list = arg(0);
                let len = self.heap.list_len(list);
                let i = int(1);
                match usize::try_from(i) {
                    Ok(at) if at <= len => self.heap.list_insert(list, at, arg(2))?,
                    _ => return Err(index_out_of_range(i, len)),
                }
                0
            }
            Builtin::ListRemove => {
                let list = arg(0);
                let len = self.heap.list_len(list);
                let i = int(1);
                match usize::try_from(i) {
                    Ok(at) if at < len => self.heap.list_remove(list, at),
                    _ => return Err(index_out_of_range(i, len)),
                }
            }
            Builtin::ListJoin => {
                let sep = self.heap.str_bytes(arg(1));
                let items = self.heap.list_items(arg(0));
                // The result's length first: it may be far past the limit.
                let len = items
                    .iter()
                    .map(|item| self.heap.str_bytes(*item).len() as u128)
                    .sum::<u128>()
                    + items.len().saturating_sub(1) as u128 * sep.len() as u128;
                self.heap
                    .str_fits(usize::try_from(len).unwrap_or(usize::MAX))?;
                let mut joined = host_vec(len as usize, "joining strings")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        joined.extend_from_slice(sep);
                    }
                    joined.extend_from_slice(self.heap.str_bytes(*item));
                }
                self.heap.alloc_str(&joined)?
            }
            Builtin::ListSortInt => {
                self.pay_for_sort(self.heap.list_len(arg(0)))?;
                let interrupt = &self.shared.interrupt;
                let mut polls = Poll::default();
                self.heap.list_items_mut(arg(0)).sort_unstable_by(|a, b| {
                    if polls.stopped(interrupt) {
                        return std::cmp::Ordering::Equal;
                    }
                    (*a as i64).cmp(&(*b as i64))
                });
                if polls.stop {
                    return Err(crate::vm::tasks::stopped(interrupt));
                }
                0
            }
            Builtin::ListSortStr => {
                let list = arg(0);
                self.pay_for_sort(self.heap.list_len(list))?;
                let mut items = host_copy(self.heap.list_items(list), "sorting a list")?;
                let interrupt = &self.shared.interrupt;
                let mut polls = Poll::default();
                items.sort_by(|a, b| {
                    // Once stopped, every comparison is a cheap "equal",
                    // and the sort finishes at once; its order is moot.
                    if polls.stopped(interrupt) {
                        return std::cmp::Ordering::Equal;
                    }
                    self.heap.str_bytes(*a).cmp(self.heap.str_bytes(*b))
                });
                if polls.stop {
                    return Err(crate::vm::tasks::stopped(interrupt));
                }
                self.heap.list_items_mut(list).copy_from_slice(&items);
                0
            }
            Builtin::ListContainsInt | Builtin::ListContainsBool => {
                bool_bits(self.heap.list_items(arg(0)).contains(&arg(1)))
            }
            Builtin::ListContainsFloat => {
                let x = float(1);
                bool_bits(
                    self.heap
                        .list_items(arg(0))
                        .iter()
                        .any(|v| f64::from_bits(*v) == x),
                )
            }
            Builtin::ListContainsStr => {
                let needle = self.heap.str_bytes(arg(1));
                bool_bits(
                    self.heap
                        .list_items(arg(0))
                        .iter()
                        .any(|v| self.heap.str_bytes(*v) == needle),
                )
            }
            Builtin::ListSlice => {
                let list = arg(0);
                let items = self.heap.list_items(list);
                let (start, end) = range(int(1), int(2), items.len())?;
                let part = host_copy(&items[start..end], "slicing a list")?;
                let (is_ref, ty) = self.heap.list_elem(list);
                self.heap.alloc_list(is_ref, ty, &part)?
            }

            // ---- Map ----------------------------------------------------
            Builtin::MapGet => {
                let map = arg(0);
                let found = self.heap.map_lookup(map, arg(1));
                let header = self.heap.header(map);
                self.some(found, a_of(header) & 1 != 0, b_of(header))?
            }
            Builtin::MapSet => {
                self.heap.try_map_set(arg(0), arg(1), arg(2))?;
                0
            }
            // The dispatch loop answers this and `Map.contains` itself
            // (`call-builtin` in `vm/exec.rs`); the arm says the same.
            Builtin::MapGetOr => self.heap.map_lookup(arg(0), arg(1)).unwrap_or(arg(2)),
            Builtin::MapContains => bool_bits(self.heap.map_lookup(arg(0), arg(1)).is_some()),
            Builtin::MapHasAt => {
                bool_bits(self.heap.map_lookup_at(arg(0), arg(1), arg(2)).is_some())
            }
            Builtin::MapValueAt => self
                .heap
                .map_lookup_at(arg(0), arg(1), arg(2))
                .ok_or_else(no_such_key)?,
            Builtin::MapRemove => {
                let (map, key) = (arg(0), arg(1));
                let removed = match self.heap.table_and_str_if(map, key) {
                    (Table::Int(m), _) => m.remove(&(key as i64)),
                    (Table::Str(m), Some(bytes)) => m.remove(bytes),
                    (Table::Str(_), None) => None,
                };
                let header = self.heap.header(map);
                self.some(removed, a_of(header) & 1 != 0, b_of(header))?
            }
            Builtin::MapKeys => {
                let map = arg(0);
                self.heap
                    .alloc_map_keys(map, a_of(self.heap.header(map)) >> 1)?
            }
            Builtin::MapValues => self.heap.alloc_map_values(arg(0))?,
            Builtin::MapLength => self.heap.table(arg(0)).len() as u64,

            // ---- Int and Float ------------------------------------------
            Builtin::IntToFloat => (int(0) as f64).to_bits(),
            Builtin::IntAbs => match int(0).checked_abs() {
                Some(n) => n as u64,
                None => return Err(Fault::new(ErrorKind::Overflow, "integer overflow in abs")),
            },
            Builtin::IntMin => int(0).min(int(1)) as u64,
            Builtin::IntMax => int(0).max(int(1)) as u64,
            Builtin::FloatToInt => match truncated(float(0)) {
                Some(n) => n as u64,
                None => return Err(invalid(format!("{} has no Int value", float(0)))),
            },
            Builtin::FloatSqrt => float(0).sqrt().to_bits(),
            Builtin::FloatFloor => float(0).floor().to_bits(),
            Builtin::FloatAbs => float(0).abs().to_bits(),

            // ---- Option -------------------------------------------------
            Builtin::OptionIsSome => bool_bits(arg(0) != 0),
            Builtin::OptionIsNone => bool_bits(arg(0) == 0),
            Builtin::OptionUnwrap => {
                if arg(0) == 0 {
                    return Err(unwrap_none());
                }
                self.heap.word(arg(0) + 1)
            }
            Builtin::OptionUnwrapOr => {
                if arg(0) == 0 {
                    arg(1)
                } else {
                    self.heap.word(arg(0) + 1)
                }
            }

            // ---- tasks --------------------------------------------------
            Builtin::TaskJoin => self.join(arg(0))?,
            Builtin::ChannelSend => self.send(arg(0), arg(1))?,
            Builtin::ChannelRecv => self.recv(arg(0))?,
            Builtin::ChannelClose => {
                let handle = self.heap.channel(arg(0)).clone();
                self.shared.scheduler.close(&handle);
                0
            }

            // ---- format specs -------------------------------------------
            Builtin::FormatInt | Builtin::FormatFloat | Builtin::FormatStr => {
                let Some(spec) = FormatSpec::unpack(int(1)) else {
                    return Err(invalid(format!("{} is not a packed format spec", int(1))));
                };
                if builtin == Builtin::FormatStr {
                    // A text as long as its width or longer is not padded:
                    // the result is the text, or the characters its
                    // precision keeps, copied inside the heap. Through
                    // `spec.text` a long text was copied into a `String`
                    // of the host's first, which a host that refused it
                    // aborted; a text that is padded is shorter than the
                    // widest width, 65,535 characters.
                    let s = arg(0);
                    let t = text(self.heap.str_bytes(s));
                    let end = match spec.precision {
                        Some(p) => t
                            .char_indices()
                            .nth(usize::from(p))
                            .map_or(t.len(), |(at, _)| at),
                        None => t.len(),
                    };
                    let width = spec.width.map_or(0, usize::from);
                    if t[..end].chars().nth(width.saturating_sub(1)).is_some() || width == 0 {
                        return self.substr(s, 0, end);
                    }
                }
                // A number is laid out on the host's stack and written
                // straight into the new string.
                let heap = &mut self.heap;
                let write = |laid: &cove_ir::format::Laid<'_>| {
                    heap.alloc_str_with(laid.len(), |dst| laid.write_to(dst))
                };
                match builtin {
                    Builtin::FormatInt => spec.with_int(int(0), write)?,
                    Builtin::FormatFloat => spec.with_float(float(0), write)?,
                    _ => {
                        let out = spec.text(text(self.heap.str_bytes(arg(0))));
                        self.heap.alloc_str(out.as_bytes())?
                    }
                }
            }

            // ---- text, lists, numbers and input of Cove 1.1 -------------
            Builtin::StrChars => {
                let s = arg(0);
                let t = text(self.heap.str_bytes(s));
                let mut ranges = host_vec(t.chars().count(), "splitting a string")?;
                ranges.extend(t.char_indices().map(|(i, c)| (i, i + c.len_utf8())));
                self.pieces(s, &ranges)?
            }
            Builtin::StrBytes => {
                let bytes = self.heap.str_bytes(arg(0));
                self.heap.words_fit(bytes.len() as u64 + 4)?;
                let mut items = host_vec(bytes.len(), "listing a string's bytes")?;
                items.extend(bytes.iter().map(|b| u64::from(*b)));
                self.heap.will_hold(items.len() as u64 + 4)?;
                self.heap
                    .alloc_list(false, cove_ir::program::Program::INT.0, &items)?
            }
            Builtin::StrSplitWhitespace => {
                let s = arg(0);
                let words = word_ranges(text(self.heap.str_bytes(s)));
                let count = words.clone().count();
                // Each word will be a string of a word or more and a slot.
                self.heap.words_fit(2 * count as u64)?;
                let mut ranges = host_vec(count, "splitting a string")?;
                ranges.extend(words);
                self.pieces(s, &ranges)?
            }
            Builtin::IntToChar => {
                let n = int(0);
                let Some(c) = u32::try_from(n).ok().and_then(char::from_u32) else {
                    return Err(invalid(format!("{n} is not a Unicode scalar value")));
                };
                if c.is_ascii() {
                    self.heap.byte_string(c as u8)?
                } else {
                    self.heap.alloc_str(c.encode_utf8(&mut [0; 4]).as_bytes())?
                }
            }
            Builtin::IntPow => {
                let (n, k) = (int(0), int(1));
                let Ok(k) = u32::try_from(k) else {
                    return Err(invalid(format!(
                        "the exponent {k} is negative or too large"
                    )));
                };
                match n.checked_pow(k) {
                    Some(v) => v as u64,
                    None => {
                        return Err(Fault::new(ErrorKind::Overflow, "integer overflow in pow"));
                    }
                }
            }
            Builtin::FloatPow => float(0).powf(float(1)).to_bits(),
            Builtin::FloatRound => float(0).round().to_bits(),
            Builtin::FloatCeil => float(0).ceil().to_bits(),
            Builtin::FloatIsNan => bool_bits(float(0).is_nan()),
            Builtin::ListRepeat => {
                let list = arg(0);
                let n = int(1);
                if n < 0 {
                    return Err(invalid(format!("repeat count {n} is negative")));
                }
                let len = self.heap.list_len(list) as u64;
                let total = len
                    .checked_mul(n as u64)
                    .filter(|t| *t <= u64::from(u32::MAX));
                let Some(total) = total else {
                    return Err(Fault::new(
                        ErrorKind::HeapLimit,
                        "the repeated list is longer than a list may be",
                    ));
                };
                self.heap.will_hold(total + 4)?;
                let items =
                    host_repeat(self.heap.list_items(list), n as usize, "repeating a list")?;
                let (is_ref, ty) = self.heap.list_elem(list);
                self.heap.alloc_list(is_ref, ty, &items)?
            }
            Builtin::ListCopy => {
                let list = arg(0);
                let items = host_copy(self.heap.list_items(list), "copying a list")?;
                let (is_ref, ty) = self.heap.list_elem(list);
                self.heap.alloc_list(is_ref, ty, &items)?
            }
            Builtin::ListReverse => {
                self.heap.list_items_mut(arg(0)).reverse();
                0
            }
            Builtin::ListSortFloat => {
                self.pay_for_sort(self.heap.list_len(arg(0)))?;
                let interrupt = &self.shared.interrupt;
                let mut polls = Poll::default();
                self.heap.list_items_mut(arg(0)).sort_by(|a, b| {
                    if polls.stopped(interrupt) {
                        return std::cmp::Ordering::Equal;
                    }
                    // IEEE total order, except that every NaN sorts last:
                    // `0.0 / 0.0` is a NaN with its sign bit set on most
                    // machines, which the total order puts first.
                    let key = |bits: u64| {
                        let x = f64::from_bits(bits);
                        if x.is_nan() { f64::NAN } else { x }
                    };
                    key(*a).total_cmp(&key(*b))
                });
                if polls.stop {
                    return Err(crate::vm::tasks::stopped(interrupt));
                }
                0
            }
            Builtin::ReadLine => {
                let mut line = {
                    let mut input = self.shared.input.lock();
                    crate::vm::input::read_bounded(
                        &self.heap,
                        &mut **input,
                        true,
                        "standard input",
                    )?
                };
                match line.len() {
                    0 => 0,
                    _ => {
                        if line.last() == Some(&b'\n') {
                            line.pop();
                            if line.last() == Some(&b'\r') {
                                line.pop();
                            }
                        }
                        let s = String::from_utf8_lossy(&line).into_owned();
                        let r = self.heap.alloc_str(s.as_bytes())?;
                        self.heap
                            .alloc_some(true, cove_ir::program::Program::STR.0, r)?
                    }
                }
            }
            Builtin::ReadStdin => {
                let all = {
                    let mut input = self.shared.input.lock();
                    crate::vm::input::read_bounded(
                        &self.heap,
                        &mut **input,
                        false,
                        "standard input",
                    )?
                };
                let s = String::from_utf8_lossy(&all).into_owned();
                self.heap.alloc_str(s.as_bytes())?
            }
        })
    }

    /// Waits with `wait` (a join or a recv), collecting this task's heap
    /// and waiting again each time the scheduler asks for a sweep.
    fn wait<T>(
        &mut self,
        wait: impl Fn(&Scheduler, &InterruptHandle, &mut Waited) -> Result<T, Blocked>,
    ) -> Faulty<T> {
        let shared = self.shared;
        loop {
            match wait(&shared.scheduler, &shared.interrupt, &mut self.waited) {
                Ok(value) => return Ok(value),
                Err(Blocked::Fault(fault)) => return Err(fault),
                Err(Blocked::Sweep) => self.sweep()?,
            }
        }
    }

    /// Collects this task's heap because every task of the run was found
    /// waiting (see [`Blocked::Sweep`]), and tells the waiters if that let
    /// go of a channel handle.
    ///
    /// Called from inside a builtin: the registers are the roots, and the
    /// builtin's own copies of its arguments are stale afterwards.
    fn sweep(&mut self) -> Faulty<()> {
        let before = self.heap.channels.live().count();
        self.collect()?;
        if self.heap.channels.live().count() < before {
            self.shared.scheduler.released();
        }
        Ok(())
    }

    fn join(&mut self, task: u64) -> Faulty<u64> {
        let handle = self.heap.task(task).clone();
        let result_ty = b_of(self.heap.header(task));
        // From here on `task` may be moved by a sweep; the handle is enough.
        let outcome =
            self.wait(|scheduler, interrupt, waited| scheduler.join(&handle.0, interrupt, waited))?;
        match &outcome.0 {
            Ok(value) => {
                self.heap
                    .put_value(self.program, cove_ir::types::TypeId(result_ty), value)
            }
            Err(error) => Err(Fault {
                kind: error.kind,
                message: format!("in task {}: {}", handle.0.id, error.message),
                inner: error.backtrace.clone(),
            }),
        }
    }

    fn send(&mut self, channel: u64, value: u64) -> Faulty<u64> {
        let elem = cove_ir::types::TypeId(b_of(self.heap.header(channel)));
        let message = self.heap.to_value(self.program, elem, value)?;
        let handle = self.heap.channel(channel).clone();
        self.shared
            .scheduler
            .send(&handle, message, self.shared.limits.max_heap_words)?;
        Ok(0)
    }

    fn recv(&mut self, channel: u64) -> Faulty<u64> {
        let elem = cove_ir::types::TypeId(b_of(self.heap.header(channel)));
        // This task holds the channel through its heap's one handle, which
        // is the reference `recv` is given, and through the clone here,
        // which outlives a sweep that may move `channel`.
        let handle = self.heap.channel(channel).clone();
        let message = self
            .wait(|scheduler, interrupt, waited| scheduler.recv(&handle, 2, interrupt, waited))?;
        drop(handle);
        match message {
            None => Ok(0),
            Some(value) => {
                let bits = self.heap.put_value(self.program, elem, &value);
                crate::heap::convert::dispose(value);
                let bits = bits?;
                let is_ref = self
                    .shared
                    .digest
                    .type_is_ref
                    .get(elem.0 as usize)
                    .copied()
                    .unwrap_or(false);
                self.heap.alloc_some(is_ref, elem.0, bits)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{case_mapped, case_mapped_len, word_ranges};

    #[test]
    fn words_of_an_ascii_string_are_split_where_the_standard_split_splits_them() {
        // Every ASCII byte between two words, alone and doubled, at the
        // ends too; then strings with non-ASCII white space, which take
        // the standard split.
        let mut texts: Vec<String> = (0u8..128)
            .map(char::from)
            .flat_map(|c| [format!("a{c}b"), format!("{c}{c}ab{c}c{c}")])
            .collect();
        texts.extend(
            [
                "",
                " ",
                "x",
                "a\u{85}b c",
                "\u{a0}a\u{3000}b\u{2028}",
                "é \u{b}ü",
            ]
            .map(String::from),
        );
        for t in &texts {
            let want: Vec<&str> = t.split_whitespace().collect();
            let got: Vec<&str> = word_ranges(t).map(|(start, end)| &t[start..end]).collect();
            assert_eq!(got, want, "{t:?}");
            assert_eq!(word_ranges(t).count(), want.len(), "{t:?}");
        }
    }

    #[test]
    fn a_case_mapped_string_is_what_the_standard_functions_give_sigmas_at_word_ends_included() {
        let texts = [
            "",
            "plain ASCII, Mixed Case 123",
            "ΣΑΣ",
            "ΟΔΥΣΣΕΥΣ",
            "Σ",
            "aΣ",
            "Σa",
            "aΣ b",
            "aΣ'",
            "aΣ'b",
            "a'Σ",
            "a.Σ.",
            "ΑΣ\u{301}",
            "ΑΣ\u{301}Β",
            "1Σ",
            "Σ1Σ",
            "ΣΣΣ ΣΣ Σ",
            "İstanbul ǅ ß ﬁ ŉ ΐ",
            "ǈΣ ᾼΣ",
            "A\u{345}Σ\u{345}",
            "straße ΜΆΙΟΣ, Σ.",
        ];
        for t in texts {
            for upper in [true, false] {
                let want = if upper {
                    t.to_uppercase()
                } else {
                    t.to_lowercase()
                };
                let got = case_mapped(t, upper).expect("room for a short string");
                assert_eq!(
                    String::from_utf8(got).as_deref(),
                    Ok(want.as_str()),
                    "{t:?}"
                );
                assert_eq!(case_mapped_len(t, upper), want.len(), "{t:?}");
            }
        }
        // Every character below U+3000, alone and after a capital alpha
        // and before a capital sigma, and after a sigma.
        for c in (0..0x3000u32).filter_map(char::from_u32) {
            for t in [
                format!("Α{c}Σ"),
                format!("ΑΣ{c}"),
                format!("Σ{c}Α"),
                c.to_string(),
            ] {
                let got = case_mapped(&t, false).expect("room");
                assert_eq!(String::from_utf8(got), Ok(t.to_lowercase()), "{t:?}");
                let got = case_mapped(&t, true).expect("room");
                assert_eq!(String::from_utf8(got), Ok(t.to_uppercase()), "{t:?}");
            }
        }
    }
}
