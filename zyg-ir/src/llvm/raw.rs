//! Small safe wrappers over the LLVM C API calls both the reader and the writer make.

use crate::function::SourceLoc;
use crate::types::{FloatTy, Type};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMTypeKind;
use std::ffi::{c_char, CStr, CString};

/// The name of a value (function, global, instruction), or "" when it has none.
///
/// # Safety
/// `v` must be a live LLVM value.
pub unsafe fn value_name(v: LLVMValueRef) -> String {
    let mut len = 0usize;
    // LLVM returns a pointer to `len` bytes it owns, or null.
    let ptr = LLVMGetValueName2(v, &mut len);
    if ptr.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(ptr as *const u8, len)).into_owned()
}

/// The name zyg-ir knows a global value (variable, function, alias) by: its own, or for an
/// unnamed one (`@0`, as OpenMP's outlined code and some C++ code have) the number LLVM
/// prints for it, `"0"` (see `unnamed_globals`). An unnamed value whose number another
/// value has as its name (`@"0"`) cannot be told apart: an error.
///
/// # Safety
/// `v` must be a global value of a live module.
pub unsafe fn global_name(v: LLVMValueRef) -> Result<String, String> {
    let name = value_name(v);
    if !name.is_empty() {
        return Ok(name);
    }
    let module = LLVMGetGlobalParent(v);
    let number = unnamed_globals(module).iter().position(|g| *g == v).ok_or("a global value outside its module")?;
    let key = number.to_string();
    if named_global(module, &key).is_some() {
        return Err(format!("the unnamed global `@{key}` cannot be told apart from the one named `@\"{key}\"`"));
    }
    Ok(key)
}

/// The module's unnamed global values in the order LLVM numbers them (`@0`, `@1`, ...):
/// variables, aliases, ifuncs, then functions.
///
/// # Safety
/// `m` must be a live module.
pub unsafe fn unnamed_globals(m: LLVMModuleRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let lists: [(unsafe extern "C" fn(LLVMModuleRef) -> LLVMValueRef, unsafe extern "C" fn(LLVMValueRef) -> LLVMValueRef); 4] = [
        (LLVMGetFirstGlobal, LLVMGetNextGlobal),
        (LLVMGetFirstGlobalAlias, LLVMGetNextGlobalAlias),
        (LLVMGetFirstGlobalIFunc, LLVMGetNextGlobalIFunc),
        (LLVMGetFirstFunction, LLVMGetNextFunction),
    ];
    for (first, next) in lists {
        let mut v = first(m);
        while !v.is_null() {
            if value_name(v).is_empty() {
                out.push(v);
            }
            v = next(v);
        }
    }
    out
}

/// The global value (variable, function, alias, ifunc) named `name`.
unsafe fn named_global(m: LLVMModuleRef, name: &str) -> Option<LLVMValueRef> {
    let cname = CString::new(name).ok()?;
    [LLVMGetNamedGlobal(m, cname.as_ptr()), LLVMGetNamedFunction(m, cname.as_ptr())]
        .into_iter()
        .chain([LLVMGetNamedGlobalAlias(m, cname.as_ptr(), name.len()), LLVMGetNamedGlobalIFunc(m, cname.as_ptr(), name.len())])
        .find(|v| !v.is_null())
}

/// The global value `global_name` calls `name`: by its name, or an unnamed one by number.
///
/// # Safety
/// `m` must be a live module.
pub unsafe fn find_global(m: LLVMModuleRef, name: &str) -> Option<LLVMValueRef> {
    if let Some(v) = named_global(m, name) {
        return Some(v);
    }
    let number: usize = name.parse().ok().filter(|_| name.bytes().all(|b| b.is_ascii_digit()))?;
    unnamed_globals(m).get(number).copied()
}

/// LLVM's own printing of a value (used in diagnostics and to read x86_fp80 constants).
pub fn print_value(v: LLVMValueRef) -> String {
    // SAFETY: LLVM allocates the message; we copy it and free it with LLVMDisposeMessage.
    unsafe { take_message(LLVMPrintValueToString(v)) }
}

pub fn print_type(t: LLVMTypeRef) -> String {
    // SAFETY: as in `print_value`.
    unsafe { take_message(LLVMPrintTypeToString(t)) }
}

/// Copies and frees a message string allocated by LLVM.
///
/// # Safety
/// `msg` must be null or a string allocated by LLVM that nothing else frees.
pub unsafe fn take_message(msg: *mut c_char) -> String {
    if msg.is_null() {
        return String::new();
    }
    let s = CStr::from_ptr(msg).to_string_lossy().into_owned();
    LLVMDisposeMessage(msg);
    s
}

/// The source location of an instruction, when it has debug info.
pub fn debug_loc(inst: LLVMValueRef) -> Option<SourceLoc> {
    // SAFETY: `inst` is a live instruction; the filename pointer is owned by LLVM.
    unsafe {
        let line = LLVMGetDebugLocLine(inst);
        if line == 0 {
            return None;
        }
        let mut len = 0u32;
        let ptr = LLVMGetDebugLocFilename(inst, &mut len);
        let file = if ptr.is_null() {
            String::from("<unknown>")
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(ptr as *const u8, len as usize)).into_owned()
        };
        Some(SourceLoc { file: file.into(), line, column: LLVMGetDebugLocColumn(inst) })
    }
}

/// Converts an LLVM type to a zyg-ir type, or says which type is not supported.
pub fn read_type(t: LLVMTypeRef) -> Result<Type, String> {
    // SAFETY: `t` is a live type of the context; the queries below match its kind.
    unsafe {
        Ok(match LLVMGetTypeKind(t) {
            LLVMTypeKind::LLVMVoidTypeKind => Type::Void,
            LLVMTypeKind::LLVMIntegerTypeKind => Type::Int(LLVMGetIntTypeWidth(t)),
            LLVMTypeKind::LLVMFloatTypeKind => Type::Float(FloatTy::F32),
            LLVMTypeKind::LLVMDoubleTypeKind => Type::Float(FloatTy::F64),
            LLVMTypeKind::LLVMX86_FP80TypeKind => Type::Float(FloatTy::X86Fp80),
            LLVMTypeKind::LLVMPointerTypeKind => Type::Ptr(LLVMGetPointerAddressSpace(t)),
            LLVMTypeKind::LLVMVectorTypeKind => Type::Vector(LLVMGetVectorSize(t), read_type(LLVMGetElementType(t))?.into()),
            LLVMTypeKind::LLVMArrayTypeKind => Type::Array(LLVMGetArrayLength2(t), read_type(LLVMGetElementType(t))?.into()),
            LLVMTypeKind::LLVMStructTypeKind => {
                let n = LLVMCountStructElementTypes(t);
                let mut elems = vec![std::ptr::null_mut(); n as usize];
                LLVMGetStructElementTypes(t, elems.as_mut_ptr());
                let fields: Vec<Type> = elems.into_iter().map(read_type).collect::<Result<_, _>>()?;
                // clang writes C++ classes whose tail padding a derived class may reuse as
                // packed structs (`<{ ptr, i32, [4 x i8] }>`) even when no field moves; such
                // a struct is the plain struct. One whose fields do move is not supported.
                if LLVMIsPackedStruct(t) != 0 && !packed_is_natural(&fields) {
                    return Err(format!("packed struct type `{}` is not supported yet", print_type(t)));
                }
                Type::structure(fields)
            }
            _ => return Err(format!("type `{}` is not supported yet", print_type(t))),
        })
    }
}

/// Converts a zyg-ir type to an LLVM type of `ctx`.
pub fn llvm_type(ctx: LLVMContextRef, ty: &Type) -> LLVMTypeRef {
    // SAFETY: `ctx` is a live context; the constructors only read their arguments.
    unsafe {
        match ty {
            Type::Void => LLVMVoidTypeInContext(ctx),
            Type::Int(bits) => LLVMIntTypeInContext(ctx, *bits),
            Type::Float(FloatTy::F32) => LLVMFloatTypeInContext(ctx),
            Type::Float(FloatTy::F64) => LLVMDoubleTypeInContext(ctx),
            Type::Float(FloatTy::X86Fp80) => LLVMX86FP80TypeInContext(ctx),
            Type::Ptr(space) => LLVMPointerTypeInContext(ctx, *space),
            Type::Vector(n, e) => LLVMVectorType(llvm_type(ctx, e), *n),
            Type::Array(n, e) => LLVMArrayType2(llvm_type(ctx, e), *n),
            Type::Struct(fields) if fields.len() > NAME_STRUCTS_OVER => named_struct(ctx, fields),
            Type::Struct(fields) => {
                let mut elems: Vec<_> = fields.iter().map(|f| llvm_type(ctx, f)).collect();
                LLVMStructTypeInContext(ctx, elems.as_mut_ptr(), elems.len() as u32, 0)
            }
        }
    }
}

/// Struct types with more fields than this are written as named (identified) LLVM types.
/// LLVM prints a literal struct type in full at every use, and the tape record of a large
/// straight-line function has a field per taped value and a use per field: printed literally,
/// the module would grow with the square of the function (25,000 instructions: 940 MB).
/// The small literal structs of user code (clang's coerced `{double, double}` returns, MLIR's
/// memref descriptors) stay literal, so they keep matching the declarations they pass through.
pub const NAME_STRUCTS_OVER: usize = 16;

/// The identified struct `zyg.struct.HASH[.k]` with body `fields`: the same fields give the
/// same type in every function written into a context (a hash collision takes the next `k`).
unsafe fn named_struct(ctx: LLVMContextRef, fields: &[Type]) -> LLVMTypeRef {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    fields.hash(&mut hasher);
    let hash = hasher.finish();
    let mut elems: Vec<_> = fields.iter().map(|f| llvm_type(ctx, f)).collect();
    for k in 0u32.. {
        let name = if k == 0 { format!("zyg.struct.{hash:016x}") } else { format!("zyg.struct.{hash:016x}.{k}") };
        let cname = CString::new(name).expect("no NUL in a generated name");
        let existing = LLVMGetTypeByName2(ctx, cname.as_ptr());
        if existing.is_null() {
            let t = LLVMStructCreateNamed(ctx, cname.as_ptr());
            LLVMStructSetBody(t, elems.as_mut_ptr(), elems.len() as u32, 0);
            return t;
        }
        let same = LLVMCountStructElementTypes(existing) as usize == elems.len()
            && elems.iter().enumerate().all(|(i, e)| LLVMStructGetTypeAtIndex(existing, i as u32) == *e);
        if same {
            return existing;
        }
    }
    unreachable!("a free name is found")
}

/// Whether a packed struct of `fields` has the same layout as the plain one: no field
/// would be moved by alignment, and no tail padding added.
fn packed_is_natural(fields: &[Type]) -> bool {
    let (mut packed, mut natural, mut align) = (0u64, 0u64, 1u64);
    for f in fields {
        let Some((s, a)) = f.natural_layout() else { return false };
        if natural.next_multiple_of(a) != packed {
            return false;
        }
        packed += s;
        natural = packed;
        align = align.max(a);
    }
    natural.next_multiple_of(align) == packed
}
