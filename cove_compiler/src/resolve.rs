//! Names and types at module level: what each module declares, what it
//! imports, and how a written type (`List[lexer.Token]`) becomes a
//! [`TypeId`].
//!
//! Types are interned straight into the [`Program`] being built, so a type
//! the checker reasons about *is* the type the IR records and equality is an
//! integer compare. Two ids outside the table stand for the checker's own
//! needs: [`ERROR`] (something already reported; compatible with anything,
//! so one mistake does not cascade) and [`NEVER`] (the type of `return`,
//! `break` and `continue`, which fits wherever a value is expected).

use std::collections::HashMap;

use cove_ir::program::{FunctionId, Program};
use cove_ir::types::{Type, TypeId};

use crate::ast::TypeExpr;
use crate::diagnostics::Pending;

/// The type of an expression already reported as wrong.
pub(crate) const ERROR: TypeId = TypeId(u32::MAX);
/// The type of an expression that never produces a value.
pub(crate) const NEVER: TypeId = TypeId(u32::MAX - 1);

/// What one module declares and imports.
#[derive(Debug, Default)]
pub(crate) struct ModuleScope {
    pub name: String,
    /// Imported module name → index into the scopes.
    pub imports: HashMap<String, usize>,
    pub functions: HashMap<String, FunctionId>,
    /// The functions of `impl` blocks whose first parameter is `self`:
    /// the only ones a call `value.name()` reaches.
    pub methods: std::collections::HashSet<FunctionId>,
    /// Functions whose header did not parse: calls to them are not checked.
    pub broken: std::collections::HashSet<String>,
    /// Structs and enums that did not parse to the end: unknown fields and
    /// variants of them, and matches on them, are not reported.
    pub broken_types: std::collections::HashSet<TypeId>,
    /// Struct and enum names → their types.
    pub types: HashMap<String, TypeId>,
    /// Imports that named no module (reported at the `import`): their
    /// uses are not reported again as unknown names.
    pub missing_imports: std::collections::HashSet<String>,
    /// Top-level constants → their types and values.
    pub consts: HashMap<String, crate::consts::ConstDef>,
    /// Structs and enums declared with the name of a generic builtin type
    /// (`struct Task`, reported once at the declaration as E0306): a use of
    /// the name without type arguments is not reported again.
    pub builtin_named: std::collections::HashSet<String>,
}

/// The Cove spelling of a type, including the checker's own two.
pub(crate) fn type_name(program: &Program, ty: TypeId) -> String {
    match ty {
        ERROR => "{unknown}".to_string(),
        NEVER => "!".to_string(),
        _ => program.type_name(ty),
    }
}

/// The type `ty` names, `None` for the checker's own two.
pub(crate) fn ty_of(program: &Program, ty: TypeId) -> Option<&Type> {
    program.types.get(ty.0 as usize)
}

/// Whether values of `ty` live in ref registers.
pub(crate) fn is_ref(program: &Program, ty: TypeId) -> bool {
    ty_of(program, ty).is_some_and(Type::is_ref)
}

/// Whether a user struct or enum type is exported; true for every other type.
pub(crate) fn type_exported(program: &Program, ty: TypeId) -> bool {
    match ty_of(program, ty) {
        Some(Type::Struct(s)) => program.struct_def(*s).exported,
        Some(Type::Enum(e)) => program.enum_def(*e).exported,
        _ => true,
    }
}

/// Resolves a written type in module `module`; errors go to `errors`.
pub(crate) fn resolve_type(
    program: &mut Program,
    scopes: &[ModuleScope],
    module: usize,
    t: &TypeExpr,
    errors: &mut Vec<Pending>,
) -> TypeId {
    let (path, args, span) = match t {
        TypeExpr::Unit(_) => return Program::UNIT,
        TypeExpr::Error(_) => return ERROR,
        TypeExpr::Named { path, args, span } => (path, args, span.clone()),
        TypeExpr::Tuple(parts, _) => {
            let mut elems = Vec::with_capacity(parts.len());
            for p in parts {
                elems.push(resolve_type(program, scopes, module, p, errors));
            }
            if elems.contains(&ERROR) {
                return ERROR;
            }
            return crate::lower::tuple_type(program, &elems);
        }
        TypeExpr::Fn { params, result, .. } => {
            let mut ps = Vec::with_capacity(params.len());
            for p in params {
                ps.push(resolve_type(program, scopes, module, p, errors));
            }
            let r = match result {
                Some(r) => resolve_type(program, scopes, module, r, errors),
                None => Program::UNIT,
            };
            if ps.contains(&ERROR) || r == ERROR {
                return ERROR;
            }
            return program.intern_type(Type::Func(ps, r));
        }
    };
    let mut resolved = Vec::with_capacity(args.len());
    for a in args {
        resolved.push(resolve_type(program, scopes, module, a, errors));
    }
    let arity = |want: usize, name: &str, errors: &mut Vec<Pending>| -> bool {
        if resolved.len() == want {
            return true;
        }
        let what = if want == 1 { "argument" } else { "arguments" };
        errors.push(
            Pending::new(
                "E0301",
                span.clone(),
                format!(
                    "`{name}` takes {want} type {what}, but {} {} given",
                    resolved.len(),
                    if resolved.len() == 1 { "was" } else { "were" }
                ),
                "wrong number of type arguments",
            )
            .help(match name {
                "List" => "write `List[Int]`",
                "Map" => "write `Map[String, Int]`",
                "Option" => "write `Option[Int]`",
                "Channel" => "write `Channel[Int]`",
                "Task" => "write `Task[Int]`",
                _ => "remove the brackets",
            }),
        );
        false
    };
    if resolved.contains(&ERROR) {
        return ERROR;
    }
    if path.len() == 1 {
        let name = path[0].name.as_str();
        if args.is_empty() && scopes[module].builtin_named.contains(name) {
            return ERROR;
        }
        let basic = match name {
            "Int" => Some(Program::INT),
            "Float" => Some(Program::FLOAT),
            "Bool" => Some(Program::BOOL),
            "String" => Some(Program::STR),
            _ => None,
        };
        if let Some(b) = basic {
            return if arity(0, name, errors) { b } else { ERROR };
        }
        let generic = match name {
            "List" if arity(1, name, errors) => Some(Type::List(resolved[0])),
            "Option" if arity(1, name, errors) => Some(Type::Option(resolved[0])),
            "Channel" if arity(1, name, errors) => Some(Type::Channel(resolved[0])),
            "Task" if arity(1, name, errors) => Some(Type::Task(resolved[0])),
            "Map" if arity(2, name, errors) => {
                let key = resolved[0];
                if ![Program::INT, Program::STR, Program::BOOL].contains(&key) {
                    errors.push(
                        Pending::new(
                            "E0302",
                            args[0].span(),
                            format!(
                                "a map key must be Int, String or Bool, not {}",
                                type_name(program, key)
                            ),
                            "not a key type",
                        )
                        .help("key the map by a String or Int that identifies the value"),
                    );
                    return ERROR;
                }
                Some(Type::Map(key, resolved[1]))
            }
            "List" | "Option" | "Channel" | "Task" | "Map" => return ERROR,
            _ => None,
        };
        if let Some(g) = generic {
            return program.intern_type(g);
        }
        if let Some(&ty) = scopes[module].types.get(name) {
            return if arity(0, name, errors) { ty } else { ERROR };
        }
        let mut d = Pending::new(
            "E0303",
            span.clone(),
            format!("unknown type `{name}`"),
            "no type of this name is declared or imported",
        );
        if let Some(owner) = scopes
            .iter()
            .find(|s| s.name != scopes[module].name && s.types.contains_key(name))
        {
            d = d.help(format!(
                "`{name}` is declared in module `{}`: write `{}.{name}` after `import {}`",
                owner.name, owner.name, owner.name
            ));
        } else if name == "Str" {
            d = d.help("the string type is `String`");
        } else if name == "Vec" || name == "Array" {
            d = d.help("the list type is `List[T]`");
        }
        errors.push(d);
        return ERROR;
    }
    // `module.Type`.
    let module_name = &path[0];
    let type_ident = &path[path.len() - 1];
    let Some(&target) = scopes[module].imports.get(&module_name.name) else {
        if scopes[module].missing_imports.contains(&module_name.name) {
            return ERROR;
        }
        errors.push(
            Pending::new(
                "E0304",
                module_name.span.clone(),
                format!("unknown module `{}`", module_name.name),
                "not imported",
            )
            .help(format!(
                "add `import {}` at the top of the file",
                module_name.name
            )),
        );
        return ERROR;
    };
    match scopes[target].types.get(&type_ident.name) {
        Some(&ty) => {
            if !type_exported(program, ty) {
                errors.push(
                    Pending::new(
                        "E0305",
                        type_ident.span.clone(),
                        format!(
                            "`{}` is private to module `{}`",
                            type_ident.name, module_name.name
                        ),
                        "not exported",
                    )
                    .help(format!(
                        "mark it `export` in {}.cove to use it here",
                        module_name.name
                    )),
                );
                return ERROR;
            }
            if arity(0, &type_ident.name, errors) {
                ty
            } else {
                ERROR
            }
        }
        None => {
            errors.push(Pending::new(
                "E0303",
                type_ident.span.clone(),
                format!(
                    "unknown type `{}` in module `{}`",
                    type_ident.name, module_name.name
                ),
                "no type of this name there",
            ));
            ERROR
        }
    }
}
