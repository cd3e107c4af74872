//! Where inlined code came from: an instruction's debug location records, for code LLVM
//! inlined, the function (`DISubprogram`) it was written in and the call it replaced.

use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::values::{AsValueRef, FunctionValue, InstructionValue};
use std::marker::PhantomData;

/// Functions whose inlined code to recognise, by their debug info.
pub struct InlinedFunctions<'ctx> {
    /// Each function's `DISubprogram`, with its index among the functions given.
    subprograms: Vec<(LLVMMetadataRef, usize)>,
    _ctx: PhantomData<&'ctx Context>,
}

impl<'ctx> InlinedFunctions<'ctx> {
    /// The functions of `functions` that have debug info (a `DISubprogram`).
    pub fn new(functions: &[FunctionValue<'ctx>]) -> Self {
        // SAFETY: a live function's subprogram, when it has one, is metadata of its context,
        // which lives for `'ctx`.
        let subprograms = functions
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let sp = unsafe { LLVMGetSubprogram(f.as_value_ref()) };
                (!sp.is_null()).then_some((sp, i))
            })
            .collect();
        InlinedFunctions { subprograms, _ctx: PhantomData }
    }

    /// Whether none of the functions has debug info (so none can be recognised).
    pub fn is_empty(&self) -> bool {
        self.subprograms.is_empty()
    }

    /// The function (its index) whose code `inst` is, inlined, and where it was inlined:
    /// " at file:line:col" of the call it replaced.
    pub fn inlined_from(&self, inst: InstructionValue<'ctx>) -> Option<(usize, String)> {
        // SAFETY: the debug location of a live instruction, and the locations, scopes and
        // files it refers to, are metadata of the same context.
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(inst.as_value_ref()));
            let mut loc = LLVMInstructionGetDebugLoc(inst.as_value_ref());
            while !loc.is_null() {
                let at = LLVMDILocationGetInlinedAt(loc);
                if at.is_null() {
                    return None;
                }
                let sp = subprogram_of(ctx, LLVMDILocationGetScope(loc));
                if let Some((_, i)) = self.subprograms.iter().find(|(s, _)| Some(*s) == sp) {
                    return Some((*i, site(at)));
                }
                loc = at;
            }
        }
        None
    }
}

/// The subprogram a scope is in: the scope itself, or the one its lexical blocks nest in.
///
/// # Safety
/// `scope` must be null or a live metadata node of `ctx`.
unsafe fn subprogram_of(ctx: LLVMContextRef, mut scope: LLVMMetadataRef) -> Option<LLVMMetadataRef> {
    for _ in 0..64 {
        if scope.is_null() {
            return None;
        }
        match LLVMGetMetadataKind(scope) {
            LLVMMetadataKind::LLVMDISubprogramMetadataKind => return Some(scope),
            // A lexical block's operands are its file, then its parent scope.
            LLVMMetadataKind::LLVMDILexicalBlockMetadataKind | LLVMMetadataKind::LLVMDILexicalBlockFileMetadataKind => {
                let node = LLVMMetadataAsValue(ctx, scope);
                let n = LLVMGetMDNodeNumOperands(node) as usize;
                if n < 2 {
                    return None;
                }
                let mut ops = vec![std::ptr::null_mut(); n];
                LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
                scope = if ops[1].is_null() { std::ptr::null_mut() } else { LLVMValueAsMetadata(ops[1]) };
            }
            _ => return None,
        }
    }
    None
}

/// " at file:line:col" of a debug location.
///
/// # Safety
/// `loc` must be a live `DILocation`.
unsafe fn site(loc: LLVMMetadataRef) -> String {
    let scope = LLVMDILocationGetScope(loc);
    let file = LLVMDIScopeGetFile(scope);
    let name = if file.is_null() {
        String::new()
    } else {
        let mut len = 0u32;
        let p = LLVMDIFileGetFilename(file, &mut len);
        if p.is_null() {
            String::new()
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize)).into_owned()
        }
    };
    format!(" at {name}:{}:{}", LLVMDILocationGetLine(loc), LLVMDILocationGetColumn(loc))
}
