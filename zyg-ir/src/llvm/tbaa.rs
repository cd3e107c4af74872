//! Reading clang's type-based alias analysis metadata as type hints: what a load or store
//! accesses (`!tbaa`: an access tag naming a scalar type, "double", "any pointer", "int")
//! and which fields a struct copy moves (`!tbaa.struct` on `llvm.memcpy`: offset, size and
//! tag of each scalar field). clang emits both when optimising (-O1 and up); zyg's type
//! analysis takes them as the strongest evidence of which bytes hold floats, pointers or
//! integers.

use crate::function::{ScalarKind, TypeHint};
use crate::types::FloatTy;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

/// The hint of a load or store of `size` bytes: its `!tbaa` access type.
///
/// # Safety
/// `inst` must be a live load or store instruction.
pub unsafe fn access_hint(inst: LLVMValueRef, size: u64) -> Option<TypeHint> {
    let tag = metadata(inst, "tbaa")?;
    let kind = tag_kind(tag)?;
    Some(vec![(0, size, kind)].into())
}

/// The hint of a memory copy: its `!tbaa.struct` fields (those of a scalar type zyg knows;
/// a `char` field says nothing and is left out).
///
/// # Safety
/// `inst` must be a live call instruction.
pub unsafe fn copy_hint(inst: LLVMValueRef) -> Option<TypeHint> {
    let node = metadata(inst, "tbaa.struct")?;
    let ops = operands(node);
    let mut fields = Vec::new();
    for triple in ops.chunks(3) {
        let [offset, size, tag] = triple else { return None };
        let (offset, size) = (const_int(*offset)?, const_int(*size)?);
        if let Some(kind) = tag_kind(*tag) {
            fields.push((offset, size, kind));
        }
    }
    (!fields.is_empty()).then(|| fields.into())
}

/// The instruction's metadata of kind `name`, as a value.
unsafe fn metadata(inst: LLVMValueRef, name: &str) -> Option<LLVMValueRef> {
    let context = LLVMGetTypeContext(LLVMTypeOf(inst));
    let kind = LLVMGetMDKindIDInContext(context, name.as_ptr().cast(), name.len() as u32);
    let md = LLVMGetMetadata(inst, kind);
    (!md.is_null()).then_some(md)
}

unsafe fn operands(node: LLVMValueRef) -> Vec<LLVMValueRef> {
    if LLVMIsAMDNode(node).is_null() {
        return Vec::new();
    }
    let n = LLVMGetMDNodeNumOperands(node) as usize;
    let mut ops = vec![std::ptr::null_mut(); n];
    LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
    ops
}

unsafe fn const_int(v: LLVMValueRef) -> Option<u64> {
    (!v.is_null() && !LLVMIsAConstantInt(v).is_null()).then(|| LLVMConstIntGetZExtValue(v))
}

unsafe fn string(v: LLVMValueRef) -> Option<String> {
    if v.is_null() {
        return None;
    }
    let mut len = 0u32;
    let ptr = LLVMGetMDString(v, &mut len);
    (!ptr.is_null()).then(|| String::from_utf8_lossy(std::slice::from_raw_parts(ptr.cast::<u8>(), len as usize)).into_owned())
}

/// The scalar kind an access tag names. A struct-path tag is `!{base, access, offset}` and a
/// scalar type node `!{!"name", parent, offset}`; an old scalar tag is the type node itself.
unsafe fn tag_kind(tag: LLVMValueRef) -> Option<ScalarKind> {
    let ops = operands(tag);
    let type_node = match ops.as_slice() {
        [first, ..] if string(*first).is_some() => tag,
        [_, access, ..] => *access,
        _ => return None,
    };
    kind_of_type_name(&string(*operands(type_node).first()?)?)
}

/// The kind a TBAA scalar type name stands for: C's and C++'s spellings, as clang names
/// them ("p1 double" is a pointer to double, "_ZTS..." a C++ type's mangled name, which
/// is not a scalar). `char` and unknown names say nothing.
pub fn kind_of_type_name(name: &str) -> Option<ScalarKind> {
    Some(match name {
        "double" => ScalarKind::Float(FloatTy::F64),
        "float" => ScalarKind::Float(FloatTy::F32),
        "long double" => ScalarKind::Float(FloatTy::X86Fp80),
        "any pointer" | "vtable pointer" => ScalarKind::Pointer,
        n if n.starts_with('p')
            && n[1..].split(' ').next().is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())) =>
        {
            ScalarKind::Pointer
        }
        "bool" | "_Bool" | "short" | "int" | "long" | "long long" | "__int128" | "wchar_t" | "char16_t" | "char32_t" => {
            ScalarKind::Integer
        }
        n if n.starts_with("unsigned ") || n.starts_with("signed ") || n.starts_with("_BitInt") => ScalarKind::Integer,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names() {
        assert_eq!(kind_of_type_name("double"), Some(ScalarKind::Float(FloatTy::F64)));
        assert_eq!(kind_of_type_name("p1 double"), Some(ScalarKind::Pointer));
        assert_eq!(kind_of_type_name("p2 _ZTS4Node"), Some(ScalarKind::Pointer));
        assert_eq!(kind_of_type_name("any pointer"), Some(ScalarKind::Pointer));
        assert_eq!(kind_of_type_name("long"), Some(ScalarKind::Integer));
        assert_eq!(kind_of_type_name("unsigned int"), Some(ScalarKind::Integer));
        assert_eq!(kind_of_type_name("omnipotent char"), None);
        assert_eq!(kind_of_type_name("_ZTS5Layer"), None);
        assert_eq!(kind_of_type_name("pair"), None);
    }
}
