//! The Debug Adapter Protocol's messages, as far as `cove debug --dap`
//! speaks it: serde types of our own, named as the specification names
//! them (<https://microsoft.github.io/debug-adapter-protocol/specification>),
//! and the `Content-Length` framing.
//!
//! # Why our own types
//!
//! The protocol is JSON with camelCase fields; the dozen requests and
//! events served here fit in this file, checked against the specification
//! beside them and by a real client in the tests
//! (`cove_cli/tests/dap/`). A crate of generated types for the whole
//! protocol would be most of this module's size again in dependencies, for
//! messages we never send.
//!
//! # What it costs
//!
//! One JSON parse a request and one serialisation a response or event, at
//! an editor's pace.

use std::io::{self, BufRead, Write};

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// Reads one message: `Content-Length: N` headers, a blank line, N bytes
/// of JSON. `None` at the end of the stream.
pub fn read_message(input: &mut impl BufRead) -> io::Result<Option<Json>> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let length = length.unwrap_or(0);
    // A client that claims a huge body is refused rather than believed.
    if length > 64 << 20 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "a DAP message longer than 64 MiB",
        ));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Writes one message with its header.
pub fn write_message(output: &mut dyn Write, message: &Json) -> io::Result<()> {
    let body = serde_json::to_vec(message).map_err(io::Error::other)?;
    write!(output, "Content-Length: {}\r\n\r\n", body.len())?;
    output.write_all(&body)?;
    output.flush()
}

/// A request from the client.
#[derive(Debug, Clone, Deserialize)]
pub struct Request {
    /// Its sequence number, which the response quotes.
    pub seq: i64,
    /// Which request.
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Json,
}

/// `launch`'s arguments.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchArguments {
    /// The program's .cove file.
    pub program: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Stop before the first instruction.
    #[serde(default)]
    pub stop_on_entry: bool,
    /// What a relative `program` is relative to.
    pub cwd: Option<String>,
    /// Launch without debugging: run to the end, ignoring breakpoints.
    #[serde(default)]
    pub no_debug: bool,
}

/// A `Source`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// Its file name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// One `SourceBreakpoint` of `setBreakpoints`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceBreakpoint {
    /// Its line.
    pub line: u32,
    /// Stop only when this holds.
    pub condition: Option<String>,
    /// Stop only on these hits.
    pub hit_condition: Option<String>,
}

/// `setBreakpoints`'s arguments.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetBreakpointsArguments {
    /// The file.
    pub source: Source,
    /// Its breakpoints, replacing any it had.
    #[serde(default)]
    pub breakpoints: Vec<SourceBreakpoint>,
    /// The older form: lines only.
    #[serde(default)]
    pub lines: Vec<u32>,
}

/// One `FunctionBreakpoint`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionBreakpoint {
    /// The function's name.
    pub name: String,
    /// Stop only when this holds.
    pub condition: Option<String>,
    /// Stop only on these hits.
    pub hit_condition: Option<String>,
}

/// `setFunctionBreakpoints`'s arguments.
#[derive(Debug, Clone, Deserialize)]
pub struct SetFunctionBreakpointsArguments {
    /// Every function breakpoint, replacing the ones before.
    #[serde(default)]
    pub breakpoints: Vec<FunctionBreakpoint>,
}

/// `setExceptionBreakpoints`'s arguments.
#[derive(Debug, Clone, Deserialize)]
pub struct SetExceptionBreakpointsArguments {
    /// The filters turned on.
    #[serde(default)]
    pub filters: Vec<String>,
}

/// A `Breakpoint` in a response.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakpoint {
    /// Its id, for `stopped`'s `hitBreakpointIds`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<u32>,
    /// Whether it could be set.
    pub verified: bool,
    /// Why not, or where it moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Its file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// The line it is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// Arguments naming a thread (`continue`, `next`, `stepIn`, `stepOut`,
/// `pause`, `stackTrace`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadArguments {
    /// The thread.
    #[serde(default)]
    pub thread_id: i64,
    /// `instruction` to step one instruction.
    pub granularity: Option<String>,
    /// `stackTrace`: the first frame wanted.
    pub start_frame: Option<usize>,
    /// `stackTrace`: how many frames (0 for all).
    pub levels: Option<usize>,
}

/// A `Thread`.
#[derive(Debug, Clone, Serialize)]
pub struct Thread {
    /// Its id: the task's number plus one.
    pub id: i64,
    /// `main`, `task 1`, ...
    pub name: String,
}

/// A `StackFrame`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StackFrame {
    /// Its id, for `scopes` and `evaluate`.
    pub id: i64,
    /// The function.
    pub name: String,
    /// Its file.
    pub source: Source,
    /// Its line.
    pub line: u32,
    /// Its column; Cove records lines only, so 1.
    pub column: u32,
    /// Where it is, for `disassemble`.
    pub instruction_pointer_reference: String,
}

/// A `Scope`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scope {
    /// `Locals`.
    pub name: String,
    /// What `variables` lists it by.
    pub variables_reference: i64,
    /// Whether listing it is costly.
    pub expensive: bool,
    /// `locals`.
    pub presentation_hint: String,
}

/// A `Variable`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    /// Its name.
    pub name: String,
    /// Its value, on one line.
    pub value: String,
    /// Its Cove type.
    #[serde(rename = "type")]
    pub ty: String,
    /// Non-zero when it has parts to expand.
    pub variables_reference: i64,
    /// How many parts, for a list or a map.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexed_variables: Option<usize>,
}

/// `evaluate`'s arguments.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateArguments {
    /// The expression.
    pub expression: String,
    /// The frame it is evaluated in.
    pub frame_id: Option<i64>,
}

/// `disassemble`'s arguments.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DisassembleArguments {
    /// Where: a frame's `instructionPointerReference`.
    pub memory_reference: String,
    /// Instructions from there, may be negative.
    #[serde(default)]
    pub instruction_offset: i64,
    /// How many.
    pub instruction_count: i64,
}

/// A `DisassembledInstruction`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisassembledInstruction {
    /// Its reference.
    pub address: String,
    /// Its text, as `cove disasm` prints it.
    pub instruction: String,
    /// Its source line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Its file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Source>,
}

/// The `initialize` response's capabilities.
pub fn capabilities() -> Json {
    serde_json::json!({
        "supportsConfigurationDoneRequest": true,
        "supportsFunctionBreakpoints": true,
        "supportsConditionalBreakpoints": true,
        "supportsHitConditionalBreakpoints": true,
        "supportsEvaluateForHovers": true,
        "supportsDisassembleRequest": true,
        "supportsSteppingGranularity": true,
        "supportsTerminateRequest": true,
        "supportsRestartRequest": false,
        "exceptionBreakpointFilters": [{
            "filter": "errors",
            "label": "Runtime errors",
            "description": "Stop at a runtime error (division by zero, an index out of range, ...) before the run ends",
            "default": true
        }]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_written_is_read_back_whole() {
        let mut wire = Vec::new();
        let message = serde_json::json!({"type": "request", "seq": 1, "command": "threads"});
        write_message(&mut wire, &message).unwrap();
        write_message(&mut wire, &message).unwrap();
        assert!(wire.starts_with(b"Content-Length: "), "{wire:?}");
        let mut input = io::Cursor::new(wire);
        assert_eq!(read_message(&mut input).unwrap(), Some(message.clone()));
        assert_eq!(read_message(&mut input).unwrap(), Some(message));
        assert_eq!(read_message(&mut input).unwrap(), None);
    }

    #[test]
    fn a_body_that_is_not_json_or_is_cut_short_is_an_error_not_a_panic() {
        let mut bad = io::Cursor::new(b"Content-Length: 5\r\n\r\nhello".to_vec());
        assert!(read_message(&mut bad).is_err());
        let mut short = io::Cursor::new(b"Content-Length: 50\r\n\r\n{}".to_vec());
        assert!(read_message(&mut short).is_err());
        let mut huge = io::Cursor::new(b"Content-Length: 999999999999\r\n\r\n".to_vec());
        assert!(read_message(&mut huge).is_err());
    }
}
