//! A source file's line table: the byte offset each line starts at.
//!
//! Both the lowering (which stamps each instruction with its source line)
//! and the diagnostics (which place a caret at a line and column) turn a
//! byte offset into a line; they share this one table so the two can never
//! disagree about where a line begins. Building it is one pass over the
//! source and one word a line; a lookup is a binary search, so placing any
//! number of offsets stays `O(n log lines)` — a line counter walked from the
//! start would be quadratic over a long file.

/// The byte offset each line of a source starts at; line 0 starts at 0.
#[derive(Debug, Clone, Default)]
pub(crate) struct LineStarts(Vec<usize>);

impl LineStarts {
    /// The table of `source`; a line ends after each `\n`.
    pub(crate) fn new(source: &str) -> LineStarts {
        LineStarts(
            std::iter::once(0)
                .chain(source.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        )
    }

    /// The 0-based line that byte `at` is on.
    pub(crate) fn index_of(&self, at: usize) -> usize {
        match self.0.binary_search(&at) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// The 1-based line that byte `at` is on, as the IR's line tables count.
    pub(crate) fn line_of(&self, at: usize) -> u32 {
        self.index_of(at) as u32 + 1
    }

    /// The byte offset 0-based line `line` starts at, if there is one.
    pub(crate) fn start(&self, line: usize) -> Option<usize> {
        self.0.get(line).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_byte_is_on_the_line_its_newlines_say() {
        let t = LineStarts::new("ab\n\ncd");
        assert_eq!(t.line_of(0), 1);
        assert_eq!(t.line_of(2), 1);
        assert_eq!(t.line_of(3), 2);
        assert_eq!(t.line_of(4), 3);
        assert_eq!(t.index_of(6), 2);
        assert_eq!(t.start(2), Some(4));
        assert_eq!(t.start(3), None);
    }
}
