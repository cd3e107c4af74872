//! Requests made with `invoke` (C++ code with cleanups or a `try` around the request): the
//! driver rewrites a request as a plain call and the code around it, so the invoke is first
//! taken apart into that call plus a placeholder `invoke @llvm.donothing()` that keeps the
//! block's edges (and the landing pad's phis) as they were; once the request is rewritten,
//! the call to the generated gradient becomes the invoke, so that an exception thrown while
//! computing the gradient unwinds into the caller's landing pad as the request would have.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::{LLVMInstructionGetDebugLoc, LLVMInstructionSetDebugLoc};
use inkwell::llvm_sys::prelude::*;
use inkwell::values::{AsValueRef, CallSiteValue, InstructionValue};

/// Builds, at `builder`, a call site like `from` (callee, function type, arguments,
/// attributes, calling convention, source location): a plain call, or with `dests` an
/// invoke to (normal, unwind).
unsafe fn rebuild(
    builder: LLVMBuilderRef,
    from: LLVMValueRef,
    dests: Option<(LLVMBasicBlockRef, LLVMBasicBlockRef)>,
) -> LLVMValueRef {
    let fn_ty = LLVMGetCalledFunctionType(from);
    let callee = LLVMGetCalledValue(from);
    let mut args: Vec<LLVMValueRef> = (0..LLVMGetNumArgOperands(from)).map(|i| LLVMGetOperand(from, i)).collect();
    let name = c"";
    let made = match dests {
        None => LLVMBuildCall2(builder, fn_ty, callee, args.as_mut_ptr(), args.len() as u32, name.as_ptr()),
        Some((normal, unwind)) => {
            LLVMBuildInvoke2(builder, fn_ty, callee, args.as_mut_ptr(), args.len() as u32, normal, unwind, name.as_ptr())
        }
    };
    super::dispatch::copy_attributes(from, made, 0);
    LLVMSetInstructionCallConv(made, LLVMGetInstructionCallConv(from));
    LLVMInstructionSetDebugLoc(made, LLVMInstructionGetDebugLoc(from));
    made
}

/// Takes the invoke `call` apart: returns the plain call that replaces it (the request to
/// rewrite) and the placeholder invoke after it, which keeps the block's edges.
pub fn detach<'ctx>(call: CallSiteValue<'ctx>) -> (CallSiteValue<'ctx>, InstructionValue<'ctx>) {
    let raw = call.as_value_ref();
    // SAFETY: `call` is a live invoke of a module; every handle built here belongs to its
    // context; the invoke is erased only after its uses are replaced.
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(raw));
        let builder = LLVMCreateBuilderInContext(ctx);
        LLVMPositionBuilderBefore(builder, raw);
        let plain = rebuild(builder, raw, None);
        LLVMReplaceAllUsesWith(raw, plain);
        let module = LLVMGetGlobalParent(LLVMGetBasicBlockParent(LLVMGetInstructionParent(raw)));
        let nothing = donothing(module, ctx);
        let void_fn = LLVMFunctionType(LLVMVoidTypeInContext(ctx), std::ptr::null_mut(), 0, 0);
        let placeholder = LLVMBuildInvoke2(
            builder,
            void_fn,
            nothing,
            std::ptr::null_mut(),
            0,
            LLVMGetNormalDest(raw),
            LLVMGetUnwindDest(raw),
            c"".as_ptr(),
        );
        LLVMDisposeBuilder(builder);
        LLVMInstructionEraseFromParent(raw);
        (CallSiteValue::new(plain), InstructionValue::new(placeholder))
    }
}

/// `llvm.donothing`, the one intrinsic that may be invoked.
unsafe fn donothing(module: LLVMModuleRef, ctx: LLVMContextRef) -> LLVMValueRef {
    let existing = LLVMGetNamedFunction(module, c"llvm.donothing".as_ptr());
    if !existing.is_null() {
        return existing;
    }
    let void_fn = LLVMFunctionType(LLVMVoidTypeInContext(ctx), std::ptr::null_mut(), 0, 0);
    LLVMAddFunction(module, c"llvm.donothing".as_ptr(), void_fn)
}

/// Makes `entry`, a call in the placeholder's block before it, the invoke the placeholder
/// stood for: the block ends at it, what followed it (up to the placeholder) moves to a
/// new block that goes on to the normal destination, and the normal destination's phis
/// name that block instead. Returns false (and changes nothing) when `entry` is not in the
/// placeholder's block.
pub fn reattach(placeholder: InstructionValue<'_>, entry: CallSiteValue<'_>) -> bool {
    let (p, e) = (placeholder.as_value_ref(), entry.as_value_ref());
    // SAFETY: both are live instructions of one function; instructions are moved between
    // its blocks with the C API's remove/insert pair, and each erased instruction has no
    // use left (its result's uses are replaced first).
    unsafe {
        let block = LLVMGetInstructionParent(p);
        if LLVMGetInstructionParent(e) != block {
            return false;
        }
        let (normal, unwind) = (LLVMGetNormalDest(p), LLVMGetUnwindDest(p));
        let ctx = LLVMGetTypeContext(LLVMTypeOf(p));
        let rest = LLVMInsertBasicBlockInContext(ctx, normal, c"".as_ptr());
        LLVMMoveBasicBlockAfter(rest, block);
        let builder = LLVMCreateBuilderInContext(ctx);
        LLVMPositionBuilderAtEnd(builder, rest);
        let mut inst = LLVMGetNextInstruction(e);
        while inst != p {
            let next = LLVMGetNextInstruction(inst);
            LLVMInstructionRemoveFromParent(inst);
            LLVMInsertIntoBuilder(builder, inst);
            inst = next;
        }
        let br = LLVMBuildBr(builder, normal);
        LLVMInstructionSetDebugLoc(br, LLVMInstructionGetDebugLoc(p));
        LLVMInstructionEraseFromParent(p);
        LLVMPositionBuilderAtEnd(builder, block);
        let invoke = rebuild(builder, e, Some((rest, unwind)));
        LLVMReplaceAllUsesWith(e, invoke);
        LLVMInstructionEraseFromParent(e);
        rename_incoming(builder, normal, block, rest);
        LLVMDisposeBuilder(builder);
        true
    }
}

/// In `block`'s phis, the edges from `from` come from `to` instead: each phi is rebuilt
/// (the C API cannot change an incoming block in place).
unsafe fn rename_incoming(builder: LLVMBuilderRef, block: LLVMBasicBlockRef, from: LLVMBasicBlockRef, to: LLVMBasicBlockRef) {
    let mut phi = LLVMGetFirstInstruction(block);
    while !phi.is_null() && !LLVMIsAPHINode(phi).is_null() {
        let next = LLVMGetNextInstruction(phi);
        LLVMPositionBuilderBefore(builder, phi);
        let made = LLVMBuildPhi(builder, LLVMTypeOf(phi), c"".as_ptr());
        for i in 0..LLVMCountIncoming(phi) {
            let mut v = LLVMGetIncomingValue(phi, i);
            let mut b = LLVMGetIncomingBlock(phi, i);
            if b == from {
                b = to;
            }
            LLVMAddIncoming(made, &mut v, &mut b, 1);
        }
        LLVMReplaceAllUsesWith(phi, made);
        LLVMInstructionEraseFromParent(phi);
        phi = next;
    }
}
