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
//!
//! # Bounds
//!
//! Garbage input must not make the report itself the problem: a compile
//! reports at most [`MAX_ERRORS`] diagnostics (the first ones, file by file
//! and by position, then a note that it stopped, as `gcc -fmax-errors`
//! does); a diagnostic's line and column are found from a line-start index
//! and a per-file cursor, so placing many on one line costs the line's
//! length once, not once each; and a snippet of a line longer than
//! [`LONG_LINE`] bytes shows only a window of it around the span, so
//! rendering costs the number of diagnostics, not their lines' lengths.

use std::fmt;
use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::{Error as FilesError, Files, SimpleFiles};
use codespan_reporting::term::{self, termcolor};

use crate::lines::LineStarts;

/// The most diagnostics one compile reports. Past this many, the rest are
/// dropped and the rendering ends with the note "too many errors; stopping
/// after 100": a hundred errors are more than anyone fixes before
/// compiling again, and garbage input (a megabyte of bad characters) would
/// otherwise produce a report far larger than itself.
pub const MAX_ERRORS: usize = 100;

/// The length in bytes above which a source line is not shown whole in a
/// snippet. A diagnostic whose span touches such a line shows only its
/// first line, cut to 40 characters before the span's start and 80 from
/// it, with `...` where the line was cut; the caret underlines the part of
/// the span in that window.
pub const LONG_LINE: usize = 160;

/// Characters of a long line shown before the span's start.
const WINDOW_BEFORE: usize = 40;

/// Characters of a long line shown from the span's start on.
const WINDOW_AFTER: usize = 80;

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
    /// The error code, `E0001`: stable, so it can be searched for. A
    /// warning's code starts with `W` (`W0001`).
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// Whether it is a warning (code `W...`): the program still compiles.
    pub fn is_warning(&self) -> bool {
        self.code.starts_with('W')
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
        let severity = if self.is_warning() {
            "warning"
        } else {
            "error"
        };
        write!(
            f,
            "{}:{}:{}: {severity}[{}]: {}",
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
    pub(crate) fn new(
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
    pub(crate) fn help(mut self, help: impl Into<String>) -> Pending {
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
    line_starts: LineStarts,
    /// The last diagnostic placed in this file: its byte offset and
    /// 1-based column. Diagnostics arrive sorted by position, so the next
    /// one on the same line counts characters from here, not from the
    /// line's start.
    cursor: (usize, u32),
}

impl SourceFile {
    /// The 0-based line that byte `at` is on.
    fn line_index(&self, at: usize) -> usize {
        self.line_starts.index_of(at)
    }

    /// The byte range of 0-based line `line`, without its line ending.
    fn line_range(&self, line: usize) -> Range<usize> {
        let start = self.line_starts.start(line).unwrap_or(0);
        let end = self
            .line_starts
            .start(line + 1)
            .map_or(self.source.len(), |next| next - 1);
        let text = &self.source[start..end];
        start..start + text.trim_end_matches('\r').len()
    }
}

/// Every error found in a program, with the sources needed to show them.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    files: Vec<SourceFile>,
    list: Vec<(usize, Diagnostic)>,
    /// What has been reported, so the same error is not reported twice.
    seen: std::collections::HashSet<(usize, &'static str, usize, usize, String)>,
    /// Whether diagnostics past [`MAX_ERRORS`] were dropped.
    truncated: bool,
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
            line_starts: LineStarts::new(source),
            cursor: (0, 1),
        });
        self.files.len() - 1
    }

    /// Adds a diagnostic about file `file`, placing it by line and column;
    /// past [`MAX_ERRORS`] it is dropped and the report marked truncated.
    pub(crate) fn push(&mut self, file: usize, pending: Pending) {
        let f = &mut self.files[file];
        let source = &f.source;
        let start = clamp_to_char(source, pending.span.start.min(source.len()));
        let end = clamp_to_char(source, pending.span.end.clamp(start, source.len()));
        let key = (file, pending.code, start, end, pending.message.clone());
        if self.seen.contains(&key) {
            return;
        }
        if self.list.len() >= MAX_ERRORS {
            self.truncated = true;
            return;
        }
        self.seen.insert(key);
        let line_index = f.line_index(start);
        let line = line_index as u32 + 1;
        let line_start = f.line_starts.start(line_index).unwrap_or(0);
        let (from, column) = match f.cursor {
            (at, column) if line_start <= at && at <= start => (at, column),
            _ => (line_start, 1),
        };
        let column = column + source[from..start].chars().count() as u32;
        f.cursor = (start, column);
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

    /// How many there are (at most [`MAX_ERRORS`]).
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether the compile found more than [`MAX_ERRORS`] errors and these
    /// are only the first of them.
    pub fn truncated(&self) -> bool {
        self.truncated
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
            let report = |file_id, span| {
                let report = if d.is_warning() {
                    Report::warning()
                } else {
                    Report::error()
                };
                let report = report
                    .with_code(d.code)
                    .with_message(&d.message)
                    .with_labels(vec![Label::primary(file_id, span).with_message(&d.label)]);
                match &d.help {
                    Some(help) => report.with_notes(vec![format!("help: {help}")]),
                    None => report,
                }
            };
            let source = &self.files[*file];
            let first = d.line as usize - 1;
            let last = source.line_index(d.span.end);
            let written = if (first..=last).any(|l| source.line_range(l).len() > LONG_LINE) {
                let excerpt = Excerpt::new(source, source.line_range(first), d);
                let span = excerpt.span.clone();
                term::emit(&mut buffer, &config, &excerpt, &report(*file, span))
            } else {
                term::emit(&mut buffer, &config, &files, &report(*file, d.span.clone()))
            };
            // Writing into a memory buffer fails only on a span outside its
            // file, which `push` rules out; fall back to the plain form.
            if written.is_err() {
                use std::io::Write;
                let _ = writeln!(
                    buffer,
                    "error[{}]: {} at {}:{}:{}",
                    d.code, d.message, d.file, d.line, d.column
                );
            }
        }
        if self.truncated {
            let note = Report::note()
                .with_message(format!("too many errors; stopping after {MAX_ERRORS}"));
            let _ = term::emit(&mut buffer, &config, &files, &note);
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

/// A window of one long source line around a diagnostic's span, as the
/// one-line file its snippet is rendered from: `...` marks where the line
/// was cut, and the line and column shown are the real ones.
struct Excerpt {
    name: String,
    /// The window, with its `...` markers.
    text: String,
    /// The diagnostic's span within `text`, cut at the window's end.
    span: Range<usize>,
    /// The real 1-based line number.
    line: usize,
    /// Where the source's text begins in `text` (after a leading `...`),
    /// and the real 1-based column of that character.
    begins: usize,
    column: usize,
}

impl Excerpt {
    /// The window of `line` (a byte range of `file`) around `d`'s span.
    fn new(file: &SourceFile, line: Range<usize>, d: &Diagnostic) -> Excerpt {
        let source = &file.source;
        let at = d.span.start.clamp(line.start, line.end);
        let before = source[line.start..at]
            .char_indices()
            .rev()
            .take(WINDOW_BEFORE)
            .last()
            .map_or(at, |(i, _)| line.start + i);
        let after = source[at..line.end]
            .char_indices()
            .nth(WINDOW_AFTER)
            .map_or(line.end, |(i, _)| at + i);
        let mut text = String::new();
        if before > line.start {
            text.push_str("...");
        }
        let begins = text.len();
        text.push_str(&source[before..after]);
        if after < line.end {
            text.push_str("...");
        }
        let shown = source[before..at].chars().count();
        let end = d.span.end.clamp(at, after);
        Excerpt {
            name: d.file.clone(),
            span: begins + (at - before)..begins + (end - before),
            text,
            line: d.line as usize,
            begins,
            column: (d.column as usize).saturating_sub(shown),
        }
    }
}

/// The excerpt as `codespan-reporting` reads a file: one line, numbered
/// and counted in columns as the source line it was cut from. (Its file id
/// is the source file's, and is not looked at.)
impl<'a> Files<'a> for Excerpt {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, _: usize) -> Result<&'a str, FilesError> {
        Ok(&self.name)
    }

    fn source(&'a self, _: usize) -> Result<&'a str, FilesError> {
        Ok(&self.text)
    }

    fn line_index(&'a self, _: usize, _: usize) -> Result<usize, FilesError> {
        Ok(0)
    }

    fn line_number(&'a self, _: usize, _: usize) -> Result<usize, FilesError> {
        Ok(self.line)
    }

    fn column_number(&'a self, _: usize, _: usize, at: usize) -> Result<usize, FilesError> {
        let at = at.clamp(self.begins, self.text.len());
        let text = self
            .text
            .get(self.begins..at)
            .ok_or(FilesError::InvalidCharBoundary { given: at })?;
        Ok(self.column + text.chars().count())
    }

    fn line_range(&'a self, _: usize, line: usize) -> Result<Range<usize>, FilesError> {
        match line {
            0 => Ok(0..self.text.len()),
            _ => Err(FilesError::LineTooLarge {
                given: line,
                max: 0,
            }),
        }
    }
}

/// The largest char boundary at or before `at`.
fn clamp_to_char(source: &str, mut at: usize) -> usize {
    while at > 0 && !source.is_char_boundary(at) {
        at -= 1;
    }
    at
}
