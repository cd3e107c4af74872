//! `-o OUT.mlir`: the result as MLIR's LLVM dialect, by MLIR's importer (`import.cpp`).

use crate::error::{DriverError, Result};
use inkwell::module::Module;
use std::ffi::{c_char, c_void, CStr};
use std::path::Path;

extern "C" {
    /// `import.cpp`: takes ownership of the module.
    fn zyg_llvm_to_mlir(module: inkwell::llvm_sys::prelude::LLVMModuleRef, error: *mut *mut c_char) -> *mut c_char;
    fn free(p: *mut c_void);
}

/// The module as MLIR text (LLVM dialect).
pub fn to_text(module: &Module<'_>, output: &Path) -> Result<Vec<u8>> {
    // The importer consumes a module: give it a copy, which inkwell must not dispose of.
    let copy = module.clone();
    let raw = copy.as_mut_ptr();
    std::mem::forget(copy);
    let mut error: *mut c_char = std::ptr::null_mut();
    // SAFETY: `raw` is a module of the live context, owned by the callee from here on; the
    // strings it returns are malloc'd and freed here.
    unsafe {
        let text = zyg_llvm_to_mlir(raw, &mut error);
        if text.is_null() {
            let message = if error.is_null() {
                "MLIR cannot import the module".to_string()
            } else {
                let m = CStr::from_ptr(error).to_string_lossy().trim_end().to_string();
                free(error as *mut c_void);
                m
            };
            return Err(DriverError::Mlir(format!("{}: cannot write MLIR: {message}", output.display())));
        }
        let bytes = CStr::from_ptr(text).to_bytes().to_vec();
        free(text as *mut c_void);
        Ok(bytes)
    }
}
