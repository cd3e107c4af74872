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
//!
//! Forward mode has its own registrations, `void *__enzyme_register_derivative_f[2] = {f,
//! df}` (Enzyme's name) or `void *__zyg_tangent_f[2] = {f, df}`: `df` takes f's arguments,
//! each float and each pointer followed by its tangent or shadow, and returns the tangent of
//! f's result (f itself is called for the result), or `{result, tangent}` (then f is not
//! called), or nothing when f returns nothing.

use zyg_ir::{Signature, Type};

#[derive(Clone, Debug, PartialEq)]
pub enum CustomKind {
    Enzyme {
        augmented: String,
        augmented_sig: Signature,
        reverse: String,
        reverse_sig: Signature,
    },
    Pullback {
        pullback: String,
        sig: Signature,
    },
    /// Forward mode's: the tangent function.
    Tangent {
        tangent: String,
        sig: Signature,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct CustomRule {
    pub function: String,
    pub kind: CustomKind,
}

impl CustomRule {
    /// The function zyg calls for the derivative (reverse, pullback or tangent) and its
    /// signature.
    pub fn reverse(&self) -> (&str, &Signature) {
        match &self.kind {
            CustomKind::Enzyme { reverse, reverse_sig, .. } => (reverse, reverse_sig),
            CustomKind::Pullback { pullback, sig } | CustomKind::Tangent { tangent: pullback, sig } => (pullback, sig),
        }
    }

    /// Whether this is a forward-mode registration.
    pub fn is_tangent(&self) -> bool {
        matches!(self.kind, CustomKind::Tangent { .. })
    }

    /// The parameter count a forward registration must have for a call with these argument
    /// types: each argument, and a tangent or shadow after each float and pointer.
    pub fn expected_tangent_params(arg_types: &[Type]) -> usize {
        arg_types.len() + arg_types.iter().filter(|t| t.is_ptr() || t.carries_derivative()).count()
    }

    /// Whether the augmented forward returns a tape the reverse takes last.
    pub fn has_tape(&self) -> bool {
        match &self.kind {
            CustomKind::Enzyme { augmented_sig, .. } => match &augmented_sig.ret {
                Type::Ptr(_) => true,
                Type::Struct(fields) => fields.first().is_some_and(Type::is_ptr),
                _ => false,
            },
            CustomKind::Pullback { .. } | CustomKind::Tangent { .. } => false,
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
