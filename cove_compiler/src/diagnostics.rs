//! Diagnostics: what the compiler says about a program it will not compile.
//!
//! Every mistake becomes a [`Diagnostic`] with a code, a message written for
//! someone new to Cove, the file and byte span it points at, a label for the
//! caret line and, where one helps, a `help:` line. The compiler collects
//! them all (a file's syntax errors, then every resolution and type error)
//! and returns them together as [`Diagnostics`], which renders with
//! `codespan-reporting`: the same layout as rustc's, which is what a user
//! of a serious toolchain reads fastest. Rendering is done on demand, so a
//! caller that only wants the codes and lines (a test, an editor) pays for
//! no text layout.

use std::fmt;
use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};

/// One error the compiler found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    code: &'static str,
    message: String,
    label: String,
    help: Option<String>,
    file: String,
    span: Range<usize>,
    line: u32,
    column: u32,
}

impl Diagnostic {
    /// The error code, `E0001`: stable, so it can be searched for.
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// The one-line message: `type mismatch: expected Int, found String`.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The text under the carets: `this is String`.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The `help:` line, when there is one.
    pub fn help(&self) -> Option<&str> {
        self.help.as_deref()
    }

    /// The path of the file, as the module was read from it (`m.cove` for
    /// a module compiled from a string).
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The byte range of the source the diagnostic points at.
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// The 1-based line of the span's start.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The 1-based column (in characters) of the span's start.
    pub fn column(&self) -> u32 {
        self.column
    }
}

/// The one-line form: `m.cove:4:11: error[E0100]: type mismatch: ...`, what
/// an editor or a log wants (the snippet form is [`Diagnostics`]' Display).
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error[{}]: {}",
            self.file, self.line, self.column, self.code, self.message
        )
    }
}

/// A diagnostic before it knows its line and column: what the passes build.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub code: &'static str,
    pub message: String,
    pub label: String,
    pub help: Option<String>,
    pub span: Range<usize>,
}

impl Pending {
    /// A diagnostic with a code, a message, a span and the caret label.
    pub fn new(
        code: &'static str,
        span: Range<usize>,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Pending {
        Pending {
            code,
            message: message.into(),
            label: label.into(),
            help: None,
            span,
        }
    }

    /// Adds a `help:` line.
    pub fn help(mut self, help: impl Into<String>) -> Pending {
        self.help = Some(help.into());
        self
    }
}

/// A source file the diagnostics point into.
#[derive(Debug, Clone)]
struct SourceFile {
    path: String,
    source: String,
    /// The byte offset each line starts at, to place a diagnostic in
    /// logarithmic time however many there are.
    line_starts: Vec<usize>,
}

/// Every error found in a program, with the sources needed to show them.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    files: Vec<SourceFile>,
    list: Vec<(usize, Diagnostic)>,
    /// What has been reported, so the same error is not reported twice.
    seen: std::collections::HashSet<(usize, &'static str, usize, usize, String)>,
}

impl Diagnostics {
    /// No diagnostics yet.
    pub(crate) fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Registers a file and returns its index for [`Diagnostics::push`].
    pub(crate) fn add_file(&mut self, path: &str, source: &str) -> usize {
        if let Some(i) = self.files.iter().position(|f| f.path == path) {
            return i;
        }
        self.files.push(SourceFile {
            path: path.to_string(),
            source: source.to_string(),
            line_starts: std::iter::once(0)
                .chain(source.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        });
        self.files.len() - 1
    }

    /// Adds a diagnostic about file `file`, placing it by line and column.
    pub(crate) fn push(&mut self, file: usize, pending: Pending) {
        let f = &self.files[file];
        let source = &f.source;
        let start = clamp_to_char(source, pending.span.start.min(source.len()));
        let end = clamp_to_char(source, pending.span.end.clamp(start, source.len()));
        let line_index = match f.line_starts.binary_search(&start) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let line = line_index as u32 + 1;
        let column = source[f.line_starts[line_index]..start].chars().count() as u32 + 1;
        let key = (file, pending.code, start, end, pending.message.clone());
        if !self.seen.insert(key) {
            return;
        }
        let diagnostic = Diagnostic {
            code: pending.code,
            message: pending.message,
            label: pending.label,
            help: pending.help,
            file: self.files[file].path.clone(),
            span: start..end,
            line,
            column,
        };
        self.list.push((file, diagnostic));
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// The diagnostics, in the order they were found: file by file, and in
    /// a file roughly by position.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> + '_ {
        self.list.iter().map(|(_, d)| d)
    }

    /// Every diagnostic rendered with its snippet, in colour (ANSI escapes)
    /// when `color` is true: what the `cove` binary prints to a terminal.
    pub fn render(&self, color: bool) -> String {
        let mut files = SimpleFiles::new();
        for f in &self.files {
            files.add(f.path.clone(), f.source.clone());
        }
        let mut buffer = if color {
            termcolor::Buffer::ansi()
        } else {
            termcolor::Buffer::no_color()
        };
        // ASCII borders (`-->`, `|`) as in the language's own examples: they
        // survive every terminal, log and file encoding.
        let config = term::Config {
            chars: term::Chars::ascii(),
            ..term::Config::default()
        };
        for (file, d) in &self.list {
            let mut report = Report::error()
                .with_code(d.code)
                .with_message(&d.message)
                .with_labels(vec![
                    Label::primary(*file, d.span.clone()).with_message(&d.label),
                ]);
            if let Some(help) = &d.help {
                report = report.with_notes(vec![format!("help: {help}")]);
            }
            // Writing into a memory buffer fails only on a span outside its
            // file, which `push` rules out; fall back to the plain form.
            if term::emit(&mut buffer, &config, &files, &report).is_err() {
                use std::io::Write;
                let _ = writeln!(
                    buffer,
                    "error[{}]: {} at {}:{}:{}",
                    d.code, d.message, d.file, d.line, d.column
                );
            }
        }
        String::from_utf8_lossy(buffer.as_slice()).into_owned()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = Box<dyn Iterator<Item = &'a Diagnostic> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for Diagnostics {}

/// The largest char boundary at or before `at`.
fn clamp_to_char(source: &str, mut at: usize) -> usize {
    while at > 0 && !source.is_char_boundary(at) {
        at -= 1;
    }
    at
}
