//! `-o OUT.mlir`: the result as MLIR's LLVM dialect, by MLIR's importer (`import.cpp`,
//! called through `zyg_native`).

use crate::error::{DriverError, Result};
use inkwell::module::Module;
use std::path::Path;

/// The module as MLIR text (LLVM dialect).
pub fn to_text(module: &Module<'_>, output: &Path) -> Result<Vec<u8>> {
    zyg_native::llvm_to_mlir(module)
        .map_err(|message| DriverError::Mlir(format!("{}: cannot write MLIR: {message}", output.display())))
}
