//! Reading user-registered derivatives from the module: Enzyme's
//! `__enzyme_register_gradient_*` globals ({f, augmented forward, reverse}) and zyg's
//! `__zyg_pullback_*` ({f, pullback}); see `zyg_transform::custom` for the conventions.

use crate::error::{DriverError, Result};
use inkwell::llvm_sys::core::*;
use inkwell::module::Module;
use inkwell::values::AsValueRef;
use std::path::Path;
use zyg_ir::llvm::{global_name, signature_of};
use zyg_transform::custom::{CustomKind, CustomRule};

const ENZYME_PREFIX: &str = "__enzyme_register_gradient";
const ZYG_PREFIX: &str = "__zyg_pullback";

/// Every registration in the module.
pub fn custom_rules(module: &Module, path: &Path) -> Result<Vec<CustomRule>> {
    let mut rules = Vec::new();
    for global in module.get_globals() {
        let name = global.get_name().to_string_lossy().into_owned();
        let enzyme = name.starts_with(ENZYME_PREFIX);
        if !enzyme && !name.starts_with(ZYG_PREFIX) {
            continue;
        }
        let fail = |message: String| DriverError::Request { path: path.to_path_buf(), message: format!("`@{name}`: {message}") };
        let functions = registered_functions(global.as_value_ref()).map_err(fail)?;
        let want = if enzyme { 3 } else { 2 };
        if functions.len() != want {
            let shape = if enzyme { "{f, augmented forward, reverse}" } else { "{f, pullback}" };
            return Err(fail(format!("a registration holds {shape}, {want} functions, but this one has {}", functions.len())));
        }
        let sig = |n: &str| {
            let f = crate::grad::function(module, n).ok_or_else(|| fail(format!("`{n}` is not a function of this module")))?;
            signature_of(f).map_err(fail)
        };
        let kind = if enzyme {
            CustomKind::Enzyme {
                augmented: functions[1].clone(),
                augmented_sig: sig(&functions[1])?,
                reverse: functions[2].clone(),
                reverse_sig: sig(&functions[2])?,
            }
        } else {
            CustomKind::Pullback { pullback: functions[1].clone(), sig: sig(&functions[1])? }
        };
        tracing::info!(function = %functions[0], registration = %name, "using a registered derivative");
        rules.push(CustomRule { function: functions[0].clone(), kind });
    }
    Ok(rules)
}

/// The functions named by a registration's initializer (an array of function pointers).
fn registered_functions(global: inkwell::llvm_sys::prelude::LLVMValueRef) -> std::result::Result<Vec<String>, String> {
    // SAFETY: `global` is a global variable of a live module; its initializer, when there
    // is one, is a constant whose operands are the array's elements.
    unsafe {
        let init = LLVMGetInitializer(global);
        if init.is_null() {
            return Err("a registration must be defined, with an initializer".into());
        }
        let n = LLVMGetNumOperands(init);
        (0..n as u32)
            .map(|i| {
                let f = LLVMGetOperand(init, i);
                if LLVMIsAFunction(f).is_null() {
                    Err(format!("element {i} is not a function"))
                } else {
                    global_name(f)
                }
            })
            .collect()
    }
}
