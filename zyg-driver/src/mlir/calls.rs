//! Gradient requests written as calls in MLIR that pass memrefs:
//! `func.call @__zyg_autodiff_NAME(%f, %w, %dw, %x, %n) {zyg.args = "dup,out,const"}` with
//! `%f = func.constant @f`, or `__zyg_fwddiff_NAME` for forward mode.
//!
//! Lowered as it is, such a call would reach the C API with each descriptor exploded into
//! its fields and no marker to say which field is what. So before lowering, each is checked
//! against `@f`'s signature (MLIR diagnostics at the call) and pointed at a gradient
//! function of its own, `@f.zyg.mlir.call.N`, declared with the call's type less the
//! function operand; after lowering, `request.rs` defines that function as it defines a
//! `zyg.gradient` attribute's (the same markers for the same descriptors). Calls without
//! memrefs and without `zyg.args` stay C-API requests, as they always were.

use super::lower::{args_attribute, check_signature, located, op_name, place, request_kinds, symbol, Func};
use super::request::GradientRequest;
use crate::error::Result;
use melior::dialect::func;
use melior::ir::attribute::{FlatSymbolRefAttribute, StringAttribute, TypeAttribute};
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRefMut, OperationResult};
use melior::ir::r#type::FunctionType;
use melior::ir::{BlockLike, BlockRef, Identifier, Region, RegionLike, Type, TypeLike, ValueLike};
use std::collections::HashMap;
use std::path::Path;
use zyg_transform::{ArgActivity, Entry};

/// Checks each `func.call` request that passes a memref or has `zyg.args`, points it at a
/// gradient function of its own (declared in the module), and returns the requests that
/// define those functions after lowering.
pub(super) fn requests<'c>(
    context: &'c melior::Context,
    module: &melior::ir::Module<'c>,
    funcs: &HashMap<String, Func>,
    path: &Path,
) -> Result<Vec<GradientRequest>> {
    let mut calls = Vec::new();
    request_calls(module.body(), &mut calls);
    let mut requests = Vec::new();
    for mut call in calls {
        let n = requests.len();
        let request = check_call(&call, funcs, n, path)?;
        redirect(context, module, &mut call, &request.gradient);
        tracing::info!(function = %request.function, gradient = %request.gradient, "MLIR func.call request");
        requests.push(request);
    }
    Ok(requests)
}

/// The `func.call`s of request entry points (`__zyg_autodiff_*`...) that pass a memref
/// (ranked or not: an unranked one is then refused by name) or have `zyg.args`, everywhere
/// under `block`, in order.
fn request_calls<'c, 'a>(block: BlockRef<'c, 'a>, out: &mut Vec<OperationRefMut<'c, 'a>>) {
    let mut next = block.first_operation_mut();
    while let Some(op) = next {
        if is_descriptor_request(&op) {
            out.push(op);
        }
        for region in op.regions() {
            let mut inner = region.first_block();
            while let Some(b) = inner {
                request_calls(b, out);
                inner = b.next_in_region();
            }
        }
        next = op.next_in_block_mut();
    }
}

fn is_descriptor_request(op: &OperationRefMut<'_, '_>) -> bool {
    if op_name(op) != "func.call" {
        return false;
    }
    let callee = op.attribute("callee").ok().and_then(symbol).unwrap_or_default();
    crate::callsite::request_entry(&callee).is_some()
        && (op.has_attribute("zyg.args") || op.operands().any(|v| v.r#type().is_mem_ref() || v.r#type().is_unranked_mem_ref()))
}

/// The function a request's first operand names: `func.constant @f`.
fn named_function<'c: 'a, 'a>(call: &impl OperationLike<'c, 'a>) -> Option<String> {
    let first = call.operand(0).ok()?;
    let constant = OperationResult::try_from(first).ok()?.owner();
    (op_name(&constant) == "func.constant").then(|| constant.attribute("value").ok().and_then(symbol)).flatten()
}

/// The request `call` makes, checked against the function's signature; its gradient
/// function is named after the function and `n`, the call's place among them.
fn check_call(call: &OperationRefMut<'_, '_>, funcs: &HashMap<String, Func>, n: usize, path: &Path) -> Result<GradientRequest> {
    let fail = |message: String| located(call, path, message);
    let callee = call.attribute("callee").ok().and_then(symbol).unwrap_or_default();
    let entry = match crate::callsite::request_entry(&callee) {
        Some(entry @ (Entry::Gradient | Entry::Forward)) => entry,
        _ => {
            return Err(fail(format!(
                "`@{callee}` asks for split mode, which MLIR requests support for scalar functions only (through the \
                 C API); with memrefs or `zyg.args` call `__zyg_autodiff_NAME` or `__zyg_fwddiff_NAME`"
            )))
        }
    };
    let Some(function) = named_function(call) else {
        return Err(fail(format!(
            "the first operand of `@{callee}` must be the function to differentiate, `%f = func.constant @f : ...`"
        )));
    };
    let f = funcs.get(&function).ok_or_else(|| fail(format!("`@{function}` is not a function of the module")))?;
    if !f.body {
        return Err(fail(format!("`@{function}` has no body to differentiate")));
    }
    check_signature(f, &function).map_err(fail)?;
    let words = args_attribute(call, path)?;
    let kinds = request_kinds(f, words.as_deref(), &function, entry).map_err(fail)?;
    let mut gradient = format!("{function}.zyg.mlir.call.{n}");
    while funcs.contains_key(&gradient) {
        gradient.push('_');
    }
    let request = GradientRequest {
        function: function.clone(),
        gradient,
        entry,
        args: f.args.clone(),
        result: f.results.first().cloned(),
        kinds,
        c_interface: false,
        internal: true,
        at: place(call.location()).unwrap_or_else(|| path.display().to_string()),
    };
    check_operands(call, &request, &callee).map_err(fail)?;
    check_results(call, &request, &callee).map_err(fail)?;
    Ok(request)
}

/// The call's operands after the function against the gradient's arguments: each of the
/// function's arguments, each `dup` one followed by its shadow (or tangent) of its type.
fn check_operands(call: &OperationRefMut<'_, '_>, r: &GradientRequest, callee: &str) -> std::result::Result<(), String> {
    let given: Vec<String> = call.operands().skip(1).map(|v| v.r#type().to_string()).collect();
    let expected = r.mlir_inputs();
    let shadow = if r.entry == Entry::Forward { "tangent" } else { "shadow" };
    if given.len() != expected.len() {
        let kinds: Vec<&str> = r.kinds.iter().map(|k| kind_word(*k)).collect();
        return Err(format!(
            "`@{callee}` is given {} operands after the function, but `@{}` with its arguments {} takes {} ({}): each \
             `dup` argument is followed by its {shadow} of the same type",
            given.len(),
            r.function,
            kinds.join(","),
            expected.len(),
            expected.join(", ")
        ));
    }
    let mut at = 0;
    for (i, (arg, kind)) in r.args.iter().zip(&r.kinds).enumerate() {
        if given[at] != arg.text() {
            return Err(format!(
                "operand {} of `@{callee}` is a `{}`, but argument {i} of `@{}` is a `{}`",
                at + 1,
                given[at],
                r.function,
                arg.text()
            ));
        }
        at += 1;
        if *kind == ArgActivity::Dup {
            if given[at] != arg.text() {
                return Err(format!(
                    "operand {} of `@{callee}`, the {shadow} of argument {i} of `@{}`, is a `{}`, but the argument is a \
                     `{}`: a {shadow} has its argument's type",
                    at + 1,
                    r.function,
                    given[at],
                    arg.text()
                ));
            }
            at += 1;
        }
    }
    Ok(())
}

/// The call's results against the gradient's: the `out` arguments' gradients in order
/// (several as several results, or as one `!llvm.struct` of them, as the C API returns
/// them), or forward mode's tangent of the float result.
fn check_results(call: &OperationRefMut<'_, '_>, r: &GradientRequest, callee: &str) -> std::result::Result<(), String> {
    let given: Vec<String> = call.results().map(|v| v.r#type().to_string()).collect();
    let expected = r.mlir_results();
    let packed = format!("!llvm.struct<({})>", expected.join(", "));
    if given == expected || (expected.len() > 1 && given == [packed.clone()]) {
        return Ok(());
    }
    let what = match (r.entry, expected.len()) {
        (Entry::Forward, 0) => format!("`@{}` returns no float, so forward mode returns nothing", r.function),
        (Entry::Forward, _) => format!("forward mode returns the tangent of `@{}`'s result, a `{}`", r.function, expected[0]),
        (_, 0) => format!("`@{}` has no `out` argument, so the gradient returns nothing", r.function),
        (_, 1) => format!("the gradient returns that of `@{}`'s `out` argument, a `{}`", r.function, expected[0]),
        _ => format!(
            "the gradient returns those of `@{}`'s `out` arguments, `{}` (or `{packed}`)",
            r.function,
            expected.join(", ")
        ),
    };
    Err(format!("`@{callee}` is declared to return `({})`, but {what}", given.join(", ")))
}

fn kind_word(kind: ArgActivity) -> &'static str {
    match kind {
        ArgActivity::Active => "out",
        ArgActivity::Const => "const",
        ArgActivity::Dup => "dup",
    }
}

/// Points `call` at `@gradient`, declared here with the call's type less the function
/// operand, which it no longer passes.
fn redirect<'c>(
    context: &'c melior::Context,
    module: &melior::ir::Module<'c>,
    call: &mut OperationRefMut<'c, '_>,
    gradient: &str,
) {
    let operands: Vec<_> = call.operands().skip(1).collect();
    let inputs: Vec<Type<'c>> = operands.iter().map(|v| v.r#type()).collect();
    let results: Vec<Type<'c>> = call.results().map(|v| v.r#type()).collect();
    call.set_operands(&operands);
    call.set_attribute("callee", FlatSymbolRefAttribute::new(context, gradient).into());
    let _ = call.remove_attribute("zyg.args");
    let declaration = func::func(
        context,
        StringAttribute::new(context, gradient),
        TypeAttribute::new(FunctionType::new(context, &inputs, &results).into()),
        Region::new(),
        &[(Identifier::new(context, "sym_visibility"), StringAttribute::new(context, "private").into())],
        call.location(),
    );
    module.body().append_operation(declaration);
}
