//! `cove debug FILE [ARGS...]`: a gdb-style session at the terminal.
//!
//! The session opens with the program loaded and stopped before its first
//! instruction, as pdb does, so breakpoints can be set first; `continue`
//! (or `run`) starts it. The commands and their aliases are those gdb and
//! lldb users know (`help` lists them, [`HELP`]).
//!
//! # Input and output
//!
//! On a terminal, lines are read with `rustyline` (editing, history, and
//! Ctrl-C at the prompt clears the line); otherwise plain lines are read
//! from stdin and each is echoed after the prompt, so `cove debug prog.cove
//! < script.txt` is a scripted session whose transcript reads as one typed.
//! The debugger writes to stdout. The program's own stdout and stderr stay
//! its own: they are the process's, written as the program runs, between
//! the debugger's lines.
//!
//! # Ctrl-C
//!
//! While the program runs, Ctrl-C pauses it at its next instruction (the
//! engine's pause flag), and the prompt comes back there; a second Ctrl-C
//! before it pauses exits, as under `cove run`.
//!
//! # Why a loop over text and not a command grammar crate
//!
//! Every command is a word and a rest; aliases and the `if` of a
//! conditional breakpoint are all the grammar there is, and a hand-written
//! `match` keeps each command's help, parsing and action in one place.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver};

use cove_debug::expr::Expr;
use cove_debug::{Event, Mode, NewBreakpoint, Reason, Session, Snapshot};
use cove_ir::program::Program;
use cove_runtime::{ErrorKind, Value};

use crate::cli::DebugArgs;
use crate::compile::compile_runnable;
use crate::status::Status;
use crate::style::Style;

use super::view;

/// What `help` prints.
pub const HELP: &str = "\
Commands (aliases in brackets):
  break [b] FILE:LINE | LINE | FUNCTION [if CONDITION]
                          stop there; CONDITION is a Cove expression over
                          the frame's locals, e.g. `break f.cove:12 if n > 40`
  tbreak PLACE [if COND]  a breakpoint that goes once it stops
  delete [d] [N...]       delete breakpoints N..., or every one
  info breakpoints [i b]  list the breakpoints and their hits
  info locals [i lo]      the selected frame's locals
  info tasks [i threads]  the tasks of the run
  continue [c]            run until a breakpoint, an error or the end
  step [s]                to the next line, into calls
  next [n]                to the next line, over calls
  finish [fin]            until the innermost frame returns
  stepi [si]              one instruction
  backtrace [bt, where]   the stopped task's frames, innermost first
  frame [f] N, up [N], down [N]
                          select a frame for print, info locals, list
  print [p] EXPR          a local, a field (p.x) or an expression, with its type
  list [l] [LINE | FILE:LINE]
                          source around the line, the current one marked >
  disasm                  instructions around the pc, the current one marked >
  profile                 the exact profile of the run so far
  run [r]                 start the program (from the start if it ran)
  restart                 start again, stopped before the first instruction
  quit [q]                end the session
  help [h]                this list";

/// Where the debugger's input comes from.
///
/// On a terminal, a line editor is made for each line and dropped once the
/// line is read, with the session's history loaded into it: `rustyline`
/// takes SIGINT for as long as an editor lives, and while the program runs
/// Ctrl-C must reach the pause handler instead.
enum Input {
    Editor(Vec<String>),
    Plain(std::io::StdinLock<'static>),
}

impl Input {
    fn new() -> Input {
        if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
            return Input::Editor(Vec::new());
        }
        Input::Plain(std::io::stdin().lock())
    }

    /// The next command, or `None` at the end of the input.
    fn read(&mut self, prompt: &str) -> Option<String> {
        match self {
            Input::Editor(history) => {
                let mut editor = rustyline::DefaultEditor::new().ok()?;
                for line in history.iter() {
                    let _ = editor.add_history_entry(line.as_str());
                }
                loop {
                    match editor.readline(prompt) {
                        Ok(line) => {
                            if !line.trim().is_empty() {
                                history.push(line.clone());
                            }
                            return Some(line);
                        }
                        // Ctrl-C at the prompt clears the line.
                        Err(rustyline::error::ReadlineError::Interrupted) => continue,
                        Err(_) => return None,
                    }
                }
            }
            Input::Plain(stdin) => {
                let mut line = String::new();
                match stdin.read_line(&mut line) {
                    Ok(0) | Err(_) => None,
                    Ok(_) => {
                        let line = line.trim_end_matches(['\n', '\r']).to_string();
                        say(&format!("{prompt}{line}\n"));
                        Some(line)
                    }
                }
            }
        }
    }
}

/// Writes the debugger's text to stdout; a closed stdout is ignored (the
/// session ends at the end of its input anyway).
fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// The prompt.
pub const PROMPT: &str = "(cove) ";

/// Where the session is.
enum State {
    /// A task is stopped; `frame` is the selected frame's index.
    Stopped { snapshot: Snapshot, frame: usize },
    /// No run in progress: it ended (or never started).
    Idle,
}

struct Terminal {
    program: Arc<Program>,
    session: Session,
    events: Receiver<Event>,
    state: State,
    status: Status,
}

/// Runs a terminal session on `args`'s program.
pub fn session(args: &DebugArgs) -> Status {
    let Some(file) = args.file() else {
        crate::pipe::eprint(format_args!(
            "{}: `cove debug` needs a program: cove debug FILE [ARGS...], or --dap\n",
            Style::stderr().error("error")
        ));
        return Status::BadInput;
    };
    let program = match compile_runnable(file) {
        Ok(program) => Arc::new(program),
        Err(status) => return status,
    };
    let (sender, events) = mpsc::channel();
    let session = Session::new(Arc::clone(&program), move |event| {
        let _ = sender.send(event);
    })
    .with_args(args.args().to_vec())
    .with_limits(crate::run::limits(&args.limits))
    .with_profile(Box::new(super::profiler));
    crate::interrupt::pause_on_ctrl_c(session.engine().pause_flag());
    let mut terminal = Terminal {
        program,
        session,
        events,
        state: State::Idle,
        status: Status::OK,
    };
    terminal.start(true);
    let mut input = Input::new();
    while let Some(line) = input.read(PROMPT) {
        if !terminal.command(line.trim()) {
            break;
        }
    }
    terminal.session.end();
    terminal.status
}

impl Terminal {
    fn start(&mut self, stop_at_entry: bool) {
        match self.session.start(stop_at_entry) {
            Ok(_) => self.wait(),
            Err(why) => say(&format!("{why}\n")),
        }
    }

    /// Waits for the run to stop or end, and says which.
    fn wait(&mut self) {
        let run = self.session.run();
        loop {
            let Ok(event) = self.events.recv() else {
                self.state = State::Idle;
                return;
            };
            match event {
                Event::Stopped(snapshot) if snapshot.run == run => {
                    say(&self.stopped(&snapshot));
                    self.state = State::Stopped { snapshot, frame: 0 };
                    return;
                }
                Event::Exited { run: ended, result } if ended == run => {
                    self.session.ended();
                    say(&self.exited(result));
                    self.state = State::Idle;
                    return;
                }
                // Events of a run that was ended to start this one.
                _ => {}
            }
        }
    }

    fn stopped(&self, snapshot: &Snapshot) -> String {
        let task = if snapshot.task == 0 {
            String::new()
        } else {
            format!("[task {}] ", snapshot.task)
        };
        let Some(top) = snapshot.top() else {
            return format!("{task}stopped\n");
        };
        let place = view::place(top);
        let mut out = match &snapshot.reason {
            Reason::Entry => format!("{task}Stopped before the first instruction, in {place}\n"),
            Reason::Breakpoint(ids) => {
                let ids: Vec<String> = ids.iter().map(u32::to_string).collect();
                format!("{task}Breakpoint {}, {place}\n", ids.join(", "))
            }
            Reason::Step => format!("{task}{place}\n"),
            Reason::Pause => format!("{task}Paused in {place}\n"),
            Reason::Fault { message, .. } => {
                format!("{task}Stopped at a runtime error: {message}\n  in {place}\n")
            }
            Reason::ConditionFailed {
                breakpoint,
                message,
            } => format!(
                "{task}Breakpoint {breakpoint}'s condition could not be evaluated: {message}\n  in {place}\n"
            ),
        };
        if let Some(line) = top.line
            && let Some(text) = view::source_line(&self.program, &top.path, line)
        {
            out.push_str(&text);
            out.push('\n');
        }
        out
    }

    fn exited(&mut self, result: Result<Value, cove_runtime::RunError>) -> String {
        match result {
            Ok(Value::Int(n)) => {
                self.status = Status::Program(n);
                format!("[the program exited with status {n}]\n")
            }
            Ok(_) => {
                self.status = Status::OK;
                "[the program exited with status 0]\n".to_string()
            }
            Err(error) => match error.kind {
                ErrorKind::Exit(n) => {
                    self.status = Status::Program(i64::from(n));
                    format!("[the program exited with status {n}]\n")
                }
                ErrorKind::Halted => "[the run was ended]\n".to_string(),
                kind => {
                    self.status = Status::Run(kind.exit_code());
                    let text = crate::run::describe(&self.program, &error, Style::plain());
                    format!("[the program ended with an error]\n{text}")
                }
            },
        }
    }

    fn snapshot(&self) -> Option<(&Snapshot, usize)> {
        match &self.state {
            State::Stopped { snapshot, frame } => Some((snapshot, *frame)),
            State::Idle => None,
        }
    }

    fn resume(&mut self, mode: Mode) {
        if !matches!(self.state, State::Stopped { .. }) {
            say("The program is not running; `run` starts it.\n");
            return;
        }
        let mode = match (&self.state, mode) {
            // `finish` from a selected outer frame finishes that frame: step
            // out until the stack is shallower than it.
            (State::Stopped { frame, .. }, Mode::Finish) if *frame > 0 => {
                say("`finish` applies to the innermost frame; select frame 0 or use `continue`.\n");
                return;
            }
            (_, mode) => mode,
        };
        if mode == Mode::Finish
            && let Some((snapshot, _)) = self.snapshot()
        {
            if snapshot.frames.len() <= 1 {
                say("`finish` is meaningless in the outermost frame.\n");
                return;
            }
            say(&format!(
                "Run till exit from {}\n",
                view::place(&snapshot.frames[0])
            ));
        }
        self.state = State::Idle;
        self.session.resume(mode);
        self.wait();
    }

    /// Runs one command; false ends the session.
    fn command(&mut self, line: &str) -> bool {
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((word, rest)) => (word, rest.trim()),
            None => (line, ""),
        };
        match word {
            "" => {}
            "break" | "b" | "br" => self.breakpoint(rest, false),
            "tbreak" | "tb" => self.breakpoint(rest, true),
            "delete" | "d" => self.delete(rest),
            "info" | "i" => self.info(rest),
            "continue" | "c" | "cont" => self.resume(Mode::Continue),
            "step" | "s" => self.resume(Mode::Step),
            "next" | "n" => self.resume(Mode::Next),
            "finish" | "fin" => self.resume(Mode::Finish),
            "stepi" | "si" => self.resume(Mode::StepInstruction),
            "backtrace" | "bt" | "where" => self.backtrace(),
            "frame" | "f" => self.select(rest.parse().ok(), None),
            "up" => self.select(None, Some(rest.parse::<i64>().unwrap_or(1))),
            "down" => self.select(None, Some(-rest.parse::<i64>().unwrap_or(1))),
            "print" | "p" => self.print(rest),
            "list" | "l" => self.list(rest),
            "disasm" | "disassemble" | "x" => self.disasm(),
            "profile" => self.profile(),
            "run" | "r" => match &self.state {
                State::Stopped { snapshot, .. } if snapshot.reason == Reason::Entry => {
                    self.resume(Mode::Continue)
                }
                _ => self.start(false),
            },
            "restart" => self.start(true),
            "quit" | "q" | "exit" => return false,
            "help" | "h" | "?" => say(&format!("{HELP}\n")),
            other => say(&format!("Unknown command `{other}`; `help` lists them.\n")),
        }
        true
    }

    fn default_module(&self) -> String {
        match self.snapshot() {
            Some((snapshot, frame)) => snapshot
                .frames
                .get(frame)
                .map(|f| self.program.function(f.function).module.clone())
                .unwrap_or_default(),
            None => self.session.entry_module().to_string(),
        }
    }

    fn breakpoint(&mut self, rest: &str, temporary: bool) {
        let (place, condition) = match rest.split_once(" if ") {
            Some((place, condition)) => (place.trim(), Some(condition.trim())),
            None => (rest, None),
        };
        let condition = match condition.map(Expr::parse).transpose() {
            Ok(condition) => condition,
            Err(e) => {
                say(&format!("Bad condition: {e}\n"));
                return;
            }
        };
        let new = NewBreakpoint {
            spec: place.to_string(),
            condition,
            hit_condition: None,
            temporary,
        };
        let module = self.default_module();
        match self.session.engine().add_breakpoint(new, &module) {
            Ok(b) => {
                let kind = if temporary {
                    "Temporary breakpoint"
                } else {
                    "Breakpoint"
                };
                let mut out = match b.location.function {
                    Some(f) => format!(
                        "{kind} {} at {} ({}:{})\n",
                        b.id,
                        self.program.function_name(f),
                        b.location.path,
                        b.location.line
                    ),
                    None => format!(
                        "{kind} {} at {}:{}\n",
                        b.id, b.location.path, b.location.line
                    ),
                };
                if let Some(from) = b.location.moved_from {
                    out.push_str(&format!(
                        "  (line {from} has no code; the breakpoint is on line {}, the next line that has)\n",
                        b.location.line
                    ));
                }
                if let Some(condition) = &b.condition {
                    out.push_str(&format!("  stops only if {}\n", condition.text()));
                }
                say(&out);
            }
            Err(why) => say(&format!("{why}\n")),
        }
    }

    fn delete(&mut self, rest: &str) {
        let engine = self.session.engine();
        if rest.is_empty() {
            engine.retain_breakpoints(|_| false);
            say("Deleted every breakpoint.\n");
            return;
        }
        let mut out = String::new();
        for word in rest.split_whitespace() {
            match word.parse::<u32>() {
                Ok(id) if engine.delete_breakpoint(id) => {
                    out.push_str(&format!("Deleted breakpoint {id}.\n"))
                }
                Ok(id) => out.push_str(&format!("No breakpoint {id}.\n")),
                Err(_) => out.push_str(&format!("`{word}` is not a breakpoint number.\n")),
            }
        }
        say(&out);
    }

    fn info(&mut self, rest: &str) {
        match rest {
            "breakpoints" | "break" | "b" | "br" => self.info_breakpoints(),
            "locals" | "lo" | "local" => self.info_locals(),
            "tasks" | "threads" | "th" => self.info_tasks(),
            other => say(&format!(
                "`info {other}`: say `info breakpoints`, `info locals` or `info tasks`.\n"
            )),
        }
    }

    fn info_breakpoints(&self) {
        let breakpoints = self.session.engine().breakpoints();
        if breakpoints.is_empty() {
            say("No breakpoints.\n");
            return;
        }
        let rows: Vec<[String; 5]> = breakpoints
            .iter()
            .map(|b| {
                let place = match b.location.function {
                    Some(f) => format!(
                        "{} ({}:{})",
                        self.program.function_name(f),
                        b.location.path,
                        b.location.line
                    ),
                    None => format!("{}:{}", b.location.path, b.location.line),
                };
                [
                    b.id.to_string(),
                    if b.temporary { "tbreak" } else { "breakpoint" }.to_string(),
                    place,
                    b.hits().to_string(),
                    b.condition.as_ref().map_or("", |c| c.text()).to_string(),
                ]
            })
            .collect();
        let head = ["Num", "Type", "Where", "Hits", "Condition"].map(String::from);
        let mut widths = [0; 5];
        for row in std::iter::once(&head).chain(&rows) {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let mut out = String::new();
        for row in std::iter::once(&head).chain(&rows) {
            let mut line = String::new();
            for (cell, w) in row.iter().zip(widths) {
                line.push_str(&format!("{cell:<w$}  "));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        say(&out);
    }

    fn info_locals(&self) {
        let Some((snapshot, frame)) = self.snapshot() else {
            say("The program is not stopped.\n");
            return;
        };
        let Some(frame) = snapshot.frames.get(frame) else {
            return;
        };
        if frame.locals.is_empty() {
            say("No locals.\n");
            return;
        }
        let mut out = String::new();
        for v in &frame.locals {
            out.push_str(&view::variable(&self.program, v));
            out.push('\n');
        }
        say(&out);
    }

    fn info_tasks(&self) {
        let tasks = self.session.engine().tasks();
        let stopped = self.snapshot().map(|(s, _)| s.task);
        if tasks.is_empty() {
            say("No tasks are running.\n");
            return;
        }
        let mut out = String::new();
        for task in tasks {
            let (mark, what) = if Some(task) == stopped {
                ('*', "stopped")
            } else {
                (' ', "running")
            };
            let name = if task == 0 {
                "main".to_string()
            } else {
                format!("task {task}")
            };
            out.push_str(&format!("{mark} {task:<3} {name:<8} {what}\n"));
        }
        say(&out);
    }

    fn backtrace(&self) {
        let Some((snapshot, selected)) = self.snapshot() else {
            say("The program is not stopped.\n");
            return;
        };
        let mut out = String::new();
        if snapshot.task != 0 {
            out.push_str(&format!("Task {}:\n", snapshot.task));
        }
        for (i, frame) in snapshot.frames.iter().enumerate() {
            let mark = if i == selected && snapshot.frames.len() > 1 {
                '>'
            } else {
                ' '
            };
            out.push(mark);
            out.push_str(&view::frame_line(&self.program, i, frame));
            out.push('\n');
        }
        say(&out);
    }

    fn select(&mut self, index: Option<usize>, by: Option<i64>) {
        let State::Stopped { snapshot, frame } = &mut self.state else {
            say("The program is not stopped.\n");
            return;
        };
        let count = snapshot.frames.len();
        let target = match (index, by) {
            (Some(i), _) => i as i64,
            (None, Some(by)) => *frame as i64 + by,
            (None, None) => *frame as i64,
        };
        if target < 0 || target >= count as i64 {
            say(&format!(
                "No frame {target}: frames are 0 (innermost) to {}.\n",
                count - 1
            ));
            return;
        }
        *frame = target as usize;
        let f = &snapshot.frames[*frame];
        let mut out = view::frame_line(&self.program, *frame, f);
        out.push('\n');
        if let Some(line) = f.line
            && let Some(text) = view::source_line(&self.program, &f.path, line)
        {
            out.push_str(&text);
            out.push('\n');
        }
        say(&out);
    }

    fn print(&self, rest: &str) {
        let Some((snapshot, frame)) = self.snapshot() else {
            say("The program is not stopped.\n");
            return;
        };
        let Some(frame) = snapshot.frames.get(frame) else {
            return;
        };
        if rest.is_empty() {
            say("print what? `print NAME` or `print EXPRESSION`\n");
            return;
        }
        let expr = match Expr::parse(rest) {
            Ok(expr) => expr,
            Err(e) => {
                say(&format!("{e}\n"));
                return;
            }
        };
        match expr.eval(&self.program, frame) {
            Ok((value, ty)) => say(&format!(
                "{}: {} = {}\n",
                expr.text(),
                cove_debug::render::type_name(&self.program, ty),
                cove_debug::render::one_line(&self.program, &value, ty)
            )),
            Err(e) => say(&format!("{e}\n")),
        }
    }

    fn list(&self, rest: &str) {
        let here = self
            .snapshot()
            .and_then(|(s, f)| s.frames.get(f))
            .map(|f| (f.path.clone(), f.line));
        let (path, current) = match &here {
            Some((path, line)) => (path.clone(), *line),
            None => {
                let entry = self.session.entry_module();
                let path = self
                    .program
                    .module(entry)
                    .map(|m| m.path.clone())
                    .unwrap_or_default();
                let main = self.program.find_function(entry, cove_debug::session::MAIN);
                (path, main.and_then(|f| self.program.line_of(f, 0)))
            }
        };
        let (path, center) = if rest.is_empty() {
            (path, current.unwrap_or(1))
        } else if let Ok(line) = rest.parse::<u32>() {
            (path, line)
        } else {
            match cove_debug::breakpoints::resolve(&self.program, rest, &self.default_module()) {
                Ok(at) => (at.path, at.moved_from.unwrap_or(at.line)),
                Err(why) => {
                    say(&format!("{why}\n"));
                    return;
                }
            }
        };
        let current = if here.as_ref().is_some_and(|(p, _)| *p == path) {
            current
        } else {
            None
        };
        say(&view::list(&self.program, &path, center, current));
    }

    fn disasm(&self) {
        let Some((snapshot, frame)) = self.snapshot() else {
            say("The program is not stopped.\n");
            return;
        };
        if let Some(f) = snapshot.frames.get(frame) {
            say(&view::disasm(&self.program, f.function, f.pc));
        }
    }

    fn profile(&self) {
        match self.session.profiler() {
            Some(profiler) => say(&view::profile(&self.program, &profiler)),
            None => say("No run has started.\n"),
        }
    }
}
