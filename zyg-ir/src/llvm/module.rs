//! Safe queries and small changes of a whole LLVM module for the driver: parsing IR without
//! inkwell's buffer leak, LLVM's process-wide options, the module's debug-info version,
//! the first type of a kind in a module, functions by zyg-ir's name, a string attribute's
//! full value, a function's metadata. Each takes and returns inkwell's handles, whose
//! lifetime ties them to the module's context.

use inkwell::attributes::Attribute;
use inkwell::context::AsContextRef;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMTypeKind;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::types::AnyTypeEnum;
use inkwell::values::{AsValueRef, FunctionValue, InstructionValue};
use std::collections::HashMap;

/// Parses LLVM IR, text or bitcode, named `name` in LLVM's messages; the error is LLVM's
/// message. (inkwell 0.11's `create_module_from_ir` leaks its buffer with LLVM 22, whose
/// `LLVMParseIRInContext2` no longer takes it over: the input's size per module read.)
pub fn parse_ir<'ctx>(context: impl AsContextRef<'ctx>, bytes: &[u8], name: &str) -> Result<Module<'ctx>, String> {
    use inkwell::llvm_sys::ir_reader::LLVMParseIRInContext2;
    let buffer = MemoryBuffer::create_from_memory_range_copy(bytes, name);
    let mut module = std::ptr::null_mut();
    let mut message = std::ptr::null_mut();
    // SAFETY: the context and the buffer are live; LLVM fills `module` (a new module of
    // `context`, owned by the `Module` made of it) or `message` (copied and freed). The
    // buffer stays ours (LLVMParseIRInContext2 does not take it) and is dropped by inkwell.
    unsafe {
        let failed = LLVMParseIRInContext2(context.as_ctx_ref(), buffer.as_mut_ptr(), &mut module, &mut message) != 0;
        if failed || module.is_null() {
            return Err(super::take_message(message));
        }
        Ok(Module::new(module))
    }
}

/// Gives LLVM process-wide command-line options (`-disable-vector-combine`), as `opt`
/// would read them. An option LLVM does not know makes it print an error and exit, as its
/// tools do. Options with a NUL byte are not given (`false`).
pub fn parse_llvm_options(options: &[&str]) -> bool {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let Ok(mut args) =
        std::iter::once("zyg").chain(options.iter().copied()).map(std::ffi::CString::new).collect::<Result<Vec<_>, _>>()
    else {
        return false;
    };
    let pointers: Vec<*const std::ffi::c_char> = args.iter_mut().map(|a| a.as_ptr()).collect();
    // LLVM's option registry is global and not synchronised: one parse at a time.
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: NUL-terminated strings that outlive the call, and as many as the count says.
    unsafe { inkwell::llvm_sys::support::LLVMParseCommandLineOptions(pointers.len() as i32, pointers.as_ptr(), c"".as_ptr()) };
    true
}

/// The module's "Debug Info Version" flag, 0 when it has none. LLVM's own reading
/// (`LLVMGetModuleDebugMetadataVersion`, inkwell's `get_debug_metadata_version`) assumes
/// well-formed flags and crashed on a flag of two operands (found by the llvm_module fuzz
/// target): this one checks each flag's shape, as the verifier does.
pub fn debug_info_version(module: &Module<'_>) -> u32 {
    let m = module.as_mut_ptr();
    let name = c"llvm.module.flags";
    // SAFETY: `m` is a live module; the operand arrays are sized by LLVM's own counts, every
    // operand is checked for null and for its kind before it is read as a string or integer.
    unsafe {
        let n = LLVMGetNamedMetadataNumOperands(m, name.as_ptr()) as usize;
        let mut flags = vec![std::ptr::null_mut(); n];
        LLVMGetNamedMetadataOperands(m, name.as_ptr(), flags.as_mut_ptr());
        for flag in flags.into_iter().filter(|f| !f.is_null()) {
            if LLVMGetMDNodeNumOperands(flag) != 3 {
                continue;
            }
            let mut ops = [std::ptr::null_mut(); 3];
            LLVMGetMDNodeOperands(flag, ops.as_mut_ptr());
            if ops[1].is_null() || ops[2].is_null() {
                continue;
            }
            let mut len = 0u32;
            let key = LLVMGetMDString(ops[1], &mut len);
            if key.is_null() || std::slice::from_raw_parts(key.cast::<u8>(), len as usize) != b"Debug Info Version" {
                continue;
            }
            if !LLVMIsAConstantInt(ops[2]).is_null() {
                return u32::try_from(LLVMConstIntGetZExtValue(ops[2])).unwrap_or(u32::MAX);
            }
        }
    }
    0
}

/// Where a type of the kind looked for first appears in a module.
pub struct FoundType<'ctx> {
    /// The function's name, or `global `@NAME``.
    pub owner: String,
    /// The instruction, when the type is not in a signature or a global's type.
    pub instruction: Option<InstructionValue<'ctx>>,
    pub ty: AnyTypeEnum<'ctx>,
}

/// The first type of a kind `wanted` accepts in the module, in or inside another type: in
/// a global, a signature, an instruction's result or operand, an allocation or an address
/// computation.
pub fn find_type<'ctx>(module: &Module<'ctx>, wanted: impl Fn(LLVMTypeKind) -> bool) -> Option<FoundType<'ctx>> {
    let mut search = TypeSearch { wanted: &wanted, seen: HashMap::new() };
    let m = module.as_mut_ptr();
    // SAFETY: walking the live module's globals, functions, blocks and instructions with
    // LLVM's own iterators (each null-terminated); the handles made of what is found belong
    // to the module's context (`'ctx`).
    unsafe {
        let found = |owner, instruction: Option<LLVMValueRef>, ty| FoundType {
            owner,
            instruction: instruction.map(|i| InstructionValue::new(i)),
            ty: AnyTypeEnum::new(ty),
        };
        let mut g = LLVMGetFirstGlobal(m);
        while !g.is_null() {
            if let Some(ty) = search.find(LLVMGlobalGetValueType(g)) {
                return Some(found(format!("global `@{}`", super::raw::value_name(g)), None, ty));
            }
            g = LLVMGetNextGlobal(g);
        }
        let mut f = LLVMGetFirstFunction(m);
        while !f.is_null() {
            if let Some(ty) = search.find(LLVMGlobalGetValueType(f)) {
                return Some(found(super::raw::value_name(f), None, ty));
            }
            let mut bb = LLVMGetFirstBasicBlock(f);
            while !bb.is_null() {
                let mut inst = LLVMGetFirstInstruction(bb);
                while !inst.is_null() {
                    if let Some(ty) = search.in_instruction(inst) {
                        return Some(found(super::raw::value_name(f), Some(inst), ty));
                    }
                    inst = LLVMGetNextInstruction(inst);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
            f = LLVMGetNextFunction(f);
        }
    }
    None
}

/// A search for types of the kinds `wanted` accepts, inside other types, remembering what
/// each type was found to hold.
struct TypeSearch<'a> {
    wanted: &'a dyn Fn(LLVMTypeKind) -> bool,
    seen: HashMap<LLVMTypeRef, bool>,
}

impl TypeSearch<'_> {
    /// A wanted type in `inst`'s result, operands, allocated or indexed type.
    ///
    /// # Safety
    /// `inst` must be a live instruction.
    unsafe fn in_instruction(&mut self, inst: LLVMValueRef) -> Option<LLVMTypeRef> {
        let mut types = vec![LLVMTypeOf(inst)];
        for i in 0..LLVMGetNumOperands(inst).max(0) as u32 {
            let op = LLVMGetOperand(inst, i);
            if !op.is_null() {
                types.push(LLVMTypeOf(op));
            }
        }
        if !LLVMIsAAllocaInst(inst).is_null() {
            types.push(LLVMGetAllocatedType(inst));
        }
        if !LLVMIsAGetElementPtrInst(inst).is_null() {
            types.push(LLVMGetGEPSourceElementType(inst));
        }
        if !LLVMIsACallInst(inst).is_null() || !LLVMIsAInvokeInst(inst).is_null() {
            types.push(LLVMGetCalledFunctionType(inst));
        }
        types.into_iter().find_map(|t| self.find(t))
    }

    /// The wanted type `t` is or holds, if any.
    ///
    /// # Safety
    /// `t` must be a live type.
    unsafe fn find(&mut self, t: LLVMTypeRef) -> Option<LLVMTypeRef> {
        if self.seen.get(&t) == Some(&false) {
            return None;
        }
        let kind = LLVMGetTypeKind(t);
        let found = match kind {
            _ if (self.wanted)(kind) => Some(t),
            LLVMTypeKind::LLVMVectorTypeKind | LLVMTypeKind::LLVMScalableVectorTypeKind | LLVMTypeKind::LLVMArrayTypeKind => {
                self.find(LLVMGetElementType(t))
            }
            LLVMTypeKind::LLVMStructTypeKind => {
                // Marked first: a struct's fields cannot hold the struct itself (pointers are
                // opaque), but a guard costs nothing.
                self.seen.insert(t, false);
                (0..LLVMCountStructElementTypes(t)).find_map(|i| self.find(LLVMStructGetTypeAtIndex(t, i)))
            }
            LLVMTypeKind::LLVMFunctionTypeKind => {
                let n = LLVMCountParamTypes(t) as usize;
                let mut params = vec![std::ptr::null_mut(); n];
                LLVMGetParamTypes(t, params.as_mut_ptr());
                std::iter::once(LLVMGetReturnType(t)).chain(params).find_map(|p| self.find(p))
            }
            _ => None,
        };
        self.seen.insert(t, found.is_some());
        found
    }
}

/// The function zyg-ir calls `name`: by its name, or an unnamed one (`@0`) by its number
/// (`global_name`).
pub fn function_named<'ctx>(module: &Module<'ctx>, name: &str) -> Option<FunctionValue<'ctx>> {
    // SAFETY: looking a name up in the live module; a value found belongs to it, and
    // `FunctionValue::new` checks that it is a function.
    unsafe { super::raw::find_global(module.as_mut_ptr(), name).and_then(|v| FunctionValue::new(v)) }
}

/// Deletes the function named `name` when nothing in the module uses it; whether it did.
/// LLVM frees the function: like inkwell's `InstructionValue::erase_from_basic_block`, this
/// leaves any `FunctionValue` of it held elsewhere dangling, so callers look it up by name
/// here and keep none.
pub fn delete_unused_function(module: &Module<'_>, name: &str) -> bool {
    let Some(f) = module.get_function(name) else { return false };
    // SAFETY: a function of the live module; it is deleted only when no use of it remains
    // in the module, so no instruction or constant refers to the freed value.
    unsafe {
        if !LLVMGetFirstUse(f.as_value_ref()).is_null() {
            return false;
        }
        f.delete();
    }
    true
}

/// The whole value of a string attribute (inkwell's `get_string_value` stops at a NUL
/// byte); "" for an enum or type attribute.
pub fn string_attribute_value(attr: Attribute) -> String {
    if !attr.is_string() {
        return String::new();
    }
    let mut len = 0u32;
    // SAFETY: a live string attribute; LLVM returns a pointer to `len` bytes it owns, or
    // null, and the bytes are copied at once.
    unsafe {
        let p = LLVMGetStringAttributeValue(attr.as_mut_ptr(), &mut len);
        if p.is_null() {
            return String::new();
        }
        String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len as usize)).into_owned()
    }
}

/// Removes the metadata of kind `kind` (`"dbg"`) attached to the function itself.
pub fn erase_function_metadata(function: FunctionValue<'_>, kind: &str) {
    let context = function.get_type().get_context();
    // SAFETY: a live function of `context`; the kind name is passed with its length (no NUL
    // needed), and erasing an attachment the function does not have does nothing.
    unsafe {
        let id = LLVMGetMDKindIDInContext(context.raw(), kind.as_ptr().cast(), kind.len() as u32);
        LLVMGlobalEraseMetadata(function.as_value_ref(), id);
    }
}

/// Adds `globals` to `@llvm.used`, which keeps them, unreferenced as they may be, through
/// every optimisation and LTO's symbol resolution (the plugin's `-flto` compile keeps the
/// program's registrations this way for zyg's pass at the link).
pub fn append_to_used<'ctx>(module: &Module<'ctx>, globals: &[inkwell::values::GlobalValue<'ctx>]) {
    use inkwell::values::BasicValue;
    let context = module.get_context();
    let ptr = context.ptr_type(inkwell::AddressSpace::default());
    let mut elements: Vec<LLVMValueRef> = Vec::new();
    if let Some(old) = module.get_global("llvm.used") {
        if let Some(init) = old.get_initializer() {
            // SAFETY: the operands of a live constant array of the module.
            unsafe {
                let array = init.as_value_ref();
                for i in 0..LLVMGetNumOperands(array).max(0) as u32 {
                    elements.push(LLVMGetOperand(array, i));
                }
            }
        }
        // SAFETY: `@llvm.used` is read by LLVM by name only; nothing in the module refers
        // to it, so deleting it leaves no dangling use.
        unsafe { old.delete() };
    }
    for g in globals {
        let value = g.as_pointer_value().as_value_ref();
        if !elements.contains(&value) {
            elements.push(value);
        }
    }
    // SAFETY: every element is a pointer constant (a global) of this module's context.
    let values: Vec<inkwell::values::PointerValue<'ctx>> =
        elements.into_iter().map(|v| unsafe { inkwell::values::PointerValue::new(v) }).collect();
    let array = ptr.const_array(&values);
    let used = module.add_global(array.get_type(), None, "llvm.used");
    used.set_linkage(inkwell::module::Linkage::Appending);
    used.set_section(Some("llvm.metadata"));
    used.set_initializer(&array.as_basic_value_enum());
}

/// The bytes a value of zyg-ir type `ty` takes in memory by `module`'s data layout: its
/// allocation size, the distance `getelementptr ty, ptr null, 1` folds to (split mode's
/// tape size, `__enzyme_augmentsize`, is compared with the caller's at compile time so).
pub fn allocation_size(module: &Module<'_>, ty: &crate::Type) -> u64 {
    use inkwell::llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout};
    // SAFETY: the module and its context are alive; the type is made in that context, and
    // the data layout is the module's own (not freed here).
    unsafe {
        let m = module.as_mut_ptr();
        let lty = super::raw::llvm_type(LLVMGetModuleContext(m), ty);
        LLVMABISizeOfType(LLVMGetModuleDataLayout(m), lty)
    }
}
