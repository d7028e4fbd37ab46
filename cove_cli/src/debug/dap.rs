//! `cove debug --dap`: a Debug Adapter Protocol server, on stdio or, with
//! `--port N`, for one client on 127.0.0.1:N.
//!
//! VS Code, Neovim (nvim-dap), Emacs (dape) and Helix start it and speak
//! DAP to it; it drives the same [`Session`] as the terminal front end. The
//! requests served: `initialize`, `launch` (`program`, `args`,
//! `stopOnEntry`, `cwd`, `noDebug`), `setBreakpoints` (with conditions and
//! hit conditions), `setFunctionBreakpoints`, `setExceptionBreakpoints`
//! (the `errors` filter: stop at a runtime error), `configurationDone`,
//! `threads` (one a task), `stackTrace`, `scopes`, `variables`,
//! `evaluate`, `continue`, `next`, `stepIn`, `stepOut` (with `instruction`
//! granularity for `stepi`), `pause`, `disassemble`, `disconnect`,
//! `terminate`, and the custom `profile` (the run's exact profile so far,
//! as text); the events sent: `initialized`, `stopped`, `output`, `exited`,
//! `terminated`.
//!
//! # Shape
//!
//! One thread reads requests and hands them to the server's loop; the
//! session's events (a stop, the end of a run) arrive on the same queue,
//! so the loop handles one thing at a time and needs no locks of its own.
//! The program's output becomes `output` events (stdout is the protocol's
//! on stdio). `initialized` is sent once `launch` has compiled the program,
//! so every `setBreakpoints` that follows can be resolved at once and
//! answered `verified` or not with the reason.
//!
//! # What it costs
//!
//! Variables are answered from the stop's snapshot: a `variablesReference`
//! is an index into a table of the values handed out since the stop, which
//! is cleared when the task resumes, as the protocol allows.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, Sender};

use cove_debug::expr::Expr;
use cove_debug::render;
use cove_debug::{Event, HitCondition, Mode, NewBreakpoint, Reason, Session, Snapshot};
use cove_ir::program::{FunctionId, Program};
use cove_ir::types::TypeId;
use cove_runtime::{ErrorKind, Limits, Value};
use parking_lot::Mutex;
use serde_json::{Value as Json, json};

use super::protocol::{self, Request};
use super::view;
use crate::cli::DebugArgs;
use crate::status::Status;
use crate::style::Style;

/// The most parts of one value `variables` lists.
const MAX_CHILDREN: usize = 1000;

/// Serves DAP as `args` says: on stdio, or for one client on `--port`.
pub fn serve(args: &DebugArgs) -> Status {
    let limits = crate::run::limits(&args.limits);
    match args.port {
        None => {
            let input = BufReader::new(std::io::stdin());
            run(input, Box::new(std::io::stdout()), limits)
        }
        Some(port) => {
            let listener = match std::net::TcpListener::bind(("127.0.0.1", port)) {
                Ok(listener) => listener,
                Err(e) => {
                    crate::pipe::eprint(format_args!(
                        "{}: cannot listen on 127.0.0.1:{port}: {e}\n",
                        Style::stderr().error("error")
                    ));
                    return Status::IoError;
                }
            };
            crate::pipe::eprint(format_args!(
                "cove debug: serving DAP on 127.0.0.1:{port}\n"
            ));
            let stream = match listener.accept() {
                Ok((stream, _)) => stream,
                Err(e) => {
                    crate::pipe::eprint(format_args!("error: {e}\n"));
                    return Status::IoError;
                }
            };
            let reader = match stream.try_clone() {
                Ok(reader) => reader,
                Err(e) => {
                    crate::pipe::eprint(format_args!("error: {e}\n"));
                    return Status::IoError;
                }
            };
            run(BufReader::new(reader), Box::new(stream), limits)
        }
    }
}

/// What the server's loop takes, one at a time.
enum Input {
    Request(Request),
    Event(Event),
    /// The client went away, or sent something that is not DAP.
    Closed,
}

/// The client's end: every message goes through here, numbered.
#[derive(Clone)]
struct Client {
    inner: Arc<Mutex<(Box<dyn Write + Send>, i64)>>,
}

impl Client {
    fn send(&self, mut message: Json) {
        let mut inner = self.inner.lock();
        inner.1 += 1;
        message["seq"] = json!(inner.1);
        // A client that stopped reading ends the session at its next read.
        let _ = protocol::write_message(&mut inner.0, &message);
    }

    fn event(&self, event: &str, body: Json) {
        self.send(json!({"type": "event", "event": event, "body": body}));
    }
}

/// The program's output, as `output` events.
struct OutputEvents {
    client: Client,
    category: &'static str,
}

impl Write for OutputEvents {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !buf.is_empty() {
            self.client.event(
                "output",
                json!({"category": self.category, "output": String::from_utf8_lossy(buf)}),
            );
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What a `variablesReference` stands for.
enum Container {
    Locals(usize),
    Value(Value, Option<TypeId>),
}

struct Server {
    client: Client,
    inbox: Receiver<Input>,
    sender: Sender<Input>,
    limits: Limits,
    session: Option<Session>,
    launch: protocol::LaunchArguments,
    stopped: Option<Snapshot>,
    containers: Vec<Container>,
    line_breakpoints: BTreeMap<String, Vec<u32>>,
    function_breakpoints: Vec<u32>,
    break_on_fault: bool,
}

fn run(
    input: impl BufRead + Send + 'static,
    output: Box<dyn Write + Send>,
    limits: Limits,
) -> Status {
    let (sender, inbox) = mpsc::channel();
    let reader = sender.clone();
    std::thread::spawn(move || {
        let mut input = input;
        while let Ok(Some(message)) = protocol::read_message(&mut input) {
            // A message that is not a request (a response to a reverse
            // request we never make) is ignored.
            if message.get("type").and_then(Json::as_str) != Some("request") {
                continue;
            }
            if let Ok(request) = serde_json::from_value::<Request>(message)
                && reader.send(Input::Request(request)).is_err()
            {
                break;
            }
        }
        let _ = reader.send(Input::Closed);
    });
    let mut server = Server {
        client: Client {
            inner: Arc::new(Mutex::new((output, 0))),
        },
        inbox,
        sender,
        limits,
        session: None,
        launch: protocol::LaunchArguments::default(),
        stopped: None,
        containers: Vec::new(),
        line_breakpoints: BTreeMap::new(),
        function_breakpoints: Vec::new(),
        break_on_fault: true,
    };
    server.serve();
    Status::OK
}

fn args<T: serde::de::DeserializeOwned>(request: &Request) -> Result<T, String> {
    serde_json::from_value(request.arguments.clone())
        .map_err(|e| format!("bad arguments to {}: {e}", request.command))
}

impl Server {
    fn serve(&mut self) {
        while let Ok(input) = self.inbox.recv() {
            match input {
                Input::Request(request) => {
                    if !self.handle(&request) {
                        break;
                    }
                }
                Input::Event(event) => self.on_event(event),
                Input::Closed => break,
            }
        }
        if let Some(session) = &mut self.session {
            session.end();
        }
    }

    fn respond(&self, request: &Request, result: Result<Json, String>) {
        let mut message = json!({
            "type": "response",
            "request_seq": request.seq,
            "command": request.command,
        });
        match result {
            Ok(body) => {
                message["success"] = json!(true);
                message["body"] = body;
            }
            Err(why) => {
                message["success"] = json!(false);
                message["message"] = json!(why);
            }
        }
        self.client.send(message);
    }

    /// Handles one request; false ends the server.
    fn handle(&mut self, request: &Request) -> bool {
        let result = match request.command.as_str() {
            "initialize" => Ok(protocol::capabilities()),
            "launch" => self.launch(request),
            "setBreakpoints" => self.set_breakpoints(request),
            "setFunctionBreakpoints" => self.set_function_breakpoints(request),
            "setExceptionBreakpoints" => self.set_exception_breakpoints(request),
            "configurationDone" => self.configuration_done(),
            "threads" => Ok(self.threads()),
            "stackTrace" => self.stack_trace(request),
            "scopes" => self.scopes(request),
            "variables" => self.variables(request),
            "evaluate" => self.evaluate(request),
            "continue" => self.resume(request, Mode::Continue),
            "next" => self.resume(request, Mode::Next),
            "stepIn" => self.resume(request, Mode::Step),
            "stepOut" => self.resume(request, Mode::Finish),
            "pause" => self.pause(),
            "disassemble" => self.disassemble(request),
            "profile" => self.profile(),
            "terminate" => {
                if let Some(session) = &mut self.session {
                    session.end();
                }
                Ok(json!({}))
            }
            "disconnect" => {
                if let Some(session) = &mut self.session {
                    session.end();
                }
                self.respond(request, Ok(json!({})));
                return false;
            }
            other => Err(format!("cove debug does not support the `{other}` request")),
        };
        // `initialized` goes after the launch response, once the program
        // is there for breakpoints to be resolved in.
        let launched = request.command == "launch" && result.is_ok();
        self.respond(request, result);
        if launched {
            self.client.event("initialized", json!({}));
        }
        true
    }

    fn launch(&mut self, request: &Request) -> Result<Json, String> {
        let launch: protocol::LaunchArguments = args(request)?;
        let Some(program) = &launch.program else {
            return Err("launch needs `program`: the .cove file to debug".to_string());
        };
        let mut path = PathBuf::from(program);
        if path.is_relative()
            && let Some(cwd) = &launch.cwd
        {
            path = Path::new(cwd).join(path);
        }
        let program = cove_compiler::compile_files(&path).map_err(|d| {
            let text = d.render(false);
            self.client
                .event("output", json!({"category": "stderr", "output": text}));
            format!("{} does not compile", path.display())
        })?;
        let entry = crate::compile::entry_module(&program).to_string();
        if program.find_function(&entry, crate::run::MAIN).is_none() {
            return Err(format!("{} has no `main` to run", path.display()));
        }
        let program = Arc::new(program);
        let events = self.sender.clone();
        let out = self.client.clone();
        let err = self.client.clone();
        let session = Session::new(program, move |event| {
            let _ = events.send(Input::Event(event));
        })
        .with_args(launch.args.clone())
        .with_limits(self.limits.clone())
        .with_output(
            Box::new(move || {
                Box::new(OutputEvents {
                    client: out.clone(),
                    category: "stdout",
                })
            }),
            Box::new(move || {
                Box::new(OutputEvents {
                    client: err.clone(),
                    category: "stderr",
                })
            }),
        )
        .with_profile(Box::new(super::profiler));
        session.engine().set_break_on_fault(self.break_on_fault);
        self.session = Some(session);
        self.launch = launch;
        Ok(json!({}))
    }

    fn program(&self) -> Option<Arc<Program>> {
        self.session.as_ref().map(|s| Arc::clone(s.program()))
    }

    fn add(
        &self,
        spec: String,
        condition: Option<&str>,
        hit_condition: Option<&str>,
    ) -> Result<Arc<cove_debug::Breakpoint>, String> {
        let session = self
            .session
            .as_ref()
            .ok_or("the program is not launched yet")?;
        let condition = condition
            .filter(|c| !c.trim().is_empty())
            .map(Expr::parse)
            .transpose()
            .map_err(|e| format!("bad condition: {e}"))?;
        let hit_condition = hit_condition
            .filter(|c| !c.trim().is_empty())
            .map(HitCondition::parse)
            .transpose()?;
        let new = NewBreakpoint {
            spec,
            condition,
            hit_condition,
            temporary: false,
        };
        session.engine().add_breakpoint(new, session.entry_module())
    }

    fn answer(&self, result: Result<Arc<cove_debug::Breakpoint>, String>) -> protocol::Breakpoint {
        match result {
            Ok(b) => protocol::Breakpoint {
                id: Some(b.id),
                verified: true,
                message: b.location.moved_from.map(|from| {
                    format!(
                        "line {from} has no code; the breakpoint is on line {}",
                        b.location.line
                    )
                }),
                source: Some(source(&b.location.path)),
                line: Some(b.location.line),
            },
            Err(why) => protocol::Breakpoint {
                id: None,
                verified: false,
                message: Some(why),
                source: None,
                line: None,
            },
        }
    }

    fn set_breakpoints(&mut self, request: &Request) -> Result<Json, String> {
        let set: protocol::SetBreakpointsArguments = args(request)?;
        let path = set.source.path.clone().unwrap_or_default();
        if let (Some(old), Some(session)) = (self.line_breakpoints.remove(&path), &self.session) {
            session
                .engine()
                .retain_breakpoints(|b| !old.contains(&b.id));
        }
        let wanted: Vec<protocol::SourceBreakpoint> = if set.breakpoints.is_empty() {
            set.lines
                .iter()
                .map(|line| protocol::SourceBreakpoint {
                    line: *line,
                    condition: None,
                    hit_condition: None,
                })
                .collect()
        } else {
            set.breakpoints
        };
        let mut answers = Vec::new();
        let mut ids = Vec::new();
        for b in wanted {
            let result = self.add(
                format!("{path}:{}", b.line),
                b.condition.as_deref(),
                b.hit_condition.as_deref(),
            );
            if let Ok(b) = &result {
                ids.push(b.id);
            }
            answers.push(self.answer(result));
        }
        self.line_breakpoints.insert(path, ids);
        Ok(json!({ "breakpoints": answers }))
    }

    fn set_function_breakpoints(&mut self, request: &Request) -> Result<Json, String> {
        let set: protocol::SetFunctionBreakpointsArguments = args(request)?;
        let old = std::mem::take(&mut self.function_breakpoints);
        if let Some(session) = &self.session {
            session
                .engine()
                .retain_breakpoints(|b| !old.contains(&b.id));
        }
        let mut answers = Vec::new();
        for b in set.breakpoints {
            let result = self.add(
                b.name.clone(),
                b.condition.as_deref(),
                b.hit_condition.as_deref(),
            );
            if let Ok(b) = &result {
                self.function_breakpoints.push(b.id);
            }
            answers.push(self.answer(result));
        }
        Ok(json!({ "breakpoints": answers }))
    }

    fn set_exception_breakpoints(&mut self, request: &Request) -> Result<Json, String> {
        let set: protocol::SetExceptionBreakpointsArguments = args(request)?;
        self.break_on_fault = set.filters.iter().any(|f| f == "errors" || f == "all");
        if let Some(session) = &self.session {
            session.engine().set_break_on_fault(self.break_on_fault);
        }
        Ok(json!({}))
    }

    fn configuration_done(&mut self) -> Result<Json, String> {
        let stop_on_entry = self.launch.stop_on_entry;
        let no_debug = self.launch.no_debug;
        let session = self
            .session
            .as_mut()
            .ok_or("configurationDone before launch")?;
        if no_debug {
            session.engine().retain_breakpoints(|_| false);
            session.engine().set_break_on_fault(false);
        }
        session.start(stop_on_entry && !no_debug)?;
        Ok(json!({}))
    }

    fn threads(&self) -> Json {
        let mut tasks = self
            .session
            .as_ref()
            .map(|s| s.engine().tasks())
            .unwrap_or_default();
        if let Some(stopped) = &self.stopped
            && !tasks.contains(&stopped.task)
        {
            tasks.push(stopped.task);
        }
        if tasks.is_empty() {
            tasks.push(0);
        }
        tasks.sort_unstable();
        let threads: Vec<protocol::Thread> = tasks
            .into_iter()
            .map(|task| protocol::Thread {
                id: i64::from(task) + 1,
                name: if task == 0 {
                    "main".to_string()
                } else {
                    format!("task {task}")
                },
            })
            .collect();
        json!({ "threads": threads })
    }

    fn stack_trace(&self, request: &Request) -> Result<Json, String> {
        let at: protocol::ThreadArguments = args(request)?;
        let Some(stopped) = self
            .stopped
            .as_ref()
            .filter(|s| i64::from(s.task) + 1 == at.thread_id)
        else {
            return Ok(json!({ "stackFrames": [], "totalFrames": 0 }));
        };
        let start = at.start_frame.unwrap_or(0);
        let levels = at.levels.filter(|l| *l > 0).unwrap_or(usize::MAX);
        let frames: Vec<protocol::StackFrame> = stopped
            .frames
            .iter()
            .enumerate()
            .skip(start)
            .take(levels)
            .map(|(i, f)| protocol::StackFrame {
                id: i as i64 + 1,
                name: f.name.clone(),
                source: source(&f.path),
                line: f.line.unwrap_or(0),
                column: 1,
                instruction_pointer_reference: reference(f.function, f.pc),
            })
            .collect();
        Ok(json!({ "stackFrames": frames, "totalFrames": stopped.frames.len() }))
    }

    fn frame_index(&self, frame_id: Option<i64>) -> Result<usize, String> {
        let stopped = self.stopped.as_ref().ok_or("the program is not stopped")?;
        let index = frame_id.map_or(0, |id| (id - 1).max(0) as usize);
        if index < stopped.frames.len() {
            Ok(index)
        } else {
            Err(format!("no frame {}", frame_id.unwrap_or(0)))
        }
    }

    fn reference_for(&mut self, container: Container) -> i64 {
        self.containers.push(container);
        self.containers.len() as i64
    }

    fn scopes(&mut self, request: &Request) -> Result<Json, String> {
        let frame_id = request.arguments.get("frameId").and_then(Json::as_i64);
        let index = self.frame_index(frame_id)?;
        let reference = self.reference_for(Container::Locals(index));
        Ok(json!({ "scopes": [protocol::Scope {
            name: "Locals".to_string(),
            variables_reference: reference,
            expensive: false,
            presentation_hint: "locals".to_string(),
        }]}))
    }

    fn variable(
        &mut self,
        program: &Program,
        name: String,
        value: Value,
        ty: Option<TypeId>,
    ) -> protocol::Variable {
        let text = render::one_line(program, &value, ty);
        let indexed = match &value {
            Value::List(items) => Some(items.len()),
            Value::Map(entries) => Some(entries.len()),
            _ => None,
        };
        let reference = if render::has_children(&value) {
            self.reference_for(Container::Value(value, ty))
        } else {
            0
        };
        protocol::Variable {
            name,
            value: text,
            ty: render::type_name(program, ty),
            variables_reference: reference,
            indexed_variables: indexed,
        }
    }

    fn variables(&mut self, request: &Request) -> Result<Json, String> {
        let program = self.program().ok_or("the program is not launched")?;
        let reference = request
            .arguments
            .get("variablesReference")
            .and_then(Json::as_i64)
            .unwrap_or(0);
        let parts: Vec<(String, Value, Option<TypeId>)> =
            match self.containers.get((reference - 1).max(0) as usize) {
                _ if reference <= 0 => Vec::new(),
                None => return Err(format!("no variables {reference}: the task has resumed")),
                Some(Container::Locals(index)) => self
                    .stopped
                    .as_ref()
                    .and_then(|s| s.frames.get(*index))
                    .map(|f| {
                        f.locals
                            .iter()
                            .map(|v| (v.name.clone(), v.value.clone(), Some(v.ty)))
                            .collect()
                    })
                    .unwrap_or_default(),
                Some(Container::Value(value, ty)) => {
                    render::children(&program, value, *ty, MAX_CHILDREN)
                        .into_iter()
                        .map(|c| (c.name, c.value, c.ty))
                        .collect()
                }
            };
        let variables: Vec<protocol::Variable> = parts
            .into_iter()
            .map(|(name, value, ty)| self.variable(&program, name, value, ty))
            .collect();
        Ok(json!({ "variables": variables }))
    }

    fn evaluate(&mut self, request: &Request) -> Result<Json, String> {
        let at: protocol::EvaluateArguments = args(request)?;
        let program = self.program().ok_or("the program is not launched")?;
        let index = self.frame_index(at.frame_id)?;
        let expr = Expr::parse(&at.expression).map_err(|e| e.0)?;
        let frame = self
            .stopped
            .as_ref()
            .and_then(|s| s.frames.get(index))
            .ok_or("the program is not stopped")?;
        let (value, ty) = expr.eval(&program, frame).map_err(|e| e.0)?;
        let v = self.variable(&program, expr.text().to_string(), value, ty);
        Ok(json!({
            "result": v.value,
            "type": v.ty,
            "variablesReference": v.variables_reference,
        }))
    }

    fn resume(&mut self, request: &Request, mode: Mode) -> Result<Json, String> {
        let at: protocol::ThreadArguments = args(request).unwrap_or_default();
        let Some(stopped) = &self.stopped else {
            return Err("the program is not stopped".to_string());
        };
        let mode = match (mode, at.granularity.as_deref()) {
            (Mode::Next | Mode::Step, Some("instruction")) => Mode::StepInstruction,
            (mode, _) => mode,
        };
        let mode = if mode == Mode::Finish && stopped.frames.len() <= 1 {
            // Out of the outermost frame is to the end.
            Mode::Continue
        } else {
            mode
        };
        self.stopped = None;
        self.containers.clear();
        if let Some(session) = &self.session {
            session.resume(mode);
        }
        Ok(json!({ "allThreadsContinued": false }))
    }

    fn pause(&mut self) -> Result<Json, String> {
        let session = self.session.as_ref().ok_or("the program is not launched")?;
        if self.stopped.is_none() {
            session.engine().pause_flag().store(true, Ordering::SeqCst);
        }
        Ok(json!({}))
    }

    fn disassemble(&self, request: &Request) -> Result<Json, String> {
        let at: protocol::DisassembleArguments = args(request)?;
        let program = self.program().ok_or("the program is not launched")?;
        let (function, pc) = parse_reference(&at.memory_reference)
            .filter(|(f, _)| f.index() < program.functions.len())
            .ok_or_else(|| format!("`{}` is not an instruction reference", at.memory_reference))?;
        let len = program.function(function).code.len() as i64;
        let path = cove_debug::snapshot::path_of(&program, function);
        let first = i64::from(pc) + at.instruction_offset;
        let count = at.instruction_count.clamp(0, 10_000);
        let instructions: Vec<protocol::DisassembledInstruction> = (first..first + count)
            .map(|at| {
                if (0..len).contains(&at) {
                    let at = at as u32;
                    protocol::DisassembledInstruction {
                        address: reference(function, at),
                        instruction: cove_ir::print::one(&program, function, at),
                        line: program.line_of(function, at),
                        location: Some(source(&path)),
                    }
                } else {
                    // The protocol wants exactly `count`; outside the
                    // function there is nothing.
                    protocol::DisassembledInstruction {
                        address: format!("{}:{at}", function.0),
                        instruction: "<none>".to_string(),
                        line: None,
                        location: None,
                    }
                }
            })
            .collect();
        Ok(json!({ "instructions": instructions }))
    }

    fn profile(&self) -> Result<Json, String> {
        let session = self.session.as_ref().ok_or("the program is not launched")?;
        let profiler = session.profiler().ok_or("no run has started")?;
        Ok(json!({ "text": view::profile(session.program(), &profiler) }))
    }

    fn on_event(&mut self, event: Event) {
        let Some(run) = self.session.as_ref().map(Session::run) else {
            return;
        };
        match event {
            Event::Stopped(snapshot) if snapshot.run == run => {
                let (reason, text, hits) = match &snapshot.reason {
                    Reason::Entry => ("entry", None, Vec::new()),
                    Reason::Breakpoint(ids) => ("breakpoint", None, ids.clone()),
                    Reason::Step => ("step", None, Vec::new()),
                    Reason::Pause => ("pause", None, Vec::new()),
                    Reason::Fault { message, .. } => {
                        ("exception", Some(message.clone()), Vec::new())
                    }
                    Reason::ConditionFailed {
                        message,
                        breakpoint,
                    } => (
                        "breakpoint",
                        Some(format!(
                            "breakpoint {breakpoint}'s condition failed: {message}"
                        )),
                        vec![*breakpoint],
                    ),
                };
                let mut body = json!({
                    "reason": reason,
                    "threadId": i64::from(snapshot.task) + 1,
                    "allThreadsStopped": false,
                    "preserveFocusHint": false,
                });
                if let Some(text) = text {
                    body["description"] = json!(text.clone());
                    body["text"] = json!(text);
                }
                if !hits.is_empty() {
                    body["hitBreakpointIds"] = json!(hits);
                }
                self.containers.clear();
                self.stopped = Some(snapshot);
                self.client.event("stopped", body);
            }
            Event::Exited { run: ended, result } if ended == run => {
                if let Some(session) = &mut self.session {
                    session.ended();
                }
                self.stopped = None;
                self.containers.clear();
                let code = match &result {
                    Ok(Value::Int(n)) => *n,
                    Ok(_) => 0,
                    Err(error) => match error.kind {
                        ErrorKind::Exit(n) => i64::from(n),
                        kind => {
                            if kind != ErrorKind::Halted
                                && let Some(program) = self.program()
                            {
                                let text = crate::run::describe(&program, error, Style::plain());
                                self.client
                                    .event("output", json!({"category": "stderr", "output": text}));
                            }
                            i64::from(kind.exit_code())
                        }
                    },
                };
                self.client.event("exited", json!({ "exitCode": code }));
                self.client.event("terminated", json!({}));
            }
            _ => {}
        }
    }
}

/// A `Source` for a module's path.
fn source(path: &str) -> protocol::Source {
    protocol::Source {
        name: Path::new(path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned()),
        path: Some(path.to_string()),
    }
}

/// An instruction's reference: `FUNCTION:PC`, the function by its index.
fn reference(function: FunctionId, pc: u32) -> String {
    format!("{}:{pc}", function.0)
}

fn parse_reference(text: &str) -> Option<(FunctionId, u32)> {
    let (f, pc) = text.split_once(':')?;
    Some((FunctionId(f.parse().ok()?), pc.parse().ok()?))
}
