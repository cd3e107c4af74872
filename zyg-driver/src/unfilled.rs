//! Entry points zyg does not fill in. A call to a function without a body whose name
//! contains `__enzyme_` or starts with `__zyg_` asks Enzyme or zyg for something; if zyg
//! passed it through, the program would fail to link (or a shared library would carry an
//! undefined symbol). So each one zyg does not implement is an error that names it and says
//! what to use instead, and so is an entry point used other than by a direct call (through
//! a function pointer), which zyg cannot see to fill in.
//!
//! Functions with a body are not requests: zyg's own helpers are defined `__zyg_*`
//! functions, and zyg runs on its own output.

use crate::callsite::{place_of, request_entry};
use crate::error::{DriverError, Result};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::module::Module;
use inkwell::values::AsValueRef;
use std::path::Path;
use zyg_ir::llvm::value_name;

/// Entry points zyg does not implement: a word of the name, what it asks for, what to use.
const UNSUPPORTED: &[(&str, &str, &str)] = &[
    ("fwddiff", "forward mode", FORWARD_ADVICE),
    ("fwdsplit", "split forward mode", FORWARD_ADVICE),
    ("batch", "a batched (vectorised) call", "call the function once per input instead"),
    (
        "virtualreverse",
        "the derivative of a virtual (C++ vtable) call",
        "request the gradients of the concrete functions instead",
    ),
    ("todense", "a sparse-to-dense conversion", "differentiate code on dense arrays instead"),
    (
        "augmentsize",
        "the size of split mode's tape",
        "`__enzyme_augmentfwd` returns a tape on the heap, so no size is needed",
    ),
    ("truncate", "floating-point truncation", "compute in the precision you want instead"),
];

const FORWARD_ADVICE: &str = "use `__enzyme_autodiff` (reverse mode) instead, which gives the derivative of a scalar \
                              result with respect to every input in one call";

/// Whether a function name is one of Enzyme's or zyg's entry points.
fn is_entry_name(name: &str) -> bool {
    name.contains("__enzyme_") || name.starts_with("__zyg_")
}

/// What a call of an unimplemented entry point gets told.
fn unsupported(name: &str) -> String {
    let word = name.split("__enzyme_").nth(1).or_else(|| name.strip_prefix("__zyg_")).unwrap_or(name);
    match UNSUPPORTED.iter().find(|(w, _, _)| word.starts_with(w)) {
        Some((_, what, advice)) => format!("`{name}` asks for {what}, which zyg does not support yet; {advice}"),
        None => format!(
            "`{name}` is not an entry point zyg implements: zyg fills in `__enzyme_autodiff`, `__enzyme_augmentfwd` \
             and `__enzyme_reverse` (and their `__zyg_` spellings); the rest of Enzyme's API is not supported yet"
        ),
    }
}

/// Refuses every use of an entry point zyg would leave unfilled: calls to unimplemented
/// ones, and any entry point used other than as the callee of a call.
pub fn check(module: &Module, path: &Path) -> Result<()> {
    let fail = |place: String, message: String| DriverError::Request { path: path.to_path_buf(), message: format!("{place}: {message}") };
    for f in module.get_functions() {
        let raw = f.as_value_ref();
        // SAFETY: `raw` is a function of the live module; its uses and their users are
        // live values of the same module.
        unsafe {
            let name = value_name(raw);
            if LLVMIsDeclaration(raw) == 0 || !is_entry_name(&name) || name == crate::prepare::VLA_MARKER {
                continue;
            }
            let mut u = LLVMGetFirstUse(raw);
            while !u.is_null() {
                let user = LLVMGetUser(u);
                u = LLVMGetNextUse(u);
                let is_call = !LLVMIsACallInst(user).is_null();
                let is_invoke = !LLVMIsAInvokeInst(user).is_null();
                let callee = (is_call || is_invoke) && LLVMGetCalledValue(user) == raw;
                if is_call && callee {
                    if request_entry(&name).is_none() {
                        return Err(fail(place_of(user), unsupported(&name)));
                    }
                } else if is_invoke && callee {
                    return Err(fail(
                        place_of(user),
                        format!(
                            "`{name}` is called with `invoke` (C++ code that may unwind through it), which zyg does not \
                             fill in yet; declare it `noexcept`, or compile with -fno-exceptions"
                        ),
                    ));
                } else if !LLVMIsAInstruction(user).is_null() {
                    return Err(fail(
                        place_of(user),
                        format!(
                            "`{name}` is used as a value here (through a function pointer?), and zyg fills in only \
                             direct calls to it; call it directly"
                        ),
                    ));
                } else if let Some(owner) = owning_global(user).filter(|g| !g.starts_with("llvm.")) {
                    return Err(fail(
                        format!("in the initializer of `@{owner}`"),
                        format!(
                            "`{name}` is stored as a function pointer, and zyg fills in only direct calls to it; call \
                             it directly"
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The global variable whose initializer holds constant `c` (through a few levels of
/// constant expressions and aggregates), if any.
unsafe fn owning_global(c: LLVMValueRef) -> Option<String> {
    if !LLVMIsAGlobalVariable(c).is_null() {
        return Some(value_name(c));
    }
    if LLVMIsAConstant(c).is_null() {
        return None;
    }
    let mut u = LLVMGetFirstUse(c);
    while !u.is_null() {
        if let Some(g) = owning_global(LLVMGetUser(u)) {
            return Some(g);
        }
        u = LLVMGetNextUse(u);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_entry_point_and_the_alternative() {
        assert!(unsupported("__enzyme_fwddiff").contains("forward mode"));
        assert!(unsupported("__enzyme_fwddiff_f").contains("__enzyme_autodiff"));
        assert!(unsupported("__enzyme_batch").contains("batched"));
        assert!(unsupported("__enzyme_virtualreverse").contains("virtual"));
        assert!(unsupported("__zyg_frobnicate").contains("not an entry point zyg implements"));
        assert!(is_entry_name("my__enzyme_todense") && is_entry_name("__zyg_x") && !is_entry_name("my__zyg_x"));
    }
}
