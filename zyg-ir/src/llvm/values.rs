//! Values of a module seen through inkwell's handles: a call's argument (a first-class value,
//! or metadata as MLIR and Julia pass markers), what a value names through casts (a function,
//! a global variable), constants' parts, names, and how a value reads in messages.
//!
//! Every function takes and returns handles tied to their context's lifetime (`'ctx`), so no
//! result outlives the module it was read from; the queries only read the IR.

use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{AnyValue, AsValueRef, BasicValue, BasicValueEnum, FunctionValue, GlobalValue, InstructionValue};
use std::marker::PhantomData;

/// An argument of a call: a first-class value, or anything else a call may pass (metadata,
/// `metadata !"enzyme_dup"`, or a token), which inkwell's `BasicValueEnum` cannot hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Argument<'ctx> {
    Value(BasicValueEnum<'ctx>),
    Other(OtherValue<'ctx>),
}

/// A value that is not first-class (metadata, a token), of a live module of context `'ctx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OtherValue<'ctx> {
    raw: LLVMValueRef,
    _ctx: PhantomData<&'ctx Context>,
}

/// What kind of value an argument is, for messages about what it should have been.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueClass<'ctx> {
    NullPointer,
    GlobalVariable(GlobalValue<'ctx>),
    ConstantInt,
    /// Another constant (a global alias, an expression, `undef`...).
    Constant,
    /// An argument of the enclosing function, or an instruction's result.
    Computed,
    Other,
}

/// The first-class value `raw` is, if its type is first-class (inkwell's `BasicValueEnum`).
///
/// # Safety
/// `raw` must be null or a live value of a context that lives for `'ctx`.
pub(crate) unsafe fn basic_value<'ctx>(raw: LLVMValueRef) -> Option<BasicValueEnum<'ctx>> {
    if raw.is_null() {
        return None;
    }
    // `BasicValueEnum::new` accepts exactly the first-class kinds (and panics on the others).
    first_class(LLVMGetTypeKind(LLVMTypeOf(raw))).then(|| BasicValueEnum::new(raw))
}

/// The first-class type `raw` is, if it is one (inkwell's `BasicTypeEnum`); `None` for void,
/// metadata, labels and tokens.
///
/// # Safety
/// `raw` must be null or a type of a context that lives for `'ctx`.
pub(crate) unsafe fn basic_type<'ctx>(raw: LLVMTypeRef) -> Option<BasicTypeEnum<'ctx>> {
    if raw.is_null() {
        return None;
    }
    first_class(LLVMGetTypeKind(raw)).then(|| BasicTypeEnum::new(raw))
}

/// The kinds of type inkwell's `BasicValueEnum` and `BasicTypeEnum` hold: not void,
/// metadata, labels, tokens or functions.
fn first_class(kind: LLVMTypeKind) -> bool {
    use LLVMTypeKind::*;
    matches!(
        kind,
        LLVMHalfTypeKind
            | LLVMBFloatTypeKind
            | LLVMFloatTypeKind
            | LLVMDoubleTypeKind
            | LLVMX86_FP80TypeKind
            | LLVMFP128TypeKind
            | LLVMPPC_FP128TypeKind
            | LLVMIntegerTypeKind
            | LLVMStructTypeKind
            | LLVMPointerTypeKind
            | LLVMArrayTypeKind
            | LLVMVectorTypeKind
            | LLVMScalableVectorTypeKind
    )
}

impl<'ctx> Argument<'ctx> {
    /// # Safety
    /// `raw` must be a live (non-null) value of a context that lives for `'ctx`.
    pub(crate) unsafe fn new(raw: LLVMValueRef) -> Self {
        match basic_value(raw) {
            Some(v) => Argument::Value(v),
            None => Argument::Other(OtherValue { raw, _ctx: PhantomData }),
        }
    }

    fn raw(self) -> LLVMValueRef {
        match self {
            Argument::Value(v) => v.as_value_ref(),
            Argument::Other(o) => o.raw,
        }
    }

    /// The first-class value, if it is one.
    pub fn value(self) -> Option<BasicValueEnum<'ctx>> {
        match self {
            Argument::Value(v) => Some(v),
            Argument::Other(_) => None,
        }
    }

    /// The text of a metadata string argument (`metadata !"enzyme_const"`).
    pub fn metadata_string(self) -> Option<String> {
        let raw = self.raw();
        // SAFETY: `raw` is a live value (the handle's invariant); `LLVMGetMDString` answers
        // null for anything but a metadata string, else `len` bytes LLVM owns.
        unsafe {
            if LLVMIsAMDString(raw).is_null() {
                return None;
            }
            let mut len = 0u32;
            let text = LLVMGetMDString(raw, &mut len);
            Some(if text.is_null() {
                String::new()
            } else {
                String::from_utf8_lossy(std::slice::from_raw_parts(text as *const u8, len as usize)).into_owned()
            })
        }
    }

    /// LLVM's printing of the argument's type.
    pub fn type_text(self) -> String {
        // SAFETY: the type of a live value; LLVM allocates the text, `print_type` frees it.
        super::raw::print_type(unsafe { LLVMTypeOf(self.raw()) })
    }

    /// LLVM's printing of the value; a function or other global as its type and name (LLVM
    /// prints a function's whole body).
    pub fn text(self) -> String {
        let raw = self.raw();
        // SAFETY: `raw` is a live value; a global value has a name and a type.
        unsafe {
            if !LLVMIsAGlobalValue(raw).is_null() {
                return format!("{} @{}", self.type_text(), super::raw::value_name(raw));
            }
        }
        match self {
            Argument::Value(v) => v.print_to_string().to_string_lossy().trim().to_string(),
            Argument::Other(o) => super::raw::print_value(o.raw).trim().to_string(),
        }
    }

    /// What kind of value this is (for messages).
    pub fn class(self) -> ValueClass<'ctx> {
        let raw = self.raw();
        // SAFETY: type queries (`LLVMIsA*`) of a live value; a global variable is a global
        // value of the same context.
        unsafe {
            if !LLVMIsAConstantPointerNull(raw).is_null() {
                ValueClass::NullPointer
            } else if !LLVMIsAGlobalVariable(raw).is_null() {
                ValueClass::GlobalVariable(GlobalValue::new(raw))
            } else if !LLVMIsAConstantInt(raw).is_null() {
                ValueClass::ConstantInt
            } else if !LLVMIsAConstant(raw).is_null() {
                ValueClass::Constant
            } else if !LLVMIsAArgument(raw).is_null() || !LLVMIsAInstruction(raw).is_null() {
                ValueClass::Computed
            } else {
                ValueClass::Other
            }
        }
    }

    /// The function this is, if it is one (not through casts).
    pub fn function(self) -> Option<FunctionValue<'ctx>> {
        // SAFETY: `FunctionValue::new` checks `LLVMIsAFunction` of the live value.
        unsafe { FunctionValue::new(self.raw()) }
    }

    /// The function the argument names, looking through pointer casts (of constant
    /// expressions or instructions); an offset (`getelementptr (i8, ptr @f, i64 1)`) is
    /// not the function.
    pub fn function_through_casts(self) -> Option<FunctionValue<'ctx>> {
        use LLVMOpcode::*;
        let mut v = self.raw();
        // SAFETY: each step reads a live value's kind, opcode and first operand (casts have
        // one), which is live in the same module.
        unsafe {
            for _ in 0..4 {
                if let Some(f) = FunctionValue::new(v) {
                    return Some(f);
                }
                let opcode = if !LLVMIsAConstantExpr(v).is_null() {
                    LLVMGetConstOpcode(v)
                } else if !LLVMIsACastInst(v).is_null() {
                    LLVMGetInstructionOpcode(v)
                } else {
                    return None;
                };
                if !matches!(opcode, LLVMBitCast | LLVMAddrSpaceCast | LLVMPtrToInt | LLVMIntToPtr) {
                    return None;
                }
                v = LLVMGetOperand(v, 0);
            }
        }
        None
    }

    /// The global variable the argument is, or points into through constant address
    /// arithmetic, casts and `getelementptr` instructions (eight steps at most).
    pub fn global_variable_under(self) -> Option<GlobalValue<'ctx>> {
        let mut v = self.raw();
        // SAFETY: each step reads a live value's kind and, when it has one, its first
        // operand, live in the same module.
        unsafe {
            for _ in 0..8 {
                if !LLVMIsAGlobalVariable(v).is_null() {
                    return Some(GlobalValue::new(v));
                }
                let through =
                    !LLVMIsAConstantExpr(v).is_null() || !LLVMIsACastInst(v).is_null() || !LLVMIsAGetElementPtrInst(v).is_null();
                if !through || LLVMGetNumOperands(v) < 1 {
                    return None;
                }
                v = LLVMGetOperand(v, 0);
            }
        }
        None
    }

    /// The global variable the argument is, or loads from (`load i32, ptr @enzyme_dup`).
    pub fn global_read(self) -> Option<GlobalValue<'ctx>> {
        let raw = self.raw();
        // SAFETY: a load's first operand is its (live) address.
        unsafe {
            let mut global = if !LLVMIsALoadInst(raw).is_null() { LLVMGetOperand(raw, 0) } else { raw };
            // CUDA's device code reads a `__device__` global (address space 1) through an
            // `addrspacecast` to a generic pointer.
            if !LLVMIsAConstantExpr(global).is_null()
                && LLVMGetConstOpcode(global) == inkwell::llvm_sys::LLVMOpcode::LLVMAddrSpaceCast
            {
                global = LLVMGetOperand(global, 0);
            }
            (!LLVMIsAGlobalVariable(global).is_null()).then(|| GlobalValue::new(global))
        }
    }

    /// The load instruction this is, if it is one.
    pub fn load(self) -> Option<InstructionValue<'ctx>> {
        let i = self.value()?.as_instruction_value()?;
        (i.get_opcode() == inkwell::values::InstructionOpcode::Load).then_some(i)
    }
}

/// The global variable `v` is, if it is one (not a function or alias).
pub fn as_global_variable(v: BasicValueEnum<'_>) -> Option<GlobalValue<'_>> {
    // SAFETY: a kind query of a live value; the variable is a global value of its module.
    unsafe { (!LLVMIsAGlobalVariable(v.as_value_ref()).is_null()).then(|| GlobalValue::new(v.as_value_ref())) }
}

/// The function `v` is, if it is one.
pub fn as_function(v: BasicValueEnum<'_>) -> Option<FunctionValue<'_>> {
    // SAFETY: `FunctionValue::new` checks `LLVMIsAFunction` of the live value.
    unsafe { FunctionValue::new(v.as_value_ref()) }
}

/// The first-class operands of a constant: an array's or struct's elements, a constant
/// expression's operands, a global variable's initializer. Operands that are not first-class
/// values (none, for constants) are left out.
pub fn constant_operands(c: BasicValueEnum<'_>) -> Vec<BasicValueEnum<'_>> {
    let raw = c.as_value_ref();
    // SAFETY: the operands of a live value are live values of the same module (or null,
    // which `basic_value` leaves out).
    unsafe { (0..LLVMGetNumOperands(raw).max(0) as u32).filter_map(|i| basic_value(LLVMGetOperand(raw, i))).collect() }
}

/// Whether `c` is a constant array or struct (not a `zeroinitializer` or a data array).
pub fn is_constant_aggregate(c: BasicValueEnum<'_>) -> bool {
    // SAFETY: kind queries of a live value.
    unsafe { !LLVMIsAConstantArray(c.as_value_ref()).is_null() || !LLVMIsAConstantStruct(c.as_value_ref()).is_null() }
}

/// A constant with constant expressions (casts, address arithmetic) taken off: `(void *)f`
/// is `f`, `&s[0]` is `s`.
pub fn strip_constant_expressions(c: BasicValueEnum<'_>) -> BasicValueEnum<'_> {
    let mut v = c;
    // SAFETY: a constant expression's first operand is a live constant of the module.
    unsafe {
        while !LLVMIsAConstantExpr(v.as_value_ref()).is_null() && LLVMGetNumOperands(v.as_value_ref()) > 0 {
            match basic_value(LLVMGetOperand(v.as_value_ref(), 0)) {
                Some(next) => v = next,
                None => break,
            }
        }
    }
    v
}

/// A constant integer's value zero-extended (`(void *)3`, stripped, is `i64 3`); a null
/// pointer is 0.
pub fn constant_unsigned(v: BasicValueEnum<'_>) -> Option<u64> {
    let raw = v.as_value_ref();
    // SAFETY: kind queries of a live value; `LLVMConstIntGetZExtValue` is asked only of a
    // constant integer.
    unsafe {
        if !LLVMIsAConstantPointerNull(raw).is_null() {
            return Some(0);
        }
        (!LLVMIsAConstantInt(raw).is_null()).then(|| LLVMConstIntGetZExtValue(raw))
    }
}

/// A scalar constant: an integer (sign-extended) or a float (as a double).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarConstant {
    Int(i64),
    Float(f64),
}

/// The scalar constant `v` is, if it is a constant integer or float (not `undef`, not an
/// expression).
pub fn scalar_constant(v: BasicValueEnum<'_>) -> Option<ScalarConstant> {
    let raw = v.as_value_ref();
    // SAFETY: kind queries of a live value; each accessor is asked only of its kind.
    unsafe {
        if !LLVMIsAConstantFP(raw).is_null() {
            let mut loses = 0;
            Some(ScalarConstant::Float(LLVMConstRealGetDouble(raw, &mut loses)))
        } else if !LLVMIsAConstantInt(raw).is_null() {
            Some(ScalarConstant::Int(LLVMConstIntGetSExtValue(raw)))
        } else {
            None
        }
    }
}

/// The types a function takes; a parameter that is not a first-class value (an intrinsic's
/// metadata or token) as LLVM's printing of its type.
pub fn parameter_types<'ctx>(f: FunctionValue<'ctx>) -> Vec<Result<BasicTypeEnum<'ctx>, String>> {
    let ty = f.get_type();
    // SAFETY: `LLVMGetParamTypes` fills exactly `LLVMCountParamTypes` entries with types of
    // the function's context.
    unsafe {
        use inkwell::types::AsTypeRef;
        let mut params = vec![std::ptr::null_mut(); LLVMCountParamTypes(ty.as_type_ref()) as usize];
        LLVMGetParamTypes(ty.as_type_ref(), params.as_mut_ptr());
        params.into_iter().map(|t| basic_type(t).ok_or_else(|| super::raw::print_type(t))).collect()
    }
}

/// The type a function returns: `None` for `void` (or an intrinsic's token).
pub fn return_type<'ctx>(f: FunctionValue<'ctx>) -> Option<BasicTypeEnum<'ctx>> {
    use inkwell::types::AsTypeRef;
    // SAFETY: the return type of a live function type, of the same context.
    unsafe { basic_type(LLVMGetReturnType(f.get_type().as_type_ref())) }
}

/// The number of elements of an array type, in full (inkwell's `len` is 32 bits).
pub fn array_length(t: inkwell::types::ArrayType<'_>) -> u64 {
    use inkwell::types::AsTypeRef;
    // SAFETY: `t` is an array type (the handle's invariant).
    unsafe { LLVMGetArrayLength2(t.as_type_ref()) }
}

/// Handles whose LLVM name can be read: inkwell's value handles (sealed, so that every
/// implementation hands over a live value).
pub trait Named: sealed::Sealed {
    #[doc(hidden)]
    fn raw_value(&self) -> LLVMValueRef;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! named {
    ($($t:ident),*) => {$(
        impl sealed::Sealed for inkwell::values::$t<'_> {}
        impl Named for inkwell::values::$t<'_> {
            fn raw_value(&self) -> LLVMValueRef {
                self.as_value_ref()
            }
        }
    )*};
}
named!(FunctionValue, GlobalValue, InstructionValue, BasicValueEnum);

/// The name of a value (function, global, instruction), or "" when it has none.
pub fn name_of(v: &impl Named) -> String {
    // SAFETY: `Named` is implemented only for inkwell's handles, which hold live values.
    unsafe { super::raw::value_name(v.raw_value()) }
}

/// The name zyg-ir knows a global value by (see `global_name`): its own, or the number LLVM
/// prints for an unnamed one.
pub fn global_value_name(g: GlobalValue<'_>) -> Result<String, String> {
    // SAFETY: `g` is a global value of a live module.
    unsafe { super::raw::global_name(g.as_value_ref()) }
}
