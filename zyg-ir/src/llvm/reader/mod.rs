//! Reads LLVM functions into zyg-ir. Unknown instructions are errors that name the
//! function, the instruction and its source line; they never panic or pass silently.
//! Here: which functions and globals are read; one function in `function.rs`, one
//! instruction in `inst.rs`, constants in `constant.rs`.

mod constant;
mod function;
mod inst;

use super::raw::{find_global, global_name, read_type};
use crate::function::{GlobalVar, Module};
use crate::types::Signature;
use function::FunctionReader;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::values::AsValueRef;
use std::collections::{BTreeMap, VecDeque};

/// Why a function could not be read.
pub type ReadError = crate::diagnostic::Diagnostic;

/// The functions read, and those that could not be read (kept for diagnostics: they are an
/// error only if the transform has to differentiate through them).
#[derive(Debug, Default)]
pub struct ReadModule {
    pub module: Module,
    pub unreadable: BTreeMap<String, ReadError>,
}

/// Reads the named functions and every defined function they call, transitively. Called
/// functions without a body (and unreadable ones) become declarations.
pub fn read_functions(module: &inkwell::module::Module<'_>, roots: &[String]) -> ReadModule {
    let mut out = ReadModule::default();
    let mut queue: VecDeque<String> = roots.iter().cloned().collect();
    let mut seen: std::collections::HashSet<String> = queue.iter().cloned().collect();
    while let Some(name) = queue.pop_front() {
        // SAFETY: looking a name up in the live module.
        let Some(raw) = (unsafe { find_global(module.as_mut_ptr(), &name) }) else { continue };
        // SAFETY: `raw` is a global value of the live module.
        if unsafe { LLVMIsAFunction(raw).is_null() } {
            continue;
        }
        // SAFETY: `raw` is a function of the live module.
        let is_declaration = unsafe { LLVMIsDeclaration(raw) != 0 };
        match (!is_declaration).then(|| FunctionReader::read(raw)) {
            Some(Ok((func, callees))) => {
                for (callee, sig) in callees {
                    // SAFETY: looking a name up in the live module; the value found belongs to it.
                    let callee_fn =
                        unsafe { find_global(module.as_mut_ptr(), &callee).and_then(|v| inkwell::values::FunctionValue::new(v)) };
                    if callee_fn.is_some_and(touches_no_visible_memory) {
                        out.module.pure.insert(callee.clone());
                    }
                    out.module.declarations.entry(callee.clone()).or_insert(sig);
                    if seen.insert(callee.clone()) {
                        queue.push_back(callee);
                    }
                }
                out.module.functions.push(func);
            }
            Some(Err(err)) => {
                out.unreadable.insert(name, err);
            }
            // A declaration asked for by name (a callback a request passes) is known by its
            // signature, as the functions called are.
            // SAFETY: `raw` is a function of the live module.
            None => {
                if let Ok(sig) = unsafe { read_signature(LLVMGlobalGetValueType(raw)) } {
                    out.module.declarations.entry(name).or_insert(sig);
                }
            }
        }
    }
    out.module.globals = read_globals(module);
    let defined: Vec<String> = out.module.functions.iter().map(|f| f.name.clone()).collect();
    for name in defined {
        out.module.declarations.remove(&name);
        out.module.pure.remove(&name);
    }
    out
}

/// Whether a function's `memory` attribute says it neither reads nor writes memory the
/// program can see: nothing through its pointer arguments and nothing else but inaccessible
/// memory, errno, and target-specific state. The attribute packs two mod/ref bits per
/// location (LLVM's `IRMemLocation`): argument memory is bits 0-1, other memory bits 6-7.
fn touches_no_visible_memory(f: inkwell::values::FunctionValue<'_>) -> bool {
    use inkwell::attributes::{Attribute, AttributeLoc};
    const ARGUMENT_MEMORY: u64 = 0b11;
    const OTHER_MEMORY: u64 = 0b11 << 6;
    let kind = Attribute::get_named_enum_kind_id("memory");
    f.get_enum_attribute(AttributeLoc::Function, kind).is_some_and(|a| a.get_enum_value() & (ARGUMENT_MEMORY | OTHER_MEMORY) == 0)
}

/// The module's global variables of types zyg can represent (the others cannot hold
/// anything zyg differentiates).
fn read_globals(module: &inkwell::module::Module<'_>) -> BTreeMap<String, GlobalVar> {
    let mut out = BTreeMap::new();
    for g in module.get_globals() {
        let raw = g.as_value_ref();
        // SAFETY: `raw` is a global variable of the live module.
        unsafe {
            if let (Ok(ty), Ok(name)) = (read_type(LLVMGlobalGetValueType(raw)), global_name(raw)) {
                let addrspace = LLVMGetPointerAddressSpace(LLVMTypeOf(raw));
                let points_to = addresses_in(LLVMGetInitializer(raw));
                out.insert(
                    name,
                    GlobalVar { ty, constant: LLVMIsGlobalConstant(raw) != 0, addrspace, inactive: false, points_to },
                );
            }
        }
    }
    out
}

/// The global variables whose addresses constant `init` holds (in its fields, elements and
/// address arithmetic), each once. Each distinct constant is visited once (LLVM shares
/// them), so a large initialiser costs its size, and all of it is read: a global missed
/// here would get a null shadow, and reads through it would lose their derivatives.
///
/// # Safety
/// `init` is null or a constant of a live module.
unsafe fn addresses_in(init: LLVMValueRef) -> Vec<String> {
    let (mut out, mut todo, mut seen) = (Vec::new(), vec![init], std::collections::HashSet::new());
    while let Some(c) = todo.pop() {
        if c.is_null() || !seen.insert(c) {
            continue;
        }
        if !LLVMIsAGlobalVariable(c).is_null() {
            out.extend(global_name(c).ok());
        } else if LLVMIsAGlobalValue(c).is_null() {
            // Functions and aliases hold no derivatives; data arrays have no operands.
            todo.extend((0..LLVMGetNumOperands(c).max(0)).map(|k| LLVMGetOperand(c, k as u32)));
        }
    }
    out
}

/// The signature of a function of a live module.
pub fn signature_of(f: inkwell::values::FunctionValue<'_>) -> Result<Signature, String> {
    // SAFETY: `f` is a function of a live module; its value type is a function type.
    unsafe { read_signature(LLVMGlobalGetValueType(f.as_value_ref())) }
}

/// The signature of an LLVM function type.
unsafe fn read_signature(fn_ty: LLVMTypeRef) -> Result<Signature, String> {
    let n = LLVMCountParamTypes(fn_ty);
    let mut params = vec![std::ptr::null_mut(); n as usize];
    LLVMGetParamTypes(fn_ty, params.as_mut_ptr());
    Ok(Signature {
        params: params.into_iter().map(read_type).collect::<Result<_, _>>()?,
        ret: read_type(LLVMGetReturnType(fn_ty))?,
        variadic: LLVMIsFunctionVarArg(fn_ty) != 0,
    })
}
