//! Call sites of a module seen through inkwell's handles: which instructions are calls and
//! what they call, their arguments (metadata included) and `sret` attributes, where they are
//! in the source, who uses a function, and the few edits the driver makes to calls
//! (replacing a call's result, pointing a call or a function's uses at another function).

use super::values::{basic_type, Argument};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{
    AsValueRef, BasicValueEnum, CallSiteValue, FunctionValue, GlobalValue, InstructionOpcode, InstructionValue,
};

/// Which instruction a call site is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    Call,
    /// A call that may unwind to a landing pad (C++).
    Invoke,
    /// A call that may jump to other blocks (`asm goto`).
    CallBr,
}

/// The instruction as a call site (a `call`, `invoke` or `callbr`), if it is one.
pub fn call_site(inst: InstructionValue<'_>) -> Option<(CallSiteValue<'_>, CallKind)> {
    let kind = match inst.get_opcode() {
        InstructionOpcode::Call => CallKind::Call,
        InstructionOpcode::Invoke => CallKind::Invoke,
        InstructionOpcode::CallBr => CallKind::CallBr,
        _ => return None,
    };
    // SAFETY: the opcode says the live instruction is a call site (an LLVM `CallBase`),
    // which every `CallSiteValue` method expects.
    Some((unsafe { CallSiteValue::new(inst.as_value_ref()) }, kind))
}

/// The instruction a call site is.
pub fn instruction(call: CallSiteValue<'_>) -> InstructionValue<'_> {
    // SAFETY: a call site is an instruction (inkwell makes `CallSiteValue`s only of calls).
    unsafe { InstructionValue::new(call.as_value_ref()) }
}

/// The function a call calls directly, whatever function type the call gives it (unlike
/// inkwell's `get_called_fn_value`, which wants the call's type to match the function's:
/// a C call through an old-style declaration `double f();` does not).
pub fn called_function(call: CallSiteValue<'_>) -> Option<FunctionValue<'_>> {
    // SAFETY: `call` is a call site, whose called operand is a live value; `FunctionValue::new`
    // checks that it is a function.
    unsafe { FunctionValue::new(LLVMGetCalledValue(call.as_value_ref())) }
}

/// The arguments a call passes (without the callee), metadata included.
pub fn arguments(call: CallSiteValue<'_>) -> Vec<Argument<'_>> {
    let raw = call.as_value_ref();
    // SAFETY: a call site's first `LLVMGetNumArgOperands` operands are its arguments, live
    // (non-null) values of the module.
    unsafe { (0..LLVMGetNumArgOperands(raw)).map(|i| Argument::new(LLVMGetOperand(raw, i))).collect() }
}

fn sret_kind() -> u32 {
    inkwell::attributes::Attribute::get_named_enum_kind_id("sret")
}

/// The type named by the `sret(...)` attribute on the call's first argument, if it has one.
pub fn sret_argument_type(call: CallSiteValue<'_>) -> Option<BasicTypeEnum<'_>> {
    if call.count_arguments() == 0 {
        return None;
    }
    // SAFETY: attribute index 1 is the first argument of the call site; the attribute, when
    // there is one, is an `sret` type attribute, whose type belongs to the call's context.
    unsafe {
        let attr = LLVMGetCallSiteEnumAttribute(call.as_value_ref(), 1, sret_kind());
        if attr.is_null() {
            return None;
        }
        basic_type(LLVMGetTypeAttributeValue(attr))
    }
}

/// The type of the memory `f` returns its result in, when its first parameter is `sret`.
pub fn sret_parameter_type(f: FunctionValue<'_>) -> Option<BasicTypeEnum<'_>> {
    if f.count_params() == 0 {
        return None;
    }
    // SAFETY: as in `sret_argument_type`, for the function's first parameter.
    unsafe {
        let attr = LLVMGetEnumAttributeAtIndex(f.as_value_ref(), 1, sret_kind());
        if attr.is_null() {
            return None;
        }
        basic_type(LLVMGetTypeAttributeValue(attr))
    }
}

/// An instruction's source location, when it has debug info: file (as LLVM gives it, ""
/// when it gives none), line, column.
pub fn source_location(inst: InstructionValue<'_>) -> Option<(String, u32, u32)> {
    let raw = inst.as_value_ref();
    // SAFETY: debug location queries of a live instruction; the file name is `len` bytes
    // LLVM owns, copied at once.
    unsafe {
        let line = LLVMGetDebugLocLine(raw);
        if line == 0 {
            return None;
        }
        let mut len = 0u32;
        let file = LLVMGetDebugLocFilename(raw, &mut len);
        let file = if file.is_null() {
            String::new()
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(file as *const u8, len as usize)).into_owned()
        };
        Some((file, line, LLVMGetDebugLocColumn(raw)))
    }
}

/// One use of a function.
#[derive(Clone, Copy, Debug)]
pub enum FunctionUse<'ctx> {
    /// A call site that calls the function (as its callee).
    Called(CallSiteValue<'ctx>, CallKind),
    /// Another instruction: a call passing it as an argument, a store, a cast...
    Instruction(InstructionValue<'ctx>),
    /// A constant (an initializer, a constant expression), with the global variable whose
    /// initializer holds it, if any.
    Constant(Option<GlobalValue<'ctx>>),
}

/// Every use of `f`, in LLVM's use-list order.
pub fn uses(f: FunctionValue<'_>) -> Vec<FunctionUse<'_>> {
    let raw = f.as_value_ref();
    let mut out = Vec::new();
    // SAFETY: the use list of a live function holds live users of the same module; a user
    // that is an instruction is wrapped as one, and a call site only after its opcode says so.
    unsafe {
        let mut u = LLVMGetFirstUse(raw);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            if LLVMIsAInstruction(user).is_null() {
                out.push(FunctionUse::Constant(owning_global(user)));
                continue;
            }
            let inst = InstructionValue::new(user);
            out.push(match call_site(inst) {
                Some((call, kind)) if LLVMGetCalledValue(user) == raw => FunctionUse::Called(call, kind),
                _ => FunctionUse::Instruction(inst),
            });
        }
    }
    out
}

/// The global variable whose initializer holds `c` (through constant expressions and
/// aggregates), if any.
///
/// # Safety
/// `c` must be a live value of a context that lives for `'ctx`.
unsafe fn owning_global<'ctx>(c: LLVMValueRef) -> Option<GlobalValue<'ctx>> {
    if !LLVMIsAGlobalVariable(c).is_null() {
        return Some(GlobalValue::new(c));
    }
    if LLVMIsAConstant(c).is_null() {
        return None;
    }
    let mut u = LLVMGetFirstUse(c);
    while !u.is_null() {
        if let Some(g) = owning_global(LLVMGetUser(u)) {
            return Some(g);
        }
        u = LLVMGetNextUse(u);
    }
    None
}

/// Replaces every use of the call's result by `by`, which must have the call's type.
pub fn replace_result<'ctx>(call: CallSiteValue<'ctx>, by: BasicValueEnum<'ctx>) -> Result<(), String> {
    let raw = call.as_value_ref();
    // SAFETY: both are live values of one context; LLVM requires the same type of them
    // (checked here, as its own assertion is compiled out of release builds).
    unsafe {
        if LLVMTypeOf(raw) != LLVMTypeOf(by.as_value_ref()) {
            return Err(format!(
                "internal error: a call of type `{}` replaced by a value of type `{}` (please report this)",
                super::raw::print_type(LLVMTypeOf(raw)),
                super::raw::print_type(LLVMTypeOf(by.as_value_ref()))
            ));
        }
        LLVMReplaceAllUsesWith(raw, by.as_value_ref());
    }
    Ok(())
}

/// Points a call at another function (a declaration standing for the one it calls).
pub fn set_called_function<'ctx>(call: CallSiteValue<'ctx>, to: FunctionValue<'ctx>) {
    let raw = call.as_value_ref();
    // SAFETY: the callee is a call site's last operand; the new one is a live function of
    // the same context, a pointer like any callee (the call keeps its own function type).
    unsafe { LLVMSetOperand(raw, (LLVMGetNumOperands(raw) - 1) as u32, to.as_value_ref()) };
}

/// Replaces call `call` by its argument `index` (the call's uses use the argument; the
/// call is erased), when the two have the same type; returns whether it did.
pub fn replace_by_argument(call: CallSiteValue<'_>, index: u32) -> bool {
    let raw = call.as_value_ref();
    // SAFETY: `call` is a live call of a module; its argument is a live value of the same
    // function; the call is erased only after its uses are replaced.
    unsafe {
        if index >= LLVMGetNumArgOperands(raw) {
            return false;
        }
        let arg = LLVMGetOperand(raw, index);
        if LLVMTypeOf(arg) != LLVMTypeOf(raw) {
            return false;
        }
        LLVMReplaceAllUsesWith(raw, arg);
        LLVMInstructionEraseFromParent(raw);
    }
    true
}

/// Points every use of `old` at `by` (a function of the same module), then deletes `old`.
///
/// `old` is consumed, but inkwell's handles are `Copy`: other copies of it must not be used
/// afterwards (as after inkwell's own `InstructionValue::erase_from_basic_block`).
pub fn replace_function<'ctx>(old: FunctionValue<'ctx>, by: FunctionValue<'ctx>) {
    old.replace_all_uses_with(by);
    // SAFETY: nothing in the module refers to `old` any more, so deleting it leaves no
    // dangling use inside LLVM; the caller gave up the handle.
    unsafe { old.delete() };
}

/// `base + bytes` (a `getelementptr i8` without `inbounds`), built at `b`: a request's
/// argument computed at its call site (vector mode's strided shadows).
pub fn byte_offset<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    base: inkwell::values::PointerValue<'ctx>,
    bytes: inkwell::values::IntValue<'ctx>,
) -> Result<inkwell::values::PointerValue<'ctx>, inkwell::builder::BuilderError> {
    let i8 = base.get_type().get_context().i8_type();
    // SAFETY: inkwell marks GEPs unsafe because an `inbounds` one out of bounds is poison;
    // this one is not `inbounds`, so any offset gives a defined (if unusable) pointer.
    unsafe { b.build_gep(i8, base, &[bytes], "") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llvm::annotations::string_initializer;
    use crate::llvm::values::{as_global_variable, name_of, strip_constant_expressions, ValueClass};
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;

    const IR: &str = r#"
%struct.q = type { double, double }
@enzyme_dup = external global i32
@s = private constant [6 x i8] c"log1p\00"
@p = global ptr @s
declare double @__enzyme_autodiff(...)
declare void @g(ptr sret(%struct.q))
define double @f(double %x) { ret double %x }
define double @main(ptr %m) {
  %d = load i32, ptr @enzyme_dup
  %r = call double (...) @__enzyme_autodiff(ptr inttoptr (i64 ptrtoint (ptr @f to i64) to ptr), i32 %d, metadata !"enzyme_const", double 1.0)
  call void @g(ptr sret(%struct.q) %m)
  ret double %r
}
"#;

    #[test]
    fn reads_a_request_call_and_its_arguments() {
        let ctx = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(IR.as_bytes(), "t");
        let module = ctx.create_module_from_ir(buffer).expect("parses");
        let main = module.get_function("main").unwrap();
        let insts: Vec<_> = main.get_first_basic_block().unwrap().get_instructions().collect();
        assert!(call_site(insts[0]).is_none());
        let (call, kind) = call_site(insts[1]).unwrap();
        assert_eq!(kind, CallKind::Call);
        assert_eq!(name_of(&called_function(call).unwrap()), "__enzyme_autodiff");
        assert!(sret_argument_type(call).is_none());
        let args = arguments(call);
        assert_eq!(args.len(), 4);
        assert_eq!(name_of(&args[0].function_through_casts().unwrap()), "f");
        assert_eq!(args[0].function(), None);
        assert_eq!(name_of(&args[1].global_read().unwrap()), "enzyme_dup");
        assert!(args[1].load().is_some() && args[1].class() == ValueClass::Computed);
        assert!(matches!(args[2], Argument::Other(_)));
        assert_eq!(args[2].metadata_string().as_deref(), Some("enzyme_const"));
        assert_eq!(args[2].type_text(), "metadata");
        assert_eq!(args[3].class(), ValueClass::Constant);
        assert_eq!(args[3].text(), "double 1.000000e+00");
        let (sret_call, _) = call_site(insts[2]).unwrap();
        let ty = sret_argument_type(sret_call).unwrap();
        assert_eq!(ty.into_struct_type().get_name().unwrap().to_str(), Ok("struct.q"));
        assert!(sret_parameter_type(module.get_function("g").unwrap()).is_some());
        let uses = uses(module.get_function("f").unwrap());
        assert!(matches!(uses[..], [FunctionUse::Constant(None)]));
    }

    #[test]
    fn reads_string_constants() {
        let ctx = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(IR.as_bytes(), "t");
        let module = ctx.create_module_from_ir(buffer).expect("parses");
        let p = module.get_global("p").unwrap();
        let s = as_global_variable(strip_constant_expressions(p.get_initializer().unwrap())).unwrap();
        assert_eq!(string_initializer(s).as_deref(), Some("log1p\0"));
        assert_eq!(string_initializer(p), None);
        assert_eq!(string_initializer(module.get_function("f").unwrap().as_global_value()), None);
    }
}
