//! zyg-transform: reverse-mode AD of zyg-ir functions (Innes 2018, "Don't Unroll Adjoint").
