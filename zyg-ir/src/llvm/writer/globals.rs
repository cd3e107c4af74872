//! Global variables the writer defines (shadows, zeroed or in GPU shared memory) and the
//! initialiser of a shadow global that mirrors its primal's addresses.

use crate::llvm::raw::{find_global, global_name, llvm_type};
use crate::types::Type;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMLinkage, LLVMOpcode};
use std::collections::HashMap;
use std::ffi::CString;

/// Defines global `name` of type `ty`, zero-initialised, unless `module` already defines it.
/// A declaration already there (a C program's `extern double __zyg_shadow_g[4];`) becomes
/// the definition, visible to the program; otherwise the global is internal.
/// With `thread_local`, each thread has its own.
pub fn define_zeroed_global(module: &inkwell::module::Module<'_>, name: &str, ty: &Type, thread_local: bool) {
    define_global(module, name, ty, 0, thread_local);
}

/// Defines global `name` of type `ty` in a GPU's shared memory (`SHARED_MEMORY`), internal
/// and uninitialised: shared memory has no initial contents (it is per block, and CUDA
/// refuses initialisers); the code that uses it zeroes it.
pub fn define_shared_global(module: &inkwell::module::Module<'_>, name: &str, ty: &Type) {
    define_global(module, name, ty, crate::SHARED_MEMORY, false);
}

fn define_global(module: &inkwell::module::Module<'_>, name: &str, ty: &Type, space: u32, thread_local: bool) {
    let cname = CString::new(name).expect("global names have no NUL");
    // SAFETY: the module and its context are alive; the global is created in them.
    unsafe {
        let m = module.as_mut_ptr();
        let lty = llvm_type(LLVMGetModuleContext(m), ty);
        let mut g = LLVMGetNamedGlobal(m, cname.as_ptr());
        if g.is_null() {
            g = LLVMAddGlobalInAddressSpace(m, lty, cname.as_ptr(), space);
            LLVMSetLinkage(g, LLVMLinkage::LLVMInternalLinkage);
        } else if LLVMIsDeclaration(g) == 0 {
            return;
        }
        // A declaration of another type keeps its own: zero of that type.
        let value_ty = LLVMGlobalGetValueType(g);
        if space == crate::SHARED_MEMORY {
            LLVMSetInitializer(g, LLVMGetUndef(value_ty));
            // An explicit alignment: without one, LLVM's optimiser assumes the data layout's
            // preferred one (16 bytes for a large array) while the NVPTX printer places the
            // array at its type's (4 for floats), and a vector access would be misaligned.
            LLVMSetAlignment(g, 16);
        } else {
            LLVMSetInitializer(g, LLVMConstNull(value_ty));
        }
        LLVMSetThreadLocal(g, i32::from(thread_local));
    }
}

/// Gives the shadow global `shadow` (already defined, zero) the initialiser that mirrors
/// `primal`'s: where `primal` holds the address of a global that `shadow_of` gives a shadow
/// (at some offset), `shadow` holds that shadow's address (at the same offset); everything
/// else is zero or null (a pointer to a function or a constant: nothing differentiated).
/// Left zero where `primal` has no initialiser or the program declared `shadow` with
/// another type.
pub fn mirror_initializer(
    module: &inkwell::module::Module<'_>,
    shadow: &str,
    primal: &str,
    shadow_of: &dyn Fn(&str) -> Option<String>,
) {
    // SAFETY: the module and its context are alive; every constant built belongs to them.
    unsafe {
        let m = module.as_mut_ptr();
        let (Some(s), Some(p)) = (find_global(m, shadow), find_global(m, primal)) else { return };
        let init = LLVMGetInitializer(p);
        if init.is_null() || LLVMIsDeclaration(s) != 0 {
            return;
        }
        let Some(mirrored) = mirror(m, init, shadow_of, &mut HashMap::new()) else { return };
        let ty = LLVMTypeOf(mirrored);
        let s = if LLVMGlobalGetValueType(s) == ty {
            s
        } else {
            // The program declared the shadow with the named struct type while the
            // initialiser has a literal one (clang's, with padding fields): the same bytes.
            // Pointers are opaque, so a global of the initialiser's type takes its place.
            use inkwell::llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout};
            let data_layout = LLVMGetModuleDataLayout(m);
            if LLVMABISizeOfType(data_layout, ty) != LLVMABISizeOfType(data_layout, LLVMGlobalGetValueType(s)) {
                return;
            }
            let name = CString::new(shadow).expect("global names have no NUL");
            let replacement = LLVMAddGlobalInAddressSpace(m, ty, c"".as_ptr(), LLVMGetPointerAddressSpace(LLVMTypeOf(s)));
            LLVMSetLinkage(replacement, LLVMGetLinkage(s));
            LLVMSetAlignment(replacement, LLVMGetAlignment(s));
            LLVMSetThreadLocal(replacement, LLVMIsThreadLocal(s));
            LLVMReplaceAllUsesWith(s, replacement);
            LLVMDeleteGlobal(s);
            LLVMSetValueName2(replacement, name.as_ptr(), shadow.len());
            replacement
        };
        LLVMSetInitializer(s, mirrored);
    }
}

/// The shadow of constant `c` (`mirror_initializer`); None where it is all zero. Each
/// distinct constant is mirrored once (`done`: LLVM shares them), so a large initialiser
/// costs its size; all of it is mirrored, since a pointer left null would make reads
/// through it constants.
unsafe fn mirror(
    m: LLVMModuleRef,
    c: LLVMValueRef,
    shadow_of: &dyn Fn(&str) -> Option<String>,
    done: &mut HashMap<LLVMValueRef, Option<LLVMValueRef>>,
) -> Option<LLVMValueRef> {
    if let Some(known) = done.get(&c) {
        return *known;
    }
    let mirrored = mirror_once(m, c, shadow_of, done);
    done.insert(c, mirrored);
    mirrored
}

unsafe fn mirror_once(
    m: LLVMModuleRef,
    c: LLVMValueRef,
    shadow_of: &dyn Fn(&str) -> Option<String>,
    done: &mut HashMap<LLVMValueRef, Option<LLVMValueRef>>,
) -> Option<LLVMValueRef> {
    let ty = LLVMTypeOf(c);
    if !LLVMIsAGlobalVariable(c).is_null() {
        let name = global_name(c).ok()?;
        return find_global(m, &shadow_of(&name)?);
    }
    if !LLVMIsAConstantExpr(c).is_null() && LLVMGetConstOpcode(c) == LLVMOpcode::LLVMGetElementPtr {
        let base = mirror(m, LLVMGetOperand(c, 0), shadow_of, done)?;
        let mut indices: Vec<LLVMValueRef> = (1..LLVMGetNumOperands(c).max(1)).map(|k| LLVMGetOperand(c, k as u32)).collect();
        let flags = LLVMGEPGetNoWrapFlags(c);
        return Some(LLVMConstGEPWithNoWrapFlags(
            LLVMGetGEPSourceElementType(c),
            base,
            indices.as_mut_ptr(),
            indices.len() as u32,
            flags,
        ));
    }
    let aggregate =
        !LLVMIsAConstantStruct(c).is_null() || !LLVMIsAConstantArray(c).is_null() || !LLVMIsAConstantVector(c).is_null();
    if !aggregate {
        return None;
    }
    let n = LLVMGetNumOperands(c).max(0) as u32;
    let fields: Vec<Option<LLVMValueRef>> = (0..n).map(|k| mirror(m, LLVMGetOperand(c, k), shadow_of, done)).collect();
    if fields.iter().all(Option::is_none) {
        return None;
    }
    let mut values: Vec<LLVMValueRef> =
        (0..n).zip(fields).map(|(k, f)| f.unwrap_or_else(|| LLVMConstNull(LLVMTypeOf(LLVMGetOperand(c, k))))).collect();
    Some(match LLVMGetTypeKind(ty) {
        inkwell::llvm_sys::LLVMTypeKind::LLVMStructTypeKind if !LLVMGetStructName(ty).is_null() => {
            LLVMConstNamedStruct(ty, values.as_mut_ptr(), n)
        }
        inkwell::llvm_sys::LLVMTypeKind::LLVMStructTypeKind => {
            LLVMConstStructInContext(LLVMGetModuleContext(m), values.as_mut_ptr(), n, LLVMIsPackedStruct(ty))
        }
        inkwell::llvm_sys::LLVMTypeKind::LLVMArrayTypeKind => {
            LLVMConstArray2(LLVMGetElementType(ty), values.as_mut_ptr(), u64::from(n))
        }
        _ => LLVMConstVector(values.as_mut_ptr(), n),
    })
}
