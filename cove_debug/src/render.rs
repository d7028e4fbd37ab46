//! Values shown as a Cove programmer wrote them, with their Cove types.
//!
//! `print` and `info locals` show a value on one line ([`one_line`]), and a
//! DAP client expands it a level at a time ([`children`]). Both are given
//! the value's [`TypeId`] where the debug information has it, so the types
//! shown are the program's (`List[Point]`, not "a list"), down to every
//! element and field.
//!
//! # Bounds
//!
//! A value from the heap is a tree (the runtime's copies cannot make a
//! cycle), but it may be huge or deep. A one-line rendering stops at
//! [`MAX_DEPTH`] levels (`[[…]]`), shows at most [`MAX_ITEMS`] elements of
//! any list or map (`… 9,900 more`), and cuts a string past
//! [`MAX_STRING`] characters, saying how long it was. The recursion is
//! bounded by the depth, so no value overflows the stack.
//!
//! # Why not `Value`'s `Display`
//!
//! That is the program's own text form (`to-str`), unbounded and without
//! types; a debugger's view needs the bounds, escapes in strings at every
//! level, and the type of every part.

use std::fmt::Write as _;

use cove_ir::program::Program;
use cove_ir::types::{Type, TypeId};
use cove_runtime::Value;

/// How many levels a one-line rendering descends before writing `…`.
pub const MAX_DEPTH: usize = 4;
/// How many elements of a list or entries of a map a rendering shows.
pub const MAX_ITEMS: usize = 100;
/// How many characters of a string a rendering shows.
pub const MAX_STRING: usize = 200;

/// The Cove spelling of `ty`, or `?` when the type is not known. A
/// captured `var` lives in a cell, a one-field struct the compiler makes;
/// it is spelled as the variable's own type.
pub fn type_name(program: &Program, ty: Option<TypeId>) -> String {
    match ty {
        Some(ty) => match program.types.get(ty.0 as usize) {
            Some(Type::Struct(s))
                if program
                    .structs
                    .get(s.0 as usize)
                    .is_some_and(|d| d.name == "<cell>" && d.fields.len() == 1) =>
            {
                program.type_name(program.structs[s.0 as usize].fields[0].ty)
            }
            _ => program.type_name(ty),
        },
        None => "?".to_string(),
    }
}

/// The value on one line, bounded (see the module documentation).
///
/// ```
/// use cove_runtime::Value;
/// let program = cove_ir::program::Program::new();
/// let text = cove_debug::render::one_line(&program, &Value::str("a\"b\n"), None);
/// assert_eq!(text, r#""a\"b\n""#);
/// ```
pub fn one_line(program: &Program, value: &Value, ty: Option<TypeId>) -> String {
    let mut out = String::new();
    write_value(&mut out, program, value, ty, 0);
    out
}

/// A string literal as Cove writes one, cut after [`MAX_STRING`]
/// characters with the full length said.
pub fn string_literal(s: &str) -> String {
    let mut out = String::from("\"");
    let count = s.chars().count();
    for c in s.chars().take(MAX_STRING) {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '{' => out.push_str("\\{"),
            '}' => out.push_str("\\}"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    if count > MAX_STRING {
        let _ = write!(out, "… ({} chars)", thousands(count));
    }
    out
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn write_value(
    out: &mut String,
    program: &Program,
    value: &Value,
    ty: Option<TypeId>,
    depth: usize,
) {
    if depth > MAX_DEPTH && !is_scalar(value) {
        out.push('…');
        return;
    }
    let kids = child_types(program, ty);
    match value {
        Value::Unit => out.push_str("()"),
        Value::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Value::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Float(x) => {
            let _ = write!(out, "{x:?}");
        }
        Value::Str(s) => out.push_str(&string_literal(s)),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().take(MAX_ITEMS).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, program, item, kids.element(), depth + 1);
            }
            more(out, items.len());
            out.push(']');
        }
        Value::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().take(MAX_ITEMS).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, program, k, kids.key(), depth + 1);
                out.push_str(": ");
                write_value(out, program, v, kids.element(), depth + 1);
            }
            more(out, entries.len());
            out.push('}');
        }
        Value::Option(None) => out.push_str("None"),
        Value::Option(Some(inner)) => {
            out.push_str("Some(");
            write_value(out, program, inner, kids.element(), depth + 1);
            out.push(')');
        }
        // The cell a captured `var` lives in shows as its value.
        Value::Struct { name, fields } if name == "<cell>" && fields.len() == 1 => {
            write_value(out, program, &fields[0].1, kids.field(0), depth + 1);
        }
        Value::Struct { name, fields } if name.starts_with('(') => {
            out.push('(');
            for (i, (_, v)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, program, v, kids.field(i), depth + 1);
            }
            out.push(')');
        }
        Value::Struct { name, fields } => {
            let _ = write!(out, "{name} {{ ");
            for (i, (field, v)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{field}: ");
                write_value(out, program, v, kids.field(i), depth + 1);
            }
            out.push_str(" }");
        }
        Value::Variant {
            enum_name,
            variant,
            fields,
        } => {
            let _ = write!(out, "{enum_name}.{variant}");
            if !fields.is_empty() {
                out.push('(');
                for (i, v) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_value(out, program, v, kids.payload(variant, i), depth + 1);
                }
                out.push(')');
            }
        }
        Value::Task(_) => out.push_str("<task>"),
        Value::Channel(_) => out.push_str("<channel>"),
        Value::Raw(bits) => {
            let _ = write!(out, "<raw {bits:#x}>");
        }
        Value::Closure { function, .. } if let Some(up) = value.cycle_back() => {
            // A closure inside its own captures is named, not expanded
            // again: it is the closure `up` levels out from here.
            let _ = match up {
                0 => write!(out, "fn {function} (itself)"),
                1 => write!(out, "fn {function} (the closure that captured this one)"),
                _ => write!(out, "fn {function} (a closure {up} levels out)"),
            };
        }
        Value::Closure { function, captures } => {
            let _ = write!(out, "fn {function}");
            if !captures.is_empty() {
                out.push_str(" capturing { ");
                for (i, (name, v)) in captures.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{name}: ");
                    write_value(out, program, v, None, depth + 1);
                }
                out.push_str(" }");
            }
        }
    }
}

fn more(out: &mut String, len: usize) {
    if len > MAX_ITEMS {
        let _ = write!(out, ", … {} more", thousands(len - MAX_ITEMS));
    }
}

fn is_scalar(value: &Value) -> bool {
    matches!(
        value,
        Value::Unit
            | Value::Bool(_)
            | Value::Int(_)
            | Value::Float(_)
            | Value::Str(_)
            | Value::Raw(_)
    )
}

/// What a type says of its parts' types.
struct Parts<'p> {
    program: &'p Program,
    ty: Option<&'p Type>,
}

fn child_types(program: &Program, ty: Option<TypeId>) -> Parts<'_> {
    Parts {
        program,
        ty: ty.and_then(|ty| program.types.get(ty.0 as usize)),
    }
}

impl Parts<'_> {
    fn element(&self) -> Option<TypeId> {
        match self.ty? {
            Type::List(t) | Type::Option(t) | Type::Task(t) | Type::Channel(t) => Some(*t),
            Type::Map(_, v) => Some(*v),
            _ => None,
        }
    }

    fn key(&self) -> Option<TypeId> {
        match self.ty? {
            Type::Map(k, _) => Some(*k),
            _ => None,
        }
    }

    fn field(&self, i: usize) -> Option<TypeId> {
        match self.ty? {
            Type::Struct(s) => Some(self.program.structs.get(s.0 as usize)?.fields.get(i)?.ty),
            _ => None,
        }
    }

    fn payload(&self, variant: &str, i: usize) -> Option<TypeId> {
        match self.ty? {
            Type::Enum(e) => self
                .program
                .enums
                .get(e.0 as usize)?
                .variants
                .iter()
                .find(|v| v.name == variant)?
                .fields
                .get(i)
                .copied(),
            _ => None,
        }
    }
}

/// One part of a value, for a client that expands it.
#[derive(Debug, Clone, PartialEq)]
pub struct Child {
    /// How the part is named: `[3]` for an element, a key for a map
    /// entry, the field's name, `0` for a payload.
    pub name: String,
    /// The part.
    pub value: Value,
    /// Its Cove type, where known.
    pub ty: Option<TypeId>,
}

/// Whether the value has parts to expand.
pub fn has_children(value: &Value) -> bool {
    match value {
        Value::List(items) => !items.is_empty(),
        Value::Map(entries) => !entries.is_empty(),
        Value::Option(inner) => inner.is_some(),
        Value::Struct { fields, .. } => !fields.is_empty(),
        Value::Variant { fields, .. } => !fields.is_empty(),
        _ => false,
    }
}

/// The value's parts, one level down, at most `limit` of them.
pub fn children(program: &Program, value: &Value, ty: Option<TypeId>, limit: usize) -> Vec<Child> {
    let kids = child_types(program, ty);
    match value {
        Value::List(items) => items
            .iter()
            .take(limit)
            .enumerate()
            .map(|(i, v)| Child {
                name: format!("[{i}]"),
                value: v.clone(),
                ty: kids.element(),
            })
            .collect(),
        Value::Map(entries) => entries
            .iter()
            .take(limit)
            .map(|(k, v)| Child {
                name: format!("[{}]", one_line(program, k, kids.key())),
                value: v.clone(),
                ty: kids.element(),
            })
            .collect(),
        Value::Option(Some(inner)) => vec![Child {
            name: "Some".to_string(),
            value: (**inner).clone(),
            ty: kids.element(),
        }],
        Value::Struct { fields, .. } => fields
            .iter()
            .enumerate()
            .map(|(i, (name, v))| Child {
                name: name.clone(),
                value: v.clone(),
                ty: kids.field(i),
            })
            .collect(),
        Value::Variant {
            variant, fields, ..
        } => fields
            .iter()
            .enumerate()
            .map(|(i, v)| Child {
                name: i.to_string(),
                value: v.clone(),
                ty: kids.payload(variant, i),
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_string_is_cut_and_says_its_length() {
        let long = "x".repeat(1000);
        let text = string_literal(&long);
        assert!(text.ends_with("\"… (1,000 chars)"), "{text}");
        assert_eq!(text.matches('x').count(), MAX_STRING);
    }

    #[test]
    fn a_deep_value_is_cut_at_the_depth_bound() {
        let mut value = Value::Int(1);
        for _ in 0..50 {
            value = Value::List(vec![value]);
        }
        let text = one_line(&Program::new(), &value, None);
        assert_eq!(
            text,
            format!(
                "{}…{}",
                "[".repeat(MAX_DEPTH + 1),
                "]".repeat(MAX_DEPTH + 1)
            )
        );
    }

    #[test]
    fn a_long_list_shows_its_first_items_and_how_many_more() {
        let value = Value::List((0..250).map(Value::Int).collect());
        let text = one_line(&Program::new(), &value, None);
        assert!(text.ends_with(", 99, … 150 more]"), "{text}");
    }
}
