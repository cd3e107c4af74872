//! Requests made through the C++ header (`include/zyg/zyg.hpp`) at -O0. clang inlines the
//! header's always-inline functions even at -O0, but leaves each level's arguments in stack
//! slots: the request's function, its callbacks and its markers reach the call as loads of
//! slots, which say nothing about what they hold. So before the requests are read, each
//! unoptimised (`optnone`) function that calls a C++ entry point (a mangled name holding
//! `__zyg_autodiff`, `__zyg_fwddiff`...) gets LLVM's `sroa,mem2reg`, which replaces the slots
//! by the values stored in them, as clang does at -O1. The function keeps `optnone`; the rest
//! of the module is left as it is, and C requests (`__enzyme_autodiff(...)` written out) are
//! read as before.

use super::request_entry;
use crate::error::{DriverError, Result};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::TargetMachine;
use inkwell::values::FunctionValue;
use std::path::Path;
use zyg_ir::llvm::calls::{self, FunctionUse};
use zyg_ir::llvm::values::name_of;

/// The passes that turn the header's slots into values.
pub const PROMOTE_PIPELINE: &str = "sroa,mem2reg";

/// Promotes the stack slots of the unoptimised functions making C++ requests (see above).
pub fn promote_header_requests(module: &Module<'_>, machine: &TargetMachine, path: &Path) -> Result<()> {
    let optnone = Attribute::get_named_enum_kind_id("optnone");
    for caller in header_request_callers(module) {
        let Some(attribute) = caller.get_enum_attribute(AttributeLoc::Function, optnone) else { continue };
        // `optnone` makes LLVM skip the function's passes: lifted for the promotion only.
        caller.remove_enum_attribute(AttributeLoc::Function, optnone);
        let promoted = caller.run_passes(PROMOTE_PIPELINE, machine, PassBuilderOptions::create());
        caller.add_attribute(AttributeLoc::Function, attribute);
        promoted.map_err(|e| DriverError::Llvm { path: path.to_path_buf(), message: e.to_string() })?;
    }
    Ok(())
}

/// The functions that call a C++ entry point, each once, in module order.
fn header_request_callers<'ctx>(module: &Module<'ctx>) -> Vec<FunctionValue<'ctx>> {
    let mut callers: Vec<FunctionValue<'ctx>> = Vec::new();
    for f in module.get_functions() {
        let name = name_of(&f);
        if !f.as_global_value().is_declaration() || !is_header_entry(&name) {
            continue;
        }
        for u in calls::uses(f) {
            let FunctionUse::Called(call, _) = u else { continue };
            let caller = calls::instruction(call).get_parent().and_then(|bb| bb.get_parent());
            if let Some(caller) = caller.filter(|c| !callers.contains(c)) {
                callers.push(caller);
            }
        }
    }
    callers
}

/// Whether a declaration is one of the header's entry points: a mangled C++ name that asks
/// for a gradient.
fn is_header_entry(name: &str) -> bool {
    name.starts_with("_Z") && request_entry(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::is_header_entry;

    #[test]
    fn header_entries_are_mangled_requests() {
        assert!(is_header_entry("_ZN3zyg6detail14__zyg_autodiffIdJidEEET_PvDpT0_"));
        assert!(is_header_entry("_ZN3zyg6detail13__zyg_fwddiffIdJidEEET_PvDpT0_"));
        assert!(!is_header_entry("__enzyme_autodiff"));
        assert!(!is_header_entry("_Z6squared"));
    }
}
