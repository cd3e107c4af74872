//! What a module says about its globals and functions besides their code: metadata on a
//! global (`!enzyme_inactive`), string attributes on a function (`"enzyme_math"="log1p"`),
//! and the text of a string constant (the annotations and registrations C code writes).

use inkwell::attributes::AttributeLoc;
use inkwell::llvm_sys::core::*;
use inkwell::values::{AsValueRef, FunctionValue, GlobalValue};

/// Whether global `g` carries metadata of kind `kind`.
pub fn has_metadata(g: GlobalValue<'_>, kind: &str) -> bool {
    let raw = g.as_value_ref();
    // SAFETY: `kind` is passed with its length; LLVM copies `n` entries of the live global's
    // metadata, read by index below `n` and disposed once.
    unsafe {
        let id = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(raw)), kind.as_ptr().cast(), kind.len() as u32);
        let mut n = 0usize;
        let entries = LLVMGlobalCopyAllMetadata(raw, &mut n);
        if entries.is_null() {
            return false;
        }
        let found = (0..n as u32).any(|i| LLVMValueMetadataEntriesGetKind(entries, i) == id);
        LLVMDisposeValueMetadataEntries(entries);
        found
    }
}

/// The value of string attribute `key` on function `f` (empty for one without a value).
pub fn string_attribute(f: FunctionValue<'_>, key: &str) -> Option<String> {
    let attr = f.get_string_attribute(AttributeLoc::Function, key)?;
    // SAFETY: `attr` is a string attribute (inkwell looked it up by key); its value is `len`
    // bytes LLVM owns, copied at once.
    unsafe {
        let mut len = 0u32;
        let v = LLVMGetStringAttributeValue(attr.as_mut_ptr(), &mut len);
        Some(if v.is_null() {
            String::new()
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(v as *const u8, len as usize)).into_owned()
        })
    }
}

/// The text of the string constant global `g` is initialized with (a C string literal,
/// its terminating NUL included), if it is one.
pub fn string_initializer(g: GlobalValue<'_>) -> Option<String> {
    // SAFETY: the initializer is read only of a global variable (a function has none:
    // `GlobalValue::get_initializer` would misread it); `LLVMGetAsString` is asked only of a
    // constant data string, and gives `len` bytes LLVM owns, copied at once.
    unsafe {
        if LLVMIsAGlobalVariable(g.as_value_ref()).is_null() {
            return None;
        }
        let init = LLVMGetInitializer(g.as_value_ref());
        if init.is_null() {
            return None;
        }
        if LLVMIsAConstantDataSequential(init).is_null() || LLVMIsConstantString(init) == 0 {
            return None;
        }
        let mut len = 0usize;
        let bytes = LLVMGetAsString(init, &mut len);
        Some(String::from_utf8_lossy(std::slice::from_raw_parts(bytes as *const u8, len)).into_owned())
    }
}
