//! Preparation: on a copy of the module, LLVM's canonicalising passes bring `-O0` output
//! (allocas, `optnone`) and `-O2` output to the same SSA shape before zyg reads it. The
//! user's module itself is never changed by this step.

use crate::error::{DriverError, Result};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::TargetMachine;
use std::path::Path;

/// The canonicalisation pipeline (DESIGN.md, "Prepare"): promote memory to SSA, simplify,
/// then put loops in simplified, LCSSA form.
pub const PREPARE_PIPELINE: &str =
    "function(sroa,mem2reg,instcombine<no-verify-fixpoint>,simplifycfg,loop-simplify,lcssa)";

pub fn prepare<'ctx>(module: &Module<'ctx>, machine: &TargetMachine, path: &Path) -> Result<Module<'ctx>> {
    let copy = module.clone();
    for f in copy.get_functions() {
        for name in ["optnone", "noinline"] {
            let kind = Attribute::get_named_enum_kind_id(name);
            f.remove_enum_attribute(AttributeLoc::Function, kind);
        }
    }
    copy.run_passes(PREPARE_PIPELINE, machine, PassBuilderOptions::create())
        .map_err(|e| DriverError::Llvm { path: path.to_path_buf(), message: e.to_string() })?;
    Ok(copy)
}
