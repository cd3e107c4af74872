//! Reading user-registered derivatives from the module: Enzyme's
//! `__enzyme_register_gradient_*` globals ({f, augmented forward, reverse}) and zyg's
//! `__zyg_pullback_*` ({f, pullback}) for reverse mode; Enzyme's
//! `__enzyme_register_derivative_*` and zyg's `__zyg_tangent_*` ({f, tangent}) for forward
//! mode; see `zyg_transform::custom` for the conventions.

use crate::error::{DriverError, Result};
use inkwell::module::Module;
use inkwell::values::GlobalValue;
use std::path::Path;
use zyg_ir::llvm::signature_of;
use zyg_ir::llvm::values::{as_function, constant_operands, global_value_name};
use zyg_transform::{CustomKind, CustomRule};

/// The registrations zyg reads, by the prefix of the global's name: what they hold.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Registration {
    /// `{f, augmented forward, reverse}`
    EnzymeGradient,
    /// `{f, pullback}`
    Pullback,
    /// `{f, tangent}`, forward mode's (Enzyme's and zyg's names).
    Tangent,
}

/// The names (prefixes) of the registration arrays, and what each registers.
pub(crate) const REGISTRATIONS: &[(&str, Registration)] = &[
    ("__enzyme_register_gradient", Registration::EnzymeGradient),
    ("__zyg_pullback", Registration::Pullback),
    ("__enzyme_register_derivative", Registration::Tangent),
    ("__zyg_tangent", Registration::Tangent),
];

/// Every registration in the module.
pub fn custom_rules(module: &Module, path: &Path) -> Result<Vec<CustomRule>> {
    let mut rules = Vec::new();
    for global in module.get_globals() {
        let name = global.get_name().to_string_lossy().into_owned();
        let Some(&(_, registration)) = REGISTRATIONS.iter().find(|(prefix, _)| name.starts_with(prefix)) else { continue };
        let fail = |message: String| DriverError::Request { path: path.to_path_buf(), message: format!("`@{name}`: {message}") };
        let functions = registered_functions(global).map_err(fail)?;
        let (want, shape) = match registration {
            Registration::EnzymeGradient => (3, "{f, augmented forward, reverse}"),
            Registration::Pullback => (2, "{f, pullback}"),
            Registration::Tangent => (2, "{f, forward derivative}"),
        };
        if functions.len() != want {
            return Err(fail(format!("a registration holds {shape}, {want} functions, but this one has {}", functions.len())));
        }
        let sig = |n: &str| {
            let f = crate::grad::function(module, n).ok_or_else(|| fail(format!("`{n}` is not a function of this module")))?;
            signature_of(f).map_err(fail)
        };
        let kind = match registration {
            Registration::EnzymeGradient => CustomKind::Enzyme {
                augmented: functions[1].clone(),
                augmented_sig: sig(&functions[1])?,
                reverse: functions[2].clone(),
                reverse_sig: sig(&functions[2])?,
            },
            Registration::Pullback => CustomKind::Pullback { pullback: functions[1].clone(), sig: sig(&functions[1])? },
            Registration::Tangent => CustomKind::Tangent { tangent: functions[1].clone(), sig: sig(&functions[1])? },
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
