//! MLIR input and output (README, "MLIR").
//!
//! A `.mlir` module is read with melior (MLIR 22's C API), checked for dialects zyg lowers
//! (func, arith, math, scf, cf, memref, index, affine, and llvm itself), lowered to the LLVM
//! dialect by MLIR's own conversion passes, and translated to LLVM IR directly into zyg's
//! LLVM context. Functions that ask for their gradient with a `zyg.gradient` attribute get
//! a gradient function whose body is an ordinary Enzyme-style request, with the activity
//! markers that map each memref descriptor (exploded into arguments by the lowering) to
//! zyg's argument kinds. From there the module takes the same path as a `.ll` input.
//!
//! `-o OUT.mlir` writes the result back as MLIR's LLVM dialect (`import.cpp`, MLIR's C++
//! importer, since the C API only translates the other way).
//!
//! Errors carry MLIR's locations (`FILE:LINE:COL: message`). The lowered functions carry
//! debug locations from the MLIR source too, so zyg's own errors name MLIR lines.

mod export;
mod lower;
mod request;

use crate::error::Result;
use inkwell::context::Context;
use inkwell::module::Module;
use std::path::Path;

pub use export::to_text;

/// Whether `path` names MLIR (by its extension, `.mlir`).
pub fn is_mlir(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "mlir")
}

/// Reads, checks, lowers and translates the MLIR module at `path` into `context`, with each
/// `zyg.gradient` request turned into a gradient function that holds an Enzyme-style request.
pub fn read_module<'ctx>(context: &'ctx Context, path: &Path) -> Result<Module<'ctx>> {
    let (module, requests) = lower::read(context, path)?;
    request::add_gradients(&module, &requests, path)?;
    Ok(module)
}
