//! The value of an integer literal with its sign, written once.
//!
//! The lexer reads `9223372036854775808` as a `u64` and the parser keeps a
//! leading `-` apart from it, because `-9223372036854775808` is `Int.MIN`
//! while its magnitude alone does not fit an Int. Every place that needs a
//! literal's value (an expression, an immediate, a constant operand, a
//! `match` pattern, its exhaustiveness view) asks this one function, so
//! they agree on exactly which literals fit.

/// The Int that the magnitude `v`, negated or not, denotes; `None` if it
/// does not fit in 64 signed bits.
pub(crate) fn signed_int(v: u64, negated: bool) -> Option<i64> {
    if negated {
        0i64.checked_sub_unsigned(v)
    } else {
        i64::try_from(v).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::signed_int;

    #[test]
    fn the_most_negative_int_is_a_negated_literal_and_no_more() {
        assert_eq!(signed_int(1 << 63, true), Some(i64::MIN));
        assert_eq!(signed_int((1 << 63) + 1, true), None);
        assert_eq!(signed_int(1 << 63, false), None);
        assert_eq!(signed_int(i64::MAX as u64, false), Some(i64::MAX));
        assert_eq!(signed_int(5, true), Some(-5));
        assert_eq!(signed_int(0, true), Some(0));
    }
}
