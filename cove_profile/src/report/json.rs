//! The JSON form of a profile: for tools, for keeping, and for
//! [`crate::diff`].
//!
//! The schema is [`Profile`] and the types it holds; `version` is
//! [`SCHEMA_VERSION`] and changes whenever a field changes meaning or
//! goes away (adding a field does not change it). Every grouping is in
//! identity order (functions by id, instructions by function and pc,
//! opcodes by the instruction table, lines by path and line), not by cost,
//! so two profiles of one program line up row for row and a text diff of
//! two files is readable too.
//!
//! Names, not ids, are what rows are keyed by (`m.fib`, `add.int`,
//! `m.cove:12`): ids shift when a program is edited and names mostly do not,
//! and a diff of two versions of a program is the point.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{By, Report, Subject};
use crate::cost::Cost;
use crate::profiler::Floor;

/// The version of the schema this crate writes and reads.
pub const SCHEMA_VERSION: u32 = 1;

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
    /// profile timed by a clock the embedder gave, such as a test's.
    pub clock: String,
    /// The per-instruction floor measured when the profile began.
    pub floor: Floor,
    /// The relative uncertainty of the profile's estimated time (0.08 is
    /// ±8%), when the way it was timed states one. Absent means the
    /// reader assumes its own default ([`crate::diff::DEFAULT_UNCERTAINTY`]
    /// for [`crate::diff`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncertainty: Option<f64>,
    /// Whether spawned tasks were followed.
    pub follows_tasks: bool,
    /// What the whole profile cost.
    pub total: Cost,
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
    /// Each path of calls, with its self cost: the flame graph's input.
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
    pub total: Cost,
}

/// One function of a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionEntry {
    /// `module.function`.
    pub name: String,
    /// Frames of it pushed.
    pub calls: u64,
    /// Its own instructions.
    #[serde(rename = "self")]
    pub own: Cost,
    /// Its own and everything they called, each instruction once.
    pub inclusive: Cost,
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
    pub inclusive: Cost,
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
    pub cost: Cost,
}

/// One row of a grouping: an opcode, a callee, a line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// What the row is.
    pub name: String,
    /// More about it (a line's text, a callee's kind), or empty.
    pub detail: String,
    /// What it cost.
    pub cost: Cost,
}

/// One path of calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StackEntry {
    /// The task it ran on.
    pub task: u32,
    /// Function names, outermost first.
    pub stack: Vec<String>,
    /// What ran in the innermost function on this path.
    pub cost: Cost,
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
    /// Reads a profile written by [`Report::json`].
    pub fn from_json(text: &str) -> Result<Profile, ProfileError> {
        let profile: Profile = serde_json::from_str(text).map_err(|e| ProfileError::Malformed {
            message: e.to_string(),
            line: e.line(),
            column: e.column(),
        })?;
        if profile.format != FORMAT || profile.version != SCHEMA_VERSION {
            return Err(ProfileError::Unsupported {
                format: profile.format,
                version: profile.version,
            });
        }
        Ok(profile)
    }

    /// This profile as pretty-printed JSON, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

impl Report<'_> {
    /// The profile as a [`Profile`] value.
    pub fn profile(&self) -> Profile {
        let program = self.program;
        let groups = |by: By| -> Vec<Group> {
            self.rows(by)
                .into_iter()
                .map(|row| Group {
                    name: row.label,
                    detail: row.place,
                    cost: row.cost,
                })
                .collect()
        };
        Profile {
            format: FORMAT.to_string(),
            version: SCHEMA_VERSION,
            program: self.subject.clone(),
            clock: self.clock.to_string(),
            floor: self.floor,
            uncertainty: None,
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
                })
                .collect(),
            functions: self
                .functions
                .iter()
                .map(|row| FunctionEntry {
                    name: program.function_name(row.function).to_string(),
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
                .tasks
                .iter()
                .flat_map(|task| {
                    task.tree
                        .nodes
                        .iter()
                        .enumerate()
                        .skip(1)
                        .map(move |(id, node)| StackEntry {
                            task: task.task,
                            stack: task
                                .tree
                                .path(id as u32)
                                .into_iter()
                                .map(|f| program.function_name(f).to_string())
                                .collect(),
                            cost: node.cost,
                        })
                })
                .collect(),
        }
    }

    /// The profile as pretty-printed JSON (see [`Profile`] for the schema).
    pub fn json(&self) -> String {
        self.profile().to_json()
    }
}
