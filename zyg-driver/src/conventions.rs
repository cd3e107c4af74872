//! Reading the program's conventions (`zyg_transform::conventions`) from the LLVM module, in
//! every spelling Enzyme's users write them:
//!
//! - registration globals (any name containing the word): `__enzyme_inactivefn` and
//!   `__enzyme_inactivenoblockfn` (a function, or an array of functions),
//!   `__enzyme_inactive_global` (the address of a global, or an array of them),
//!   `__enzyme_function_like` (`{fn, "log1p"}`), `__enzyme_allocation_like` (`{allocator,
//!   size argument index, "deallocation argument indices", deallocator}`); a function
//!   declared like `free` is a deallocator, whose calls pass through;
//! - clang annotations in `@llvm.global.annotations`, from `__attribute__((annotate(...)))`
//!   and Enzyme's clang plugin: `enzyme_inactivefn`, `enzyme_inactivenoblockfn`,
//!   `enzyme_inactive` (a function or a global), `enzyme_function_like=NAME`, and zyg.h's
//!   `zyg_keep`;
//! - IR attributes: `"enzyme_inactive"` and `"enzyme_inactive_noblock"` on a function or on
//!   a call site, `"enzyme_math"="NAME"` on a function, and `!enzyme_inactive` metadata on a
//!   global (what Enzyme's own preprocessing leaves).
//!
//! A registration zyg cannot read is an error naming it, never skipped.

use crate::error::{DriverError, Result};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMAttributeFunctionIndex;
use inkwell::module::Module;
use inkwell::values::AsValueRef;
use std::path::Path;
use zyg_ir::llvm::value_name;
use zyg_transform::conventions::{Allocator, Conventions};

/// The module's conventions, and what else zyg.h marks.
#[derive(Debug, Default)]
pub struct Declared {
    pub conventions: Conventions,
    /// Functions marked `ZYG_KEEP` (`annotate("zyg_keep")`): kept out of line for zyg, given
    /// back to LLVM's optimiser in zyg's output (`inlining::release_kept`).
    pub kept: Vec<String>,
}

/// Reads every convention of the module.
pub fn read(module: &Module, path: &Path) -> Result<Declared> {
    let mut out = Declared::default();
    for global in module.get_globals() {
        let raw = global.as_value_ref();
        let name = global.get_name().to_string_lossy().into_owned();
        let fail = |message: String| DriverError::Request { path: path.to_path_buf(), message: format!("`@{name}`: {message}") };
        // SAFETY: `raw` is a global variable of the live module; its initializer and the
        // constants in it belong to the same module.
        unsafe {
            if has_metadata(raw, "enzyme_inactive") {
                out.conventions.inactive_globals.insert(name.clone());
            }
            let init = LLVMGetInitializer(raw);
            if name == "llvm.global.annotations" && !init.is_null() {
                read_annotations(init, &mut out).map_err(fail)?;
                continue;
            }
            let kind = ["__enzyme_inactivefn", "__enzyme_inactivenoblockfn", "__enzyme_inactive_global", "__enzyme_function_like", "__enzyme_allocation_like"]
                .into_iter()
                .find(|k| name.contains(k));
            let Some(kind) = kind else { continue };
            if init.is_null() {
                return Err(fail("a registration must be defined, with an initializer".into()));
            }
            let c = &mut out.conventions;
            match kind {
                "__enzyme_inactive_global" => {
                    for e in elements(init) {
                        let g = strip(e);
                        if LLVMIsAGlobalVariable(g).is_null() {
                            return Err(fail("it must hold the addresses of global variables".into()));
                        }
                        c.inactive_globals.insert(value_name(g));
                    }
                }
                "__enzyme_function_like" => read_function_like(init, c).map_err(fail)?,
                "__enzyme_allocation_like" => read_allocation_like(init, c).map_err(fail)?,
                _ => {
                    for e in elements(init) {
                        c.inactive_functions.insert(function(e).ok_or_else(|| fail("it must hold functions".into()))?);
                    }
                }
            }
        }
    }
    for f in module.get_functions() {
        let raw = f.as_value_ref();
        // SAFETY: `raw` is a function of the live module.
        unsafe {
            let name = value_name(raw);
            if ["enzyme_inactive", "enzyme_inactive_noblock"].iter().any(|a| string_attribute(raw, a).is_some()) {
                out.conventions.inactive_functions.insert(name.clone());
            }
            if let Some(like) = string_attribute(raw, "enzyme_math").filter(|s| !s.is_empty()) {
                check_function_like(raw, &like).map_err(|message| DriverError::Request {
                    path: path.to_path_buf(),
                    message: format!("`{name}` (attribute \"enzyme_math\"): {message}"),
                })?;
                out.conventions.function_like.insert(name, like);
            }
        }
    }
    Ok(out)
}

/// `@llvm.global.annotations`: `[{ annotated value, annotation string, file, line, args }]`.
unsafe fn read_annotations(init: LLVMValueRef, out: &mut Declared) -> std::result::Result<(), String> {
    for entry in elements(init) {
        if LLVMGetNumOperands(entry) < 2 {
            continue;
        }
        let target = strip(LLVMGetOperand(entry, 0));
        let Some(text) = c_string(LLVMGetOperand(entry, 1)) else { continue };
        let is_function = !LLVMIsAFunction(target).is_null();
        let name = value_name(target);
        let c = &mut out.conventions;
        match text.as_str() {
            "enzyme_inactivefn" | "enzyme_inactivenoblockfn" | "enzyme_inactive" if is_function => {
                c.inactive_functions.insert(name);
            }
            "enzyme_inactive" if !LLVMIsAGlobalVariable(target).is_null() => {
                c.inactive_globals.insert(name);
            }
            "zyg_keep" if is_function => out.kept.push(name),
            _ => {
                if let Some(like) = text.strip_prefix("enzyme_function_like=").filter(|_| is_function) {
                    check_function_like(target, like)?;
                    c.function_like.insert(name, like.to_string());
                }
            }
        }
    }
    Ok(())
}

/// `{fn, "name"}`: calls to fn take the derivative rule of the math function `name`.
unsafe fn read_function_like(init: LLVMValueRef, c: &mut Conventions) -> std::result::Result<(), String> {
    let e = elements(init);
    let shape = "it must hold {function, \"math function name\"}";
    let (Some(f), Some(like)) = (e.first().map(|v| strip(*v)), e.get(1).and_then(|v| c_string(*v))) else {
        return Err(shape.into());
    };
    if LLVMIsAFunction(f).is_null() {
        return Err(shape.into());
    }
    // Like `free`: a deallocator, whose calls pass through as `free`'s do.
    if like == "free" {
        c.inactive_functions.insert(value_name(f));
        return Ok(());
    }
    check_function_like(f, &like)?;
    c.function_like.insert(value_name(f), like);
    Ok(())
}

/// A function declared like the math function `like`: zyg must have its rule, of as many
/// arguments as the function has.
unsafe fn check_function_like(f: LLVMValueRef, like: &str) -> std::result::Result<(), String> {
    let name = value_name(f);
    let Some(rule) = zyg_transform::rules::family(like) else {
        let known: Vec<&str> = zyg_transform::rules::MATH_RULES.iter().map(|r| r.names[0]).collect();
        return Err(format!(
            "`{name}` is declared like `{like}`, but zyg has no derivative rule for `{like}`; it knows {}",
            known.join(", ")
        ));
    };
    let params = LLVMCountParams(f) as usize;
    if params != rule.arity {
        return Err(format!(
            "`{name}` is declared like `{like}`, which takes {} argument(s), but `{name}` takes {params}",
            rule.arity
        ));
    }
    Ok(())
}

/// `{allocator, size index, "deallocation indices", deallocator}`.
unsafe fn read_allocation_like(init: LLVMValueRef, c: &mut Conventions) -> std::result::Result<(), String> {
    let e = elements(init);
    let shape = "it must hold {allocator, (void *)size argument index, \"deallocation argument indices\", deallocator}";
    if e.len() != 4 {
        return Err(shape.into());
    }
    let (Some(alloc), Some(size_arg), Some(indices), Some(dealloc)) =
        (function(e[0]), integer(e[1]), c_string(e[2]), function(e[3]))
    else {
        return Err(shape.into());
    };
    if indices.split(',').any(|i| i.trim().parse::<i64>().is_err()) {
        return Err(format!("the deallocation argument indices \"{indices}\" must be integers separated by commas"));
    }
    let f = strip(e[0]);
    let params = LLVMCountParams(f) as usize;
    let size_ty = (size_arg < params as u64).then(|| LLVMTypeOf(LLVMGetParam(f, size_arg as u32)));
    if !size_ty.is_some_and(|t| LLVMGetTypeKind(t) == inkwell::llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind) {
        return Err(format!("argument {size_arg} of `{alloc}` must be its size in bytes, an integer"));
    }
    c.allocators.insert(alloc, Allocator { size_arg: size_arg as usize, deallocator: dealloc });
    Ok(())
}

/// The constants an initializer holds: the elements of an array or struct, or itself.
unsafe fn elements(init: LLVMValueRef) -> Vec<LLVMValueRef> {
    if LLVMIsAConstantArray(init).is_null() && LLVMIsAConstantStruct(init).is_null() {
        return vec![init];
    }
    (0..LLVMGetNumOperands(init).max(0) as u32).map(|i| LLVMGetOperand(init, i)).collect()
}

/// A constant with casts and address arithmetic taken off (`(void *)f`, `&s[0]`).
unsafe fn strip(mut v: LLVMValueRef) -> LLVMValueRef {
    while !LLVMIsAConstantExpr(v).is_null() && LLVMGetNumOperands(v) > 0 {
        v = LLVMGetOperand(v, 0);
    }
    v
}

unsafe fn function(v: LLVMValueRef) -> Option<String> {
    let f = strip(v);
    (!LLVMIsAFunction(f).is_null()).then(|| value_name(f))
}

/// `(void *)3`, or `(void *)0` (null).
unsafe fn integer(v: LLVMValueRef) -> Option<u64> {
    let v = strip(v);
    if !LLVMIsAConstantPointerNull(v).is_null() {
        return Some(0);
    }
    (!LLVMIsAConstantInt(v).is_null()).then(|| LLVMConstIntGetZExtValue(v))
}

/// The text of a C string constant (the global a string literal is).
unsafe fn c_string(v: LLVMValueRef) -> Option<String> {
    let g = strip(v);
    if LLVMIsAGlobalVariable(g).is_null() {
        return None;
    }
    let init = LLVMGetInitializer(g);
    if init.is_null() || LLVMIsAConstantDataSequential(init).is_null() || LLVMIsConstantString(init) == 0 {
        return None;
    }
    let mut len = 0usize;
    let bytes = LLVMGetAsString(init, &mut len);
    let text = String::from_utf8_lossy(std::slice::from_raw_parts(bytes as *const u8, len)).into_owned();
    Some(text.trim_end_matches('\0').to_string())
}

/// The value of string attribute `key` on function `f` (empty for one without a value).
unsafe fn string_attribute(f: LLVMValueRef, key: &str) -> Option<String> {
    let attr = LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, key.as_ptr().cast(), key.len() as u32);
    attribute_value(attr)
}

unsafe fn attribute_value(attr: LLVMAttributeRef) -> Option<String> {
    if attr.is_null() {
        return None;
    }
    let mut len = 0u32;
    let v = LLVMGetStringAttributeValue(attr, &mut len);
    Some(if v.is_null() { String::new() } else { String::from_utf8_lossy(std::slice::from_raw_parts(v as *const u8, len as usize)).into_owned() })
}

/// Whether global `g` carries metadata of kind `kind`.
unsafe fn has_metadata(g: LLVMValueRef, kind: &str) -> bool {
    let id = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(g)), kind.as_ptr().cast(), kind.len() as u32);
    let mut n = 0usize;
    let entries = LLVMGlobalCopyAllMetadata(g, &mut n);
    if entries.is_null() {
        return false;
    }
    let found = (0..n as u32).any(|i| LLVMValueMetadataEntriesGetKind(entries, i) == id);
    LLVMDisposeValueMetadataEntries(entries);
    found
}

/// Calls marked inactive at the call site (`"enzyme_inactive"`, as Julia emits): in the
/// prepared copy zyg reads, each such call of `f` is pointed at a declaration
/// `f.<namespace>.inactive`, which the conventions make inactive. Returns (that name, `f`)
/// for each, so that `restore_call_sites` points zyg's output back at `f`.
pub fn mark_call_sites(prepared: &Module, namespace: &str, conventions: &mut Conventions) -> Vec<(String, String)> {
    let mut aliases: Vec<(String, String)> = Vec::new();
    for f in prepared.get_functions() {
        for bb in f.get_basic_blocks() {
            for inst in bb.get_instructions() {
                let call = inst.as_value_ref();
                // SAFETY: `call` is an instruction of the live prepared module, and the
                // declaration added belongs to the same module.
                unsafe {
                    if LLVMIsACallInst(call).is_null() {
                        continue;
                    }
                    let callee = LLVMGetCalledValue(call);
                    let marked = ["enzyme_inactive", "enzyme_inactive_noblock"].iter().any(|key| {
                        !LLVMGetCallSiteStringAttribute(call, LLVMAttributeFunctionIndex, key.as_ptr().cast(), key.len() as u32)
                            .is_null()
                    });
                    if !marked || LLVMIsAFunction(callee).is_null() {
                        continue;
                    }
                    let target = value_name(callee);
                    if conventions.inactive_functions.contains(&target) {
                        continue;
                    }
                    let alias = format!("{target}.{namespace}.inactive");
                    let decl = match prepared.get_function(&alias) {
                        Some(d) => d.as_value_ref(),
                        None => {
                            let c_name = std::ffi::CString::new(alias.clone()).expect("LLVM names have no NUL");
                            LLVMAddFunction(prepared.as_mut_ptr(), c_name.as_ptr(), LLVMGlobalGetValueType(callee))
                        }
                    };
                    // The callee is a call's last operand.
                    LLVMSetOperand(call, (LLVMGetNumOperands(call) - 1) as u32, decl);
                    conventions.inactive_functions.insert(alias.clone());
                    if !aliases.iter().any(|(a, _)| *a == alias) {
                        aliases.push((alias, target));
                    }
                }
            }
        }
    }
    aliases
}

/// Points the calls zyg wrote to `mark_call_sites`' declarations back at their functions.
pub fn restore_call_sites(module: &Module, aliases: &[(String, String)]) {
    for (alias, target) in aliases {
        let (Some(decl), Some(f)) = (module.get_function(alias), module.get_function(target)) else { continue };
        // SAFETY: both are functions of the live module (pointers of one type); nothing
        // refers to the declaration once its uses are replaced.
        unsafe {
            LLVMReplaceAllUsesWith(decl.as_value_ref(), f.as_value_ref());
            decl.delete();
        }
    }
}
