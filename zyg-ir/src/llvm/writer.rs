//! Writes zyg-ir functions into an LLVM module.

use super::raw::llvm_type;
use crate::constant::Constant;
use crate::entities::{Block, Value};
use crate::function::{Function, Linkage, ValueDef};
use crate::inst::{BinOp, CastOp, Callee, FloatPred, InstKind, IntPred, UnOp};
use crate::types::{FloatTy, Signature, Type};
use cranelift_entity::SecondaryMap;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMLinkage, LLVMOpcode, LLVMRealPredicate};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ffi::CString;

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("function `{0}` is already defined in the output module")]
    AlreadyDefined(String),
    #[error("in function `{function}`: {message}")]
    Invalid { function: String, message: String },
}

/// Adds `func` to `module` (declaring the functions it calls as needed) and returns it.
pub fn write_function<'ctx>(
    module: &inkwell::module::Module<'ctx>,
    func: &Function,
) -> Result<inkwell::values::FunctionValue<'ctx>, WriteError> {
    // SAFETY: the module and its context are alive for the whole call; every handle
    // created here belongs to them.
    unsafe {
        let mut writer = Writer::new(module.as_mut_ptr(), func);
        let fv = writer.define()?;
        let result = writer.body();
        LLVMDisposeBuilder(writer.builder);
        result?;
        Ok(inkwell::values::FunctionValue::new(fv).expect("a function value"))
    }
}

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
        let (Some(s), Some(p)) = (super::find_global(m, shadow), super::find_global(m, primal)) else { return };
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
        let name = super::global_name(c).ok()?;
        return super::find_global(m, &shadow_of(&name)?);
    }
    if !LLVMIsAConstantExpr(c).is_null() && LLVMGetConstOpcode(c) == LLVMOpcode::LLVMGetElementPtr {
        let base = mirror(m, LLVMGetOperand(c, 0), shadow_of, done)?;
        let mut indices: Vec<LLVMValueRef> = (1..LLVMGetNumOperands(c).max(1)).map(|k| LLVMGetOperand(c, k as u32)).collect();
        let flags = LLVMGEPGetNoWrapFlags(c);
        return Some(LLVMConstGEPWithNoWrapFlags(LLVMGetGEPSourceElementType(c), base, indices.as_mut_ptr(), indices.len() as u32, flags));
    }
    let aggregate = !LLVMIsAConstantStruct(c).is_null() || !LLVMIsAConstantArray(c).is_null() || !LLVMIsAConstantVector(c).is_null();
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
        inkwell::llvm_sys::LLVMTypeKind::LLVMArrayTypeKind => LLVMConstArray2(LLVMGetElementType(ty), values.as_mut_ptr(), u64::from(n)),
        _ => LLVMConstVector(values.as_mut_ptr(), n),
    })
}

/// zyg-ir does not keep a load's or store's alignment, and LLVM's default for a vector is
/// its whole size (16 for `<2 x double>`), which clang `-O2` code does not promise: its
/// vector accesses to a `double` array are aligned to a `double`. So vector accesses get
/// their element's size, which every array of those elements has (scalars keep LLVM's
/// default, their natural alignment).
unsafe fn set_vector_alignment(access: LLVMValueRef, ty: &Type) {
    if let Type::Vector(_, elem) = ty {
        let bytes = match &**elem {
            Type::Float(f) => f.bits().div_ceil(8).min(16),
            Type::Int(bits) => bits.div_ceil(8).max(1),
            _ => 8,
        };
        LLVMSetAlignment(access, bytes.next_power_of_two());
    }
}

struct Writer<'f> {
    ctx: LLVMContextRef,
    module: LLVMModuleRef,
    builder: LLVMBuilderRef,
    func: &'f Function,
    fv: LLVMValueRef,
    values: SecondaryMap<Value, Option<LLVMValueRef>>,
    blocks: SecondaryMap<Block, Option<LLVMBasicBlockRef>>,
    /// Struct types converted so far, by the address of their shared field list: a tape
    /// record type is one `Arc` used by thousands of instructions, and converting it anew at
    /// each would cost its size every time. The entry keeps its type alive, so no other list
    /// can take its address while the writer runs.
    structs: RefCell<HashMap<*const Type, (Type, LLVMTypeRef)>>,
}

impl<'f> Writer<'f> {
    unsafe fn new(module: LLVMModuleRef, func: &'f Function) -> Self {
        let ctx = LLVMGetModuleContext(module);
        Writer {
            ctx,
            module,
            builder: LLVMCreateBuilderInContext(ctx),
            func,
            fv: std::ptr::null_mut(),
            values: SecondaryMap::new(),
            blocks: SecondaryMap::new(),
            structs: RefCell::new(HashMap::new()),
        }
    }

    /// The LLVM type of `ty`.
    unsafe fn lty(&self, ty: &Type) -> LLVMTypeRef {
        let Type::Struct(fields) = ty else { return llvm_type(self.ctx, ty) };
        let key = fields.as_ptr();
        if let Some((_, t)) = self.structs.borrow().get(&key) {
            return *t;
        }
        let t = llvm_type(self.ctx, ty);
        self.structs.borrow_mut().insert(key, (ty.clone(), t));
        t
    }

    fn invalid(&self, message: impl Into<String>) -> WriteError {
        WriteError::Invalid { function: self.func.name.clone(), message: message.into() }
    }

    unsafe fn define(&mut self) -> Result<LLVMValueRef, WriteError> {
        let fv = self.get_or_declare(&self.func.name, &self.func.sig);
        if LLVMIsDeclaration(fv) == 0 {
            return Err(WriteError::AlreadyDefined(self.func.name.clone()));
        }
        if self.func.linkage == Linkage::Internal {
            LLVMSetLinkage(fv, LLVMLinkage::LLVMInternalLinkage);
        }
        for attr in &self.func.attributes {
            let kind = LLVMGetEnumAttributeKindForName(attr.as_ptr().cast(), attr.len());
            if kind == 0 {
                return Err(self.invalid(format!("unknown function attribute `{attr}`")));
            }
            let a = LLVMCreateEnumAttribute(self.ctx, kind, 0);
            LLVMAddAttributeAtIndex(fv, inkwell::llvm_sys::LLVMAttributeFunctionIndex, a);
        }
        for (i, p) in self.func.params.iter().enumerate() {
            self.values[*p] = Some(LLVMGetParam(fv, i as u32));
        }
        self.fv = fv;
        Ok(fv)
    }

    /// The function named `name` in the module, declared with `sig` if it is not there yet.
    unsafe fn get_or_declare(&self, name: &str, sig: &Signature) -> LLVMValueRef {
        // An unnamed function (`@0`) is found by its number (`raw::global_name`).
        if let Some(existing) = super::raw::find_global(self.module, name).filter(|f| !LLVMIsAFunction(*f).is_null()) {
            return existing;
        }
        let cname = CString::new(name).unwrap_or_default();
        LLVMAddFunction(self.module, cname.as_ptr(), self.fn_type(sig))
    }

    unsafe fn fn_type(&self, sig: &Signature) -> LLVMTypeRef {
        let mut params: Vec<_> = sig.params.iter().map(|t| self.lty(t)).collect();
        LLVMFunctionType(
            self.lty(&sig.ret),
            params.as_mut_ptr(),
            params.len() as u32,
            sig.variadic as i32,
        )
    }

    unsafe fn body(&mut self) -> Result<(), WriteError> {
        let order = reverse_postorder(self.func);
        let reachable: HashSet<Block> = order.iter().copied().collect();
        for b in &order {
            let label = CString::new(self.func.blocks[*b].name.clone().unwrap_or_default()).unwrap_or_default();
            self.blocks[*b] = Some(LLVMAppendBasicBlockInContext(self.ctx, self.fv, label.as_ptr()));
        }
        // Reverse postorder puts every definition before the uses it dominates; phis are
        // created empty and filled in once every value exists.
        let mut phis = Vec::new();
        for b in &order {
            LLVMPositionBuilderAtEnd(self.builder, self.blocks[*b].expect("block created"));
            for inst in &self.func.blocks[*b].insts {
                let data = &self.func.insts[*inst];
                let ty = data.result.map(|v| self.func.ty(v).clone()).unwrap_or(Type::Void);
                let made = self.emit(&data.kind, &ty)?;
                if let InstKind::Phi { incoming } = &data.kind {
                    phis.push((made, incoming));
                }
                if let Some(v) = data.result {
                    self.values[v] = Some(made);
                }
            }
        }
        for (phi, incoming) in phis {
            for (block, value) in incoming.iter().filter(|(b, _)| reachable.contains(b)) {
                let mut v = self.value(*value)?;
                let mut bb = self.blocks[*block].expect("reachable block");
                LLVMAddIncoming(phi, &mut v, &mut bb, 1);
            }
        }
        Ok(())
    }

    unsafe fn value(&mut self, v: Value) -> Result<LLVMValueRef, WriteError> {
        if let Some(made) = self.values[v] {
            return Ok(made);
        }
        match &self.func.values[v].def {
            ValueDef::Const(c) => {
                let made = self.constant(c)?;
                self.values[v] = Some(made);
                Ok(made)
            }
            _ => Err(self.invalid(format!("value {v} is used where its definition does not dominate"))),
        }
    }

    unsafe fn constant(&self, c: &Constant) -> Result<LLVMValueRef, WriteError> {
        let ty = self.lty(&c.ty());
        Ok(match c {
            Constant::Int { bits, value } if *bits <= 64 => LLVMConstInt(ty, *value as u64, 0),
            Constant::Int { .. } => return Err(self.invalid("integer constant wider than 64 bits")),
            Constant::Float { ty: FloatTy::X86Fp80, bits } => {
                // The C API builds floats from doubles only; an i80 bit pattern keeps x87 exact.
                let words = [*bits as u64, (*bits >> 64) as u64];
                let int = LLVMConstIntOfArbitraryPrecision(LLVMIntTypeInContext(self.ctx, 80), 2, words.as_ptr());
                LLVMConstBitCast(int, ty)
            }
            Constant::Float { .. } => LLVMConstReal(ty, c.as_f64().expect("float constant")),
            Constant::Null(_) => LLVMConstPointerNull(ty),
            Constant::Global(name, _) => match super::raw::find_global(self.module, name) {
                Some(g) => g,
                None => return Err(self.invalid(format!("reference to unknown global `@{name}`"))),
            },
            Constant::Undef(_) => LLVMGetUndef(ty),
            Constant::Poison(_) => LLVMGetPoison(ty),
            Constant::Zero(_) => LLVMConstNull(ty),
            Constant::Vector(lanes) => {
                let mut made = lanes.iter().map(|l| self.constant(l)).collect::<Result<Vec<_>, _>>()?;
                LLVMConstVector(made.as_mut_ptr(), made.len() as u32)
            }
        })
    }

    unsafe fn emit(&mut self, kind: &InstKind, ty: &Type) -> Result<LLVMValueRef, WriteError> {
        let b = self.builder;
        let name = c"";
        let lty = self.lty(ty);
        Ok(match kind {
            InstKind::Binary { op, args } => {
                let (l, r) = (self.value(args[0])?, self.value(args[1])?);
                LLVMBuildBinOp(b, binop(*op), l, r, name.as_ptr())
            }
            InstKind::Unary { op: UnOp::FNeg, arg } => LLVMBuildFNeg(b, self.value(*arg)?, name.as_ptr()),
            InstKind::Unary { op: UnOp::Freeze, arg } => LLVMBuildFreeze(b, self.value(*arg)?, name.as_ptr()),
            InstKind::Cast { op, arg } => LLVMBuildCast(b, castop(*op), self.value(*arg)?, lty, name.as_ptr()),
            InstKind::FCmp { pred, args } => {
                let (l, r) = (self.value(args[0])?, self.value(args[1])?);
                LLVMBuildFCmp(b, float_pred(*pred), l, r, name.as_ptr())
            }
            InstKind::ICmp { pred, args } => {
                let (l, r) = (self.value(args[0])?, self.value(args[1])?);
                LLVMBuildICmp(b, int_pred(*pred), l, r, name.as_ptr())
            }
            InstKind::Select { cond, then_value, else_value } => {
                let (c, t, e) = (self.value(*cond)?, self.value(*then_value)?, self.value(*else_value)?);
                LLVMBuildSelect(b, c, t, e, name.as_ptr())
            }
            InstKind::Phi { .. } => LLVMBuildPhi(b, lty, name.as_ptr()),
            InstKind::Call { callee, sig, args } => {
                let target = match callee {
                    Callee::Direct(n) => self.get_or_declare(n, sig),
                    Callee::Indirect(v) => self.value(*v)?,
                };
                let mut argv = args.iter().map(|a| self.value(*a)).collect::<Result<Vec<_>, _>>()?;
                let call = LLVMBuildCall2(b, self.fn_type(sig), target, argv.as_mut_ptr(), argv.len() as u32, name.as_ptr());
                // A call must use its callee's convention (clang -O2 gives internal
                // functions `fastcc`); a mismatch is undefined behaviour LLVM exploits.
                if !LLVMIsAFunction(target).is_null() {
                    LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(target));
                }
                call
            }
            InstKind::Alloca { ty } => {
                // Allocas go to the entry block, where mem2reg and SROA look for them.
                let entry = LLVMGetEntryBasicBlock(self.fv);
                let tmp = LLVMCreateBuilderInContext(self.ctx);
                let first = LLVMGetFirstInstruction(entry);
                if first.is_null() {
                    LLVMPositionBuilderAtEnd(tmp, entry);
                } else {
                    LLVMPositionBuilderBefore(tmp, first);
                }
                let a = LLVMBuildAlloca(tmp, self.lty(ty), name.as_ptr());
                LLVMDisposeBuilder(tmp);
                a
            }
            InstKind::Load { ty, ptr } => {
                let load = LLVMBuildLoad2(b, self.lty(ty), self.value(*ptr)?, name.as_ptr());
                set_vector_alignment(load, ty);
                load
            }
            InstKind::AtomicFAdd { ptr, value } => LLVMBuildAtomicRMW(
                b,
                inkwell::llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd,
                self.value(*ptr)?,
                self.value(*value)?,
                inkwell::llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
                0,
            ),
            InstKind::Store { value, ptr } => {
                let store = LLVMBuildStore(b, self.value(*value)?, self.value(*ptr)?);
                set_vector_alignment(store, self.func.ty(*value));
                store
            }
            InstKind::Gep { source_ty, base, indices, inbounds } => {
                let base = self.value(*base)?;
                let mut idx = indices.iter().map(|i| self.value(*i)).collect::<Result<Vec<_>, _>>()?;
                let sty = self.lty(source_ty);
                let n = idx.len() as u32;
                if *inbounds {
                    LLVMBuildInBoundsGEP2(b, sty, base, idx.as_mut_ptr(), n, name.as_ptr())
                } else {
                    LLVMBuildGEP2(b, sty, base, idx.as_mut_ptr(), n, name.as_ptr())
                }
            }
            InstKind::ExtractValue { agg, indices } => {
                let mut v = self.value(*agg)?;
                for i in indices {
                    v = LLVMBuildExtractValue(b, v, *i, name.as_ptr());
                }
                v
            }
            InstKind::InsertValue { agg, value, indices } => self.insert_value(*agg, *value, indices)?,
            InstKind::ExtractElement { vec, index } => {
                LLVMBuildExtractElement(b, self.value(*vec)?, self.value(*index)?, name.as_ptr())
            }
            InstKind::InsertElement { vec, value, index } => {
                let (v, x, i) = (self.value(*vec)?, self.value(*value)?, self.value(*index)?);
                LLVMBuildInsertElement(b, v, x, i, name.as_ptr())
            }
            InstKind::ShuffleVector { a, b: other, mask } => {
                let i32_ty = LLVMInt32TypeInContext(self.ctx);
                let mut lanes: Vec<LLVMValueRef> = mask
                    .iter()
                    // A poison lane becomes lane 0, a refinement: the adjoint multiplies the
                    // primal's lanes by adjoints that are zero in unused lanes, and 0 times
                    // garbage can be NaN.
                    .map(|m| LLVMConstInt(i32_ty, (*m).max(0) as u64, 0))
                    .collect();
                let mask = LLVMConstVector(lanes.as_mut_ptr(), lanes.len() as u32);
                LLVMBuildShuffleVector(b, self.value(*a)?, self.value(*other)?, mask, name.as_ptr())
            }
            InstKind::Br { dest } => LLVMBuildBr(b, self.block(*dest)?),
            InstKind::CondBr { cond, then_dest, else_dest } => {
                LLVMBuildCondBr(b, self.value(*cond)?, self.block(*then_dest)?, self.block(*else_dest)?)
            }
            InstKind::Switch { value, default, cases } => {
                let sw = LLVMBuildSwitch(b, self.value(*value)?, self.block(*default)?, cases.len() as u32);
                for (c, dest) in cases {
                    LLVMAddCase(sw, self.constant(c)?, self.block(*dest)?);
                }
                sw
            }
            InstKind::Ret { value: Some(v) } => LLVMBuildRet(b, self.value(*v)?),
            InstKind::Ret { value: None } => LLVMBuildRetVoid(b),
            InstKind::Unreachable => LLVMBuildUnreachable(b),
        })
    }

    /// insertvalue with a path of indices: extract the inner aggregates, insert, rebuild.
    unsafe fn insert_value(&mut self, agg: Value, value: Value, indices: &[u32]) -> Result<LLVMValueRef, WriteError> {
        let b = self.builder;
        let name = c"";
        let mut chain = vec![self.value(agg)?];
        for i in &indices[..indices.len().saturating_sub(1)] {
            let last = *chain.last().expect("non-empty");
            chain.push(LLVMBuildExtractValue(b, last, *i, name.as_ptr()));
        }
        let mut v = self.value(value)?;
        for (outer, i) in chain.iter().zip(indices).rev() {
            v = LLVMBuildInsertValue(b, *outer, v, *i, name.as_ptr());
        }
        Ok(v)
    }

    unsafe fn block(&self, b: Block) -> Result<LLVMBasicBlockRef, WriteError> {
        self.blocks[b].ok_or_else(|| self.invalid(format!("branch to unreachable block {b}")))
    }
}

/// Blocks reachable from the entry, in reverse postorder.
fn reverse_postorder(func: &Function) -> Vec<Block> {
    let Some(entry) = func.entry() else { return Vec::new() };
    let mut order = crate::cfg::postorder(&[entry], |b| func.successors(b));
    order.reverse();
    order
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
