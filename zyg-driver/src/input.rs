//! Checks an input module passes before any LLVM pass, or zyg, sees it. LLVM's passes and
//! backends assume a module that verifies: given one that does not (taking the address of
//! an intrinsic, a use before its definition), they stop the process ("Broken module found,
//! compilation aborted") or crash. And scalable vectors (`<vscale x 4 x float>`) stop the
//! x86 and NVPTX backends and LLVM's size queries that zyg makes (`TypeSize` assertions):
//! zyg refuses them, naming the function and the instruction. A function's `target-cpu`
//! must name a CPU of the module's target (`target::check_function_cpus`).

use crate::error::{DriverError, Result};
use inkwell::llvm_sys::LLVMTypeKind;
use inkwell::module::Module;
use inkwell::values::{AnyValue, BasicValue};
use std::path::Path;
use zyg_ir::llvm::values::name_of;

/// Sets LLVM's options for reading, once, before the first module is parsed: LLVM's
/// "auto-upgrade" of debug info verifies a module with current debug info while parsing
/// it, and stops the process if it is broken; zyg verifies it itself (`check`) and says so.
pub fn configure_reader() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The option exists in every LLVM 22 build (lib/IR/AutoUpgrade.cpp).
        zyg_ir::llvm::parse_llvm_options(&["-disable-auto-upgrade-debug-info"]);
    });
}

/// Verifies a module just read, and refuses what zyg cannot take. Debug info is handled as
/// LLVM's reader would have (see `configure_reader`): dropped, with a warning, when its
/// version is not LLVM 22's or when it is invalid while the rest of the module is valid.
pub fn check(module: &Module<'_>, path: &Path) -> Result<()> {
    let verify = || module.verify().err().map(|message| message.to_string());
    let first = verify();
    let version = zyg_ir::llvm::debug_info_version(module);
    let current = inkwell::debug_info::debug_metadata_version();
    match first {
        None if version == current => {}
        None => {
            if module.strip_debug_info() {
                tracing::warn!("{}: ignoring debug info of version {version} (LLVM 22 reads version {current})", path.display());
            }
        }
        Some(message) => {
            // On an invalid module stripping only removes debug records and attachments,
            // and the second verification says whether that was all.
            let stripped = module.strip_debug_info();
            match stripped.then(verify) {
                Some(None) => tracing::warn!("{}: ignoring invalid debug info", path.display()),
                Some(Some(rest)) => return Err(invalid(path, rest)),
                None => return Err(invalid(path, message)),
            }
        }
    }
    refuse_scalable_vectors(module, path)?;
    refuse_nul_names(module, path)?;
    crate::target::check_function_cpus(module, &crate::target::triple_of(module), path)
}

fn invalid(path: &Path, message: String) -> DriverError {
    DriverError::Invalid { path: path.to_path_buf(), message: message.trim_end().to_string() }
}

/// Refuses a name holding a NUL character (a function, a global variable, a parameter or an
/// instruction): bitcode can carry one, but LLVM cannot write it as text (its own reader
/// rejects `@"\00name"`), and C cannot name it.
fn refuse_nul_names(module: &Module<'_>, path: &Path) -> Result<()> {
    let refuse = |what: &str, name: &str| DriverError::Unsupported {
        path: path.to_path_buf(),
        message: format!(
            "the {what} `{}` has a NUL character in its name, which LLVM cannot write as text; rename it",
            name.escape_default()
        ),
    };
    for g in module.get_globals() {
        let name = name_of(&g.as_basic_value_enum());
        if name.contains('\0') {
            return Err(refuse("global variable", &name));
        }
    }
    for f in module.get_functions() {
        let name = name_of(&f);
        if name.contains('\0') {
            return Err(refuse("function", &name));
        }
        // Only a definition prints its parameters' names (and an intrinsic's declaration
        // may take `metadata`, which inkwell's parameter handles cannot hold).
        if f.count_basic_blocks() == 0 {
            continue;
        }
        let locals = f
            .get_param_iter()
            .map(|p| name_of(&p))
            .chain(f.get_basic_blocks().into_iter().flat_map(|b| b.get_instructions()).map(|i| name_of(&i)));
        for local in locals {
            if local.contains('\0') {
                return Err(refuse(&format!("value in `{}`", name.escape_default()), &local));
            }
        }
    }
    Ok(())
}

/// Refuses a module that uses scalable vectors anywhere: in a global, a signature, an
/// instruction's result or operand, an allocation or an address computation.
fn refuse_scalable_vectors(module: &Module<'_>, path: &Path) -> Result<()> {
    let scalable = |k| k == LLVMTypeKind::LLVMScalableVectorTypeKind;
    match zyg_ir::llvm::find_type(module, scalable) {
        None => Ok(()),
        Some(found) => Err(refused(&found, path, |ty| {
            format!("scalable vectors (`{ty}`) are not supported: zyg differentiates and compiles fixed-width vectors only")
        })),
    }
}

/// Refuses, for a GPU, the float types only a CPU has (`x86_fp80`, C's `long double` on
/// x86; `fp128`, `ppc_fp128`): NVPTX has no form for them, and its backend stopped the
/// process on one ("unsupported library call operation").
pub fn refuse_host_floats(module: &Module<'_>, path: &Path) -> Result<()> {
    use LLVMTypeKind::*;
    let host = |k| matches!(k, LLVMX86_FP80TypeKind | LLVMFP128TypeKind | LLVMPPC_FP128TypeKind);
    match zyg_ir::llvm::find_type(module, host) {
        None => Ok(()),
        Some(found) => Err(refused(&found, path, |ty| {
            format!("`{ty}` (C's `long double` on x86) has no form on the GPU, which computes in `float` and `double`")
        })),
    }
}

/// The refusal of the type `found`, named with the instruction it is in.
fn refused(found: &zyg_ir::llvm::FoundType<'_>, path: &Path, message: impl Fn(&str) -> String) -> DriverError {
    let ty = found.ty.print_to_string().to_string();
    let instruction = found.instruction.map(|i| i.print_to_string().to_string());
    DriverError::Read {
        path: path.to_path_buf(),
        source: Box::new(zyg_ir::llvm::ReadError {
            function: found.owner.clone(),
            instruction,
            loc: None,
            message: message(&ty),
        }),
    }
}
