//! Checks an input module passes before any LLVM pass, or zyg, sees it. LLVM's passes and
//! backends assume a module that verifies: given one that does not (taking the address of
//! an intrinsic, a use before its definition), they stop the process ("Broken module found,
//! compilation aborted") or crash. And scalable vectors (`<vscale x 4 x float>`) stop the
//! x86 and NVPTX backends and LLVM's size queries that zyg makes (`TypeSize` assertions):
//! zyg refuses them, naming the function and the instruction. A function's `target-cpu`
//! must name a CPU of the module's target (`target::check_function_cpus`).

use crate::error::{DriverError, Result};
use inkwell::llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::{LLVMDebugMetadataVersion, LLVMStripModuleDebugInfo};
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMTypeKind;
use inkwell::module::Module;
use std::collections::HashMap;
use std::path::Path;
use zyg_ir::llvm::{take_message, value_name};

/// Sets LLVM's options for reading, once, before the first module is parsed: LLVM's
/// "auto-upgrade" of debug info verifies a module with current debug info while parsing
/// it, and stops the process if it is broken; zyg verifies it itself (`check`) and says so.
pub fn configure_reader() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let args = [c"zyg".as_ptr(), c"-disable-auto-upgrade-debug-info".as_ptr()];
        // SAFETY: two NUL-terminated strings that live for the whole call; the option exists
        // in every LLVM 22 build (lib/IR/AutoUpgrade.cpp).
        unsafe { inkwell::llvm_sys::support::LLVMParseCommandLineOptions(2, args.as_ptr(), c"".as_ptr()) };
    });
}

/// Verifies a module just read, and refuses what zyg cannot take. Debug info is handled as
/// LLVM's reader would have (see `configure_reader`): dropped, with a warning, when its
/// version is not LLVM 22's or when it is invalid while the rest of the module is valid.
pub fn check(module: &Module<'_>, path: &Path) -> Result<()> {
    let m = module.as_mut_ptr();
    // SAFETY: `m` is a live module; the verifier only reads it.
    let first = unsafe { verify(m) };
    // SAFETY: as above; `debug_version` reads the flags without trusting their shape.
    let version = unsafe { debug_version(m) };
    // SAFETY: a constant of the library.
    let current = unsafe { LLVMDebugMetadataVersion() };
    match first {
        None if version == current => {}
        None => {
            // SAFETY: stripping debug info from a valid module.
            if unsafe { LLVMStripModuleDebugInfo(m) } != 0 {
                tracing::warn!("{}: ignoring debug info of version {version} (LLVM 22 reads version {current})", path.display());
            }
        }
        Some(message) => {
            // SAFETY: as above; on an invalid module stripping only removes debug records
            // and attachments, and the second verification says whether that was all.
            let stripped = unsafe { LLVMStripModuleDebugInfo(m) } != 0;
            match stripped.then(|| unsafe { verify(m) }) {
                Some(None) => tracing::warn!("{}: ignoring invalid debug info", path.display()),
                Some(Some(rest)) => return Err(invalid(path, rest)),
                None => return Err(invalid(path, message)),
            }
        }
    }
    refuse_scalable_vectors(module, path)?;
    crate::target::check_function_cpus(module, &crate::target::triple_of(module), path)
}

/// The module's "Debug Info Version" flag, 0 when it has none. LLVM's own reading
/// (`LLVMGetModuleDebugMetadataVersion`) assumes well-formed flags and crashed on a flag
/// of two operands (found by the llvm_module fuzz target): this one checks each flag's
/// shape, as the verifier does.
///
/// # Safety
/// `m` must be a live module.
unsafe fn debug_version(m: LLVMModuleRef) -> u32 {
    let name = c"llvm.module.flags";
    let n = LLVMGetNamedMetadataNumOperands(m, name.as_ptr()) as usize;
    let mut flags = vec![std::ptr::null_mut(); n];
    LLVMGetNamedMetadataOperands(m, name.as_ptr(), flags.as_mut_ptr());
    for flag in flags.into_iter().filter(|f| !f.is_null()) {
        if LLVMGetMDNodeNumOperands(flag) != 3 {
            continue;
        }
        let mut ops = [std::ptr::null_mut(); 3];
        LLVMGetMDNodeOperands(flag, ops.as_mut_ptr());
        if ops[1].is_null() || ops[2].is_null() {
            continue;
        }
        let mut len = 0u32;
        let key = LLVMGetMDString(ops[1], &mut len);
        if key.is_null() || std::slice::from_raw_parts(key.cast::<u8>(), len as usize) != b"Debug Info Version" {
            continue;
        }
        if !LLVMIsAConstantInt(ops[2]).is_null() {
            return u32::try_from(LLVMConstIntGetZExtValue(ops[2])).unwrap_or(u32::MAX);
        }
    }
    0
}

fn invalid(path: &Path, message: String) -> DriverError {
    DriverError::Invalid { path: path.to_path_buf(), message: message.trim_end().to_string() }
}

/// LLVM's verifier's report, or `None` when the module is valid.
///
/// # Safety
/// `m` must be a live module.
unsafe fn verify(m: LLVMModuleRef) -> Option<String> {
    let mut message = std::ptr::null_mut();
    let broken = LLVMVerifyModule(m, LLVMVerifierFailureAction::LLVMReturnStatusAction, &mut message) != 0;
    let text = take_message(message);
    broken.then_some(text)
}

/// Refuses a module that uses scalable vectors anywhere: in a global, a signature, an
/// instruction's result or operand, an allocation or an address computation.
fn refuse_scalable_vectors(module: &Module<'_>, path: &Path) -> Result<()> {
    let scalable = |k| k == LLVMTypeKind::LLVMScalableVectorTypeKind;
    match find_type(module, scalable) {
        None => Ok(()),
        Some(found) => Err(found.refused(path, |ty| {
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
    match find_type(module, host) {
        None => Ok(()),
        Some(found) => Err(found.refused(path, |ty| {
            format!("`{ty}` (C's `long double` on x86) has no form on the GPU, which computes in `float` and `double`")
        })),
    }
}

/// Where a type first appears in a module: in a function (or a global), in an instruction
/// or the signature.
struct Found {
    owner: String,
    instruction: Option<LLVMValueRef>,
    ty: LLVMTypeRef,
}

impl Found {
    fn refused(&self, path: &Path, message: impl Fn(&str) -> String) -> DriverError {
        // SAFETY: a live type and instruction; LLVM's strings are copied and freed.
        let (ty, instruction) = unsafe {
            (take_message(LLVMPrintTypeToString(self.ty)), self.instruction.map(|i| take_message(LLVMPrintValueToString(i))))
        };
        DriverError::Read {
            path: path.to_path_buf(),
            source: Box::new(zyg_ir::llvm::ReadError { function: self.owner.clone(), instruction, loc: None, message: message(&ty) }),
        }
    }
}

/// The first type of a kind `wanted` accepts in the module: in a global, a signature, an
/// instruction's result or operand, an allocation or an address computation.
fn find_type(module: &Module<'_>, wanted: impl Fn(LLVMTypeKind) -> bool) -> Option<Found> {
    let mut search = TypeSearch { wanted: &wanted, seen: HashMap::new() };
    // SAFETY: walking the live module's globals, functions, blocks and instructions.
    unsafe {
        let m = module.as_mut_ptr();
        let mut g = LLVMGetFirstGlobal(m);
        while !g.is_null() {
            if let Some(ty) = search.find(LLVMGlobalGetValueType(g)) {
                return Some(Found { owner: format!("global `@{}`", value_name(g)), instruction: None, ty });
            }
            g = LLVMGetNextGlobal(g);
        }
        let mut f = LLVMGetFirstFunction(m);
        while !f.is_null() {
            if let Some(ty) = search.find(LLVMGlobalGetValueType(f)) {
                return Some(Found { owner: value_name(f), instruction: None, ty });
            }
            let mut bb = LLVMGetFirstBasicBlock(f);
            while !bb.is_null() {
                let mut inst = LLVMGetFirstInstruction(bb);
                while !inst.is_null() {
                    if let Some(ty) = search.in_instruction(inst) {
                        return Some(Found { owner: value_name(f), instruction: Some(inst), ty });
                    }
                    inst = LLVMGetNextInstruction(inst);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
            f = LLVMGetNextFunction(f);
        }
    }
    None
}

/// A search for types of the kinds `wanted` accepts, inside other types, remembering what
/// each type was found to hold.
struct TypeSearch<'a> {
    wanted: &'a dyn Fn(LLVMTypeKind) -> bool,
    seen: HashMap<LLVMTypeRef, bool>,
}

impl TypeSearch<'_> {
    /// A wanted type in `inst`'s result, operands, allocated or indexed type.
    ///
    /// # Safety
    /// `inst` must be a live instruction.
    unsafe fn in_instruction(&mut self, inst: LLVMValueRef) -> Option<LLVMTypeRef> {
        let mut types = vec![LLVMTypeOf(inst)];
        for i in 0..LLVMGetNumOperands(inst).max(0) as u32 {
            let op = LLVMGetOperand(inst, i);
            if !op.is_null() {
                types.push(LLVMTypeOf(op));
            }
        }
        if !LLVMIsAAllocaInst(inst).is_null() {
            types.push(LLVMGetAllocatedType(inst));
        }
        if !LLVMIsAGetElementPtrInst(inst).is_null() {
            types.push(LLVMGetGEPSourceElementType(inst));
        }
        if !LLVMIsACallInst(inst).is_null() || !LLVMIsAInvokeInst(inst).is_null() {
            types.push(LLVMGetCalledFunctionType(inst));
        }
        types.into_iter().find_map(|t| self.find(t))
    }

    /// The wanted type `t` is or holds, if any.
    ///
    /// # Safety
    /// `t` must be a live type.
    unsafe fn find(&mut self, t: LLVMTypeRef) -> Option<LLVMTypeRef> {
        if self.seen.get(&t) == Some(&false) {
            return None;
        }
        let kind = LLVMGetTypeKind(t);
        let found = match kind {
            _ if (self.wanted)(kind) => Some(t),
            LLVMTypeKind::LLVMVectorTypeKind | LLVMTypeKind::LLVMScalableVectorTypeKind | LLVMTypeKind::LLVMArrayTypeKind => {
                self.find(LLVMGetElementType(t))
            }
            LLVMTypeKind::LLVMStructTypeKind => {
                // Marked first: a struct's fields cannot hold the struct itself (pointers are
                // opaque), but a guard costs nothing.
                self.seen.insert(t, false);
                (0..LLVMCountStructElementTypes(t)).find_map(|i| self.find(LLVMStructGetTypeAtIndex(t, i)))
            }
            LLVMTypeKind::LLVMFunctionTypeKind => {
                let n = LLVMCountParamTypes(t) as usize;
                let mut params = vec![std::ptr::null_mut(); n];
                LLVMGetParamTypes(t, params.as_mut_ptr());
                std::iter::once(LLVMGetReturnType(t)).chain(params).find_map(|p| self.find(p))
            }
            _ => None,
        };
        self.seen.insert(t, found.is_some());
        found
    }
}
