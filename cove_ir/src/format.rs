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
        self.with_int(n, |laid| laid.to_string())
    }

    /// A Float as the spec writes it (a radix type writes it as `e` would
    /// not: the compiler refuses those).
    pub fn float(&self, x: f64) -> String {
        self.with_float(x, |laid| laid.to_string())
    }

    /// Calls `f` with an Int laid out as [`FormatSpec::int`] writes it, and
    /// gives back what `f` does: a host that writes the text into its own
    /// storage ([`Laid::write_to`]) allocates nothing else for it.
    pub fn with_int<R>(&self, n: i64, f: impl FnOnce(&Laid<'_>) -> R) -> R {
        let mut digits = Digits::new();
        let bits = n as u64;
        let body = match (self.kind, self.precision) {
            // Decimal and the radix types are written here, into a buffer
            // on the stack: through `format!` each was two or three host
            // allocations (the digits, then the padded copies) and the
            // formatting machinery, most of a formatted interpolation's
            // time.
            (Kind::Display, _) => digits.decimal(n.unsigned_abs(), n < 0),
            (Kind::LowerHex, _) => digits.radix(bits, 4, b"0123456789abcdef"),
            (Kind::UpperHex, _) => digits.radix(bits, 4, b"0123456789ABCDEF"),
            (Kind::Binary, _) => digits.radix(bits, 1, b"01"),
            (Kind::Octal, _) => digits.radix(bits, 3, b"01234567"),
            (Kind::LowerExp, None) => return f(&self.number(format!("{n:e}").as_bytes(), false)),
            (Kind::LowerExp, Some(p)) => {
                return f(&self.number(format!("{n:.p$e}", p = usize::from(p)).as_bytes(), false));
            }
            (Kind::UpperExp, None) => return f(&self.number(format!("{n:E}").as_bytes(), false)),
            (Kind::UpperExp, Some(p)) => {
                return f(&self.number(format!("{n:.p$E}", p = usize::from(p)).as_bytes(), false));
            }
        };
        f(&self.number(body, false))
    }

    /// Calls `f` with a Float laid out as [`FormatSpec::float`] writes it,
    /// as [`FormatSpec::with_int`] does with an Int.
    pub fn with_float<R>(&self, x: f64, f: impl FnOnce(&Laid<'_>) -> R) -> R {
        let mut digits = Digits::new();
        let body = match (self.kind, self.precision) {
            (Kind::LowerExp, None) => format!("{x:e}"),
            (Kind::LowerExp, Some(p)) => format!("{x:.p$e}", p = usize::from(p)),
            (Kind::UpperExp, None) => format!("{x:E}"),
            (Kind::UpperExp, Some(p)) => format!("{x:.p$E}", p = usize::from(p)),
            (_, None) => x.to_string(),
            (_, Some(p)) => match digits.fixed(x, p) {
                Some(body) => return f(&self.number(body, false)),
                None => format!("{x:.p$}", p = usize::from(p)),
            },
        };
        f(&self.number(body.as_bytes(), x.is_nan()))
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

    /// A number's digits (with its own `-`) signed and padded.
    fn number<'a>(&self, body: &'a [u8], nan: bool) -> Laid<'a> {
        let (sign, digits) = match body.strip_prefix(b"-") {
            Some(rest) => ("-", rest),
            None if self.plus && !nan => ("+", body),
            None => ("", body),
        };
        // Every body is ASCII (digits, a point, an exponent, `NaN`, `inf`).
        let len = sign.len() + digits.len();
        let extra = self.width.map_or(0, |w| usize::from(w).saturating_sub(len));
        let mut laid = Laid {
            fill: self.fill,
            before: 0,
            sign,
            zeros: 0,
            body: digits,
            after: 0,
        };
        if self.zero {
            laid.zeros = extra;
        } else {
            (laid.before, laid.after) = self.split(extra, Align::Right);
        }
        laid
    }

    /// `s` filled to the width, aligned as the spec says or else `default`.
    fn pad(&self, s: &str, default: Align) -> String {
        let extra = self
            .width
            .map_or(0, |w| usize::from(w).saturating_sub(s.chars().count()));
        let (before, after) = self.split(extra, default);
        Laid {
            fill: self.fill,
            before,
            sign: "",
            zeros: 0,
            body: s.as_bytes(),
            after,
        }
        .to_string()
    }

    /// `extra` characters of fill shared out before and after, as the
    /// spec aligns or else as `default` does.
    fn split(&self, extra: usize, default: Align) -> (usize, usize) {
        match if self.align == Align::Default {
            default
        } else {
            self.align
        } {
            Align::Left | Align::Default => (0, extra),
            Align::Right => (extra, 0),
            Align::Center => (extra / 2, extra - extra / 2),
        }
    }
}

/// A formatted value laid out, nothing written yet: fill, sign, zeros,
/// the body, fill. A host writes it where it keeps text
/// ([`Laid::write_to`]), so a formatted number costs no allocation but
/// the host's own.
#[derive(Debug, Clone, Copy)]
pub struct Laid<'a> {
    fill: char,
    before: usize,
    sign: &'static str,
    zeros: usize,
    /// ASCII, or for text any UTF-8.
    body: &'a [u8],
    after: usize,
}

impl Laid<'_> {
    /// The text's length in bytes.
    pub fn len(&self) -> usize {
        (self.before + self.after) * self.fill.len_utf8()
            + self.sign.len()
            + self.zeros
            + self.body.len()
    }

    /// Whether the text is empty (never, for a number).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the text to `dst`, which is [`Laid::len`] bytes long.
    pub fn write_to(&self, dst: &mut [u8]) {
        let mut fill = [0u8; 4];
        let fill = self.fill.encode_utf8(&mut fill).as_bytes();
        let mut at = 0;
        let mut put = |bytes: &[u8]| {
            dst[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        };
        for _ in 0..self.before {
            put(fill);
        }
        put(self.sign.as_bytes());
        for _ in 0..self.zeros {
            put(b"0");
        }
        put(self.body);
        for _ in 0..self.after {
            put(fill);
        }
    }
}

/// The text as [`Laid::write_to`] writes it, the one place the parts' order
/// is said.
impl std::fmt::Display for Laid<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut bytes = vec![0; self.len()];
        self.write_to(&mut bytes);
        // UTF-8: a char, ASCII, and a body that is ASCII or a `&str`'s.
        f.write_str(std::str::from_utf8(&bytes).map_err(|_| std::fmt::Error)?)
    }
}

/// A number's digits, written from the end of a buffer on the stack. The
/// longest are an Int's in binary, 64, and a fixed-point Float's of
/// [`Digits::fixed`], at most 38 and a point and a sign.
struct Digits {
    buf: [u8; 72],
    start: usize,
}

impl Digits {
    fn new() -> Digits {
        Digits {
            buf: [0; 72],
            start: 72,
        }
    }

    fn push_front(&mut self, byte: u8) {
        self.start -= 1;
        self.buf[self.start] = byte;
    }

    /// Pushes the decimal digit `d`, after the point where `written`
    /// digits of a number with `point` decimals are already there.
    fn digit(&mut self, d: u8, written: &mut usize, point: usize) {
        if *written == point && point > 0 {
            self.push_front(b'.');
        }
        self.push_front(b'0' + d);
        *written += 1;
    }

    /// The digits written, ASCII.
    fn text(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    /// Pushes the decimal digits of `n`, at least up to the one before the
    /// point of a number with `point` decimals, `written` of whose digits
    /// are already there.
    fn whole(&mut self, mut n: u64, written: &mut usize, point: usize) {
        loop {
            self.digit((n % 10) as u8, written, point);
            n /= 10;
            if n == 0 && *written > point {
                break;
            }
        }
    }

    /// `n` in decimal, with a `-` before it if `negative`.
    fn decimal(&mut self, n: u64, negative: bool) -> &[u8] {
        self.whole(n, &mut 0, 0);
        if negative {
            self.push_front(b'-');
        }
        self.text()
    }

    /// The bits of `n` in a power-of-two radix, `shift` bits a digit: as
    /// Rust writes an Int in it, its two's complement for a negative one.
    fn radix(&mut self, mut n: u64, shift: u32, alphabet: &[u8]) -> &[u8] {
        let mask = (1u64 << shift) - 1;
        loop {
            self.push_front(alphabet[(n & mask) as usize]);
            n >>= shift;
            if n == 0 {
                break;
            }
        }
        self.text()
    }

    /// `x` with `precision` digits after the point, rounded from its exact
    /// binary value half to even, as Rust's `{x:.p}` writes it; `None`
    /// where that takes more than 128-bit arithmetic (a precision past 17,
    /// a magnitude of 2^64 or more, or not a finite number), which the
    /// caller leaves to Rust. The common `{x:.3}` went through Rust's
    /// exact formatting, whose fallback for the values its fast algorithm
    /// cannot settle is a bignum division: half of a formatted Float's
    /// time.
    fn fixed(&mut self, x: f64, precision: u16) -> Option<&[u8]> {
        if !x.is_finite() || precision > 17 {
            return None;
        }
        let bits = x.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1 << 52) - 1);
        // x = mantissa × 2^power, exactly.
        let (mantissa, power) = if exponent == 0 {
            (fraction, -1074)
        } else {
            (fraction | 1 << 52, exponent - 1075)
        };
        let scale = 10u128.pow(u32::from(precision));
        // x × 10^precision rounded to an integer: under 2^64 × 10^17, so
        // under 2^121.
        let scaled = if power >= 0 {
            if power > 11 {
                return None;
            }
            u128::from(mantissa << power) * scale
        } else {
            let shift = power.unsigned_abs();
            // Under 2^53 × 10^17, so under 2^110: past a shift of 110 it
            // is less than half of one, and rounds to 0.
            let product = u128::from(mantissa) * scale;
            if shift > 110 {
                0
            } else {
                let whole = product >> shift;
                let rest = product & ((1u128 << shift) - 1);
                let half = 1u128 << (shift - 1);
                if rest > half || (rest == half && whole & 1 == 1) {
                    whole + 1
                } else {
                    whole
                }
            }
        };
        // The digits, at least one before the point; in 64 bits where
        // they fit, as they do for every value under 2^64 / 10^p, since
        // dividing 128 bits is a call into the compiler's runtime.
        let point = usize::from(precision);
        let mut written = 0;
        let mut wide = scaled;
        while wide > u128::from(u64::MAX) {
            self.digit((wide % 10) as u8, &mut written, point);
            wide /= 10;
        }
        self.whole(wide as u64, &mut written, point);
        if bits >> 63 == 1 {
            self.push_front(b'-');
        }
        Some(self.text())
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
    fn a_fixed_point_float_is_rounded_as_rust_rounds_it() {
        // Ties of the exact binary value go to the even digit; values that
        // only look like ties (0.35 is below it) go the way their bits say.
        for (x, p) in [
            (0.5, 0),
            (1.5, 0),
            (2.5, 0),
            (0.125, 2),
            (0.375, 2),
            (0.35, 1),
            (-0.0, 3),
            (-0.0001, 3),
            (1e-300, 5),
            (5e-324, 17),
            (f64::MAX, 2),
            (18_446_744_073_709_551_615.0, 3),
            (9_007_199_254_740_993.0, 0),
            (123.456, 17),
            (123.456, 18),
            (f64::INFINITY, 2),
            (f64::NAN, 2),
        ] {
            assert_eq!(
                spec(&format!(".{p}")).float(x),
                format!("{x:.p$}"),
                "{x} .{p}"
            );
        }
    }

    /// What a host writing a laid-out value into its own storage gets.
    fn written(laid: &Laid<'_>) -> String {
        let mut bytes = vec![0; laid.len()];
        laid.write_to(&mut bytes);
        String::from_utf8(bytes).unwrap()
    }

    proptest::proptest! {
        #[test]
        fn a_laid_out_value_is_written_as_it_is_displayed(
            n in proptest::num::i64::ANY,
            x in proptest::num::f64::ANY,
            width in 0u16..40,
            precision in 0u16..20,
        ) {
            let (w, p) = (usize::from(width), usize::from(precision));
            for text in [format!("é^{w}"), format!("+0{w}x"), format!("<{w}.{p}"), format!("{w}e")] {
                let s = spec(&text);
                proptest::prop_assert_eq!(s.with_int(n, written), s.int(n));
                if s.fits_float() {
                    proptest::prop_assert_eq!(s.with_float(x, written), s.float(x));
                }
            }
            proptest::prop_assert_eq!(spec(&format!("é^{w}.{p}")).float(x), format!("{x:é^w$.p$}"));
        }

        #[test]
        fn every_fixed_point_float_is_written_as_rust_writes_it(
            bits in proptest::num::u64::ANY,
            small in -1.0e6f64..1.0e6,
            precision in 0u16..20,
            width in 0u16..30,
        ) {
            let p = usize::from(precision);
            let w = usize::from(width);
            for x in [f64::from_bits(bits), small, (small * 8.0).round() / 8.0] {
                proptest::prop_assert_eq!(spec(&format!(".{p}")).float(x), format!("{x:.p$}"));
                proptest::prop_assert_eq!(
                    spec(&format!("+0{w}.{p}")).float(x),
                    format!("{x:+0w$.p$}")
                );
                proptest::prop_assert_eq!(
                    spec(&format!("*^{w}.{p}")).float(x),
                    format!("{x:*^w$.p$}")
                );
            }
        }

        #[test]
        fn every_int_is_written_as_rust_writes_it(n in proptest::num::i64::ANY, width in 0u16..70) {
            let w = usize::from(width);
            proptest::prop_assert_eq!(spec(&format!("{w}")).int(n), format!("{n:w$}"));
            proptest::prop_assert_eq!(spec(&format!("0{w}")).int(n), format!("{n:0w$}"));
            proptest::prop_assert_eq!(spec(&format!("+<{w}")).int(n), format!("{n:+<w$}"));
            proptest::prop_assert_eq!(spec(&format!("{w}x")).int(n), format!("{n:w$x}"));
            proptest::prop_assert_eq!(spec(&format!("0{w}X")).int(n), format!("{n:0w$X}"));
            proptest::prop_assert_eq!(spec(&format!("^{w}b")).int(n), format!("{n:^w$b}"));
            proptest::prop_assert_eq!(spec(&format!("{w}o")).int(n), format!("{n:w$o}"));
        }
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
