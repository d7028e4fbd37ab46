//! The builtin catalogue: every builtin function and method of the language,
//! with its name and signature, in one table.
//!
//! The compiler resolves `s.length()` and `println(x)` against this table and
//! emits `call-builtin` with the [`Builtin`] it found; the runtime implements
//! each [`Builtin`] by matching on it, so a builtin added here and forgotten
//! there is a compile error, not a runtime surprise.
//!
//! Signatures are written with [`Sig`], which can name the type parameters of
//! the receiver (`T` of `List[T]`, `K` and `V` of `Map[K, V]`). Where one
//! method name works on several element types with different code (sorting
//! `List[Int]` against sorting `List[String]`), the table has one entry per
//! receiver shape, so the VM never inspects a value's type to choose.

use std::fmt;

/// A type in a builtin's signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sig {
    /// `()`
    Unit,
    /// `Bool`
    Bool,
    /// `Int`
    Int,
    /// `Float`
    Float,
    /// `String`
    Str,
    /// The element type of the receiver (`T` of `List[T]`, `Option[T]`,
    /// `Task[T]`, `Channel[T]`).
    T,
    /// The key type of a `Map[K, V]` receiver.
    K,
    /// The value type of a `Map[K, V]` receiver.
    V,
    /// `List[_]`
    List(&'static Sig),
    /// `Map[_, _]`
    Map(&'static Sig, &'static Sig),
    /// `Option[_]`
    Opt(&'static Sig),
    /// `Task[_]`
    Task(&'static Sig),
    /// `Channel[_]`
    Channel(&'static Sig),
}

/// A builtin's signature. A method's receiver is its first argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    /// The receiver's type for a method (`s.length()`), `None` for a
    /// function (`println(s)`).
    pub receiver: Option<Sig>,
    /// The arguments after the receiver.
    pub params: &'static [Sig],
    /// The result.
    pub result: Sig,
}

impl Signature {
    /// How many registers a `call-builtin` of this passes: the receiver and
    /// the arguments.
    pub fn arity(&self) -> usize {
        self.params.len() + usize::from(self.receiver.is_some())
    }
}

macro_rules! catalogue {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident = $text:literal, $receiver:expr, [$($param:expr),*] -> $result:expr;
    )*) => {
        /// One builtin function or method of the language.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(u16)]
        pub enum Builtin {
            $($(#[doc = $doc])* #[doc = ""] #[doc = concat!("`", $text, "`")] $name,)*
        }

        impl Builtin {
            /// Every builtin, in the order of the table.
            pub const ALL: &'static [Builtin] = &[$(Builtin::$name),*];

            /// The name as the printer writes it: `String.length` for a
            /// method, `println` for a function.
            pub fn name(self) -> &'static str {
                match self { $(Builtin::$name => $text),* }
            }

            /// The signature the compiler checks calls against.
            pub fn signature(self) -> Signature {
                match self {
                    $(Builtin::$name => Signature {
                        receiver: $receiver,
                        params: &[$($param),*],
                        result: $result,
                    }),*
                }
            }
        }
    };
}

use Sig::*;

catalogue! {
    // ---- functions ------------------------------------------------------
    /// Writes the text to standard output.
    Print = "print", None, [Str] -> Unit;
    /// Writes the text and a newline to standard output.
    Println = "println", None, [Str] -> Unit;
    /// Writes the text and a newline to standard error.
    Eprintln = "eprintln", None, [Str] -> Unit;
    /// The whole file at the path, as text; a missing or unreadable file is a
    /// runtime error.
    ReadFile = "read_file", None, [Str] -> Str;
    /// Writes the text to the file at the path, replacing it; a failure is a
    /// runtime error.
    WriteFile = "write_file", None, [Str, Str] -> Unit;
    /// The program's arguments.
    Args = "args", None, [] -> List(&Str);
    /// Ends the run at once with the exit status.
    Exit = "exit", None, [Int] -> Unit;
    /// A runtime error if the condition is false.
    Assert = "assert", None, [Bool] -> Unit;
    /// A runtime error with the message if the condition is false.
    AssertMessage = "assert", None, [Bool, Str] -> Unit;

    // ---- String ---------------------------------------------------------
    /// The length in bytes.
    StrLength = "String.length", Some(Str), [] -> Int;
    /// The byte at the index, 0 to 255; out of range is a runtime error.
    StrByteAt = "String.byte_at", Some(Str), [Int] -> Int;
    /// The bytes from `start` up to `end`; a range outside the string or
    /// not on a character boundary is a runtime error.
    StrSlice = "String.slice", Some(Str), [Int, Int] -> Str;
    /// Whether the text occurs in the string.
    StrContains = "String.contains", Some(Str), [Str] -> Bool;
    /// Whether the string starts with the text.
    StrStartsWith = "String.starts_with", Some(Str), [Str] -> Bool;
    /// Whether the string ends with the text.
    StrEndsWith = "String.ends_with", Some(Str), [Str] -> Bool;
    /// The byte index of the first occurrence of the text.
    StrFind = "String.find", Some(Str), [Str] -> Opt(&Int);
    /// The pieces between occurrences of the separator.
    StrSplit = "String.split", Some(Str), [Str] -> List(&Str);
    /// The lines, without their line endings.
    StrLines = "String.lines", Some(Str), [] -> List(&Str);
    /// The string without leading and trailing white space.
    StrTrim = "String.trim", Some(Str), [] -> Str;
    /// Every occurrence of the first text replaced by the second.
    StrReplace = "String.replace", Some(Str), [Str, Str] -> Str;
    /// The string repeated; a negative count is a runtime error.
    StrRepeat = "String.repeat", Some(Str), [Int] -> Str;
    /// The string in upper case.
    StrToUpper = "String.to_upper", Some(Str), [] -> Str;
    /// The string in lower case.
    StrToLower = "String.to_lower", Some(Str), [] -> Str;
    /// The decimal integer the string spells; anything else is a runtime error.
    StrParseInt = "String.parse_int", Some(Str), [] -> Int;
    /// The number the string spells; anything else is a runtime error.
    StrParseFloat = "String.parse_float", Some(Str), [] -> Float;

    // ---- List -----------------------------------------------------------
    /// How many elements.
    ListLength = "List.length", Some(List(&T)), [] -> Int;
    /// Appends the element.
    ListPush = "List.push", Some(List(&T)), [T] -> Unit;
    /// Removes and returns the last element.
    ListPop = "List.pop", Some(List(&T)), [] -> Opt(&T);
    /// The element at the index, `None` out of range.
    ListGet = "List.get", Some(List(&T)), [Int] -> Opt(&T);
    /// Inserts the element before the index (the length appends); out of
    /// range is a runtime error.
    ListInsert = "List.insert", Some(List(&T)), [Int, T] -> Unit;
    /// Removes and returns the element at the index; out of range is a
    /// runtime error.
    ListRemove = "List.remove", Some(List(&T)), [Int] -> T;
    /// The strings joined with the separator between them.
    ListJoin = "List.join", Some(List(&Str)), [Str] -> Str;
    /// Sorts the integers ascending, in place.
    ListSortInt = "List.sort", Some(List(&Int)), [] -> Unit;
    /// Sorts the strings by their bytes, in place.
    ListSortStr = "List.sort", Some(List(&Str)), [] -> Unit;
    /// Whether the integer is an element.
    ListContainsInt = "List.contains", Some(List(&Int)), [Int] -> Bool;
    /// Whether the float is an element (`==`).
    ListContainsFloat = "List.contains", Some(List(&Float)), [Float] -> Bool;
    /// Whether the boolean is an element.
    ListContainsBool = "List.contains", Some(List(&Bool)), [Bool] -> Bool;
    /// Whether the string is an element.
    ListContainsStr = "List.contains", Some(List(&Str)), [Str] -> Bool;
    /// A new list of the elements from `start` up to `end`; out of range is a
    /// runtime error.
    ListSlice = "List.slice", Some(List(&T)), [Int, Int] -> List(&T);

    // ---- Map ------------------------------------------------------------
    /// The value at the key.
    MapGet = "Map.get", Some(Map(&K, &V)), [K] -> Opt(&V);
    /// Sets the value at the key; a new key goes last in the order.
    MapSet = "Map.set", Some(Map(&K, &V)), [K, V] -> Unit;
    /// Whether the key is present.
    MapContains = "Map.contains", Some(Map(&K, &V)), [K] -> Bool;
    /// Removes the key and returns its value; the order of the rest is kept.
    MapRemove = "Map.remove", Some(Map(&K, &V)), [K] -> Opt(&V);
    /// The keys, in insertion order.
    MapKeys = "Map.keys", Some(Map(&K, &V)), [] -> List(&K);
    /// The values, in the order of their keys.
    MapValues = "Map.values", Some(Map(&K, &V)), [] -> List(&V);
    /// How many keys.
    MapLength = "Map.length", Some(Map(&K, &V)), [] -> Int;

    // ---- Int and Float --------------------------------------------------
    /// The integer as a float.
    IntToFloat = "Int.to_float", Some(Int), [] -> Float;
    /// The absolute value; `abs` of `Int.MIN` is a runtime error.
    IntAbs = "Int.abs", Some(Int), [] -> Int;
    /// The smaller of the two.
    IntMin = "Int.min", Some(Int), [Int] -> Int;
    /// The larger of the two.
    IntMax = "Int.max", Some(Int), [Int] -> Int;
    /// The float truncated toward zero; NaN or out of range is a runtime error.
    FloatToInt = "Float.to_int", Some(Float), [] -> Int;
    /// The square root.
    FloatSqrt = "Float.sqrt", Some(Float), [] -> Float;
    /// The largest integer not greater than it, as a float.
    FloatFloor = "Float.floor", Some(Float), [] -> Float;
    /// The absolute value.
    FloatAbs = "Float.abs", Some(Float), [] -> Float;

    // ---- Option ---------------------------------------------------------
    /// Whether it is `Some`.
    OptionIsSome = "Option.is_some", Some(Opt(&T)), [] -> Bool;
    /// Whether it is `None`.
    OptionIsNone = "Option.is_none", Some(Opt(&T)), [] -> Bool;
    /// The value inside; `None` is a runtime error.
    OptionUnwrap = "Option.unwrap", Some(Opt(&T)), [] -> T;
    /// The value inside, or the default.
    OptionUnwrapOr = "Option.unwrap_or", Some(Opt(&T)), [T] -> T;


    // ---- tasks ----------------------------------------------------------
    /// Waits for the task and returns its result; an error in the task is
    /// an error here.
    TaskJoin = "Task.join", Some(Task(&T)), [] -> T;
    /// Sends a deep copy of the value; sending on a closed channel is a
    /// runtime error.
    ChannelSend = "Channel.send", Some(Channel(&T)), [T] -> Unit;
    /// The next value, waiting for one; `None` once the channel is closed and
    /// empty, or every other holder of it is gone.
    ChannelRecv = "Channel.recv", Some(Channel(&T)), [] -> Opt(&T);
    /// Closes the channel: receivers see `None` after what was sent.
    ChannelClose = "Channel.close", Some(Channel(&T)), [] -> Unit;

    // ---- format specs (`"{x:>8.3}"`; no Cove name reaches these) -------
    /// The Int as the packed spec writes it (see `cove_ir::format`); a
    /// value that packs no spec is a runtime error.
    FormatInt = "format.int", None, [Int, Int] -> Str;
    /// The Float as the packed spec writes it.
    FormatFloat = "format.float", None, [Float, Int] -> Str;
    /// The text as the packed spec writes it.
    FormatStr = "format.str", None, [Str, Int] -> Str;

    // ---- text, lists, numbers and input of Cove 1.1 ---------------------
    /// The Unicode scalar values, each a one-character string.
    StrChars = "String.chars", Some(Str), [] -> List(&Str);
    /// The bytes, each 0 to 255.
    StrBytes = "String.bytes", Some(Str), [] -> List(&Int);
    /// The pieces between runs of Unicode white space, none empty.
    StrSplitWhitespace = "String.split_whitespace", Some(Str), [] -> List(&Str);
    /// The one-character string of the code point; a number that is not a
    /// Unicode scalar value is a runtime error.
    IntToChar = "Int.to_char", Some(Int), [] -> Str;
    /// The integer raised to a power; a negative exponent or an overflow
    /// is a runtime error.
    IntPow = "Int.pow", Some(Int), [Int] -> Int;
    /// The float raised to a float power.
    FloatPow = "Float.pow", Some(Float), [Float] -> Float;
    /// The nearest integer, half way rounding away from zero, as a float.
    FloatRound = "Float.round", Some(Float), [] -> Float;
    /// The smallest integer not less than it, as a float.
    FloatCeil = "Float.ceil", Some(Float), [] -> Float;
    /// Whether it is NaN.
    FloatIsNan = "Float.is_nan", Some(Float), [] -> Bool;
    /// A new list of the elements repeated the count of times (the
    /// elements themselves, not copies of them); a negative count is a
    /// runtime error.
    ListRepeat = "List.repeat", Some(List(&T)), [Int] -> List(&T);
    /// A new list of the same elements.
    ListCopy = "List.copy", Some(List(&T)), [] -> List(&T);
    /// Reverses the list in place.
    ListReverse = "List.reverse", Some(List(&T)), [] -> Unit;
    /// Sorts the floats ascending in place, stably, by IEEE total order
    /// (`-0.0` before `0.0`, NaN last).
    ListSortFloat = "List.sort", Some(List(&Float)), [] -> Unit;
    /// The next line of standard input without its line ending, `None` at
    /// the end of the input.
    ReadLine = "read_line", None, [] -> Opt(&Str);
    /// The rest of standard input.
    ReadStdin = "read_stdin", None, [] -> Str;

    // ---- fused by the compiler (no Cove name reaches these) -------------
    /// `m.get(k).unwrap_or(d)` in one call: the value at the key, or the
    /// default, with no `Option` made between them. Its name is no
    /// identifier, so no method call resolves to it.
    MapGetOr = "map.get-or", Some(Map(&K, &V)), [K, V] -> V;
    /// The test of each turn of `for (k, v) in map`: whether the map has
    /// the key, looked for first at the position the turn gives (where it
    /// is when the map has lost no entry since the loop took its keys),
    /// then by its hash. Its name is no identifier, so no method call
    /// resolves to it.
    MapHasAt = "map.has-at", Some(Map(&K, &V)), [K, Int] -> Bool;
    /// The read of each turn of `for (k, v) in map`, after `map.has-at`:
    /// the value at the key, looked for as `map.has-at` looks, with no
    /// `Option` made; a key the map does not have is a runtime error. Its
    /// name is no identifier, so no method call resolves to it.
    MapValueAt = "map.value-at", Some(Map(&K, &V)), [K, Int] -> V;
    /// `xs.pop()` whose value is not used: removes the last element, if
    /// there is one, and makes no `Option` to be thrown away. Its name is
    /// no identifier, so no method call resolves to it.
    ListDropLast = "list.drop-last", Some(List(&T)), [] -> Unit;
}

impl Builtin {
    /// The method name alone (`length` of `String.length`), or the function
    /// name.
    pub fn method_name(self) -> &'static str {
        let name = self.name();
        name.rsplit_once('.').map_or(name, |(_, method)| method)
    }

    /// The builtin a printed name and arity denote, as the parser of the
    /// printed form needs. Overloads of one name differ in receiver shape,
    /// which the printed form does not carry, so it is written with a `/`
    /// and the position in the table when ambiguous: see [`Builtin::label`].
    pub fn from_label(label: &str) -> Option<Builtin> {
        Builtin::ALL.iter().copied().find(|b| b.label() == label)
    }

    /// The unique printed name: the name, and for every overload after the
    /// first of a name, `/` and its index among them (`List.sort/1`).
    pub fn label(self) -> String {
        let same: Vec<Builtin> = Builtin::ALL
            .iter()
            .copied()
            .filter(|b| b.name() == self.name())
            .collect();
        match same.iter().position(|b| *b == self) {
            Some(0) | None => self.name().to_string(),
            Some(i) => format!("{}/{}", self.name(), i),
        }
    }
}

impl fmt::Display for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}
