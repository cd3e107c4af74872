//! The C entry points (DESIGN.md): finding calls to `__enzyme_autodiff`/`__zyg_autodiff`,
//! reading their activity markers (`find`), and replacing each call by a call to the
//! generated gradient, adapting arguments and the result to the call's own (C ABI) types
//! (`rewrite`). Requests the C++ header makes at -O0 are first brought to the C form
//! (`promote`).
//!
//! This works on the user's module through inkwell's handles and `zyg_ir::llvm`'s safe
//! queries, since the callers (often `main`) are never read into zyg-ir. Every handle is
//! tied to the module's context (`'ctx`).

mod find;
mod promote;
mod rewrite;

pub use promote::promote_header_requests;
pub(crate) use rewrite::rewrite_all;
pub use rewrite::{remove_dead_markers, Target};

use crate::error::{DriverError, Result};
use inkwell::module::Module;
use inkwell::types::{AnyType, BasicTypeEnum};
use inkwell::values::{CallSiteValue, InstructionValue};
use std::path::Path;
use zyg_ir::llvm::calls::{self, CallKind};
use zyg_ir::llvm::values::{name_of, Argument};
use zyg_transform::ResultSeed;
use zyg_transform::{ArgActivity, Entry};

/// One call site asking for a gradient.
pub struct Request<'ctx> {
    pub call: CallSiteValue<'ctx>,
    /// What it asks for: a gradient, or split mode's forward or reverse half.
    pub entry: Entry,
    /// The split-mode halves' extra arguments: the reverse half's result adjoint (for float
    /// results; `None` for zero, with `enzyme_const_return`), then the tape, or, for a tape
    /// in the caller's memory (`Entry::AugmentedInto`, `Entry::ReverseFrom`), its pointer
    /// and size (`enzyme_tape`, `enzyme_allocated`).
    pub extra: Vec<Option<Argument<'ctx>>>,
    pub function: String,
    /// `const` arguments that are functions (callbacks), by parameter index: the function is
    /// differentiated specialised to them, so its calls through them are direct calls.
    pub callbacks: Vec<(usize, String)>,
    pub kinds: Vec<ArgActivity>,
    /// The primal argument for each parameter of `function`.
    pub values: Vec<Argument<'ctx>>,
    /// The shadows or tangents given after each argument.
    pub shadows: Vec<Shadows<'ctx>>,
    /// How many derivatives one call computes (vector mode, `enzyme_width`; 1 otherwise).
    pub width: u32,
    /// `zyg_tape_budget, BYTES`: checkpoint this request's long loops (as `--tape-budget`).
    pub tape_budget: Option<u64>,
    /// The `sret` pointer when the C ABI returns the gradient struct through memory.
    pub sret: Option<Argument<'ctx>>,
    /// Marker loads, removed when the call is gone.
    pub markers: Vec<Argument<'ctx>>,
    /// Where the call is, for messages: `caller` and source location.
    pub place: String,
    /// How the function's result is seeded when that is not the plain float seed: a request
    /// for it differentiates a wrapper (`zyg_transform::wrap`).
    pub seed: Option<ResultSeed>,
    /// The type of the memory the function returns its result in (its first parameter is
    /// `sret`): that parameter is not among the request's arguments.
    pub result_memory: Option<BasicTypeEnum<'ctx>>,
    /// For a request made with `invoke`: the placeholder that keeps its block's edges until
    /// the call to the gradient becomes the invoke (`zyg_ir::llvm::invokes`).
    pub unwind: Option<InstructionValue<'ctx>>,
}

/// What a request passes after an argument: nothing (`const`, reverse mode's `out`), its
/// shadow or tangent (one per lane of vector mode), or vector mode's shadows at a byte
/// stride from a base (`enzyme_dupv`).
pub enum Shadows<'ctx> {
    None,
    Given(Vec<Argument<'ctx>>),
    Strided { base: Argument<'ctx>, stride: Argument<'ctx> },
}

/// The entry point a function name asks for, if it is a request.
pub fn request_entry(name: &str) -> Option<Entry> {
    let has = |what: &str| name.contains(&format!("__enzyme_{what}")) || name.contains(&format!("__zyg_{what}"));
    if has("autodiff") {
        Some(Entry::Gradient)
    } else if has("augmentfwd") {
        Some(Entry::Augmented)
    } else if has("augmentsize") {
        Some(Entry::TapeSize)
    } else if has("reverse") {
        Some(Entry::Reverse)
    } else if has("fwddiff") {
        Some(Entry::Forward)
    } else {
        None
    }
}

/// Every request in the module, in program order.
pub fn find_requests<'ctx>(module: &Module<'ctx>, path: &Path) -> Result<Vec<Request<'ctx>>> {
    crate::unfilled::fill_virtual_reverse(module);
    crate::unfilled::check(module, path)?;
    let mut out = Vec::new();
    for f in module.get_functions() {
        for bb in f.get_basic_blocks() {
            for inst in bb.get_instructions() {
                let Some((call, kind)) = calls::call_site(inst) else { continue };
                let Some(entry) = calls::called_function(call).and_then(|callee| request_entry(&name_of(&callee))) else {
                    continue;
                };
                // An invoke (C++ with a cleanup or `try` around the request) is read as the
                // plain call it becomes; the gradient's call is made the invoke once written.
                let (call, unwind) = match kind {
                    CallKind::Call => (call, None),
                    CallKind::Invoke => {
                        let (call, placeholder) = zyg_ir::llvm::invokes::detach(call);
                        (call, Some(placeholder))
                    }
                    CallKind::CallBr => {
                        return Err(DriverError::Request {
                            path: path.to_path_buf(),
                            message: format!("{}: a gradient request made with `callbr` is not supported", place_of(inst)),
                        })
                    }
                };
                let mut request = find::parse_request(call, entry, path)?;
                request.unwind = unwind;
                out.push(request);
            }
        }
    }
    Ok(out)
}

/// "in `main` at demo.c:12:5" for messages.
pub(crate) fn place_of(inst: InstructionValue<'_>) -> String {
    let caller = inst.get_parent().and_then(|bb| bb.get_parent()).map(|f| name_of(&f)).unwrap_or_default();
    match calls::source_location(inst) {
        None => format!("in `{caller}`"),
        Some((file, line, column)) => format!("in `{caller}` at {file}:{line}:{column}"),
    }
}

/// The global variable a pointer argument is, or points into (through constant address
/// arithmetic and casts), if it is one.
pub fn global_variable(v: Argument<'_>) -> Option<String> {
    v.global_variable_under().map(|g| name_of(&g))
}

/// Unmarked arguments: floats are `out`, pointers `dup`, integers `const`.
fn default_kind(ty: BasicTypeEnum<'_>) -> ArgActivity {
    match ty {
        BasicTypeEnum::PointerType(_) => ArgActivity::Dup,
        _ if is_float(ty) => ArgActivity::Active,
        _ => ArgActivity::Const,
    }
}

fn is_float(ty: BasicTypeEnum<'_>) -> bool {
    float_bits(ty).is_some()
}

/// The width of a float type zyg passes (`ppc_fp128` is not one).
fn float_bits(ty: BasicTypeEnum<'_>) -> Option<u32> {
    match ty {
        BasicTypeEnum::FloatType(f) if f != f.get_context().ppc_f128_type() => Some(f.get_bit_width()),
        _ => None,
    }
}

/// Whether a value of type `ty` holds a float (a float, or a struct, array or vector with one).
fn holds_float(ty: BasicTypeEnum<'_>) -> bool {
    holds(ty, &is_float)
}

/// Whether a value of type `ty` holds a pointer.
fn holds_pointer(ty: BasicTypeEnum<'_>) -> bool {
    holds(ty, &|t: BasicTypeEnum<'_>| t.is_pointer_type())
}

/// Whether `ty` is, or is an aggregate or vector with, a scalar for which `leaf` holds.
fn holds(ty: BasicTypeEnum<'_>, leaf: &dyn Fn(BasicTypeEnum<'_>) -> bool) -> bool {
    match ty {
        BasicTypeEnum::StructType(s) => s.get_field_types().into_iter().any(|t| holds(t, leaf)),
        BasicTypeEnum::ArrayType(a) => holds(a.get_element_type(), leaf),
        BasicTypeEnum::VectorType(v) => holds(v.get_element_type(), leaf),
        _ => leaf(ty),
    }
}

/// LLVM's printing of a type.
pub(crate) fn type_text<'ctx>(t: impl AnyType<'ctx>) -> String {
    t.print_to_string().to_string_lossy().into_owned()
}
