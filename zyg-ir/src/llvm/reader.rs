//! Reads LLVM functions into zyg-ir. Unknown instructions are errors that name the
//! function, the instruction and its source line; they never panic or pass silently.

use super::raw::{debug_loc, find_global, global_name, print_value, read_type, value_name};
use crate::constant::{Constant};
use crate::entities::{Block, Value};
use crate::function::{Function, GlobalVar, Module};
use crate::inst::{BinOp, CastOp, Callee, FloatPred, InstKind, IntPred, UnOp};
use crate::types::{FloatTy, Signature, Type};
use inkwell::llvm_sys::core::*;
use inkwell::values::AsValueRef;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate};
use std::collections::{BTreeMap, HashMap, VecDeque};

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
                    let callee_fn = unsafe { find_global(module.as_mut_ptr(), &callee).and_then(|v| inkwell::values::FunctionValue::new(v)) };
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
    f.get_enum_attribute(AttributeLoc::Function, kind)
        .is_some_and(|a| a.get_enum_value() & (ARGUMENT_MEMORY | OTHER_MEMORY) == 0)
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
                out.insert(name, GlobalVar { ty, constant: LLVMIsGlobalConstant(raw) != 0, addrspace, inactive: false, points_to });
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

struct FunctionReader {
    func: Function,
    name: String,
    blocks: HashMap<LLVMBasicBlockRef, Block>,
    values: HashMap<LLVMValueRef, Value>,
    callees: BTreeMap<String, Signature>,
}

impl FunctionReader {
    fn read(raw: LLVMValueRef) -> Result<(Function, BTreeMap<String, Signature>), ReadError> {
        // SAFETY: `raw` is a function of a live module (read_functions found it there).
        let name = unsafe { global_name(raw) }
            .map_err(|message| ReadError { function: String::new(), instruction: None, loc: None, message })?;
        let fail = |message: String| ReadError { function: name.clone(), instruction: None, loc: None, message };
        // SAFETY: `raw` is a defined function; its type is a function type.
        let sig = unsafe { read_signature(LLVMGlobalGetValueType(raw)) }.map_err(fail)?;
        let mut reader = FunctionReader {
            func: Function::new(name.clone(), sig),
            name,
            blocks: HashMap::new(),
            values: HashMap::new(),
            callees: BTreeMap::new(),
        };
        // SAFETY: parameters and blocks are enumerated from the live function.
        unsafe {
            for (i, p) in reader.func.params.clone().into_iter().enumerate() {
                reader.values.insert(LLVMGetParam(raw, i as u32), p);
            }
            // First pass: blocks and instruction results, so operands may refer forward.
            let mut bb = LLVMGetFirstBasicBlock(raw);
            while !bb.is_null() {
                let label = value_name(LLVMBasicBlockAsValue(bb));
                let block = reader.func.create_block((!label.is_empty()).then_some(label));
                reader.blocks.insert(bb, block);
                let mut inst = LLVMGetFirstInstruction(bb);
                while !inst.is_null() {
                    // Terminators have LLVM's `label` type: no result.
                    let ty = if LLVMIsATerminatorInst(inst).is_null() {
                        read_type(LLVMTypeOf(inst)).map_err(|m| reader.error(inst, m))?
                    } else {
                        Type::Void
                    };
                    let id = reader.func.append_inst(block, InstKind::Unreachable, ty);
                    reader.func.insts[id].loc = debug_loc(inst);
                    if let Some(v) = reader.func.result(id) {
                        reader.values.insert(inst, v);
                    }
                    inst = LLVMGetNextInstruction(inst);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
            // Second pass: what each instruction is.
            let mut bb = LLVMGetFirstBasicBlock(raw);
            while !bb.is_null() {
                let block = reader.blocks[&bb];
                let mut inst = LLVMGetFirstInstruction(bb);
                let mut index = 0;
                while !inst.is_null() {
                    let kind = reader.read_inst(inst).map_err(|m| reader.error(inst, m))?;
                    let id = reader.func.blocks[block].insts[index];
                    reader.func.insts[id].hint = type_hint(&reader.func, inst, &kind);
                    reader.func.insts[id].kind = kind;
                    index += 1;
                    inst = LLVMGetNextInstruction(inst);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
        }
        Ok((reader.func, reader.callees))
    }

    fn error(&self, inst: LLVMValueRef, message: String) -> ReadError {
        ReadError {
            function: self.name.clone(),
            instruction: Some(print_value(inst)),
            loc: debug_loc(inst),
            message,
        }
    }

    /// The zyg-ir value for an LLVM operand: a mapped instruction or parameter, or a constant.
    unsafe fn operand(&mut self, v: LLVMValueRef) -> Result<Value, String> {
        if let Some(val) = self.values.get(&v) {
            return Ok(*val);
        }
        let c = read_constant(v)?;
        Ok(self.func.constant_value(c))
    }

    unsafe fn op(&mut self, inst: LLVMValueRef, i: u32) -> Result<Value, String> {
        self.operand(LLVMGetOperand(inst, i))
    }

    unsafe fn block(&self, bb: LLVMBasicBlockRef) -> Result<Block, String> {
        self.blocks.get(&bb).copied().ok_or_else(|| "branch to a block of another function".to_string())
    }

    unsafe fn read_inst(&mut self, inst: LLVMValueRef) -> Result<InstKind, String> {
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
            LLVMFCmp => InstKind::FCmp {
                pred: float_pred(LLVMGetFCmpPredicate(inst)),
                args: [self.op(inst, 0)?, self.op(inst, 1)?],
            },
            LLVMICmp => InstKind::ICmp {
                pred: int_pred(LLVMGetICmpPredicate(inst)),
                args: [self.op(inst, 0)?, self.op(inst, 1)?],
            },
            LLVMSelect => InstKind::Select {
                cond: self.op(inst, 0)?,
                then_value: self.op(inst, 1)?,
                else_value: self.op(inst, 2)?,
            },
            LLVMPHI => {
                let mut incoming = Vec::new();
                for i in 0..LLVMCountIncoming(inst) {
                    let block = self.block(LLVMGetIncomingBlock(inst, i))?;
                    incoming.push((block, self.operand(LLVMGetIncomingValue(inst, i))?));
                }
                InstKind::Phi { incoming }
            }
            LLVMCall => self.read_call(inst)?,
            LLVMAlloca => {
                let count = LLVMGetOperand(inst, 0);
                if LLVMIsAConstantInt(count).is_null() || LLVMConstIntGetZExtValue(count) != 1 {
                    return Err("alloca of a dynamic number of elements is not supported yet".into());
                }
                InstKind::Alloca { ty: read_type(LLVMGetAllocatedType(inst))? }
            }
            LLVMLoad => InstKind::Load { ty: read_type(LLVMTypeOf(inst))?, ptr: self.op(inst, 0)? },
            LLVMStore => InstKind::Store { value: self.op(inst, 0)?, ptr: self.op(inst, 1)? },
            LLVMGetElementPtr => {
                let n = LLVMGetNumOperands(inst) as u32;
                let indices = (1..n).map(|i| self.op(inst, i)).collect::<Result<_, _>>()?;
                InstKind::Gep {
                    source_ty: read_type(LLVMGetGEPSourceElementType(inst))?,
                    base: self.op(inst, 0)?,
                    indices,
                    inbounds: LLVMIsInBounds(inst) != 0,
                }
            }
            LLVMExtractValue => InstKind::ExtractValue { agg: self.op(inst, 0)?, indices: indices(inst) },
            LLVMExtractElement => InstKind::ExtractElement { vec: self.op(inst, 0)?, index: self.op(inst, 1)? },
            LLVMInsertElement => InstKind::InsertElement {
                vec: self.op(inst, 0)?,
                value: self.op(inst, 1)?,
                index: self.op(inst, 2)?,
            },
            LLVMShuffleVector => {
                // LLVM marks poison lanes with a negative mask value.
                let mask = (0..LLVMGetNumMaskElements(inst)).map(|i| LLVMGetMaskValue(inst, i).max(-1)).collect();
                InstKind::ShuffleVector { a: self.op(inst, 0)?, b: self.op(inst, 1)?, mask }
            }
            LLVMInsertValue => InstKind::InsertValue {
                agg: self.op(inst, 0)?,
                value: self.op(inst, 1)?,
                indices: indices(inst),
            },
            LLVMBr if LLVMIsConditional(inst) != 0 => InstKind::CondBr {
                cond: self.operand(LLVMGetCondition(inst))?,
                then_dest: self.block(LLVMGetSuccessor(inst, 0))?,
                else_dest: self.block(LLVMGetSuccessor(inst, 1))?,
            },
            LLVMBr => InstKind::Br { dest: self.block(LLVMGetSuccessor(inst, 0))? },
            LLVMSwitch => {
                // Successor 0 is the default; successor i > 0 belongs to case value i.
                let mut cases = Vec::new();
                for i in 1..LLVMGetNumSuccessors(inst) {
                    let value = read_constant(LLVMGetSwitchCaseValue(inst, i))?;
                    cases.push((value, self.block(LLVMGetSuccessor(inst, i))?));
                }
                InstKind::Switch {
                    value: self.op(inst, 0)?,
                    default: self.block(LLVMGetSwitchDefaultDest(inst))?,
                    cases,
                }
            }
            LLVMRet => {
                let value = if LLVMGetNumOperands(inst) > 0 { Some(self.op(inst, 0)?) } else { None };
                InstKind::Ret { value }
            }
            LLVMUnreachable => InstKind::Unreachable,
            _ => return Err(format!("the `{}` instruction is not supported yet", opcode_word(inst))),
        })
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
            return Err("inline assembly is not supported".into());
        } else {
            Callee::Indirect(self.operand(called)?)
        };
        let args = (0..LLVMGetNumArgOperands(inst)).map(|i| self.op(inst, i)).collect::<Result<_, _>>()?;
        Ok(InstKind::Call { callee, sig, args })
    }
}

/// The front end's type hint of a load, store or memory copy (`tbaa`).
///
/// # Safety
/// `inst` must be the live instruction `kind` was read from.
unsafe fn type_hint(func: &Function, inst: LLVMValueRef, kind: &InstKind) -> Option<crate::function::TypeHint> {
    match kind {
        InstKind::Load { ty, .. } => super::tbaa::access_hint(inst, ty.natural_layout()?.0),
        InstKind::Store { value, .. } => super::tbaa::access_hint(inst, func.ty(*value).natural_layout()?.0),
        InstKind::Call { callee: Callee::Direct(name), .. }
            if ["llvm.memcpy.", "llvm.memmove.", "llvm.memcpy.inline."].iter().any(|p| name.starts_with(p))
                || matches!(&**name, "memcpy" | "memmove") =>
        {
            super::tbaa::copy_hint(inst)
        }
        _ => None,
    }
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

unsafe fn indices(inst: LLVMValueRef) -> Vec<u32> {
    let n = LLVMGetNumIndices(inst) as usize;
    std::slice::from_raw_parts(LLVMGetIndices(inst), n).to_vec()
}

/// Reads a constant operand, or says which kind of constant is not supported.
unsafe fn read_constant(v: LLVMValueRef) -> Result<Constant, String> {
    let ty = read_type(LLVMTypeOf(v))?;
    if let Type::Vector(n, _) = &ty {
        if !LLVMIsAConstantDataVector(v).is_null() || !LLVMIsAConstantVector(v).is_null()
            || !LLVMIsAConstantInt(v).is_null() || !LLVMIsAConstantFP(v).is_null()
        {
            // Lane by lane (a splat ConstantInt/ConstantFP answers for every lane).
            let lanes = (0..*n).map(|i| read_constant(LLVMGetAggregateElement(v, i))).collect::<Result<_, _>>()?;
            return Ok(Constant::Vector(lanes));
        }
    }
    if !LLVMIsAConstantInt(v).is_null() {
        let Type::Int(bits) = ty else { return Err("integer constant of non-integer type".into()) };
        if bits > 64 {
            return Err(format!("{bits}-bit integer constants are not supported yet"));
        }
        return Ok(Constant::Int { bits, value: u128::from(LLVMConstIntGetZExtValue(v)) });
    }
    if !LLVMIsAConstantFP(v).is_null() {
        let float_ty = ty.float_ty().ok_or("float constant of non-float type")?;
        return Ok(match float_ty {
            FloatTy::X86Fp80 => Constant::Float { ty: float_ty, bits: x87_bits_of(v)? },
            _ => {
                let mut loses = 0;
                Constant::float(float_ty, LLVMConstRealGetDouble(v, &mut loses))
            }
        });
    }
    if !LLVMIsAPoisonValue(v).is_null() {
        return Ok(Constant::Poison(ty));
    }
    if !LLVMIsAUndefValue(v).is_null() {
        return Ok(Constant::Undef(ty));
    }
    if !LLVMIsAConstantPointerNull(v).is_null() {
        let Type::Ptr(space) = ty else { return Err("null of non-pointer type".into()) };
        return Ok(Constant::Null(space));
    }
    if !LLVMIsAConstantAggregateZero(v).is_null() {
        return Ok(Constant::Zero(ty));
    }
    if !LLVMIsAGlobalValue(v).is_null() {
        return Ok(Constant::Global(global_name(v)?, LLVMGetPointerAddressSpace(LLVMTypeOf(v))));
    }
    if !LLVMIsAConstantExpr(v).is_null() {
        return Err(format!("constant expression `{}` is not supported yet", print_value(v)));
    }
    Err(format!("operand `{}` is not supported yet", print_value(v)))
}

/// The exact bits of an x86_fp80 constant. The C API only offers a rounded double, so this
/// reads LLVM's own printing, `x86_fp80 0xK<20 hex digits>`.
unsafe fn x87_bits_of(v: LLVMValueRef) -> Result<u128, String> {
    let text = print_value(v);
    text.rsplit_once("0xK")
        .and_then(|(_, hex)| u128::from_str_radix(hex.trim(), 16).ok())
        .ok_or_else(|| format!("cannot read x86_fp80 constant `{text}`"))
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
