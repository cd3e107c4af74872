//! `__zyg_release_tape_cache()`, the entry point that gives back the tape stacks' cached
//! chunks (zyg-transform's `stack.rs`). zyg fills it in per module: the
//! module's declaration becomes an internal function that calls the `release_cache` helper
//! of each namespace the module has (one per round of nested requests, and per `--fn` of
//! one run), so that it frees every cache of the calling thread in the module it is
//! compiled in.
//!
//! Why per module, not one function shared by all of a program's modules: each module's
//! caches are internal thread-local globals, reached by the cheapest TLS access, and its
//! helpers are internal; a shared (`linkonce_odr`) release function would be one module's,
//! picked by the linker, and free only that module's caches. Internal linkage also means
//! two modules that both call it never define the symbol twice. A program whose gradients
//! are in several modules calls it in each (or calls a function of each that calls it).

use crate::error::{DriverError, Result};
use inkwell::module::Module;
use inkwell::values::FunctionValue;
use std::path::Path;
use zyg_ir::llvm::calls;
use zyg_ir::llvm::values::name_of;
use zyg_ir::{Signature, Type};
use zyg_transform::{release_cache_namespace, release_tape_cache_entry, RELEASE_TAPE_CACHE};

/// Whether the module declares the entry point and uses it (the plugin's cheap look).
pub fn wanted(module: &Module<'_>) -> bool {
    module.get_function(RELEASE_TAPE_CACHE).is_some_and(|f| f.as_global_value().is_declaration() && !calls::uses(f).is_empty())
}

/// The signature of the module's declaration, or the error for one zyg cannot fill in:
/// `void (void)`, or `void (...)` (C without a prototype).
fn declared_signature(f: FunctionValue<'_>, path: &Path) -> Result<Signature> {
    let ty = f.get_type();
    if ty.get_return_type().is_some() || ty.count_param_types() != 0 {
        return Err(DriverError::Request {
            path: path.to_path_buf(),
            message: format!(
                "`{RELEASE_TAPE_CACHE}` is declared as `{}`; declare it as `void {RELEASE_TAPE_CACHE}(void);` (zyg/zyg.h does)",
                crate::callsite::type_text(ty)
            ),
        });
    }
    Ok(Signature { params: Vec::new(), ret: Type::Void, variadic: ty.is_var_arg() })
}

/// Refuses a declaration of the entry point zyg cannot fill in (checked with the other
/// entry points, before the module changes).
pub fn check(module: &Module<'_>, path: &Path) -> Result<()> {
    match module.get_function(RELEASE_TAPE_CACHE).filter(|f| f.as_global_value().is_declaration()) {
        Some(f) => declared_signature(f, path).map(|_| ()),
        None => Ok(()),
    }
}

/// Fills in the entry point, if the module has it: a declaration gets an internal body
/// (`stack::release_tape_cache_entry`), and the body ours calls the `release_cache` helper of every
/// namespace the module defines one for that it does not call yet (after a later round or
/// `--fn`, the new namespaces'). A definition of the program's own is left alone.
pub fn fill(module: &Module<'_>, path: &Path) -> Result<()> {
    let Some(mut entry) = module.get_function(RELEASE_TAPE_CACHE) else { return Ok(()) };
    let llvm = |message: String| DriverError::Llvm { path: path.to_path_buf(), message };
    if entry.as_global_value().is_declaration() {
        // A new function takes the uses of the declaration, which may carry a declaration's
        // debug info (`DISubprogram`, for call sites at -O2 -g) that a definition cannot.
        let sig = declared_signature(entry, path)?;
        let aside = format!("{RELEASE_TAPE_CACHE}.declared");
        entry.as_global_value().set_name(&aside);
        let defined = zyg_ir::llvm::write_function(module, &release_tape_cache_entry(sig)).map_err(|e| llvm(e.to_string()))?;
        entry.as_global_value().as_pointer_value().replace_all_uses_with(defined.as_global_value().as_pointer_value());
        zyg_ir::llvm::delete_unused_function(module, &aside);
        entry = defined;
    } else if entry.get_linkage() != inkwell::module::Linkage::Internal {
        return Ok(());
    }
    let called: Vec<String> = entry
        .get_basic_blocks()
        .iter()
        .flat_map(|b| b.get_instructions())
        .filter_map(|i| calls::call_site(i).and_then(|(call, _)| calls::called_function(call)))
        .map(|f| name_of(&f))
        .collect();
    let missing: Vec<FunctionValue<'_>> = module
        .get_functions()
        .filter(|f| !f.as_global_value().is_declaration())
        .filter(|f| release_cache_namespace(&name_of(f)).is_some() && !called.contains(&name_of(f)))
        .collect();
    let Some(ret) = entry.get_first_basic_block().and_then(|b| b.get_terminator()) else {
        return Err(llvm(format!("`{RELEASE_TAPE_CACHE}` has no body to add to")));
    };
    let builder = module.get_context().create_builder();
    builder.position_before(&ret);
    for helper in missing {
        builder.build_call(helper, &[], "").map_err(|e| llvm(e.to_string()))?;
    }
    Ok(())
}
