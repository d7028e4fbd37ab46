//! pprof's `profile.proto`, gzipped: what `go tool pprof` reads, and how
//! profile stores (Pyroscope, Parca, Grafana) take profiles in.
//!
//! The messages are declared here with `prost`'s derive rather than
//! generated from the `.proto` at build time: the schema is small and
//! frozen, and a build script would need `protoc` on every machine that
//! builds the crate. Field numbers are those of pprof's
//! `proto/profile.proto`.
//!
//! # What a sample is
//!
//! Four sample types, `instructions`, `nanoseconds`, `words` and
//! `allocations` (the default is `instructions`), and one sample per path
//! of calls and source line of the innermost function on it, labelled with
//! its `task`. The profiler keeps a path's self cost per *function*, and a
//! function's cost per *line* over all paths, but not the two together, so
//! when a function is reached by several paths its lines' cost is shared
//! out among them in proportion (each figure on its own, in whole units).
//! The sharing keeps both sums exact: every path's total is the tree's, and
//! every line's total is the profile's, so `-top` (flat and cum) and
//! `-list` print the exact figures; only which path a line's cost is shown
//! under is estimated, and only for functions with several paths. A caller's
//! frame is placed at the line of its first call to the callee.
//!
//! Time spent blocked is in no sample unless the report was made
//! [`Report::with_idle`]: then each path that waited gets one more sample,
//! of nanoseconds only, whose leaf is a `(blocked)` function under the
//! function that waited, as in the folded stacks.

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;

use cove_ir::program::FunctionId;
use prost::Message as _;

use super::folded::{BLOCKED_FRAME, ELIDED_FRAME, FOLDED_MAX_FRAMES};
use super::{Metric, Report};
use crate::context::ROOT;
use crate::cost::Charge;

/// The location of the frames a deep path leaves out: no function's id.
const ELIDED: FunctionId = FunctionId(u32::MAX);

/// The location of a path's blocked time under `with_idle`: no function's
/// id either.
const BLOCKED: FunctionId = FunctionId(u32::MAX - 1);

/// `Profile`: the whole file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Profile {
    /// What each value of a sample is.
    #[prost(message, repeated, tag = "1")]
    pub sample_type: Vec<ValueType>,
    /// The samples.
    #[prost(message, repeated, tag = "2")]
    pub sample: Vec<Sample>,
    /// The one mapping: the program.
    #[prost(message, repeated, tag = "3")]
    pub mapping: Vec<Mapping>,
    /// Each (function, line) a sample names.
    #[prost(message, repeated, tag = "4")]
    pub location: Vec<Location>,
    /// Each function.
    #[prost(message, repeated, tag = "5")]
    pub function: Vec<Function>,
    /// Every string, by index; the first is empty.
    #[prost(string, repeated, tag = "6")]
    pub string_table: Vec<String>,
    /// When the run started, in nanoseconds since the Unix epoch.
    #[prost(int64, tag = "9")]
    pub time_nanos: i64,
    /// The run's measured time.
    #[prost(int64, tag = "10")]
    pub duration_nanos: i64,
    /// What one event is: an instruction.
    #[prost(message, optional, tag = "11")]
    pub period_type: Option<ValueType>,
    /// One event a sample (every instruction is counted).
    #[prost(int64, tag = "12")]
    pub period: i64,
    /// Free-text comments, as string indexes.
    #[prost(int64, repeated, tag = "13")]
    pub comment: Vec<i64>,
    /// The sample type shown first, as a string index.
    #[prost(int64, tag = "14")]
    pub default_sample_type: i64,
}

/// `ValueType`: a sample value's kind and unit, as string indexes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueType {
    /// e.g. `instructions`.
    #[prost(int64, tag = "1")]
    pub r#type: i64,
    /// e.g. `count`.
    #[prost(int64, tag = "2")]
    pub unit: i64,
}

/// `Sample`: a stack, innermost first, and one value per sample type.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Sample {
    /// Location ids, innermost first.
    #[prost(uint64, repeated, tag = "1")]
    pub location_id: Vec<u64>,
    /// One value per sample type.
    #[prost(int64, repeated, tag = "2")]
    pub value: Vec<i64>,
    /// The task label.
    #[prost(message, repeated, tag = "3")]
    pub label: Vec<Label>,
}

/// `Label`: a key and a number.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Label {
    /// The key, a string index.
    #[prost(int64, tag = "1")]
    pub key: i64,
    /// A string value (index), or 0.
    #[prost(int64, tag = "2")]
    pub str: i64,
    /// A numeric value.
    #[prost(int64, tag = "3")]
    pub num: i64,
}

/// `Mapping`: the program, which has functions, files and lines.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Mapping {
    /// Always 1.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// The entry file, a string index.
    #[prost(int64, tag = "5")]
    pub filename: i64,
    /// True: locations name their functions.
    #[prost(bool, tag = "7")]
    pub has_functions: bool,
    /// True: functions name their files.
    #[prost(bool, tag = "8")]
    pub has_filenames: bool,
    /// True: locations have lines.
    #[prost(bool, tag = "9")]
    pub has_line_numbers: bool,
}

/// `Location`: one line of one function.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Location {
    /// From 1.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// Always 1.
    #[prost(uint64, tag = "2")]
    pub mapping_id: u64,
    /// The function and line.
    #[prost(message, repeated, tag = "4")]
    pub line: Vec<Line>,
}

/// `Line`: a function id and a line number.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Line {
    /// A [`Function`]'s id.
    #[prost(uint64, tag = "1")]
    pub function_id: u64,
    /// The source line.
    #[prost(int64, tag = "2")]
    pub line: i64,
}

/// `Function`: a name, a file and a first line.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Function {
    /// From 1: the program's function index plus one.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// `module.function`, a string index.
    #[prost(int64, tag = "2")]
    pub name: i64,
    /// The same name.
    #[prost(int64, tag = "3")]
    pub system_name: i64,
    /// The absolute source path, a string index.
    #[prost(int64, tag = "4")]
    pub filename: i64,
    /// The line of its first instruction.
    #[prost(int64, tag = "5")]
    pub start_line: i64,
}

/// The string table being built.
#[derive(Default)]
struct Strings {
    table: Vec<String>,
    index: HashMap<String, i64>,
}

impl Strings {
    fn new() -> Strings {
        let mut strings = Strings::default();
        strings.get("");
        strings
    }

    fn get(&mut self, text: &str) -> i64 {
        if let Some(&i) = self.index.get(text) {
            return i;
        }
        let i = self.table.len() as i64;
        self.table.push(text.to_string());
        self.index.insert(text.to_string(), i);
        i
    }
}

/// Shares `need` out over `pool` in proportion to what is left of each,
/// in whole units, taking what it gives from `pool`; never more than a
/// slot has, and exactly `need` when the pool holds that much.
fn share(need: u64, pool: &mut [u64]) -> Vec<u64> {
    let left: u64 = pool.iter().sum();
    let mut given = vec![0u64; pool.len()];
    if left == 0 || need == 0 {
        return given;
    }
    let need = need.min(left);
    let mut rest = need;
    for (slot, have) in pool.iter().enumerate() {
        let part = (u128::from(need) * u128::from(*have) / u128::from(left)) as u64;
        given[slot] = part;
        rest -= part;
    }
    for (slot, have) in pool.iter().enumerate() {
        if rest == 0 {
            break;
        }
        if *have > given[slot] {
            given[slot] += 1;
            rest -= 1;
        }
    }
    for (slot, have) in pool.iter_mut().enumerate() {
        *have -= given[slot];
    }
    given
}

impl Report<'_> {
    /// The profile as a pprof [`Profile`] message.
    pub fn pprof_profile(&self) -> Profile {
        let program = self.program;
        let mut strings = Strings::new();
        let sample_type = [
            ("instructions", "count"),
            ("nanoseconds", "nanoseconds"),
            ("words", "words"),
            ("allocations", "count"),
        ]
        .iter()
        .map(|(t, u)| ValueType {
            r#type: strings.get(t),
            unit: strings.get(u),
        })
        .collect::<Vec<_>>();
        let task_key = strings.get("task");

        // Each function's cost per line, over every path.
        let mut lines: BTreeMap<FunctionId, BTreeMap<u32, Charge>> = BTreeMap::new();
        for row in &self.instructions {
            lines
                .entry(row.function)
                .or_default()
                .entry(row.line.unwrap_or(0))
                .or_default()
                .add(&row.cost);
        }
        // What is left of each line to share out, per metric.
        let mut pools: BTreeMap<FunctionId, (Vec<u32>, [Vec<u64>; 4])> = lines
            .iter()
            .map(|(f, per)| {
                let numbers: Vec<u32> = per.keys().copied().collect();
                let pools = Metric::ALL.map(|m| per.values().map(|c| m.of(c)).collect());
                (*f, (numbers, pools))
            })
            .collect();
        // The line of a caller's first call to each callee.
        let mut call_line: BTreeMap<(FunctionId, FunctionId), u32> = BTreeMap::new();
        for task in &self.tasks {
            for ((caller, pc, callee), _) in &task.sites {
                call_line
                    .entry((*caller, *callee))
                    .or_insert_with(|| program.line_of(*caller, *pc).unwrap_or(0));
            }
        }

        let mut locations: BTreeMap<(FunctionId, u32), u64> = BTreeMap::new();
        let mut location = |function: FunctionId, line: u32| -> u64 {
            let next = locations.len() as u64 + 1;
            *locations.entry((function, line)).or_insert(next)
        };
        let mut samples = Vec::new();
        for task in &self.tasks {
            // Cut as folded stacks are: a runaway recursion's profile stays
            // linear in its calling contexts.
            let paths = task.tree.capped_paths(FOLDED_MAX_FRAMES);
            // Where each stack's sample is: the nodes a cut made alike (a
            // runaway recursion's levels below it) add into one sample.
            // A sample is known by its path and its own leading locations.
            let mut sample_of: HashMap<(u32, u64, u64), usize> = HashMap::new();
            let mut callers_of: HashMap<u32, Vec<u64>> = HashMap::new();
            let mut add = |samples: &mut Vec<Sample>,
                           key: (u32, u64, u64),
                           location_id: Vec<u64>,
                           value: Vec<i64>| {
                if let Some(&at) = sample_of.get(&key) {
                    let sample: &mut Sample = &mut samples[at];
                    for (sum, v) in sample.value.iter_mut().zip(&value) {
                        *sum += v;
                    }
                    return;
                }
                sample_of.insert(key, samples.len());
                samples.push(Sample {
                    location_id,
                    value,
                    label: vec![Label {
                        key: task_key,
                        str: 0,
                        num: i64::from(task.task),
                    }],
                });
            };
            for (id, node) in task.tree.nodes.iter().enumerate() {
                if id == ROOT as usize || node.cost.is_empty() {
                    continue;
                }
                // The callers, innermost first, each at its call's line; the
                // frames a cut left out are one location of their own.
                // Made once a distinct path.
                let (path, frames) = paths.of(id);
                let callers: &Vec<u64> = callers_of.entry(path).or_insert_with(|| {
                    frames
                        .windows(2)
                        .rev()
                        .map(|pair| match (pair[0], pair[1]) {
                            (Some(caller), Some(callee)) => {
                                let line = call_line.get(&(caller, callee)).copied().unwrap_or(0);
                                location(caller, line)
                            }
                            (Some(caller), None) => location(caller, 0),
                            (None, _) => location(ELIDED, 0),
                        })
                        .collect()
                });
                if self.idle() && node.cost.blocked > 0 {
                    // The wait, as a leaf `(blocked)` frame under the
                    // function that waited, in nanoseconds only.
                    let (wait, waiter) = (location(BLOCKED, 0), location(node.function, 0));
                    let mut location_id = vec![wait, waiter];
                    location_id.extend(callers);
                    add(
                        &mut samples,
                        (path, wait, waiter),
                        location_id,
                        vec![0, node.cost.blocked as i64, 0, 0],
                    );
                }
                let Some((numbers, pools)) = pools.get_mut(&node.function) else {
                    continue;
                };
                let shares = Metric::ALL
                    .iter()
                    .zip(pools.iter_mut())
                    .map(|(m, pool)| share(m.of(&node.cost), pool))
                    .collect::<Vec<_>>();
                for (slot, line) in numbers.iter().enumerate() {
                    let value: Vec<i64> = shares.iter().map(|s| s[slot] as i64).collect();
                    if value.iter().all(|v| *v == 0) {
                        continue;
                    }
                    let leaf = location(node.function, *line);
                    let mut location_id = vec![leaf];
                    location_id.extend(callers);
                    add(&mut samples, (path, leaf, 0), location_id, value);
                }
            }
        }

        let mut function: Vec<Function> = (0..program.functions.len())
            .map(|index| {
                let id = FunctionId(index as u32);
                let name = strings.get(program.function_name(id));
                Function {
                    id: index as u64 + 1,
                    name,
                    system_name: name,
                    filename: strings.get(&self.absolute_path_of(id)),
                    start_line: i64::from(program.line_of(id, 0).unwrap_or(0)),
                }
            })
            .collect();
        // The function that stands for the frames a deep path leaves out.
        let elided_id = function.len() as u64 + 1;
        let elided_name = strings.get(ELIDED_FRAME);
        function.push(Function {
            id: elided_id,
            name: elided_name,
            system_name: elided_name,
            filename: 0,
            start_line: 0,
        });
        // The function of the leaf frame that holds blocked time, only in
        // a profile that shows it.
        let blocked_id = function.len() as u64 + 1;
        if self.idle() {
            let blocked_name = strings.get(BLOCKED_FRAME);
            function.push(Function {
                id: blocked_id,
                name: blocked_name,
                system_name: blocked_name,
                filename: 0,
                start_line: 0,
            });
        }
        let location = locations
            .into_iter()
            .map(|((function, line), id)| Location {
                id,
                mapping_id: 1,
                line: vec![Line {
                    function_id: if function == ELIDED {
                        elided_id
                    } else if function == BLOCKED {
                        blocked_id
                    } else {
                        function.index() as u64 + 1
                    },
                    line: i64::from(line),
                }],
            })
            .collect();
        let mapping = vec![Mapping {
            id: 1,
            filename: strings.get(&self.title()),
            has_functions: true,
            has_filenames: true,
            has_line_numbers: true,
        }];
        let comment = vec![strings.get(&format!(
            "cove profile {}: instructions, words and allocations are exact; nanoseconds include a floor of ~{:.1} ns an instruction ({} clock)",
            self.title(),
            self.floor.nanos,
            self.clock
        ))];
        let period_type = Some(sample_type[0].clone());
        let default_sample_type = sample_type[0].r#type;
        Profile {
            sample_type,
            sample: samples,
            mapping,
            location,
            function,
            time_nanos: self
                .subject
                .as_ref()
                .map_or(0, |s| (s.started as i64).saturating_mul(1_000_000_000)),
            duration_nanos: self.total.nanos as i64,
            period_type,
            period: 1,
            comment,
            default_sample_type,
            string_table: strings.table,
        }
    }

    /// The profile as pprof reads it: a gzipped `profile.proto`
    /// (`go tool pprof -top prof.pb.gz`).
    pub fn pprof(&self) -> Vec<u8> {
        let bytes = self.pprof_profile().encode_to_vec();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        // Writing to a Vec cannot fail.
        let _ = gz.write_all(&bytes);
        gz.finish().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::share;

    #[test]
    fn sharing_out_gives_exactly_what_is_needed_and_never_more_than_a_slot_has() {
        let mut pool = vec![5, 0, 3, 2];
        let first = share(7, &mut pool);
        assert_eq!(first.iter().sum::<u64>(), 7);
        let second = share(3, &mut pool);
        assert_eq!(second.iter().sum::<u64>(), 3);
        assert_eq!(
            pool,
            vec![0, 0, 0, 0],
            "two paths took the whole of each line"
        );
        for slot in 0..4 {
            assert_eq!(first[slot] + second[slot], [5, 0, 3, 2][slot]);
        }
    }
}
