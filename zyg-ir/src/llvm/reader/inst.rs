//! Reading one LLVM instruction as an `InstKind`: a dispatch over the opcodes, the
//! instructions that need more than their operands, and the opcode and predicate tables.

use super::constant::read_constant;
use super::function::FunctionReader;
use super::read_signature;
use crate::inst::{BinOp, Callee, CastOp, FloatPred, InstKind, IntPred, UnOp};
use crate::llvm::raw::{global_name, print_value, read_type};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate};

impl FunctionReader {
    /// What LLVM instruction `inst` is, or why it cannot be read. Operands are read in the
    /// order they are written here: it is the order constants get their values.
    pub(super) unsafe fn read_inst(&mut self, inst: LLVMValueRef) -> Result<InstKind, String> {
        use LLVMOpcode::*;
        let opcode = LLVMGetInstructionOpcode(inst);
        if let Some(op) = binop(opcode) {
            return Ok(InstKind::Binary { op, args: [self.op(inst, 0)?, self.op(inst, 1)?] });
        }
        if let Some(op) = castop(opcode) {
            return Ok(InstKind::Cast { op, arg: self.op(inst, 0)? });
        }
        Ok(match opcode {
            LLVMFNeg => InstKind::Unary { op: UnOp::FNeg, arg: self.op(inst, 0)? },
            LLVMFreeze => InstKind::Unary { op: UnOp::Freeze, arg: self.op(inst, 0)? },
            LLVMFCmp => {
                InstKind::FCmp { pred: float_pred(LLVMGetFCmpPredicate(inst)), args: [self.op(inst, 0)?, self.op(inst, 1)?] }
            }
            LLVMICmp => {
                InstKind::ICmp { pred: int_pred(LLVMGetICmpPredicate(inst)), args: [self.op(inst, 0)?, self.op(inst, 1)?] }
            }
            LLVMSelect => {
                InstKind::Select { cond: self.op(inst, 0)?, then_value: self.op(inst, 1)?, else_value: self.op(inst, 2)? }
            }
            LLVMPHI => self.read_phi(inst)?,
            LLVMCall | LLVMInvoke => self.read_call(inst)?,
            LLVMLandingPad => self.read_landing_pad(inst)?,
            LLVMResume => InstKind::Resume { value: self.op(inst, 0)? },
            LLVMAlloca => read_alloca(inst)?,
            LLVMLoad => InstKind::Load { ty: read_type(LLVMTypeOf(inst))?, ptr: self.op(inst, 0)? },
            LLVMStore => InstKind::Store { value: self.op(inst, 0)?, ptr: self.op(inst, 1)? },
            LLVMAtomicRMW => self.read_atomic_rmw(inst)?,
            LLVMAtomicCmpXchg => self.read_cmpxchg(inst)?,
            LLVMGetElementPtr => self.read_gep(inst)?,
            LLVMExtractValue => InstKind::ExtractValue { agg: self.op(inst, 0)?, indices: indices(inst) },
            LLVMExtractElement => InstKind::ExtractElement { vec: self.op(inst, 0)?, index: self.op(inst, 1)? },
            LLVMInsertElement => {
                InstKind::InsertElement { vec: self.op(inst, 0)?, value: self.op(inst, 1)?, index: self.op(inst, 2)? }
            }
            LLVMShuffleVector => self.read_shuffle(inst)?,
            LLVMInsertValue => InstKind::InsertValue { agg: self.op(inst, 0)?, value: self.op(inst, 1)?, indices: indices(inst) },
            LLVMBr if LLVMIsConditional(inst) != 0 => InstKind::CondBr {
                cond: self.operand(LLVMGetCondition(inst))?,
                then_dest: self.block(LLVMGetSuccessor(inst, 0))?,
                else_dest: self.block(LLVMGetSuccessor(inst, 1))?,
            },
            LLVMBr => InstKind::Br { dest: self.block(LLVMGetSuccessor(inst, 0))? },
            LLVMSwitch => self.read_switch(inst)?,
            LLVMRet => InstKind::Ret { value: if LLVMGetNumOperands(inst) > 0 { Some(self.op(inst, 0)?) } else { None } },
            LLVMUnreachable => InstKind::Unreachable,
            _ => return Err(format!("the `{}` instruction is not supported yet", opcode_word(inst))),
        })
    }

    /// An integer `atomicrmw`, or a float addition (`#pragma omp atomic`, the atomic method of
    /// an OpenMP reduction, CUDA's `atomicAdd`), read as `AtomicFAdd`, whose adjoint
    /// `rules::access` knows; the other float forms and the pointer forms are refused, and so
    /// are volatile and single-thread (`syncscope`) ones.
    unsafe fn read_atomic_rmw(&mut self, inst: LLVMValueRef) -> Result<InstKind, String> {
        use crate::RmwOp;
        use inkwell::llvm_sys::LLVMAtomicRMWBinOp::*;
        if LLVMGetAtomicRMWBinOp(inst) == LLVMAtomicRMWBinOpFAdd
            && LLVMGetVolatile(inst) == 0
            && LLVMIsAtomicSingleThread(inst) == 0
            && matches!(read_type(LLVMTypeOf(inst))?, crate::Type::Float(_))
        {
            let ordering = ordering(LLVMGetOrdering(inst));
            return Ok(InstKind::AtomicFAdd { ptr: self.op(inst, 0)?, value: self.op(inst, 1)?, ordering });
        }
        let op = match LLVMGetAtomicRMWBinOp(inst) {
            LLVMAtomicRMWBinOpXchg => RmwOp::Xchg,
            LLVMAtomicRMWBinOpAdd => RmwOp::Add,
            LLVMAtomicRMWBinOpSub => RmwOp::Sub,
            LLVMAtomicRMWBinOpAnd => RmwOp::And,
            LLVMAtomicRMWBinOpNand => RmwOp::Nand,
            LLVMAtomicRMWBinOpOr => RmwOp::Or,
            LLVMAtomicRMWBinOpXor => RmwOp::Xor,
            LLVMAtomicRMWBinOpMax => RmwOp::Max,
            LLVMAtomicRMWBinOpMin => RmwOp::Min,
            LLVMAtomicRMWBinOpUMax => RmwOp::UMax,
            LLVMAtomicRMWBinOpUMin => RmwOp::UMin,
            _ => {
                return Err("`atomicrmw` on floats other than `fadd` is not supported yet: zyg differentiates atomic \
                            additions of floats and atomic updates of integers only"
                    .into())
            }
        };
        let value = self.op(inst, 1)?;
        if !matches!(read_type(LLVMTypeOf(inst))?, crate::Type::Int(_)) {
            return Err("`atomicrmw` on a pointer or a float is not supported yet: zyg differentiates atomic updates of \
                        integers only"
                .into());
        }
        if LLVMIsAtomicSingleThread(inst) != 0 {
            return Err("a single-thread (`syncscope`) `atomicrmw` is not supported yet".into());
        }
        let ordering = ordering(LLVMGetOrdering(inst));
        let volatile = LLVMGetVolatile(inst) != 0;
        Ok(InstKind::AtomicRmw { op, ptr: self.op(inst, 0)?, value, ordering, volatile })
    }

    /// An integer `cmpxchg`; others are refused, as `atomicrmw`'s are.
    unsafe fn read_cmpxchg(&mut self, inst: LLVMValueRef) -> Result<InstKind, String> {
        let expected = self.op(inst, 1)?;
        if !matches!(read_type(LLVMTypeOf(LLVMGetOperand(inst, 1)))?, crate::Type::Int(_)) {
            return Err("`cmpxchg` of a pointer is not supported yet: zyg differentiates atomic updates of integers only".into());
        }
        if LLVMIsAtomicSingleThread(inst) != 0 {
            return Err("a single-thread (`syncscope`) `cmpxchg` is not supported yet".into());
        }
        Ok(InstKind::CmpXchg {
            ptr: self.op(inst, 0)?,
            expected,
            new: self.op(inst, 2)?,
            success: ordering(LLVMGetCmpXchgSuccessOrdering(inst)),
            failure: ordering(LLVMGetCmpXchgFailureOrdering(inst)),
            weak: LLVMGetWeak(inst) != 0,
            volatile: LLVMGetVolatile(inst) != 0,
        })
    }

    unsafe fn read_phi(&mut self, inst: LLVMValueRef) -> Result<InstKind, String> {
        let mut incoming = Vec::new();
        for i in 0..LLVMCountIncoming(inst) {
            let block = self.block(LLVMGetIncomingBlock(inst, i))?;
            incoming.push((block, self.operand(LLVMGetIncomingValue(inst, i))?));
        }
        Ok(InstKind::Phi { incoming })
    }

    unsafe fn read_gep(&mut self, inst: LLVMValueRef) -> Result<InstKind, String> {
        let n = LLVMGetNumOperands(inst) as u32;
        let indices = (1..n).map(|i| self.op(inst, i)).collect::<Result<_, _>>()?;
        Ok(InstKind::Gep {
            source_ty: read_type(LLVMGetGEPSourceElementType(inst))?,
            base: self.op(inst, 0)?,
            indices,
            inbounds: LLVMIsInBounds(inst) != 0,
        })
    }

    unsafe fn read_shuffle(&mut self, inst: LLVMValueRef) -> Result<InstKind, String> {
        // LLVM marks poison lanes with a negative mask value.
        let mask = (0..LLVMGetNumMaskElements(inst)).map(|i| LLVMGetMaskValue(inst, i).max(-1)).collect();
        Ok(InstKind::ShuffleVector { a: self.op(inst, 0)?, b: self.op(inst, 1)?, mask })
    }

    unsafe fn read_switch(&mut self, inst: LLVMValueRef) -> Result<InstKind, String> {
        // Successor 0 is the default; successor i > 0 belongs to case value i.
        let mut cases = Vec::new();
        for i in 1..LLVMGetNumSuccessors(inst) {
            let value = read_constant(LLVMGetSwitchCaseValue(inst, i))?;
            cases.push((value, self.block(LLVMGetSuccessor(inst, i))?));
        }
        Ok(InstKind::Switch { value: self.op(inst, 0)?, default: self.block(LLVMGetSwitchDefaultDest(inst))?, cases })
    }

    unsafe fn read_call(&mut self, inst: LLVMValueRef) -> Result<InstKind, String> {
        let sig = read_signature(LLVMGetCalledFunctionType(inst))?;
        let called = LLVMGetCalledValue(inst);
        // A call through another type than the function's own (C's `double f();` called
        // as `f(1.0)`, or undefined behaviour) is read as a call through a pointer: zyg's
        // primal and adjoint of the function have its own signature.
        let same_type = !LLVMIsAFunction(called).is_null() && LLVMGlobalGetValueType(called) == LLVMGetCalledFunctionType(inst);
        let callee = if same_type {
            let name = global_name(called)?;
            self.callees.entry(name.clone()).or_insert_with(|| sig.clone());
            Callee::Direct(name.into())
        } else if !LLVMIsAInlineAsm(called).is_null() {
            return Err(format!(
                "inline assembly `{}` is not supported: zyg reads only empty templates (optimisation barriers, whose \
                 outputs are their tied inputs), assembler comments, and the SSE/AVX min, max and fused multiply-add \
                 Eigen writes as asm; write the operation in C or with intrinsics",
                inline_asm_template(called)
            ));
        } else {
            Callee::Indirect(self.operand(called)?)
        };
        let args = (0..LLVMGetNumArgOperands(inst)).map(|i| self.op(inst, i)).collect::<Result<_, _>>()?;
        // The function an OpenMP fork runs on a team is called as surely as a direct callee.
        if matches!(&callee, Callee::Direct(name) if &**name == "__kmpc_fork_call") {
            let outlined = LLVMGetOperand(inst, 2);
            if !LLVMIsAFunction(outlined).is_null() {
                let sig = read_signature(LLVMGlobalGetValueType(outlined))?;
                self.callees.entry(global_name(outlined)?).or_insert(sig);
            }
        }
        // An invoke's normal destination is the `br` the reader puts after it.
        let unwind = if LLVMGetInstructionOpcode(inst) == LLVMOpcode::LLVMInvoke {
            Some(self.block(LLVMGetUnwindDest(inst))?)
        } else {
            None
        };
        Ok(InstKind::Call { callee, sig, args, unwind })
    }

    /// A `landingpad`: its `catch` clauses (type infos, or null for `catch (...)`). A
    /// `filter` clause (a dynamic exception specification, `throw(int)`) is refused.
    unsafe fn read_landing_pad(&mut self, inst: LLVMValueRef) -> Result<InstKind, String> {
        let mut clauses = Vec::new();
        for i in 0..LLVMGetNumClauses(inst) {
            let clause = LLVMGetClause(inst, i);
            if LLVMGetTypeKind(LLVMTypeOf(clause)) == inkwell::llvm_sys::LLVMTypeKind::LLVMArrayTypeKind {
                return Err("a landing pad with a `filter` clause (a dynamic exception specification such as `throw(int)`) \
                            is not supported; remove the exception specification"
                    .into());
            }
            clauses.push(self.operand(clause)?);
        }
        Ok(InstKind::LandingPad { cleanup: LLVMIsCleanup(inst) != 0, clauses })
    }
}

/// An `alloca` of one element (a dynamic count is refused).
unsafe fn read_alloca(inst: LLVMValueRef) -> Result<InstKind, String> {
    let count = LLVMGetOperand(inst, 0);
    if LLVMIsAConstantInt(count).is_null() || LLVMConstIntGetZExtValue(count) != 1 {
        return Err("alloca of a dynamic number of elements is not supported yet".into());
    }
    Ok(InstKind::Alloca { ty: read_type(LLVMGetAllocatedType(inst))? })
}

/// The constant indices of an `extractvalue` or `insertvalue`.
unsafe fn indices(inst: LLVMValueRef) -> Vec<u32> {
    let n = LLVMGetNumIndices(inst) as usize;
    std::slice::from_raw_parts(LLVMGetIndices(inst), n).to_vec()
}

/// The opcode's mnemonic as LLVM prints it, for "not supported" messages.
unsafe fn opcode_word(inst: LLVMValueRef) -> String {
    let text = print_value(inst);
    let body = text.split_once(" = ").map(|(_, rhs)| rhs).unwrap_or(&text);
    body.split_whitespace().next().unwrap_or("?").to_string()
}

fn binop(op: LLVMOpcode) -> Option<BinOp> {
    use LLVMOpcode::*;
    Some(match op {
        LLVMFAdd => BinOp::FAdd,
        LLVMFSub => BinOp::FSub,
        LLVMFMul => BinOp::FMul,
        LLVMFDiv => BinOp::FDiv,
        LLVMFRem => BinOp::FRem,
        LLVMAdd => BinOp::Add,
        LLVMSub => BinOp::Sub,
        LLVMMul => BinOp::Mul,
        LLVMUDiv => BinOp::UDiv,
        LLVMSDiv => BinOp::SDiv,
        LLVMURem => BinOp::URem,
        LLVMSRem => BinOp::SRem,
        LLVMShl => BinOp::Shl,
        LLVMLShr => BinOp::LShr,
        LLVMAShr => BinOp::AShr,
        LLVMAnd => BinOp::And,
        LLVMOr => BinOp::Or,
        LLVMXor => BinOp::Xor,
        _ => return None,
    })
}

fn castop(op: LLVMOpcode) -> Option<CastOp> {
    use LLVMOpcode::*;
    Some(match op {
        LLVMFPExt => CastOp::FPExt,
        LLVMFPTrunc => CastOp::FPTrunc,
        LLVMSIToFP => CastOp::SIToFP,
        LLVMUIToFP => CastOp::UIToFP,
        LLVMFPToSI => CastOp::FPToSI,
        LLVMFPToUI => CastOp::FPToUI,
        LLVMZExt => CastOp::ZExt,
        LLVMSExt => CastOp::SExt,
        LLVMTrunc => CastOp::Trunc,
        LLVMBitCast => CastOp::BitCast,
        LLVMPtrToInt => CastOp::PtrToInt,
        LLVMIntToPtr => CastOp::IntToPtr,
        LLVMAddrSpaceCast => CastOp::AddrSpaceCast,
        _ => return None,
    })
}

fn float_pred(p: LLVMRealPredicate) -> FloatPred {
    use LLVMRealPredicate::*;
    match p {
        LLVMRealPredicateFalse => FloatPred::False,
        LLVMRealOEQ => FloatPred::Oeq,
        LLVMRealOGT => FloatPred::Ogt,
        LLVMRealOGE => FloatPred::Oge,
        LLVMRealOLT => FloatPred::Olt,
        LLVMRealOLE => FloatPred::Ole,
        LLVMRealONE => FloatPred::One,
        LLVMRealORD => FloatPred::Ord,
        LLVMRealUNO => FloatPred::Uno,
        LLVMRealUEQ => FloatPred::Ueq,
        LLVMRealUGT => FloatPred::Ugt,
        LLVMRealUGE => FloatPred::Uge,
        LLVMRealULT => FloatPred::Ult,
        LLVMRealULE => FloatPred::Ule,
        LLVMRealUNE => FloatPred::Une,
        LLVMRealPredicateTrue => FloatPred::True,
    }
}

fn int_pred(p: LLVMIntPredicate) -> IntPred {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => IntPred::Eq,
        LLVMIntNE => IntPred::Ne,
        LLVMIntUGT => IntPred::Ugt,
        LLVMIntUGE => IntPred::Uge,
        LLVMIntULT => IntPred::Ult,
        LLVMIntULE => IntPred::Ule,
        LLVMIntSGT => IntPred::Sgt,
        LLVMIntSGE => IntPred::Sge,
        LLVMIntSLT => IntPred::Slt,
        LLVMIntSLE => IntPred::Sle,
    }
}

/// zyg's name for an LLVM atomic ordering (an atomic instruction's are never `unordered`).
fn ordering(o: inkwell::llvm_sys::LLVMAtomicOrdering) -> crate::AtomicOrdering {
    use crate::AtomicOrdering;
    use inkwell::llvm_sys::LLVMAtomicOrdering::*;
    match o {
        LLVMAtomicOrderingMonotonic => AtomicOrdering::Monotonic,
        LLVMAtomicOrderingAcquire => AtomicOrdering::Acquire,
        LLVMAtomicOrderingRelease => AtomicOrdering::Release,
        LLVMAtomicOrderingAcquireRelease => AtomicOrdering::AcqRel,
        _ => AtomicOrdering::SeqCst,
    }
}

/// The template of inline asm `asm`, for messages.
///
/// # Safety
/// `asm` must be a live inline asm value.
unsafe fn inline_asm_template(asm: LLVMValueRef) -> String {
    let mut len = 0usize;
    let p = LLVMGetInlineAsmAsmString(asm, &mut len);
    if p.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
}
