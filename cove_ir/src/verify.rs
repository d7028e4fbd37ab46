//! The verifier: the one place a program is proven fit to run.
//!
//! The virtual machine reads registers without bounds checks, jumps without
//! checking the target and hands a frame's reference registers to the
//! collector as its roots. That is only sound for a program this module has
//! accepted, and [`program`] is the only way to say so: it gives a
//! [`Verified`], a proof that only this module can make, and the runtime
//! runs nothing else. A malformed program — from a compiler bug, or a
//! program written as text in a test — is rejected with a [`VerifyError`]
//! naming the function, the pc, the instruction and what is wrong.
//!
//! Why a value and not a flag: the proof borrows the program it is about,
//! so the program cannot change while the proof lives (a `Program`'s fields
//! are public, and a flag on it would outlive an edit), and code that needs
//! a proven program says so in its types instead of re-checking. Why here
//! and not in the runtime: the facts the VM's `unsafe` rests on are the
//! instruction set's facts, and the instruction set is this crate's; one
//! checker next to the opcode table cannot drift from it, where a second,
//! smaller one in the runtime did have to be kept in step by hand.
//!
//! # What a verified program is guaranteed
//!
//! For the program:
//! - the type table starts with `()`, `Bool`, `Int`, `Float`, `String` at
//!   [`Program::UNIT`] to [`Program::STR`]; every type a type names comes
//!   before it in the table (so no type contains itself and walking a type
//!   ends); every struct and enum a type names exists; a map's key type is
//!   `Int`, `String` or `Bool`; the field types of every struct and variant
//!   exist.
//!
//! For every function:
//! - its reference map has one entry a register (`refs.len() == registers`)
//!   and its line table one entry an instruction (`lines.len() == code.len()`);
//! - its parameters fit in its registers, and parameter `i`'s register is of
//!   the class of parameter `i`'s type; its parameter and result types exist;
//! - its code is not empty and its last instruction is a `return`,
//!   `return.unit` or `jump`, so execution never runs off the end;
//! - every local names an existing register of its type's class, an
//!   existing type, and a live range within the code, so a debugger can read
//!   a local by its type.
//!
//! For every instruction:
//! - every register operand is below the function's register count, and
//!   every `base, count` run lies wholly below it;
//! - at every instruction control can reach from the function's first
//!   (code after an endless loop never runs, and a compiler that lowers
//!   it for its diagnostics may leave a register of any class there),
//!   every register an opcode reads or writes as a number is a num register
//!   and every one it uses as a reference is a ref register (per
//!   [`OperandKind`] and [`Function::refs`](crate::program::Function::refs)),
//!   and the registers whose class comes from context agree with it: `move`'s two
//!   sides, `load.const` with the constant's kind, `to-str`, `some`, `unwrap`,
//!   `get.list`, `set.list` and `new.list` with their type operand,
//!   `get.field`, `set.field` and `new.struct` with the struct's field types,
//!   `get.payload` and `new.variant` with the variant's payload types,
//!   `return` with the function's result type (`return.unit` needs a result
//!   of a num class, whose 0 is a valid value);
//! - every jump target is a pc of the same function;
//! - every constant, function, type, struct and enum an operand names
//!   exists, and every field, variant and payload index is in range;
//! - a `call` or `spawn` passes exactly as many arguments as the callee has
//!   parameters, each of the class of its parameter, and a `call`'s result
//!   register is of the class of the callee's result type; an `add-call`
//!   is checked as the `call` it ends in, whose result goes to its first
//!   argument's register, which is a num register (the sum goes there);
//! - a `call.unpack` calls as `call` does a callee whose result is a
//!   struct of 1 to [`MAX_UNPACKED`] fields, has a register in the frame
//!   from its `dst` for each field, of the field's class, and its callee
//!   returns only right after a `return.unpacked` (the `return` after it,
//!   or after the `new.struct` after it, is where no jump lands); a
//!   `return.unpacked` returns exactly as many registers as its function's
//!   result, a struct of 1 to [`MAX_UNPACKED`] fields, has fields, each of
//!   its field's class;
//! - a `call-builtin` passes exactly the catalogue's arity, and every
//!   argument and result whose catalogue type is concrete (`Int`, `String`,
//!   `List[_]`, ...) is of that type's class.
//! - a `new.closure` of a function with captures names one whose last
//!   parameter is a struct of exactly that many fields (its environment),
//!   each capture of its field's class, and a function below 2^24 (the
//!   closure's header keeps it in 24 bits); a `call.closure`'s register
//!   after its arguments lies in the frame and is a ref register.
//!
//! Then, for every function that passed all of the above, a second pass
//! (a dataflow over the code, in `verify/flow.rs`) follows the Cove type
//! each ref register holds at each pc, starting from the parameters' types
//! and 0 in every other register, and proves:
//! - every reference an instruction reads is of the type the instruction
//!   needs: a `String` for `concat.str` and the string comparisons, struct
//!   `s` for `get.field s`, enum `e` for `get.payload e`, an enum for `tag`,
//!   a `List` for `len.list`, `List[T]` for `get.list ..., T`, an `Option`
//!   for `jump-none` and `jump-some`, `Option[T]` for `unwrap ..., T`, the
//!   parameter's type for a call's argument, the field's type for a field,
//!   the payload's for a payload, the element's for a list element, the
//!   result's for `return`;
//! - a register that holds values of different types on different paths
//!   into a pc is not read there (it may be written);
//! - a builtin's arguments agree on its type parameters (`T` of
//!   `List.push` is the list's element type), and each argument and the
//!   result register are of the class the bound signature gives — so a
//!   value typed by `T` never lands in a register of the other class.
//! - a `call.closure`'s callee holds a function value, `fn(T0, ..) -> R`,
//!   of exactly `count` parameters; each argument is of its parameter's
//!   type (and class) and the result register of `R`'s class; the value a
//!   `new.closure` makes is of the type of its function's signature
//!   (without the environment), which is in the type table. So every
//!   closure a register of type `fn(..) -> R` can hold has that arity and
//!   those classes, and the VM calls it without looking at its type.
//!
//! Together: every register access the VM makes is in bounds, every pc it
//! reaches holds an instruction, every table index it follows is in range,
//! every register holds what its class says (a ref register never receives
//! an integer's bits, so the collector's roots are exactly the references),
//! and every non-zero reference an instruction reads points at an object of
//! the kind the instruction expects — given that the runtime's builtins
//! give what their catalogue signatures say and that `run_entry` passes
//! arguments of the entry's parameter types, which are the runtime's to
//! keep. The VM may therefore read registers, fetch instructions and lay
//! out its reads of an object without checking them.
//!
//! # What it does not prove, and who does
//!
//! - **That a reference is not 0.** A ref register may hold 0 at a read —
//!   `None`, or a register not yet written on some path. The second pass
//!   does not prove initialisation, because a compiler may join a path that
//!   never runs (the exit of an exhaustive `match` that no arm took) without
//!   writing the register. The VM tests for 0 where it reads a reference
//!   as an object (a list, struct, enum value, map, task or channel; an
//!   `Option` it unwraps): one predictable branch, and a runtime error
//!   rather than another object's words. A string at 0 reads as empty.
//!   The compiler never emits such a read.
//! - **Code that cannot be reached** from the entry is checked by the first
//!   pass only: no value ever flows into it.
//! - **What is not about safety**: that a local's name is unique, that a
//!   line exists in the source, that names are consistent, that the
//!   program's `main` has the right signature (the runtime checks what it
//!   calls).
//!
//! # Cost
//!
//! The first pass is one walk over each function's code, constant work an
//! instruction (an instruction's operands are a small `Vec`). The second is
//! a dataflow whose facts are kept per basic block and rise at most twice
//! per register, so it revisits each block a few times; its memory is
//! blocks × registers. Both run once per program from source to run
//! (`cove_runtime::Vm::new` runs them, or an embedder that hands the VM a
//! [`Verified`] it made; the compiler does not), never while a program
//! runs. A verified program's *written* bound ([`Verified::clear_to`],
//! `verify/written.rs`) is a third dataflow, which rejects nothing: it
//! says how far a call and a return must clear a function's ref
//! registers, and the runtime asks it once a function when it digests the
//! program.

mod flow;
mod written;

use std::fmt;

use crate::builtins::Sig;
use crate::op::{Instr, MAX_UNPACKED, Operand, OperandKind, Reg, StretchEnd};
use crate::program::{Function, FunctionId, Program};
use crate::types::Type;

/// Why a program was rejected, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyError {
    /// The function, if the fault is in one.
    pub function: Option<FunctionId>,
    /// Its qualified name, or empty.
    pub function_name: String,
    /// The pc of the instruction, if the fault is in one.
    pub pc: Option<u32>,
    /// The instruction as [`crate::print::instruction`] prints it, or empty.
    pub instruction: String,
    /// What is wrong, in a sentence.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.function, self.pc) {
            (Some(_), Some(pc)) => write!(
                f,
                "{}@{pc}  {}: {}",
                self.function_name, self.instruction, self.message
            ),
            (Some(_), None) => write!(f, "{}: {}", self.function_name, self.message),
            _ => write!(f, "program: {}", self.message),
        }
    }
}

impl std::error::Error for VerifyError {}

/// A program that [`program`] has proven, and the proof of it: the only
/// way to get one is to verify a program, and the program cannot change
/// while the proof borrows it.
///
/// The proof's guarantees are named so that the code that relies on one
/// can say which (each `unsafe` block in `cove_runtime` names the
/// guarantees its `// SAFETY:` comment uses). The module documentation
/// says in full what each check is; these are the facts they add up to:
///
/// 1. **frame** — every function's reference map has one entry a register
///    and its parameters fit in its registers; every register operand is
///    below its function's register count, and every `base, count` run
///    (an instruction's `Base` operand is always followed by its `Count`)
///    lies wholly below it. A register read or written through a pointer
///    to the frame's first register, at any operand's index, stays inside
///    the frame.
/// 2. **ends** — every function has code, and its last instruction is a
///    `return`, `return.unit` or `jump`: stepping past any instruction but
///    the last lands on an instruction, and the last never steps.
/// 3. **targets** — every jump target is a pc of the jumping function.
/// 4. **tables** — every constant, function, type, struct and enum an
///    operand names exists, and every field, variant and payload index is
///    in range of its struct or enum; the type table starts with the five
///    basic types, and every type is made only of types before it.
/// 5. **arity** — a `call`, `add-call` or `spawn` passes exactly the callee's
///    parameter count (so, by *frame* for the callee, no more than its
///    registers); a `call-builtin` exactly the catalogue's arity; a
///    `new.struct` exactly the struct's fields and a `new.variant` exactly
///    the variant's payload. A `call.unpack` has a register in its frame
///    from its `dst` for each field of its callee's result, which a
///    `return.unpacked` of that callee returns exactly (at most
///    [`MAX_UNPACKED`]), and the callee reaches a `return` only through a
///    `return.unpacked`, so it never returns one reference to such a call.
/// 6. **classes** — every register an instruction uses as a number is a
///    num register and every one it uses as a reference is a ref register,
///    including those whose class comes from context (a constant, a type
///    operand, a field, a payload, a parameter, a result): a ref register
///    never receives an integer's bits, so a frame's ref registers are
///    exactly the collector's roots.
/// 7. **types** — every non-zero reference an instruction reads is of the
///    Cove type the instruction needs (the second pass), so the VM may lay
///    out its reads of an object without looking at its header.
/// 8. **divisor** — no instruction with a constant divisor
///    ([`Instr::constant_divisor`]: `div.int.imm`, `rem.int.imm` and the
///    fused remainders) divides by 0 or -1, the two divisors for which an
///    `i64` division can fail; and the exponent of a `div.int.pow2` or
///    `rem.int.pow2` is in 1..=62, so its divisor is an `Int` above 1.
/// 9. **lines** — every function's line table has one entry an
///    instruction, and every local lives in a register of its function,
///    of its type's class, over a range of its code: what a debugger reads
///    through the seam.
///
/// 10. **written** — for each function, the ref registers from
///     [`Verified::clear_to`] up are written, on every path from its entry
///     and from each of its calls' returns, before an instruction reads
///     one, an instruction that may collect runs (for a call, below its
///     window) or a local held in one is live. A call that writes 0 into
///     its callee's ref registers past its arguments only below that bound,
///     and a return that writes 0 into its caller's past the call's
///     arguments only below the caller's, leave none that anything reads
///     before the function writes it (see `verify/written.rs`).
///
/// None of this says a reference is not 0; the module documentation says
/// who checks that.
///
/// ```
/// use cove_ir::{parse, verify};
///
/// let text = "module m \"m.cove\"\n\
///             fn f0 one in m export\n  result t2\n  registers 1\n  refs\n\
///             @0  load.int r0, 1\n  @1  return r0\n";
/// let program = parse::program(text)?;
/// let proof = verify::program(&program)?;
/// assert!(std::ptr::eq(proof.program(), &program));
///
/// // A program that runs off its end has no proof.
/// let text = "module m \"m.cove\"\n\
///             fn f0 one in m export\n  result t2\n  registers 1\n  refs\n\
///             @0  load.int r0, 1\n";
/// let broken = parse::program(text)?;
/// assert!(verify::program(&broken).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Nothing but the verifier can make one: its field is private.
///
/// ```compile_fail,E0451
/// let program = cove_ir::program::Program::new();
/// let forged = cove_ir::verify::Verified { program: &program };
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Verified<'p> {
    program: &'p Program,
}

impl<'p> Verified<'p> {
    /// The program this proves.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// One past the last ref register of `function` that a call into it
    /// and a return into it must write 0 into (*written*): at most one past
    /// its last ref register, and at most its parameter count when no
    /// register past them needs it. Worked out on each call of this
    /// method, in time proportional to the function's instructions times
    /// its registers.
    pub fn clear_to(&self, function: FunctionId) -> u16 {
        written::clear_to(self.program.function(function))
    }
}

/// Proves the whole program, or gives the first fault found.
pub fn program(program: &Program) -> Result<Verified<'_>, VerifyError> {
    match errors(program).into_iter().next() {
        Some(e) => Err(e),
        None => Ok(Verified { program }),
    }
}

/// Every fault of the program, in order: the program's tables, then each
/// function's header and code.
pub fn errors(program: &Program) -> Vec<VerifyError> {
    let mut checker = Checker {
        program,
        errors: Vec::new(),
        fields_returned: std::collections::HashMap::new(),
    };
    checker.tables();
    let tables_ok = checker.errors.is_empty();
    // The second pass of one function reads the signatures of the others
    // (a call's or a spawn's callee), so it runs only when every
    // function's parameter and result types exist: a caller of a function
    // whose parameter type is out of the table would index past it (found
    // by the `ir_roundtrip` fuzz target). The first pass reports the bad
    // signature itself.
    let signatures_ok = program.function_ids().all(|id| {
        let f = program.function(id);
        f.params
            .iter()
            .chain([&f.result])
            .all(|t| checker.type_exists(*t))
    });
    for id in program.function_ids() {
        let before = checker.errors.len();
        checker.function(id);
        // The second pass indexes the tables and registers the first pass
        // has checked, so it runs only where that pass found nothing.
        if tables_ok && signatures_ok && checker.errors.len() == before {
            for (pc, message) in flow::check(program, program.function(id)) {
                checker.fail(At { id, pc: Some(pc) }, message);
            }
        }
    }
    checker.errors
}

/// The class a register must be of: `Some(true)` a ref, `Some(false)` a
/// num, `None` not known from the IR (see the module documentation).
type Class = Option<bool>;

/// Which instructions of `f` control can reach from its first: through
/// each instruction's fall-through (all but `jump` and the returns) and
/// its jump target. A target out of range is left to the checks that
/// report it.
fn reachable(f: &Function) -> Vec<bool> {
    let n = f.code.len();
    let mut seen = vec![false; n];
    let mut work = vec![0_usize];
    while let Some(pc) = work.pop() {
        if pc >= n || seen[pc] {
            continue;
        }
        seen[pc] = true;
        let instr = &f.code[pc];
        if let Some(target) = instr.target() {
            work.push(target as usize);
        }
        if instr.falls_through() {
            work.push(pc + 1);
        }
    }
    seen
}

fn class_name(is_ref: bool) -> &'static str {
    if is_ref { "ref" } else { "num" }
}

/// The class of a catalogue type, when it is concrete.
fn sig_class(sig: &Sig) -> Class {
    match sig {
        Sig::Unit | Sig::Bool | Sig::Int | Sig::Float => Some(false),
        Sig::Str | Sig::List(_) | Sig::Map(..) | Sig::Opt(_) | Sig::Task(_) | Sig::Channel(_) => {
            Some(true)
        }
        Sig::T | Sig::K | Sig::V => None,
    }
}

struct Checker<'p> {
    program: &'p Program,
    errors: Vec<VerifyError>,
    /// [`returns_fields`] of each function a `call.unpack` has called,
    /// worked out once: a walk of the callee's code, which a program
    /// calling it from ten thousand places would otherwise make ten
    /// thousand times.
    fields_returned: std::collections::HashMap<FunctionId, bool>,
}

/// Where a fault is: a function, and maybe an instruction of it.
#[derive(Clone, Copy)]
struct At {
    id: FunctionId,
    pc: Option<u32>,
}

impl<'p> Checker<'p> {
    fn fail_program(&mut self, message: String) {
        self.errors.push(VerifyError {
            function: None,
            function_name: String::new(),
            pc: None,
            instruction: String::new(),
            message,
        });
    }

    fn fail(&mut self, at: At, message: String) {
        let instruction = at.pc.map_or_else(String::new, |pc| {
            let f = self.program.function(at.id);
            crate::print::instruction(self.program, &f.code[pc as usize])
        });
        self.errors.push(VerifyError {
            function: Some(at.id),
            function_name: self.program.function_name(at.id).to_string(),
            pc: at.pc,
            instruction,
            message,
        });
    }

    fn type_exists(&self, ty: crate::types::TypeId) -> bool {
        (ty.0 as usize) < self.program.types.len()
    }

    /// The class of values of type `ty`; `None` if there is no such type
    /// (reported where the type is named).
    fn type_class(&self, ty: crate::types::TypeId) -> Class {
        self.program.types.get(ty.0 as usize).map(Type::is_ref)
    }

    fn tables(&mut self) {
        let p = self.program;
        let basics = [Type::Unit, Type::Bool, Type::Int, Type::Float, Type::Str];
        if p.types.len() < basics.len() || p.types[..basics.len()] != basics {
            self.fail_program(
                "the type table must start with (), Bool, Int, Float, String".to_string(),
            );
        }
        for (i, ty) in p.types.iter().enumerate() {
            let parts: Vec<crate::types::TypeId> = match ty {
                Type::List(t) | Type::Option(t) | Type::Task(t) | Type::Channel(t) => vec![*t],
                Type::Map(k, v) => vec![*k, *v],
                Type::Func(params, result) => params.iter().chain([result]).copied().collect(),
                Type::Struct(s) => {
                    if s.0 as usize >= p.structs.len() {
                        self.fail_program(format!(
                            "type t{i} names struct s{}, which does not exist",
                            s.0
                        ));
                    }
                    vec![]
                }
                Type::Enum(e) => {
                    if e.0 as usize >= p.enums.len() {
                        self.fail_program(format!(
                            "type t{i} names enum e{}, which does not exist",
                            e.0
                        ));
                    }
                    vec![]
                }
                _ => vec![],
            };
            for part in parts {
                if part.0 as usize >= i {
                    self.fail_program(format!(
                        "type t{i} is made of t{}, which does not come before it in the table",
                        part.0
                    ));
                }
            }
            if let Type::Map(k, _) = ty {
                if !matches!(
                    p.types.get(k.0 as usize),
                    Some(Type::Int | Type::Str | Type::Bool)
                ) {
                    self.fail_program(format!(
                        "type t{i} is a map whose key t{} is not Int, String or Bool",
                        k.0
                    ));
                }
            }
        }
        for (k, c) in p.constants.iter().enumerate() {
            // A function constant is a closure that captures nothing: its
            // function must take no environment, and its type must be in
            // the table for the second pass to give it.
            if let crate::program::Constant::Function(f) = c {
                match p.closure_shape(*f, 0) {
                    Ok(shape) if p.func_type(&shape.params, shape.result).is_none() => {
                        self.fail_program(format!(
                            "constant k{k}: the type of a closure of {f} is not in the type table"
                        ));
                    }
                    Ok(_) => {}
                    Err(message) => self.fail_program(format!("constant k{k}: {message}")),
                }
            }
        }
        for (s, def) in p.structs.iter().enumerate() {
            for field in &def.fields {
                if !self.type_exists(field.ty) {
                    self.fail_program(format!(
                        "field `{}` of struct s{s} has type {}, which does not exist",
                        field.name, field.ty
                    ));
                }
            }
        }
        for (e, def) in p.enums.iter().enumerate() {
            for variant in &def.variants {
                for ty in &variant.fields {
                    if !self.type_exists(*ty) {
                        self.fail_program(format!(
                            "variant `{}` of enum e{e} has a payload of type {ty}, which does not exist",
                            variant.name
                        ));
                    }
                }
            }
        }
    }

    fn function(&mut self, id: FunctionId) {
        let f = self.program.function(id);
        let at = At { id, pc: None };
        let registers = f.registers as usize;
        if f.refs.len() != registers {
            self.fail(
                at,
                format!(
                    "the reference map has {} entries for {} registers",
                    f.refs.len(),
                    registers
                ),
            );
        }
        if f.lines.len() != f.code.len() {
            self.fail(
                at,
                format!(
                    "the line table has {} entries for {} instructions",
                    f.lines.len(),
                    f.code.len()
                ),
            );
        }
        if f.params.len() > registers {
            self.fail(
                at,
                format!(
                    "{} parameters do not fit in {} registers",
                    f.params.len(),
                    registers
                ),
            );
        }
        for (i, ty) in f.params.iter().enumerate() {
            match self.type_class(*ty) {
                None => self.fail(
                    at,
                    format!("parameter {i} has type {ty}, which does not exist"),
                ),
                Some(class) if i < registers && f.is_ref(Reg(i as u16)) != class => self.fail(
                    at,
                    format!(
                        "parameter {i} is of type {}, a {} class, but r{i} is a {} register",
                        self.program.type_name(*ty),
                        class_name(class),
                        class_name(!class)
                    ),
                ),
                Some(_) => {}
            }
        }
        if !self.type_exists(f.result) {
            self.fail(at, format!("the result type {} does not exist", f.result));
        }
        for local in &f.locals {
            let r = local.register.0 as usize;
            if r >= registers {
                self.fail(
                    at,
                    format!(
                        "local `{}` lives in {}, past the {registers} registers",
                        local.name, local.register
                    ),
                );
            } else if let Some(class) = self.type_class(local.ty) {
                if f.is_ref(local.register) != class {
                    self.fail(
                        at,
                        format!(
                            "local `{}` is of type {}, a {} class, but lives in {}, a {} register",
                            local.name,
                            self.program.type_name(local.ty),
                            class_name(class),
                            local.register,
                            class_name(!class)
                        ),
                    );
                }
            }
            if !self.type_exists(local.ty) {
                self.fail(
                    at,
                    format!(
                        "local `{}` has type {}, which does not exist",
                        local.name, local.ty
                    ),
                );
            }
            if local.live.start > local.live.end || local.live.end as usize > f.code.len() {
                self.fail(
                    at,
                    format!(
                        "local `{}` is live over @{}..@{}, which is not a range of the {} instructions",
                        local.name,
                        local.live.start,
                        local.live.end,
                        f.code.len()
                    ),
                );
            }
        }
        match f.code.last() {
            None => self.fail(at, "the function has no code".to_string()),
            Some(last) if !last.falls_through() => {}
            Some(_) => self.fail(
                At {
                    id,
                    pc: Some(f.code.len() as u32 - 1),
                },
                "the last instruction must be a return or a jump: execution would run off the end"
                    .to_string(),
            ),
        }
        for (pc, reached) in reachable(f).into_iter().enumerate() {
            self.instruction(id, f, pc as u32, reached);
        }
    }

    fn instruction(&mut self, id: FunctionId, f: &Function, pc: u32, reachable: bool) {
        let at = At { id, pc: Some(pc) };
        let instr = &f.code[pc as usize];
        let kinds = instr.opcode().operand_kinds();
        let operands = instr.operands();
        let registers = f.registers as u32;
        let p = self.program;

        // The checks every operand of a kind gets, whatever the opcode.
        for (i, (kind, operand)) in kinds.iter().zip(&operands).enumerate() {
            match (kind, operand) {
                (OperandKind::Base, Operand::Reg(base)) => {
                    let count = match operands.get(i + 1) {
                        Some(Operand::Count(n)) => *n as u32,
                        _ => 0,
                    };
                    if base.0 as u32 + count > registers {
                        self.fail(
                            at,
                            format!(
                                "the run {base}, {count} reaches past the {registers} registers"
                            ),
                        );
                    }
                }
                (_, Operand::Reg(r)) => {
                    if r.0 as u32 >= registers {
                        self.fail(
                            at,
                            format!("register {r} is out of range: the function has {registers}"),
                        );
                        continue;
                    }
                    let wants = match kind {
                        OperandKind::DstNum | OperandKind::SrcNum => Some(false),
                        OperandKind::DstRef | OperandKind::SrcRef => Some(true),
                        _ => None,
                    };
                    // Classes are checked where the instruction can run,
                    // as below.
                    if let Some(wants) = wants.filter(|_| reachable) {
                        if f.is_ref(*r) != wants {
                            let usage = if wants { "a reference" } else { "a number" };
                            self.fail(
                                at,
                                format!(
                                    "{r} is used as {usage} but is a {} register",
                                    class_name(!wants)
                                ),
                            );
                        }
                    }
                }
                (_, operand) => {
                    if let Some(message) = missing(p, f, operand) {
                        self.fail(at, message);
                    }
                }
            }
        }

        // A division by a constant carries no check of its own.
        if let Some(value) = instr.failing_divisor() {
            self.fail(
                at,
                format!(
                    "the divisor {value} can fail, which {} never does: it needs the register form",
                    instr.opcode().mnemonic()
                ),
            );
        }
        if let Some(exponent) = instr.failing_exponent() {
            self.fail(
                at,
                format!(
                    "the exponent {exponent} is not in 1..=62, the powers of two {} divides by",
                    instr.opcode().mnemonic()
                ),
            );
        }

        // The checks that need the opcode's meaning: the classes of `any`
        // registers and of runs, indices into a struct or enum, arities.
        // Checked only where the instruction can run: code after an
        // endless loop is left by a compiler that lowers what it cannot
        // reach for its diagnostics, with a register of whatever class the
        // value that never came was given (see the module documentation).
        // The VM runs no instruction control cannot reach, so its trust in
        // classes needs them only where it can.
        for (register, class, what) in self.context(at, f, instr) {
            let Some(class) = class else { continue };
            if reachable && (register.0 as u32) < registers && f.is_ref(register) != class {
                self.fail(
                    at,
                    format!(
                        "{register} is a {} register, but {what} is of a {} class",
                        class_name(!class),
                        class_name(class)
                    ),
                );
            }
        }
    }

    /// The registers whose class the opcode's context fixes, each with the
    /// class and what fixes it; reports faults of arity and index on the way.
    fn context(&mut self, at: At, f: &Function, instr: &Instr) -> Vec<(Reg, Class, String)> {
        let p = self.program;
        let run = |base: Reg, classes: Vec<Class>, what: &str| -> Vec<(Reg, Class, String)> {
            classes
                .into_iter()
                .enumerate()
                .map(|(i, c)| {
                    (
                        Reg(base.0.saturating_add(i as u16)),
                        c,
                        format!("{what} {i}"),
                    )
                })
                .collect()
        };
        match *instr {
            Instr::Move { dst, src } => {
                let class = (src.0 < f.registers).then(|| f.is_ref(src));
                vec![(dst, class, format!("the source {src}"))]
            }
            Instr::Move2 {
                dst,
                src,
                second,
                from,
            } => {
                let class = |r: Reg| (r.0 < f.registers).then(|| f.is_ref(r));
                vec![
                    (dst, class(src), format!("the source {src}")),
                    (second, class(from), format!("the source {from}")),
                ]
            }
            Instr::LoadConst { dst, constant } => {
                let class = p.constants.get(constant.0 as usize).map(|c| c.is_ref());
                vec![(dst, class, format!("constant {constant}"))]
            }
            Instr::ToStr { src, ty, .. }
            | Instr::NewSome { src, ty, .. }
            | Instr::SetList { src, ty, .. }
            | Instr::PushList { src, ty, .. } => {
                vec![(src, self.type_class(ty), format!("a value of type {ty}"))]
            }
            Instr::Unwrap { dst, ty, .. }
            | Instr::GetList { dst, ty, .. }
            | Instr::GetListImm { dst, ty, .. }
            | Instr::StepGetList { dst, ty, .. } => {
                vec![(dst, self.type_class(ty), format!("a value of type {ty}"))]
            }
            Instr::NewList {
                ty, base, count, ..
            } => run(
                base,
                vec![self.type_class(ty); count as usize],
                &format!("an element of type {ty}, element"),
            ),
            // A sum is a number: the class of the result must be one (a
            // `()` result is a number register too, as for `return`).
            Instr::ReturnAddInt { .. } | Instr::ReturnAddIntImm { .. } => {
                if self.type_class(f.result) == Some(true) {
                    self.fail(
                        at,
                        format!(
                            "`{}` in a function whose result, {}, is a reference",
                            instr.opcode(),
                            p.type_name(f.result)
                        ),
                    );
                }
                vec![]
            }
            Instr::ReturnUnit {} => {
                if self.type_class(f.result) == Some(true) {
                    self.fail(
                        at,
                        format!(
                            "`return.unit` in a function whose result, {}, is a reference",
                            p.type_name(f.result)
                        ),
                    );
                }
                vec![]
            }
            Instr::Call {
                dst,
                func,
                base,
                count,
            }
            | Instr::Spawn {
                dst,
                func,
                base,
                count,
            }
            | Instr::CallUnpack {
                dst,
                func,
                base,
                count,
            }
            | Instr::AddCall {
                base: dst @ base,
                func,
                count,
                ..
            } => {
                let Some(callee) = p.functions.get(func.index()) else {
                    return vec![];
                };
                if count as usize != callee.params.len() {
                    self.fail(
                        at,
                        format!(
                            "{} takes {} arguments, not {count}",
                            callee.qualified,
                            callee.params.len()
                        ),
                    );
                    return vec![];
                }
                let classes = callee.params.iter().map(|t| self.type_class(*t)).collect();
                let mut checks = run(base, classes, &format!("parameter of {}", callee.qualified));
                if matches!(instr, Instr::Call { .. } | Instr::AddCall { .. }) {
                    checks.push((
                        dst,
                        self.type_class(callee.result),
                        format!("the result of {}", callee.qualified),
                    ));
                }
                if matches!(instr, Instr::AddCall { .. }) {
                    // The instruction writes an `Int` into its first
                    // argument: a num register, whatever the callee takes.
                    checks.push((base, Some(false), "the sum `add-call` writes".to_string()));
                }
                if matches!(instr, Instr::CallUnpack { .. }) {
                    checks.extend(self.unpacked_call(at, f, dst, func));
                }
                checks
            }
            Instr::ReturnUnpacked { base, count } => match self.unpacked_fields(f.result) {
                Some(classes) if classes.len() == usize::from(count) => {
                    run(base, classes, "field of the function's result, field")
                }
                _ => {
                    self.fail(
                        at,
                        format!(
                            "`return.unpacked` of {count} registers in a function whose result, {}, is not a struct of {count} fields (and at most {MAX_UNPACKED})",
                            p.type_name(f.result)
                        ),
                    );
                    vec![]
                }
            },
            Instr::CallBuiltin {
                dst,
                builtin,
                base,
                count,
            } => {
                let signature = builtin.signature();
                if count as usize != signature.arity() {
                    self.fail(
                        at,
                        format!(
                            "{} takes {} arguments, not {count}",
                            builtin.label(),
                            signature.arity()
                        ),
                    );
                    return vec![];
                }
                let classes = signature
                    .receiver
                    .iter()
                    .chain(signature.params)
                    .map(sig_class)
                    .collect();
                let mut checks = run(base, classes, &format!("argument of {}", builtin.label()));
                checks.push((
                    dst,
                    sig_class(&signature.result),
                    format!("the result of {}", builtin.label()),
                ));
                checks
            }
            Instr::NewStruct {
                ty, base, count, ..
            } => {
                let Some(def) = p.structs.get(ty.0 as usize) else {
                    return vec![];
                };
                if count as usize != def.fields.len() {
                    self.fail(
                        at,
                        format!(
                            "struct {} has {} fields, not {count}",
                            def.name,
                            def.fields.len()
                        ),
                    );
                    return vec![];
                }
                let classes = def.fields.iter().map(|fd| self.type_class(fd.ty)).collect();
                run(base, classes, &format!("field of {}", def.name))
            }
            Instr::GetField {
                dst: reg,
                ty,
                field,
                ..
            }
            | Instr::SetField {
                src: reg,
                ty,
                field,
                ..
            } => {
                let Some(def) = p.structs.get(ty.0 as usize) else {
                    return vec![];
                };
                match def.fields.get(field as usize) {
                    Some(fd) => vec![(
                        reg,
                        self.type_class(fd.ty),
                        format!("field `{}` of {}", fd.name, def.name),
                    )],
                    None => {
                        self.fail(
                            at,
                            format!(
                                "struct {} has no field #{field}: it has {}",
                                def.name,
                                def.fields.len()
                            ),
                        );
                        vec![]
                    }
                }
            }
            Instr::NewVariant {
                ty,
                variant,
                base,
                count,
                ..
            } => {
                let Some(payload) = self.variant(at, ty, variant) else {
                    return vec![];
                };
                if count as usize != payload.len() {
                    self.fail(
                        at,
                        format!(
                            "the variant's payload has {} fields, not {count}",
                            payload.len()
                        ),
                    );
                    return vec![];
                }
                let classes = payload.iter().map(|t| self.type_class(*t)).collect();
                run(base, classes, "payload field")
            }
            Instr::GetPayload {
                dst,
                ty,
                variant,
                field,
                ..
            } => {
                let Some(payload) = self.variant(at, ty, variant) else {
                    return vec![];
                };
                match payload.get(field as usize) {
                    Some(t) => vec![(dst, self.type_class(*t), format!("payload field #{field}"))],
                    None => {
                        self.fail(
                            at,
                            format!(
                                "the variant has no payload field #{field}: it has {}",
                                payload.len()
                            ),
                        );
                        vec![]
                    }
                }
            }
            Instr::NewMap { key, .. } => {
                if self.type_exists(key) && !matches!(p.ty(key), Type::Int | Type::Str | Type::Bool)
                {
                    self.fail(
                        at,
                        format!(
                            "a map's key must be Int, String or Bool, not {}",
                            p.type_name(key)
                        ),
                    );
                }
                vec![]
            }
            Instr::NewClosure {
                func, base, count, ..
            } => match p.closure_shape(func, count) {
                Ok(shape) => match shape.env {
                    Some(env) => {
                        let def = &p.structs[env.0 as usize];
                        let classes = def.fields.iter().map(|fd| self.type_class(fd.ty)).collect();
                        run(
                            base,
                            classes,
                            &format!("capture of {}", p.function_name(func)),
                        )
                    }
                    None => vec![],
                },
                Err(message) => {
                    self.fail(at, message);
                    vec![]
                }
            },
            Instr::CallClosure { base, count, .. } | Instr::MoveCallClosure { base, count, .. } => {
                // The arity and classes depend on the callee's type, which
                // the second pass follows; here only the closure's slot,
                // which must be in the frame. Of either class: the VM
                // writes the closure there for the callee, whose frame the
                // collector scans as the callee's while it runs, and after
                // the call the caller finds it as `call` leaves every
                // register past its arguments (a ref register cleared to 0,
                // a num register holding unspecified bits).
                let slot = u32::from(base.0) + u32::from(count);
                if slot >= u32::from(f.registers) {
                    self.fail(
                        at,
                        format!(
                            "the closure's slot r{slot} after the arguments is past the frame's {} registers",
                            f.registers
                        ),
                    );
                }
                // The move's source is of the class of the register it
                // goes to, the first argument's; the flow pass checks its
                // type against the callee's first parameter.
                match *instr {
                    Instr::MoveCallClosure { src, .. } => {
                        if count == 0 {
                            self.fail(
                                at,
                                format!(
                                    "`move-call.closure` moves {src} into no argument: its count is 0"
                                ),
                            );
                        }
                        let class = (base.0 < f.registers).then(|| f.is_ref(base));
                        vec![(src, class, format!("the first argument {base}"))]
                    }
                    _ => vec![],
                }
            }
            // `return` and the guarded returns.
            _ => match instr.returned() {
                Some(src) => vec![(
                    src,
                    self.type_class(f.result),
                    "the function's result".to_string(),
                )],
                None => vec![],
            },
        }
    }

    /// The classes of the fields of `ty`, if it is a struct that
    /// `call.unpack` and `return.unpacked` can take apart: one of 1 to
    /// [`MAX_UNPACKED`] fields.
    fn unpacked_fields(&self, ty: crate::types::TypeId) -> Option<Vec<Class>> {
        let fields = self.program.struct_fields(ty)?;
        (1..=MAX_UNPACKED)
            .contains(&fields.len())
            .then(|| fields.iter().map(|fd| self.type_class(fd.ty)).collect())
    }

    /// The checks of a `call.unpack`'s result registers, `dst` and the ones
    /// after it, one a field of `callee`'s result, and of `callee` itself,
    /// which must return its fields to such a call ([`returns_fields`]).
    fn unpacked_call(
        &mut self,
        at: At,
        f: &Function,
        dst: Reg,
        func: FunctionId,
    ) -> Vec<(Reg, Class, String)> {
        let callee = self.program.function(func);
        let Some(classes) = self.unpacked_fields(callee.result) else {
            self.fail(
                at,
                format!(
                    "{} returns {}, not a struct of 1 to {MAX_UNPACKED} fields for `call.unpack` to take apart",
                    callee.qualified,
                    self.program.type_name(callee.result)
                ),
            );
            return vec![];
        };
        if u32::from(dst.0) + classes.len() as u32 > u32::from(f.registers) {
            self.fail(
                at,
                format!(
                    "the result's {} fields from {dst} reach past the {} registers",
                    classes.len(),
                    f.registers
                ),
            );
            return vec![];
        }
        let returns = *self
            .fields_returned
            .entry(func)
            .or_insert_with(|| returns_fields(callee));
        if !returns {
            self.fail(
                at,
                format!(
                    "{} has a return that does not come right after a `return.unpacked`: it could return one reference to registers that wait for its fields",
                    callee.qualified
                ),
            );
        }
        classes
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                (
                    Reg(dst.0.saturating_add(i as u16)),
                    c,
                    format!("field {i} of the result of {}", callee.qualified),
                )
            })
            .collect()
    }

    /// The payload types of variant `variant` of enum `ty`, reporting a
    /// variant that does not exist.
    fn variant(
        &mut self,
        at: At,
        ty: crate::types::EnumId,
        variant: u16,
    ) -> Option<&'p [crate::types::TypeId]> {
        let def = self.program.enums.get(ty.0 as usize)?;
        match def.variants.get(variant as usize) {
            Some(v) => Some(&v.fields),
            None => {
                self.fail(
                    at,
                    format!(
                        "enum {} has no variant #{variant}: it has {}",
                        def.name,
                        def.variants.len()
                    ),
                );
                None
            }
        }
    }
}

/// Whether `f` returns its result's fields to a `call.unpack`, never the
/// result itself: every instruction of it that returns is a `return`
/// that comes right after a `return.unpacked`, or after a `new.struct`
/// that comes right after one, with no jump landing on the `return` or
/// the `new.struct`. Control then reaches a `return` only through a
/// `return.unpacked`, which returns to a caller at a `call.unpack` and
/// falls through for any other. (What the fields are is the
/// `return.unpacked`'s own check.)
fn returns_fields(f: &Function) -> bool {
    let targets: std::collections::HashSet<u32> = f.code.iter().filter_map(Instr::target).collect();
    let lands = |pc: usize| targets.contains(&(pc as u32));
    let unpacked = |pc: usize| matches!(f.code[pc], Instr::ReturnUnpacked { .. });
    f.code.iter().enumerate().all(|(pc, instr)| {
        // Every opcode that may leave the frame, by `op.rs`'s one list of
        // them, so that a return form added there is held to this too;
        // but the `return.unpacked` that guards the rest.
        let returns = matches!(
            instr.opcode().stretch_end(),
            StretchEnd::Return | StretchEnd::Conditional
        ) && !matches!(instr, Instr::ReturnUnpacked { .. });
        if !returns {
            return true;
        }
        let Instr::Return { src } = *instr else {
            return false;
        };
        if pc == 0 || lands(pc) {
            return false;
        }
        match f.code[pc - 1] {
            Instr::ReturnUnpacked { .. } => true,
            Instr::NewStruct { dst, .. } => {
                dst == src && pc >= 2 && !lands(pc - 1) && unpacked(pc - 2)
            }
            _ => false,
        }
    })
}

/// What an operand that indexes a table names that does not exist, if it
/// does: a jump target, a constant, a function, a type, a struct, an enum.
fn missing(p: &Program, f: &Function, operand: &Operand) -> Option<String> {
    match *operand {
        Operand::Target(t) if t as usize >= f.code.len() => Some(format!(
            "the target @{t} is outside the function's {} instructions",
            f.code.len()
        )),
        Operand::Const(k) if k.0 as usize >= p.constants.len() => Some(format!(
            "constant {k} does not exist: the pool has {}",
            p.constants.len()
        )),
        Operand::Func(g) if g.index() >= p.functions.len() => Some(format!(
            "function {g} does not exist: the program has {}",
            p.functions.len()
        )),
        Operand::Type(t) if t.0 as usize >= p.types.len() => Some(format!(
            "type {t} does not exist: the table has {}",
            p.types.len()
        )),
        Operand::Struct(s) if s.0 as usize >= p.structs.len() => Some(format!(
            "struct s{} does not exist: the program has {}",
            s.0,
            p.structs.len()
        )),
        Operand::Enum(e) if e.0 as usize >= p.enums.len() => Some(format!(
            "enum e{} does not exist: the program has {}",
            e.0,
            p.enums.len()
        )),
        _ => None,
    }
}

/// Whether an operand of this kind takes its class from the opcode's
/// context rather than from its kind; the tests use it to check that
/// [`Checker::context`] covers every such operand.
#[cfg(test)]
fn is_any(kind: OperandKind) -> bool {
    matches!(kind, OperandKind::DstAny | OperandKind::SrcAny)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::Opcode;

    #[test]
    fn every_base_operand_is_followed_by_its_count() {
        // The *frame* guarantee checks a run as `base` and the operand
        // after it; an opcode whose run were laid out otherwise would go
        // unchecked.
        for opcode in Opcode::ALL {
            let kinds = opcode.operand_kinds();
            for (i, kind) in kinds.iter().enumerate() {
                if *kind == OperandKind::Base {
                    assert_eq!(kinds.get(i + 1), Some(&OperandKind::Count), "{opcode}");
                }
                if *kind == OperandKind::Count {
                    assert_eq!(
                        kinds.get(i.wrapping_sub(1)),
                        Some(&OperandKind::Base),
                        "{opcode}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_register_whose_class_comes_from_context_is_given_one() {
        let mut p = Program::new();
        p.constants.push(crate::program::Constant::Int(0));
        p.structs.push(crate::program::StructDef {
            name: "S".to_string(),
            module: "m".to_string(),
            exported: false,
            fields: vec![crate::program::Field {
                name: "x".to_string(),
                ty: Program::INT,
            }],
        });
        p.enums.push(crate::program::EnumDef {
            name: "E".to_string(),
            module: "m".to_string(),
            exported: false,
            variants: vec![crate::program::Variant {
                name: "V".to_string(),
                fields: vec![Program::INT],
            }],
        });
        let mut f = Function::new("m", "f");
        f.add_register(false);
        // A struct result, which `call.unpack` can take apart.
        f.result = p.intern_type(Type::Struct(crate::types::StructId(0)));
        p.add_function(f.clone());
        let mut checker = Checker {
            program: &p,
            errors: Vec::new(),
            fields_returned: std::collections::HashMap::new(),
        };
        for opcode in Opcode::ALL {
            let instr = Instr::sample(*opcode);
            let given = checker.context(
                At {
                    id: FunctionId(0),
                    pc: None,
                },
                &f,
                &instr,
            );
            for (kind, operand) in opcode.operand_kinds().iter().zip(instr.operands()) {
                // A closure call's result has the class of its callee's
                // result type, which only the flow pass knows; it checks
                // it wherever the call can run (`Flow::call_closure`). So
                // does the value a fused Option test takes out, the class
                // of the type the flow pass knows its Option to hold.
                let from_flow = matches!(
                    opcode,
                    Opcode::CallClosure
                        | Opcode::MoveCallClosure
                        | Opcode::JumpNoneUnwrap
                        | Opcode::JumpSomeUnwrap
                ) && *kind == OperandKind::DstAny;
                if is_any(*kind) && !from_flow {
                    assert!(
                        given.iter().any(|(r, _, _)| Operand::Reg(*r) == operand),
                        "{opcode}: a {kind:?} operand has no class from context"
                    );
                }
            }
        }
    }
}
