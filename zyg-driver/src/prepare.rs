//! Preparation: on a copy of the module, LLVM's canonicalising passes bring `-O0` output
//! (allocas, `optnone`) and `-O2` output to the same SSA shape before zyg reads it. The
//! user's module itself is never changed by this step.

use crate::error::{DriverError, Result};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::TargetMachine;
use std::collections::HashSet;
use std::path::Path;

/// The function passes of the canonical shape, run by `PREPARE_PIPELINE` and again after
/// inlining (`INLINE_PIPELINE`). A macro, so that both pipelines are literals `concat!` joins.
macro_rules! canonicalise {
    () => {
        "function(sroa,mem2reg,instcombine<no-verify-fixpoint>,simplifycfg,loop-simplify,lcssa)"
    };
}

/// The canonicalisation pipeline (DESIGN.md, "Prepare"): promote memory to SSA, simplify,
/// then put loops in simplified, LCSSA form.
/// `inferattrs` first gives the declarations of C library functions the attributes clang
/// gives them only when optimising (`ilogb` touches only errno), so that `-O0` input tells
/// zyg as much about its callees as `-O2` input does.
pub const PREPARE_PIPELINE: &str = concat!("inferattrs,", canonicalise!());

/// `keep` names the functions whose calls must stay calls (registered derivatives,
/// inactive and function-like functions, allocators, `ZYG_KEEP`): see `inline_small_inline_functions`.
pub fn prepare<'ctx>(
    module: &Module<'ctx>,
    machine: &TargetMachine,
    path: &Path,
    keep: &HashSet<String>,
) -> Result<Module<'ctx>> {
    let copy = module.clone();
    for f in copy.get_functions() {
        for name in ["optnone", "noinline"] {
            let kind = Attribute::get_named_enum_kind_id(name);
            f.remove_enum_attribute(AttributeLoc::Function, kind);
        }
    }
    // Before the pipeline, whose simplifycfg then drops the cases no longer taken.
    zyg_ir::llvm::openmp_reductions_to_atomics(&copy);
    let llvm = |e: inkwell::support::LLVMString| DriverError::Llvm { path: path.to_path_buf(), message: e.to_string() };
    copy.run_passes(PREPARE_PIPELINE, machine, PassBuilderOptions::create()).map_err(llvm)?;
    // After the pipeline, which promoted -O0's stack slots in the sections' bodies.
    zyg_ir::llvm::openmp_critical_sums_to_atomics(&copy);
    if inline_small_inline_functions(&copy, keep) {
        copy.run_passes(INLINE_PIPELINE, machine, PassBuilderOptions::create()).map_err(llvm)?;
    }
    drop_scope_declarations(&copy);
    zyg_ir::llvm::known_inline_asm_to_instructions(&copy);
    expand_constant_expressions(&copy);
    copy_byval_arguments(&copy);
    zyg_ir::llvm::zero_sret_results_of_declarations(&copy);
    dynamic_allocas_to_calls(&copy);
    zyg_ir::llvm::packed_allocas_to_bytes(&copy);
    Ok(copy)
}

/// After `inline_small_inline_functions`: inline, then canonicalise again.
const INLINE_PIPELINE: &str = concat!("always-inline,", canonicalise!());

/// The most instructions (after canonicalisation) of a header function the copy inlines.
const SMALL_INLINE_FUNCTION: usize = 16;

/// At -O0 clang inlines nothing, so C++'s small header functions (`std::max`, which returns
/// a reference to one of its arguments; `size()`, `begin()`, iterator operators) stay calls,
/// and values the optimiser would keep in registers go through the callers' stack slots and
/// pointers returned by calls, where zyg's type analysis cannot tell an integer's bytes
/// from a float's: `std::vector::push_back`'s growth was refused at -O0. In the copy zyg
/// reads, such functions (`linkonce_odr`, defined in a header and mergeable, at most
/// `SMALL_INLINE_FUNCTION` instructions, not recursive, not in `keep`) are marked
/// `alwaysinline`, which gives zyg at -O0 the shape clang's inliner gives it at -O1. Returns
/// whether it marked any.
fn inline_small_inline_functions(module: &Module<'_>, keep: &HashSet<String>) -> bool {
    let mut marked = false;
    let always = Attribute::get_named_enum_kind_id("alwaysinline");
    for f in module.get_functions() {
        let name = f.get_name().to_string_lossy().into_owned();
        if f.count_basic_blocks() == 0
            || f.get_linkage() != inkwell::module::Linkage::LinkOnceODR
            || keep.contains(&name)
            || name.contains("__enzyme_")
            || name.contains("__zyg_")
        {
            continue;
        }
        let mut count = 0;
        let mut recursive = false;
        for bb in f.get_basic_blocks() {
            for inst in bb.get_instructions() {
                count += 1;
                if let Some((call, _)) = zyg_ir::llvm::calls::call_site(inst) {
                    recursive |= zyg_ir::llvm::calls::called_function(call) == Some(f);
                }
            }
        }
        if count <= SMALL_INLINE_FUNCTION && !recursive {
            f.add_attribute(AttributeLoc::Function, module.get_context().create_enum_attribute(always, 0));
            marked = true;
        }
    }
    marked
}

/// `llvm.experimental.noalias.scope.decl` (left where LLVM inlined a function with
/// `restrict` parameters, as in Eigen and the standard library at -O2) only tells alias
/// analysis where a scope begins: it computes nothing, and zyg's output is written anew
/// from what it read, so the copy drops it rather than have zyg read a metadata operand.
fn drop_scope_declarations(module: &Module<'_>) {
    let Some(decl) = module.get_function("llvm.experimental.noalias.scope.decl") else { return };
    for u in zyg_ir::llvm::calls::uses(decl) {
        if let zyg_ir::llvm::calls::FunctionUse::Called(call, _) = u {
            zyg_ir::llvm::calls::instruction(call).erase_from_basic_block();
        }
    }
}

/// Turns constant expressions used by instructions (`getelementptr (i8, ptr @g, i64 8)`,
/// casts of globals) into instructions in front of their users, so that the reader sees
/// every address computation as an instruction and a global's shadow can follow it. Run
/// after the pipeline, whose instcombine would fold them back (`zyg_ir::llvm::rewrite`).
fn expand_constant_expressions(module: &Module<'_>) {
    zyg_ir::llvm::expand_constant_expressions(module);
}

/// A `byval` argument is a copy the callee owns, made by the call's lowering. zyg's calls
/// to generated primals have no `byval` (and clang at `-O0` passes the caller's own struct,
/// trusting the lowering to copy it), so the copy is made explicit here: a stack slot in the
/// caller's entry block and a `memcpy` before the call, whose adjoint zyg knows. The
/// attribute stays, so the module means what it meant.
fn copy_byval_arguments(module: &Module<'_>) {
    zyg_ir::llvm::copy_byval_arguments(module);
}

/// The stand-in for a dynamic `alloca` (a C99 variable-length array) while zyg works:
/// `ptr @__zyg_vla(i64 bytes)`. zyg reads it as an allocation, whose shadow comes from
/// `calloc` and is freed by the adjoint; `restore_dynamic_allocas` turns it back into an
/// `alloca` in the generated code.
pub const VLA_MARKER: &str = "__zyg_vla";

/// Replaces each `alloca T, iN %n` whose count is not the constant 1 by a call to
/// `VLA_MARKER` with the byte count.
fn dynamic_allocas_to_calls(module: &Module<'_>) {
    zyg_ir::llvm::dynamic_allocas_to_calls(module, VLA_MARKER);
}

/// Turns the `VLA_MARKER` calls of a generated function back into dynamic allocas (16-byte
/// aligned, as clang aligns VLAs).
pub fn restore_dynamic_allocas(function: inkwell::values::FunctionValue<'_>) {
    zyg_ir::llvm::restore_dynamic_allocas(function, VLA_MARKER);
}
