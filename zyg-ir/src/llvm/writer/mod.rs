//! Writes zyg-ir functions into an LLVM module: the function, its blocks and values here,
//! one instruction in `inst.rs`, and the globals the transform defines in `globals.rs`.

mod globals;
mod inst;

pub use globals::{define_shared_global, define_zeroed_global, mirror_initializer};

use super::raw::llvm_type;
use crate::constant::Constant;
use crate::entities::{Block, Value};
use crate::function::{Function, Linkage, ValueDef};
use crate::inst::InstKind;
use crate::types::{FloatTy, Signature, Type};
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::SecondaryMap;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMLinkage;
use std::cell::RefCell;
use std::collections::HashMap;
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

struct Writer<'f> {
    ctx: LLVMContextRef,
    module: LLVMModuleRef,
    builder: LLVMBuilderRef,
    func: &'f Function,
    fv: LLVMValueRef,
    values: SecondaryMap<Value, Option<LLVMValueRef>>,
    blocks: SecondaryMap<Block, Option<LLVMBasicBlockRef>>,
    /// The LLVM block where each zyg block's terminator went: an invoke splits a block, so
    /// a phi's incoming edge from the block is from there.
    exits: SecondaryMap<Block, Option<LLVMBasicBlockRef>>,
    /// The LLVM blocks ending in an invoke, by zyg block and landing pad: a landing pad's
    /// phi has an incoming edge from each.
    invokes: HashMap<(Block, Block), Vec<LLVMBasicBlockRef>>,
    /// The zyg block being written.
    current: Block,
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
            exits: SecondaryMap::new(),
            invokes: HashMap::new(),
            current: Block::reserved_value(),
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
        if let Some(personality) = self.func.personality.as_deref().filter(|_| !self.func.handlers.is_empty()) {
            let sig = Signature { params: Vec::new(), ret: Type::Int(32), variadic: true };
            LLVMSetPersonalityFn(fv, self.get_or_declare(personality, &sig));
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
        LLVMFunctionType(self.lty(&sig.ret), params.as_mut_ptr(), params.len() as u32, sig.variadic as i32)
    }

    unsafe fn body(&mut self) -> Result<(), WriteError> {
        let mut order = reverse_postorder(self.func);
        order.extend(handler_order(self.func, &order));
        for b in &order {
            let label = CString::new(self.func.blocks[*b].name.clone().unwrap_or_default()).unwrap_or_default();
            self.blocks[*b] = Some(LLVMAppendBasicBlockInContext(self.ctx, self.fv, label.as_ptr()));
        }
        // Reverse postorder puts every definition before the uses it dominates; phis are
        // created empty and filled in once every value exists.
        let mut phis = Vec::new();
        for b in &order {
            LLVMPositionBuilderAtEnd(self.builder, self.blocks[*b].expect("block created"));
            self.current = *b;
            for inst in &self.func.blocks[*b].insts {
                let data = &self.func.insts[*inst];
                let ty = data.result.map(|v| self.func.ty(v).clone()).unwrap_or(Type::Void);
                let made = self.emit(&data.kind, &ty)?;
                if let InstKind::Phi { incoming } = &data.kind {
                    phis.push((*b, made, incoming));
                }
                if let Some(v) = data.result {
                    self.values[v] = Some(made);
                }
            }
            self.exits[*b] = Some(LLVMGetInsertBlock(self.builder));
        }
        for (at, phi, incoming) in phis {
            // Only the reachable blocks were created; edges from the others are dropped. An
            // edge into a landing pad comes from the blocks its invokes end.
            for (block, value) in incoming.iter() {
                let froms = match self.invokes.get(&(*block, at)) {
                    Some(froms) => froms.clone(),
                    None => self.exits[*block].into_iter().collect(),
                };
                for mut bb in froms {
                    let mut v = self.value(*value)?;
                    LLVMAddIncoming(phi, &mut v, &mut bb, 1);
                }
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

    unsafe fn block(&self, b: Block) -> Result<LLVMBasicBlockRef, WriteError> {
        self.blocks[b].ok_or_else(|| self.invalid(format!("branch to unreachable block {b}")))
    }
}

/// The handler blocks reached from `normal` by unwinding, in reverse postorder from their
/// landing pads (so that a handler's definitions come before its uses).
fn handler_order(func: &Function, normal: &[Block]) -> Vec<Block> {
    let pads: Vec<Block> = normal.iter().flat_map(|b| crate::cfg::unwind_edges(func, *b)).collect();
    let mut order = crate::cfg::postorder(&pads, |b| crate::cfg::successors_and_unwind_edges(func, b));
    order.reverse();
    order
}

/// Blocks reachable from the entry, in reverse postorder.
fn reverse_postorder(func: &Function) -> Vec<Block> {
    let Some(entry) = func.entry() else { return Vec::new() };
    let mut order = crate::cfg::postorder(&[entry], |b| func.successors(b));
    order.reverse();
    order
}
