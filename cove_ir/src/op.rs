//! The instruction set, defined once.
//!
//! This file is to Cove what `lopcodes.h` is to Lua: the enum below *is* the
//! specification. Each variant says what its operands are and what it does,
//! and everything else — the printer, the parser of the printed form, the
//! verifier, the compiler's lowering and the virtual machine — reads this one
//! definition. The `instruction_set!` macro expands the table into:
//!
//! - [`Instr`], the instruction itself, one variant a opcode with named
//!   operand fields (what the compiler builds and the VM matches on);
//! - [`Opcode`], the same names without operands (what a profile groups by);
//! - [`Opcode::mnemonic`] and [`Opcode::operand_kinds`], so the printer,
//!   parser and verifier handle every instruction generically;
//! - [`Instr::operands`] and [`Instr::from_operands`], the two directions
//!   between an instruction and its operand list.
//!
//! # The machine the opcodes describe
//!
//! Registers are untyped 64-bit slots local to a call frame, named `r0`,
//! `r1`, ... A function's parameters arrive in `r0..rN`. Each register has
//! one *class* for the whole function, recorded in
//! [`Function::refs`](crate::program::Function::refs): a *num* register holds
//! an `Int`, `Float`, `Bool` or `()` as raw bits, a *ref* register holds a
//! heap reference or 0. The class is what makes the collector precise, and
//! the verifier checks every operand against it.
//!
//! Opcodes are typed: `add.int` adds two integers and `add.float` two
//! floats, so the VM never looks at a value to decide what to do with it.
//! Operands named in the tables below:
//!
//! | kind | written | meaning |
//! |---|---|---|
//! | `dst`/`src` num, ref, any | `r3` | a register read or written, of that class ("any": either, as long as the two sides agree) |
//! | base + count | `r4, 2` | `count` consecutive registers from `base`, the arguments of a call or the fields of a new object |
//! | imm | `-7` | a signed 32-bit immediate |
//! | offset | `-1` | a signed 8-bit immediate, added to an index |
//! | const | `k2` | an entry of [`Program::constants`](crate::program::Program::constants) |
//! | target | `@12` | a program counter in the same function |
//! | func | `m.fib` or `f3` | a [`FunctionId`]: by qualified name when that is unique, else by number |
//! | builtin | `String.length` | a [`Builtin`] of the catalogue |
//! | type, struct, enum | `t1`, `s0`, `e2` | an index into the program's type, struct or enum table |
//! | index | `#1` | a field, variant or payload position |
//!
//! Runtime faults named below (overflow, division by zero, an index out of
//! range, `None` unwrapped, ...) end the run with a `RunError`; nothing here
//! is undefined behaviour on a verified program.

use std::fmt;

use crate::builtins::Builtin;
use crate::program::{ConstId, FunctionId};
use crate::types::{EnumId, StructId, TypeId};

/// A register of the current frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Reg(pub u16);

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

/// What an operand position of an opcode holds, and for a register how it is
/// used. The verifier's rules are written against these kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// A num register written.
    DstNum,
    /// A ref register written.
    DstRef,
    /// A register of either class written; its class is fixed by the other
    /// operands (a `move`'s source, a callee's result type, ...).
    DstAny,
    /// A num register read.
    SrcNum,
    /// A ref register read.
    SrcRef,
    /// A register of either class read.
    SrcAny,
    /// The first of `count` consecutive registers read; always followed by a
    /// [`OperandKind::Count`].
    Base,
    /// How many registers from the preceding base.
    Count,
    /// A signed 32-bit immediate.
    Imm,
    /// A signed 8-bit immediate added to an index: what fits beside an
    /// instruction's four other operands in its twelve bytes (in the byte
    /// after the opcode's).
    Offset,
    /// A constant divisor that fits in 16 signed bits: what fits beside an
    /// instruction's four registers in its twelve bytes.
    Divisor,
    /// A constant-pool index.
    Const,
    /// A program counter in the same function.
    Target,
    /// A function of the program.
    Func,
    /// A builtin of the catalogue.
    Builtin,
    /// A type of the program's type table.
    Type,
    /// A struct of the program's struct table.
    Struct,
    /// An enum of the program's enum table.
    Enum,
    /// A field, variant or payload position.
    Index,
}

impl OperandKind {
    /// Whether the operand names a register (alone, or as the base of a run).
    pub fn is_register(self) -> bool {
        matches!(
            self,
            OperandKind::DstNum
                | OperandKind::DstRef
                | OperandKind::DstAny
                | OperandKind::SrcNum
                | OperandKind::SrcRef
                | OperandKind::SrcAny
                | OperandKind::Base
        )
    }
}

/// One operand's value, as the printer writes it and the parser reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    /// `r3`
    Reg(Reg),
    /// `2` (a count)
    Count(u16),
    /// `-7`
    Imm(i32),
    /// `-1` (an offset)
    Offset(i8),
    /// `7` (a divisor)
    Divisor(i16),
    /// `k2`
    Const(ConstId),
    /// `@12`
    Target(u32),
    /// `f3`
    Func(FunctionId),
    /// `String.length`
    Builtin(Builtin),
    /// `t1`
    Type(TypeId),
    /// `s0`
    Struct(StructId),
    /// `e2`
    Enum(EnumId),
    /// `#1`
    Index(u16),
}

/// The Rust type of each operand kind's field in [`Instr`].
macro_rules! operand_type {
    (DstNum) => {
        Reg
    };
    (DstRef) => {
        Reg
    };
    (DstAny) => {
        Reg
    };
    (SrcNum) => {
        Reg
    };
    (SrcRef) => {
        Reg
    };
    (SrcAny) => {
        Reg
    };
    (Base) => {
        Reg
    };
    (Count) => {
        u16
    };
    (Imm) => {
        i32
    };
    (Offset) => {
        i8
    };
    (Divisor) => {
        i16
    };
    (Const) => {
        ConstId
    };
    (Target) => {
        u32
    };
    (Func) => {
        FunctionId
    };
    (Builtin) => {
        Builtin
    };
    (Type) => {
        TypeId
    };
    (Struct) => {
        StructId
    };
    (Enum) => {
        EnumId
    };
    (Index) => {
        u16
    };
}

/// The [`Operand`] each operand kind is written as, around a value or a
/// binding (the macro serves as an expression and as a pattern).
macro_rules! operand_of {
    (DstNum, $x:tt) => {
        Operand::Reg($x)
    };
    (DstRef, $x:tt) => {
        Operand::Reg($x)
    };
    (DstAny, $x:tt) => {
        Operand::Reg($x)
    };
    (SrcNum, $x:tt) => {
        Operand::Reg($x)
    };
    (SrcRef, $x:tt) => {
        Operand::Reg($x)
    };
    (SrcAny, $x:tt) => {
        Operand::Reg($x)
    };
    (Base, $x:tt) => {
        Operand::Reg($x)
    };
    (Count, $x:tt) => {
        Operand::Count($x)
    };
    (Imm, $x:tt) => {
        Operand::Imm($x)
    };
    (Offset, $x:tt) => {
        Operand::Offset($x)
    };
    (Divisor, $x:tt) => {
        Operand::Divisor($x)
    };
    (Const, $x:tt) => {
        Operand::Const($x)
    };
    (Target, $x:tt) => {
        Operand::Target($x)
    };
    (Func, $x:tt) => {
        Operand::Func($x)
    };
    (Builtin, $x:tt) => {
        Operand::Builtin($x)
    };
    (Type, $x:tt) => {
        Operand::Type($x)
    };
    (Struct, $x:tt) => {
        Operand::Struct($x)
    };
    (Enum, $x:tt) => {
        Operand::Enum($x)
    };
    (Index, $x:tt) => {
        Operand::Index($x)
    };
}

/// Expands the instruction table into [`Instr`], [`Opcode`] and the generic
/// operand views; see the module documentation.
macro_rules! instruction_set {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident = $mnemonic:literal { $($field:ident : $kind:ident),* $(,)? }
    )*) => {
        /// One instruction: an opcode and its operands.
        ///
        /// Each variant's documentation is the opcode's specification.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Instr {
            $(
                $(#[doc = $doc])*
                #[doc = ""]
                #[doc = concat!("Printed `", $mnemonic, "`.")]
                $name { $( #[allow(missing_docs)] $field: operand_type!($kind) ),* },
            )*
        }

        /// An instruction's opcode, without its operands: what a profile
        /// groups by and what the parser reads a mnemonic as.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $mnemonic, "`: see [`Instr::", stringify!($name), "`].")]
                $name,
            )*
        }

        impl Opcode {
            /// Every opcode, in the order of the table.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$name),*];

            /// The name the printer writes, e.g. `add.int`.
            pub fn mnemonic(self) -> &'static str {
                match self { $(Opcode::$name => $mnemonic),* }
            }

            /// The opcode a mnemonic names.
            pub fn from_mnemonic(text: &str) -> Option<Opcode> {
                match text { $($mnemonic => Some(Opcode::$name),)* _ => None }
            }

            /// What each operand position holds, in printed order.
            pub const fn operand_kinds(self) -> &'static [OperandKind] {
                match self { $(Opcode::$name => &[$(OperandKind::$kind),*]),* }
            }
        }

        impl Instr {
            /// This instruction's opcode.
            pub fn opcode(&self) -> Opcode {
                match self { $(Instr::$name { .. } => Opcode::$name),* }
            }

            /// The operands in printed order, each of the kind
            /// [`Opcode::operand_kinds`] gives at the same position.
            pub fn operands(&self) -> Vec<Operand> {
                match *self {
                    $(Instr::$name { $($field),* } => vec![$(operand_of!($kind, $field)),*],)*
                }
            }

            /// The instruction of `opcode` with these operands, or why not.
            pub fn from_operands(opcode: Opcode, operands: &[Operand]) -> Result<Instr, String> {
                match opcode {
                    $(Opcode::$name => {
                        let kinds: &[OperandKind] = &[$(OperandKind::$kind),*];
                        if operands.len() != kinds.len() {
                            return Err(format!(
                                "`{}` takes {} operands, not {}",
                                $mnemonic, kinds.len(), operands.len()
                            ));
                        }
                        #[allow(unused_mut, unused_variables)]
                        let mut given = operands.iter();
                        $(
                            let $field = match given.next() {
                                Some(operand_of!($kind, value)) => *value,
                                other => return Err(format!(
                                    "`{}` wants {:?} for `{}`, not {:?}",
                                    $mnemonic, OperandKind::$kind, stringify!($field), other
                                )),
                            };
                        )*
                        Ok(Instr::$name { $($field),* })
                    })*
                }
            }
        }
    };
}

instruction_set! {
    // ---- moving values -------------------------------------------------

    /// `dst = src`. Both registers are of one class.
    Move = "move" { dst: DstAny, src: SrcAny }
    /// `dst = value`: a small integer, or a `Bool` (0, 1) or `()` (0).
    LoadInt = "load.int" { dst: DstNum, value: Imm }
    /// `dst = constants[constant]`: an `Int` or `Float` into a num register,
    /// a `String` into a ref register.
    LoadConst = "load.const" { dst: DstAny, constant: Const }
    /// `dst = None` (the null reference).
    LoadNone = "load.none" { dst: DstRef }
    /// `dst = src`, then `second = from`: two `move`s in one dispatch, the
    /// commonest adjacent pair over the benchmark suite (a call's
    /// arguments moved into its window). In that order, so `from` may be
    /// `dst`. Each pair of registers is of one class. The compiler's
    /// emitter makes it of two adjacent moves of one source line where no
    /// jump lands on the second.
    Move2 = "move2" { dst: DstAny, src: SrcAny, second: DstAny, from: SrcAny }

    // ---- Int ------------------------------------------------------------

    /// `dst = a + b`; overflow is a runtime error.
    AddInt = "add.int" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a + value`; overflow is a runtime error. Subtraction of a
    /// constant is this with a negative immediate.
    AddIntImm = "add.int.imm" { dst: DstNum, a: SrcNum, value: Imm }
    /// `dst = a + b + value`: an `add.int` and the `add.int.imm` that
    /// adds a constant to its sum in place (`row - c + n - 1`, `i + j + 1`)
    /// in one dispatch. The sum's overflow is the runtime error of
    /// `add.int`, and the constant's that of `add.int.imm`, with `dst`
    /// left holding the sum, as the pair leaves it. The compiler's emitter
    /// makes it of the pair on one source line with no label bound
    /// between the two.
    AddAddIntImm = "add-add.int.imm" { dst: DstNum, a: SrcNum, b: SrcNum, value: Imm }
    /// `dst = a - b`; overflow is a runtime error.
    SubInt = "sub.int" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a * b`; overflow is a runtime error.
    MulInt = "mul.int" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a * value`; overflow is a runtime error. What `x * 3` is,
    /// where it was a `load.int` of the constant and a `mul.int`: the
    /// generators of the benchmark suite multiply by a constant every turn.
    MulIntImm = "mul.int.imm" { dst: DstNum, a: SrcNum, value: Imm }
    /// `dst = a / b`, truncated toward zero; division by zero and
    /// `Int.MIN / -1` are runtime errors.
    DivInt = "div.int" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a % b`, with the sign of `a`; a zero divisor is a runtime error.
    RemInt = "rem.int" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a / value`, truncated toward zero. The verifier refuses a
    /// `value` of 0 or -1, the two divisors that can fail (by zero, and
    /// `Int.MIN / -1`), so this never does: a division by a constant pays
    /// for no check.
    DivIntImm = "div.int.imm" { dst: DstNum, a: SrcNum, value: Imm }
    /// `dst = a % value`, with the sign of `a`. As for `div.int.imm`, the
    /// verifier refuses a `value` of 0 or -1, so this never fails.
    RemIntImm = "rem.int.imm" { dst: DstNum, a: SrcNum, value: Imm }
    /// `rem = a % divisor`, then `dst = c + rem`: a `rem.int.imm` and the
    /// `add.int` that adds its remainder (`total + i % 7`, `h + c % 16`) in
    /// one dispatch, for a divisor that fits in 16 bits. `c` is read after
    /// `rem` is written, as in the pair; the addition's overflow is the
    /// runtime error of `add.int`, with `rem` written and `dst` not, as
    /// the pair leaves them. The verifier refuses the divisors
    /// `rem.int.imm` refuses (0 and -1). The compiler's emitter makes it
    /// of the pair on one source line with no label bound between the two.
    RemAddIntImm = "rem-add.int.imm" { dst: DstNum, c: SrcNum, rem: DstNum, a: SrcNum, divisor: Divisor }
    /// `dst = -a`; negating `Int.MIN` is a runtime error.
    NegInt = "neg.int" { dst: DstNum, a: SrcNum }
    /// `dst = a & b`.
    AndInt = "and.int" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a | b`.
    OrInt = "or.int" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a ^ b`.
    XorInt = "xor.int" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a << b`; a shift outside `0..=63` is a runtime error.
    ShlInt = "shl.int" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a >> b`, arithmetic; a shift outside `0..=63` is a runtime error.
    ShrInt = "shr.int" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a == b` on `Int` (and on `Bool`, whose values are 0 and 1).
    EqInt = "eq.int" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a != b` on `Int` or `Bool`.
    NeInt = "ne.int" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a < b` on `Int`; `>` is this with the operands swapped.
    LtInt = "lt.int" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a <= b` on `Int`; `>=` is this with the operands swapped.
    LeInt = "le.int" { dst: DstNum, a: SrcNum, b: SrcNum }

    // ---- Float ----------------------------------------------------------

    /// `dst = a + b` on `Float`.
    AddFloat = "add.float" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a - b` on `Float`.
    SubFloat = "sub.float" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a * b` on `Float`.
    MulFloat = "mul.float" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a / b` on `Float` (IEEE: dividing by zero gives an infinity).
    DivFloat = "div.float" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a % b` on `Float`, with the sign of `a` (Rust's `%`).
    RemFloat = "rem.float" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = -a` on `Float`.
    NegFloat = "neg.float" { dst: DstNum, a: SrcNum }
    /// `dst = a == b` on `Float`.
    EqFloat = "eq.float" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a != b` on `Float`.
    NeFloat = "ne.float" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a < b` on `Float`.
    LtFloat = "lt.float" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst = a <= b` on `Float`.
    LeFloat = "le.float" { dst: DstNum, a: SrcNum, b: SrcNum }
    /// `dst` = the `Int` in `src` as the nearest `Float` (`Int.to_float`).
    /// The builtin's instruction: a conversion in a loop (spectral-norm's
    /// `1.0 / n.to_float()`) is one dispatch, not a builtin call's.
    ToFloatInt = "to-float.int" { dst: DstNum, src: SrcNum }
    /// `dst = sqrt(a)` on `Float` (`Float.sqrt`), as an instruction for the
    /// same reason: n-body takes one a pair of bodies a step.
    SqrtFloat = "sqrt.float" { dst: DstNum, a: SrcNum }
    /// `product = a * b`, then `dst = c + product`, on `Float`: a
    /// `mul.float` and the `add.float` that adds its product (`sum += x *
    /// y`) in one dispatch. Each step rounds as its own instruction does, so
    /// the bits are those of the pair (it is not a fused multiply-add, which
    /// rounds once). `c` is read after `product` is written, as in the pair.
    MulAddFloat = "mul-add.float" { dst: DstNum, c: SrcNum, product: DstNum, a: SrcNum, b: SrcNum }
    /// `product = a * b`, then `dst = c - product`, on `Float`: a
    /// `mul.float` and the `sub.float` that subtracts its product
    /// (mandelbrot's `zr * zr - zi * zi`) in one dispatch, rounded twice as
    /// the pair is. `c` is read after `product` is written, as in the pair.
    MulSubFloat = "mul-sub.float" { dst: DstNum, c: SrcNum, product: DstNum, a: SrcNum, b: SrcNum }

    // ---- Bool -----------------------------------------------------------

    /// `dst = !a` on `Bool`.
    NotBool = "not.bool" { dst: DstNum, a: SrcNum }

    // ---- String ---------------------------------------------------------

    /// `dst = a + b`: a new string, the bytes of `a` then of `b`.
    ConcatStr = "concat.str" { dst: DstRef, a: SrcRef, b: SrcRef }
    /// `dst = a == b`, byte for byte.
    EqStr = "eq.str" { dst: DstNum, a: SrcRef, b: SrcRef }
    /// `dst = a != b`, byte for byte.
    NeStr = "ne.str" { dst: DstNum, a: SrcRef, b: SrcRef }
    /// `dst = a < b`, ordered by bytes.
    LtStr = "lt.str" { dst: DstNum, a: SrcRef, b: SrcRef }
    /// `dst = a <= b`, ordered by bytes.
    LeStr = "le.str" { dst: DstNum, a: SrcRef, b: SrcRef }
    /// `dst` = the decimal text of the `Int` in `src` (interpolation).
    ToStrInt = "to-str.int" { dst: DstRef, src: SrcNum }
    /// `dst` = the text of the `Float` in `src` (interpolation), as Rust's
    /// `Display` writes it.
    ToStrFloat = "to-str.float" { dst: DstRef, src: SrcNum }
    /// `dst` = the text form of `src`, a value of type `ty`: `true`,
    /// `[1, 2]`, `Some(3)`, `Point { x: 1, y: 2 }`, `Token.Word("x")`; a
    /// `String` inside a container is quoted, a `String` alone is itself.
    ToStr = "to-str" { dst: DstRef, src: SrcAny, ty: Type }

    // ---- control --------------------------------------------------------

    /// `pc = target`.
    Jump = "jump" { target: Target }
    /// `if cond { pc = target }`, `cond` a `Bool`.
    JumpIf = "jump-if" { cond: SrcNum, target: Target }
    /// `if !cond { pc = target }`, `cond` a `Bool`.
    JumpIfNot = "jump-ifnot" { cond: SrcNum, target: Target }
    /// `if a == b { pc = target }` on `Int`: a fused compare-and-branch.
    JumpEqInt = "jump-eq.int" { a: SrcNum, b: SrcNum, target: Target }
    /// `if a != b { pc = target }` on `Int`.
    JumpNeInt = "jump-ne.int" { a: SrcNum, b: SrcNum, target: Target }
    /// `if a < b { pc = target }` on `Int`.
    JumpLtInt = "jump-lt.int" { a: SrcNum, b: SrcNum, target: Target }
    /// `if a <= b { pc = target }` on `Int`.
    JumpLeInt = "jump-le.int" { a: SrcNum, b: SrcNum, target: Target }
    /// `if a > b { pc = target }` on `Int`.
    JumpGtInt = "jump-gt.int" { a: SrcNum, b: SrcNum, target: Target }
    /// `if a >= b { pc = target }` on `Int`.
    JumpGeInt = "jump-ge.int" { a: SrcNum, b: SrcNum, target: Target }
    /// `if a == value { pc = target }` on `Int`: a match arm on a literal.
    JumpEqIntImm = "jump-eq.int.imm" { a: SrcNum, value: Imm, target: Target }
    /// `if a != value { pc = target }` on `Int`.
    JumpNeIntImm = "jump-ne.int.imm" { a: SrcNum, value: Imm, target: Target }
    /// `rem = a % divisor`, then `if rem == 0 { pc = target }`: a
    /// `rem.int.imm` and the `jump-eq.int.imm` that tests its remainder
    /// against 0 (`if n % 2 != 0`) in one dispatch, for a divisor that fits
    /// in 16 bits. The remainder is written, as the pair writes it. The
    /// verifier refuses the divisors `rem.int.imm` refuses (0 and -1). The
    /// compiler's emitter makes it of the pair on one source line with no
    /// label bound between the two.
    RemJumpEqIntImm = "rem-jump-eq.int.imm" { rem: DstNum, a: SrcNum, divisor: Divisor, target: Target }
    /// `rem = a % divisor`, then `if rem != 0 { pc = target }`: as
    /// `rem-jump-eq.int.imm`, for `jump-ne.int.imm` (`if n % 2 == 0`, which
    /// jumps past its block when the remainder is not 0).
    RemJumpNeIntImm = "rem-jump-ne.int.imm" { rem: DstNum, a: SrcNum, divisor: Divisor, target: Target }
    /// `if a < value { pc = target }` on `Int`.
    JumpLtIntImm = "jump-lt.int.imm" { a: SrcNum, value: Imm, target: Target }
    /// `if a <= value { pc = target }` on `Int`.
    JumpLeIntImm = "jump-le.int.imm" { a: SrcNum, value: Imm, target: Target }
    /// `if a > value { pc = target }` on `Int`.
    JumpGtIntImm = "jump-gt.int.imm" { a: SrcNum, value: Imm, target: Target }
    /// `if a >= value { pc = target }` on `Int`.
    JumpGeIntImm = "jump-ge.int.imm" { a: SrcNum, value: Imm, target: Target }
    /// `counter += 1; if counter < limit { pc = target }` on `Int`: the step
    /// and the test of a counted `for` loop in one dispatch. Overflow is a
    /// runtime error (it cannot happen in a loop that tested
    /// `counter < limit` on entry, which is how the compiler emits it).
    LoopLtInt = "loop-lt.int" { counter: DstNum, limit: SrcNum, target: Target }
    /// `counter += 1; if counter < value { pc = target }` on `Int`: the
    /// step and test of `for i in a..N` with a literal `N`.
    LoopLtIntImm = "loop-lt.int.imm" { counter: DstNum, value: Imm, target: Target }
    /// `if opt is None { pc = target }`.
    JumpNone = "jump-none" { opt: SrcRef, target: Target }
    /// `if opt is Some(_) { pc = target }`.
    JumpSome = "jump-some" { opt: SrcRef, target: Target }
    /// `jump-none` and the `unwrap` that a `Some(x)` arm starts with, in
    /// one dispatch: `dst` = the value inside `opt`, falling through, if
    /// `opt` is a `Some`; `dst` = 0 (`0`, `0.0`, `false`, no object) and
    /// `pc = target` if it is `None`. `dst` is written either way, so on
    /// both paths it holds a value of the `Option`'s type parameter. That
    /// type is not an operand, as `unwrap`'s is: with it the instruction
    /// would not fit in 12 bytes, so the verifier takes it from the type it
    /// knows `opt` to hold (and refuses a register whose type it does not
    /// know). The compiler's emitter makes it of the pair when the
    /// `unwrap` of the register tested comes next, with no label bound
    /// between, into the register of a new binding, which nothing on the
    /// `None` path reads before writing it.
    JumpNoneUnwrap = "jump-none.unwrap" { dst: DstAny, opt: SrcRef, target: Target }
    /// `jump-some` and the `unwrap` at its target, in one dispatch: `dst` =
    /// the value inside `opt` and `pc = target` if `opt` is a `Some`; `dst`
    /// = 0, falling through, if it is `None`. Typed as `jump-none.unwrap`
    /// is. The emitter makes it, once the function is finished, of a
    /// `jump-some` whose target is a new binding's `unwrap` of the register
    /// it tests, where no other jump lands, and jumps past that `unwrap` (a
    /// `None =>` arm written before the `Some(x)` arm).
    JumpSomeUnwrap = "jump-some.unwrap" { dst: DstAny, opt: SrcRef, target: Target }
    /// `dst = list[index]`, then `if dst { pc = target }`, on a
    /// `List[Bool]`: the `get.list` and the `jump-if` that tests the
    /// element in one dispatch (a sieve's `if flags[i]`, a search's
    /// `if used[c]`). An index out of range is a runtime error, as for
    /// `get.list`. The compiler's emitter makes it of the pair when the
    /// test is of the register just loaded, on one source line, with no
    /// label bound between the two.
    JumpIfList = "jump-if.list" { dst: DstNum, list: SrcRef, index: SrcNum, target: Target }
    /// `dst = list[index]`, then `if !dst { pc = target }`, on a
    /// `List[Bool]`: `get.list` and `jump-ifnot` in one dispatch.
    JumpIfNotList = "jump-ifnot.list" { dst: DstNum, list: SrcRef, index: SrcNum, target: Target }
    /// `dst = a < b`, then `if dst { pc = target }`, on `Float`: a
    /// `lt.float` and the `jump-if` that tests it in one dispatch (`>` is
    /// `lt.float` with the operands swapped, so this is `>` too). It is
    /// the pair exactly, the Bool written included, so a NaN on either
    /// side gives false and does not jump.
    JumpIfLtFloat = "jump-if.lt.float" { dst: DstNum, a: SrcNum, b: SrcNum, target: Target }
    /// `dst = a < b`, then `if !dst { pc = target }`, on `Float`: the jump
    /// of `if a < b` over its body (a NaN jumps, as the pair does).
    JumpIfNotLtFloat = "jump-ifnot.lt.float" { dst: DstNum, a: SrcNum, b: SrcNum, target: Target }
    /// `dst = a <= b`, then `if dst { pc = target }`, on `Float` (`>=`
    /// swapped).
    JumpIfLeFloat = "jump-if.le.float" { dst: DstNum, a: SrcNum, b: SrcNum, target: Target }
    /// `dst = a <= b`, then `if !dst { pc = target }`, on `Float`.
    JumpIfNotLeFloat = "jump-ifnot.le.float" { dst: DstNum, a: SrcNum, b: SrcNum, target: Target }
    /// Calls `func` with the `count` registers from `base` as its arguments
    /// and writes its result to `dst`. The callee's frame is a window of the
    /// caller's: its `r0..r{count}` *are* the caller's `base..base+count`,
    /// not copies, and the rest of it lies over the caller's registers
    /// after them. So the caller lends every register from `base` up: while
    /// the callee runs they are the callee's, and after it returns those
    /// after the arguments hold unspecified bits, except that ref registers
    /// among them read as 0 (`None`), and the arguments hold what the callee
    /// left in its parameters. The compiler puts a call's arguments above
    /// every register it still needs. In the callee, ref registers after the
    /// arguments start as 0, and num registers hold unspecified bits until
    /// it writes them (the compiler writes every local before it reads it).
    /// A call deeper than the limit is a runtime error. The VM pushes a
    /// frame on its own stack: a Cove call never recurses natively.
    Call = "call" { dst: DstAny, func: Func, base: Base, count: Count }
    /// Calls the builtin with the `count` registers from `base` as its
    /// arguments (a method's receiver first) and writes its result to `dst`.
    CallBuiltin = "call-builtin" { dst: DstAny, builtin: Builtin, base: Base, count: Count }
    /// Returns `src` to the caller; from the entry function, ends the run
    /// with it.
    Return = "return" { src: SrcAny }
    /// Returns `()`.
    ReturnUnit = "return.unit" {}
    /// Returns `a + b` on `Int`; overflow is a runtime error: an `add.int`
    /// and the `return` of its sum (`fib(n - 1) + fib(n - 2)`, `x + k`) in
    /// one dispatch. The compiler's emitter makes it of the pair on one
    /// source line with no label bound between; only a function whose
    /// result is a number may have it.
    ReturnAddInt = "return.add.int" { a: SrcNum, b: SrcNum }
    /// Returns `a + value` on `Int`; overflow is a runtime error: an
    /// `add.int.imm` and the `return` of its sum (`x + 1`), as
    /// `return.add.int` is of `add.int`.
    ReturnAddIntImm = "return.add.int.imm" { a: SrcNum, value: Imm }
    /// `if a == value { return src }` on `Int`, else go on to the next
    /// instruction. This and the five below are a guarded return in one
    /// dispatch: the base case of a recursion (`if n < 2 { n } else ...`),
    /// which would otherwise be a compare-and-jump over a `return`. The
    /// compiler fuses the pair when the jump's target is the instruction
    /// right after the return.
    ReturnIfEqIntImm = "return-if-eq.int.imm" { a: SrcNum, value: Imm, src: SrcAny }
    /// `if a != value { return src }` on `Int`.
    ReturnIfNeIntImm = "return-if-ne.int.imm" { a: SrcNum, value: Imm, src: SrcAny }
    /// `if a < value { return src }` on `Int`.
    ReturnIfLtIntImm = "return-if-lt.int.imm" { a: SrcNum, value: Imm, src: SrcAny }
    /// `if a <= value { return src }` on `Int`.
    ReturnIfLeIntImm = "return-if-le.int.imm" { a: SrcNum, value: Imm, src: SrcAny }
    /// `if a > value { return src }` on `Int`.
    ReturnIfGtIntImm = "return-if-gt.int.imm" { a: SrcNum, value: Imm, src: SrcAny }
    /// `if a >= value { return src }` on `Int`.
    ReturnIfGeIntImm = "return-if-ge.int.imm" { a: SrcNum, value: Imm, src: SrcAny }

    // ---- structs, enums, options ---------------------------------------

    /// `dst` = a new struct `ty` whose fields, in declaration order, are the
    /// `count` registers from `base`.
    NewStruct = "new.struct" { dst: DstRef, ty: Struct, base: Base, count: Count }
    /// `dst = obj.field`, `obj` a `ty`.
    GetField = "get.field" { dst: DstAny, obj: SrcRef, ty: Struct, field: Index }
    /// `obj.field = src`, `obj` a `ty`.
    SetField = "set.field" { obj: SrcRef, ty: Struct, field: Index, src: SrcAny }
    /// `dst` = a new value of enum `ty`, variant `variant`, whose payload is
    /// the `count` registers from `base`.
    NewVariant = "new.variant" { dst: DstRef, ty: Enum, variant: Index, base: Base, count: Count }
    /// `dst` = the variant index of the enum value `obj`.
    Tag = "tag" { dst: DstNum, obj: SrcRef }
    /// `dst` = payload `field` of `obj`, which the code has established is
    /// variant `variant` of enum `ty` (a different variant is a runtime error).
    GetPayload = "get.payload" { dst: DstAny, obj: SrcRef, ty: Enum, variant: Index, field: Index }
    /// `dst = Some(src)`, `src` a value of type `ty`.
    NewSome = "some" { dst: DstRef, src: SrcAny, ty: Type }
    /// `dst` = the value inside `opt`, of type `ty`; `None` is a runtime error.
    Unwrap = "unwrap" { dst: DstAny, opt: SrcRef, ty: Type }

    // ---- lists and maps -------------------------------------------------

    /// `dst` = a new `List[ty]` of the `count` registers from `base`.
    NewList = "new.list" { dst: DstRef, ty: Type, base: Base, count: Count }
    /// `dst = list[index]`, elements of type `ty`; an index out of range is
    /// a runtime error.
    GetList = "get.list" { dst: DstAny, list: SrcRef, index: SrcNum, ty: Type }
    /// `dst = list[index + offset]`, elements of type `ty`: a `get.list`
    /// of an index `i + 1` or `i - 1` in one dispatch, where it was an
    /// `add.int.imm` into a register read once. The sum's overflow is the
    /// runtime error of `add.int.imm`, and a sum out of range that of
    /// `get.list`.
    GetListImm = "get.list.imm" { dst: DstAny, list: SrcRef, index: SrcNum, ty: Type, offset: Offset }
    /// `index += offset`, then `dst = list[index]`, elements of type `ty`:
    /// an `add.int.imm` that steps an index in place and the `get.list` of
    /// the stepped index in one dispatch (a partition's `i += 1` and the
    /// `a[i]` its scan tests next). The step's overflow is the runtime
    /// error of `add.int.imm`, and an index out of range that of
    /// `get.list`, the index already stepped, as the pair leaves it. The
    /// compiler's emitter makes it of the pair on one source line with no
    /// label bound between the two.
    StepGetList = "step.get.list" { dst: DstAny, list: SrcRef, index: DstNum, ty: Type, offset: Offset }
    /// `list[index] = src`, elements of type `ty`; an index out of range is
    /// a runtime error.
    SetList = "set.list" { list: SrcRef, index: SrcNum, src: SrcAny, ty: Type }
    /// `dst` = how many elements `list` holds.
    LenList = "len.list" { dst: DstNum, list: SrcRef }
    /// Appends `src` to `list`, elements of type `ty`: `list.push(src)`
    /// as an instruction, where it was a builtin call of `List.push` with
    /// the list moved beside its argument (a `move`, the call, and the
    /// call's bookkeeping). It may allocate, when the list must grow.
    PushList = "push.list" { list: SrcRef, src: SrcAny, ty: Type }
    /// `dst` = a new, empty `Map[key, value]`.
    NewMap = "new.map" { dst: DstRef, key: Type, value: Type }

    // ---- tasks ----------------------------------------------------------

    /// `dst` = a task running `func` on the `count` registers from `base`,
    /// deep-copied into a machine and heap of its own.
    Spawn = "spawn" { dst: DstRef, func: Func, base: Base, count: Count }
    /// `dst` = a new `Channel[ty]`.
    NewChannel = "new.channel" { dst: DstRef, ty: Type }

    // ---- structural equality ---------------------------------------------

    /// `dst = a == b` on two values of type `ty` (a struct, enum, list,
    /// map or option): equal parts, deeply; a Float part compares as IEEE
    /// does; a cycle met again counts as equal. `!=` is this and `not.bool`.
    EqValue = "eq.value" { dst: DstNum, a: SrcRef, b: SrcRef, ty: Type }

    // ---- function values -------------------------------------------------

    /// `dst` = a closure of `func` that captured the `count` registers from
    /// `base`: a heap object holding the function and copies of the
    /// registers (a captured `var` is a reference to its cell, so the copy
    /// shares it). With no captures `func` is any function, and the value
    /// has the type `fn(params) -> result` of its signature. With captures,
    /// `func`'s last parameter is its *environment*, a struct whose fields
    /// are the captures in order, and the value's type leaves that
    /// parameter out: a call passes the closure object itself there, laid
    /// out as that struct after its header, so the body reads a capture
    /// with `get.field`.
    NewClosure = "new.closure" { dst: DstRef, func: Func, base: Base, count: Count }
    /// Calls the closure in `callee`, of type `fn(T0, ..) -> R` with
    /// `count` parameters, on the `count` registers from `base`, and writes
    /// its result to `dst`: as `call`, with the callee read from the
    /// closure object instead of the instruction, and no check of its
    /// type (the verifier proved every closure of this type has this
    /// signature). The closure itself is written to `base + count`, where a
    /// function with captures finds its environment: a register of either
    /// class (the compiler makes it a num one, so that it is not a ref
    /// register of the caller's for the return to clear).
    CallClosure = "call.closure" { dst: DstAny, callee: SrcRef, base: Base, count: Count }
    /// `base = src`, then `call.closure dst, callee, base, count`: the
    /// `move` of a variable into the first argument of a closure call and
    /// the call in one dispatch (`g(f(x))` of a composed function, a fold
    /// calling `f(acc, i)`). `src` is of the first parameter's class and
    /// type, as the move's source would have to be; `count` is at least 1.
    /// A closure that is 0 faults as `call.closure`'s does, with the move
    /// already made, as the pair leaves it. The compiler's emitter makes
    /// it of the pair on one source line with no label bound between.
    MoveCallClosure = "move-call.closure" { dst: DstAny, callee: SrcRef, base: Base, count: Count, src: SrcAny }

    // ---- added since: last, so the dispatch loop's code stays put ------
    //
    // A new opcode among the others renumbers those after it, and its
    // handler moves theirs: in the twenty-ninth session these two, put
    // beside `rem.int.imm`, ran the same native instructions and made
    // `sorting` and `levenshtein` 11% slower, which put last they did not.

    /// `dst = a / 2^exponent`, truncated toward zero: a division by a
    /// power of two, by shifts (a divisor such as 2^31 does not fit
    /// `div.int.imm`'s 32 bits). The verifier holds `exponent` to 1..=62,
    /// the powers of two that are `Int`s above 1, so this never fails.
    DivIntPow2 = "div.int.pow2" { dst: DstNum, a: SrcNum, exponent: Imm }
    /// `dst = a % 2^exponent`, with the sign of `a`: a remainder by a power
    /// of two, by a mask (the `seed % 2147483648` of a random-number
    /// generator). `exponent` is in 1..=62, as for `div.int.pow2`.
    RemIntPow2 = "rem.int.pow2" { dst: DstNum, a: SrcNum, exponent: Imm }
    /// Calls `func` as `call` does, but its result, a struct of `n` fields
    /// (a tuple, `n` at most [`MAX_UNPACKED`]), arrives as its fields in
    /// the `n` registers from `dst`, and is never made: the call of
    /// `let (q, r) = divmod(a, b)`. The verifier accepts it only of a
    /// callee whose every `return` comes right after a `return.unpacked`
    /// (see there), so that the callee never returns one reference to a
    /// caller waiting for `n` registers.
    CallUnpack = "call.unpack" { dst: DstAny, func: Func, base: Base, count: Count }
    /// If this frame's caller called it with `call.unpack`, returns the
    /// `count` registers from `base`, the fields of the function's result,
    /// into the caller's registers from that call's `dst`; otherwise falls
    /// through, to the `new.struct` and `return` that make the result and
    /// return it. A conditional return, as the `return-if-*` forms are.
    ReturnUnpacked = "return.unpacked" { base: Base, count: Count }
    /// `dst = a * value + b`: a `mul.int.imm` and the `add.int` that adds
    /// its product in place (`r * 9 + c`, `h * 31 + x`) in one dispatch.
    /// `a` and `b` are both read before `dst` is written. The product's
    /// overflow is the runtime error of `mul.int.imm`, with nothing
    /// written; the sum's that of `add.int`, with `dst` left holding the
    /// product, as the pair leaves them. The compiler's emitter makes it of
    /// the pair on one source line with no label bound between the two,
    /// when the sum goes to the product's own register and reads it on one
    /// side only, so that nothing after the pair sees a difference.
    MulAddIntImm = "mul-add.int.imm" { dst: DstNum, a: SrcNum, value: Imm, b: SrcNum }
    /// `base = a + offset`, then `call base, func, base, count`: an
    /// `add.int.imm` that computes a call's first argument in the window
    /// (`fib(n - 1)`, `walk(depth + 1, ...)`) and the call that returns
    /// into that same register, in one dispatch. `base` is a num register
    /// and the callee's first parameter and result are of the num class.
    /// The sum's overflow is the runtime error of `add.int.imm`, before
    /// any call is made; after it, everything is as `call`'s. The
    /// compiler's emitter makes it of the pair on one source line with no
    /// label bound between the two, for an offset that fits a byte.
    AddCall = "add-call" { func: Func, base: Base, count: Count, a: SrcNum, offset: Offset }
}

/// The most fields a result may have to be taken apart by `call.unpack`
/// and `return.unpacked`: the return copies them out of the callee's
/// registers into a small array of this many words before the caller's
/// are cleared.
pub const MAX_UNPACKED: usize = 4;

impl Instr {
    /// Where this instruction may jump, if it jumps.
    pub fn target(&self) -> Option<u32> {
        self.operands().into_iter().find_map(|o| match o {
            Operand::Target(t) => Some(t),
            _ => None,
        })
    }

    /// The function a call enters by name, not through a closure: the
    /// callee of a `call`, a `call.unpack` or an `add-call`. (A `spawn`
    /// names one too, but runs it in another task.)
    pub fn direct_callee(&self) -> Option<FunctionId> {
        match *self {
            Instr::Call { func, .. }
            | Instr::CallUnpack { func, .. }
            | Instr::AddCall { func, .. } => Some(func),
            _ => None,
        }
    }

    /// The register this instruction may return: the source of a `return`
    /// or of a guarded `return-if-*`. `return.unit` returns no register.
    pub fn returned(&self) -> Option<Reg> {
        match *self {
            Instr::Return { src }
            | Instr::ReturnIfEqIntImm { src, .. }
            | Instr::ReturnIfNeIntImm { src, .. }
            | Instr::ReturnIfLtIntImm { src, .. }
            | Instr::ReturnIfLeIntImm { src, .. }
            | Instr::ReturnIfGtIntImm { src, .. }
            | Instr::ReturnIfGeIntImm { src, .. } => Some(src),
            _ => None,
        }
    }

    /// The constant divisor of a `div.int.imm`, a `rem.int.imm` or one of
    /// its fused forms (`rem-add.int.imm`, `rem-jump-eq.int.imm`,
    /// `rem-jump-ne.int.imm`).
    pub fn constant_divisor(&self) -> Option<i32> {
        match *self {
            Instr::DivIntImm { value, .. } | Instr::RemIntImm { value, .. } => Some(value),
            Instr::RemAddIntImm { divisor, .. }
            | Instr::RemJumpEqIntImm { divisor, .. }
            | Instr::RemJumpNeIntImm { divisor, .. } => Some(i32::from(divisor)),
            _ => None,
        }
    }

    /// The exponent of a `div.int.pow2` or a `rem.int.pow2` outside
    /// [`POW2_EXPONENTS`], which the verifier refuses.
    pub fn failing_exponent(&self) -> Option<i32> {
        match *self {
            Instr::DivIntPow2 { exponent, .. } | Instr::RemIntPow2 { exponent, .. } => {
                Some(exponent).filter(|k| !POW2_EXPONENTS.contains(k))
            }
            _ => None,
        }
    }

    /// The constant divisor (see [`Instr::constant_divisor`]) that could fail,
    /// which the verifier refuses: see [`can_divide_unchecked`].
    pub fn failing_divisor(&self) -> Option<i32> {
        self.constant_divisor()
            .filter(|value| !can_divide_unchecked(*value))
    }
}

/// The exponents a `div.int.pow2` or `rem.int.pow2` may have: the powers
/// of two from 2 to 2^62, every one an `Int` whose division needs no check.
pub const POW2_EXPONENTS: std::ops::RangeInclusive<i32> = 1..=62;

/// The exponent `k` of a divisor `2^k` that `div.int.pow2` and
/// `rem.int.pow2` divide by (see [`POW2_EXPONENTS`]), or `None` for any
/// other divisor.
pub fn power_of_two_exponent(divisor: i64) -> Option<i32> {
    let k = divisor.trailing_zeros() as i32;
    (divisor > 0 && divisor.count_ones() == 1 && POW2_EXPONENTS.contains(&k)).then_some(k)
}

/// Whether a division or remainder by `divisor` can never fail, and so may
/// be `div.int.imm` or `rem.int.imm`: every divisor but 0 (division by
/// zero) and -1 (`Int.MIN / -1` overflows).
pub fn can_divide_unchecked(divisor: i32) -> bool {
    divisor != 0 && divisor != -1
}

impl Opcode {
    /// Whether an instruction of this opcode ends a *stretch*: it may send
    /// control anywhere but the next instruction (a jump, a branch, a call,
    /// a return), or it may allocate (every instruction with a collection
    /// point after it).
    ///
    /// A stretch is a run of instructions that is entered only at its first
    /// and left only after its last: it starts at a function's first
    /// instruction, at the target of a taken jump or branch, and after any
    /// instruction that ends one, and it runs to the first instruction at
    /// or after its start that ends one. So every instruction of a stretch
    /// runs exactly as often as its first (until a fault ends the run
    /// inside one), and everything a stretch allocates, its last
    /// instruction allocated. A debugger that asks to be stopped only at
    /// stretches (`cove_runtime::vm::debug::Stops::Stretches`) and counts
    /// them counts every instruction exactly, and the runtime and the
    /// profiler both read this one definition.
    #[inline(always)]
    pub fn ends_stretch(self) -> bool {
        self.stretch_end() != StretchEnd::No
    }

    /// How an instruction of this opcode ends a stretch, if it does: what
    /// the next stop can be known to be before anyone looks at it.
    #[inline(always)]
    pub fn stretch_end(self) -> StretchEnd {
        STRETCH_END[self as usize]
    }
}

/// How an instruction ends a stretch ([`Opcode::ends_stretch`]): what the
/// next stop can be known to be before anyone looks at it.
///
/// A branch — a jump of any kind, taken or not — leaves control in its own
/// frame and allocates nothing, so the stop after it is in the frame of the
/// stop before, with the heap where it was. A call's next stop is the
/// callee's first instruction, one frame deeper; a return's is the
/// caller's instruction after its call, one frame shallower; neither
/// allocates. A debugger that counts stretches can take those stops from
/// what the loop already knows. Everything else that ends a stretch (an
/// allocation, a builtin, a spawn) may move the heap, and a conditional
/// return either returns or falls through, which only the run knows: the
/// dispatch loop tells those two apart as it runs them. An instruction
/// that may allocate stays in its frame too: the stop after it is in the
/// frame of the stop before, with the heap's counters wherever the
/// instruction left them. The loop also tells an
/// instruction that may allocate from one that, as it ran, did not: a
/// builtin that handed out no heap words and waited for nothing (a
/// string's length, a byte, a map lookup, a push into room the list has,
/// a set of a key the map has, a print) leaves the frame and the heap as
/// a branch does, and the loop marks its end as one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum StretchEnd {
    /// The instruction does not end a stretch.
    No,
    /// It jumps, or may, within its frame without allocating. The dispatch
    /// loop also marks so an `Other` that, as it ran, moved nothing.
    Branch,
    /// It calls a Cove function (`call`, `call.closure`).
    Call,
    /// It returns (`return`, `return.unit`).
    Return,
    /// It returns or falls through (the conditional returns): a `Return`
    /// when it returns, a `Branch` when it does not, and only the run knows
    /// which; the dispatch loop tells them apart as it runs them.
    Conditional,
    /// It may allocate (and when, as it ran, it did not, the dispatch loop
    /// marks it a `Branch`).
    Other,
}

/// [`Opcode::stretch_end`] for every opcode, by its place in the table:
/// one load in the dispatch loop that stops at stretches, not a chain of
/// comparisons. A constant rather than a static, so each crate that reads
/// it indexes its own copy instead of going through an address table.
const STRETCH_END: [StretchEnd; Opcode::ALL.len()] = {
    let mut table = [StretchEnd::No; Opcode::ALL.len()];
    let mut i = 0;
    while i < Opcode::ALL.len() {
        let op = Opcode::ALL[i];
        table[i] = if !ends_stretch(op) {
            StretchEnd::No
        } else if is_branch(op) {
            StretchEnd::Branch
        } else if matches!(
            op,
            Opcode::Call
                | Opcode::CallClosure
                | Opcode::MoveCallClosure
                | Opcode::CallUnpack
                | Opcode::AddCall
        ) {
            StretchEnd::Call
        } else if is_return(op) {
            StretchEnd::Return
        } else if is_conditional_return(op) {
            StretchEnd::Conditional
        } else {
            StretchEnd::Other
        };
        i += 1;
    }
    table
};

/// The opcodes that end a stretch by jumping within their function: those
/// with a jump target. (A conditional return leaves its frame when taken.)
const fn is_branch(op: Opcode) -> bool {
    let kinds = op.operand_kinds();
    let mut i = 0;
    while i < kinds.len() {
        if matches!(kinds[i], OperandKind::Target) {
            return true;
        }
        i += 1;
    }
    false
}

/// The returns that always return: `return`, `return.unit` and the fused
/// forms that return what they make. The one list of them: whether an
/// instruction falls through ([`Instr::falls_through`]) and how it ends a
/// stretch both ask it.
const fn is_return(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, Return | ReturnUnit | ReturnAddInt | ReturnAddIntImm)
}

/// The conditional returns, which return or fall through.
const fn is_conditional_return(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        ReturnIfEqIntImm
            | ReturnIfNeIntImm
            | ReturnIfLtIntImm
            | ReturnIfLeIntImm
            | ReturnIfGtIntImm
            | ReturnIfGeIntImm
            | ReturnUnpacked
    )
}

impl Instr {
    /// The pcs control may reach after this instruction at `pc`: the next
    /// one unless it only jumps or returns, and its jump target if it has
    /// one. (The verifier's flow passes and [`reachable`] walk these.)
    pub fn successors(&self, pc: usize) -> impl Iterator<Item = usize> + use<> {
        let falls = self.falls_through();
        let target = self.target().map(|t| t as usize);
        falls.then_some(pc + 1).into_iter().chain(target)
    }

    /// Whether control may go on to the next instruction after this one:
    /// not after a jump that always jumps, nor after a return that always
    /// returns. The one place that says which those are: the verifier's
    /// *ends* (a function's code ends in one) and the compiler's "the
    /// body already ended" both ask it.
    pub fn falls_through(&self) -> bool {
        let op = self.opcode();
        !(op == Opcode::Jump || is_return(op))
    }
}

/// Which instructions of `code` control can reach from its first: the
/// ones a run may execute. The compiler leaves some unreached (a jump that
/// every jump to it now passes by, once jumps are threaded; code after a
/// `return`), and a report that lays counts over the source treats a line
/// of only such instructions as holding no code, not as one that never
/// ran. One walk of the control flow, each instruction visited once.
pub fn reachable(code: &[Instr]) -> Vec<bool> {
    let mut seen = vec![false; code.len()];
    let mut work = Vec::new();
    if !code.is_empty() {
        seen[0] = true;
        work.push(0);
    }
    while let Some(pc) = work.pop() {
        for next in code[pc].successors(pc) {
            if next < code.len() && !seen[next] {
                seen[next] = true;
                work.push(next);
            }
        }
    }
    seen
}

/// The length of the stretch that starts at each instruction of `code`:
/// the instructions from it up to and including the first at or after it
/// that ends a stretch ([`Opcode::ends_stretch`]).
///
/// Verified code ends in an instruction that ends a stretch (a return or a
/// jump), so every stretch ends inside the code; for code that does not,
/// the last stretch runs to the end. One pass from the end back: the one
/// definition a debugger that counts stretches (the profiler's count
/// table) takes their lengths from.
pub fn stretch_lengths(code: &[Instr]) -> Vec<u32> {
    let mut lengths = vec![0; code.len()];
    let mut end = code.len().saturating_sub(1);
    for pc in (0..code.len()).rev() {
        if code[pc].opcode().ends_stretch() {
            end = pc;
        }
        lengths[pc] = (end - pc + 1) as u32;
    }
    lengths
}

/// Which opcodes end a stretch, as the table above is built from: every
/// return, conditional or not, every branch (an opcode with a jump
/// target, [`is_branch`]), and the calls and the instructions that may
/// allocate.
const fn ends_stretch(op: Opcode) -> bool {
    use Opcode::*;
    is_return(op)
        || is_conditional_return(op)
        || is_branch(op)
        || matches!(
            op,
            Call | AddCall
                | CallBuiltin
                | Spawn
                | ConcatStr
                | ToStrInt
                | ToStrFloat
                | ToStr
                | NewStruct
                | NewVariant
                | NewSome
                | NewList
                | PushList
                | NewMap
                | NewChannel
                | NewClosure
                | CallClosure
                | MoveCallClosure
                | CallUnpack
        )
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mnemonic())
    }
}

#[cfg(test)]
impl Instr {
    /// An instruction of `opcode` whose every operand is the smallest of
    /// its kind (register 0, function 0, ...): for the tests of this crate
    /// that go through every opcode.
    pub(crate) fn sample(opcode: Opcode) -> Instr {
        let operands: Vec<Operand> = opcode
            .operand_kinds()
            .iter()
            .map(|kind| match kind {
                OperandKind::Count => Operand::Count(0),
                OperandKind::Imm => Operand::Imm(0),
                OperandKind::Offset => Operand::Offset(0),
                OperandKind::Divisor => Operand::Divisor(0),
                OperandKind::Const => Operand::Const(crate::program::ConstId(0)),
                OperandKind::Target => Operand::Target(0),
                OperandKind::Func => Operand::Func(FunctionId(0)),
                OperandKind::Builtin => Operand::Builtin(crate::builtins::Builtin::Args),
                OperandKind::Type => Operand::Type(crate::types::TypeId(0)),
                OperandKind::Struct => Operand::Struct(crate::types::StructId(0)),
                OperandKind::Enum => Operand::Enum(crate::types::EnumId(0)),
                OperandKind::Index => Operand::Index(0),
                _ => Operand::Reg(Reg(0)),
            })
            .collect();
        Instr::from_operands(opcode, &operands).expect("operands of the right kinds")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instruction_stays_small_enough_to_dispatch_from_a_dense_array() {
        assert!(
            std::mem::size_of::<Instr>() <= 12,
            "{}",
            std::mem::size_of::<Instr>()
        );
    }

    #[test]
    fn a_stretch_ends_in_a_branch_exactly_where_an_opcode_has_a_jump_target() {
        for op in Opcode::ALL {
            let jumps = op.operand_kinds().contains(&OperandKind::Target);
            assert_eq!(op.stretch_end() == StretchEnd::Branch, jumps, "{op}");
        }
        assert_eq!(Opcode::Call.stretch_end(), StretchEnd::Call);
        assert_eq!(Opcode::CallClosure.stretch_end(), StretchEnd::Call);
        assert_eq!(Opcode::MoveCallClosure.stretch_end(), StretchEnd::Call);
        assert_eq!(Opcode::ReturnUnit.stretch_end(), StretchEnd::Return);
        assert_eq!(Opcode::ReturnAddInt.stretch_end(), StretchEnd::Return);
        assert_eq!(Opcode::ReturnAddIntImm.stretch_end(), StretchEnd::Return);
        // Returned or fell through: the loop tells which as it runs it.
        assert_eq!(
            Opcode::ReturnIfLtIntImm.stretch_end(),
            StretchEnd::Conditional
        );
        assert_eq!(Opcode::NewList.stretch_end(), StretchEnd::Other);
        assert_eq!(Opcode::AddInt.stretch_end(), StretchEnd::No);
    }

    #[test]
    fn every_opcode_that_can_jump_ends_a_stretch() {
        for op in Opcode::ALL {
            if op.operand_kinds().contains(&OperandKind::Target) {
                assert!(op.ends_stretch(), "{op}");
            }
        }
        assert!(!Opcode::AddInt.ends_stretch());
        assert!(!Opcode::GetList.ends_stretch());
    }

    #[test]
    fn a_direct_callee_is_named_by_exactly_the_calls_whose_operands_name_a_function() {
        // Every function operand of a sample is function 0.
        let callee = FunctionId(0);
        for op in Opcode::ALL {
            let instr = Instr::sample(*op);
            let calls_by_name = op.stretch_end() == StretchEnd::Call
                && op.operand_kinds().contains(&OperandKind::Func);
            assert_eq!(
                instr.direct_callee(),
                calls_by_name.then_some(callee),
                "{}",
                op.mnemonic()
            );
        }
    }

    #[test]
    fn every_instruction_rebuilds_from_its_own_operands() {
        let i = Instr::Call {
            dst: Reg(1),
            func: FunctionId(3),
            base: Reg(4),
            count: 2,
        };
        assert_eq!(Instr::from_operands(i.opcode(), &i.operands()), Ok(i));
        for op in Opcode::ALL {
            assert_eq!(Opcode::from_mnemonic(op.mnemonic()), Some(*op));
        }
    }
}
