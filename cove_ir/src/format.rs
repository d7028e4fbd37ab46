//! Format specs of interpolation (`"{x:>8.3}"`): their grammar, their
//! encoding as one Int operand, and the text they make.
//!
//! The grammar is Rust's `format!` spec without its argument and `#`/`$`
//! parts: `[[fill]align][sign][0][width][.precision][type]`, `align` one of
//! `< ^ >`, `sign` `+` or `-`, `type` one of `x X b o e E` or none. The
//! output is Rust's to the character: the numbers are written by Rust's own
//! formatting with the same precision and type, and the padding follows
//! `Formatter::pad_integral` (numbers: right-aligned, the `0` flag puts
//! zeros after the sign and overrides fill and alignment) and
//! `Formatter::pad` (text: left-aligned, precision truncates).
//!
//! The compiler parses a spec once and passes it to the `format.int`,
//! `format.float` or `format.str` builtin packed into one Int
//! ([`FormatSpec::pack`]), so a formatted interpolation costs one builtin
//! call and no parsing at run time; the runtime unpacks it, refusing a
//! value no spec packs to. This module lives in `cove_ir`, beside the
//! builtin catalogue, because the compiler and the runtime must agree on
//! the encoding bit for bit.

use std::fmt::Write;

/// How a value is aligned in its width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// The type's own: numbers right, text left.
    Default,
    /// `<`
    Left,
    /// `^`, the extra fill going right when it is odd.
    Center,
    /// `>`
    Right,
}

/// How a number is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Decimal (`Display`).
    Display,
    /// `x`: hexadecimal, lower case (an Int's two's complement bits).
    LowerHex,
    /// `X`: hexadecimal, upper case.
    UpperHex,
    /// `b`: binary.
    Binary,
    /// `o`: octal.
    Octal,
    /// `e`: scientific, `1.5e3`.
    LowerExp,
    /// `E`: scientific, `1.5E3`.
    UpperExp,
}

/// One parsed spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatSpec {
    /// The fill character (a space unless written).
    pub fill: char,
    /// The alignment.
    pub align: Align,
    /// `+`: a sign on non-negative numbers too.
    pub plus: bool,
    /// `0`: zero padding after the sign.
    pub zero: bool,
    /// The minimum width in characters.
    pub width: Option<u16>,
    /// Digits after the point (Float), characters kept (text).
    pub precision: Option<u16>,
    /// How a number is written.
    pub kind: Kind,
}

/// The most a width or precision may be: a spec packs each in 16 bits.
pub const MAX_WIDTH: u32 = u16::MAX as u32;

impl FormatSpec {
    /// Parses the text after the `:` of an interpolation; the error says
    /// what is wrong in words a newcomer can act on.
    pub fn parse(text: &str) -> Result<FormatSpec, String> {
        let mut spec = FormatSpec {
            fill: ' ',
            align: Align::Default,
            plus: false,
            zero: false,
            width: None,
            precision: None,
            kind: Kind::Display,
        };
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        let align_of = |c: char| match c {
            '<' => Some(Align::Left),
            '^' => Some(Align::Center),
            '>' => Some(Align::Right),
            _ => None,
        };
        if let Some(a) = chars.get(1).copied().and_then(align_of) {
            spec.fill = chars[0];
            spec.align = a;
            i = 2;
        } else if let Some(a) = chars.first().copied().and_then(align_of) {
            spec.align = a;
            i = 1;
        }
        match chars.get(i) {
            Some('+') => {
                spec.plus = true;
                i += 1;
            }
            Some('-') => i += 1,
            _ => {}
        }
        if chars.get(i) == Some(&'#') {
            return Err("`#` (alternate forms) is not supported in Cove".to_string());
        }
        if chars.get(i) == Some(&'0') {
            spec.zero = true;
            i += 1;
        }
        let number = |i: &mut usize, what: &str| -> Result<Option<u16>, String> {
            let start = *i;
            while chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            if *i == start {
                return Ok(None);
            }
            let digits: String = chars[start..*i].iter().collect();
            match digits.parse::<u32>() {
                Ok(n) if n <= MAX_WIDTH => Ok(Some(n as u16)),
                _ => Err(format!("the {what} {digits} is larger than {MAX_WIDTH}")),
            }
        };
        spec.width = number(&mut i, "width")?;
        if chars.get(i) == Some(&'.') {
            i += 1;
            spec.precision = number(&mut i, "precision")?;
            if spec.precision.is_none() {
                return Err("a `.` must be followed by the precision, as in `.3`".to_string());
            }
        }
        let rest: String = chars[i..].iter().collect();
        spec.kind = match rest.as_str() {
            "" => Kind::Display,
            "x" => Kind::LowerHex,
            "X" => Kind::UpperHex,
            "b" => Kind::Binary,
            "o" => Kind::Octal,
            "e" => Kind::LowerExp,
            "E" => Kind::UpperExp,
            "?" => {
                return Err(
                    "`?` (debug form) is not supported in Cove: `{x}` prints any value".to_string(),
                );
            }
            _ if rest.contains('$') || rest.contains('*') => {
                return Err("a width or precision must be a number written in the spec".to_string());
            }
            _ => {
                return Err(format!(
                    "`{rest}` is not a format type (one of x X b o e E) in its place"
                ));
            }
        };
        Ok(spec)
    }

    /// Whether the spec fits a Float (no radix types).
    pub fn fits_float(&self) -> bool {
        matches!(self.kind, Kind::Display | Kind::LowerExp | Kind::UpperExp)
    }

    /// Whether the spec fits text (no number type).
    pub fn fits_text(&self) -> bool {
        self.kind == Kind::Display
    }

    /// The spec as one non-negative Int: fill (21 bits), align (2), plus,
    /// zero, width (16), a precision flag and precision (16), kind (3).
    pub fn pack(&self) -> i64 {
        let align = match self.align {
            Align::Default => 0u64,
            Align::Left => 1,
            Align::Center => 2,
            Align::Right => 3,
        };
        let kind = match self.kind {
            Kind::Display => 0u64,
            Kind::LowerHex => 1,
            Kind::UpperHex => 2,
            Kind::Binary => 3,
            Kind::Octal => 4,
            Kind::LowerExp => 5,
            Kind::UpperExp => 6,
        };
        let bits = u64::from(self.fill as u32)
            | align << 21
            | u64::from(self.plus) << 23
            | u64::from(self.zero) << 24
            | u64::from(self.width.unwrap_or(0)) << 25
            | u64::from(self.width.is_some()) << 41
            | u64::from(self.precision.unwrap_or(0)) << 42
            | u64::from(self.precision.is_some()) << 58
            | kind << 59;
        bits as i64
    }

    /// The spec an Int packs, `None` if it packs none.
    pub fn unpack(packed: i64) -> Option<FormatSpec> {
        let bits = u64::try_from(packed).ok()?;
        if bits >> 62 != 0 {
            return None;
        }
        let field = |shift: u32, len: u32| (bits >> shift) & ((1u64 << len) - 1);
        let fill = char::from_u32(field(0, 21) as u32)?;
        let align =
            [Align::Default, Align::Left, Align::Center, Align::Right][field(21, 2) as usize];
        let kind = match field(59, 3) {
            0 => Kind::Display,
            1 => Kind::LowerHex,
            2 => Kind::UpperHex,
            3 => Kind::Binary,
            4 => Kind::Octal,
            5 => Kind::LowerExp,
            6 => Kind::UpperExp,
            _ => return None,
        };
        let width = (field(41, 1) == 1).then_some(field(25, 16) as u16);
        let precision = (field(58, 1) == 1).then_some(field(42, 16) as u16);
        Some(FormatSpec {
            fill,
            align,
            plus: field(23, 1) == 1,
            zero: field(24, 1) == 1,
            width,
            precision,
            kind,
        })
    }

    /// An Int as the spec writes it (precision is ignored, as Rust does,
    /// except by `e`).
    pub fn int(&self, n: i64) -> String {
        let body = match (self.kind, self.precision) {
            (Kind::Display, _) => n.to_string(),
            (Kind::LowerHex, _) => format!("{n:x}"),
            (Kind::UpperHex, _) => format!("{n:X}"),
            (Kind::Binary, _) => format!("{n:b}"),
            (Kind::Octal, _) => format!("{n:o}"),
            (Kind::LowerExp, None) => format!("{n:e}"),
            (Kind::LowerExp, Some(p)) => format!("{n:.p$e}", p = usize::from(p)),
            (Kind::UpperExp, None) => format!("{n:E}"),
            (Kind::UpperExp, Some(p)) => format!("{n:.p$E}", p = usize::from(p)),
        };
        self.number(body, false)
    }

    /// A Float as the spec writes it (a radix type writes it as `e` would
    /// not: the compiler refuses those).
    pub fn float(&self, x: f64) -> String {
        let body = match (self.kind, self.precision) {
            (Kind::LowerExp, None) => format!("{x:e}"),
            (Kind::LowerExp, Some(p)) => format!("{x:.p$e}", p = usize::from(p)),
            (Kind::UpperExp, None) => format!("{x:E}"),
            (Kind::UpperExp, Some(p)) => format!("{x:.p$E}", p = usize::from(p)),
            (_, None) => x.to_string(),
            (_, Some(p)) => format!("{x:.p$}", p = usize::from(p)),
        };
        self.number(body, x.is_nan())
    }

    /// Text as the spec writes it: precision keeps that many characters.
    pub fn text(&self, s: &str) -> String {
        let kept = match self.precision {
            Some(p) => match s.char_indices().nth(usize::from(p)) {
                Some((at, _)) => &s[..at],
                None => s,
            },
            None => s,
        };
        self.pad(kept, Align::Left)
    }

    /// A number's digits (with its own `-`) signed and padded. The body is
    /// given back as it is when it needs neither (the common `{x:.3}`):
    /// each copy was a host allocation of every formatted number.
    fn number(&self, body: String, nan: bool) -> String {
        let (sign, digits) = match body.strip_prefix('-') {
            Some(rest) => ("-", rest),
            None if self.plus && !nan => ("+", body.as_str()),
            None => ("", body.as_str()),
        };
        let len = sign.len() + digits.chars().count();
        match self.width {
            Some(w) if self.zero && usize::from(w) > len => {
                let mut out = String::from(sign);
                out.extend(std::iter::repeat_n('0', usize::from(w) - len));
                out.push_str(digits);
                out
            }
            Some(w) if usize::from(w) > len => self.pad(&format!("{sign}{digits}"), Align::Right),
            _ if sign == "+" => format!("+{body}"),
            _ => body,
        }
    }

    /// `s` filled to the width, aligned as the spec says or else `default`.
    fn pad(&self, s: &str, default: Align) -> String {
        let len = s.chars().count();
        let Some(width) = self.width.map(usize::from).filter(|w| *w > len) else {
            return s.to_string();
        };
        let extra = width - len;
        let (before, after) = match if self.align == Align::Default {
            default
        } else {
            self.align
        } {
            Align::Left | Align::Default => (0, extra),
            Align::Right => (extra, 0),
            Align::Center => (extra / 2, extra - extra / 2),
        };
        let mut out = String::with_capacity(s.len() + extra * self.fill.len_utf8());
        out.extend(std::iter::repeat_n(self.fill, before));
        let _ = out.write_str(s);
        out.extend(std::iter::repeat_n(self.fill, after));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> FormatSpec {
        FormatSpec::parse(text).unwrap()
    }

    #[test]
    fn numbers_are_written_as_rust_writes_them() {
        assert_eq!(spec(".2").int(5), format!("{:.2}", 5));
        assert_eq!(spec("+x").int(-1), format!("{:+x}", -1i64));
        assert_eq!(spec("e").int(1500), format!("{:e}", 1500i64));
        assert_eq!(spec(".2e").int(1500), format!("{:.2e}", 1500i64));
        assert_eq!(spec("05").int(-7), format!("{:05}", -7));
        assert_eq!(spec("<05").int(7), format!("{:<05}", 7));
        assert_eq!(spec("+05").int(7), format!("{:+05}", 7));
        assert_eq!(spec("^7").int(12), format!("{:^7}", 12));
        assert_eq!(spec("08b").int(5), format!("{:08b}", 5));
        assert_eq!(spec("X").int(255), format!("{:X}", 255));
        assert_eq!(spec("o").int(64), format!("{:o}", 64));
        assert_eq!(spec("e").float(1500.0), format!("{:e}", 1500.0f64));
        assert_eq!(spec("05").float(f64::NAN), format!("{:05}", f64::NAN));
        assert_eq!(spec("+").float(f64::NAN), format!("{:+}", f64::NAN));
        assert_eq!(spec("+").float(-0.0), format!("{:+}", -0.0f64));
        assert_eq!(spec("+").float(0.0), format!("{:+}", 0.0f64));
        assert_eq!(
            spec("08.3").float(-4.56789),
            format!("{:08.3}", -4.56789f64)
        );
        assert_eq!(spec("^+9.2").float(2.5), format!("{:^+9.2}", 2.5f64));
        assert_eq!(spec(".0e").float(2.5), format!("{:.0e}", 2.5f64));
        assert_eq!(spec("E").float(1234.5), format!("{:E}", 1234.5f64));
        assert_eq!(spec("").float(1e21), format!("{}", 1e21f64));
        assert_eq!(spec(".3").float(1.0 / 3.0), format!("{:.3}", 1.0f64 / 3.0));
        // Neither sign nor width to add: the digits as they came.
        assert_eq!(spec(".3").float(-2.0), format!("{:.3}", -2.0f64));
        assert_eq!(spec("+").int(5), format!("{:+}", 5));
        assert_eq!(spec("+").int(-5), format!("{:+}", -5));
        assert_eq!(spec("2").int(-123), format!("{:2}", -123));
        assert_eq!(spec("x").int(-1), format!("{:x}", -1i64));
    }

    #[test]
    fn text_is_written_as_rust_writes_it() {
        assert_eq!(spec("05").text("ab"), format!("{:05}", "ab"));
        assert_eq!(spec("-<10").text("ab"), format!("{:-<10}", "ab"));
        assert_eq!(spec(">5").text("true"), format!("{:>5}", true));
        assert_eq!(spec(".3").text("abcdef"), format!("{:.3}", "abcdef"));
        assert_eq!(spec("*^7").text("mid"), format!("{:*^7}", "mid"));
        assert_eq!(spec("é>4").text("ü"), format!("{:é>4}", "ü"));
    }

    #[test]
    fn every_spec_survives_packing() {
        for text in [
            "",
            "5",
            "<5",
            "^7",
            "05",
            "+",
            "x",
            "X",
            "b",
            "o",
            "e",
            "-<10",
            ">5",
            ".3",
            "é^+012.7E",
        ] {
            let s = spec(text);
            assert_eq!(FormatSpec::unpack(s.pack()), Some(s), "{text}");
        }
        assert_eq!(FormatSpec::unpack(-1), None);
        assert_eq!(FormatSpec::unpack(7 << 59), None);
    }

    #[test]
    fn a_malformed_spec_is_refused_with_a_reason() {
        for bad in ["#x", "?", "5$", ".", "q", "70000", "..3"] {
            assert!(FormatSpec::parse(bad).is_err(), "{bad}");
        }
    }
}
