//! Whether to colour what `cove` writes, and the few colours it uses.
//!
//! Colour only where a person is looking: a stream is coloured when it is a
//! terminal and `NO_COLOR` is unset (<https://no-color.org>: any value, even
//! empty, turns colour off). A file or a pipe never gets escape codes, so a
//! report written to one reads the same as the snapshot tests expect. Plain
//! ANSI codes rather than a crate: four colours do not need one.

use std::io::IsTerminal;

/// How one output stream is styled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    color: bool,
}

impl Style {
    /// The style for stderr.
    pub fn stderr() -> Style {
        Style {
            color: std::io::stderr().is_terminal() && no_color_unset(),
        }
    }

    /// The style for stdout (the profiler's reports; a build without it
    /// colours nothing there).
    #[cfg(feature = "profiler")]
    pub fn stdout() -> Style {
        Style {
            color: std::io::stdout().is_terminal() && no_color_unset(),
        }
    }

    /// No colour: for text that goes where a stream's style does not apply.
    #[cfg(feature = "profiler")]
    pub fn plain() -> Style {
        Style { color: false }
    }

    /// Whether this stream is coloured.
    pub fn colored(self) -> bool {
        self.color
    }

    /// `text` in bold red: the word `error`.
    pub fn error(self, text: &str) -> String {
        self.paint("1;31", text)
    }

    /// `text` in bold yellow: the word `interrupted`, a note.
    pub fn warn(self, text: &str) -> String {
        self.paint("1;33", text)
    }

    /// `text` dimmed: a backtrace, a progress line.
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// Whether the user left `NO_COLOR` unset.
fn no_color_unset() -> bool {
    std::env::var_os("NO_COLOR").is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_uncoloured_stream_gets_the_text_unchanged() {
        let plain = Style { color: false };
        assert_eq!(plain.error("error"), "error");
        assert_eq!(
            plain.dim("  at m.main (m.cove:3)"),
            "  at m.main (m.cove:3)"
        );
    }

    #[test]
    fn a_coloured_stream_gets_the_text_between_escape_codes() {
        let colored = Style { color: true };
        assert_eq!(colored.error("error"), "\x1b[1;31merror\x1b[0m");
    }
}
