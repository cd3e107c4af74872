//! The bridge between LLVM IR and zyg-ir: a reader (LLVM → zyg-ir) and a writer (zyg-ir →
//! LLVM). Both walk LLVM's C API through `llvm-sys` (re-exported by inkwell), because the
//! reader needs introspection inkwell does not wrap and the writer is generic over opcodes;
//! all `unsafe` of the crate lives in this module, over handles owned by an inkwell
//! `Context`/`Module` that outlive every call.

pub mod annotations;
mod asm;
pub mod calls;
pub mod dispatch;
pub mod inlined;
pub mod invokes;
mod module;
mod raw;
pub mod reader;
mod rewrite;
mod tbaa;
pub mod values;
pub mod writer;

pub use asm::known_inline_asm_to_instructions;
pub use module::{
    allocation_size, append_to_used, debug_info_version, delete_unused_function, erase_function_metadata, find_type,
    function_named, parse_ir, parse_llvm_options, string_attribute_value, FoundType,
};
pub use raw::{find_global, global_name, take_message, unnamed_globals, value_name};
pub use rewrite::{
    copy_byval_arguments, dynamic_allocas_to_calls, expand_constant_expressions, openmp_critical_sums_to_atomics,
    openmp_reductions_to_atomics, packed_allocas_to_bytes, restore_dynamic_allocas, zero_sret_results_of_declarations,
};

/// Converts an LLVM type (an inkwell handle) to a zyg-ir type, or says which type is not
/// supported.
pub fn type_of(t: impl inkwell::types::AsTypeRef) -> Result<crate::Type, String> {
    raw::read_type(t.as_type_ref())
}
pub use reader::{read_functions, signature_of, ReadError, ReadModule};
pub use writer::{define_shared_global, define_zeroed_global, mirror_initializer, write_function, WriteError};
