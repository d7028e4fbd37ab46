//! The program model: what the compiler produces, the verifier checks, the
//! VM runs and the profiler names.
//!
//! A [`Program`] is a flat set of tables — functions, constants, types,
//! structs, enums, modules — addressed by small indices. Flat tables rather
//! than a tree of modules, because everything that reads a program at run
//! time (the VM's `call`, a profile row, a debugger's frame) holds an index
//! and wants the thing it names in one step.

use std::fmt;
use std::ops::Range;

use crate::op::{Instr, Reg};
use crate::types::{EnumId, StructId, Type, TypeId};

mod constant_index;

use constant_index::ConstantIndex;

/// A function of a [`Program`]: an index into [`Program::functions`].
///
/// Ordered by index, which is the order the compiler emitted the functions
/// in, so a report that breaks ties by `FunctionId` is stable from run to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FunctionId(pub u32);

impl FunctionId {
    /// The index into [`Program::functions`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for FunctionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "f{}", self.0)
    }
}

/// An entry of [`Program::constants`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConstId(pub u32);

impl fmt::Display for ConstId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "k{}", self.0)
    }
}

/// A value known when the program is compiled.
#[derive(Debug, Clone, PartialEq)]
pub enum Constant {
    /// An `Int` too large for a `load.int` immediate.
    Int(i64),
    /// A `Float`.
    Float(f64),
    /// A `String` literal (or the literal pieces of an interpolation).
    Str(String),
    /// A named function used as a value: a closure of it that captures
    /// nothing, made once a task (as a string constant is) rather than at
    /// every use. Its type is the function's signature as a `fn` type.
    Function(FunctionId),
}

impl Constant {
    /// Whether loading this constant yields a heap reference.
    pub fn is_ref(&self) -> bool {
        matches!(self, Constant::Str(_) | Constant::Function(_))
    }
}

/// One source file: a module.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Module {
    /// The module's name: its file name without `.cove`.
    pub name: String,
    /// The path it was read from, as given to the compiler (`m.cove` for a
    /// module compiled from a string).
    pub path: String,
    /// The source text, so that printers and reports can show a line.
    pub source: String,
}

impl Module {
    /// The text of 1-based line `line`, without its line ending.
    pub fn line_text(&self, line: u32) -> Option<&str> {
        self.source.lines().nth(line.checked_sub(1)? as usize)
    }
}

/// A named local variable's debug information: where it lives and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Local {
    /// Its name in the source.
    pub name: String,
    /// Its Cove type.
    pub ty: TypeId,
    /// The register that holds it.
    pub register: Reg,
    /// The program counters at which the register holds it and the name
    /// means it.
    ///
    /// The compiler emits at most one live local of a name at each pc: the
    /// variable the name resolves to there. A `let` that hides a variable
    /// of the same name ends the hidden one's range at the instruction
    /// after its own initializer (`let x = x + 1` reads the old `x`); a
    /// variable hidden only inside an inner block has a second entry, live
    /// again from that block's end.
    pub live: Range<u32>,
}

/// A function's code and everything the VM, the collector, a debugger and a
/// profiler need to know of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    /// Its name in the source, `main`.
    pub name: String,
    /// The module that defines it.
    pub module: String,
    /// `module.name`, what reports and backtraces print.
    pub qualified: String,
    /// Whether other modules, and `Vm::run_entry`, may call it.
    pub exported: bool,
    /// The parameters' types; parameter `i` arrives in register `i`.
    pub params: Vec<TypeId>,
    /// The result's type.
    pub result: TypeId,
    /// How many registers a frame of it has.
    pub registers: u16,
    /// The reference map: `refs[r]` is whether register `r` holds a heap
    /// reference (or 0). One class per register for the whole function, so
    /// the collector's roots in a frame are exactly these registers.
    pub refs: Vec<bool>,
    /// The instructions.
    pub code: Vec<Instr>,
    /// `lines[pc]` is the 1-based source line instruction `pc` came from.
    pub lines: Vec<u32>,
    /// Named locals, for a debugger and for reports.
    pub locals: Vec<Local>,
}

impl Function {
    /// A function with no code yet: the shape a builder starts from.
    pub fn new(module: &str, name: &str) -> Function {
        Function {
            name: name.to_string(),
            module: module.to_string(),
            qualified: format!("{module}.{name}"),
            exported: false,
            params: Vec::new(),
            result: TypeId(0),
            registers: 0,
            refs: Vec::new(),
            code: Vec::new(),
            lines: Vec::new(),
            locals: Vec::new(),
        }
    }

    /// Adds a register of the given class (`true`: a reference) and
    /// returns it, keeping [`Function::registers`] and [`Function::refs`]
    /// in step.
    ///
    /// # Panics
    /// If the function already has `u16::MAX` registers.
    pub fn add_register(&mut self, is_ref: bool) -> Reg {
        let r = Reg(self.registers);
        self.registers = self
            .registers
            .checked_add(1)
            .expect("a function has at most u16::MAX registers");
        self.refs.push(is_ref);
        r
    }

    /// Appends `instr`, from source line `line`, and returns its pc,
    /// keeping [`Function::code`] and [`Function::lines`] in step.
    pub fn emit(&mut self, instr: Instr, line: u32) -> u32 {
        self.code.push(instr);
        self.lines.push(line);
        self.code.len() as u32 - 1
    }

    /// Whether register `r` is a ref register.
    pub fn is_ref(&self, r: Reg) -> bool {
        self.refs.get(r.0 as usize).copied().unwrap_or(false)
    }
}

/// A field of a struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: TypeId,
}

/// A user `struct`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructDef {
    /// Its name, `Point`.
    pub name: String,
    /// The module that defines it.
    pub module: String,
    /// Whether other modules may name it.
    pub exported: bool,
    /// The fields, in declaration order: `get.field`'s index is a position
    /// here.
    pub fields: Vec<Field>,
}

/// A variant of a user `enum`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// Its name, `Word`.
    pub name: String,
    /// Its payload's types, in order; empty for a variant without one.
    pub fields: Vec<TypeId>,
}

/// A user `enum`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumDef {
    /// Its name, `Token`.
    pub name: String,
    /// The module that defines it.
    pub module: String,
    /// Whether other modules may name it.
    pub exported: bool,
    /// The variants, in declaration order: `tag` answers a position here.
    pub variants: Vec<Variant>,
}

/// A whole compiled program: every module the entry imports, and the entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The modules, the entry module last.
    pub modules: Vec<Module>,
    /// Every function of every module.
    pub functions: Vec<Function>,
    /// The constant pool shared by all functions.
    pub constants: Vec<Constant>,
    /// The interned types. Entries 0 to 4 are always `()`, `Bool`, `Int`,
    /// `Float` and `String`, in that order (see [`Program::UNIT`] and its
    /// neighbours), so that a builder never needs to intern the basics.
    pub types: Vec<Type>,
    /// The user structs.
    pub structs: Vec<StructDef>,
    /// The user enums.
    pub enums: Vec<EnumDef>,
    /// Where each constant of the pool is, for [`Program::intern_constant`].
    constant_index: ConstantIndex,
}

impl Default for Program {
    fn default() -> Program {
        Program::new()
    }
}

impl Program {
    /// The type `()`.
    pub const UNIT: TypeId = TypeId(0);
    /// The type `Bool`.
    pub const BOOL: TypeId = TypeId(1);
    /// The type `Int`.
    pub const INT: TypeId = TypeId(2);
    /// The type `Float`.
    pub const FLOAT: TypeId = TypeId(3);
    /// The type `String`.
    pub const STR: TypeId = TypeId(4);

    /// An empty program with the basic types interned.
    pub fn new() -> Program {
        Program {
            modules: Vec::new(),
            functions: Vec::new(),
            constants: Vec::new(),
            types: vec![Type::Unit, Type::Bool, Type::Int, Type::Float, Type::Str],
            structs: Vec::new(),
            enums: Vec::new(),
            constant_index: ConstantIndex::default(),
        }
    }

    /// The function `id` names.
    ///
    /// # Panics
    /// If `id` is not a function of this program: ids come from the program
    /// itself, so a foreign one is a bug in the caller.
    pub fn function(&self, id: FunctionId) -> &Function {
        &self.functions[id.index()]
    }

    /// Every function and its id, in order.
    pub fn function_ids(&self) -> impl Iterator<Item = FunctionId> + '_ {
        (0..self.functions.len() as u32).map(FunctionId)
    }

    /// The qualified name of function `id`, `module.function`: what a
    /// backtrace and a profile print.
    pub fn function_name(&self, id: FunctionId) -> &str {
        self.functions
            .get(id.index())
            .map_or("<unknown function>", |f| f.qualified.as_str())
    }

    /// The source line instruction `pc` of function `id` came from.
    pub fn line_of(&self, id: FunctionId, pc: u32) -> Option<u32> {
        self.functions
            .get(id.index())?
            .lines
            .get(pc as usize)
            .copied()
    }

    /// The function `name` of module `module`, exported or not.
    pub fn find_function(&self, module: &str, name: &str) -> Option<FunctionId> {
        self.functions
            .iter()
            .position(|f| f.module == module && f.name == name)
            .map(|i| FunctionId(i as u32))
    }

    /// The module named `name`.
    pub fn module(&self, name: &str) -> Option<&Module> {
        self.modules.iter().find(|m| m.name == name)
    }

    /// The type `id` names.
    pub fn ty(&self, id: TypeId) -> &Type {
        &self.types[id.0 as usize]
    }

    /// The id of `ty`, interning it if it is new.
    pub fn intern_type(&mut self, ty: Type) -> TypeId {
        if let Some(i) = self.types.iter().position(|t| *t == ty) {
            return TypeId(i as u32);
        }
        self.types.push(ty);
        TypeId(self.types.len() as u32 - 1)
    }

    /// The id of `constant`, adding it to the pool if it is new.
    pub fn intern_constant(&mut self, constant: Constant) -> ConstId {
        self.constant_index.intern(&mut self.constants, constant)
    }

    /// Adds a function and returns its id.
    pub fn add_function(&mut self, function: Function) -> FunctionId {
        self.functions.push(function);
        FunctionId(self.functions.len() as u32 - 1)
    }

    /// The struct `id` names.
    pub fn struct_def(&self, id: StructId) -> &StructDef {
        &self.structs[id.0 as usize]
    }

    /// The fields of `ty`, when it names a struct of this program; `None`
    /// for any other type, and for an id this program has no type or
    /// struct for.
    pub fn struct_fields(&self, ty: TypeId) -> Option<&[Field]> {
        match self.types.get(ty.0 as usize) {
            Some(Type::Struct(s)) => self.structs.get(s.0 as usize).map(|d| &d.fields[..]),
            _ => None,
        }
    }

    /// The enum `id` names.
    pub fn enum_def(&self, id: EnumId) -> &EnumDef {
        &self.enums[id.0 as usize]
    }

    /// The Cove spelling of a type: `List[Map[String, Int]]`.
    ///
    /// A malformed table can make a type contain itself (`t5 = List[t5]`,
    /// which the verifier rejects); past a size no real type reaches, the
    /// spelling gives up with the id, `t5`, so this never recurses forever.
    pub fn type_name(&self, id: TypeId) -> String {
        self.type_name_within(id, &mut 256)
    }

    /// The spelling of `id`, naming at most `budget` more types.
    fn type_name_within(&self, id: TypeId, budget: &mut u32) -> String {
        if *budget == 0 {
            return id.to_string();
        }
        *budget -= 1;
        let mut name = |t: &TypeId| self.type_name_within(*t, budget);
        match self.types.get(id.0 as usize) {
            None => format!("<type {}>", id.0),
            Some(Type::Unit) => "()".to_string(),
            Some(Type::Bool) => "Bool".to_string(),
            Some(Type::Int) => "Int".to_string(),
            Some(Type::Float) => "Float".to_string(),
            Some(Type::Str) => "String".to_string(),
            Some(Type::List(t)) => format!("List[{}]", name(t)),
            Some(Type::Map(k, v)) => {
                let k = name(k);
                format!("Map[{k}, {}]", name(v))
            }
            Some(Type::Option(t)) => format!("Option[{}]", name(t)),
            Some(Type::Task(t)) => format!("Task[{}]", name(t)),
            Some(Type::Channel(t)) => format!("Channel[{}]", name(t)),
            Some(Type::Func(params, result)) => {
                let params: Vec<String> = params.iter().map(&mut name).collect();
                if self.types.get(result.0 as usize) == Some(&Type::Unit) {
                    format!("fn({})", params.join(", "))
                } else {
                    format!("fn({}) -> {}", params.join(", "), name(result))
                }
            }
            Some(Type::Struct(s)) => self
                .structs
                .get(s.0 as usize)
                .map_or_else(|| format!("<struct {}>", s.0), |d| d.name.clone()),
            Some(Type::Enum(e)) => self
                .enums
                .get(e.0 as usize)
                .map_or_else(|| format!("<enum {}>", e.0), |d| d.name.clone()),
        }
    }
}

/// The most functions a closure can name: a closure object's header keeps
/// its function in 24 bits.
pub const MAX_CLOSURE_FUNCTION: u32 = 1 << 24;

/// What a closure of one function is: the signature its callers see and
/// the struct its captures are laid out as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosureShape {
    /// The parameters a caller passes (the environment left out).
    pub params: Vec<TypeId>,
    /// The result.
    pub result: TypeId,
    /// The environment struct, when the closure captures anything: the
    /// function's last parameter.
    pub env: Option<StructId>,
}

impl Program {
    /// The shape of a closure of `func` that captures `captures` values, or
    /// why there can be none: with captures, the function's last parameter
    /// must be a struct of exactly that many fields (see `new.closure`).
    pub fn closure_shape(&self, func: FunctionId, captures: u16) -> Result<ClosureShape, String> {
        let f = self
            .functions
            .get(func.index())
            .ok_or_else(|| format!("there is no function {func}"))?;
        if func.0 >= MAX_CLOSURE_FUNCTION {
            return Err(format!(
                "a closure can name only the first {MAX_CLOSURE_FUNCTION} functions"
            ));
        }
        if captures == 0 {
            return Ok(ClosureShape {
                params: f.params.clone(),
                result: f.result,
                env: None,
            });
        }
        let env = match f.params.last().and_then(|t| self.types.get(t.0 as usize)) {
            Some(Type::Struct(s)) => *s,
            _ => {
                return Err(format!(
                    "{} captures {captures} values but its last parameter is not a struct",
                    f.qualified
                ));
            }
        };
        let fields = self
            .structs
            .get(env.0 as usize)
            .map_or(0, |d| d.fields.len());
        if fields != usize::from(captures) {
            return Err(format!(
                "{}'s environment has {fields} fields, not {captures}",
                f.qualified
            ));
        }
        Ok(ClosureShape {
            params: f.params[..f.params.len() - 1].to_vec(),
            result: f.result,
            env: Some(env),
        })
    }

    /// The type `fn(params) -> result` in the type table, if it is there.
    pub fn func_type(&self, params: &[TypeId], result: TypeId) -> Option<TypeId> {
        self.types
            .iter()
            .position(|t| matches!(t, Type::Func(p, r) if p == params && *r == result))
            .map(|i| TypeId(i as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_that_contains_itself_is_still_spelled_in_bounded_time() {
        let mut p = Program::new();
        p.types.push(Type::Map(TypeId(5), TypeId(5)));
        let name = p.type_name(TypeId(5));
        assert!(
            name.starts_with("Map[Map[") && name.contains("t5"),
            "{name}"
        );
        assert!(name.len() < 10_000);
    }
}
