//! The verifier's second pass: the Cove type each ref register holds at
//! each pc, and whether every instruction gets the kind of object it reads.
//!
//! The first pass checks classes: a ref register is used as a reference.
//! That keeps the collector's roots exact but says nothing of *which*
//! object a reference points at — a `List` where `concat.str` wants a
//! `String`. This pass follows the types through the code: a forward
//! dataflow over the instructions, whose facts are, for each ref register,
//! "0", "a value of type T" or "values of different types on different
//! paths" (a join of two types that differ). A read of a ref register must
//! find the type the opcode, callee, field or builtin signature wants; a
//! register that holds different types on different paths may be written
//! again, but not read.
//!
//! Only ref registers are followed: what a num register holds (an `Int`,
//! `Bool` or `Float`) is 64 bits whatever its type, so its class, checked in
//! the first pass, is all safety needs. The types of num values inside
//! containers are followed, as part of the container's type, and are what
//! decides the class of a value a builtin takes or gives by its type
//! parameter (the `T` of `List.push`).
//!
//! A `call` lends the callee every register from its base up (the callee's
//! frame is a window of the caller's): afterwards the argument registers
//! hold whatever values of their class the callee left in its parameters,
//! so they are `Mixed` until written again, and every ref register after
//! them is 0, which the machine writes on the return.
//!
//! A ref register may hold 0 — `None`, or not yet written — at any read:
//! the dataflow does not prove initialisation, because a compiler may leave
//! a path that never runs (the "no arm matched" exit of an exhaustive
//! `match`) without writing the register it joins. What the VM does with
//! a 0 read as an object is in the parent module's documentation.
//!
//! # Cost
//!
//! The facts are small (`Copy`, 8 bytes), one per register, kept at the
//! start of each basic block and replayed through it, so memory grows with
//! blocks × registers. The lattice is three levels high, so each block is
//! revisited at most a few times for each register whose fact rises. Types
//! are interned into a table local to the pass, so comparing two is
//! comparing two integers.

use std::collections::HashMap;

use crate::builtins::Sig;
use crate::op::{Instr, OperandKind, Reg};
use crate::program::{Function, FunctionId, Program};
use crate::types::{Type, TypeId};

/// A type interned in [`Types`]: equal types have equal ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Ty(u32);

/// A type's outermost constructor, with its parts interned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Shape {
    Unit,
    Bool,
    Int,
    Float,
    Str,
    List(Ty),
    Map(Ty, Ty),
    Option(Ty),
    Struct(u16),
    Enum(u16),
    Task(Ty),
    Channel(Ty),
    /// A function type, by the index in `Program::types` of the first
    /// entry of its structure (so two spellings of one type are one shape).
    Func(u32),
}

/// Structural types, interned: the program's own, and those the code
/// builds that the program's table may not hold (`List[T]` of a `new.list`).
struct Types<'p> {
    program: &'p Program,
    shapes: Vec<Shape>,
    ids: HashMap<Shape, Ty>,
    /// The interned id of each entry of `Program::types`.
    of_program: Vec<Ty>,
}

impl<'p> Types<'p> {
    /// Interns the program's types. The first pass has checked that each
    /// type's parts come before it, so each part is already interned.
    fn new(program: &'p Program) -> Types<'p> {
        let mut types = Types {
            program,
            shapes: Vec::new(),
            ids: HashMap::new(),
            of_program: Vec::new(),
        };
        let mut funcs: HashMap<(Vec<Ty>, Ty), u32> = HashMap::new();
        for (index, ty) in program.types.iter().enumerate() {
            if let Type::Func(params, result) = ty {
                let part = |t: &TypeId| types.of_program[t.0 as usize];
                let key = (params.iter().map(part).collect(), part(result));
                let first = *funcs.entry(key).or_insert(index as u32);
                let id = types.intern(Shape::Func(first));
                types.of_program.push(id);
                continue;
            }
            let part = |t: &TypeId| types.of_program[t.0 as usize];
            let shape = match ty {
                Type::Unit => Shape::Unit,
                Type::Bool => Shape::Bool,
                Type::Int => Shape::Int,
                Type::Float => Shape::Float,
                Type::Str => Shape::Str,
                Type::List(t) => Shape::List(part(t)),
                Type::Map(k, v) => Shape::Map(part(k), part(v)),
                Type::Option(t) => Shape::Option(part(t)),
                Type::Struct(s) => Shape::Struct(s.0),
                Type::Enum(e) => Shape::Enum(e.0),
                Type::Task(t) => Shape::Task(part(t)),
                Type::Channel(t) => Shape::Channel(part(t)),
                Type::Func(..) => unreachable!("function types are interned above"),
            };
            let id = types.intern(shape);
            types.of_program.push(id);
        }
        types
    }

    fn intern(&mut self, shape: Shape) -> Ty {
        if let Some(id) = self.ids.get(&shape) {
            return *id;
        }
        let id = Ty(self.shapes.len() as u32);
        self.shapes.push(shape);
        self.ids.insert(shape, id);
        id
    }

    fn of(&self, id: TypeId) -> Ty {
        self.of_program[id.0 as usize]
    }

    fn shape(&self, t: Ty) -> Shape {
        self.shapes[t.0 as usize]
    }

    fn is_ref(&self, t: Ty) -> bool {
        !matches!(
            self.shape(t),
            Shape::Unit | Shape::Bool | Shape::Int | Shape::Float
        )
    }

    /// The Cove spelling, for messages.
    fn name(&self, t: Ty) -> String {
        match self.shape(t) {
            Shape::Unit => "()".to_string(),
            Shape::Bool => "Bool".to_string(),
            Shape::Int => "Int".to_string(),
            Shape::Float => "Float".to_string(),
            Shape::Str => "String".to_string(),
            Shape::List(e) => format!("List[{}]", self.name(e)),
            Shape::Map(k, v) => format!("Map[{}, {}]", self.name(k), self.name(v)),
            Shape::Option(e) => format!("Option[{}]", self.name(e)),
            Shape::Task(e) => format!("Task[{}]", self.name(e)),
            Shape::Channel(e) => format!("Channel[{}]", self.name(e)),
            Shape::Struct(s) => self.program.structs[s as usize].name.clone(),
            Shape::Enum(e) => self.program.enums[e as usize].name.clone(),
            Shape::Func(t) => self.program.type_name(TypeId(t)),
        }
    }
}

/// What a ref register holds at a pc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Val {
    /// 0 on every path: `None`, or not yet written.
    Null,
    /// A value of this type (or 0) on every path.
    Known(Ty),
    /// Values of different types on different paths.
    Mixed,
}

impl Val {
    fn join(self, other: Val) -> Val {
        match (self, other) {
            (Val::Null, x) | (x, Val::Null) => x,
            (Val::Known(a), Val::Known(b)) if a == b => Val::Known(a),
            _ => Val::Mixed,
        }
    }
}

/// What an instruction needs a ref register to hold.
#[derive(Debug, Clone, Copy)]
enum Want {
    Exactly(Ty),
    AnyOption,
    AnyEnum,
    AnyList,
    /// A function value, of any function type.
    AnyFunc,
}

/// What an instruction does with the types: what it reads, what it
/// writes, and faults found on the way (a builtin's arguments that do not
/// agree on its type parameters).
#[derive(Default)]
struct Effect {
    needs: Vec<(Reg, Want, String)>,
    writes: Vec<(Reg, Val)>,
    faults: Vec<String>,
}

/// Follows the types through `f`; each fault with its pc.
pub(super) fn check(program: &Program, f: &Function) -> Vec<(u32, String)> {
    let mut flow = Flow {
        types: Types::new(program),
        f,
    };
    flow.run()
}

struct Flow<'p> {
    types: Types<'p>,
    f: &'p Function,
}

/// The entry facts of every block of a function, a row of `width` a
/// block, and whether control has reached the block yet.
struct Facts {
    width: usize,
    rows: Vec<Val>,
    known: Vec<bool>,
}

impl Facts {
    fn row(&self, block: u32) -> &[Val] {
        let at = block as usize * self.width;
        &self.rows[at..at + self.width]
    }

    fn set(&mut self, block: u32, facts: &[Val]) {
        let at = block as usize * self.width;
        self.rows[at..at + self.width].copy_from_slice(facts);
        self.known[block as usize] = true;
    }

    /// Joins `facts` into the block's entry facts, and says whether they
    /// changed (the first facts to reach a block change them).
    fn join(&mut self, block: u32, facts: &[Val]) -> bool {
        if !self.known[block as usize] {
            self.set(block, facts);
            return true;
        }
        let at = block as usize * self.width;
        let mut changed = false;
        for (e, a) in self.rows[at..at + self.width].iter_mut().zip(facts) {
            let joined = e.join(*a);
            if joined != *e {
                *e = joined;
                changed = true;
            }
        }
        changed
    }
}

#[cfg(test)]
thread_local! {
    /// Blocks numbered and instructions replayed by the pass on this
    /// thread, in a test build: what the test of its cost counts.
    static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

impl<'p> Flow<'p> {
    /// Runs the dataflow to its fixed point, then checks every reachable
    /// instruction against the facts before it.
    ///
    /// Facts are kept per basic block, not per pc: a block's entry facts
    /// are stored and its instructions replayed from them, so memory grows
    /// with blocks × registers rather than instructions × registers. They
    /// are kept in one table, a row a block in the order of the code,
    /// reached by the block's number: a hash map from each block's pc to a
    /// vector of its own cost a hashed probe, scattered over memory, and
    /// an allocation for every block, which in a function of a million
    /// blocks (a `match` of 500,000 arms) made the pass slow down faster
    /// than the code grew, by cache misses rather than steps.
    fn run(&mut self) -> Vec<(u32, String)> {
        let f = self.f;
        let n = f.code.len();
        if n == 0 {
            return Vec::new();
        }
        // A block starts at pc 0, at every jump target and after every
        // instruction that jumps or returns.
        let mut leader = vec![false; n];
        leader[0] = true;
        for (pc, instr) in f.code.iter().enumerate() {
            if let Some(t) = instr.target() {
                if (t as usize) < n {
                    leader[t as usize] = true;
                }
            }
            let ends = instr.target().is_some() || !instr.falls_through();
            if ends && pc + 1 < n {
                leader[pc + 1] = true;
            }
        }
        // Each block's number, at its first pc, and each block's first pc.
        let mut block_of = vec![u32::MAX; n];
        let mut starts = Vec::new();
        for (pc, _) in leader.iter().enumerate().filter(|(_, l)| **l) {
            block_of[pc] = starts.len() as u32;
            starts.push(pc);
        }
        let width = f.registers as usize;
        let mut table = Facts {
            width,
            rows: vec![Val::Null; starts.len() * width],
            known: vec![false; starts.len()],
        };
        #[cfg(test)]
        STEPS.with(|s| s.set(s.get() + starts.len() as u64));

        let mut entry = vec![Val::Null; width];
        for (i, p) in f.params.iter().enumerate() {
            entry[i] = Val::Known(self.types.of(*p));
        }
        table.set(0, &entry);
        let mut work = vec![0usize];
        let mut queued = vec![false; n];
        queued[0] = true;
        let mut facts = Vec::with_capacity(width);
        while let Some(start) = work.pop() {
            queued[start] = false;
            facts.clear();
            facts.extend_from_slice(table.row(block_of[start]));
            let mut pc = start;
            loop {
                #[cfg(test)]
                STEPS.with(|s| s.set(s.get() + 1));
                let instr = &f.code[pc];
                let effect = self.effect(instr, &facts);
                self.apply(instr, &effect, &mut facts);
                // An instruction with a target ends its block, so the next
                // pc is a block's start whenever control goes anywhere but
                // on to it.
                let falls = successors(instr, pc).any(|s| s == pc + 1);
                if falls && pc + 1 < n && !leader[pc + 1] {
                    pc += 1;
                    continue;
                }
                for s in successors(instr, pc).filter(|s| *s < n) {
                    if table.join(block_of[s], &facts) && !queued[s] {
                        queued[s] = true;
                        work.push(s);
                    }
                }
                break;
            }
        }

        let mut faults = Vec::new();
        for (block, &start) in starts.iter().enumerate() {
            if !table.known[block] {
                continue;
            }
            facts.clear();
            facts.extend_from_slice(table.row(block as u32));
            let mut pc = start;
            loop {
                #[cfg(test)]
                STEPS.with(|s| s.set(s.get() + 1));
                let instr = &f.code[pc];
                let effect = self.effect(instr, &facts);
                for fault in &effect.faults {
                    faults.push((pc as u32, fault.clone()));
                }
                for (r, want, what) in &effect.needs {
                    if !f.is_ref(*r) {
                        continue;
                    }
                    if let Some(fault) = self.unmet(*r, facts[r.0 as usize], *want, what) {
                        faults.push((pc as u32, fault));
                    }
                }
                self.apply(instr, &effect, &mut facts);
                let falls = successors(instr, pc).any(|s| s == pc + 1);
                if !falls || pc + 1 >= n || leader[pc + 1] {
                    break;
                }
                pc += 1;
            }
        }
        faults
    }

    /// Writes the effect's results; a ref register the instruction writes
    /// that the effect does not type becomes `Mixed`, so an opcode this
    /// pass does not know can never leave a stale type behind.
    fn apply(&self, instr: &Instr, effect: &Effect, state: &mut [Val]) {
        let kinds = instr.opcode().operand_kinds();
        for (kind, operand) in kinds.iter().zip(instr.operands()) {
            if let (OperandKind::DstRef | OperandKind::DstAny, crate::op::Operand::Reg(r)) =
                (kind, operand)
            {
                if self.f.is_ref(r) {
                    state[r.0 as usize] = Val::Mixed;
                }
            }
        }
        for (r, val) in &effect.writes {
            if self.f.is_ref(*r) {
                state[r.0 as usize] = *val;
            }
        }
    }

    /// Why `val` in `r` does not meet `want`, if it does not.
    fn unmet(&self, r: Reg, val: Val, want: Want, what: &str) -> Option<String> {
        let wanted = match want {
            Want::Exactly(t) => format!("a {}", self.types.name(t)),
            Want::AnyOption => "an Option".to_string(),
            Want::AnyEnum => "an enum value".to_string(),
            Want::AnyList => "a List".to_string(),
            Want::AnyFunc => "a function value".to_string(),
        };
        let t = match val {
            Val::Null => return None,
            Val::Mixed => {
                return Some(format!(
                    "{r} holds values of different types on the paths that reach here, \
                     but {what} needs {wanted}"
                ));
            }
            Val::Known(t) => t,
        };
        let ok = match want {
            Want::Exactly(w) => w == t,
            Want::AnyOption => matches!(self.types.shape(t), Shape::Option(_)),
            Want::AnyEnum => matches!(self.types.shape(t), Shape::Enum(_)),
            Want::AnyList => matches!(self.types.shape(t), Shape::List(_)),
            Want::AnyFunc => matches!(self.types.shape(t), Shape::Func(_)),
        };
        (!ok).then(|| {
            format!(
                "{r} holds a {} here, but {what} needs {wanted}",
                self.types.name(t)
            )
        })
    }

    /// `new.closure`: the captures are of the environment's field types,
    /// and the value is of the function type of the closure's signature,
    /// which must be in the program's type table.
    fn new_closure(&mut self, e: &mut Effect, dst: Reg, func: FunctionId, base: Reg, count: u16) {
        let p = self.types.program;
        let Ok(shape) = p.closure_shape(func, count) else {
            return;
        };
        if let Some(env) = shape.env {
            let def = &p.structs[env.0 as usize];
            for (i, field) in def.fields.iter().enumerate() {
                e.needs.push((
                    Reg(base.0 + i as u16),
                    Want::Exactly(self.types.of(field.ty)),
                    format!("capture `{}` of {}", field.name, p.function_name(func)),
                ));
            }
        }
        match p.func_type(&shape.params, shape.result) {
            Some(t) => e.writes.push((dst, Val::Known(self.types.of(t)))),
            None => e.faults.push(format!(
                "the type of a closure of {} is not in the type table",
                p.function_name(func)
            )),
        }
    }

    /// `call.closure`: the callee is a function value whose type has
    /// `count` parameters, the arguments and the result register are of
    /// its types' classes, and the call lends the registers from `base` up
    /// as `call` does.
    fn call_closure(
        &mut self,
        e: &mut Effect,
        state: &[Val],
        dst: Reg,
        callee: Reg,
        base: Reg,
        count: u16,
    ) {
        let p = self.types.program;
        let lent = usize::from(base.0)..usize::from(self.f.registers);
        let args = usize::from(count);
        let mut result = Val::Mixed;
        e.needs
            .push((callee, Want::AnyFunc, "`call.closure`".to_string()));
        // A closure not yet written (the VM stops at it), or not a function
        // value (reported by the need above): no signature to check.
        if let Val::Known(t) = state[callee.0 as usize]
            && let Shape::Func(index) = self.types.shape(t)
        {
            let Type::Func(params, res) = &p.types[index as usize] else {
                unreachable!("a Func shape names a function type");
            };
            if params.len() != args {
                e.faults.push(format!(
                    "{callee} is a {}, which takes {} arguments, not {count}",
                    self.types.name(t),
                    params.len()
                ));
            } else {
                for (i, param) in params.iter().enumerate() {
                    let r = Reg(base.0 + i as u16);
                    let class = p.ty(*param).is_ref();
                    if self.f.is_ref(r) != class {
                        e.faults.push(format!(
                            "argument {i} in {r} is not of the class of the parameter's type {}",
                            p.type_name(*param)
                        ));
                    }
                    e.needs.push((
                        r,
                        Want::Exactly(self.types.of(*param)),
                        format!("parameter {i} of a {}", self.types.name(t)),
                    ));
                }
                if self.f.is_ref(dst) != p.ty(*res).is_ref() {
                    e.faults.push(format!(
                        "{dst} is not of the class of the result type {}",
                        p.type_name(*res)
                    ));
                }
                result = Val::Known(self.types.of(*res));
            }
        }
        for (i, r) in lent.enumerate() {
            let after = if i < args { Val::Mixed } else { Val::Null };
            e.writes.push((Reg(r as u16), after));
        }
        e.writes.push((dst, result));
    }

    fn effect(&mut self, instr: &Instr, state: &[Val]) -> Effect {
        let p = self.types.program;
        let mut e = Effect::default();
        let known = |t: Ty| Val::Known(t);
        match *instr {
            Instr::Move { dst, src } => e.writes.push((dst, state[src.0 as usize])),
            Instr::Move2 {
                dst,
                src,
                second,
                from,
            } => {
                // In order: the second move reads what the first wrote.
                let first = state[src.0 as usize];
                e.writes.push((dst, first));
                let then = if from == dst {
                    first
                } else {
                    state[from.0 as usize]
                };
                e.writes.push((second, then));
            }
            Instr::LoadConst { dst, constant } if p.constants[constant.0 as usize].is_ref() => {
                match &p.constants[constant.0 as usize] {
                    crate::program::Constant::Function(f) => {
                        // Checked with the tables: a closure of `f` that
                        // captures nothing, of a type in the table.
                        let t = p
                            .closure_shape(*f, 0)
                            .ok()
                            .and_then(|shape| p.func_type(&shape.params, shape.result));
                        match t {
                            Some(t) => e.writes.push((dst, known(self.types.of(t)))),
                            None => e.faults.push(format!(
                                "constant {constant} is not a closure of a known type"
                            )),
                        }
                    }
                    _ => {
                        let s = self.types.intern(Shape::Str);
                        e.writes.push((dst, known(s)));
                    }
                }
            }
            Instr::LoadNone { dst } => e.writes.push((dst, Val::Null)),
            Instr::ConcatStr { dst, a, b } => {
                let s = self.types.intern(Shape::Str);
                e.needs
                    .push((a, Want::Exactly(s), "`concat.str`".to_string()));
                e.needs
                    .push((b, Want::Exactly(s), "`concat.str`".to_string()));
                e.writes.push((dst, known(s)));
            }
            Instr::EqStr { a, b, .. }
            | Instr::NeStr { a, b, .. }
            | Instr::LtStr { a, b, .. }
            | Instr::LeStr { a, b, .. } => {
                let s = self.types.intern(Shape::Str);
                let what = format!("`{}`", instr.opcode());
                e.needs.push((a, Want::Exactly(s), what.clone()));
                e.needs.push((b, Want::Exactly(s), what));
            }
            Instr::ToStrInt { dst, .. } | Instr::ToStrFloat { dst, .. } => {
                let s = self.types.intern(Shape::Str);
                e.writes.push((dst, known(s)));
            }
            Instr::EqValue { a, b, ty, .. } => {
                let want = self.types.of(ty);
                e.needs
                    .push((a, Want::Exactly(want), "`eq.value`".to_string()));
                e.needs
                    .push((b, Want::Exactly(want), "`eq.value`".to_string()));
            }
            Instr::ToStr { dst, src, ty } => {
                let s = self.types.intern(Shape::Str);
                e.needs.push((
                    src,
                    Want::Exactly(self.types.of(ty)),
                    "`to-str`".to_string(),
                ));
                e.writes.push((dst, known(s)));
            }
            Instr::JumpNone { opt, .. } | Instr::JumpSome { opt, .. } => {
                e.needs
                    .push((opt, Want::AnyOption, format!("`{}`", instr.opcode())));
            }
            Instr::JumpIfList { list, .. } | Instr::JumpIfNotList { list, .. } => {
                let element = self.types.intern(Shape::Bool);
                let t = self.types.intern(Shape::List(element));
                e.needs
                    .push((list, Want::Exactly(t), format!("`{}`", instr.opcode())));
            }
            Instr::Call {
                dst, func, base, ..
            }
            | Instr::Spawn {
                dst, func, base, ..
            }
            | Instr::CallUnpack {
                dst, func, base, ..
            }
            | Instr::AddCall {
                base: dst @ base,
                func,
                ..
            } => {
                let callee = p.function(func);
                for (i, param) in callee.params.iter().enumerate() {
                    e.needs.push((
                        Reg(base.0 + i as u16),
                        Want::Exactly(self.types.of(*param)),
                        format!("parameter {i} of {}", callee.qualified),
                    ));
                }
                // A call lends the callee every register from `base` up
                // (see `Instr::Call`): the arguments come back holding
                // whatever of their class the callee left in its
                // parameters, and the ref registers after them as 0.
                if let Instr::Call { count, .. }
                | Instr::CallUnpack { count, .. }
                | Instr::AddCall { count, .. } = *instr
                {
                    let lent = usize::from(base.0)..usize::from(self.f.registers);
                    let args = usize::from(count);
                    for (i, r) in lent.enumerate() {
                        let after = if i < args { Val::Mixed } else { Val::Null };
                        e.writes.push((Reg(r as u16), after));
                    }
                }
                if let Instr::CallUnpack { .. } = instr {
                    // The first pass has checked the result is a struct of
                    // fields enough, in the frame.
                    let fields = p.struct_fields(callee.result).unwrap_or_default();
                    for (i, field) in fields.iter().enumerate() {
                        let t = self.types.of(field.ty);
                        e.writes.push((Reg(dst.0 + i as u16), known(t)));
                    }
                    return e;
                }
                let result = self.types.of(callee.result);
                let result = match instr {
                    Instr::Spawn { .. } => self.types.intern(Shape::Task(result)),
                    _ => result,
                };
                e.writes.push((dst, known(result)));
            }
            Instr::ReturnUnpacked { base, .. } => {
                // The first pass has checked the result is a struct of
                // `count` fields.
                let fields = p.struct_fields(self.f.result).unwrap_or_default();
                for (i, field) in fields.iter().enumerate() {
                    e.needs.push((
                        Reg(base.0 + i as u16),
                        Want::Exactly(self.types.of(field.ty)),
                        format!("field `{}` of the function's result", field.name),
                    ));
                }
            }
            Instr::CallBuiltin {
                dst, builtin, base, ..
            } => {
                self.builtin(&mut e, dst, builtin, base, state);
            }
            Instr::NewClosure {
                dst,
                func,
                base,
                count,
            } => self.new_closure(&mut e, dst, func, base, count),
            Instr::CallClosure {
                dst,
                callee,
                base,
                count,
            } => self.call_closure(&mut e, state, dst, callee, base, count),
            Instr::MoveCallClosure {
                dst,
                callee,
                base,
                count,
                src,
            } => {
                self.call_closure(&mut e, state, dst, callee, base, count);
                // The instruction writes the first argument itself, from
                // `src`: what the callee needs of it, `src` must hold.
                for need in &mut e.needs {
                    if need.0 == base {
                        need.0 = src;
                    }
                }
            }
            Instr::NewStruct { dst, ty, base, .. } => {
                let def = &p.structs[ty.0 as usize];
                for (i, field) in def.fields.iter().enumerate() {
                    e.needs.push((
                        Reg(base.0 + i as u16),
                        Want::Exactly(self.types.of(field.ty)),
                        format!("field `{}` of {}", field.name, def.name),
                    ));
                }
                let t = self.types.intern(Shape::Struct(ty.0));
                e.writes.push((dst, known(t)));
            }
            Instr::GetField {
                dst,
                obj,
                ty,
                field,
            } => {
                let def = &p.structs[ty.0 as usize];
                let s = self.types.intern(Shape::Struct(ty.0));
                e.needs
                    .push((obj, Want::Exactly(s), "`get.field`".to_string()));
                let t = self.types.of(def.fields[field as usize].ty);
                e.writes.push((dst, known(t)));
            }
            Instr::SetField {
                obj,
                ty,
                field,
                src,
            } => {
                let def = &p.structs[ty.0 as usize];
                let s = self.types.intern(Shape::Struct(ty.0));
                e.needs
                    .push((obj, Want::Exactly(s), "`set.field`".to_string()));
                let fd = &def.fields[field as usize];
                e.needs.push((
                    src,
                    Want::Exactly(self.types.of(fd.ty)),
                    format!("field `{}` of {}", fd.name, def.name),
                ));
            }
            Instr::NewVariant {
                dst,
                ty,
                variant,
                base,
                ..
            } => {
                let v = &p.enums[ty.0 as usize].variants[variant as usize];
                for (i, t) in v.fields.iter().enumerate() {
                    e.needs.push((
                        Reg(base.0 + i as u16),
                        Want::Exactly(self.types.of(*t)),
                        format!("payload field {i} of {}", v.name),
                    ));
                }
                let t = self.types.intern(Shape::Enum(ty.0));
                e.writes.push((dst, known(t)));
            }
            Instr::Tag { obj, .. } => e.needs.push((obj, Want::AnyEnum, "`tag`".to_string())),
            Instr::GetPayload {
                dst,
                obj,
                ty,
                variant,
                field,
            } => {
                let v = &p.enums[ty.0 as usize].variants[variant as usize];
                let t = self.types.intern(Shape::Enum(ty.0));
                e.needs
                    .push((obj, Want::Exactly(t), "`get.payload`".to_string()));
                let field = self.types.of(v.fields[field as usize]);
                e.writes.push((dst, known(field)));
            }
            Instr::NewSome { dst, src, ty } => {
                let inner = self.types.of(ty);
                e.needs
                    .push((src, Want::Exactly(inner), "`some`".to_string()));
                let t = self.types.intern(Shape::Option(inner));
                e.writes.push((dst, known(t)));
            }
            Instr::Unwrap { dst, opt, ty } => {
                let inner = self.types.of(ty);
                let t = self.types.intern(Shape::Option(inner));
                e.needs
                    .push((opt, Want::Exactly(t), "`unwrap`".to_string()));
                e.writes.push((dst, known(inner)));
            }
            Instr::JumpNoneUnwrap { dst, opt, .. } | Instr::JumpSomeUnwrap { dst, opt, .. } => {
                let what = format!("`{}`", instr.opcode());
                e.needs.push((opt, Want::AnyOption, what.clone()));
                // The value's type is the one `opt` is known to hold: no
                // operand names it (see the opcode). A register not yet
                // written holds `None`, whose 0 suits a register of
                // either class.
                let written = match state[opt.0 as usize] {
                    Val::Null => Val::Null,
                    Val::Known(t) => match self.types.shape(t) {
                        Shape::Option(inner) => {
                            if self.f.is_ref(dst) != self.types.is_ref(inner) {
                                e.faults.push(format!(
                                    "{dst} is not of the class of {}, the value {what} takes out of {opt}",
                                    self.types.name(inner)
                                ));
                            }
                            known(inner)
                        }
                        // Not an Option: the need above reports it.
                        _ => Val::Mixed,
                    },
                    // Types that differ by path: the need reports it too.
                    Val::Mixed => Val::Mixed,
                };
                e.writes.push((dst, written));
            }
            Instr::NewList {
                dst,
                ty,
                base,
                count,
            } => {
                let element = self.types.of(ty);
                for i in 0..count {
                    e.needs.push((
                        Reg(base.0 + i),
                        Want::Exactly(element),
                        format!("element {i} of the list"),
                    ));
                }
                let t = self.types.intern(Shape::List(element));
                e.writes.push((dst, known(t)));
            }
            Instr::GetList { dst, list, ty, .. }
            | Instr::GetListImm { dst, list, ty, .. }
            | Instr::StepGetList { dst, list, ty, .. } => {
                let element = self.types.of(ty);
                let t = self.types.intern(Shape::List(element));
                e.needs
                    .push((list, Want::Exactly(t), format!("`{}`", instr.opcode())));
                e.writes.push((dst, known(element)));
            }
            Instr::SetList { list, src, ty, .. } => {
                let element = self.types.of(ty);
                let t = self.types.intern(Shape::List(element));
                e.needs
                    .push((list, Want::Exactly(t), "`set.list`".to_string()));
                e.needs
                    .push((src, Want::Exactly(element), "`set.list`".to_string()));
            }
            Instr::PushList { list, src, ty } => {
                let element = self.types.of(ty);
                let t = self.types.intern(Shape::List(element));
                e.needs
                    .push((list, Want::Exactly(t), "`push.list`".to_string()));
                e.needs
                    .push((src, Want::Exactly(element), "`push.list`".to_string()));
            }
            Instr::LenList { list, .. } => {
                e.needs
                    .push((list, Want::AnyList, "`len.list`".to_string()));
            }
            Instr::NewMap { dst, key, value } => {
                let (k, v) = (self.types.of(key), self.types.of(value));
                let t = self.types.intern(Shape::Map(k, v));
                e.writes.push((dst, known(t)));
            }
            Instr::NewChannel { dst, ty } => {
                let inner = self.types.of(ty);
                let t = self.types.intern(Shape::Channel(inner));
                e.writes.push((dst, known(t)));
            }
            // `return` and the guarded returns.
            _ => {
                if let Some(src) = instr.returned() {
                    let result = self.types.of(self.f.result);
                    e.needs.push((
                        src,
                        Want::Exactly(result),
                        "the function's result".to_string(),
                    ));
                }
            }
        }
        e
    }

    /// A builtin call: binds the signature's type parameters from the
    /// arguments whose types are known, checks every argument against the
    /// bound signature, and types the result.
    fn builtin(
        &mut self,
        e: &mut Effect,
        dst: Reg,
        builtin: crate::builtins::Builtin,
        base: Reg,
        state: &[Val],
    ) {
        let signature = builtin.signature();
        let sigs: Vec<&Sig> = signature
            .receiver
            .iter()
            .chain(signature.params.iter())
            .collect();
        let label = builtin.label();
        let mut binds: [Option<Ty>; 3] = [None; 3];
        for (i, sig) in sigs.iter().enumerate() {
            let r = Reg(base.0 + i as u16);
            if !self.f.is_ref(r) {
                continue;
            }
            match state[r.0 as usize] {
                Val::Null => {}
                Val::Mixed => e.faults.push(format!(
                    "{r} holds values of different types on the paths that reach here, \
                     but argument {i} of {label} needs one"
                )),
                Val::Known(t) => {
                    if !self.bind(sig, t, &mut binds) {
                        e.faults.push(format!(
                            "{r} holds a {} here, which argument {i} of {label} does not take{}",
                            self.types.name(t),
                            self.bound_note(&binds)
                        ));
                    }
                }
            }
        }
        // A num register passed where the bound signature wants a reference
        // (or the reverse, caught by the first pass where the signature is
        // concrete).
        for (i, sig) in sigs.iter().enumerate() {
            let r = Reg(base.0 + i as u16);
            if let Some(t) = self.instantiate(sig, &binds) {
                if self.types.is_ref(t) && !self.f.is_ref(r) {
                    e.faults.push(format!(
                        "argument {i} of {label} is a {}, a reference, but {r} is a num register",
                        self.types.name(t)
                    ));
                }
            }
        }
        match self.instantiate(&signature.result, &binds) {
            Some(t) => {
                if self.types.is_ref(t) != self.f.is_ref(dst) {
                    e.faults.push(format!(
                        "{label} gives a {}, but {dst} is a {} register",
                        self.types.name(t),
                        if self.f.is_ref(dst) { "ref" } else { "num" }
                    ));
                }
                e.writes.push((dst, Val::Known(t)));
            }
            // A type parameter no argument fixes: the only value of it
            // there could be is in a receiver that is 0, which the builtin
            // faults on (or, for an Option, finds `None` in).
            None => e.writes.push((dst, Val::Null)),
        }
    }

    fn bound_note(&self, binds: &[Option<Ty>; 3]) -> String {
        let names = ["T", "K", "V"];
        let bound: Vec<String> = binds
            .iter()
            .zip(names)
            .filter_map(|(b, n)| b.map(|t| format!("{n} = {}", self.types.name(t))))
            .collect();
        if bound.is_empty() {
            String::new()
        } else {
            format!(" (with {})", bound.join(", "))
        }
    }

    /// Matches `t` against `sig`, binding `T`, `K`, `V`; false on a clash.
    fn bind(&mut self, sig: &Sig, t: Ty, binds: &mut [Option<Ty>; 3]) -> bool {
        let slot = match sig {
            Sig::T => Some(0),
            Sig::K => Some(1),
            Sig::V => Some(2),
            _ => None,
        };
        if let Some(slot) = slot {
            return match binds[slot] {
                Some(b) => b == t,
                None => {
                    binds[slot] = Some(t);
                    true
                }
            };
        }
        match (sig, self.types.shape(t)) {
            (Sig::Unit, Shape::Unit)
            | (Sig::Bool, Shape::Bool)
            | (Sig::Int, Shape::Int)
            | (Sig::Float, Shape::Float)
            | (Sig::Str, Shape::Str) => true,
            (Sig::List(s), Shape::List(u))
            | (Sig::Opt(s), Shape::Option(u))
            | (Sig::Task(s), Shape::Task(u))
            | (Sig::Channel(s), Shape::Channel(u)) => self.bind(s, u, binds),
            (Sig::Map(a, b), Shape::Map(u, v)) => self.bind(a, u, binds) && self.bind(b, v, binds),
            _ => false,
        }
    }

    /// `sig` with its type parameters replaced; `None` if one is unbound.
    fn instantiate(&mut self, sig: &Sig, binds: &[Option<Ty>; 3]) -> Option<Ty> {
        let shape = match sig {
            Sig::T => return binds[0],
            Sig::K => return binds[1],
            Sig::V => return binds[2],
            Sig::Unit => Shape::Unit,
            Sig::Bool => Shape::Bool,
            Sig::Int => Shape::Int,
            Sig::Float => Shape::Float,
            Sig::Str => Shape::Str,
            Sig::List(s) => Shape::List(self.instantiate(s, binds)?),
            Sig::Map(k, v) => {
                let k = self.instantiate(k, binds)?;
                Shape::Map(k, self.instantiate(v, binds)?)
            }
            Sig::Opt(s) => Shape::Option(self.instantiate(s, binds)?),
            Sig::Task(s) => Shape::Task(self.instantiate(s, binds)?),
            Sig::Channel(s) => Shape::Channel(self.instantiate(s, binds)?),
        };
        Some(self.types.intern(shape))
    }
}

/// The pcs control may reach after `instr` at `pc` ([`Instr::successors`]).
pub(super) fn successors(instr: &Instr, pc: usize) -> impl Iterator<Item = usize> {
    instr.successors(pc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::{Opcode, Operand};
    use crate::program::{ConstId, EnumDef, Field, FunctionId, StructDef, Variant};
    use crate::types::{EnumId, StructId};

    /// A `match` of `arms` integer arms, as the compiler lowers one: a
    /// test a block, each arm's body a block that returns, and a
    /// reference register that each body writes, so that there are facts
    /// to carry.
    fn match_of(arms: u32) -> Function {
        let mut f = Function::new("m", "f");
        let x = f.add_register(false);
        let s = f.add_register(true);
        f.params.push(Program::INT);
        f.result = Program::INT;
        for arm in 0..arms {
            let next = f.code.len() as u32 + 4;
            f.code.push(Instr::JumpNeIntImm {
                a: x,
                value: arm as i32,
                target: next,
            });
            f.code.push(Instr::LoadNone { dst: s });
            f.code.push(Instr::LoadInt {
                dst: x,
                value: arm as i32,
            });
            f.code.push(Instr::Return { src: x });
        }
        f.code.push(Instr::Return { src: x });
        f
    }

    #[test]
    fn the_pass_takes_a_step_per_block_and_two_per_instruction_however_many_blocks() {
        let p = Program::new();
        for arms in [1_000u32, 10_000, 100_000] {
            let f = match_of(arms);
            STEPS.with(|s| s.set(0));
            assert_eq!(check(&p, &f), Vec::new());
            let steps = STEPS.with(|s| s.get());
            // Each arm is two blocks of four instructions, and the last
            // return one more block: every block numbered once, every
            // instruction replayed once to the fixed point and once to
            // check it.
            let blocks = 2 * u64::from(arms) + 1;
            let instructions = f.code.len() as u64;
            assert_eq!(steps, blocks + 2 * instructions, "{arms} arms");
        }
    }

    #[test]
    fn every_reference_an_opcode_reads_is_given_a_type_it_needs() {
        let mut p = Program::new();
        p.constants.push(crate::program::Constant::Int(0));
        p.structs.push(StructDef {
            name: "S".to_string(),
            module: "m".to_string(),
            exported: false,
            fields: vec![Field {
                name: "x".to_string(),
                ty: Program::STR,
            }],
        });
        p.enums.push(EnumDef {
            name: "E".to_string(),
            module: "m".to_string(),
            exported: false,
            variants: vec![Variant {
                name: "V".to_string(),
                fields: vec![Program::STR],
            }],
        });
        let mut f = Function::new("m", "f");
        for _ in 0..8 {
            f.add_register(true);
        }
        p.add_function(f.clone());
        let mut flow = Flow {
            types: Types::new(&p),
            f: &f,
        };
        let state = vec![Val::Null; 8];
        for opcode in Opcode::ALL {
            // Operand i is register ri, so each read is told apart.
            let operands: Vec<Operand> = opcode
                .operand_kinds()
                .iter()
                .enumerate()
                .map(|(i, kind)| match kind {
                    OperandKind::Count => Operand::Count(1),
                    OperandKind::Imm => Operand::Imm(0),
                    OperandKind::Offset => Operand::Offset(0),
                    OperandKind::Divisor => Operand::Divisor(0),
                    OperandKind::Const => Operand::Const(ConstId(0)),
                    OperandKind::Target => Operand::Target(0),
                    OperandKind::Func => Operand::Func(FunctionId(0)),
                    OperandKind::Builtin => Operand::Builtin(crate::builtins::Builtin::Print),
                    OperandKind::Type => Operand::Type(Program::STR),
                    OperandKind::Struct => Operand::Struct(StructId(0)),
                    OperandKind::Enum => Operand::Enum(EnumId(0)),
                    OperandKind::Index => Operand::Index(0),
                    _ => Operand::Reg(Reg(i as u16)),
                })
                .collect();
            let instr = Instr::from_operands(*opcode, &operands).unwrap();
            let effect = flow.effect(&instr, &state);
            for (kind, operand) in opcode.operand_kinds().iter().zip(&operands) {
                if let (OperandKind::SrcRef | OperandKind::SrcAny, Operand::Reg(r)) =
                    (kind, operand)
                {
                    // A move copies whatever it finds. So does the move of
                    // `move-call.closure` when its callee's type is not
                    // known, as here, where every register is 0: then the
                    // callee's own need rejects it, or the VM faults on
                    // the 0 before the call, and nothing reads what was
                    // moved. With a known signature the first parameter's
                    // need is on `src` (`tests/verify_closures.rs`).
                    let read = effect.needs.iter().any(|(n, _, _)| n == r)
                        || matches!(
                            instr,
                            Instr::Move { .. }
                                | Instr::Move2 { .. }
                                | Instr::MoveCallClosure { .. }
                        );
                    assert!(read, "{opcode}: {r} is read with no type needed");
                }
            }
        }
    }
}
