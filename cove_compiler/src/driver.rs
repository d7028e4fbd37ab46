//! The compiler's passes in order, over one module or a module graph.
//!
//! 1. **Load** (files only): read the entry, parse it, follow its imports to
//!    sibling files depth-first; a missing module is reported at every
//!    `import` line that names it, in every module that imports it. Modules are ordered dependencies first
//!    (where there is an order: modules may import each other), the entry
//!    last. Import cycles are allowed, as mutual references within a Rust
//!    crate or a Swift module are: passes 2 to 4 declare every module's
//!    types and functions before any body is checked, so no module needs
//!    another to be compiled first. Only a module importing itself is an
//!    error (it is always a slip).
//! 2. **Declare types**: every struct and enum of every module gets its id
//!    first, so fields may refer to any type, recursively and across modules.
//! 3. **Fill in types**: field and payload types are resolved.
//! 4. **Declare functions**: parameter and result types, so bodies can
//!    call any function regardless of order.
//! 5. **Constants**: every `const` is declared, then evaluated
//!    ([`crate::consts`]), so a constant may name one declared anywhere.
//! 6. **Bodies**: each is checked and lowered ([`crate::lower`]).
//!
//! Every pass runs even when an earlier one found errors in another item,
//! so one run reports everything; a program is returned only if nothing
//! was found, and only after the `cove_ir` verifier accepts it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use cove_ir::program::EnumDef;
use cove_ir::program::{Field, Function, FunctionId, Module, Program, StructDef, Variant};
use cove_ir::types::{EnumId, StructId, Type};

use crate::ast::{File, Ident, Item};
use crate::diagnostics::{Diagnostics, Pending};
use crate::lines::LineStarts;
use crate::lower::lower_function;
use crate::parser::parse_file;
use crate::resolve::{ModuleScope, resolve_type};

/// One module's source and syntax tree.
pub(crate) struct Unit {
    pub name: String,
    pub path: String,
    pub source: String,
    pub ast: File,
    pub errors: Vec<Pending>,
    pub warnings: Vec<Pending>,
}

impl Unit {
    pub(crate) fn parse(name: &str, path: &str, source: String) -> Unit {
        let mut errors = Vec::new();
        let ast = parse_file(&source, &mut errors);
        Unit {
            name: name.to_string(),
            path: path.to_string(),
            source,
            ast,
            errors,
            warnings: Vec::new(),
        }
    }
}

impl Unit {
    /// A unit of the entry file's bytes. Bytes that are not UTF-8 are an E0600
    /// at the first bad byte's line and column; the rest of the file is
    /// still parsed (with the bad bytes replaced), so the other errors in
    /// it are reported too.
    pub(crate) fn from_bytes(name: &str, path: &str, bytes: Vec<u8>) -> Unit {
        match String::from_utf8(bytes) {
            Ok(source) => Unit::parse(name, path, source),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let source = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let mut unit = Unit::parse(name, path, source);
                // The text before `at` is the file's own, so the offset is
                // the same in the replaced text, where U+FFFD begins there.
                let bad = Pending::new(
                    "E0600",
                    at..at + char::REPLACEMENT_CHARACTER.len_utf8(),
                    format!("`{path}` is not UTF-8 text"),
                    "this byte does not begin a UTF-8 character",
                )
                .help("save the file as UTF-8");
                // (An imported file that is not UTF-8 is reported at its
                // `import`, as E0601, like any module that cannot be read.)
                unit.errors.insert(0, bad);
                unit
            }
        }
    }
}

/// Loads the entry file and every module it imports, dependencies first.
pub(crate) fn load(entry: &Path) -> Result<Vec<Unit>, Diagnostics> {
    let name = entry
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = entry.parent().map(Path::to_path_buf).unwrap_or_default();
    let path = entry.display().to_string();
    let source = match std::fs::read(entry) {
        Ok(bytes) => bytes,
        Err(e) => {
            let mut diags = Diagnostics::new();
            let f = diags.add_file(&path, "");
            diags.push(
                f,
                Pending::new(
                    "E0600",
                    0..0,
                    format!("cannot read `{path}`: {e}"),
                    "the file could not be read",
                )
                .help("check that the path is right and the file is readable"),
            );
            return Err(diags);
        }
    };
    let mut loader = Loader {
        sources: Sources::Dir(dir),
        units: Vec::new(),
        state: HashMap::new(),
        pending_files: Vec::new(),
    };
    let root = Unit::from_bytes(&name, &path, source);
    loader.visit(root);
    finish(loader)
}

/// Loads the module `entry` of `modules` (each a name and its source) and
/// every module it imports from among them, dependencies first: what
/// [`load`] does, with the sources in memory instead of on disk. A module
/// `m` is shown as `m.cove`.
pub(crate) fn load_sources(
    entry: &str,
    modules: &[(&str, &str)],
) -> Result<Vec<Unit>, Diagnostics> {
    let known: Vec<(String, String)> = modules
        .iter()
        .map(|(n, s)| (n.to_string(), s.to_string()))
        .collect();
    let source = match known.iter().find(|(n, _)| n == entry) {
        Some((_, s)) => s.clone(),
        None => {
            let mut diags = Diagnostics::new();
            let f = diags.add_file(&format!("{entry}.cove"), "");
            diags.push(
                f,
                Pending::new(
                    "E0600",
                    0..0,
                    format!("no module `{entry}` among the sources given"),
                    "the entry module is missing",
                ),
            );
            return Err(diags);
        }
    };
    let mut loader = Loader {
        sources: Sources::Memory(known),
        units: Vec::new(),
        state: HashMap::new(),
        pending_files: Vec::new(),
    };
    loader.visit(Unit::parse(entry, &format!("{entry}.cove"), source));
    finish(loader)
}

/// The loaded units, with the problems of their imports reported in the
/// files that import.
fn finish(loader: Loader) -> Result<Vec<Unit>, Diagnostics> {
    let mut units = loader.units;
    // Problems with imports are reported in the file that imports.
    for (importer, d) in loader.pending_files {
        if let Some(u) = units.iter_mut().find(|u| u.name == importer) {
            u.errors.push(d);
        }
    }
    if units.is_empty() {
        return Err(Diagnostics::new());
    }
    Ok(units)
}

/// Whether a module is being visited (on the stack), done, or could not be
/// read.
#[derive(Clone, PartialEq, Eq)]
enum Visit {
    Active,
    Done,
    /// The file could not be read: the message and help every `import` of
    /// it is reported with, each at its own location.
    Failed {
        message: String,
        help: String,
    },
}

/// Where a loader finds the module an `import` names.
enum Sources {
    /// Files beside the entry file.
    Dir(PathBuf),
    /// Names and sources given in memory.
    Memory(Vec<(String, String)>),
}

impl Sources {
    /// How the module `name` is shown in diagnostics, and its source.
    fn read(&self, name: &str) -> (String, std::io::Result<String>) {
        match self {
            Sources::Dir(dir) => {
                let path = dir.join(format!("{name}.cove"));
                let read = std::fs::read_to_string(&path);
                (path.display().to_string(), read)
            }
            Sources::Memory(modules) => {
                let read = modules
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, s)| s.clone())
                    .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound));
                (format!("{name}.cove"), read)
            }
        }
    }
}

struct Loader {
    sources: Sources,
    units: Vec<Unit>,
    state: HashMap<String, Visit>,
    pending_files: Vec<(String, Pending)>,
}

impl Loader {
    fn visit(&mut self, unit: Unit) {
        self.state.insert(unit.name.clone(), Visit::Active);
        for import in unit.ast.imports.clone() {
            match self.state.get(&import.name) {
                Some(Visit::Done) => continue,
                // A module that imports one of its importers (a cycle): it
                // is loaded already, and every module's declarations are
                // collected before any body is checked, so the cycle needs
                // nothing more.
                Some(Visit::Active) => continue,
                // Read once, reported at every import: each importer (and
                // each line that imports it) needs its own error to be
                // fixed, as it would if it were the only one.
                Some(Visit::Failed { message, help }) => {
                    let d = missing(&import, message.clone(), help.clone());
                    self.pending_files.push((unit.name.clone(), d));
                    continue;
                }
                None => {}
            }
            let (shown, read) = self.sources.read(&import.name);
            match read {
                Ok(source) => {
                    let child = Unit::parse(&import.name, &shown, source);
                    self.visit(child);
                }
                Err(e) => {
                    let (message, help) = if e.kind() == std::io::ErrorKind::NotFound {
                        (
                            format!("cannot find module `{}`", import.name),
                            format!(
                                "a module is a file beside its importer: `{shown}` does not exist"
                            ),
                        )
                    } else {
                        (
                            format!("cannot read module `{}`: {e}", import.name),
                            format!("check that `{shown}` is readable"),
                        )
                    };
                    let d = missing(&import, message.clone(), help.clone());
                    self.pending_files.push((unit.name.clone(), d));
                    self.state
                        .insert(import.name.clone(), Visit::Failed { message, help });
                }
            }
        }
        self.state.insert(unit.name.clone(), Visit::Done);
        self.units.push(unit);
    }
}

/// The error at an `import` of a module whose file could not be read.
fn missing(import: &Ident, message: String, help: String) -> Pending {
    Pending::new("E0601", import.span.clone(), message, "imported here").help(help)
}

/// Compiles the loaded units (dependencies first, entry last).
pub(crate) fn compile_units(units: Vec<Unit>, single: bool) -> Result<Program, Diagnostics> {
    compile_units_warned(units, single).map(|(program, _)| program)
}

/// Compiles the loaded units (dependencies first, entry last) as
/// [`compile_units`] does, with the warnings of a program that compiled:
/// the passes of the module documentation, each a function below, in order.
pub(crate) fn compile_units_warned(
    mut units: Vec<Unit>,
    single: bool,
) -> Result<(Program, Diagnostics), Diagnostics> {
    let mut program = Program::new();
    let scopes = &mut scope_modules(&mut program, &mut units, single);
    declare_types(&mut program, scopes, &mut units);
    fill_in_types(&mut program, scopes, &mut units);
    let bodies = declare_functions(&mut program, scopes, &mut units);
    crate::consts::declare_consts(&mut program, scopes, &mut units);
    lower_bodies(&mut program, scopes, &mut units, bodies);
    report(&mut units)?;
    let mut warnings = Diagnostics::new();
    for u in &mut units {
        if u.warnings.is_empty() {
            continue;
        }
        let file = warnings.add_file(&u.path, &u.source);
        u.warnings.sort_by_key(|d| d.span.start);
        for d in u.warnings.drain(..) {
            warnings.push(file, d);
        }
    }
    Ok((program, warnings))
}

/// Registers each unit as a module of `program` and makes its scope, with
/// its imports resolved to units; a self-import, or (for a single module
/// compiled from text) any import, is reported.
fn scope_modules(program: &mut Program, units: &mut [Unit], single: bool) -> Vec<ModuleScope> {
    let index: HashMap<String, usize> = units
        .iter()
        .enumerate()
        .map(|(i, u)| (u.name.clone(), i))
        .collect();
    let mut scopes: Vec<ModuleScope> = Vec::with_capacity(units.len());
    for u in units.iter_mut() {
        let mut scope = ModuleScope {
            name: u.name.clone(),
            ..ModuleScope::default()
        };
        for import in &u.ast.imports {
            if import.name == u.name {
                u.errors.push(Pending::new(
                    "E0602",
                    import.span.clone(),
                    format!("the module `{}` imports itself", u.name),
                    "a module cannot import itself",
                ));
                continue;
            }
            match index.get(&import.name) {
                Some(&i) => {
                    scope.imports.insert(import.name.clone(), i);
                    if !u.ast.qualifiers.contains(&import.name) && !import.name.starts_with('_') {
                        u.warnings.push(
                            Pending::new(
                                "W0004",
                                import.span.clone(),
                                format!("unused import `{}`", import.name),
                                "nothing of this module is used",
                            )
                            .help(format!(
                                "remove the import, or use it as `{}.name`",
                                import.name
                            )),
                        );
                    }
                }
                None if single => {
                    scope.missing_imports.insert(import.name.clone());
                    u.errors.push(
                    Pending::new(
                        "E0601",
                        import.span.clone(),
                        format!("cannot find module `{}`", import.name),
                        "imported here",
                    )
                    .help("a single module compiled from text can import nothing; compile the files instead"),
                    );
                }
                // The loader reported it at the import.
                None => {
                    scope.missing_imports.insert(import.name.clone());
                }
            }
        }
        program.modules.push(Module {
            name: u.name.clone(),
            path: u.path.clone(),
            source: u.source.clone(),
        });
        scopes.push(scope);
    }

    scopes
}

/// Pass 2: gives every struct and enum of every module its id, so fields
/// and signatures may name any of them.
fn declare_types(program: &mut Program, scopes: &mut [ModuleScope], units: &mut [Unit]) {
    for (m, u) in units.iter_mut().enumerate() {
        for item in &u.ast.items {
            let (name, exported, is_struct, broken) = match item {
                Item::Struct(s) => (&s.name, s.exported, true, s.broken),
                Item::Enum(e) => (&e.name, e.exported, false, e.broken),
                Item::Fn(_) => continue,
            };
            if matches!(
                name.name.as_str(),
                "Int"
                    | "Float"
                    | "Bool"
                    | "String"
                    | "List"
                    | "Map"
                    | "Option"
                    | "Channel"
                    | "Task"
            ) {
                u.errors.push(Pending::new(
                    "E0306",
                    name.span.clone(),
                    format!("`{}` is the name of a builtin type", name.name),
                    "choose another name",
                ));
                // `struct Task` used as `Task`: the builtin wants type
                // arguments, so each use would be a second error.
                if matches!(
                    name.name.as_str(),
                    "List" | "Map" | "Option" | "Channel" | "Task"
                ) {
                    scopes[m].builtin_named.insert(name.name.clone());
                }
                continue;
            }
            if scopes[m].types.contains_key(&name.name) {
                u.errors.push(Pending::new(
                    "E0300",
                    name.span.clone(),
                    format!("the type `{}` is declared twice", name.name),
                    "a second declaration",
                ));
                continue;
            }
            let ty = if is_struct {
                program.structs.push(StructDef {
                    name: name.name.clone(),
                    module: u.name.clone(),
                    exported,
                    fields: Vec::new(),
                });
                program.intern_type(Type::Struct(StructId(program.structs.len() as u16 - 1)))
            } else {
                program.enums.push(EnumDef {
                    name: name.name.clone(),
                    module: u.name.clone(),
                    exported,
                    variants: Vec::new(),
                });
                program.intern_type(Type::Enum(EnumId(program.enums.len() as u16 - 1)))
            };
            scopes[m].types.insert(name.name.clone(), ty);
            if broken {
                scopes[m].broken_types.insert(ty);
            }
        }
    }
}

/// Pass 3: resolves the field and payload types of every struct and enum.
fn fill_in_types(program: &mut Program, scopes: &[ModuleScope], units: &mut [Unit]) {
    for (m, u) in units.iter_mut().enumerate() {
        for item in &u.ast.items {
            match item {
                Item::Struct(s) => {
                    let Some(&ty) = scopes[m].types.get(&s.name.name) else {
                        continue;
                    };
                    let Some(Type::Struct(sid)) = program.types.get(ty.0 as usize).cloned() else {
                        continue;
                    };
                    if !program.structs[sid.0 as usize].fields.is_empty() {
                        continue;
                    }
                    let mut fields: Vec<Field> = Vec::new();
                    let mut names = std::collections::HashSet::new();
                    for (fname, fty) in &s.fields {
                        // A broken declaration's types may be misread tokens.
                        let mut scratch = Vec::new();
                        let errors = if s.broken {
                            &mut scratch
                        } else {
                            &mut u.errors
                        };
                        let t = resolve_type(program, scopes, m, fty, errors);
                        if !names.insert(fname.name.as_str()) {
                            u.errors.push(Pending::new(
                                "E0307",
                                fname.span.clone(),
                                format!("the field `{}` is declared twice", fname.name),
                                "a second field of this name",
                            ));
                            continue;
                        }
                        fields.push(Field {
                            name: fname.name.clone(),
                            ty: t,
                        });
                    }
                    too_many(&mut u.errors, &s.name, "fields", fields.len());
                    program.structs[sid.0 as usize].fields = fields;
                }
                Item::Enum(e) => {
                    let Some(&ty) = scopes[m].types.get(&e.name.name) else {
                        continue;
                    };
                    let Some(Type::Enum(eid)) = program.types.get(ty.0 as usize).cloned() else {
                        continue;
                    };
                    if !program.enums[eid.0 as usize].variants.is_empty() {
                        continue;
                    }
                    let mut variants: Vec<Variant> = Vec::new();
                    let mut names = std::collections::HashSet::new();
                    for (vname, payload) in &e.variants {
                        let fields = payload
                            .iter()
                            .map(|t| {
                                let mut scratch = Vec::new();
                                let errors = if e.broken {
                                    &mut scratch
                                } else {
                                    &mut u.errors
                                };
                                resolve_type(program, scopes, m, t, errors)
                            })
                            .collect();
                        if !names.insert(vname.name.as_str()) {
                            u.errors.push(Pending::new(
                                "E0307",
                                vname.span.clone(),
                                format!("the variant `{}` is declared twice", vname.name),
                                "a second variant of this name",
                            ));
                            continue;
                        }
                        variants.push(Variant {
                            name: vname.name.clone(),
                            fields,
                        });
                    }
                    if variants.is_empty() && !e.broken {
                        u.errors.push(Pending::new(
                            "E0310",
                            e.name.span.clone(),
                            format!("the enum `{}` has no variants", e.name.name),
                            "an enum needs at least one variant",
                        ));
                    }
                    too_many(&mut u.errors, &e.name, "variants", variants.len());
                    for v in &variants {
                        too_many(
                            &mut u.errors,
                            &e.name,
                            "values in a variant",
                            v.fields.len(),
                        );
                    }
                    program.enums[eid.0 as usize].variants = variants;
                }
                Item::Fn(_) => {}
            }
        }
    }
}

/// Pass 4: declares every function with its parameter and result types,
/// and returns the bodies to lower: (module, item, function).
fn declare_functions(
    program: &mut Program,
    scopes: &mut [ModuleScope],
    units: &mut [Unit],
) -> Vec<(usize, usize, FunctionId)> {
    let entry = units.len() - 1;
    let mut bodies = Vec::new();
    for (m, u) in units.iter_mut().enumerate() {
        for (i, item) in u.ast.items.iter().enumerate() {
            let Item::Fn(f) = item else { continue };
            let params: Vec<_> = f
                .params
                .iter()
                .map(|(_, t)| resolve_type(program, scopes, m, t, &mut u.errors))
                .collect();
            let result = match &f.result {
                Some(t) => resolve_type(program, scopes, m, t, &mut u.errors),
                None => Program::UNIT,
            };
            if scopes[m].functions.contains_key(&f.name.name) {
                u.errors.push(Pending::new(
                    "E0308",
                    f.name.span.clone(),
                    format!("the function `{}` is declared twice", f.name.name),
                    "a second declaration",
                ));
                continue;
            }
            if m == entry
                && !f.broken
                && f.name.name == "main"
                && (!params.is_empty() || (result != Program::UNIT && result != Program::INT))
            {
                u.errors.push(
                    Pending::new(
                        "E0309",
                        f.name.span.clone(),
                        "`main` must take no parameters and return `Int` or nothing",
                        "this `main` has the wrong shape",
                    )
                    .help("write `fn main()` or `fn main() -> Int`; the program's arguments come from `args()`"),
                );
            }
            too_many(&mut u.errors, &f.name, "parameters", params.len());
            let mut function = Function::new(&u.name, &f.name.name);
            function.exported = f.exported;
            function.params = params;
            function.result = result;
            let id = program.add_function(function);
            scopes[m].functions.insert(f.name.name.clone(), id);
            if f.name.name.contains('.') && f.params.first().is_some_and(|(p, _)| p.name == "self")
            {
                scopes[m].methods.insert(id);
            }
            if f.broken {
                scopes[m].broken.insert(f.name.name.clone());
            }
            bodies.push((m, i, id));
        }
    }
    bodies
}

/// Pass 6: checks and lowers every body that parsed.
fn lower_bodies(
    program: &mut Program,
    scopes: &[ModuleScope],
    units: &mut [Unit],
    bodies: Vec<(usize, usize, FunctionId)>,
) {
    let starts: Vec<LineStarts> = units.iter().map(|u| LineStarts::new(&u.source)).collect();
    for (m, i, id) in bodies {
        let u = &mut units[m];
        let Item::Fn(f) = &u.ast.items[i] else {
            continue;
        };
        if f.broken {
            continue;
        }
        lower_function(
            program,
            scopes,
            m,
            &starts[m],
            &mut u.errors,
            &mut u.warnings,
            f,
            id,
        );
    }
}

/// Every unit's errors, sorted by position, as one report; `Ok` if none.
fn report(units: &mut [Unit]) -> Result<(), Diagnostics> {
    let mut diags = Diagnostics::new();
    for u in units.iter_mut() {
        if u.errors.is_empty() {
            continue;
        }
        let file = diags.add_file(&u.path, &u.source);
        u.errors.sort_by_key(|d| d.span.start);
        for d in u.errors.drain(..) {
            diags.push(file, d);
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(())
}

/// Reports a declaration with more members than an instruction's operands
/// can index (a field, variant or argument position is 16 bits, and a
/// frame must hold them all).
fn too_many(errors: &mut Vec<Pending>, name: &crate::ast::Ident, what: &str, count: usize) {
    let limit = crate::lower::MAX_MEMBERS;
    if count > limit {
        errors.push(Pending::new(
            "E0311",
            name.span.clone(),
            format!(
                "`{}` has {count} {what}; at most {limit} are allowed",
                name.name
            ),
            "too large",
        ));
    }
}
