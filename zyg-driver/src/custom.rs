//! Reading user-registered derivatives from the module: Enzyme's
//! `__enzyme_register_gradient_*` globals ({f, augmented forward, reverse}) and zyg's
//! `__zyg_pullback_*` ({f, pullback}); see `zyg_transform::custom` for the conventions.

use crate::error::{DriverError, Result};
use inkwell::module::Module;
use inkwell::values::GlobalValue;
use std::path::Path;
use zyg_ir::llvm::signature_of;
use zyg_ir::llvm::values::{as_function, constant_operands, global_value_name};
use zyg_transform::{CustomKind, CustomRule};

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
        let functions = registered_functions(global).map_err(fail)?;
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
fn registered_functions(global: GlobalValue<'_>) -> std::result::Result<Vec<String>, String> {
    let Some(init) = global.get_initializer() else {
        return Err("a registration must be defined, with an initializer".into());
    };
    constant_operands(init)
        .into_iter()
        .enumerate()
        .map(|(i, f)| match as_function(f) {
            Some(f) => global_value_name(f.as_global_value()),
            None => Err(format!("element {i} is not a function")),
        })
        .collect()
}
