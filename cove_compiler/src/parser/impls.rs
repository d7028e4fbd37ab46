//! `impl Type { ... }` blocks: methods, parsed into ordinary top-level
//! functions named `Type.method`.
//!
//! A method is a function whose first parameter is `self` (written without
//! a type: it is the impl's type); one without `self` is called through
//! the type (`Point.new(1, 2)`). Desugaring here, in the parser, means the
//! rest of the compiler declares, checks, lowers and names methods exactly
//! as functions — a profile or backtrace shows `m.Point.norm` — and needs
//! no item kind of its own; the one place that knows about methods is the
//! call lowering that finds `p.norm()` by the receiver's type. The cost is
//! one string per method name.

use super::*;

impl Parser<'_, '_> {
    /// `impl Name { [export] fn ... }`, from `impl`: the type's name (where
    /// it is one of this module's) and the methods, each a function named
    /// `Name.method`.
    pub(super) fn impl_block(&mut self) -> (Option<Ident>, Vec<FnDecl>) {
        self.bump();
        if self.at(&Tok::LBrack) {
            // `impl[T] Point`: reported as a function's type parameters
            // are, and skipped.
            self.type_parameters();
        }
        let Some(mut ty) = self.ident("the name of a struct or enum after `impl`") else {
            return (None, Vec::new());
        };
        if self.at(&Tok::Dot) {
            // `impl geo.Point`: methods can be added only beside the type.
            let start = ty.span.start;
            self.bump();
            let name = match self.tok() {
                Tok::Ident(n) => n.clone(),
                _ => "Type".to_string(),
            };
            let end = self.span().end;
            self.error(
                Pending::new(
                    "E0042",
                    start..end,
                    format!("an `impl` of `{}.{name}`, a type of another module", ty.name),
                    "not declared in this module",
                )
                .help(format!(
                    "an `impl` goes in the module that declares its type: add the functions to `impl {name}` in {}.cove, or write them here as plain functions taking a `{}.{name}`",
                    ty.name, ty.name
                )),
            );
            return (None, Vec::new());
        }
        if self.at(&Tok::LBrack) {
            // `impl Point[T]`: the same.
            self.type_parameters();
        }
        if self.at(&Tok::For) {
            // `impl Display for Point`: Rust's trait impl. Said once; the
            // methods are declared on the type after `for`, so calls of
            // them are not reported as well.
            let start = self.bump().span.start;
            if let Tok::Ident(_) = self.tok() {
                if let Some(real) = self.ident("a type name") {
                    ty = real;
                }
            }
            self.errors.push(
                Pending::new(
                    "E0036",
                    start..self.prev_end(),
                    "Cove has no traits",
                    "a trait implementation",
                )
                .help(format!(
                    "write the methods in `impl {} {{ ... }}`, without `for`",
                    ty.name
                )),
            );
        }
        self.brace_on_next_line();
        if !self.expect(Tok::LBrace, "`{` to start the methods") {
            return (None, Vec::new());
        }
        let mut methods = Vec::new();
        loop {
            self.skip_newlines();
            if self.eat(&Tok::RBrace) || self.at(&Tok::Eof) {
                break;
            }
            let exported = self.eat(&Tok::Export);
            if !self.at(&Tok::Fn) {
                let span = self.span();
                let found = self.tok().describe();
                self.error(
                    Pending::new(
                        "E0017",
                        span,
                        format!("expected `fn` inside `impl {}`, found {found}", ty.name),
                        "an `impl` block holds only functions",
                    )
                    .help("declare fields in the `struct`, and functions here as `fn name(self) { ... }`"),
                );
                self.sync_method();
                continue;
            }
            let saved = self.impl_type.replace(ty.clone());
            let method = self.function(exported);
            self.impl_type = saved;
            if let Some(mut m) = method {
                m.name.name = format!("{}.{}", ty.name, m.name.name);
                methods.push(m);
            }
            if self.panicking {
                self.sync_method();
            }
        }
        (Some(ty), methods)
    }

    /// After an error inside an `impl`: on to the next `fn` of the block
    /// or its closing brace.
    fn sync_method(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.tok() {
                Tok::Eof => break,
                Tok::LBrace | Tok::LParen | Tok::LBrack => depth += 1,
                Tok::RBrace if depth == 0 => break,
                Tok::RBrace | Tok::RParen | Tok::RBrack => depth = depth.saturating_sub(1),
                Tok::Fn | Tok::Export if depth == 0 => break,
                _ => {}
            }
            self.bump();
        }
        self.panicking = false;
    }

    /// Reports each `impl` of `impls` (its type's name and the range of its
    /// methods in `file.items`) whose type is no struct or enum of the
    /// file, once at its name, and makes its methods broken: declared, so
    /// their calls are not reported too, but neither checked nor lowered,
    /// and with the unknown type taken out of their signatures, so it is
    /// not reported at each one.
    pub(super) fn check_impl_types(
        &mut self,
        file: &mut File,
        impls: &[(Ident, std::ops::Range<usize>)],
    ) {
        let declared: Vec<String> = file
            .items
            .iter()
            .filter_map(|item| match item {
                Item::Struct(s) => Some(s.name.name.clone()),
                Item::Enum(e) => Some(e.name.name.clone()),
                Item::Fn(_) => None,
            })
            .collect();
        for (ty, methods) in impls {
            if declared.contains(&ty.name) {
                continue;
            }
            let help = match crate::lower::closest(&ty.name, declared.iter().map(String::as_str)) {
                Some(c) => format!("did you mean `{c}`?"),
                None => {
                    "an `impl` declares functions of a `struct` or `enum` declared in its module"
                        .to_string()
                }
            };
            self.errors.push(
                Pending::new(
                    "E0303",
                    ty.span.clone(),
                    format!("unknown type `{}` in `impl {}`", ty.name, ty.name),
                    "no struct or enum of this name is declared in this module",
                )
                .help(help),
            );
            for item in &mut file.items[methods.clone()] {
                if let Item::Fn(f) = item {
                    f.broken = true;
                    for (_, t) in &mut f.params {
                        forget_type(t, &ty.name);
                    }
                    if let Some(t) = &mut f.result {
                        forget_type(t, &ty.name);
                    }
                }
            }
        }
    }

    /// The type of a `self` parameter written without one, inside an
    /// `impl`: the impl's type.
    pub(super) fn self_type(&self, at: &Ident) -> Option<TypeExpr> {
        let ty = self.impl_type.as_ref()?;
        (at.name == "self").then(|| TypeExpr::Named {
            path: vec![Ident {
                name: ty.name.clone(),
                span: at.span.clone(),
            }],
            args: Vec::new(),
            span: at.span.clone(),
        })
    }
}

/// Makes every mention of the type `name` in `t` an already reported error.
fn forget_type(t: &mut TypeExpr, name: &str) {
    match t {
        TypeExpr::Named { path, args, span } => {
            if path.len() == 1 && path[0].name == name {
                *t = TypeExpr::Error(span.clone());
            } else {
                for a in args {
                    forget_type(a, name);
                }
            }
        }
        TypeExpr::Tuple(parts, _) => {
            for p in parts {
                forget_type(p, name);
            }
        }
        TypeExpr::Fn { params, result, .. } => {
            for p in params {
                forget_type(p, name);
            }
            if let Some(r) = result {
                forget_type(r, name);
            }
        }
        TypeExpr::Unit(_) | TypeExpr::Error(_) => {}
    }
}
