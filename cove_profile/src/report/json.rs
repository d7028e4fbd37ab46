//! The JSON form of a profile: for tools, for keeping, and for
//! [`crate::diff`].
//!
//! The schema is [`Profile`] and the types it holds, and as a JSON Schema
//! (draft 2020-12) the file `cove_profile/schema/profile.schema.json`
//! ([`JSON_SCHEMA`]), which a test validates every emitted profile
//! against; `version` is [`SCHEMA_VERSION`] and changes whenever a field
//! changes meaning or goes away (adding a field does not change it).
//! Source locations are fields (`file`, `line`) on functions, instructions
//! and lines, the file being the module's path as the program names it. Every grouping is in
//! identity order (functions by id, instructions by function and pc,
//! opcodes by the instruction table, lines by path and line), not by cost,
//! so two profiles of one program line up row for row and a text diff of
//! two files is readable too.
//!
//! Names, not ids, are what rows are keyed by (`m.fib`, `add.int`,
//! `m.cove:12`): ids shift when a program is edited and names mostly do not,
//! and a diff of two versions of a program is the point. The one place
//! numbers name things is `stacks`, the calling-context tree of each
//! task, whose node numbers are the profile's own: a node names its
//! parent rather than repeating its whole path, which keeps the file
//! linear in the number of contexts, not the terabytes whole paths would
//! take. And a chain of nodes that each call the next and cost the same —
//! the levels of a recursion — is written once, with how many nodes it
//! stands for (`repeat`): a runaway recursion 100,000 frames deep, one
//! node a level, wrote 23 MB before; its levels differ only where a
//! sample landed, so it now writes one entry a sample or so. A chain that
//! repeats a cycle of a few nodes (`a`, `b`, `c`, `a`, ...: a mutual
//! recursion) is written once too, the cycle's nodes after the first in
//! its `cycle`.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{By, Report, Subject};
use crate::cost::Charge;
use crate::profiler::Floor;

/// The JSON Schema of the profiles this crate writes.
pub const JSON_SCHEMA: &str = include_str!("../../schema/profile.schema.json");

/// The version of the schema this crate writes.
///
/// Version 2 writes `stacks` as the calling-context tree, one node a
/// context naming its parent (version 1 wrote every node's whole path,
/// which made a recursion n deep n²/2 names long). Version 3 writes a
/// chain of alike nodes as one entry with a `repeat` (see
/// [`StackEntry`]); a reader of version 2 would take such an entry for
/// one node, so the version changed. Version 4 writes a chain whose nodes
/// repeat a cycle of several functions (a mutual recursion's levels) as
/// one entry too, the cycle's other nodes in its `cycle`; a reader of
/// version 3 would take such an entry for a chain of one function.
/// [`Profile::from_json`] reads versions 1 to 3 too, rebuilding the tree
/// from version 1's paths.
pub const SCHEMA_VERSION: u32 = 4;

/// What `format` says in every profile this crate writes.
const FORMAT: &str = "cove-profile";

/// A whole profile, as JSON holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Always `"cove-profile"`.
    pub format: String,
    /// [`SCHEMA_VERSION`] when written.
    pub version: u32,
    /// The program profiled: entry path, arguments, IR hash, version and
    /// start time. Absent from profiles made without one (an embedder's
    /// `Report::new` alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<Subject>,
    /// `"real"`, `"counter"` (the time-stamp counter), or `"injected"` for a
    /// profile timed by a clock the embedder gave, such as a test's, at
    /// every instruction; `"sampled"` for time taken by the sampler;
    /// `"none"` for a profile of counts and heap figures alone.
    pub clock: String,
    /// The per-instruction floor measured when the profile began.
    pub floor: Floor,
    /// The relative uncertainty of the profile's estimated time (0.08 is
    /// ±8%), when the way it was timed states one. Absent means the
    /// reader assumes its own default ([`crate::diff::DEFAULT_UNCERTAINTY`]
    /// for [`crate::diff`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncertainty: Option<f64>,
    /// For a sampled profile, what its time rests on: samples, the time
    /// they charged and the profiler's own estimated share of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<crate::profiler::Estimate>,
    /// Whether spawned tasks were followed.
    pub follows_tasks: bool,
    /// What the whole profile cost.
    pub total: Charge,
    /// Each task that recorded anything.
    pub tasks: Vec<TaskEntry>,
    /// Each function that ran: self and inclusive cost.
    pub functions: Vec<FunctionEntry>,
    /// Each caller → callee pair.
    pub calls: Vec<CallEntry>,
    /// Each instruction that ran.
    pub instructions: Vec<InstructionEntry>,
    /// Each opcode that ran (`name` is the mnemonic).
    pub opcodes: Vec<Group>,
    /// Each callee a `call`, `call-builtin` or `spawn` named (`detail` says
    /// which of the three); the cost is the calling instructions'.
    pub callees: Vec<Group>,
    /// Each source line (`name` is `path:line`, `detail` its text).
    pub lines: Vec<Group>,
    /// Each calling context — one function reached by one path of calls —
    /// with its self cost: the flame graph's input. A tree per task, each
    /// node naming its parent, callers before callees (see
    /// [`Profile::stack_of`] for a node's whole path). Held one node an
    /// entry; written with a chain of alike nodes as one entry, whose
    /// `repeat` says how many nodes it stands for (the schema has it).
    #[serde(with = "chains")]
    pub stacks: Vec<StackEntry>,
}

/// One task of a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskEntry {
    /// 0 for the task the profiler was installed on; spawned tasks from 1.
    pub task: u32,
    /// The function (usually one) the task's calls start from.
    pub roots: Vec<String>,
    /// What the task cost.
    pub total: Charge,
    /// How many of its instructions waited — parked in a `join` or a
    /// `recv` — for the `total.blocked` nanoseconds it spent blocked.
    /// Absent where 0, and read as 0 from a profile that has none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub waits: u64,
}

/// Whether a count is 0: the counts JSON leaves out then.
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One function of a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionEntry {
    /// `module.function`.
    pub name: String,
    /// The path of its module's source file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The line of its first instruction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Frames of it pushed.
    pub calls: u64,
    /// Its own instructions.
    #[serde(rename = "self")]
    pub own: Charge,
    /// Its own and everything they called, each instruction once.
    pub inclusive: Charge,
}

/// One caller → callee pair of a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallEntry {
    /// `module.function` of the caller.
    pub caller: String,
    /// `module.function` of the callee.
    pub callee: String,
    /// How many calls.
    pub calls: u64,
    /// What the calls cost, callee and all it called, each instruction once
    /// even where the pair recurs on a path (so never more than the run).
    pub inclusive: Charge,
}

/// One instruction of a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstructionEntry {
    /// `module.function`.
    pub function: String,
    /// Its program counter.
    pub pc: u32,
    /// Its source line, if the program has one for it.
    pub line: Option<u32>,
    /// The printed instruction, `m.main@7  add.int r2, r2, r1`.
    pub text: String,
    /// What it cost.
    pub cost: Charge,
}

/// One row of a grouping: an opcode, a callee, a line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// What the row is.
    pub name: String,
    /// More about it (a line's text, a callee's kind), or empty.
    pub detail: String,
    /// For a line: its source file's path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// For a line: its number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// What it cost.
    pub cost: Charge,
}

/// One calling context: a node of a task's calling-context tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StackEntry {
    /// The task it ran on.
    pub task: u32,
    /// Its number within the task's tree, from 1; a node's number is
    /// always greater than its parent's.
    pub id: u32,
    /// The node that called it, or 0 for a function the task started from.
    pub parent: u32,
    /// `module.function`.
    pub function: String,
    /// How many frames of it this path pushed.
    pub calls: u64,
    /// What ran in the function itself on this path.
    pub cost: Charge,
}

/// One path of calls as schema version 1 wrote it: read, never written.
#[derive(Debug, Clone, Deserialize)]
struct StackEntryV1 {
    task: u32,
    stack: Vec<String>,
    cost: Charge,
}

/// The two fields every version has, read first to choose a reader.
#[derive(Debug, Deserialize)]
struct Header {
    format: String,
    version: u32,
}

/// Why a text is not a profile this crate reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileError {
    /// Not JSON, or not this schema: the parser's message, with line and
    /// column.
    Malformed {
        /// What the parser said.
        message: String,
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
    },
    /// A profile of another format or schema version.
    Unsupported {
        /// The `format` it says.
        format: String,
        /// The `version` it says.
        version: u32,
    },
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileError::Malformed {
                message,
                line,
                column,
            } => {
                write!(f, "{line}:{column}: not a cove profile: {message}")
            }
            ProfileError::Unsupported { format, version } => write!(
                f,
                "a `{format}` profile of version {version}; this reads `{FORMAT}` version {SCHEMA_VERSION}"
            ),
        }
    }
}

impl std::error::Error for ProfileError {}

impl Profile {
    /// Reads a profile written by [`Report::json`], of this schema version
    /// or of versions 1 and 2 (version 1's whole-path `stacks` are rebuilt
    /// into the tree this version holds; the profile read says this
    /// version).
    pub fn from_json(text: &str) -> Result<Profile, ProfileError> {
        let malformed = |e: serde_json::Error| ProfileError::Malformed {
            message: e.to_string(),
            line: e.line().max(1),
            column: e.column().max(1),
        };
        let header: Header = serde_json::from_str(text).map_err(malformed)?;
        if header.format != FORMAT || !(1..=SCHEMA_VERSION).contains(&header.version) {
            return Err(ProfileError::Unsupported {
                format: header.format,
                version: header.version,
            });
        }
        if header.version >= 2 {
            // Version 2 is version 4 without chains, and version 3 without
            // cycles: every entry of version 2 one node, every chain of
            // version 3 one function.
            let mut profile: Profile = serde_json::from_str(text).map_err(malformed)?;
            profile.version = SCHEMA_VERSION;
            return Ok(profile);
        }
        // Version 1: the same fields but `stacks`, which held whole paths.
        let mut value: serde_json::Value = serde_json::from_str(text).map_err(malformed)?;
        let old: Vec<StackEntryV1> = match value.get_mut("stacks").map(serde_json::Value::take) {
            Some(stacks) => serde_json::from_value(stacks).map_err(malformed)?,
            None => Vec::new(),
        };
        value["stacks"] = serde_json::Value::Array(Vec::new());
        value["version"] = serde_json::Value::from(SCHEMA_VERSION);
        let mut profile: Profile = serde_json::from_value(value).map_err(malformed)?;
        profile.stacks = tree_of_paths(old);
        Ok(profile)
    }

    /// The whole path of calls to the node `id` of `task`'s tree, outermost
    /// first, or nothing for a node the profile does not have. Costs the
    /// path's length (and, once, an index of the nodes): for reading a few
    /// paths, not for writing every one out.
    pub fn stack_of(&self, task: u32, id: u32) -> Vec<&str> {
        let nodes: std::collections::HashMap<u32, &StackEntry> = self
            .stacks
            .iter()
            .filter(|s| s.task == task)
            .map(|s| (s.id, s))
            .collect();
        let mut path = Vec::new();
        let mut at = id;
        while let Some(node) = nodes.get(&at) {
            path.push(node.function.as_str());
            if node.parent >= at {
                break;
            }
            at = node.parent;
        }
        path.reverse();
        path
    }

    /// This profile as pretty-printed JSON, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// How `stacks` is written and read: a run of nodes, each the parent of
/// the next, numbered one after another, of one task, in which every node
/// has the function, calls and cost of the node a *period* before it, is
/// one entry whose `repeat` says how many nodes it stands for (absent for
/// one) and whose `cycle` gives the function, calls and cost of the
/// period's nodes after the first (absent for a period of one: the
/// levels of a recursion of one function). Node `i` of the run is then
/// the period's node `i % period`. Read back, each entry is its nodes
/// again, so a profile reads back to itself.
///
/// Why periods: a runaway recursion of one function is a run of period
/// one, but one of several (`a` calls `b`, which calls `c`, which calls
/// `a` again) alternates its functions, and with a period of one only it
/// wrote a node an entry, 23 MB for 100,000 frames. A period is looked
/// for up to [`MAX_PERIOD`] nodes long, and taken only for a run of at
/// least two whole periods, so every ordinary path is written a node an
/// entry, as version 2 wrote it.
mod chains {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::StackEntry;
    use crate::cost::Charge;

    /// How many nodes the chains of one file may add beyond their own
    /// entries: a few bytes of `repeat` must not make gigabytes of nodes.
    /// Ten times the default call depth, so a runaway recursion's profile
    /// always reads; a file past it is refused, by name.
    pub(super) const MAX_REPEATED: u64 = 1 << 20;

    /// The longest period a run is looked for with: a cycle of mutually
    /// recursive functions longer than this is written a node an entry.
    /// Each node is compared with the one this many before it at most, so
    /// writing stays linear in the nodes.
    pub(super) const MAX_PERIOD: usize = 8;

    /// An entry as the file holds it.
    #[derive(Serialize, Deserialize)]
    struct Chain {
        task: u32,
        id: u32,
        parent: u32,
        function: String,
        calls: u64,
        cost: Charge,
        #[serde(default = "one", skip_serializing_if = "is_one")]
        repeat: u32,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        cycle: Vec<Link>,
    }

    /// A node of a period after its first: what it has of its own.
    #[derive(Serialize, Deserialize)]
    struct Link {
        function: String,
        calls: u64,
        cost: Charge,
    }

    fn one() -> u32 {
        1
    }

    fn is_one(n: &u32) -> bool {
        *n == 1
    }

    /// Whether `next` is the node `last` calls, numbered just after it.
    fn called_by(last: &StackEntry, next: &StackEntry) -> bool {
        next.task == last.task && next.parent == last.id && Some(next.id) == last.id.checked_add(1)
    }

    /// Whether two nodes have the same function, calls and cost.
    fn alike(a: &StackEntry, b: &StackEntry) -> bool {
        a.function == b.function && a.calls == b.calls && a.cost == b.cost
    }

    /// The end of the run of period `period` that starts at `start`: one
    /// past its last node.
    fn run_end(stacks: &[StackEntry], start: usize, period: usize) -> usize {
        let mut end = start + 1;
        while end < stacks.len()
            && called_by(&stacks[end - 1], &stacks[end])
            && (end < start + period || alike(&stacks[end - period], &stacks[end]))
        {
            end += 1;
        }
        end
    }

    pub(super) fn serialize<S: Serializer>(
        stacks: &[StackEntry],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut chains: Vec<Chain> = Vec::new();
        let mut i = 0;
        while i < stacks.len() {
            // The period that covers the most nodes, the shortest of
            // those; a longer one counts only where it repeats whole.
            let mut best = (1, run_end(stacks, i, 1));
            for period in 2..=MAX_PERIOD {
                let end = run_end(stacks, i, period);
                if end - i >= 2 * period && end > best.1 {
                    best = (period, end);
                }
            }
            let (period, end) = best;
            let first = &stacks[i];
            chains.push(Chain {
                task: first.task,
                id: first.id,
                parent: first.parent,
                function: first.function.clone(),
                calls: first.calls,
                cost: first.cost,
                repeat: (end - i) as u32,
                cycle: stacks[i + 1..i + period]
                    .iter()
                    .map(|node| Link {
                        function: node.function.clone(),
                        calls: node.calls,
                        cost: node.cost,
                    })
                    .collect(),
            });
            i = end;
        }
        chains.serialize(serializer)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<StackEntry>, D::Error> {
        use serde::de::Error;
        let chains = Vec::<Chain>::deserialize(deserializer)?;
        let repeated: u64 = chains
            .iter()
            .map(|c| u64::from(c.repeat.saturating_sub(1)))
            .sum();
        if repeated > MAX_REPEATED {
            return Err(D::Error::custom(format!(
                "its stack chains repeat {repeated} nodes, more than the {MAX_REPEATED} a profile \
                 may"
            )));
        }
        let mut stacks = Vec::with_capacity(chains.len() + repeated as usize);
        for chain in chains {
            // A chain's last node must be numbered within u32, and a
            // chain of none is not a chain.
            let last = chain
                .id
                .checked_add(chain.repeat.saturating_sub(1))
                .filter(|_| chain.repeat >= 1)
                .ok_or_else(|| {
                    D::Error::custom(format!(
                        "stack node {} repeats {} times, past the last node number",
                        chain.id, chain.repeat
                    ))
                })?;
            let period = 1 + chain.cycle.len();
            let mut parent = chain.parent;
            for (i, id) in (chain.id..=last).enumerate() {
                let (function, calls, cost) = match i % period {
                    0 => (&chain.function, chain.calls, chain.cost),
                    k => {
                        let link = &chain.cycle[k - 1];
                        (&link.function, link.calls, link.cost)
                    }
                };
                stacks.push(StackEntry {
                    task: chain.task,
                    id,
                    parent,
                    function: function.clone(),
                    calls,
                    cost,
                });
                parent = id;
            }
        }
        Ok(stacks)
    }
}

/// Version 1's whole paths as the tree version 2 holds: each path's
/// prefixes are looked up (or made) one frame at a time. Version 1 had no
/// call counts, so every `calls` is 0.
fn tree_of_paths(paths: Vec<StackEntryV1>) -> Vec<StackEntry> {
    // (task, parent, function) -> (id, index in `nodes`)
    let mut ids: std::collections::HashMap<(u32, u32, String), (u32, usize)> =
        std::collections::HashMap::new();
    let mut next: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    let mut nodes: Vec<StackEntry> = Vec::new();
    for path in paths {
        let mut parent = 0;
        let mut at = None;
        for function in path.stack {
            let key = (path.task, parent, function);
            let (id, index) = match ids.get(&key) {
                Some(found) => *found,
                None => {
                    let counter = next.entry(path.task).or_insert(0);
                    *counter += 1;
                    let id = *counter;
                    nodes.push(StackEntry {
                        task: path.task,
                        id,
                        parent,
                        function: key.2.clone(),
                        calls: 0,
                        cost: Charge::default(),
                    });
                    ids.insert(key, (id, nodes.len() - 1));
                    (id, nodes.len() - 1)
                }
            };
            parent = id;
            at = Some(index);
        }
        if let Some(at) = at {
            nodes[at].cost.add(&path.cost);
        }
    }
    nodes
}

impl Report<'_> {
    /// The profile as a [`Profile`] value.
    pub fn profile(&self) -> Profile {
        let program = self.program;
        let groups = |by: By| -> Vec<Group> {
            self.rows(by)
                .into_iter()
                .map(|row| {
                    // A line's label is `path:line`; the fields say the same
                    // apart, so a reader need not split it.
                    let (file, line) = match by {
                        By::Line => match row.label.rsplit_once(':') {
                            Some((file, line)) => (Some(file.to_string()), line.parse().ok()),
                            None => (None, None),
                        },
                        _ => (None, None),
                    };
                    Group {
                        name: row.label,
                        detail: row.place,
                        file,
                        line,
                        cost: row.cost,
                    }
                })
                .collect()
        };
        Profile {
            format: FORMAT.to_string(),
            version: SCHEMA_VERSION,
            program: self.subject.clone(),
            clock: self.clock.to_string(),
            floor: self.floor,
            uncertainty: self.estimate.map(|e| e.uncertainty),
            estimate: self.estimate,
            follows_tasks: self.follows_tasks,
            total: self.total,
            tasks: self
                .tasks
                .iter()
                .map(|task| TaskEntry {
                    task: task.task,
                    roots: task.tree.nodes[0]
                        .children
                        .iter()
                        .map(|(f, _)| program.function_name(*f).to_string())
                        .collect(),
                    total: task.total,
                    waits: task.waits,
                })
                .collect(),
            functions: self
                .functions
                .iter()
                .map(|row| FunctionEntry {
                    name: program.function_name(row.function).to_string(),
                    file: Some(self.path_of(row.function).to_string()),
                    line: program.line_of(row.function, 0),
                    calls: row.calls,
                    own: row.own,
                    inclusive: row.inclusive,
                })
                .collect(),
            calls: self
                .edges
                .iter()
                .map(|row| CallEntry {
                    caller: program.function_name(row.caller).to_string(),
                    callee: program.function_name(row.callee).to_string(),
                    calls: row.calls,
                    inclusive: row.inclusive,
                })
                .collect(),
            instructions: self
                .instructions
                .iter()
                .map(|row| InstructionEntry {
                    function: program.function_name(row.function).to_string(),
                    pc: row.pc,
                    line: row.line,
                    text: self.instruction_text(row.function, row.pc),
                    cost: row.cost,
                })
                .collect(),
            opcodes: groups(By::Opcode),
            callees: groups(By::Callee),
            lines: groups(By::Line),
            stacks: self
                .contexts()
                .map(|c| StackEntry {
                    task: c.task,
                    id: c.id,
                    parent: c.parent,
                    function: c.function.to_string(),
                    calls: c.calls,
                    cost: c.cost,
                })
                .collect(),
        }
    }

    /// The profile as pretty-printed JSON (see [`Profile`] for the schema).
    pub fn json(&self) -> String {
        self.profile().to_json()
    }
}
