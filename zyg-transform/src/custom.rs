//! Derivatives a user registers for a function, used instead of differentiating its body
//! ("rules before decomposition"). Two conventions:
//!
//! - Enzyme's: `void *__enzyme_register_gradient_f[3] = {f, augmented, reverse}`. The
//!   augmented forward takes f's arguments (each pointer followed by its shadow) and returns
//!   the tape (`void *`), the tape and the result (`{ void *, T }`), or nothing.
//! - zyg's: `void *__zyg_pullback_f[2] = {f, pullback}`: no tape; the pullback gets the
//!   arguments back from zyg's own tape.
//!
//! The reverse/pullback takes f's arguments (each pointer followed by its shadow), then the
//! result's adjoint when f returns a float, then (Enzyme's) the tape; it returns the
//! adjoint of every floating-point argument in order: one value, a struct, or nothing.

use zyg_ir::{Signature, Type};

#[derive(Clone, Debug, PartialEq)]
pub enum CustomKind {
    Enzyme { augmented: String, augmented_sig: Signature, reverse: String, reverse_sig: Signature },
    Pullback { pullback: String, sig: Signature },
}

#[derive(Clone, Debug, PartialEq)]
pub struct CustomRule {
    pub function: String,
    pub kind: CustomKind,
}

impl CustomRule {
    /// The reverse (or pullback) function and its signature.
    pub fn reverse(&self) -> (&str, &Signature) {
        match &self.kind {
            CustomKind::Enzyme { reverse, reverse_sig, .. } => (reverse, reverse_sig),
            CustomKind::Pullback { pullback, sig } => (pullback, sig),
        }
    }

    /// Whether the augmented forward returns a tape the reverse takes last.
    pub fn has_tape(&self) -> bool {
        match &self.kind {
            CustomKind::Enzyme { augmented_sig, .. } => match &augmented_sig.ret {
                Type::Ptr(_) => true,
                Type::Struct(fields) => fields.first().is_some_and(Type::is_ptr),
                _ => false,
            },
            CustomKind::Pullback { .. } => false,
        }
    }

    /// The parameter count the reverse must have for a call with these argument types.
    pub fn expected_reverse_params(&self, arg_types: &[Type], ret: &Type) -> usize {
        arg_types.len()
            + arg_types.iter().filter(|t| t.is_ptr()).count()
            + usize::from(ret.is_float())
            + usize::from(self.has_tape())
    }
}
