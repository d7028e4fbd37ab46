//! A deliberately naive reference interpreter of `cove_ir`, for tests only.
//!
//! The compiler's snapshots show *what* it emits; this shows that what it
//! emits *computes the right answer*: register reuse, evaluation into
//! destinations, fused branches and pattern tests are easy to get subtly
//! wrong in ways a snapshot review misses. It follows the opcode
//! specifications of `cove_ir::op` literally, with reference-counted
//! objects in place of a heap, recursion in place of a frame stack, and
//! spawned tasks run to completion at the `spawn`. Speed is no concern.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use cove_ir::builtins::Builtin;
use cove_ir::op::Instr;
use cove_ir::program::{Constant, FunctionId, Program};
use cove_ir::types::{Type, TypeId};

#[derive(Debug)]
pub enum Obj {
    Str(String),
    List(Vec<Val>),
    Map(Vec<(Val, Val)>),
    Struct(Vec<Val>),
    Variant(u16, Vec<Val>),
    Some(Val),
    Task(Val),
    Channel(VecDeque<Val>, bool),
}

#[derive(Debug, Clone)]
pub enum Val {
    Bits(u64),
    Null,
    Obj(Rc<RefCell<Obj>>),
}

impl Val {
    fn int(&self) -> i64 {
        match self {
            Val::Bits(b) => *b as i64,
            _ => 0,
        }
    }
    fn float(&self) -> f64 {
        match self {
            Val::Bits(b) => f64::from_bits(*b),
            _ => 0.0,
        }
    }
    fn new(o: Obj) -> Val {
        Val::Obj(Rc::new(RefCell::new(o)))
    }
    fn str(&self) -> String {
        match self {
            Val::Obj(o) => match &*o.borrow() {
                Obj::Str(s) => s.clone(),
                _ => String::new(),
            },
            _ => String::new(),
        }
    }
    fn obj(&self) -> Result<Rc<RefCell<Obj>>, String> {
        match self {
            Val::Obj(o) => Ok(o.clone()),
            _ => Err("a null reference was used".into()),
        }
    }
    fn same(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Bits(a), Val::Bits(b)) => a == b,
            (Val::Obj(_), Val::Obj(_)) => self.str() == other.str(),
            _ => false,
        }
    }
}

fn int(v: i64) -> Val {
    Val::Bits(v as u64)
}

fn float(v: f64) -> Val {
    Val::Bits(v.to_bits())
}

pub struct Machine<'p> {
    program: &'p Program,
    pub out: String,
    pub steps: u64,
}

/// Runs `module.main` and returns standard output followed by the result
/// (`=> value`) or the runtime error (`error: ...`).
pub fn run(program: &Program) -> String {
    let module = program
        .modules
        .last()
        .map(|m| m.name.clone())
        .unwrap_or_default();
    let main = program
        .find_function(&module, "main")
        .expect("a main function");
    let mut m = Machine {
        program,
        out: String::new(),
        steps: 0,
    };
    let result = m.call(main, Vec::new(), 0);
    let result_ty = program.function(main).result;
    match result {
        Ok(v) => format!("{}=> {}", m.out, m.text(&v, result_ty, false)),
        Err(e) => format!("{}error: {e}", m.out),
    }
}

impl Machine<'_> {
    pub fn text(&self, v: &Val, ty: TypeId, nested: bool) -> String {
        match self.program.ty(ty) {
            Type::Unit => "()".into(),
            Type::Bool => (v.int() != 0).to_string(),
            Type::Int => v.int().to_string(),
            Type::Float => v.float().to_string(),
            Type::Str => {
                if nested {
                    format!("{:?}", v.str())
                } else {
                    v.str()
                }
            }
            Type::List(t) => match v {
                Val::Obj(o) => match &*o.borrow() {
                    Obj::List(xs) => format!(
                        "[{}]",
                        xs.iter()
                            .map(|x| self.text(x, *t, true))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    _ => "?".into(),
                },
                _ => "?".into(),
            },
            Type::Map(k, t) => match v {
                Val::Obj(o) => match &*o.borrow() {
                    Obj::Map(xs) => format!(
                        "{{{}}}",
                        xs.iter()
                            .map(|(a, b)| format!(
                                "{}: {}",
                                self.text(a, *k, true),
                                self.text(b, *t, true)
                            ))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    _ => "?".into(),
                },
                _ => "?".into(),
            },
            Type::Option(t) => match v {
                Val::Obj(o) => match &*o.borrow() {
                    Obj::Some(x) => format!("Some({})", self.text(x, *t, true)),
                    _ => "?".into(),
                },
                _ => "None".into(),
            },
            Type::Struct(s) => {
                let def = self.program.struct_def(*s);
                match v {
                    Val::Obj(o) => match &*o.borrow() {
                        Obj::Struct(fs) => format!(
                            "{} {{ {} }}",
                            def.name,
                            def.fields
                                .iter()
                                .zip(fs)
                                .map(|(f, x)| format!("{}: {}", f.name, self.text(x, f.ty, true)))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        _ => "?".into(),
                    },
                    _ => "?".into(),
                }
            }
            Type::Enum(e) => {
                let def = self.program.enum_def(*e);
                match v {
                    Val::Obj(o) => match &*o.borrow() {
                        Obj::Variant(i, xs) => {
                            let var = &def.variants[*i as usize];
                            if xs.is_empty() {
                                format!("{}.{}", def.name, var.name)
                            } else {
                                format!(
                                    "{}.{}({})",
                                    def.name,
                                    var.name,
                                    xs.iter()
                                        .zip(&var.fields)
                                        .map(|(x, t)| self.text(x, *t, true))
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                )
                            }
                        }
                        _ => "?".into(),
                    },
                    _ => "?".into(),
                }
            }
            Type::Task(_) | Type::Channel(_) => "<handle>".into(),
            Type::Func(..) => "<fn>".into(),
        }
    }

    pub fn call(&mut self, fid: FunctionId, args: Vec<Val>, depth: usize) -> Result<Val, String> {
        if depth > 200 {
            return Err("call depth".into());
        }
        let f = self.program.function(fid);
        let mut r: Vec<Val> = (0..f.registers as usize)
            .map(|i| if f.refs[i] { Val::Null } else { Val::Bits(0) })
            .collect();
        for (i, a) in args.into_iter().enumerate() {
            r[i] = a;
        }
        let mut pc = 0usize;
        macro_rules! g {
            ($reg:expr) => {
                r[$reg.0 as usize].clone()
            };
        }
        macro_rules! set {
            ($d:expr, $v:expr) => {{
                let v = $v;
                r[$d.0 as usize] = v;
            }};
        }
        macro_rules! ov {
            ($e:expr) => {
                match $e {
                    Some(v) => int(v),
                    None => return Err(format!("integer overflow in {}", f.qualified)),
                }
            };
        }
        loop {
            self.steps += 1;
            if self.steps > 50_000_000 {
                return Err("too many steps".into());
            }
            let instr = f.code[pc];
            pc += 1;
            match instr {
                Instr::Move { dst, src } => set!(dst, g!(src)),
                Instr::LoadInt { dst, value } => set!(dst, int(value as i64)),
                Instr::LoadConst { dst, constant } => {
                    let v = match &self.program.constants[constant.0 as usize] {
                        Constant::Int(i) => int(*i),
                        Constant::Float(x) => float(*x),
                        Constant::Str(s) => Val::new(Obj::Str(s.clone())),
                    };
                    set!(dst, v)
                }
                Instr::LoadNone { dst } => set!(dst, Val::Null),
                Instr::AddInt { dst, a, b } => set!(dst, ov!(g!(a).int().checked_add(g!(b).int()))),
                Instr::AddIntImm { dst, a, value } => {
                    set!(dst, ov!(g!(a).int().checked_add(value as i64)))
                }
                Instr::SubInt { dst, a, b } => set!(dst, ov!(g!(a).int().checked_sub(g!(b).int()))),
                Instr::MulInt { dst, a, b } => set!(dst, ov!(g!(a).int().checked_mul(g!(b).int()))),
                Instr::DivInt { dst, a, b } => {
                    if g!(b).int() == 0 {
                        return Err("division by zero".into());
                    }
                    set!(dst, ov!(g!(a).int().checked_div(g!(b).int())))
                }
                Instr::RemInt { dst, a, b } => {
                    if g!(b).int() == 0 {
                        return Err("division by zero".into());
                    }
                    set!(dst, ov!(g!(a).int().checked_rem(g!(b).int())))
                }
                Instr::DivIntImm { dst, a, value } => {
                    set!(dst, ov!(g!(a).int().checked_div(i64::from(value))))
                }
                Instr::RemIntImm { dst, a, value } => {
                    set!(dst, ov!(g!(a).int().checked_rem(i64::from(value))))
                }
                Instr::NegInt { dst, a } => set!(dst, ov!(g!(a).int().checked_neg())),
                Instr::AndInt { dst, a, b } => set!(dst, int(g!(a).int() & g!(b).int())),
                Instr::OrInt { dst, a, b } => set!(dst, int(g!(a).int() | g!(b).int())),
                Instr::XorInt { dst, a, b } => set!(dst, int(g!(a).int() ^ g!(b).int())),
                Instr::ShlInt { dst, a, b } => set!(dst, int(g!(a).int() << (g!(b).int() & 63))),
                Instr::ShrInt { dst, a, b } => set!(dst, int(g!(a).int() >> (g!(b).int() & 63))),
                Instr::EqInt { dst, a, b } => set!(dst, int((g!(a).int() == g!(b).int()) as i64)),
                Instr::NeInt { dst, a, b } => set!(dst, int((g!(a).int() != g!(b).int()) as i64)),
                Instr::LtInt { dst, a, b } => set!(dst, int((g!(a).int() < g!(b).int()) as i64)),
                Instr::LeInt { dst, a, b } => set!(dst, int((g!(a).int() <= g!(b).int()) as i64)),
                Instr::AddFloat { dst, a, b } => set!(dst, float(g!(a).float() + g!(b).float())),
                Instr::SubFloat { dst, a, b } => set!(dst, float(g!(a).float() - g!(b).float())),
                Instr::MulFloat { dst, a, b } => set!(dst, float(g!(a).float() * g!(b).float())),
                Instr::DivFloat { dst, a, b } => set!(dst, float(g!(a).float() / g!(b).float())),
                Instr::RemFloat { dst, a, b } => set!(dst, float(g!(a).float() % g!(b).float())),
                Instr::NegFloat { dst, a } => set!(dst, float(-g!(a).float())),
                Instr::EqFloat { dst, a, b } => {
                    set!(dst, int((g!(a).float() == g!(b).float()) as i64))
                }
                Instr::NeFloat { dst, a, b } => {
                    set!(dst, int((g!(a).float() != g!(b).float()) as i64))
                }
                Instr::LtFloat { dst, a, b } => {
                    set!(dst, int((g!(a).float() < g!(b).float()) as i64))
                }
                Instr::LeFloat { dst, a, b } => {
                    set!(dst, int((g!(a).float() <= g!(b).float()) as i64))
                }
                Instr::NotBool { dst, a } => set!(dst, int((g!(a).int() == 0) as i64)),
                Instr::ConcatStr { dst, a, b } => {
                    set!(dst, Val::new(Obj::Str(g!(a).str() + &g!(b).str())))
                }
                Instr::EqStr { dst, a, b } => set!(dst, int((g!(a).str() == g!(b).str()) as i64)),
                Instr::NeStr { dst, a, b } => set!(dst, int((g!(a).str() != g!(b).str()) as i64)),
                Instr::LtStr { dst, a, b } => set!(dst, int((g!(a).str() < g!(b).str()) as i64)),
                Instr::LeStr { dst, a, b } => set!(dst, int((g!(a).str() <= g!(b).str()) as i64)),
                Instr::ToStrInt { dst, src } => {
                    set!(dst, Val::new(Obj::Str(g!(src).int().to_string())))
                }
                Instr::ToStrFloat { dst, src } => {
                    set!(dst, Val::new(Obj::Str(g!(src).float().to_string())))
                }
                Instr::ToStr { dst, src, ty } => {
                    let t = self.text(&g!(src), ty, false);
                    set!(dst, Val::new(Obj::Str(t)))
                }
                Instr::Jump { target } => pc = target as usize,
                Instr::JumpIf { cond, target } => {
                    if g!(cond).int() != 0 {
                        pc = target as usize
                    }
                }
                Instr::JumpIfNot { cond, target } => {
                    if g!(cond).int() == 0 {
                        pc = target as usize
                    }
                }
                Instr::JumpEqInt { a, b, target } => {
                    if g!(a).int() == g!(b).int() {
                        pc = target as usize
                    }
                }
                Instr::JumpNeInt { a, b, target } => {
                    if g!(a).int() != g!(b).int() {
                        pc = target as usize
                    }
                }
                Instr::JumpLtInt { a, b, target } => {
                    if g!(a).int() < g!(b).int() {
                        pc = target as usize
                    }
                }
                Instr::JumpLeInt { a, b, target } => {
                    if g!(a).int() <= g!(b).int() {
                        pc = target as usize
                    }
                }
                Instr::JumpGtInt { a, b, target } => {
                    if g!(a).int() > g!(b).int() {
                        pc = target as usize
                    }
                }
                Instr::JumpGeInt { a, b, target } => {
                    if g!(a).int() >= g!(b).int() {
                        pc = target as usize
                    }
                }
                Instr::JumpEqIntImm { a, value, target } => {
                    if g!(a).int() == value as i64 {
                        pc = target as usize
                    }
                }
                Instr::JumpNeIntImm { a, value, target } => {
                    if g!(a).int() != value as i64 {
                        pc = target as usize
                    }
                }
                Instr::LoopLtInt {
                    counter,
                    limit,
                    target,
                } => {
                    let v = ov!(g!(counter).int().checked_add(1));
                    let go = v.int() < g!(limit).int();
                    set!(counter, v);
                    if go {
                        pc = target as usize
                    }
                }
                Instr::LoopLtIntImm {
                    counter,
                    value,
                    target,
                } => {
                    let v = ov!(g!(counter).int().checked_add(1));
                    let go = v.int() < value as i64;
                    set!(counter, v);
                    if go {
                        pc = target as usize
                    }
                }
                Instr::JumpLtIntImm { a, value, target } => {
                    if g!(a).int() < value as i64 {
                        pc = target as usize
                    }
                }
                Instr::JumpLeIntImm { a, value, target } => {
                    if g!(a).int() <= value as i64 {
                        pc = target as usize
                    }
                }
                Instr::JumpGtIntImm { a, value, target } => {
                    if g!(a).int() > value as i64 {
                        pc = target as usize
                    }
                }
                Instr::JumpGeIntImm { a, value, target } => {
                    if g!(a).int() >= value as i64 {
                        pc = target as usize
                    }
                }
                Instr::JumpNone { opt, target } => {
                    if matches!(g!(opt), Val::Null) {
                        pc = target as usize
                    }
                }
                Instr::JumpSome { opt, target } => {
                    if !matches!(g!(opt), Val::Null) {
                        pc = target as usize
                    }
                }
                Instr::Call {
                    dst,
                    func,
                    base,
                    count,
                } => {
                    let args = (0..count)
                        .map(|i| r[(base.0 + i) as usize].clone())
                        .collect();
                    let v = self.call(func, args, depth + 1)?;
                    // The callee's frame lay over this one from `base` up:
                    // after the arguments (which it never writes: they are
                    // its parameters), what was there is gone. A ref
                    // register reads `None`, a num one a pattern no test
                    // expects, so a value the compiler left above a window
                    // gives a wrong answer here.
                    let lent = usize::from(base.0) + usize::from(count);
                    for (slot, is_ref) in r.iter_mut().zip(&f.refs).skip(lent) {
                        *slot = if *is_ref {
                            Val::Null
                        } else {
                            Val::Bits(0x5a5a_5a5a_5a5a_5a5a)
                        };
                    }
                    set!(dst, v)
                }
                Instr::Spawn {
                    dst,
                    func,
                    base,
                    count,
                } => {
                    let args = (0..count)
                        .map(|i| r[(base.0 + i) as usize].clone())
                        .collect();
                    let v = self.call(func, args, depth + 1)?;
                    set!(dst, Val::new(Obj::Task(v)))
                }
                Instr::CallBuiltin {
                    dst,
                    builtin,
                    base,
                    count,
                } => {
                    let args: Vec<Val> = (0..count)
                        .map(|i| r[(base.0 + i) as usize].clone())
                        .collect();
                    let v = self.builtin(builtin, &args)?;
                    set!(dst, v)
                }
                Instr::Return { src } => return Ok(g!(src)),
                Instr::ReturnUnit {} => return Ok(Val::Bits(0)),
                Instr::ReturnIfEqIntImm { a, value, src } if g!(a).int() == value as i64 => {
                    return Ok(g!(src));
                }
                Instr::ReturnIfNeIntImm { a, value, src } if g!(a).int() != value as i64 => {
                    return Ok(g!(src));
                }
                Instr::ReturnIfLtIntImm { a, value, src } if g!(a).int() < value as i64 => {
                    return Ok(g!(src));
                }
                Instr::ReturnIfLeIntImm { a, value, src } if g!(a).int() <= value as i64 => {
                    return Ok(g!(src));
                }
                Instr::ReturnIfGtIntImm { a, value, src } if g!(a).int() > value as i64 => {
                    return Ok(g!(src));
                }
                Instr::ReturnIfGeIntImm { a, value, src } if g!(a).int() >= value as i64 => {
                    return Ok(g!(src));
                }
                Instr::ReturnIfEqIntImm { .. }
                | Instr::ReturnIfNeIntImm { .. }
                | Instr::ReturnIfLtIntImm { .. }
                | Instr::ReturnIfLeIntImm { .. }
                | Instr::ReturnIfGtIntImm { .. }
                | Instr::ReturnIfGeIntImm { .. } => {}
                Instr::NewStruct {
                    dst, base, count, ..
                } => {
                    let fs = (0..count)
                        .map(|i| r[(base.0 + i) as usize].clone())
                        .collect();
                    set!(dst, Val::new(Obj::Struct(fs)))
                }
                Instr::GetField {
                    dst, obj, field, ..
                } => {
                    let o = g!(obj).obj()?;
                    let v = match &*o.borrow() {
                        Obj::Struct(fs) => fs[field as usize].clone(),
                        _ => return Err("get.field of a non-struct".into()),
                    };
                    set!(dst, v)
                }
                Instr::SetField {
                    obj, field, src, ..
                } => {
                    let o = g!(obj).obj()?;
                    if let Obj::Struct(fs) = &mut *o.borrow_mut() {
                        fs[field as usize] = g!(src);
                    };
                }
                Instr::NewVariant {
                    dst,
                    variant,
                    base,
                    count,
                    ..
                } => {
                    let fs = (0..count)
                        .map(|i| r[(base.0 + i) as usize].clone())
                        .collect();
                    set!(dst, Val::new(Obj::Variant(variant, fs)))
                }
                Instr::Tag { dst, obj } => {
                    let o = g!(obj).obj()?;
                    let t = match &*o.borrow() {
                        Obj::Variant(i, _) => *i as i64,
                        _ => return Err("tag of a non-enum".into()),
                    };
                    set!(dst, int(t))
                }
                Instr::GetPayload {
                    dst,
                    obj,
                    variant,
                    field,
                    ..
                } => {
                    let o = g!(obj).obj()?;
                    let v = match &*o.borrow() {
                        Obj::Variant(i, fs) if *i == variant => fs[field as usize].clone(),
                        _ => return Err("get.payload of the wrong variant".into()),
                    };
                    set!(dst, v)
                }
                Instr::NewSome { dst, src, .. } => set!(dst, Val::new(Obj::Some(g!(src)))),
                Instr::Unwrap { dst, opt, .. } => {
                    let v = unwrap(&g!(opt))?;
                    set!(dst, v)
                }
                Instr::NewList {
                    dst, base, count, ..
                } => {
                    let xs = (0..count)
                        .map(|i| r[(base.0 + i) as usize].clone())
                        .collect();
                    set!(dst, Val::new(Obj::List(xs)))
                }
                Instr::GetList {
                    dst, list, index, ..
                } => {
                    let o = g!(list).obj()?;
                    let i = g!(index).int();
                    let v = match &*o.borrow() {
                        Obj::List(xs) => xs.get(usize::try_from(i).unwrap_or(usize::MAX)).cloned(),
                        _ => None,
                    };
                    set!(dst, v.ok_or(format!("index {i} out of range"))?)
                }
                Instr::SetList {
                    list, index, src, ..
                } => {
                    let o = g!(list).obj()?;
                    let i = g!(index).int();
                    if let Obj::List(xs) = &mut *o.borrow_mut() {
                        match xs.get_mut(usize::try_from(i).unwrap_or(usize::MAX)) {
                            Some(slot) => *slot = g!(src),
                            None => return Err(format!("index {i} out of range")),
                        }
                    };
                }
                Instr::LenList { dst, list } => {
                    let o = g!(list).obj()?;
                    let n = match &*o.borrow() {
                        Obj::List(xs) => xs.len() as i64,
                        _ => 0,
                    };
                    set!(dst, int(n))
                }
                Instr::NewMap { dst, .. } => set!(dst, Val::new(Obj::Map(Vec::new()))),
                Instr::NewChannel { dst, .. } => {
                    set!(dst, Val::new(Obj::Channel(VecDeque::new(), false)))
                }
                // Function values are run by the VM's tests (the conformance
                // suite), not by this interpreter.
                Instr::NewClosure { .. } | Instr::CallClosure { .. } => {
                    return Err("the reference interpreter does not run closures".into());
                }
            }
        }
    }

    fn builtin(&mut self, b: Builtin, a: &[Val]) -> Result<Val, String> {
        use Builtin::*;
        let s = |i: usize| a[i].str();
        let n = |i: usize| a[i].int();
        let list = |i: usize| a[i].obj();
        let new_str = |t: String| Val::new(Obj::Str(t));
        let strs = |xs: Vec<String>| {
            Val::new(Obj::List(
                xs.into_iter().map(|x| Val::new(Obj::Str(x))).collect(),
            ))
        };
        Ok(match b {
            Print => {
                self.out.push_str(&s(0));
                Val::Bits(0)
            }
            Println | Eprintln => {
                self.out.push_str(&s(0));
                self.out.push('\n');
                Val::Bits(0)
            }
            ReadFile => new_str(std::fs::read_to_string(s(0)).map_err(|e| e.to_string())?),
            WriteFile => {
                std::fs::write(s(0), s(1)).map_err(|e| e.to_string())?;
                Val::Bits(0)
            }
            Args => strs(Vec::new()),
            Exit => return Err(format!("exit {}", n(0))),
            Assert => {
                if n(0) == 0 {
                    return Err("assertion failed".into());
                }
                Val::Bits(0)
            }
            AssertMessage => {
                if n(0) == 0 {
                    return Err(format!("assertion failed: {}", s(1)));
                }
                Val::Bits(0)
            }
            StrLength => int(s(0).len() as i64),
            StrByteAt => int(*s(0)
                .as_bytes()
                .get(n(1) as usize)
                .ok_or("byte index out of range")? as i64),
            StrSlice => new_str(
                s(0).get(n(1) as usize..n(2) as usize)
                    .ok_or("bad slice")?
                    .to_string(),
            ),
            StrContains => int(s(0).contains(&s(1)) as i64),
            StrStartsWith => int(s(0).starts_with(&s(1)) as i64),
            StrEndsWith => int(s(0).ends_with(&s(1)) as i64),
            StrFind => match s(0).find(&s(1)) {
                Some(i) => Val::new(Obj::Some(int(i as i64))),
                None => Val::Null,
            },
            StrSplit => strs(s(0).split(&s(1)).map(String::from).collect()),
            StrLines => strs(s(0).lines().map(String::from).collect()),
            StrTrim => new_str(s(0).trim().to_string()),
            StrReplace => new_str(s(0).replace(&s(1), &s(2))),
            StrRepeat => new_str(s(0).repeat(n(1).max(0) as usize)),
            StrToUpper => new_str(s(0).to_uppercase()),
            StrToLower => new_str(s(0).to_lowercase()),
            StrParseInt => int(s(0)
                .trim()
                .parse()
                .map_err(|_| format!("cannot parse {:?}", s(0)))?),
            StrParseFloat => float(
                s(0).trim()
                    .parse()
                    .map_err(|_| format!("cannot parse {:?}", s(0)))?,
            ),
            ListLength => match &*list(0)?.borrow() {
                Obj::List(xs) => int(xs.len() as i64),
                _ => int(0),
            },
            ListPush => {
                if let Obj::List(xs) = &mut *list(0)?.borrow_mut() {
                    xs.push(a[1].clone());
                }
                Val::Bits(0)
            }
            ListPop => match &mut *list(0)?.borrow_mut() {
                Obj::List(xs) => xs.pop().map_or(Val::Null, |v| Val::new(Obj::Some(v))),
                _ => Val::Null,
            },
            ListGet => match &*list(0)?.borrow() {
                Obj::List(xs) => xs
                    .get(usize::try_from(n(1)).unwrap_or(usize::MAX))
                    .map_or(Val::Null, |v| Val::new(Obj::Some(v.clone()))),
                _ => Val::Null,
            },
            ListInsert => {
                if let Obj::List(xs) = &mut *list(0)?.borrow_mut() {
                    if n(1) as usize > xs.len() {
                        return Err("insert out of range".into());
                    }
                    xs.insert(n(1) as usize, a[2].clone());
                }
                Val::Bits(0)
            }
            ListRemove => match &mut *list(0)?.borrow_mut() {
                Obj::List(xs) if (n(1) as usize) < xs.len() => xs.remove(n(1) as usize),
                _ => return Err("remove out of range".into()),
            },
            ListJoin => match &*list(0)?.borrow() {
                Obj::List(xs) => new_str(xs.iter().map(Val::str).collect::<Vec<_>>().join(&s(1))),
                _ => new_str(String::new()),
            },
            ListSortInt => {
                if let Obj::List(xs) = &mut *list(0)?.borrow_mut() {
                    xs.sort_by_key(Val::int);
                }
                Val::Bits(0)
            }
            ListSortStr => {
                if let Obj::List(xs) = &mut *list(0)?.borrow_mut() {
                    xs.sort_by_key(Val::str);
                }
                Val::Bits(0)
            }
            ListContainsInt | ListContainsFloat | ListContainsBool | ListContainsStr => {
                match &*list(0)?.borrow() {
                    Obj::List(xs) => int(xs.iter().any(|x| x.same(&a[1])) as i64),
                    _ => int(0),
                }
            }
            ListSlice => match &*list(0)?.borrow() {
                Obj::List(xs) => Val::new(Obj::List(
                    xs.get(n(1) as usize..n(2) as usize)
                        .ok_or("bad slice")?
                        .to_vec(),
                )),
                _ => Val::Null,
            },
            MapGet => match &*list(0)?.borrow() {
                Obj::Map(kv) => kv
                    .iter()
                    .find(|(k, _)| k.same(&a[1]))
                    .map_or(Val::Null, |(_, v)| Val::new(Obj::Some(v.clone()))),
                _ => Val::Null,
            },
            MapSet => {
                if let Obj::Map(kv) = &mut *list(0)?.borrow_mut() {
                    match kv.iter_mut().find(|(k, _)| k.same(&a[1])) {
                        Some(slot) => slot.1 = a[2].clone(),
                        None => kv.push((a[1].clone(), a[2].clone())),
                    }
                }
                Val::Bits(0)
            }
            MapContains => match &*list(0)?.borrow() {
                Obj::Map(kv) => int(kv.iter().any(|(k, _)| k.same(&a[1])) as i64),
                _ => int(0),
            },
            MapRemove => match &mut *list(0)?.borrow_mut() {
                Obj::Map(kv) => match kv.iter().position(|(k, _)| k.same(&a[1])) {
                    Some(i) => Val::new(Obj::Some(kv.remove(i).1)),
                    None => Val::Null,
                },
                _ => Val::Null,
            },
            MapKeys => match &*list(0)?.borrow() {
                Obj::Map(kv) => Val::new(Obj::List(kv.iter().map(|(k, _)| k.clone()).collect())),
                _ => Val::Null,
            },
            MapValues => match &*list(0)?.borrow() {
                Obj::Map(kv) => Val::new(Obj::List(kv.iter().map(|(_, v)| v.clone()).collect())),
                _ => Val::Null,
            },
            MapLength => match &*list(0)?.borrow() {
                Obj::Map(kv) => int(kv.len() as i64),
                _ => int(0),
            },
            IntToFloat => float(n(0) as f64),
            IntAbs => int(n(0).checked_abs().ok_or("overflow")?),
            IntMin => int(n(0).min(n(1))),
            IntMax => int(n(0).max(n(1))),
            FloatToInt => int(a[0].float().trunc() as i64),
            FloatSqrt => float(a[0].float().sqrt()),
            FloatFloor => float(a[0].float().floor()),
            FloatAbs => float(a[0].float().abs()),
            OptionIsSome => int(!matches!(a[0], Val::Null) as i64),
            OptionIsNone => int(matches!(a[0], Val::Null) as i64),
            OptionUnwrap => unwrap(&a[0])?,
            OptionUnwrapOr => match a[0] {
                Val::Null => a[1].clone(),
                _ => unwrap(&a[0])?,
            },
            TaskJoin => match &*list(0)?.borrow() {
                Obj::Task(v) => v.clone(),
                _ => Val::Null,
            },
            ChannelSend => {
                if let Obj::Channel(q, _) = &mut *list(0)?.borrow_mut() {
                    q.push_back(a[1].clone());
                }
                Val::Bits(0)
            }
            ChannelRecv => match &mut *list(0)?.borrow_mut() {
                Obj::Channel(q, _) => q.pop_front().map_or(Val::Null, |v| Val::new(Obj::Some(v))),
                _ => Val::Null,
            },
            ChannelClose => {
                if let Obj::Channel(_, closed) = &mut *list(0)?.borrow_mut() {
                    *closed = true;
                }
                Val::Bits(0)
            }
        })
    }
}

fn unwrap(v: &Val) -> Result<Val, String> {
    match v {
        Val::Obj(o) => match &*o.borrow() {
            Obj::Some(x) => Ok(x.clone()),
            _ => Err("unwrap of a non-option".into()),
        },
        _ => Err("unwrap of None".into()),
    }
}
