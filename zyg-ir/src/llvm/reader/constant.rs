//! Reading LLVM constants as zyg-ir constants.

use crate::constant::Constant;
use crate::llvm::raw::{global_name, print_value, read_type};
use crate::types::{FloatTy, Type};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

/// Reads a constant operand, or says which kind of constant is not supported.
pub(super) unsafe fn read_constant(v: LLVMValueRef) -> Result<Constant, String> {
    let ty = read_type(LLVMTypeOf(v))?;
    if let Type::Vector(n, _) = &ty {
        if !LLVMIsAConstantDataVector(v).is_null()
            || !LLVMIsAConstantVector(v).is_null()
            || !LLVMIsAConstantInt(v).is_null()
            || !LLVMIsAConstantFP(v).is_null()
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
