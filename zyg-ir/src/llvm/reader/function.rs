//! Reading one LLVM function: its blocks and instruction results first, so that operands
//! may refer forward, then what each instruction is (`inst.rs`).

use super::constant::read_constant;
use super::{read_signature, ReadError};
use crate::entities::{Block, Value};
use crate::function::Function;
use crate::inst::{Callee, InstKind};
use crate::llvm::raw::{debug_loc, global_name, print_value, read_type, value_name};
use crate::types::{Signature, Type};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// A function being read: the LLVM blocks and values already mapped (keyed by LLVM's
/// handles, so a hash map), and the functions it calls directly, with their signatures.
pub(super) struct FunctionReader {
    pub(super) func: Function,
    name: String,
    blocks: HashMap<LLVMBasicBlockRef, Block>,
    values: HashMap<LLVMValueRef, Value>,
    pub(super) callees: BTreeMap<String, Signature>,
}

impl FunctionReader {
    pub(super) fn read(raw: LLVMValueRef) -> Result<(Function, BTreeMap<String, Signature>), ReadError> {
        // SAFETY: `raw` is a function of a live module (read_functions found it there).
        let name = unsafe { global_name(raw) }.map_err(|message| ReadError {
            function: String::new(),
            instruction: None,
            loc: None,
            message,
        })?;
        let function = name.clone();
        let fail = |message: String| ReadError { function: function.clone(), instruction: None, loc: None, message };
        // SAFETY: `raw` is a defined function; its type is a function type.
        let sig = unsafe { read_signature(LLVMGlobalGetValueType(raw)) }.map_err(&fail)?;
        let mut reader = FunctionReader {
            func: Function::new(name.clone(), sig),
            name,
            blocks: HashMap::new(),
            values: HashMap::new(),
            callees: BTreeMap::new(),
        };
        // SAFETY: parameters, blocks and instructions are enumerated from the live function.
        unsafe {
            let noalias = inkwell::attributes::Attribute::get_named_enum_kind_id("noalias");
            for (i, p) in reader.func.params.clone().into_iter().enumerate() {
                reader.values.insert(LLVMGetParam(raw, i as u32), p);
                // Attribute index 0 is the result, `i + 1` the i-th parameter.
                if !LLVMGetEnumAttributeAtIndex(raw, i as u32 + 1, noalias).is_null() {
                    reader.func.noalias.push(i);
                }
            }
            for (bb, block) in reader.declare_blocks(raw)? {
                reader.read_block(bb, block)?;
            }
            if LLVMHasPersonalityFn(raw) != 0 {
                let personality = global_name(LLVMGetPersonalityFn(raw)).map_err(fail)?;
                reader.func.personality = Some(personality.into());
            }
        }
        crate::cfg::split_handlers(&mut reader.func).map_err(|(inst, message)| ReadError {
            function: reader.name.clone(),
            instruction: Some(crate::text::print_inst(&reader.func, inst)),
            loc: reader.func.insts[inst].loc.clone(),
            message,
        })?;
        Ok((reader.func, reader.callees))
    }

    /// First pass: blocks and instruction results, so that operands may refer forward.
    /// Returns the LLVM blocks with theirs, in order.
    ///
    /// # Safety
    /// `raw` must be a function of a live module.
    unsafe fn declare_blocks(&mut self, raw: LLVMValueRef) -> Result<Vec<(LLVMBasicBlockRef, Block)>, ReadError> {
        let mut out = Vec::new();
        let mut bb = LLVMGetFirstBasicBlock(raw);
        while !bb.is_null() {
            let label = value_name(LLVMBasicBlockAsValue(bb));
            let block = self.func.create_block((!label.is_empty()).then_some(label));
            self.blocks.insert(bb, block);
            out.push((bb, block));
            let mut inst = LLVMGetFirstInstruction(bb);
            while !inst.is_null() {
                // Terminators have LLVM's `label` type: no result.
                let ty = if LLVMIsATerminatorInst(inst).is_null() {
                    read_type(LLVMTypeOf(inst)).map_err(|m| self.error(inst, m))?
                } else {
                    Type::Void
                };
                // An invoke is read as a call with an unwind edge, then a `br` to its normal
                // destination: its result is the call's.
                let invoke = LLVMGetInstructionOpcode(inst) == inkwell::llvm_sys::LLVMOpcode::LLVMInvoke;
                let ty = if invoke { read_type(LLVMTypeOf(inst)).map_err(|m| self.error(inst, m))? } else { ty };
                let id = self.func.append_inst(block, InstKind::Unreachable, ty);
                self.func.insts[id].loc = debug_loc(inst);
                if let Some(v) = self.func.result(id) {
                    self.values.insert(inst, v);
                }
                if invoke {
                    let br = self.func.append_inst(block, InstKind::Unreachable, Type::Void);
                    self.func.insts[br].loc = debug_loc(inst);
                }
                inst = LLVMGetNextInstruction(inst);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
        Ok(out)
    }

    /// Second pass: what each instruction of `bb` (declared as `block`) is.
    ///
    /// # Safety
    /// `bb` must be a block of the live function being read.
    unsafe fn read_block(&mut self, bb: LLVMBasicBlockRef, block: Block) -> Result<(), ReadError> {
        let mut inst = LLVMGetFirstInstruction(bb);
        let mut index = 0;
        while !inst.is_null() {
            let kind = self.read_inst(inst).map_err(|m| self.error(inst, m))?;
            let id = self.func.blocks[block].insts[index];
            self.func.insts[id].hint = type_hint(&self.func, inst, &kind);
            self.func.insts[id].kind = kind;
            index += 1;
            if LLVMGetInstructionOpcode(inst) == inkwell::llvm_sys::LLVMOpcode::LLVMInvoke {
                let br = self.func.blocks[block].insts[index];
                self.func.insts[br].kind =
                    InstKind::Br { dest: self.block(LLVMGetNormalDest(inst)).map_err(|m| self.error(inst, m))? };
                index += 1;
            }
            inst = LLVMGetNextInstruction(inst);
        }
        Ok(())
    }

    fn error(&self, inst: LLVMValueRef, message: String) -> ReadError {
        ReadError { function: self.name.clone(), instruction: Some(print_value(inst)), loc: debug_loc(inst), message }
    }

    /// The zyg-ir value for an LLVM operand: a mapped instruction or parameter, or a constant.
    pub(super) unsafe fn operand(&mut self, v: LLVMValueRef) -> Result<Value, String> {
        if let Some(val) = self.values.get(&v) {
            return Ok(*val);
        }
        let c = read_constant(v)?;
        Ok(self.func.constant_value(c))
    }

    pub(super) unsafe fn op(&mut self, inst: LLVMValueRef, i: u32) -> Result<Value, String> {
        self.operand(LLVMGetOperand(inst, i))
    }

    pub(super) unsafe fn block(&self, bb: LLVMBasicBlockRef) -> Result<Block, String> {
        self.blocks.get(&bb).copied().ok_or_else(|| "branch to a block of another function".to_string())
    }
}

/// The front end's type hint of a load, store or memory copy (`tbaa`).
///
/// # Safety
/// `inst` must be the live instruction `kind` was read from.
unsafe fn type_hint(func: &Function, inst: LLVMValueRef, kind: &InstKind) -> Option<crate::function::TypeHint> {
    match kind {
        InstKind::Load { ty, .. } => crate::llvm::tbaa::access_hint(inst, ty.natural_layout()?.0),
        InstKind::Store { value, .. } => crate::llvm::tbaa::access_hint(inst, func.ty(*value).natural_layout()?.0),
        InstKind::Call { callee: Callee::Direct(name), .. }
            if ["llvm.memcpy.", "llvm.memmove.", "llvm.memcpy.inline."].iter().any(|p| name.starts_with(p))
                || matches!(&**name, "memcpy" | "memmove") =>
        {
            crate::llvm::tbaa::copy_hint(inst)
        }
        _ => None,
    }
}
