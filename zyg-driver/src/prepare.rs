//! Preparation: on a copy of the module, LLVM's canonicalising passes bring `-O0` output
//! (allocas, `optnone`) and `-O2` output to the same SSA shape before zyg reads it. The
//! user's module itself is never changed by this step.

use crate::error::{DriverError, Result};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::TargetMachine;
use std::path::Path;

/// The canonicalisation pipeline (DESIGN.md, "Prepare"): promote memory to SSA, simplify,
/// then put loops in simplified, LCSSA form.
/// `inferattrs` first gives the declarations of C library functions the attributes clang
/// gives them only when optimising (`ilogb` touches only errno), so that `-O0` input tells
/// zyg as much about its callees as `-O2` input does.
pub const PREPARE_PIPELINE: &str =
    "inferattrs,function(sroa,mem2reg,instcombine<no-verify-fixpoint>,simplifycfg,loop-simplify,lcssa)";

pub fn prepare<'ctx>(module: &Module<'ctx>, machine: &TargetMachine, path: &Path) -> Result<Module<'ctx>> {
    let copy = module.clone();
    for f in copy.get_functions() {
        for name in ["optnone", "noinline"] {
            let kind = Attribute::get_named_enum_kind_id(name);
            f.remove_enum_attribute(AttributeLoc::Function, kind);
        }
    }
    copy.run_passes(PREPARE_PIPELINE, machine, PassBuilderOptions::create())
        .map_err(|e| DriverError::Llvm { path: path.to_path_buf(), message: e.to_string() })?;
    expand_constant_expressions(&copy);
    copy_byval_arguments(&copy);
    dynamic_allocas_to_calls(&copy);
    Ok(copy)
}

/// Turns constant expressions used by instructions (`getelementptr (i8, ptr @g, i64 8)`,
/// casts of globals) into instructions in front of their users, so that the reader sees
/// every address computation as an instruction and a global's shadow can follow it. Run
/// after the pipeline, whose instcombine would fold them back. A phi's operand goes at the
/// end of the incoming block. Constant expressions of kinds zyg does not know stay, and
/// the reader names them if a function zyg differentiates uses one.
fn expand_constant_expressions(module: &Module<'_>) {
    use inkwell::llvm_sys::core::*;
    // SAFETY: every value visited belongs to the live module; the builder is disposed.
    unsafe {
        let ctx = LLVMGetModuleContext(module.as_mut_ptr());
        let b = LLVMCreateBuilderInContext(ctx);
        for inst in instructions(module) {
            let is_phi = !LLVMIsAPHINode(inst).is_null();
            for i in 0..LLVMGetNumOperands(inst).max(0) as u32 {
                let operand = LLVMGetOperand(inst, i);
                if operand.is_null() || LLVMIsAConstantExpr(operand).is_null() {
                    continue;
                }
                if is_phi {
                    LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(inst, i)));
                } else {
                    LLVMPositionBuilderBefore(b, inst);
                }
                if let Some(expanded) = expand(b, operand) {
                    LLVMSetOperand(inst, i, expanded);
                }
            }
        }
        LLVMDisposeBuilder(b);
    }
}

/// An instruction computing the constant expression `c` (operands first), or `None` for a
/// kind it does not know.
unsafe fn expand(
    b: inkwell::llvm_sys::prelude::LLVMBuilderRef,
    c: inkwell::llvm_sys::prelude::LLVMValueRef,
) -> Option<inkwell::llvm_sys::prelude::LLVMValueRef> {
    use inkwell::llvm_sys::core::*;
    use inkwell::llvm_sys::LLVMOpcode::*;
    if LLVMIsAConstantExpr(c).is_null() {
        return Some(c);
    }
    let n = LLVMGetNumOperands(c).max(0) as u32;
    let mut ops: Vec<_> = (0..n).map(|i| expand(b, LLVMGetOperand(c, i))).collect::<Option<_>>()?;
    let name = c"".as_ptr();
    let op = LLVMGetConstOpcode(c);
    // The builder folds an instruction of constants straight back into a constant
    // expression. Built on a `freeze` of the first operand it stays an instruction; the
    // operand is put back afterwards and the `freeze` erased.
    let first = ops[0];
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
        LLVMAdd | LLVMSub | LLVMMul | LLVMXor => LLVMBuildBinOp(b, op, ops[0], ops[1], name),
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

/// A `byval` argument is a copy the callee owns, made by the call's lowering. zyg's calls
/// to generated primals have no `byval` (and clang at `-O0` passes the caller's own struct,
/// trusting the lowering to copy it), so the copy is made explicit here: a stack slot in the
/// caller's entry block and a `memcpy` before the call, whose adjoint zyg knows. The
/// attribute stays, so the module means what it meant.
fn copy_byval_arguments(module: &Module<'_>) {
    use inkwell::llvm_sys::core::*;
    use inkwell::llvm_sys::target::{LLVMABIAlignmentOfType, LLVMABISizeOfType, LLVMGetModuleDataLayout};
    let byval = Attribute::get_named_enum_kind_id("byval");
    // SAFETY: every value visited belongs to the live module; the builder is disposed.
    unsafe {
        let m = module.as_mut_ptr();
        let layout = LLVMGetModuleDataLayout(m);
        let ctx = LLVMGetModuleContext(m);
        let b = LLVMCreateBuilderInContext(ctx);
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
                LLVMPositionBuilder(b, entry, LLVMGetFirstInstruction(entry));
                let copy = LLVMBuildAlloca(b, ty, c"byval.copy".as_ptr());
                LLVMSetAlignment(copy, align);
                LLVMPositionBuilderBefore(b, inst);
                let size = LLVMConstInt(i64_ty, LLVMABISizeOfType(layout, ty), 0);
                LLVMBuildMemCpy(b, copy, align, LLVMGetOperand(inst, i), align, size);
                LLVMSetOperand(inst, i, copy);
            }
        }
        LLVMDisposeBuilder(b);
    }
}

/// The stand-in for a dynamic `alloca` (a C99 variable-length array) while zyg works:
/// `ptr @__zyg_vla(i64 bytes)`. zyg reads it as an allocation, whose shadow comes from
/// `calloc` and is freed by the adjoint; `restore_dynamic_allocas` turns it back into an
/// `alloca` in the generated code.
pub const VLA_MARKER: &str = "__zyg_vla";

/// Replaces each `alloca T, iN %n` whose count is not the constant 1 by a call to
/// `VLA_MARKER` with the byte count.
fn dynamic_allocas_to_calls(module: &Module<'_>) {
    use inkwell::llvm_sys::core::*;
    use inkwell::llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout};
    // SAFETY: every value visited belongs to the live module; replaced instructions are
    // erased after their uses move to the call.
    unsafe {
        let m = module.as_mut_ptr();
        let layout = LLVMGetModuleDataLayout(m);
        let ctx = LLVMGetModuleContext(m);
        let b = LLVMCreateBuilderInContext(ctx);
        let i64_ty = LLVMInt64TypeInContext(ctx);
        let ptr_ty = LLVMPointerTypeInContext(ctx, 0);
        let mut params = [i64_ty];
        let fn_ty = LLVMFunctionType(ptr_ty, params.as_mut_ptr(), 1, 0);
        let name = std::ffi::CString::new(VLA_MARKER).expect("no NUL");
        let mut marker = LLVMGetNamedFunction(m, name.as_ptr());
        let mut dead = Vec::new();
        for inst in instructions(module) {
            let count = if LLVMIsAAllocaInst(inst).is_null() { None } else { Some(LLVMGetOperand(inst, 0)) };
            let Some(count) = count.filter(|c| LLVMIsAConstantInt(*c).is_null() || LLVMConstIntGetZExtValue(*c) != 1)
            else {
                continue;
            };
            if marker.is_null() {
                marker = LLVMAddFunction(m, name.as_ptr(), fn_ty);
            }
            LLVMPositionBuilderBefore(b, inst);
            let elem = LLVMABISizeOfType(layout, LLVMGetAllocatedType(inst));
            let count = LLVMBuildZExtOrBitCast(b, count, i64_ty, c"".as_ptr());
            let bytes = LLVMBuildMul(b, count, LLVMConstInt(i64_ty, elem, 0), c"vla.bytes".as_ptr());
            let mut args = [bytes];
            let call = LLVMBuildCall2(b, fn_ty, marker, args.as_mut_ptr(), 1, c"vla".as_ptr());
            LLVMReplaceAllUsesWith(inst, call);
            dead.push(inst);
        }
        for inst in dead {
            LLVMInstructionEraseFromParent(inst);
        }
        LLVMDisposeBuilder(b);
    }
}

/// Turns the `VLA_MARKER` calls of a generated function back into dynamic allocas (16-byte
/// aligned, as clang aligns VLAs).
pub fn restore_dynamic_allocas(function: inkwell::values::FunctionValue<'_>) {
    use inkwell::llvm_sys::core::*;
    use inkwell::values::AsValueRef;
    // SAFETY: the function is live; each marker call is replaced and then erased.
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(function.as_value_ref()));
        let b = LLVMCreateBuilderInContext(ctx);
        let i8_ty = LLVMInt8TypeInContext(ctx);
        let calls: Vec<_> = function_instructions(function.as_value_ref())
            .into_iter()
            .filter(|inst| {
                !LLVMIsACallInst(*inst).is_null()
                    && inkwell::values::FunctionValue::new(LLVMGetCalledValue(*inst))
                        .is_some_and(|f| f.get_name().to_bytes() == VLA_MARKER.as_bytes())
            })
            .collect();
        for call in calls {
            LLVMPositionBuilderBefore(b, call);
            let alloca = LLVMBuildArrayAlloca(b, i8_ty, LLVMGetOperand(call, 0), c"vla".as_ptr());
            LLVMSetAlignment(alloca, 16);
            LLVMReplaceAllUsesWith(call, alloca);
            LLVMInstructionEraseFromParent(call);
        }
        LLVMDisposeBuilder(b);
    }
}

/// The instructions of a function, in layout order (collected first, so that a pass may
/// insert and replace instructions while it walks them).
unsafe fn function_instructions(f: inkwell::llvm_sys::prelude::LLVMValueRef) -> Vec<inkwell::llvm_sys::prelude::LLVMValueRef> {
    use inkwell::llvm_sys::core::*;
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
unsafe fn instructions(module: &Module<'_>) -> Vec<inkwell::llvm_sys::prelude::LLVMValueRef> {
    use inkwell::values::AsValueRef;
    module.get_functions().flat_map(|f| function_instructions(f.as_value_ref())).collect()
}
