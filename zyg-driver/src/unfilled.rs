//! Entry points zyg does not fill in. A call to a function without a body whose name
//! contains `__enzyme_` or starts with `__zyg_` asks Enzyme or zyg for something; if zyg
//! passed it through, the program would fail to link (or a shared library would carry an
//! undefined symbol). So each one zyg does not implement is an error that names it and says
//! what to use instead, and so is an entry point used other than by a direct call (through
//! a function pointer), which zyg cannot see to fill in.
//!
//! Functions with a body are not requests: zyg's own helpers are defined `__zyg_*`
//! functions, and zyg runs on its own output. `__zyg_release_tape_cache` is filled in by
//! giving its declaration a body (`tape_cache`), which every use, a function pointer too,
//! then reaches.

use crate::callsite::{place_of, request_entry};
use crate::error::{DriverError, Result};
use inkwell::module::Module;
use inkwell::values::InstructionValue;
use std::path::Path;
use zyg_ir::llvm::calls::{self, CallKind, FunctionUse};
use zyg_ir::llvm::values::name_of;

/// Entry points zyg does not implement: a word of the name, what it asks for, what to use.
const UNSUPPORTED: &[(&str, &str, &str)] = &[
    ("fwdsplit", "split forward mode", FORWARD_ADVICE),
    ("batch", "a batched (vectorised) call", "call the function once per input instead"),
    ("todense", "a sparse-to-dense conversion", "differentiate code on dense arrays instead"),
    ("truncate", "floating-point truncation", "compute in the precision you want instead"),
];

const FORWARD_ADVICE: &str = "use `__enzyme_fwddiff` (forward mode, primal and tangents in one call) instead";

/// Whether a function name is one of Enzyme's or zyg's entry points.
pub(crate) fn is_entry_name(name: &str) -> bool {
    name.contains("__enzyme_") || name.starts_with("__zyg_")
}

/// What a call of an unimplemented entry point gets told.
fn unsupported(name: &str) -> String {
    let word = name.split("__enzyme_").nth(1).or_else(|| name.strip_prefix("__zyg_")).unwrap_or(name);
    match UNSUPPORTED.iter().find(|(w, _, _)| word.starts_with(w)) {
        Some((_, what, advice)) => format!("`{name}` asks for {what}, which zyg does not support yet; {advice}"),
        None => format!(
            "`{name}` is not an entry point zyg implements: zyg fills in `__enzyme_autodiff`, `__enzyme_fwddiff`, \
             `__enzyme_augmentfwd`, `__enzyme_reverse` and `__enzyme_augmentsize` (and their `__zyg_` spellings), \
             and `__zyg_release_tape_cache`; the rest of Enzyme's API is not supported yet"
        ),
    }
}

/// Fills in Enzyme's `__enzyme_virtualreverse(f)` (and `__zyg_virtualreverse`), which gives
/// the shadow of function pointer `f` for a hand-built shadow vtable: `f` itself. zyg does
/// not reach derivatives through shadow function pointers: a call through a pointer is
/// differentiated by comparing the primal pointer with the functions it may be
/// (`zyg_ir::llvm::dispatch`), so a shadow vtable only has to be a valid vtable, as the
/// primal's is.
pub fn fill_virtual_reverse(module: &Module) {
    for f in module.get_functions() {
        let name = name_of(&f);
        let asks = name.contains("__enzyme_virtualreverse") || name.starts_with("__zyg_virtualreverse");
        if !asks || !f.as_global_value().is_declaration() || f.count_params() != 1 {
            continue;
        }
        for u in calls::uses(f) {
            let FunctionUse::Called(mut call, kind) = u else { continue };
            if kind == CallKind::Invoke {
                call = zyg_ir::llvm::invokes::detach(call).0;
            } else if kind != CallKind::Call {
                continue;
            }
            calls::replace_by_argument(call, 0);
        }
    }
}

/// Refuses every use of an entry point zyg would leave unfilled: calls to unimplemented
/// ones, and any entry point used other than as the callee of a call.
pub fn check(module: &Module, path: &Path) -> Result<()> {
    let fail = |place: String, message: String| DriverError::Request {
        path: path.to_path_buf(),
        message: format!("{place}: {message}"),
    };
    crate::tape_cache::check(module, path)?;
    for f in module.get_functions() {
        let name = name_of(&f);
        let filled = name == crate::prepare::VLA_MARKER || name == zyg_transform::RELEASE_TAPE_CACHE;
        if !f.as_global_value().is_declaration() || !is_entry_name(&name) || filled {
            continue;
        }
        for u in calls::uses(f) {
            match u {
                FunctionUse::Called(call, CallKind::Call | CallKind::Invoke) => {
                    if request_entry(&name).is_none() {
                        return Err(fail(place_of(calls::instruction(call)), unsupported(&name)));
                    }
                }
                // A `callbr` calling it, too, is a use zyg does not fill in.
                FunctionUse::Called(call, CallKind::CallBr) => return Err(used_as_value(&fail, calls::instruction(call), &name)),
                FunctionUse::Instruction(inst) => return Err(used_as_value(&fail, inst, &name)),
                FunctionUse::Constant(Some(owner)) if !name_of(&owner).starts_with("llvm.") => {
                    return Err(fail(
                        format!("in the initializer of `@{}`", name_of(&owner)),
                        format!(
                            "`{name}` is stored as a function pointer, and zyg fills in only direct calls to it; call \
                             it directly"
                        ),
                    ));
                }
                FunctionUse::Constant(_) => {}
            }
        }
    }
    Ok(())
}

/// The error for an entry point used as a value by instruction `inst`.
fn used_as_value(fail: &dyn Fn(String, String) -> DriverError, inst: InstructionValue<'_>, name: &str) -> DriverError {
    fail(
        place_of(inst),
        format!(
            "`{name}` is used as a value here (through a function pointer?), and zyg fills in only direct calls to it; \
             call it directly"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_entry_point_and_the_alternative() {
        assert!(unsupported("__enzyme_fwdsplit").contains("split forward mode"));
        assert!(unsupported("__enzyme_fwdsplit_f").contains("__enzyme_fwddiff"));
        assert!(unsupported("__enzyme_batch").contains("batched"));
        assert!(unsupported("__zyg_frobnicate").contains("not an entry point zyg implements"));
        assert!(is_entry_name("my__enzyme_todense") && is_entry_name("__zyg_x") && !is_entry_name("my__zyg_x"));
    }
}
