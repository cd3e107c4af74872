//! Calls through function pointers and vtables (C++ virtual calls, tables of callbacks):
//! in the copy of the module zyg reads, each indirect call becomes a direct call of a
//! *dispatcher*, a function that compares the pointer with every function of the call's
//! type whose address the module takes and calls the one it is, directly. zyg then
//! differentiates the dispatcher like any function with branches, and each possible
//! callee through its own primal and adjoint; the derivative of the call is that of the
//! function it reached at run time. (Enzyme's way is shadow function pointers: tables of
//! derivative functions reached through the shadow of the pointer. Comparing pointers needs
//! no shadow vtables, so objects built outside the differentiated code, or shadows filled
//! in by hand, dispatch the same way.)
//!
//! A pointer to none of the candidates (a function of another module or library) reaches
//! the dispatcher's last branch, which still calls through the pointer, its callee passed
//! through `marker` (`ptr marker(ptr)`, the identity): zyg recognises it, and where that
//! call would need a derivative the generated code stops the program with a message
//! rather than compute a wrong one. The pointer given to the dispatcher goes through the
//! marker too: zyg takes the marker's calls as inactive, so no shadow of the pointer (no
//! shadow vtable) is looked for. `restore` undoes the rewrite in zyg's output, for the
//! calls zyg copied without differentiating them, and drops the marker.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMLinkage, LLVMOpcode, LLVMTailCallKind, LLVMTypeKind};
use inkwell::module::Module;
use std::collections::HashMap;
use std::ffi::CString;

/// Calls with more candidates than this stay indirect (zyg refuses them where they are
/// active): a chain of comparisons this long is no longer the cheap dispatch it replaces.
pub const MAX_CANDIDATES: usize = 32;

/// A dispatcher made by `dispatch_indirect_calls`.
pub struct Dispatcher {
    pub name: String,
    /// Where the call it stands for was: "file:line:column (in `function`)".
    pub site: String,
}

/// Rewrites every indirect call of the module's defined functions that has candidates (see
/// the module's comment) into a call of a dispatcher named `{prefix}.dispatch.N`.
pub fn dispatch_indirect_calls(module: &Module<'_>, prefix: &str, marker: &str) -> Vec<Dispatcher> {
    let raw = module.as_mut_ptr();
    // SAFETY: every handle below belongs to the live module and its context; instructions
    // are collected before any is replaced, and each is erased once its uses are replaced.
    unsafe {
        let candidates = address_taken_by_type(raw, prefix);
        let mut sites = Vec::new();
        let mut f = LLVMGetFirstFunction(raw);
        while !f.is_null() {
            let mut b = LLVMGetFirstBasicBlock(f);
            while !b.is_null() {
                let mut i = LLVMGetFirstInstruction(b);
                while !i.is_null() {
                    if let Some(list) = indirect_call(i).and_then(|ty| candidates.get(&ty)) {
                        if list.len() <= MAX_CANDIDATES {
                            sites.push((i, list.clone()));
                        }
                    }
                    i = LLVMGetNextInstruction(i);
                }
                b = LLVMGetNextBasicBlock(b);
            }
            f = LLVMGetNextFunction(f);
        }
        let ctx = LLVMGetModuleContext(raw);
        let builder = LLVMCreateBuilderInContext(ctx);
        let marker = marker_function(raw, ctx, marker);
        let mut made_dispatchers = Vec::new();
        for (n, (call, list)) in sites.iter().enumerate() {
            let name = format!("{prefix}.dispatch.{n}");
            made_dispatchers.push(Dispatcher { name: name.clone(), site: site_of(*call) });
            let dispatcher = build_dispatcher(raw, ctx, builder, *call, list, marker, &name);
            LLVMPositionBuilderBefore(builder, *call);
            // The pointer goes through the marker, which zyg takes as inactive: the
            // dispatcher only compares it, so it needs no shadow (a shadow vtable).
            let mut fp = [LLVMGetCalledValue(*call)];
            let fp = LLVMBuildCall2(builder, LLVMGlobalGetValueType(marker), marker, fp.as_mut_ptr(), 1, c"".as_ptr());
            let made = rebuild_call(builder, *call, dispatcher, LLVMGlobalGetValueType(dispatcher), Some(fp));
            LLVMSetInstructionCallConv(made, 0);
            LLVMReplaceAllUsesWith(*call, made);
            LLVMInstructionEraseFromParent(*call);
        }
        LLVMDisposeBuilder(builder);
        made_dispatchers
    }
}

/// "file:line:column (in `function`)" of an instruction, as far as its debug location says.
unsafe fn site_of(inst: LLVMValueRef) -> String {
    let function = super::value_name(LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst)));
    let mut len = 0;
    let file = LLVMGetDebugLocFilename(inst, &mut len);
    if file.is_null() || len == 0 {
        return format!("in function `{function}`");
    }
    let file = String::from_utf8_lossy(std::slice::from_raw_parts(file.cast::<u8>(), len as usize));
    format!("{file}:{}:{} (in function `{function}`)", LLVMGetDebugLocLine(inst), LLVMGetDebugLocColumn(inst))
}

/// In zyg's output: each remaining call of a dispatcher (one zyg copied without
/// differentiating it) calls through its pointer again, and each call of `marker` is
/// replaced by its argument; the dispatchers and the marker are deleted.
pub fn restore(module: &Module<'_>, prefix: &str, marker: &str) {
    let raw = module.as_mut_ptr();
    let dispatch_prefix = format!("{prefix}.dispatch.");
    // A dispatcher itself, not a function zyg generated from one (`….dispatch.0.zyg.primal`).
    let is_dispatcher =
        |name: &str| name.strip_prefix(&dispatch_prefix).is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    // SAFETY: as in `dispatch_indirect_calls`; a function is deleted only when no use of
    // it is left.
    unsafe {
        let ctx = LLVMGetModuleContext(raw);
        let builder = LLVMCreateBuilderInContext(ctx);
        let mut f = LLVMGetFirstFunction(raw);
        while !f.is_null() {
            let next = LLVMGetNextFunction(f);
            let name = super::value_name(f);
            if name == marker {
                for user in users(f) {
                    if is_call(user) && LLVMGetCalledValue(user) == f {
                        LLVMReplaceAllUsesWith(user, LLVMGetOperand(user, 0));
                        LLVMInstructionEraseFromParent(user);
                    }
                }
            } else if is_dispatcher(&name) {
                let ty = LLVMGlobalGetValueType(f);
                let mut params: Vec<LLVMTypeRef> = vec![std::ptr::null_mut(); LLVMCountParamTypes(ty) as usize];
                LLVMGetParamTypes(ty, params.as_mut_ptr());
                let original = LLVMFunctionType(LLVMGetReturnType(ty), params[1..].as_mut_ptr(), params.len() as u32 - 1, 0);
                for user in users(f) {
                    if !is_call(user) || LLVMGetCalledValue(user) != f {
                        continue;
                    }
                    LLVMPositionBuilderBefore(builder, user);
                    let fp = LLVMGetOperand(user, 0);
                    let made = unshift_call(builder, user, fp, original);
                    LLVMReplaceAllUsesWith(user, made);
                    LLVMInstructionEraseFromParent(user);
                }
            }
            f = next;
        }
        LLVMDisposeBuilder(builder);
        let mut f = LLVMGetFirstFunction(raw);
        while !f.is_null() {
            let next = LLVMGetNextFunction(f);
            let name = super::value_name(f);
            if (name == marker || is_dispatcher(&name)) && LLVMGetFirstUse(f).is_null() {
                LLVMDeleteFunction(f);
            }
            f = next;
        }
    }
}

/// Whether `v` is a call or invoke instruction.
unsafe fn is_call(v: LLVMValueRef) -> bool {
    !LLVMIsAInstruction(v).is_null() && matches!(LLVMGetInstructionOpcode(v), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke)
}

/// The instructions that use `v`.
unsafe fn users(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut u = LLVMGetFirstUse(v);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        if !LLVMIsAInstruction(user).is_null() && !out.contains(&user) {
            out.push(user);
        }
        u = LLVMGetNextUse(u);
    }
    out
}

/// The function type of `inst` when it is a call or invoke through a pointer that a
/// dispatcher can stand for: not inline assembly, not variadic, not `musttail`, without
/// operand bundles.
unsafe fn indirect_call(inst: LLVMValueRef) -> Option<LLVMTypeRef> {
    let op = LLVMGetInstructionOpcode(inst);
    if op != LLVMOpcode::LLVMCall && op != LLVMOpcode::LLVMInvoke {
        return None;
    }
    let callee = LLVMGetCalledValue(inst);
    if !LLVMIsAFunction(callee).is_null() || !LLVMIsAInlineAsm(callee).is_null() || LLVMGetNumOperandBundles(inst) != 0 {
        return None;
    }
    if op == LLVMOpcode::LLVMCall && LLVMGetTailCallKind(inst) == LLVMTailCallKind::LLVMTailCallKindMustTail {
        return None;
    }
    let ty = LLVMGetCalledFunctionType(inst);
    (LLVMIsFunctionVarArg(ty) == 0).then_some(ty)
}

/// The module's functions whose address is taken (used other than as a call's callee),
/// by function type: the candidates of an indirect call of that type. Intrinsics and
/// zyg's own functions are not candidates.
unsafe fn address_taken_by_type(module: LLVMModuleRef, prefix: &str) -> HashMap<LLVMTypeRef, Vec<LLVMValueRef>> {
    let mut out: HashMap<LLVMTypeRef, Vec<LLVMValueRef>> = HashMap::new();
    let mut f = LLVMGetFirstFunction(module);
    while !f.is_null() {
        let name = super::value_name(f);
        if !name.starts_with("llvm.") && !name.starts_with(prefix) && address_taken(f) {
            out.entry(LLVMGlobalGetValueType(f)).or_default().push(f);
        }
        f = LLVMGetNextFunction(f);
    }
    out
}

unsafe fn address_taken(f: LLVMValueRef) -> bool {
    let mut u = LLVMGetFirstUse(f);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        if !is_call(user) || (0..LLVMGetNumArgOperands(user)).any(|i| LLVMGetOperand(user, i) == f) {
            return true;
        }
        u = LLVMGetNextUse(u);
    }
    false
}

/// `ptr marker(ptr)`, declared once: nothing to the optimiser but a call.
unsafe fn marker_function(module: LLVMModuleRef, ctx: LLVMContextRef, name: &str) -> LLVMValueRef {
    let c_name = CString::new(name).expect("no NUL in a name");
    let existing = LLVMGetNamedFunction(module, c_name.as_ptr());
    if !existing.is_null() {
        return existing;
    }
    let ptr = LLVMPointerTypeInContext(ctx, 0);
    let mut params = [ptr];
    LLVMAddFunction(module, c_name.as_ptr(), LLVMFunctionType(ptr, params.as_mut_ptr(), 1, 0))
}

/// `R name(ptr fp, params...)`: `fp == @c0 ? c0(params) : fp == @c1 ? ... : fp(params)`,
/// the last call's callee passed through `marker`. Parameter and result attributes are
/// those of `call`'s site (so `byval`, `sret` and the like mean the same), and each call
/// in it has `call`'s calling convention.
unsafe fn build_dispatcher(
    module: LLVMModuleRef,
    ctx: LLVMContextRef,
    builder: LLVMBuilderRef,
    call: LLVMValueRef,
    candidates: &[LLVMValueRef],
    marker: LLVMValueRef,
    name: &str,
) -> LLVMValueRef {
    let fn_ty = LLVMGetCalledFunctionType(call);
    let ptr = LLVMPointerTypeInContext(ctx, 0);
    let mut params: Vec<LLVMTypeRef> = vec![std::ptr::null_mut(); LLVMCountParamTypes(fn_ty) as usize];
    LLVMGetParamTypes(fn_ty, params.as_mut_ptr());
    params.insert(0, ptr);
    let ret = LLVMGetReturnType(fn_ty);
    let ty = LLVMFunctionType(ret, params.as_mut_ptr(), params.len() as u32, 0);
    let c_name = CString::new(name).expect("no NUL in a name");
    let f = LLVMAddFunction(module, c_name.as_ptr(), ty);
    LLVMSetLinkage(f, LLVMLinkage::LLVMInternalLinkage);
    for (index, attrs) in call_site_attributes(call) {
        if index == inkwell::llvm_sys::LLVMAttributeFunctionIndex {
            continue;
        }
        let to = if index == inkwell::llvm_sys::LLVMAttributeReturnIndex { index } else { index + 1 };
        for a in attrs {
            LLVMAddAttributeAtIndex(f, to, a);
        }
    }
    let fp = LLVMGetParam(f, 0);
    let mut args: Vec<LLVMValueRef> = (1..params.len() as u32).map(|i| LLVMGetParam(f, i)).collect();
    let void = LLVMGetTypeKind(ret) == LLVMTypeKind::LLVMVoidTypeKind;
    let finish = |builder: LLVMBuilderRef, callee: LLVMValueRef, args: &mut [LLVMValueRef]| {
        let made = LLVMBuildCall2(builder, fn_ty, callee, args.as_mut_ptr(), args.len() as u32, c"".as_ptr());
        copy_attributes(call, made, 0);
        LLVMSetInstructionCallConv(made, LLVMGetInstructionCallConv(call));
        if void {
            LLVMBuildRetVoid(builder);
        } else {
            LLVMBuildRet(builder, made);
        }
    };
    let mut test = LLVMAppendBasicBlockInContext(ctx, f, c"entry".as_ptr());
    for &candidate in candidates {
        let case = LLVMAppendBasicBlockInContext(ctx, f, c"case".as_ptr());
        let next = LLVMAppendBasicBlockInContext(ctx, f, c"next".as_ptr());
        LLVMPositionBuilderAtEnd(builder, test);
        let same = LLVMBuildICmp(builder, LLVMIntPredicate::LLVMIntEQ, fp, candidate, c"".as_ptr());
        LLVMBuildCondBr(builder, same, case, next);
        LLVMPositionBuilderAtEnd(builder, case);
        finish(builder, candidate, &mut args);
        test = next;
    }
    LLVMPositionBuilderAtEnd(builder, test);
    let mut marker_args = [fp];
    let unknown = LLVMBuildCall2(builder, LLVMGlobalGetValueType(marker), marker, marker_args.as_mut_ptr(), 1, c"".as_ptr());
    finish(builder, unknown, &mut args);
    f
}

/// A call site's attributes, by attribute index (return, function, each argument).
unsafe fn call_site_attributes(call: LLVMValueRef) -> Vec<(u32, Vec<LLVMAttributeRef>)> {
    let mut indices = vec![inkwell::llvm_sys::LLVMAttributeReturnIndex, inkwell::llvm_sys::LLVMAttributeFunctionIndex];
    indices.extend(1..=LLVMGetNumArgOperands(call));
    indices
        .into_iter()
        .map(|index| {
            let n = LLVMGetCallSiteAttributeCount(call, index);
            let mut attrs = vec![std::ptr::null_mut(); n as usize];
            LLVMGetCallSiteAttributes(call, index, attrs.as_mut_ptr());
            (index, attrs)
        })
        .collect()
}

/// Copies `from`'s call-site attributes to `to`, each argument's moved by `shift` places
/// (1 when `to` passes one argument more in front, -1 when one less).
pub(super) unsafe fn copy_attributes(from: LLVMValueRef, to: LLVMValueRef, shift: i64) {
    let args = i64::from(LLVMGetNumArgOperands(to));
    for (index, attrs) in call_site_attributes(from) {
        let to_index =
            if index == inkwell::llvm_sys::LLVMAttributeReturnIndex || index == inkwell::llvm_sys::LLVMAttributeFunctionIndex {
                index
            } else {
                let moved = i64::from(index) + shift;
                if moved < 1 || moved > args {
                    continue;
                }
                moved as u32
            };
        for a in attrs {
            LLVMAddCallSiteAttribute(to, to_index, a);
        }
    }
}

/// At `builder`, a call (or invoke, as `from` is) of `callee` with `from`'s arguments,
/// `first` in front when given; attributes, source location and unwind edges are
/// `from`'s.
unsafe fn rebuild_call(
    builder: LLVMBuilderRef,
    from: LLVMValueRef,
    callee: LLVMValueRef,
    fn_ty: LLVMTypeRef,
    first: Option<LLVMValueRef>,
) -> LLVMValueRef {
    let mut args: Vec<LLVMValueRef> = first.into_iter().collect();
    args.extend((0..LLVMGetNumArgOperands(from)).map(|i| LLVMGetOperand(from, i)));
    let made = build_like(builder, from, fn_ty, callee, &mut args);
    copy_attributes(from, made, i64::from(first.is_some()));
    made
}

/// The dispatcher call `from` as the call through its first argument `fp` it replaced.
unsafe fn unshift_call(builder: LLVMBuilderRef, from: LLVMValueRef, fp: LLVMValueRef, fn_ty: LLVMTypeRef) -> LLVMValueRef {
    let mut args: Vec<LLVMValueRef> = (1..LLVMGetNumArgOperands(from)).map(|i| LLVMGetOperand(from, i)).collect();
    let made = build_like(builder, from, fn_ty, fp, &mut args);
    copy_attributes(from, made, -1);
    made
}

/// A call or invoke (as `from` is, to its destinations) with `from`'s source location.
unsafe fn build_like(
    builder: LLVMBuilderRef,
    from: LLVMValueRef,
    fn_ty: LLVMTypeRef,
    callee: LLVMValueRef,
    args: &mut [LLVMValueRef],
) -> LLVMValueRef {
    let n = args.len() as u32;
    let made = if LLVMGetInstructionOpcode(from) == LLVMOpcode::LLVMInvoke {
        let (normal, unwind) = (LLVMGetNormalDest(from), LLVMGetUnwindDest(from));
        LLVMBuildInvoke2(builder, fn_ty, callee, args.as_mut_ptr(), n, normal, unwind, c"".as_ptr())
    } else {
        LLVMBuildCall2(builder, fn_ty, callee, args.as_mut_ptr(), n, c"".as_ptr())
    };
    use inkwell::llvm_sys::debuginfo::{LLVMInstructionGetDebugLoc, LLVMInstructionSetDebugLoc};
    LLVMInstructionSetDebugLoc(made, LLVMInstructionGetDebugLoc(from));
    made
}
