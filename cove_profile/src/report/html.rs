//! One self-contained HTML page of a profile, to open in a browser or attach
//! to a bug report.
//!
//! Self-contained means one file that needs nothing else: no network, no
//! CDN, no fonts; the style sheet and the few lines of script (sorting the
//! tables by a column) are inline, and the flame graph is `inferno`'s SVG
//! inline, with its own script for zoom and search. The page holds the
//! run's header (program, arguments, totals, floor, clock), the functions
//! (sortable), the call edges, the tasks (and, when there are several, a
//! function table per task), the flame graph, and every source file
//! annotated with a heat column. Without script the page still reads:
//! the tables are in identity order and the flame graph is a picture.
//!
//! Hand-written rather than through a template engine: it is one page with
//! four tables, and each value passes through [`escape`] on its way in.

use std::fmt::Write as _;

use super::text::thousands;
use super::{Metric, Report};
use crate::cost::Cost;

/// The page's style sheet.
const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;font-variant-numeric:tabular-nums}\
th,td{padding:2px 8px;text-align:right;white-space:nowrap}\
th{background:#eee;cursor:pointer;position:sticky;top:0}\
td.name,th.name{text-align:left}tr:nth-child(even){background:#fafafa}\
dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}dt{font-weight:bold}\
table.source td{padding:0 6px}table.source td.code{text-align:left;font-family:monospace;white-space:pre}\
table.source td.heat{width:60px;padding:0}table.source td.heat span{display:block;height:1.2em;background:#e4572e}\
tr.fn td{background:#def;text-align:left;font-weight:bold}\
#flame-graph{max-width:1200px}#flame-graph>svg{width:100%;height:auto}";

/// Sorts a table by the column clicked, numbers by their `data-v`.
const SCRIPT: &str = "document.querySelectorAll('table.sortable th').forEach((th,i)=>{\
th.addEventListener('click',()=>{const t=th.closest('table'),b=t.tBodies[0];\
const d=th.dataset.dir==='desc'?'asc':'desc';th.dataset.dir=d;\
const key=r=>{const c=r.cells[i];return c.dataset.v!==undefined?Number(c.dataset.v):c.textContent};\
[...b.rows].sort((x,y)=>{const a=key(x),c=key(y);const o=a<c?-1:a>c?1:0;return d==='asc'?o:-o})\
.forEach(r=>b.appendChild(r));});});";

/// `text` with `&`, `<`, `>` and `"` escaped, for an element or attribute.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// A numeric cell that sorts by its value.
fn number(n: u64) -> String {
    format!("<td data-v=\"{n}\">{}</td>", thousands(n))
}

/// The four cells of a cost.
fn cost_cells(cost: &Cost) -> String {
    [cost.ran, cost.nanos, cost.words, cost.allocations]
        .into_iter()
        .map(number)
        .collect()
}

impl Report<'_> {
    /// The profile as one self-contained HTML page.
    pub fn html(&self) -> String {
        let title = self.title();
        let t = &self.total;
        let mut out = String::new();
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <title>cove profile: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
             <h1>cove profile: {}</h1>\n<dl id=\"header\">\n",
            escape(&title),
            escape(&title)
        );
        let mut field = |name: &str, value: String| {
            let _ = writeln!(out, "<dt>{name}</dt><dd>{}</dd>", escape(&value));
        };
        if let Some(subject) = &self.subject {
            field("program", subject.entry.clone());
            field("arguments", subject.args.join(" "));
            field("IR hash", subject.ir_hash.clone());
            field("cove", subject.cove_version.clone());
            field(
                "started",
                format!("{} (seconds since 1970)", subject.started),
            );
        }
        field(
            "total",
            format!(
                "{} instructions, {} ns, {} words, {} allocations",
                thousands(t.ran),
                thousands(t.nanos),
                thousands(t.words),
                thousands(t.allocations)
            ),
        );
        field(
            "floor",
            format!(
                "~{:.1} ns an instruction, {} clock; counts and heap figures are exact, time is for comparing rows",
                self.floor.nanos, self.clock
            ),
        );
        field(
            "tasks",
            if self.follows_tasks {
                "spawned tasks followed".to_string()
            } else {
                "the task the profiler was installed on".to_string()
            },
        );
        out.push_str("</dl>\n");

        out.push_str(
            "<h2 id=\"functions\">Functions</h2>\n<table class=\"sortable\" id=\"function-table\">\n\
             <thead><tr><th class=\"name\">function</th><th>calls</th><th>self ran</th><th>self ns</th>\
             <th>self words</th><th>self allocs</th><th>incl ran</th><th>incl ns</th><th>incl words</th>\
             <th>incl allocs</th><th class=\"name\">source</th></tr></thead>\n<tbody>\n",
        );
        for row in &self.functions {
            let _ = writeln!(
                out,
                "<tr><td class=\"name\">{}</td>{}{}{}<td class=\"name\">{}</td></tr>",
                escape(self.program.function_name(row.function)),
                number(row.calls),
                cost_cells(&row.own),
                cost_cells(&row.inclusive),
                escape(&self.location(row.function, self.program.line_of(row.function, 0)))
            );
        }
        out.push_str("</tbody>\n</table>\n");

        out.push_str(
            "<h2 id=\"calls\">Calls</h2>\n<table class=\"sortable\">\n<thead><tr>\
             <th class=\"name\">caller</th><th class=\"name\">callee</th><th>calls</th><th>incl ran</th>\
             <th>incl ns</th><th>incl words</th><th>incl allocs</th></tr></thead>\n<tbody>\n",
        );
        for row in &self.edges {
            let _ = writeln!(
                out,
                "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td>{}{}</tr>",
                escape(self.program.function_name(row.caller)),
                escape(self.program.function_name(row.callee)),
                number(row.calls),
                cost_cells(&row.inclusive)
            );
        }
        out.push_str("</tbody>\n</table>\n");

        out.push_str(
            "<h2 id=\"tasks\">Tasks</h2>\n<table class=\"sortable\">\n<thead><tr>\
             <th class=\"name\">task</th><th class=\"name\">started from</th><th>ran</th><th>ns</th>\
             <th>words</th><th>allocs</th></tr></thead>\n<tbody>\n",
        );
        for task in &self.tasks {
            let roots: Vec<&str> = task.tree.nodes[crate::context::ROOT as usize]
                .children
                .iter()
                .map(|(f, _)| self.program.function_name(*f))
                .collect();
            let _ = writeln!(
                out,
                "<tr><td class=\"name\">task {}</td><td class=\"name\">{}</td>{}</tr>",
                task.task,
                escape(&roots.join(", ")),
                cost_cells(&task.total)
            );
        }
        out.push_str("</tbody>\n</table>\n");

        // With several tasks, each gets its own function table: a task's
        // calling-context tree read alone.
        if self.tasks.len() > 1 {
            for task in &self.tasks {
                let (functions, _) = super::calling_context(std::slice::from_ref(task));
                let _ = writeln!(
                    out,
                    "<h3 class=\"task\" id=\"task-{}\">Task {}</h3>\n<table class=\"sortable\">\n\
                     <thead><tr><th class=\"name\">function</th><th>calls</th><th>self ran</th><th>self ns</th>\
                     <th>self words</th><th>self allocs</th><th>incl ran</th><th>incl ns</th><th>incl words</th>\
                     <th>incl allocs</th></tr></thead>\n<tbody>",
                    task.task, task.task
                );
                for row in &functions {
                    let _ = writeln!(
                        out,
                        "<tr><td class=\"name\">{}</td>{}{}{}</tr>",
                        escape(self.program.function_name(row.function)),
                        number(row.calls),
                        cost_cells(&row.own),
                        cost_cells(&row.inclusive)
                    );
                }
                out.push_str("</tbody>\n</table>\n");
            }
        }

        out.push_str("<h2 id=\"flame\">Flame graph (instructions)</h2>\n");
        match self.svg(Metric::Ran) {
            Ok(svg) => {
                // Inline, the SVG needs no prolog of its own.
                let start = svg.find("<svg").unwrap_or(0);
                out.push_str("<div id=\"flame-graph\">");
                out.push_str(&svg[start..]);
                out.push_str("</div>\n");
            }
            Err(why) => {
                let _ = writeln!(out, "<p>{}</p>", escape(&why.to_string()));
            }
        }

        let run = self.total.ran.max(1) as f64;
        for file in self.source_files() {
            let _ = writeln!(
                out,
                "<h2 class=\"file\">{}</h2>\n<table class=\"source\">\n<thead><tr><th>heat</th><th>line</th>\
                 <th>ran</th><th>ns</th><th>words</th><th>allocs</th><th class=\"name\">source</th></tr></thead>\n<tbody>",
                escape(file.path)
            );
            let mut functions = file.functions.iter().peekable();
            for (index, text) in file.text.lines().enumerate() {
                let number = index as u32 + 1;
                while let Some(function) = functions.next_if(|f| f.declared <= number) {
                    if function.line == 0 {
                        continue;
                    }
                    let _ = writeln!(
                        out,
                        "<tr class=\"fn\"><td colspan=\"7\">fn {}: {} calls; self {} ran, inclusive {} ran</td></tr>",
                        escape(&function.name),
                        thousands(function.calls),
                        thousands(function.own.ran),
                        thousands(function.inclusive.ran)
                    );
                }
                let cells = match file.lines.get(&number) {
                    Some(line) => {
                        let width = (line.cost.ran as f64 * 100.0 / run).clamp(0.0, 100.0);
                        format!(
                            "<td class=\"heat\"><span style=\"width:{width:.1}%\"></span></td><td>{number}</td>{}",
                            cost_cells(&line.cost)
                        )
                    }
                    None => format!(
                        "<td class=\"heat\"></td><td>{number}</td><td></td><td></td><td></td><td></td>"
                    ),
                };
                let _ = writeln!(
                    out,
                    "<tr>{cells}<td class=\"code\">{}</td></tr>",
                    escape(text)
                );
            }
            out.push_str("</tbody>\n</table>\n");
        }
        let _ = write!(out, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
        out
    }
}
