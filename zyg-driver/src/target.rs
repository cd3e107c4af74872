//! The targets zyg generates code for (x86-64, AArch64, NVPTX): their registration, the
//! target machine LLVM's pass pipelines need, and the CPU names each knows. LLVM given a
//! CPU its target does not know only warns ("'x87-64' is not a recognized processor") and
//! goes on with a subtarget that can stop the process later ("LLVM ERROR: 64-bit code
//! requested on a subtarget that doesn't support it!"), so zyg checks the names first:
//! `--cpu` and `--gpu`, and the `target-cpu` and `tune-cpu` attributes of the input's
//! functions.

use crate::error::{DriverError, Result};
use inkwell::attributes::AttributeLoc;
use inkwell::module::Module;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;
use std::path::Path;

/// Registers the targets, once.
pub fn initialize() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        Target::initialize_x86(&InitializationConfig::default());
        Target::initialize_aarch64(&InitializationConfig::default());
        Target::initialize_nvptx(&InitializationConfig::default());
    });
}

/// The module's triple, or the host's when the module names none.
pub fn triple_of(module: &Module) -> TargetTriple {
    let triple = module.get_triple();
    if triple.as_str().to_bytes().is_empty() {
        TargetMachine::get_default_triple()
    } else {
        triple
    }
}

pub fn triple_text(t: &TargetTriple) -> String {
    t.as_str().to_string_lossy().into_owned()
}

/// A target machine for the module's triple (the host's when the module names none).
pub fn target_machine(module: &Module, path: &Path) -> Result<TargetMachine> {
    initialize();
    let triple = triple_of(module);
    let llvm = |e: inkwell::support::LLVMString| DriverError::Llvm { path: path.to_path_buf(), message: e.to_string() };
    let target = Target::from_triple(&triple).map_err(llvm)?;
    target.create_target_machine(&triple, "", "", OptimizationLevel::Default, RelocMode::PIC, CodeModel::Default).ok_or_else(
        || DriverError::Llvm { path: path.to_path_buf(), message: format!("no target machine for `{}`", triple_text(&triple)) },
    )
}

/// What a target says of a CPU name.
pub enum Cpu {
    Known,
    /// Not one of its CPUs, which are these.
    Unknown(Vec<String>),
    /// LLVM has no target for the triple.
    NoTarget,
}

/// Whether `triple`'s target knows the CPU `cpu` (src/cpu_names.cpp).
pub fn cpu(triple: &TargetTriple, cpu: &str) -> Cpu {
    initialize();
    match zyg_native::cpu_known(triple.as_str(), cpu) {
        (Some(true), _) => Cpu::Known,
        (Some(false), list) => Cpu::Unknown(list.lines().filter(|n| !n.is_empty()).map(String::from).collect()),
        (None, _) => Cpu::NoTarget,
    }
}

/// Refuses a function whose `target-cpu` or `tune-cpu` attribute names a CPU `triple`'s
/// target does not know. A triple LLVM has no target for is left to whoever makes its
/// target machine (which says so).
pub fn check_function_cpus(module: &Module, triple: &TargetTriple, path: &Path) -> Result<()> {
    for f in module.get_functions() {
        for key in ["target-cpu", "tune-cpu"] {
            let Some(attr) = f.get_string_attribute(AttributeLoc::Function, key) else { continue };
            // The value with its length: inkwell's reading stops at a NUL byte.
            let value = zyg_ir::llvm::string_attribute_value(attr);
            if value.is_empty() {
                continue;
            }
            if let Cpu::Unknown(_) = cpu(triple, &value) {
                return Err(DriverError::Request {
                    path: path.to_path_buf(),
                    message: format!(
                        "function `{}` is compiled for the CPU `{}` (its \"{key}\" attribute), which `{}` does not know",
                        f.get_name().to_string_lossy(),
                        value.escape_debug(),
                        triple_text(triple)
                    ),
                });
            }
        }
    }
    Ok(())
}
