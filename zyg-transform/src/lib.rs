//! zyg-transform: reverse-mode AD of zyg-ir functions, after Innes 2018, "Don't Unroll
//! Adjoint: Differentiating SSA-Form Programs".

pub mod rules;
