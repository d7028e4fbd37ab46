//! A flame graph as SVG, drawn by the `inferno` crate from the folded
//! stacks.
//!
//! `inferno` rather than a renderer of our own: it is the maintained Rust
//! port of `flamegraph.pl`, its output is what people already know how to
//! read (hover for figures, click to zoom, Ctrl-F to search), and in
//! deterministic mode it colours a frame by its name's hash, so one profile
//! draws the same picture twice.

use std::io;

use inferno::flamegraph::{self, Options};

use super::{Metric, Report};

impl Report<'_> {
    /// A flame graph of `metric`, as an SVG document, titled with the
    /// program (see [`Report::title`]) and the metric.
    ///
    /// Fails only if there is nothing of `metric` to draw (a profile that
    /// allocated nothing has no allocation flame graph) or the renderer
    /// refuses its input.
    pub fn svg(&self, metric: Metric) -> io::Result<String> {
        let folded = self.folded(metric);
        if folded.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("the profile has no {} to draw", metric.unit()),
            ));
        }
        let mut options = Options::default();
        options.title = format!("{} ({})", self.title(), metric.unit());
        options.count_name = metric.unit().to_string();
        options.deterministic = true;
        let mut svg = Vec::new();
        flamegraph::from_lines(&mut options, folded.lines(), &mut svg)?;
        String::from_utf8(svg).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}
