//! Inline assembly whose meaning zyg knows, rewritten as the instructions it stands for in
//! the copy preparation reads: the only `asm` Eigen puts on the paths zyg differentiates.
//!
//! - An empty template (or, on x86, an assembler comment: Eigen's `EIGEN_ASM_COMMENT` in
//!   the GEBP kernel) does nothing: each output is the input tied to it (Eigen's
//!   `EIGEN_OPTIMIZATION_BARRIER(x)`, `asm("" : "+x"(x))`: the identity; an output in
//!   memory `"=*m"` is a store of its tied input, or keeps its value when none is tied), and
//!   an asm without outputs is dropped.
//! - On x86, the SSE and AVX min, max and fused multiply-add Eigen writes as asm for GCC
//!   before 6.3 / 8 (clang says it is GCC 4.2): `minpd a, res` with `res` tied to `b` is
//!   `b < a ? b : a` lane by lane (the second operand wins when either is NaN), `maxpd`
//!   `b > a ? b : a`, `vminpd a, b, res` the same, and `vfmadd231pd a, b, res` with `res`
//!   tied to `c` is `fma(a, b, c)`.
//!
//! Any other asm stays, and the reader refuses it where zyg must differentiate it.

use super::rewrite::{instructions, Builder};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMRealPredicate;
use inkwell::module::Module;

/// Rewrites the calls of inline assembly zyg knows (see the module's comment).
pub fn known_inline_asm_to_instructions(module: &Module<'_>) {
    let x86 = module
        .get_triple()
        .as_str()
        .to_str()
        .is_ok_and(|t| t.starts_with("x86_64") || t.starts_with("i386") || t.starts_with("i686"));
    // SAFETY: every value visited belongs to the live module; only calls (not invokes)
    // whose callee is inline asm are replaced, after their uses have moved to the values
    // built before them.
    unsafe {
        let m = module.as_mut_ptr();
        let b = Builder::new(LLVMGetModuleContext(m));
        for inst in instructions(module) {
            if LLVMIsACallInst(inst).is_null() {
                continue;
            }
            let asm = LLVMGetCalledValue(inst);
            if LLVMIsAInlineAsm(asm).is_null() {
                continue;
            }
            let (template, constraints) = (asm_string(asm, true), asm_string(asm, false));
            let args: Vec<LLVMValueRef> = (0..LLVMGetNumArgOperands(inst)).map(|i| LLVMGetOperand(inst, i)).collect();
            LLVMPositionBuilderBefore(b.0, inst);
            let done = if is_empty(&template, x86) {
                empty_asm(b.0, inst, &constraints, &args)
            } else if x86 {
                vector_op(b.0, m, inst, &template, &constraints, &args)
            } else {
                false
            };
            if done {
                LLVMInstructionEraseFromParent(inst);
            }
        }
    }
}

/// The asm's template (`template`) or constraint string.
///
/// # Safety
/// `asm` must be a live inline asm value.
unsafe fn asm_string(asm: LLVMValueRef, template: bool) -> String {
    let mut len = 0usize;
    let p = if template { LLVMGetInlineAsmAsmString(asm, &mut len) } else { LLVMGetInlineAsmConstraintString(asm, &mut len) };
    if p.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
}

/// Whether a template assembles to nothing: blank, or on x86 one line of comment.
fn is_empty(template: &str, x86: bool) -> bool {
    let t = template.trim();
    t.is_empty() || (x86 && t.starts_with('#') && !t.contains('\n') && !t.contains(';'))
}

/// The operands of a constraint string, clobbers left out: each `(is_output, indirect,
/// tied_to)`, where `tied_to` is the output an input is tied to (its constraint a number).
fn operands(constraints: &str) -> Vec<(bool, bool, Option<usize>)> {
    constraints
        .split(',')
        .filter(|c| !c.starts_with('~'))
        .map(|c| {
            let output = c.starts_with('=');
            let rest = c.trim_start_matches(['=', '&', '+']);
            (output, rest.starts_with('*'), if output { None } else { rest.parse().ok() })
        })
        .collect()
}

/// An empty template: each output becomes the input tied to it; false (the asm stays)
/// when an output has no tied input (its value would be whatever the register held).
///
/// # Safety
/// `b` must be positioned before `inst`, a call of inline asm with arguments `args`.
unsafe fn empty_asm(b: LLVMBuilderRef, inst: LLVMValueRef, constraints: &str, args: &[LLVMValueRef]) -> bool {
    let ops = operands(constraints);
    // Arguments are taken by the indirect outputs, then by every input, in order.
    let mut next = 0usize;
    let mut output_ptrs = Vec::new();
    for &(output, indirect, _) in &ops {
        if output {
            output_ptrs.push(if indirect {
                next += 1;
                args.get(next - 1).copied()
            } else {
                None
            });
        }
    }
    let mut tied = vec![None; output_ptrs.len()];
    for &(output, _, tied_to) in &ops {
        if output {
            continue;
        }
        let Some(&arg) = args.get(next) else { return false };
        next += 1;
        if let Some(k) = tied_to.filter(|k| *k < tied.len()) {
            tied[k] = Some(arg);
        }
    }
    // An output in memory without a tied input keeps what the memory holds (`"+m"(x)`: the
    // template writes nothing); one in a register would be whatever the register held.
    if next != args.len() || output_ptrs.iter().zip(&tied).any(|(p, t)| p.is_none() && t.is_none()) {
        return false;
    }
    let mut results = Vec::new();
    for (ptr, value) in output_ptrs.iter().zip(&tied) {
        match (ptr, value) {
            (Some(p), Some(v)) => {
                LLVMBuildStore(b, *v, *p);
            }
            (Some(_), None) => {}
            (None, v) => results.push(v.expect("a register output has its tied input")),
        }
    }
    let ty = LLVMTypeOf(inst);
    let result = match results.as_slice() {
        [] => None,
        [one] => Some(*one),
        many => {
            if LLVMGetTypeKind(ty) != inkwell::llvm_sys::LLVMTypeKind::LLVMStructTypeKind {
                return false;
            }
            let mut agg = LLVMGetUndef(ty);
            for (i, v) in many.iter().enumerate() {
                agg = LLVMBuildInsertValue(b, agg, *v, i as u32, c"".as_ptr());
            }
            Some(agg)
        }
    };
    match result {
        Some(v) if LLVMTypeOf(v) == ty => LLVMReplaceAllUsesWith(inst, v),
        Some(_) => return false,
        None if LLVMGetTypeKind(ty) != inkwell::llvm_sys::LLVMTypeKind::LLVMVoidTypeKind => return false,
        None => {}
    }
    true
}

/// Eigen's x86 min, max and fused multiply-add asm as instructions; false for any other.
///
/// # Safety
/// As `empty_asm`; `m` is the module holding `inst`.
unsafe fn vector_op(
    b: LLVMBuilderRef,
    m: LLVMModuleRef,
    inst: LLVMValueRef,
    template: &str,
    constraints: &str,
    args: &[LLVMValueRef],
) -> bool {
    let words: Vec<&str> = template.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).collect();
    let ops: Vec<&str> = constraints.split(',').filter(|c| !c.starts_with('~')).collect();
    let ty = LLVMTypeOf(inst);
    use inkwell::llvm_sys::LLVMTypeKind::*;
    let floats = LLVMGetTypeKind(ty) == LLVMVectorTypeKind
        && matches!(LLVMGetTypeKind(LLVMGetElementType(ty)), LLVMDoubleTypeKind | LLVMFloatTypeKind);
    if !floats || args.iter().any(|a| LLVMTypeOf(*a) != ty) {
        return false;
    }
    let (op, a, bv, c) = match (words.as_slice(), ops.as_slice(), args) {
        // `minpd a, res`, res tied to b.
        ([op, "$1", "$0"], ["=x", "x", "0"], &[a, bv]) if is_min_max(op, false) => (*op, a, bv, None),
        // `vminpd a, b, res`.
        ([op, "$1", "$2", "$0"], ["=x", "x", "x"], &[a, bv]) if is_min_max(op, true) => (*op, a, bv, None),
        // `vfmadd231pd a, b, res`, res tied to c.
        ([op, "$1", "$2", "$0"], ["=x", "x", "x", "0"], &[a, bv, c]) if matches!(*op, "vfmadd231pd" | "vfmadd231ps") => {
            (*op, a, bv, Some(c))
        }
        _ => return false,
    };
    let value = if let Some(c) = c {
        let name = c"llvm.fma";
        let id = LLVMLookupIntrinsicID(name.as_ptr(), name.to_bytes().len());
        let mut tys = [ty];
        let f = LLVMGetIntrinsicDeclaration(m, id, tys.as_mut_ptr(), 1);
        let fty = LLVMIntrinsicGetType(LLVMGetModuleContext(m), id, tys.as_mut_ptr(), 1);
        let mut operands = [a, bv, c];
        LLVMBuildCall2(b, fty, f, operands.as_mut_ptr(), 3, c"".as_ptr())
    } else {
        let pred = if op.contains("min") { LLVMRealPredicate::LLVMRealOLT } else { LLVMRealPredicate::LLVMRealOGT };
        let keep_b = LLVMBuildFCmp(b, pred, bv, a, c"".as_ptr());
        LLVMBuildSelect(b, keep_b, bv, a, c"".as_ptr())
    };
    LLVMReplaceAllUsesWith(inst, value);
    true
}

/// `minpd`, `maxps`... (`vex`: the three-operand AVX spellings, `vminpd`).
fn is_min_max(op: &str, vex: bool) -> bool {
    let op = if vex {
        match op.strip_prefix('v') {
            Some(rest) => rest,
            None => return false,
        }
    } else {
        op
    };
    matches!(op, "minpd" | "minps" | "maxpd" | "maxps")
}
