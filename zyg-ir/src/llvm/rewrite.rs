//! Rewrites of a module's instructions that the driver's preparation makes before zyg reads
//! it (and undoes in the generated code): constant expressions made instructions, `byval`
//! copies made explicit, dynamic allocas as calls of a marker function and back. Safe
//! functions over inkwell's handles; every value they visit belongs to the module given.

use inkwell::attributes::Attribute;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};

/// Turns the constant expressions instructions use into instructions in front of their
/// users (a phi's operand at the end of its incoming block). Kinds it does not know (and
/// operands of a phi whose incoming block has no terminator) stay as they are.
pub fn expand_constant_expressions(module: &Module<'_>) {
    // SAFETY: every value visited belongs to the live module; the builder is positioned only
    // before instructions that exist (a missing terminator is skipped) and is disposed.
    unsafe {
        let b = Builder::new(LLVMGetModuleContext(module.as_mut_ptr()));
        for inst in instructions(module) {
            let is_phi = !LLVMIsAPHINode(inst).is_null();
            for i in 0..LLVMGetNumOperands(inst).max(0) as u32 {
                let operand = LLVMGetOperand(inst, i);
                if operand.is_null() || LLVMIsAConstantExpr(operand).is_null() {
                    continue;
                }
                let before = if is_phi { LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(inst, i)) } else { inst };
                if before.is_null() {
                    continue;
                }
                LLVMPositionBuilderBefore(b.0, before);
                if let Some(expanded) = expand(b.0, operand) {
                    LLVMSetOperand(inst, i, expanded);
                }
            }
        }
    }
}

/// An LLVM builder, disposed when dropped.
pub(super) struct Builder(pub(super) LLVMBuilderRef);

impl Builder {
    /// # Safety
    /// `context` must be a live context.
    pub(super) unsafe fn new(context: LLVMContextRef) -> Self {
        Builder(LLVMCreateBuilderInContext(context))
    }
}

impl Drop for Builder {
    fn drop(&mut self) {
        // SAFETY: the builder made in `new`, disposed once.
        unsafe { LLVMDisposeBuilder(self.0) }
    }
}

/// An instruction computing the constant expression `c` (operands first), or `None` for a
/// kind it does not know.
///
/// # Safety
/// `b` must be a live builder positioned before an instruction, `c` a live constant of its
/// context.
unsafe fn expand(b: LLVMBuilderRef, c: LLVMValueRef) -> Option<LLVMValueRef> {
    use inkwell::llvm_sys::LLVMOpcode::*;
    if LLVMIsAConstantExpr(c).is_null() {
        return Some(c);
    }
    let n = LLVMGetNumOperands(c).max(0) as u32;
    let mut ops: Vec<_> = (0..n).map(|i| expand(b, LLVMGetOperand(c, i))).collect::<Option<_>>()?;
    let name = c"".as_ptr();
    let op = LLVMGetConstOpcode(c);
    let &first = ops.first()?;
    // The builder folds an instruction of constants straight back into a constant
    // expression. Built on a `freeze` of the first operand it stays an instruction; the
    // operand is put back afterwards and the `freeze` erased.
    let placeholder = (!LLVMIsAConstant(first).is_null()).then(|| LLVMBuildFreeze(b, first, name));
    if let Some(p) = placeholder {
        ops[0] = p;
    }
    let built = match op {
        LLVMGetElementPtr => {
            let mut indices = ops[1..].to_vec();
            LLVMBuildGEPWithNoWrapFlags(
                b,
                LLVMGetGEPSourceElementType(c),
                ops[0],
                indices.as_mut_ptr(),
                indices.len() as u32,
                name,
                LLVMGEPGetNoWrapFlags(c),
            )
        }
        LLVMBitCast | LLVMAddrSpaceCast | LLVMPtrToInt | LLVMIntToPtr | LLVMTrunc => {
            LLVMBuildCast(b, op, ops[0], LLVMTypeOf(c), name)
        }
        LLVMAdd | LLVMSub | LLVMMul | LLVMXor if ops.len() == 2 => LLVMBuildBinOp(b, op, ops[0], ops[1], name),
        _ => {
            if let Some(p) = placeholder {
                LLVMInstructionEraseFromParent(p);
            }
            return None;
        }
    };
    if let Some(p) = placeholder {
        LLVMSetOperand(built, 0, first);
        LLVMInstructionEraseFromParent(p);
    }
    Some(built)
}

/// Gives each `byval` argument of a call an explicit copy: a stack slot in the caller's
/// entry block (aligned as the data layout says), a `memcpy` of the argument into it before
/// the call, and the slot passed instead. The attribute stays.
pub fn copy_byval_arguments(module: &Module<'_>) {
    use inkwell::llvm_sys::target::{LLVMABIAlignmentOfType, LLVMABISizeOfType, LLVMGetModuleDataLayout};
    let byval = Attribute::get_named_enum_kind_id("byval");
    // SAFETY: every value visited belongs to the live module; a call's argument index stays
    // below its count of arguments, `byval` is a type attribute (its type is read only when
    // the attribute is there), and the builder is positioned before existing instructions.
    unsafe {
        let m = module.as_mut_ptr();
        let layout = LLVMGetModuleDataLayout(m);
        let ctx = LLVMGetModuleContext(m);
        let b = Builder::new(ctx);
        let i64_ty = LLVMInt64TypeInContext(ctx);
        for inst in instructions(module) {
            if LLVMIsACallInst(inst).is_null() {
                continue;
            }
            let entry = LLVMGetEntryBasicBlock(LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst)));
            for i in 0..LLVMGetNumArgOperands(inst) {
                let attr = LLVMGetCallSiteEnumAttribute(inst, i + 1, byval);
                if attr.is_null() {
                    continue;
                }
                let ty = LLVMGetTypeAttributeValue(attr);
                let align = LLVMABIAlignmentOfType(layout, ty);
                LLVMPositionBuilder(b.0, entry, LLVMGetFirstInstruction(entry));
                let copy = LLVMBuildAlloca(b.0, ty, c"byval.copy".as_ptr());
                LLVMSetAlignment(copy, align);
                LLVMPositionBuilderBefore(b.0, inst);
                let size = LLVMConstInt(i64_ty, LLVMABISizeOfType(layout, ty), 0);
                LLVMBuildMemCpy(b.0, copy, align, LLVMGetOperand(inst, i), align, size);
                LLVMSetOperand(inst, i, copy);
            }
        }
    }
}

/// Before each call or invoke of a function without a body that returns its result through
/// an `sret` argument (a `std::string` returned by `ostringstream::str()`), a `memset` of
/// that memory to zero. The callee constructs its result there, so the primal computes what
/// it did; zyg reads the `memset` as it reads any, and zeroes the shadow of the result as
/// well (and its adjoint in the reverse sweep). Without it, the shadow of memory such a
/// call overwrites kept what it held before: a shadow pointer the call made stale, which
/// forward mode then freed where the program frees the new pointer.
pub fn zero_sret_results_of_declarations(module: &Module<'_>) {
    use inkwell::llvm_sys::target::{LLVMABIAlignmentOfType, LLVMABISizeOfType, LLVMGetModuleDataLayout};
    let sret = Attribute::get_named_enum_kind_id("sret");
    // SAFETY: as in `copy_byval_arguments`: values of the live module, argument indices
    // below the count, `sret` read as the type attribute it is, the builder placed before
    // an existing instruction.
    unsafe {
        let m = module.as_mut_ptr();
        let layout = LLVMGetModuleDataLayout(m);
        let ctx = LLVMGetModuleContext(m);
        let b = Builder::new(ctx);
        let (i8_ty, i64_ty) = (LLVMInt8TypeInContext(ctx), LLVMInt64TypeInContext(ctx));
        for inst in instructions(module) {
            if LLVMIsACallInst(inst).is_null() && LLVMIsAInvokeInst(inst).is_null() {
                continue;
            }
            let callee = LLVMGetCalledValue(inst);
            if LLVMIsAFunction(callee).is_null() || LLVMIsDeclaration(callee) == 0 {
                continue;
            }
            for i in 0..LLVMGetNumArgOperands(inst) {
                let attr = LLVMGetCallSiteEnumAttribute(inst, i + 1, sret);
                if attr.is_null() {
                    continue;
                }
                let ty = LLVMGetTypeAttributeValue(attr);
                LLVMPositionBuilderBefore(b.0, inst);
                let size = LLVMConstInt(i64_ty, LLVMABISizeOfType(layout, ty), 0);
                let zero = LLVMConstInt(i8_ty, 0, 0);
                LLVMBuildMemSet(b.0, LLVMGetOperand(inst, i), zero, size, LLVMABIAlignmentOfType(layout, ty));
            }
        }
    }
}

/// Gives each stack slot whose type zyg cannot read because a packed struct in it moves a
/// field off its natural offset (clang's C++ classes whose tail padding a derived class
/// reuses: Eigen's `MapBase` is `<{ ptr, [2 x i8] }>` inside `<{ [8 x i8], .., [8 x i8] }>`)
/// the type `[n x <A x i8>]`: as many bytes (rounded up to the slot's alignment A) and as
/// aligned, with no fields. The preparation pipeline's instcombine has already turned the
/// constant field addresses into byte offsets, so nothing else names the type; what the
/// bytes hold, zyg's type analysis learns from the loads and stores as for any buffer, and
/// no field of a layout zyg would compute wrongly is taken as a hint.
pub fn packed_allocas_to_bytes(module: &Module<'_>) {
    use inkwell::llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout};
    // SAFETY: every value visited belongs to the live module; only allocas of one element
    // are replaced, each erased once its uses have moved to the new alloca.
    unsafe {
        let m = module.as_mut_ptr();
        let layout = LLVMGetModuleDataLayout(m);
        let ctx = LLVMGetModuleContext(m);
        let b = Builder::new(ctx);
        let i8_ty = LLVMInt8TypeInContext(ctx);
        for inst in instructions(module) {
            if LLVMIsAAllocaInst(inst).is_null() || LLVMIsAConstantInt(LLVMGetOperand(inst, 0)).is_null() {
                continue;
            }
            let ty = LLVMGetAllocatedType(inst);
            if super::raw::read_type(ty).is_ok() {
                continue;
            }
            let align = LLVMGetAlignment(inst).max(1);
            let count = LLVMConstIntGetZExtValue(LLVMGetOperand(inst, 0));
            let bytes = (LLVMABISizeOfType(layout, ty) * count).next_multiple_of(u64::from(align));
            let unit = if align == 1 { i8_ty } else { LLVMVectorType(i8_ty, align) };
            LLVMPositionBuilderBefore(b.0, inst);
            let slot = LLVMBuildAlloca(b.0, LLVMArrayType2(unit, bytes / u64::from(align)), c"packed".as_ptr());
            LLVMSetAlignment(slot, align);
            LLVMReplaceAllUsesWith(inst, slot);
            LLVMInstructionEraseFromParent(inst);
        }
    }
}

/// Replaces each `alloca T, iN %n` whose count is not the constant 1 by a call to `ptr
/// @marker(i64 bytes)` (declared when first needed) with the byte count.
pub fn dynamic_allocas_to_calls(module: &Module<'_>, marker: &str) {
    use inkwell::llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout};
    let Ok(name) = std::ffi::CString::new(marker) else { return };
    // SAFETY: every value visited belongs to the live module; an existing `marker` is used
    // only when it is a function of the marker's type; replaced instructions are erased
    // after their uses move to the call, and the builder is disposed.
    unsafe {
        let m = module.as_mut_ptr();
        let layout = LLVMGetModuleDataLayout(m);
        let ctx = LLVMGetModuleContext(m);
        let b = Builder::new(ctx);
        let i64_ty = LLVMInt64TypeInContext(ctx);
        let ptr_ty = LLVMPointerTypeInContext(ctx, 0);
        let mut params = [i64_ty];
        let fn_ty = LLVMFunctionType(ptr_ty, params.as_mut_ptr(), 1, 0);
        let mut callee = LLVMGetNamedFunction(m, name.as_ptr());
        if !callee.is_null() && LLVMGlobalGetValueType(callee) != fn_ty {
            return;
        }
        let mut dead = Vec::new();
        for inst in instructions(module) {
            let count = if LLVMIsAAllocaInst(inst).is_null() { None } else { Some(LLVMGetOperand(inst, 0)) };
            let Some(count) = count.filter(|c| LLVMIsAConstantInt(*c).is_null() || LLVMConstIntGetZExtValue(*c) != 1) else {
                continue;
            };
            if callee.is_null() {
                callee = LLVMAddFunction(m, name.as_ptr(), fn_ty);
            }
            LLVMPositionBuilderBefore(b.0, inst);
            let elem = LLVMABISizeOfType(layout, LLVMGetAllocatedType(inst));
            let count = LLVMBuildZExtOrBitCast(b.0, count, i64_ty, c"".as_ptr());
            let bytes = LLVMBuildMul(b.0, count, LLVMConstInt(i64_ty, elem, 0), c"vla.bytes".as_ptr());
            let mut args = [bytes];
            let call = LLVMBuildCall2(b.0, fn_ty, callee, args.as_mut_ptr(), 1, c"vla".as_ptr());
            LLVMReplaceAllUsesWith(inst, call);
            dead.push(inst);
        }
        for inst in dead {
            LLVMInstructionEraseFromParent(inst);
        }
    }
}

/// Turns the calls of `marker` in `function` (as `dynamic_allocas_to_calls` makes them)
/// back into dynamic allocas of bytes, 16-byte aligned (as clang aligns VLAs).
pub fn restore_dynamic_allocas(function: FunctionValue<'_>, marker: &str) {
    // SAFETY: the function is live; only calls of `marker` with one argument are replaced
    // (the argument is the byte count), each erased once its uses have moved to the alloca.
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(function.as_value_ref()));
        let b = Builder::new(ctx);
        let i8_ty = LLVMInt8TypeInContext(ctx);
        let calls: Vec<_> = function_instructions(function.as_value_ref())
            .into_iter()
            .filter(|inst| {
                !LLVMIsACallInst(*inst).is_null()
                    && LLVMGetNumArgOperands(*inst) == 1
                    && FunctionValue::new(LLVMGetCalledValue(*inst)).is_some_and(|f| f.get_name().to_bytes() == marker.as_bytes())
            })
            .collect();
        for call in calls {
            LLVMPositionBuilderBefore(b.0, call);
            let alloca = LLVMBuildArrayAlloca(b.0, i8_ty, LLVMGetOperand(call, 0), c"vla".as_ptr());
            LLVMSetAlignment(alloca, 16);
            LLVMReplaceAllUsesWith(call, alloca);
            LLVMInstructionEraseFromParent(call);
        }
    }
}

/// The instructions of a function, in layout order (collected first, so that a rewrite may
/// insert and replace instructions while it walks them).
///
/// # Safety
/// `f` must be a live function.
unsafe fn function_instructions(f: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        let mut inst = LLVMGetFirstInstruction(bb);
        while !inst.is_null() {
            out.push(inst);
            inst = LLVMGetNextInstruction(inst);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
    out
}

/// The instructions of every function the module defines.
///
/// # Safety
/// Only that the handles returned are used while the module lives.
pub(super) unsafe fn instructions(module: &Module<'_>) -> Vec<LLVMValueRef> {
    module.get_functions().flat_map(|f| function_instructions(f.as_value_ref())).collect()
}

/// The reductions of OpenMP regions (`reduction(+: s)`) made atomic additions. clang lowers
/// one as `r = __kmpc_reduce_nowait(...)` (or `__kmpc_reduce`, which waits for the team)
/// and a `switch` on `r`: case 1 adds the thread's private value into the shared variable
/// under the runtime's lock, case 2 adds it with an `atomicrmw fadd`, and otherwise the
/// runtime has already combined the private values itself, through the outlined
/// `reduction_func` zyg never sees. Which case runs is the runtime's choice, made per team
/// size, so the adjoint could not tell which threads' values went through the hidden one.
/// The copy zyg reads takes case 2 always (the `switch` gets the constant 2, which
/// simplifycfg folds): every thread adds its own value atomically, which the program
/// allows (it is the runtime's own atomic method), and whose adjoint `rules::access` knows.
/// The blocking form's `__kmpc_end_reduce` in that case becomes the barrier it implies.
/// A reduction whose `switch` has no case 2 (no atomic form: a user-defined reduction)
/// stays as it is, and zyg refuses it where a derivative goes through it.
pub fn openmp_reductions_to_atomics(module: &Module<'_>) {
    // SAFETY: values of the live module; the instructions erased are the reduce calls,
    // whose one use (the switch) was given a constant first; the builder is placed before
    // an existing instruction and disposed.
    unsafe {
        let m = module.as_mut_ptr();
        let ctx = LLVMGetModuleContext(m);
        let b = Builder::new(ctx);
        let i32_ty = LLVMInt32TypeInContext(ctx);
        let two = LLVMConstInt(i32_ty, 2, 0);
        for inst in instructions(module) {
            if LLVMIsACallInst(inst).is_null() {
                continue;
            }
            let callee = LLVMGetCalledValue(inst);
            if LLVMIsAFunction(callee).is_null() {
                continue;
            }
            let blocking = match super::raw::value_name(callee).as_str() {
                "__kmpc_reduce_nowait" => false,
                "__kmpc_reduce" => true,
                _ => continue,
            };
            let use_ = LLVMGetFirstUse(inst);
            if use_.is_null() || !LLVMGetNextUse(use_).is_null() {
                continue;
            }
            let switch = LLVMGetUser(use_);
            if LLVMIsASwitchInst(switch).is_null() {
                continue;
            }
            let Some(atomic_case) = (1..LLVMGetNumSuccessors(switch)).find_map(|k| {
                let value = LLVMGetSwitchCaseValue(switch, k);
                (LLVMConstIntGetZExtValue(value) == 2).then(|| LLVMGetSuccessor(switch, k))
            }) else {
                continue;
            };
            if blocking {
                let barrier = barrier_function(m, ctx);
                let mut at = LLVMGetFirstInstruction(atomic_case);
                while !at.is_null() {
                    let next = LLVMGetNextInstruction(at);
                    if !LLVMIsACallInst(at).is_null() && super::raw::value_name(LLVMGetCalledValue(at)) == "__kmpc_end_reduce" {
                        LLVMPositionBuilderBefore(b.0, at);
                        let mut args = [LLVMGetOperand(at, 0), LLVMGetOperand(at, 1)];
                        let ty = LLVMGlobalGetValueType(barrier);
                        LLVMBuildCall2(b.0, ty, barrier, args.as_mut_ptr(), 2, c"".as_ptr());
                        LLVMInstructionEraseFromParent(at);
                    }
                    at = next;
                }
            }
            LLVMReplaceAllUsesWith(inst, two);
            LLVMInstructionEraseFromParent(inst);
        }
    }
}

/// `void __kmpc_barrier(ptr, i32)`, declared where the module lacks it.
unsafe fn barrier_function(m: LLVMModuleRef, ctx: LLVMContextRef) -> LLVMValueRef {
    let found = LLVMGetNamedFunction(m, c"__kmpc_barrier".as_ptr());
    if !found.is_null() {
        return found;
    }
    let mut params = [LLVMPointerTypeInContext(ctx, 0), LLVMInt32TypeInContext(ctx)];
    let ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params.as_mut_ptr(), 2, 0);
    LLVMAddFunction(m, c"__kmpc_barrier".as_ptr(), ty)
}

/// OpenMP critical sections that only add into shared floats (`#pragma omp critical`
/// around `sum += v;`) made relaxed atomic additions. A section whose instructions between
/// `__kmpc_critical` and `__kmpc_end_critical` (one block) are such additions, each a load
/// of a float, an `fadd` of it with a value that does not depend on it, and a store of the
/// sum to the same place, besides computations of what to add and where (`critical_sums`),
/// adds exactly what the
/// atomic additions add, in some order, as the lock allowed; zyg differentiates atomic
/// additions (whose adjoints commute), not sections whose adjoints would have to replay the
/// threads in the reverse of their order. Other sections stay, and zyg refuses them.
/// Run after the canonicalising pipeline (-O0's stack slots promoted).
pub fn openmp_critical_sums_to_atomics(module: &Module<'_>) {
    // SAFETY: values of the live module; each section is checked whole before anything is
    // changed, the builder is placed before existing instructions, and each instruction is
    // erased once, after its uses.
    unsafe {
        let b = Builder::new(LLVMGetModuleContext(module.as_mut_ptr()));
        for inst in instructions(module) {
            if LLVMIsACallInst(inst).is_null() || super::raw::value_name(LLVMGetCalledValue(inst)) != "__kmpc_critical" {
                continue;
            }
            let Some((sums, end)) = critical_sums(inst) else { continue };
            for (load, add, store, added) in sums {
                LLVMPositionBuilderBefore(b.0, store);
                let value = match added {
                    Added::Value(v) => v,
                    Added::Product(x, y) => LLVMBuildFMul(b.0, x, y, c"".as_ptr()),
                };
                LLVMBuildAtomicRMW(
                    b.0,
                    inkwell::llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd,
                    LLVMGetOperand(store, 1),
                    value,
                    inkwell::llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
                    0,
                );
                for dead in [store, add, load] {
                    LLVMInstructionEraseFromParent(dead);
                }
            }
            LLVMInstructionEraseFromParent(end);
            LLVMInstructionEraseFromParent(inst);
        }
    }
}

/// The additions of the critical section that `enter` begins, `(load, fadd, store, added
/// value)` each, and the call that ends it; None unless the section only adds into floats:
/// besides the additions, it may compute (addresses, integers, floats from values it did
/// not load as floats) and read integers and pointers, but nothing else.
///
/// # Safety
/// `enter` is a call instruction of a live module.
unsafe fn critical_sums(enter: LLVMValueRef) -> Option<(Vec<Sum>, LLVMValueRef)> {
    use inkwell::llvm_sys::LLVMOpcode::*;
    let mut sums = Vec::new();
    let mut at = LLVMGetNextInstruction(enter);
    // Float loads waiting for their addition, and additions waiting for their store.
    let mut loads: Vec<LLVMValueRef> = Vec::new();
    let mut adds: Vec<(LLVMValueRef, LLVMValueRef, Added)> = Vec::new();
    let is_float = |v: LLVMValueRef| {
        matches!(
            LLVMGetTypeKind(LLVMTypeOf(v)),
            inkwell::llvm_sys::LLVMTypeKind::LLVMDoubleTypeKind | inkwell::llvm_sys::LLVMTypeKind::LLVMFloatTypeKind
        )
    };
    while !at.is_null() {
        let operands: Vec<LLVMValueRef> = (0..LLVMGetNumOperands(at).max(0) as u32).map(|k| LLVMGetOperand(at, k)).collect();
        let reads_pending = |ops: &[LLVMValueRef]| ops.iter().any(|o| loads.contains(o) || adds.iter().any(|(_, a, _)| a == o));
        match LLVMGetInstructionOpcode(at) {
            LLVMCall => {
                let name = super::raw::value_name(LLVMGetCalledValue(at));
                if name == "__kmpc_end_critical" {
                    // The same lock, and every load and addition stored.
                    let same = LLVMGetOperand(at, 2) == LLVMGetOperand(enter, 2);
                    return (same && loads.is_empty() && adds.is_empty() && !sums.is_empty()).then_some((sums, at));
                }
                if name.starts_with("llvm.fmuladd.") && reads_pending(&operands) {
                    // `fmuladd(x, y, load)`: the load plus the product.
                    let k = loads.iter().position(|l| *l == operands[2])?;
                    if reads_pending(&operands[..2]) || !one_use(at) {
                        return None;
                    }
                    adds.push((loads.remove(k), at, Added::Product(operands[0], operands[1])));
                } else if !(name.starts_with("llvm.lifetime.") || name.starts_with("llvm.dbg.")) {
                    return None;
                }
            }
            LLVMLoad if LLVMGetVolatile(at) != 0 => return None,
            LLVMLoad if is_float(at) => {
                if !one_use(at) {
                    return None;
                }
                loads.push(at);
            }
            LLVMLoad => {}
            LLVMFAdd if reads_pending(&operands) => {
                let (a, b) = (operands[0], operands[1]);
                let (load, value) = match (loads.iter().position(|l| *l == a), loads.iter().position(|l| *l == b)) {
                    (Some(k), None) if !reads_pending(&[b]) => (loads.remove(k), b),
                    (None, Some(k)) if !reads_pending(&[a]) => (loads.remove(k), a),
                    _ => return None,
                };
                if !one_use(at) {
                    return None;
                }
                adds.push((load, at, Added::Value(value)));
            }
            LLVMStore => {
                let stored = operands[0];
                let k = adds.iter().position(|(_, add, _)| *add == stored)?;
                let (load, add, value) = adds.remove(k);
                if LLVMGetOperand(load, 0) != operands[1] || LLVMGetVolatile(at) != 0 {
                    return None;
                }
                sums.push((load, add, at, value));
            }
            // Computing what to add, and where: nothing that reads a float the section loaded.
            LLVMGetElementPtr | LLVMSExt | LLVMZExt | LLVMTrunc | LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMAnd | LLVMOr
            | LLVMXor | LLVMLShr | LLVMAShr | LLVMSRem | LLVMURem | LLVMSDiv | LLVMUDiv | LLVMFPTrunc | LLVMFPExt | LLVMFMul
            | LLVMFSub | LLVMFAdd | LLVMFDiv | LLVMFNeg | LLVMSIToFP | LLVMUIToFP
                if !reads_pending(&operands) => {}
            _ => return None,
        }
        at = LLVMGetNextInstruction(at);
    }
    None
}

/// One addition of a critical section: its load, `fadd` (or `fmuladd`), store, and what it adds.
type Sum = (LLVMValueRef, LLVMValueRef, LLVMValueRef, Added);

/// What a critical section's addition adds: a value, or the product `fmuladd` fuses.
#[derive(Clone, Copy)]
enum Added {
    Value(LLVMValueRef),
    Product(LLVMValueRef, LLVMValueRef),
}

/// Whether `v` has exactly one use.
///
/// # Safety
/// `v` is a value of a live module.
unsafe fn one_use(v: LLVMValueRef) -> bool {
    let first = LLVMGetFirstUse(v);
    !first.is_null() && LLVMGetNextUse(first).is_null()
}
