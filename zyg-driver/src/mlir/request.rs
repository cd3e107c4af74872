//! Gradient requests made in MLIR: after lowering, the gradient function of each, whose
//! body is an Enzyme-style request (`__zyg_autodiff` or `__zyg_fwddiff` with activity
//! markers) that zyg then fills in like any other. Two kinds of MLIR ask for one: a
//! `zyg.gradient` attribute on a function, and a `func.call` of a declared
//! `__zyg_autodiff_NAME`/`__zyg_fwddiff_NAME` that passes memrefs or has `zyg.args`
//! (`calls.rs`), whose call is pointed at a gradient function of its own before lowering.
//!
//! The lowering passes a memref as its descriptor's fields, one argument each: the
//! allocated pointer, the aligned pointer, the offset, the sizes and the strides. The
//! gradient takes, after each `dup` memref, its shadow memref in the same form; both
//! pointers are `dup` with the shadow's pointers as their shadows (they point into the same
//! data), and the offset, sizes and strides are `const` (the shadow's are not read: it has
//! the primal's shape).
//!
//! The gradient's signature is what `func.func private @GRAD(...)` lowers to, so MLIR code
//! in the module can declare and call it: each argument, each `dup` one followed by its
//! shadow (in forward mode a `dup` float by its tangent), and as results the gradients of
//! the `out` arguments in order (several come back as a struct, as MLIR returns several
//! results), or in forward mode the tangent of the function's float result. A function with
//! `llvm.emit_c_interface` also gets `_mlir_ciface_GRAD`, MLIR's C interface for it:
//! descriptors by pointer, and several results through a pointer in the first argument.

use crate::error::{DriverError, Result};
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum, FunctionType};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue};
use inkwell::AddressSpace;
use std::path::Path;
use zyg_transform::{ArgActivity, Entry};

/// An MLIR function argument (or result), as zyg sees it; `text` is its MLIR type.
#[derive(Clone, Debug)]
pub enum Arg {
    Float { text: String },
    Int { text: String },
    MemRef { rank: usize, text: String },
    Other { text: String },
}

impl Arg {
    pub fn text(&self) -> &str {
        match self {
            Arg::Float { text } | Arg::Int { text } | Arg::MemRef { text, .. } | Arg::Other { text } => text,
        }
    }

    /// How many LLVM arguments the lowering makes of it.
    fn width(&self) -> usize {
        match self {
            Arg::MemRef { rank, .. } => 3 + 2 * rank,
            _ => 1,
        }
    }

    /// Without `zyg.args`: floats out (in forward mode dup: followed by their tangent),
    /// memrefs dup, the rest const.
    pub fn default_kind(&self, entry: Entry) -> ArgActivity {
        match self {
            Arg::Float { .. } if entry == Entry::Forward => ArgActivity::Dup,
            Arg::Float { .. } => ArgActivity::Active,
            Arg::MemRef { .. } => ArgActivity::Dup,
            _ => ArgActivity::Const,
        }
    }

    /// Whether `kind` is one this argument may have in `entry`'s mode: const always; a
    /// memref dup; a float out in reverse mode, dup (with its tangent) in forward mode.
    pub fn allows(&self, kind: ArgActivity, entry: Entry) -> bool {
        let forward = entry == Entry::Forward;
        match (kind, self) {
            (ArgActivity::Const, _) | (ArgActivity::Dup, Arg::MemRef { .. }) => true,
            (ArgActivity::Active, Arg::Float { .. }) => !forward,
            (ArgActivity::Dup, Arg::Float { .. }) => forward,
            _ => false,
        }
    }
}

/// `func.func @function(...) attributes {zyg.gradient = @gradient}`, or a `func.call`
/// request pointed at the gradient function `@gradient`.
#[derive(Clone, Debug)]
pub struct GradientRequest {
    pub function: String,
    pub gradient: String,
    /// `Entry::Gradient` (reverse mode) or `Entry::Forward`.
    pub entry: Entry,
    pub args: Vec<Arg>,
    /// The function's result, if any (its tangent is forward mode's result).
    pub result: Option<Arg>,
    pub kinds: Vec<ArgActivity>,
    /// `llvm.emit_c_interface` on the function: the gradient gets `_mlir_ciface_GRAD` too.
    pub c_interface: bool,
    /// The gradient is zyg's own, for one `func.call`: internal to the module.
    pub internal: bool,
    /// `FILE:LINE:COL` of the function (of the call, for a `func.call` request).
    pub at: String,
}

impl GradientRequest {
    /// The gradient's MLIR type, as `func.func private @GRAD(...)` would declare it.
    pub fn mlir_signature(&self) -> String {
        let inputs = self.mlir_inputs();
        let results = self.mlir_results();
        let results = match results.as_slice() {
            [one] => one.to_string(),
            _ => format!("({})", results.join(", ")),
        };
        format!("({}) -> {results}", inputs.join(", "))
    }

    /// The gradient's MLIR argument types: each argument's, a `dup` one's again for its
    /// shadow or tangent.
    pub fn mlir_inputs(&self) -> Vec<&str> {
        let mut inputs = Vec::new();
        for (a, k) in self.args.iter().zip(&self.kinds) {
            inputs.push(a.text());
            if *k == ArgActivity::Dup {
                inputs.push(a.text());
            }
        }
        inputs
    }

    /// The gradient's MLIR result types: the `out` arguments' (reverse mode), or the float
    /// result's (its tangent, forward mode).
    pub fn mlir_results(&self) -> Vec<&str> {
        match (self.entry, &self.result) {
            (Entry::Forward, Some(r @ Arg::Float { .. })) => vec![r.text()],
            (Entry::Forward, _) => Vec::new(),
            _ => self.outs().map(|(a, _)| a.text()).collect(),
        }
    }

    fn outs(&self) -> impl Iterator<Item = (&Arg, usize)> + '_ {
        self.args.iter().zip(&self.kinds).enumerate().filter(|(_, (_, k))| **k == ArgActivity::Active).map(|(i, (a, _))| (a, i))
    }
}

/// Defines each request's gradient function (and C interface) in the translated module.
pub(super) fn add_gradients(module: &Module<'_>, requests: &[GradientRequest], path: &Path) -> Result<()> {
    for r in requests {
        let gradient = gradient_function(module, r, path)?;
        if r.c_interface {
            c_interface(module, r, gradient, path)?;
        }
    }
    Ok(())
}

fn internal(path: &Path, message: String) -> DriverError {
    DriverError::Mlir(format!("{}: internal error: {message} (please report this)", path.display()))
}

/// `@marker = external global i32`, the activity markers the C API reads.
fn marker<'ctx>(module: &Module<'ctx>, kind: ArgActivity) -> BasicMetadataValueEnum<'ctx> {
    let name = match kind {
        ArgActivity::Active => "zyg_out",
        ArgActivity::Const => "zyg_const",
        ArgActivity::Dup => "zyg_dup",
    };
    let global = module.get_global(name).unwrap_or_else(|| {
        let g = module.add_global(module.get_context().i32_type(), None, name);
        g.set_linkage(Linkage::External);
        g
    });
    global.as_pointer_value().into()
}

/// The gradient's LLVM type: each argument's parameters, a dup memref's again for its
/// shadow; the gradients of the `out` arguments as its result.
fn gradient_type<'ctx>(
    module: &Module<'ctx>,
    r: &GradientRequest,
    function: FunctionValue<'ctx>,
    path: &Path,
) -> Result<FunctionType<'ctx>> {
    let ctx = module.get_context();
    let params = function.get_type().get_param_types();
    let width: usize = r.args.iter().map(Arg::width).sum();
    if params.len() != width {
        return Err(internal(
            path,
            format!("`{}` lowered to {} arguments, not the {width} its MLIR type makes", r.function, params.len()),
        ));
    }
    let mut types: Vec<BasicMetadataTypeEnum<'ctx>> = Vec::new();
    let mut at = 0;
    let mut spans = Vec::new();
    for (a, k) in r.args.iter().zip(&r.kinds) {
        let span = at..at + a.width();
        types.extend_from_slice(&params[span.clone()]);
        if *k == ArgActivity::Dup {
            types.extend_from_slice(&params[span.clone()]);
        }
        spans.push(span);
        at += a.width();
    }
    let outs: Vec<BasicTypeEnum<'ctx>> = match r.entry {
        // The tangent of the function's float result.
        Entry::Forward => function.get_type().get_return_type().filter(|t| t.is_float_type()).into_iter().collect(),
        _ => r.outs().map(|(_, i)| BasicTypeEnum::try_from(params[spans[i].start]).expect("a float")).collect(),
    };
    Ok(match outs.as_slice() {
        [] => ctx.void_type().fn_type(&types, false),
        [one] => one.fn_type(&types, false),
        several => ctx.struct_type(several, false).fn_type(&types, false),
    })
}

/// The gradient function, declared with `fn_type` (or the module's declaration of it).
fn declare_gradient<'ctx>(
    module: &Module<'ctx>,
    r: &GradientRequest,
    fn_type: FunctionType<'ctx>,
) -> Result<FunctionValue<'ctx>> {
    Ok(match module.get_function(&r.gradient) {
        Some(g) if g.count_basic_blocks() > 0 => {
            return Err(DriverError::Mlir(format!(
                "{}: `@{}` is defined in the module, but zyg defines it as the gradient of `@{}`",
                r.at, r.gradient, r.function
            )))
        }
        Some(g) if g.get_type() != fn_type => {
            return Err(DriverError::Mlir(format!(
                "{}: `@{}` is declared with another type than the gradient of `@{}`, `{}`",
                r.at,
                r.gradient,
                r.function,
                r.mlir_signature()
            )))
        }
        Some(g) => {
            g.set_linkage(Linkage::External);
            // The lowering gave the declaration a declaration's debug scope, which a
            // definition may not have.
            zyg_ir::llvm::erase_function_metadata(g, "dbg");
            g
        }
        None => module.add_function(&r.gradient, fn_type, Some(Linkage::External)),
    })
}

fn gradient_function<'ctx>(module: &Module<'ctx>, r: &GradientRequest, path: &Path) -> Result<FunctionValue<'ctx>> {
    let ctx = module.get_context();
    let function = module
        .get_function(&r.function)
        .ok_or_else(|| internal(path, format!("`{}` is not in the lowered module", r.function)))?;
    let fn_type = gradient_type(module, r, function, path)?;
    let gradient = declare_gradient(module, r, fn_type)?;

    // The request: `__zyg_autodiff(@function, marker, value[, shadow], ...)` (or
    // `__zyg_fwddiff`).
    let ptr = ctx.ptr_type(AddressSpace::default());
    let request_type = match fn_type.get_return_type() {
        None => ctx.void_type().fn_type(&[ptr.into()], true),
        Some(t) => t.fn_type(&[ptr.into()], true),
    };
    let entry_point = if r.entry == Entry::Forward { "__zyg_fwddiff" } else { "__zyg_autodiff" };
    let request = module.add_function(&format!("{entry_point}.mlir.{}", r.gradient), request_type, None);
    let entry = ctx.append_basic_block(gradient, "entry");
    let b = ctx.create_builder();
    b.position_at_end(entry);
    let args = request_arguments(module, r, function, &gradient.get_params());
    let call = b.build_call(request, &args, "").map_err(|e| internal(path, e.to_string()))?;
    match call.try_as_basic_value().basic() {
        Some(v) => b.build_return(Some(&v)),
        None => b.build_return(None),
    }
    .map_err(|e| internal(path, e.to_string()))?;
    if r.internal {
        gradient.set_linkage(Linkage::Internal);
    }
    Ok(gradient)
}

/// The request's arguments: the function, then for each of its arguments a marker and the
/// gradient's parameters `given` (a dup memref's pointers with their shadows', a dup
/// float, in forward mode, with its tangent).
fn request_arguments<'ctx>(
    module: &Module<'ctx>,
    r: &GradientRequest,
    function: FunctionValue<'ctx>,
    given: &[BasicValueEnum<'ctx>],
) -> Vec<BasicMetadataValueEnum<'ctx>> {
    let mut args: Vec<BasicMetadataValueEnum<'ctx>> = vec![function.as_global_value().as_pointer_value().into()];
    let mut next = 0;
    for (a, k) in r.args.iter().zip(&r.kinds) {
        let w = a.width();
        let primal = &given[next..next + w];
        next += w;
        match (a, k) {
            (Arg::MemRef { .. }, ArgActivity::Dup) => {
                let shadow = &given[next..next + w];
                next += w;
                for field in 0..w {
                    if field < 2 {
                        // the allocated and the aligned pointer
                        args.extend([marker(module, ArgActivity::Dup), primal[field].into(), shadow[field].into()]);
                    } else {
                        args.extend([marker(module, ArgActivity::Const), primal[field].into()]);
                    }
                }
            }
            (_, ArgActivity::Dup) => {
                // A float in forward mode, followed by its tangent.
                let tangent = &given[next..next + w];
                next += w;
                for (v, t) in primal.iter().zip(tangent) {
                    args.extend([marker(module, ArgActivity::Dup), (*v).into(), (*t).into()]);
                }
            }
            _ => {
                for v in primal {
                    args.extend([marker(module, *k), (*v).into()]);
                }
            }
        }
    }
    args
}

/// Loads the memref descriptor `at` points to (`{ ptr, ptr, index, [rank x index],
/// [rank x index] }`) and pushes its fields, the arrays' elements one by one, onto `args`.
fn descriptor_fields<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    at: inkwell::values::PointerValue<'ctx>,
    index: BasicTypeEnum<'ctx>,
    rank: usize,
    args: &mut Vec<BasicMetadataValueEnum<'ctx>>,
) -> std::result::Result<(), inkwell::builder::BuilderError> {
    let ctx = at.get_type().get_context();
    let ptr = ctx.ptr_type(AddressSpace::default());
    let mut fields: Vec<BasicTypeEnum<'ctx>> = vec![ptr.into(), ptr.into(), index];
    if rank > 0 {
        let array = index.array_type(rank as u32).as_basic_type_enum();
        fields.extend([array, array]);
    }
    let desc_type = ctx.struct_type(&fields, false);
    let desc = b.build_load(desc_type, at, "")?.into_struct_value();
    for i in 0..3 {
        args.push(b.build_extract_value(desc, i, "")?.into());
    }
    for i in [3, 4].into_iter().take(if rank > 0 { 2 } else { 0 }) {
        let array = b.build_extract_value(desc, i, "")?.into_array_value();
        for k in 0..rank as u32 {
            args.push(b.build_extract_value(array, k, "")?.into());
        }
    }
    Ok(())
}

/// `_mlir_ciface_GRAD`: MLIR's C interface to the gradient (what `llvm.emit_c_interface`
/// makes of a function): each memref by a pointer to its descriptor, and several results
/// through a pointer to a struct of them, passed first.
fn c_interface<'ctx>(module: &Module<'ctx>, r: &GradientRequest, gradient: FunctionValue<'ctx>, path: &Path) -> Result<()> {
    let ctx = module.get_context();
    let ptr = ctx.ptr_type(AddressSpace::default());
    let inner = gradient.get_type();
    let ret = inner.get_return_type();
    let several = ret.is_some_and(|t| t.is_struct_type());
    let params = inner.get_param_types();
    // Each MLIR argument of the gradient (shadows included) and its LLVM parameters.
    let mut mlir_args: Vec<(bool, std::ops::Range<usize>)> = Vec::new();
    let mut at = 0;
    for (a, k) in r.args.iter().zip(&r.kinds) {
        let copies = if *k == ArgActivity::Dup { 2 } else { 1 };
        for _ in 0..copies {
            mlir_args.push((matches!(a, Arg::MemRef { .. }), at..at + a.width()));
            at += a.width();
        }
    }
    let mut types: Vec<BasicMetadataTypeEnum<'ctx>> = Vec::new();
    if several {
        types.push(ptr.into());
    }
    for (memref, span) in &mlir_args {
        types.push(if *memref { ptr.into() } else { params[span.start] });
    }
    let fn_type = match (ret, several) {
        (Some(t), false) => t.fn_type(&types, false),
        _ => ctx.void_type().fn_type(&types, false),
    };
    let name = format!("_mlir_ciface_{}", r.gradient);
    if module.get_function(&name).is_some_and(|f| f.count_basic_blocks() > 0) {
        return Err(DriverError::Mlir(format!("{}: `{name}` is already defined", r.at)));
    }
    let wrapper = module.get_function(&name).unwrap_or_else(|| module.add_function(&name, fn_type, Some(Linkage::External)));
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(wrapper, "entry"));
    let err = |e: inkwell::builder::BuilderError| internal(path, e.to_string());
    let given = wrapper.get_params();
    let mut args: Vec<BasicMetadataValueEnum<'ctx>> = Vec::new();
    // After the result pointer, if any, one parameter per MLIR argument.
    for (&v, (memref, span)) in given[usize::from(several)..].iter().zip(&mlir_args) {
        if *memref {
            // { ptr, ptr, index, [rank x index], [rank x index] }
            let index = BasicTypeEnum::try_from(params[span.start + 2]).expect("an integer");
            descriptor_fields(&b, v.into_pointer_value(), index, (span.len() - 3) / 2, &mut args).map_err(err)?;
        } else {
            args.push(v.into());
        }
    }
    let call = b.build_call(gradient, &args, "").map_err(err)?;
    let result: Option<BasicValueEnum<'ctx>> = call.try_as_basic_value().basic();
    match (result, several) {
        (Some(v), true) => {
            b.build_store(given[0].into_pointer_value(), v).map_err(err)?;
            b.build_return(None).map_err(err)?;
        }
        (Some(v), false) => {
            b.build_return(Some(&v)).map_err(err)?;
        }
        (None, _) => {
            b.build_return(None).map_err(err)?;
        }
    }
    Ok(())
}
