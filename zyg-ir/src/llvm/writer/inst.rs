//! Emitting one instruction: a dispatch over the instruction kinds, the kinds that need
//! more than one builder call, and the opcode and predicate tables.

use super::{WriteError, Writer};
use crate::constant::Constant;
use crate::entities::{Block, Value};
use crate::inst::{BinOp, Callee, CastOp, FloatPred, InstKind, IntPred, UnOp};
use crate::types::{Signature, Type};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate};

/// The empty name every instruction gets (LLVM numbers them).
const NAME: &std::ffi::CStr = c"";

/// A call must use its callee's convention (clang -O2 gives internal functions `fastcc`);
/// a mismatch is undefined behaviour LLVM exploits.
unsafe fn with_callee_convention(call: LLVMValueRef, target: LLVMValueRef) -> LLVMValueRef {
    if !LLVMIsAFunction(target).is_null() {
        LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(target));
    }
    call
}

/// zyg-ir does not keep a load's or store's alignment, and LLVM's default for a vector is
/// its whole size (16 for `<2 x double>`), which clang `-O2` code does not promise: its
/// vector accesses to a `double` array are aligned to a `double`. So vector accesses get
/// their element's size, which every array of those elements has, and struct and array
/// accesses at most malloc's (below); scalars keep LLVM's default, their natural alignment.
unsafe fn set_access_alignment(access: LLVMValueRef, ty: &Type) {
    match ty {
        Type::Vector(_, elem) => {
            let bytes = match &**elem {
                Type::Float(f) => f.bits().div_ceil(8).min(16),
                Type::Int(bits) => bits.div_ceil(8).max(1),
                _ => 8,
            };
            LLVMSetAlignment(access, bytes.next_power_of_two());
        }
        // A struct or array holding vectors is 32- or 64-byte aligned by the data layout
        // (`<4 x double>` under AVX), which LLVM gives a whole-aggregate access by default;
        // but tape records live in `malloc`ed chunks, 16-byte aligned, and an aligned AVX
        // store there faults. No more than malloc's alignment is assumed.
        Type::Struct(_) | Type::Array(..) if LLVMGetAlignment(access) > MALLOC_ALIGNMENT => {
            LLVMSetAlignment(access, MALLOC_ALIGNMENT);
        }
        _ => {}
    }
}

/// The alignment `malloc` guarantees on the targets zyg writes for (x86-64, AArch64).
const MALLOC_ALIGNMENT: u32 = 16;

impl Writer<'_> {
    /// Builds the instruction `kind` at the builder's position; `ty` is its result's type.
    pub(super) unsafe fn emit(&mut self, kind: &InstKind, ty: &Type) -> Result<LLVMValueRef, WriteError> {
        let b = self.builder;
        let name = NAME.as_ptr();
        Ok(match kind {
            InstKind::Binary { op, args } => {
                let (l, r) = (self.value(args[0])?, self.value(args[1])?);
                LLVMBuildBinOp(b, binop(*op), l, r, name)
            }
            InstKind::Unary { op: UnOp::FNeg, arg } => LLVMBuildFNeg(b, self.value(*arg)?, name),
            InstKind::Unary { op: UnOp::Freeze, arg } => LLVMBuildFreeze(b, self.value(*arg)?, name),
            InstKind::Cast { op, arg } => LLVMBuildCast(b, castop(*op), self.value(*arg)?, self.lty(ty), name),
            InstKind::FCmp { pred, args } => {
                let (l, r) = (self.value(args[0])?, self.value(args[1])?);
                LLVMBuildFCmp(b, float_pred(*pred), l, r, name)
            }
            InstKind::ICmp { pred, args } => {
                let (l, r) = (self.value(args[0])?, self.value(args[1])?);
                LLVMBuildICmp(b, int_pred(*pred), l, r, name)
            }
            InstKind::Select { cond, then_value, else_value } => {
                let (c, t, e) = (self.value(*cond)?, self.value(*then_value)?, self.value(*else_value)?);
                LLVMBuildSelect(b, c, t, e, name)
            }
            InstKind::Phi { .. } => LLVMBuildPhi(b, self.lty(ty), name),
            InstKind::Call { callee, sig, args, unwind: None } => self.call(callee, sig, args)?,
            InstKind::Call { callee, sig, args, unwind: Some(pad) } => self.invoke(callee, sig, args, *pad)?,
            InstKind::LandingPad { cleanup, clauses } => {
                let pad = LLVMBuildLandingPad(b, self.lty(ty), std::ptr::null_mut(), clauses.len() as u32, name);
                for c in clauses {
                    LLVMAddClause(pad, self.value(*c)?);
                }
                LLVMSetCleanup(pad, *cleanup as i32);
                pad
            }
            InstKind::Resume { value } => LLVMBuildResume(b, self.value(*value)?),
            InstKind::Alloca { ty } => self.alloca(ty),
            InstKind::Load { ty, ptr } => {
                let load = LLVMBuildLoad2(b, self.lty(ty), self.value(*ptr)?, name);
                set_access_alignment(load, ty);
                load
            }
            InstKind::AtomicFAdd { ptr, value, ordering } => LLVMBuildAtomicRMW(
                b,
                inkwell::llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd,
                self.value(*ptr)?,
                self.value(*value)?,
                atomic_ordering(*ordering),
                0,
            ),
            InstKind::CmpXchg { ptr, expected, new, success, failure, weak, volatile } => {
                let (p, e, n) = (self.value(*ptr)?, self.value(*expected)?, self.value(*new)?);
                let made = LLVMBuildAtomicCmpXchg(b, p, e, n, atomic_ordering(*success), atomic_ordering(*failure), 0);
                LLVMSetWeak(made, i32::from(*weak));
                LLVMSetVolatile(made, i32::from(*volatile));
                made
            }
            InstKind::AtomicRmw { op, ptr, value, ordering, volatile } => {
                let made =
                    LLVMBuildAtomicRMW(b, rmw_op(*op), self.value(*ptr)?, self.value(*value)?, atomic_ordering(*ordering), 0);
                LLVMSetVolatile(made, i32::from(*volatile));
                made
            }
            InstKind::Store { value, ptr } => {
                let store = LLVMBuildStore(b, self.value(*value)?, self.value(*ptr)?);
                set_access_alignment(store, self.func.ty(*value));
                store
            }
            InstKind::Gep { source_ty, base, indices, inbounds } => self.gep(source_ty, *base, indices, *inbounds)?,
            InstKind::ExtractValue { agg, indices } => self.extract_value(*agg, indices)?,
            InstKind::InsertValue { agg, value, indices } => self.insert_value(*agg, *value, indices)?,
            InstKind::ExtractElement { vec, index } => LLVMBuildExtractElement(b, self.value(*vec)?, self.value(*index)?, name),
            InstKind::InsertElement { vec, value, index } => {
                let (v, x, i) = (self.value(*vec)?, self.value(*value)?, self.value(*index)?);
                LLVMBuildInsertElement(b, v, x, i, name)
            }
            InstKind::ShuffleVector { a, b: other, mask } => self.shuffle_vector(*a, *other, mask)?,
            InstKind::Br { dest } => LLVMBuildBr(b, self.block(*dest)?),
            InstKind::CondBr { cond, then_dest, else_dest } => {
                LLVMBuildCondBr(b, self.value(*cond)?, self.block(*then_dest)?, self.block(*else_dest)?)
            }
            InstKind::Switch { value, default, cases } => self.switch(*value, *default, cases)?,
            InstKind::Ret { value: Some(v) } => LLVMBuildRet(b, self.value(*v)?),
            InstKind::Ret { value: None } => LLVMBuildRetVoid(b),
            InstKind::Unreachable => LLVMBuildUnreachable(b),
        })
    }

    unsafe fn call(&mut self, callee: &Callee, sig: &Signature, args: &[Value]) -> Result<LLVMValueRef, WriteError> {
        let (target, mut argv) = self.call_operands(callee, sig, args)?;
        let call = LLVMBuildCall2(self.builder, self.fn_type(sig), target, argv.as_mut_ptr(), argv.len() as u32, NAME.as_ptr());
        Ok(with_callee_convention(call, target))
    }

    /// A call with an unwind edge: an `invoke` that ends the LLVM block, whose normal
    /// destination is a new block right after it where the rest of the zyg block goes.
    unsafe fn invoke(
        &mut self,
        callee: &Callee,
        sig: &Signature,
        args: &[Value],
        pad: Block,
    ) -> Result<LLVMValueRef, WriteError> {
        let (target, mut argv) = self.call_operands(callee, sig, args)?;
        let here = LLVMGetInsertBlock(self.builder);
        let next = LLVMAppendBasicBlockInContext(self.ctx, self.fv, NAME.as_ptr());
        LLVMMoveBasicBlockAfter(next, here);
        let unwind = self.block(pad)?;
        let invoke = LLVMBuildInvoke2(
            self.builder,
            self.fn_type(sig),
            target,
            argv.as_mut_ptr(),
            argv.len() as u32,
            next,
            unwind,
            NAME.as_ptr(),
        );
        self.invokes.entry((self.current, pad)).or_default().push(here);
        LLVMPositionBuilderAtEnd(self.builder, next);
        Ok(with_callee_convention(invoke, target))
    }

    unsafe fn call_operands(
        &mut self,
        callee: &Callee,
        sig: &Signature,
        args: &[Value],
    ) -> Result<(LLVMValueRef, Vec<LLVMValueRef>), WriteError> {
        let target = match callee {
            Callee::Direct(n) => self.get_or_declare(n, sig),
            Callee::Indirect(v) => self.value(*v)?,
        };
        let argv = args.iter().map(|a| self.value(*a)).collect::<Result<Vec<_>, _>>()?;
        Ok((target, argv))
    }

    unsafe fn alloca(&mut self, ty: &Type) -> LLVMValueRef {
        // Allocas go to the entry block, where mem2reg and SROA look for them.
        let entry = LLVMGetEntryBasicBlock(self.fv);
        let tmp = LLVMCreateBuilderInContext(self.ctx);
        let first = LLVMGetFirstInstruction(entry);
        if first.is_null() {
            LLVMPositionBuilderAtEnd(tmp, entry);
        } else {
            LLVMPositionBuilderBefore(tmp, first);
        }
        let a = LLVMBuildAlloca(tmp, self.lty(ty), NAME.as_ptr());
        LLVMDisposeBuilder(tmp);
        // zyg-ir keeps no alloca alignment, and the type's own may be less than the
        // program's: an over-aligned C++ object (Eigen's `Matrix4d` is `alignas(32)` with
        // AVX) is read with aligned vector instructions by the functions it is passed to.
        // An object of `alignas(N)` is at least N bytes, so aligning every slot to its size's
        // largest power of two, up to 64, gives each the alignment it may have asked for.
        if let Some((size, _)) = ty.natural_layout().filter(|(s, _)| *s >= 16) {
            let wanted = (1u64 << (63 - size.leading_zeros())).min(64) as u32;
            if LLVMGetAlignment(a) < wanted {
                LLVMSetAlignment(a, wanted);
            }
        }
        a
    }

    unsafe fn gep(
        &mut self,
        source_ty: &Type,
        base: Value,
        indices: &[Value],
        inbounds: bool,
    ) -> Result<LLVMValueRef, WriteError> {
        let base = self.value(base)?;
        let mut idx = indices.iter().map(|i| self.value(*i)).collect::<Result<Vec<_>, _>>()?;
        let sty = self.lty(source_ty);
        let n = idx.len() as u32;
        Ok(if inbounds {
            LLVMBuildInBoundsGEP2(self.builder, sty, base, idx.as_mut_ptr(), n, NAME.as_ptr())
        } else {
            LLVMBuildGEP2(self.builder, sty, base, idx.as_mut_ptr(), n, NAME.as_ptr())
        })
    }

    /// extractvalue with a path of indices: one extraction per index.
    unsafe fn extract_value(&mut self, agg: Value, indices: &[u32]) -> Result<LLVMValueRef, WriteError> {
        let mut v = self.value(agg)?;
        for i in indices {
            v = LLVMBuildExtractValue(self.builder, v, *i, NAME.as_ptr());
        }
        Ok(v)
    }

    /// insertvalue with a path of indices: extract the inner aggregates, insert, rebuild.
    unsafe fn insert_value(&mut self, agg: Value, value: Value, indices: &[u32]) -> Result<LLVMValueRef, WriteError> {
        let (b, name) = (self.builder, NAME.as_ptr());
        let mut chain = vec![self.value(agg)?];
        for i in &indices[..indices.len().saturating_sub(1)] {
            let last = *chain.last().expect("non-empty");
            chain.push(LLVMBuildExtractValue(b, last, *i, name));
        }
        let mut v = self.value(value)?;
        for (outer, i) in chain.iter().zip(indices).rev() {
            v = LLVMBuildInsertValue(b, *outer, v, *i, name);
        }
        Ok(v)
    }

    unsafe fn shuffle_vector(&mut self, a: Value, b: Value, mask: &[i32]) -> Result<LLVMValueRef, WriteError> {
        let i32_ty = LLVMInt32TypeInContext(self.ctx);
        let mut lanes: Vec<LLVMValueRef> = mask
            .iter()
            // A poison lane becomes lane 0, a refinement: the adjoint multiplies the
            // primal's lanes by adjoints that are zero in unused lanes, and 0 times
            // garbage can be NaN.
            .map(|m| LLVMConstInt(i32_ty, (*m).max(0) as u64, 0))
            .collect();
        let mask = LLVMConstVector(lanes.as_mut_ptr(), lanes.len() as u32);
        Ok(LLVMBuildShuffleVector(self.builder, self.value(a)?, self.value(b)?, mask, NAME.as_ptr()))
    }

    unsafe fn switch(&mut self, value: Value, default: Block, cases: &[(Constant, Block)]) -> Result<LLVMValueRef, WriteError> {
        let sw = LLVMBuildSwitch(self.builder, self.value(value)?, self.block(default)?, cases.len() as u32);
        for (c, dest) in cases {
            LLVMAddCase(sw, self.constant(c)?, self.block(*dest)?);
        }
        Ok(sw)
    }
}

fn binop(op: BinOp) -> LLVMOpcode {
    use LLVMOpcode::*;
    match op {
        BinOp::FAdd => LLVMFAdd,
        BinOp::FSub => LLVMFSub,
        BinOp::FMul => LLVMFMul,
        BinOp::FDiv => LLVMFDiv,
        BinOp::FRem => LLVMFRem,
        BinOp::Add => LLVMAdd,
        BinOp::Sub => LLVMSub,
        BinOp::Mul => LLVMMul,
        BinOp::UDiv => LLVMUDiv,
        BinOp::SDiv => LLVMSDiv,
        BinOp::URem => LLVMURem,
        BinOp::SRem => LLVMSRem,
        BinOp::Shl => LLVMShl,
        BinOp::LShr => LLVMLShr,
        BinOp::AShr => LLVMAShr,
        BinOp::And => LLVMAnd,
        BinOp::Or => LLVMOr,
        BinOp::Xor => LLVMXor,
    }
}

fn castop(op: CastOp) -> LLVMOpcode {
    use LLVMOpcode::*;
    match op {
        CastOp::FPExt => LLVMFPExt,
        CastOp::FPTrunc => LLVMFPTrunc,
        CastOp::SIToFP => LLVMSIToFP,
        CastOp::UIToFP => LLVMUIToFP,
        CastOp::FPToSI => LLVMFPToSI,
        CastOp::FPToUI => LLVMFPToUI,
        CastOp::ZExt => LLVMZExt,
        CastOp::SExt => LLVMSExt,
        CastOp::Trunc => LLVMTrunc,
        CastOp::BitCast => LLVMBitCast,
        CastOp::PtrToInt => LLVMPtrToInt,
        CastOp::IntToPtr => LLVMIntToPtr,
        CastOp::AddrSpaceCast => LLVMAddrSpaceCast,
    }
}

fn float_pred(p: FloatPred) -> LLVMRealPredicate {
    use LLVMRealPredicate::*;
    match p {
        FloatPred::False => LLVMRealPredicateFalse,
        FloatPred::Oeq => LLVMRealOEQ,
        FloatPred::Ogt => LLVMRealOGT,
        FloatPred::Oge => LLVMRealOGE,
        FloatPred::Olt => LLVMRealOLT,
        FloatPred::Ole => LLVMRealOLE,
        FloatPred::One => LLVMRealONE,
        FloatPred::Ord => LLVMRealORD,
        FloatPred::Uno => LLVMRealUNO,
        FloatPred::Ueq => LLVMRealUEQ,
        FloatPred::Ugt => LLVMRealUGT,
        FloatPred::Uge => LLVMRealUGE,
        FloatPred::Ult => LLVMRealULT,
        FloatPred::Ule => LLVMRealULE,
        FloatPred::Une => LLVMRealUNE,
        FloatPred::True => LLVMRealPredicateTrue,
    }
}

fn int_pred(p: IntPred) -> LLVMIntPredicate {
    use LLVMIntPredicate::*;
    match p {
        IntPred::Eq => LLVMIntEQ,
        IntPred::Ne => LLVMIntNE,
        IntPred::Ugt => LLVMIntUGT,
        IntPred::Uge => LLVMIntUGE,
        IntPred::Ult => LLVMIntULT,
        IntPred::Ule => LLVMIntULE,
        IntPred::Sgt => LLVMIntSGT,
        IntPred::Sge => LLVMIntSGE,
        IntPred::Slt => LLVMIntSLT,
        IntPred::Sle => LLVMIntSLE,
    }
}

/// LLVM's code for an `atomicrmw` operation.
fn rmw_op(op: crate::RmwOp) -> inkwell::llvm_sys::LLVMAtomicRMWBinOp {
    use crate::RmwOp;
    use inkwell::llvm_sys::LLVMAtomicRMWBinOp::*;
    match op {
        RmwOp::Xchg => LLVMAtomicRMWBinOpXchg,
        RmwOp::Add => LLVMAtomicRMWBinOpAdd,
        RmwOp::Sub => LLVMAtomicRMWBinOpSub,
        RmwOp::And => LLVMAtomicRMWBinOpAnd,
        RmwOp::Nand => LLVMAtomicRMWBinOpNand,
        RmwOp::Or => LLVMAtomicRMWBinOpOr,
        RmwOp::Xor => LLVMAtomicRMWBinOpXor,
        RmwOp::Max => LLVMAtomicRMWBinOpMax,
        RmwOp::Min => LLVMAtomicRMWBinOpMin,
        RmwOp::UMax => LLVMAtomicRMWBinOpUMax,
        RmwOp::UMin => LLVMAtomicRMWBinOpUMin,
    }
}

/// LLVM's code for an atomic ordering.
fn atomic_ordering(o: crate::AtomicOrdering) -> inkwell::llvm_sys::LLVMAtomicOrdering {
    use crate::AtomicOrdering;
    use inkwell::llvm_sys::LLVMAtomicOrdering::*;
    match o {
        AtomicOrdering::Monotonic => LLVMAtomicOrderingMonotonic,
        AtomicOrdering::Acquire => LLVMAtomicOrderingAcquire,
        AtomicOrdering::Release => LLVMAtomicOrderingRelease,
        AtomicOrdering::AcqRel => LLVMAtomicOrderingAcquireRelease,
        AtomicOrdering::SeqCst => LLVMAtomicOrderingSequentiallyConsistent,
    }
}
