//! Reading an MLIR module: parse, check, collect the gradient requests, lower to the LLVM
//! dialect, translate to LLVM IR.

use super::request::{Arg, GradientRequest};
use crate::error::{DriverError, Result};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use melior::diagnostic::DiagnosticSeverity;
use melior::dialect::DialectRegistry;
use melior::ir::attribute::{ArrayAttribute, FlatSymbolRefAttribute, StringAttribute, TypeAttribute};
use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::r#type::{FunctionType, MemRefType};
use melior::ir::{Attribute, BlockLike, Location, OperationRef, RegionLike, ShapedTypeLike, Type, TypeLike};
use melior::pass::PassManager;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;
use zyg_transform::{ArgActivity, Entry};

/// The conversion to the LLVM dialect: MLIR's own passes, in dependency order (strided
/// metadata makes `affine.apply`, affine makes `scf`, `scf` makes `cf`). `arith-expand`
/// legalises the integer divisions LLVM has no instruction for; math operations become LLVM
/// intrinsics where there are some and libm calls otherwise, both of which zyg knows. The
/// last pass gives every function a debug scope, so the LLVM IR carries MLIR's locations.
pub const LOWERING_PIPELINE: &str = "builtin.module(expand-strided-metadata,lower-affine,convert-scf-to-cf,\
arith-expand,finalize-memref-to-llvm,convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,\
convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,convert-ub-to-llvm,reconcile-unrealized-casts,\
ensure-debug-info-scope-on-llvm-func{emission-kind=LineTablesOnly})";

/// The dialects zyg lowers. Anything else (tensor, linalg, vector, gpu, ...) is reported at
/// the first operation that uses it.
const DIALECTS: &[&str] = &["builtin", "func", "arith", "math", "scf", "cf", "memref", "index", "affine", "llvm", "ub"];

/// MLIR's error diagnostics, rendered `FILE:LINE:COL: message` (notes on their own lines).
#[derive(Clone, Default)]
struct Diagnostics(Rc<RefCell<Vec<String>>>);

impl Diagnostics {
    fn take(&self, path: &Path, fallback: &str) -> DriverError {
        let messages = std::mem::take(&mut *self.0.borrow_mut());
        if messages.is_empty() {
            DriverError::Mlir(format!("{}: {fallback}", path.display()))
        } else {
            DriverError::Mlir(messages.join("\n"))
        }
    }
}

/// `FILE:LINE:COL` of a location, looking through names, call sites and fusions.
pub(super) fn place(location: Location<'_>) -> Option<String> {
    if location.is_file_line_col_range() {
        let file = location.file_line_col_range_filename();
        let file = file.as_string_ref().as_str().ok()?.to_string();
        return Some(format!(
            "{file}:{}:{}",
            location.file_line_col_range_start_line(),
            location.file_line_col_range_start_column()
        ));
    }
    if location.is_name() {
        return place(location.name_child_location());
    }
    if location.is_call_site() {
        return place(location.call_site_callee());
    }
    if location.is_fused() {
        return (0..location.fused_num_locations()).find_map(|i| place(location.fused_location(i)));
    }
    None
}

/// An MLIR context with every dialect, pass and LLVM translation registered, and a
/// diagnostic handler that keeps the errors (and prints nothing).
fn context(diagnostics: &Diagnostics, path: &Path) -> melior::Context {
    let registry = DialectRegistry::new();
    melior::utility::register_all_dialects(&registry);
    let context = melior::Context::new_with_registry(&registry, false);
    melior::utility::register_all_llvm_translations(&context);
    melior::utility::register_all_passes();
    let sink = diagnostics.0.clone();
    let file = path.display().to_string();
    context.attach_diagnostic_handler(move |d| {
        if matches!(d.severity(), DiagnosticSeverity::Error) {
            let at = place(d.location()).unwrap_or_else(|| file.clone());
            let mut text = format!("{at}: {d}");
            for i in 0..d.note_count() {
                if let Ok(note) = d.note(i) {
                    let at = place(note.location()).unwrap_or_else(|| file.clone());
                    text.push_str(&format!("\n{at}: note: {note}"));
                }
            }
            sink.borrow_mut().push(text);
        }
        true
    });
    context
}

/// Reads `path` into an LLVM module of `llvm`, with the gradient requests its functions make.
pub(super) fn read<'ctx>(llvm: &'ctx Context, path: &Path) -> Result<(Module<'ctx>, Vec<GradientRequest>)> {
    // The same message as for a missing `.ll`, before MLIR's own.
    std::fs::metadata(path).map_err(|source| DriverError::Io { path: path.to_path_buf(), source })?;
    let diagnostics = Diagnostics::default();
    let context = context(&diagnostics, path);
    let name = path.display().to_string();
    let Some(mut module) = zyg_native::parse_mlir_file(&context, path) else {
        return Err(diagnostics.take(path, "cannot parse MLIR"));
    };
    check_dialects(&module, path)?;
    let requests = requests(&context, &module, path)?;
    tracing::info!(requests = requests.len(), "read MLIR; lowering to the LLVM dialect");

    let passes = PassManager::new(&context);
    melior::utility::parse_pass_pipeline(passes.as_operation_pass_manager(), LOWERING_PIPELINE)
        .map_err(|e| DriverError::Mlir(format!("{name}: internal error: the lowering pipeline: {e}")))?;
    passes.run(&mut module).map_err(|_| diagnostics.take(path, "lowering to the LLVM dialect failed"))?;

    let Some(translated) = zyg_native::translate_to_llvm(&module, llvm) else {
        return Err(diagnostics.take(path, "cannot translate the LLVM dialect to LLVM IR"));
    };
    for_this_machine(&translated, path)?;
    Ok((translated, requests))
}

/// MLIR leaves the triple and data layout empty unless the module names them; zyg's output
/// is for this machine (as clang's would be), so it gets this machine's.
fn for_this_machine(module: &Module<'_>, path: &Path) -> Result<()> {
    if module.get_triple().as_str().to_bytes().is_empty() {
        module.set_triple(&TargetMachine::get_default_triple());
    }
    let empty = module.get_data_layout().as_str().to_bytes().is_empty();
    if empty {
        let machine = crate::llvm_io::target_machine(module, path)?;
        module.set_data_layout(&machine.get_target_data().get_data_layout());
    }
    Ok(())
}

pub(super) fn op_name<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> String {
    op.name().as_string_ref().as_str().unwrap_or("?").to_string()
}

pub(super) fn located<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, path: &Path, message: String) -> DriverError {
    let at = place(op.location()).unwrap_or_else(|| path.display().to_string());
    DriverError::Mlir(format!("{at}: {message}"))
}

/// The first operation of a dialect zyg does not lower is an error at its location.
fn check_dialects(module: &melior::ir::Module<'_>, path: &Path) -> Result<()> {
    let mut error = None;
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = op_name(&op);
        let dialect = name.split('.').next().unwrap_or("");
        if DIALECTS.contains(&dialect) {
            return WalkResult::Advance;
        }
        error = Some(located(
            &op,
            path,
            format!(
                "`{name}`: the `{dialect}` dialect is not supported; zyg lowers func, arith, math, scf, cf, \
                 memref, index and affine (bufferize tensors and lower linalg to loops first)"
            ),
        ));
        WalkResult::Interrupt
    });
    error.map_or(Ok(()), Err)
}

/// What zyg knows of an MLIR type as a function argument.
fn classify(ty: Type<'_>) -> Arg {
    let text = ty.to_string();
    if ty.is_f32() || ty.is_f64() {
        Arg::Float { text }
    } else if ty.is_integer() || ty.is_index() {
        Arg::Int { text }
    } else if ty.is_mem_ref() {
        match MemRefType::try_from(ty) {
            Ok(m) => Arg::MemRef { rank: m.rank(), text },
            Err(_) => Arg::Other { text },
        }
    } else {
        Arg::Other { text }
    }
}

/// A `func.func` at the top of the module.
pub(super) struct Func {
    pub args: Vec<Arg>,
    pub results: Vec<Arg>,
    pub body: bool,
    /// `FILE:LINE:COL`.
    pub at: String,
    signature: String,
}

fn function_type<'c>(op: &OperationRef<'c, '_>) -> Option<FunctionType<'c>> {
    let attr = op.attribute("function_type").ok()?;
    FunctionType::try_from(TypeAttribute::try_from(attr).ok()?.value()).ok()
}

pub(super) fn symbol(attr: Attribute<'_>) -> Option<String> {
    if let Ok(s) = FlatSymbolRefAttribute::try_from(attr) {
        return Some(s.value().to_string());
    }
    StringAttribute::try_from(attr).ok().map(|s| s.value().to_string())
}

/// A `zyg.gradient` attribute: the function, its gradient's name, the `zyg.args` words if
/// given, and whether the function has `llvm.emit_c_interface`.
struct Asked {
    function: String,
    gradient: String,
    words: Option<Vec<String>>,
    c_interface: bool,
}

/// The functions' `zyg.gradient` requests, checked against their signatures, then the
/// `func.call` requests that pass memrefs or have `zyg.args` (`calls.rs`), whose calls are
/// pointed at gradient functions of their own.
fn requests<'c>(context: &'c melior::Context, module: &melior::ir::Module<'c>, path: &Path) -> Result<Vec<GradientRequest>> {
    let (funcs, asked) = functions(module, path)?;
    let mut requests = Vec::new();
    let mut gradients: HashMap<String, String> = HashMap::new();
    for a in asked {
        let f = &funcs[&a.function];
        let fail = |message: String| DriverError::Mlir(format!("{}: {message}", f.at));
        if !f.body {
            return Err(fail(format!("`@{}` asks for its gradient but has no body", a.function)));
        }
        if let Some(first) = gradients.insert(a.gradient.clone(), a.function.clone()) {
            return Err(fail(format!("`@{}` is already the gradient of `@{first}`", a.gradient)));
        }
        let kinds = request_kinds(f, a.words.as_deref(), &a.function, Entry::Gradient).map_err(fail)?;
        check_signature(f, &a.function).map_err(fail)?;
        let request = GradientRequest {
            function: a.function.clone(),
            gradient: a.gradient.clone(),
            entry: Entry::Gradient,
            args: f.args.clone(),
            result: f.results.first().cloned(),
            kinds,
            c_interface: a.c_interface,
            internal: false,
            at: f.at.clone(),
        };
        let declared = check_declared_gradient(&funcs, &request)?;
        tracing::info!(function = %a.function, gradient = %a.gradient, declared, "MLIR gradient request");
        requests.push(request);
    }
    requests.extend(super::calls::requests(context, module, &funcs, path)?);
    Ok(requests)
}

/// The `func.func`s at the top of the module, by name, and the gradients they ask for.
fn functions(module: &melior::ir::Module<'_>, path: &Path) -> Result<(HashMap<String, Func>, Vec<Asked>)> {
    let mut funcs: HashMap<String, Func> = HashMap::new();
    let mut asked = Vec::new();
    let mut op = module.body().first_operation();
    while let Some(f) = op {
        op = f.next_in_block();
        if op_name(&f) != "func.func" {
            continue;
        }
        let Some(name) = f.attribute("sym_name").ok().and_then(symbol) else { continue };
        let Some(ty) = function_type(&f) else { continue };
        let at = place(f.location()).unwrap_or_else(|| path.display().to_string());
        let args: Vec<Arg> = (0..ty.input_count()).filter_map(|i| ty.input(i).ok()).map(classify).collect();
        let results: Vec<Arg> = (0..ty.result_count()).filter_map(|i| ty.result(i).ok()).map(classify).collect();
        let body = f.region(0).ok().and_then(|r| r.first_block()).is_some();
        if f.has_attribute("zyg.gradient") {
            asked.push(asked_gradient(&f, &name, path)?);
        }
        let signature = ty.to_string();
        funcs.insert(name, Func { args, results, body, at, signature });
    }
    Ok((funcs, asked))
}

/// The request a function `name` with a `zyg.gradient` attribute makes.
fn asked_gradient(f: &OperationRef<'_, '_>, name: &str, path: &Path) -> Result<Asked> {
    let gradient = f.attribute("zyg.gradient").ok().and_then(symbol).ok_or_else(|| {
        located(f, path, format!("`zyg.gradient` on `@{name}` must name its gradient: `zyg.gradient = @{name}_grad`"))
    })?;
    let words = args_attribute(f, path)?;
    Ok(Asked { function: name.to_string(), gradient, words, c_interface: f.has_attribute("llvm.emit_c_interface") })
}

/// The words of an operation's `zyg.args` attribute, if it has one.
pub(super) fn args_attribute<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, path: &Path) -> Result<Option<Vec<String>>> {
    let Ok(attr) = op.attribute("zyg.args") else { return Ok(None) };
    let words = kind_words(attr).ok_or_else(|| {
        located(
            op,
            path,
            "`zyg.args` must be an array of strings, [\"dup\", \"out\", \"const\"], or one string of them \
             separated by commas, \"dup,out,const\""
                .into(),
        )
    })?;
    Ok(Some(words))
}

/// The kinds of the arguments of `f` (named `function`) in `entry`'s mode: as `zyg.args`
/// gives them (`words`), or the defaults.
pub(super) fn request_kinds(
    f: &Func,
    words: Option<&[String]>,
    function: &str,
    entry: Entry,
) -> std::result::Result<Vec<ArgActivity>, String> {
    let Some(words) = words else { return Ok(f.args.iter().map(|a| a.default_kind(entry)).collect()) };
    if words.len() != f.args.len() {
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        return Err(format!(
            "`zyg.args` gives {} but `@{}` has {}",
            plural(words.len(), "kind"),
            function,
            plural(f.args.len(), "argument")
        ));
    }
    words.iter().zip(&f.args).enumerate().map(|(i, (w, arg))| kind_for(w, arg, i, function, entry)).collect()
}

/// Refuses arguments and results zyg cannot differentiate.
pub(super) fn check_signature(f: &Func, function: &str) -> std::result::Result<(), String> {
    for (i, a) in f.args.iter().enumerate() {
        if let Arg::Other { text } = a {
            return Err(format!(
                "argument {i} of `@{function}` is a `{text}`: zyg differentiates functions of f32, f64, \
                 integers, index and ranked memrefs"
            ));
        }
    }
    match f.results.as_slice() {
        [] | [Arg::Float { .. }] | [Arg::Int { .. }] => Ok(()),
        [other] => Err(format!(
            "`@{function}` returns a `{}`: zyg seeds a float result; write other results into a memref argument",
            other.text()
        )),
        several => Err(format!(
            "`@{function}` has {} results: zyg seeds one float result; return one, or write the others into memref arguments",
            several.len()
        )),
    }
}

/// Checks a declaration of the request's gradient in the module (it must have no body and
/// the gradient's type); whether there is one.
fn check_declared_gradient(funcs: &HashMap<String, Func>, request: &GradientRequest) -> Result<bool> {
    let (function, gradient) = (&request.function, &request.gradient);
    let Some(g) = funcs.get(gradient) else { return Ok(false) };
    if g.body {
        return Err(DriverError::Mlir(format!(
            "{}: `@{gradient}` has a body, but zyg defines it as the gradient of `@{function}`",
            g.at
        )));
    }
    let expected = request.mlir_signature();
    if g.signature != expected {
        return Err(DriverError::Mlir(format!(
            "{}: `@{gradient}` is declared `{}`, but the gradient of `@{function}` is `{expected}`",
            g.at, g.signature
        )));
    }
    Ok(true)
}

/// `["dup", "const"]` or `"dup,const"`.
fn kind_words(attr: Attribute<'_>) -> Option<Vec<String>> {
    if let Ok(text) = StringAttribute::try_from(attr) {
        return Some(text.value().split(',').map(|w| w.trim().to_string()).collect());
    }
    let array = ArrayAttribute::try_from(attr).ok()?;
    (0..array.len())
        .map(|i| array.element(i).ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value().to_string()))
        .collect()
}

fn kind_for(word: &str, arg: &Arg, i: usize, function: &str, entry: Entry) -> std::result::Result<ArgActivity, String> {
    let forward = entry == Entry::Forward;
    let Some(kind) = ArgActivity::parse(word).filter(|_| word != "dupnoneed") else {
        let expected = if forward { "dup or const" } else { "out, const or dup" };
        return Err(format!("`zyg.args`: unknown kind `{word}` (expected {expected})"));
    };
    if arg.allows(kind, entry) {
        return Ok(kind);
    }
    let rule = if forward {
        "in forward mode floats are dup (followed by their tangent) or const, memrefs dup or const, integers const"
    } else {
        "floats are out or const, memrefs dup or const, integers const"
    };
    Err(format!("`zyg.args`: argument {i} of `@{function}` is a `{}` and cannot be `{word}` ({rule})", arg.text()))
}
