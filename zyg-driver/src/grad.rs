//! `zyg grad`: read a module, differentiate what it asks for, write it back.

use crate::callsite;
use crate::error::{DriverError, Result};
use crate::llvm_io;
use crate::prepare;
use inkwell::context::Context;
use inkwell::passes::PassBuilderOptions;
use std::path::{Path, PathBuf};
use zyg_ir::{Function, Type};
use zyg_transform::ArgActivity;
use zyg_transform::{Differentiator, Gradient, Spec, TransformError};

/// Passes run on each generated function whatever the `-O` level: they turn the adjoint's
/// accumulator slots into SSA phis (DESIGN.md, "Adjoint").
const GENERATED_CLEANUP: &str = "sroa,mem2reg";

/// A generated function with a block of more than this many instructions is marked
/// `noimplicitfloat`, which LLVM's SLP vectorizer takes as "do not vectorise this function".
/// SLP's search for vectorisable store chains grows with the square of a block's stores, and
/// the primal of a large straight-line function stores thousands of values to consecutive
/// tape fields: a 100,000-instruction function spent 23 of its 33 seconds there. (Turning
/// SLP off for the pipeline is not possible per module through LLVM's C API: the pass reads
/// a process-wide option.) Loops in such a function are not vectorised either; a block this
/// size holds no loop.
const SLP_BLOCK_LIMIT: usize = 10_000;

/// Above this many instructions in one block of the module, the pipeline runs without
/// LLVM's VectorCombine pass, which renumbers a block's instructions after each change it
/// makes: on the 190,000-instruction adjoint block of a 4,096-step straight-line chain that
/// clang had vectorised, 44 of 48 seconds (4 s without it).
const VECTOR_COMBINE_BLOCK_LIMIT: usize = 50_000;

/// The number of instructions in the module's largest block.
fn largest_block(module: &inkwell::module::Module<'_>) -> usize {
    module.get_functions().map(largest_block_of).max().unwrap_or(0)
}

/// The number of instructions in the largest block of `fv`.
fn largest_block_of(fv: inkwell::values::FunctionValue<'_>) -> usize {
    fv.get_basic_blocks().iter().map(|b| b.get_instructions().count()).max().unwrap_or(0)
}

/// Turns VectorCombine off before optimising `module` if it has a block over
/// `VECTOR_COMBINE_BLOCK_LIMIT` instructions (`zyg grad`, and each LLVM stretch of a
/// `zyg opt` pipeline).
pub(crate) fn limit_vector_combine(module: &inkwell::module::Module<'_>) {
    let largest = largest_block(module);
    if largest > VECTOR_COMBINE_BLOCK_LIMIT {
        tracing::info!(largest, "a block too large for LLVM's VectorCombine: turned off");
        disable_vector_combine();
    }
}

/// Turns VectorCombine off. LLVM has no per-module or per-function switch for it, only the
/// process-wide option `-disable-vector-combine`, which can be given once per process: it
/// stays off for every later module this process optimises (the `zyg` command optimises one).
fn disable_vector_combine() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The option exists in every LLVM 22 build.
        zyg_ir::llvm::parse_llvm_options(&["-disable-vector-combine"]);
    });
}

/// Marks `fv` `noimplicitfloat` when one of its blocks is over `SLP_BLOCK_LIMIT`.
fn limit_slp(fv: inkwell::values::FunctionValue<'_>) {
    let largest = largest_block_of(fv);
    if largest > SLP_BLOCK_LIMIT {
        tracing::info!(function = %fv.get_name().to_string_lossy(), largest, "a block too large for the SLP vectorizer: noimplicitfloat");
        add_function_attribute(fv, "noimplicitfloat");
    }
}

/// Adds the enum attribute `name` (one without a value) to function `fv`.
pub(crate) fn add_function_attribute(fv: inkwell::values::FunctionValue<'_>, name: &str) {
    use inkwell::attributes::{Attribute, AttributeLoc};
    let attribute = fv.get_type().get_context().create_enum_attribute(Attribute::get_named_enum_kind_id(name), 0);
    fv.add_attribute(AttributeLoc::Function, attribute);
}

#[derive(Clone)]
pub struct GradOptions {
    pub input: PathBuf,
    pub output: PathBuf,
    pub opt_level: u8,
    pub text: bool,
    /// `--fn`: also export the gradient of this function (a symbol, or a C++ name that
    /// `names::resolve` finds)...
    pub function: Option<String>,
    /// ...with these argument kinds (default: floats out, the rest const)...
    pub args: Option<Vec<ArgActivity>>,
    /// ...under this name (default `<fn>_grad`)...
    pub export_name: Option<String>,
    /// ...and write its C prototype here; in forward mode (`--mode forward`) the export is
    /// the tangent function, `<fn>_fwd`.
    pub header: Option<PathBuf>,
    pub forward: bool,
    /// `--width`: forward mode's tangents per call (vector mode; 1 otherwise).
    pub width: u32,
    /// `--tape-budget`: bytes of tape one gradient call should stay under; long loops are
    /// then checkpointed (`zyg_transform::segment_loops`).
    pub tape_budget: Option<u64>,
}

impl GradOptions {
    /// `--fn`'s export name: `--name`, or `<fn>_grad` (`<fn>_fwd` in forward mode).
    pub fn export_name(&self, function: &str) -> String {
        let suffix = if self.forward { "fwd" } else { "grad" };
        self.export_name.clone().unwrap_or_else(|| format!("{function}_{suffix}"))
    }
}

/// `--fn` and its options, as given (`zyg grad`'s command line, the plugin's options): the
/// functions, and for them `--args` and `--name` (none, once for one function, or once per
/// function in the same order).
#[derive(Clone, Debug, Default)]
pub struct Exports {
    pub functions: Vec<String>,
    pub args: Vec<Vec<ArgActivity>>,
    pub names: Vec<String>,
    pub header: Option<PathBuf>,
    pub forward: bool,
    /// `--width` (0 is taken as 1).
    pub width: u32,
    /// `--tape-budget`, in bytes.
    pub tape_budget: Option<u64>,
}

impl Exports {
    /// One `GradOptions` per function (one without an export when there is none), the n-th
    /// `--args` and `--name` for the n-th function.
    pub fn options(self, input: PathBuf, output: PathBuf, opt_level: u8, text: bool) -> Result<Vec<GradOptions>> {
        let n = self.functions.len();
        for (flag, given) in [("--args", self.args.len()), ("--name", self.names.len())] {
            if given > 1 && given != n {
                return Err(DriverError::Usage(format!(
                    "{flag} is given {given} times for {n} --fn: give it once per --fn, in the same order, or (for one --fn) once"
                )));
            }
            if given > 0 && n == 0 {
                return Err(DriverError::Usage(format!("{flag} is given without --fn: it is for --fn's exported gradient")));
            }
            if given == 1 && n > 1 {
                return Err(DriverError::Usage(format!(
                    "{flag} is given once for {n} --fn: give it once per --fn, in the same order"
                )));
            }
        }
        let functions: Vec<Option<String>> = if n == 0 { vec![None] } else { self.functions.into_iter().map(Some).collect() };
        Ok(functions
            .into_iter()
            .enumerate()
            .map(|(i, function)| GradOptions {
                input: input.clone(),
                output: output.clone(),
                opt_level,
                text,
                function,
                args: self.args.get(i).cloned(),
                export_name: self.names.get(i).cloned(),
                header: self.header.clone(),
                forward: self.forward,
                width: self.width.max(1),
                tape_budget: self.tape_budget,
            })
            .collect())
    }

    /// Keeps the functions `module` defines (with their `--args` and `--name`): in a build
    /// of several files, each file exports the gradients of its own functions.
    pub fn keep_defined_in(&mut self, module: &inkwell::module::Module<'_>, path: &Path) {
        let defined: Vec<bool> = self
            .functions
            .iter()
            .map(|f| {
                crate::names::resolve(module, f, path)
                    .ok()
                    .and_then(|symbol| module.get_function(&symbol))
                    .is_some_and(|fv| !fv.as_global_value().is_declaration())
            })
            .collect();
        fn keep<T>(list: &mut Vec<T>, defined: &[bool]) {
            if list.len() == defined.len() {
                let mut i = 0;
                list.retain(|_| (defined[i], i += 1).0);
            }
        }
        keep(&mut self.args, &defined);
        keep(&mut self.names, &defined);
        keep(&mut self.functions, &defined);
    }
}

/// `--tape-budget`'s size: bytes, or a number with a unit (`KiB`, `MiB`, `GiB`, and `K`, `M`,
/// `G` for the same; `kB`, `MB`, `GB` are powers of ten).
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits.parse().map_err(|_| format!("`{text}` is not a size (expected a number of bytes, or e.g. 64MiB)"))?;
    let scale: u64 = match unit.trim() {
        "" | "B" => 1,
        "K" | "KiB" => 1 << 10,
        "M" | "MiB" => 1 << 20,
        "G" | "GiB" => 1 << 30,
        "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        other => return Err(format!("unknown unit `{other}` in `{text}` (expected B, KiB, MiB or GiB)")),
    };
    let bytes = n.checked_mul(scale).ok_or_else(|| format!("`{text}` is too large"))?;
    if bytes == 0 {
        return Err("a tape budget of 0 bytes cannot hold anything".into());
    }
    Ok(bytes)
}

/// `--args`'s list of argument kinds.
pub fn parse_kinds(list: &str) -> std::result::Result<Vec<ArgActivity>, String> {
    list.split(',')
        .map(|word| {
            ArgActivity::parse(word)
                .ok_or_else(|| format!("unknown argument kind `{word}` (expected out, const, dup or dupnoneed)"))
        })
        .collect()
}

/// `zyg grad`: one `GradOptions` per `--fn` (the same input, output and flags), or one
/// without an export.
pub fn run(all: &[GradOptions]) -> Result<()> {
    let opts = all.first().expect("at least one set of options");
    check_paths(opts)?;
    let path = opts.input.as_path();
    let context = Context::create();
    let module = llvm_io::read_module(&context, path)?;
    let machine = llvm_io::target_machine(&module, path)?;
    let header = differentiate_all(&module, &machine, path, all)?;
    if opts.opt_level > 0 {
        let pipeline = format!("default<O{}>", opts.opt_level.min(3));
        tracing::info!(%pipeline, "optimising the module");
        crate::supervisor::phase(&format!("optimising the module ({pipeline})"));
        let llvm = |message: String| DriverError::Llvm { path: path.to_path_buf(), message };
        limit_vector_combine(&module);
        module
            .run_passes(&pipeline, &machine, PassBuilderOptions::create())
            .map_err(|e| llvm(e.to_string_lossy().into_owned()))?;
        module.verify().map_err(|e| DriverError::Verify { path: path.to_path_buf(), message: e.to_string() })?;
    }
    write_outputs(&module, opts, header.as_deref())
}

/// Writes the module and, with `--header`, the exported gradient's prototype: both in
/// place, or neither (`llvm_io::Outputs`).
pub(crate) fn write_outputs(module: &inkwell::module::Module<'_>, opts: &GradOptions, header: Option<&str>) -> Result<()> {
    let mut outputs = llvm_io::Outputs::default();
    let bytes = llvm_io::module_bytes(module, &opts.output, llvm_io::wants_text(&opts.output, opts.text))?;
    outputs.stage(&opts.output, &bytes, 0o644)?;
    if let (Some(file), Some(text)) = (&opts.header, header) {
        outputs.stage(file, text.as_bytes(), 0o644)?;
    }
    outputs.commit()
}

/// Refuses a `--header` that would overwrite the input or the output (also through a link:
/// both name the same file), and `-o -` when standard output is closed. Checked before any
/// work, so that such a run writes nothing.
pub(crate) fn check_paths(opts: &GradOptions) -> Result<()> {
    llvm_io::check_stdout(&opts.output)?;
    let Some(header) = &opts.header else { return Ok(()) };
    let usage = |message: String| Err(DriverError::Usage(message));
    if header == Path::new("-") {
        return usage("--header -: the header needs a file name (standard output is for the module)".into());
    }
    if opts.input != Path::new("-") && crate::paths::same_file(header, &opts.input) {
        return usage(format!("--header {}: that is the input file; the header would overwrite it", header.display()));
    }
    if opts.output != Path::new("-") && crate::paths::same_file(header, &opts.output) {
        return usage(format!("--header {}: that is the output file (-o); give the header a name of its own", header.display()));
    }
    Ok(())
}

/// Refuses an exported gradient's name that LLVM or C cannot take: `llvm.*` (LLVM's
/// intrinsics), anything that is not a C identifier (the header declares it in C), and a
/// name the module already uses.
fn check_export_name(module: &inkwell::module::Module<'_>, name: &str, path: &Path) -> Result<()> {
    let usage = |message: String| Err(DriverError::Usage(format!("{}: {message}", path.display())));
    if name.starts_with("llvm.") {
        return usage(format!("--name {name}: names starting with `llvm.` are LLVM's intrinsics; choose another"));
    }
    let mut chars = name.chars();
    let identifier =
        chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !identifier {
        return usage(format!(
            "--name `{name}`: the exported gradient needs a C identifier (letters, digits and `_`, not starting with a digit)"
        ));
    }
    if module.get_function(name).is_some() || module.get_global(name).is_some() {
        return usage(format!(
            "the module already has a symbol named `{name}`; choose another name for the gradient with --name"
        ));
    }
    Ok(())
}

/// Fills in the module's gradient requests (and `--fn`'s export) in place, and verifies
/// the result; returns the exported gradient's C prototype, if any. `zyg grad` and the
/// `grad` step of `zyg opt` pipelines. A pipeline: find the requests, prepare a copy and
/// read it into zyg-ir, differentiate, write the generated functions, rewrite the call
/// sites (docs/ARCHITECTURE.md, "`zyg grad`, end to end").
pub fn differentiate(
    module: &inkwell::module::Module<'_>,
    machine: &inkwell::targets::TargetMachine,
    path: &Path,
    opts: &GradOptions,
) -> Result<Option<String>> {
    let resolved = with_symbol(module, path, opts)?;
    let opts = &resolved;
    // zyg.hpp's requests at -O0 reach their calls through stack slots (`callsite::promote`).
    callsite::promote_header_requests(module, machine, path)?;
    // Nested requests are filled innermost first, one round each (`nesting`).
    loop {
        let requests = find_requests(module, path, opts)?;
        let round = match crate::nesting::next_round(&requests, opts.function.as_deref(), path) {
            Ok(round) => round,
            Err(e) => {
                reattach(requests.iter());
                return Err(e);
            }
        };
        let (now, later): (Vec<_>, Vec<_>) = requests.into_iter().zip(&round.now).partition(|(_, &now)| now);
        let later: Vec<_> = later.into_iter().map(|(r, _)| r).collect();
        let now: Vec<_> = now.into_iter().map(|(r, _)| r).collect();
        // Requests made with invoke are taken apart when found (`callsite::find_requests`);
        // those this round does not fill in are put back together for the next round, and
        // all of them when zyg refuses the round, which it does before it changes the
        // module: a caller that tries again later (the plugin) finds the module as it was.
        let now_detached: Vec<_> = now.iter().filter_map(|r| r.unwind.map(|p| (p, r.call))).collect();
        let outcome = differentiate_round(module, machine, path, opts, now, round.last);
        reattach(later.iter());
        match outcome {
            Err(e) if e.is_refusal() => {
                for (placeholder, call) in now_detached {
                    zyg_ir::llvm::invokes::reattach(placeholder, call);
                }
                return Err(e);
            }
            Err(e) => return Err(e),
            Ok(header) if round.last => return Ok(header),
            Ok(_) => {}
        }
    }
}

/// Puts requests made with invoke back together (`zyg_ir::llvm::invokes::reattach`).
fn reattach<'a, 'ctx: 'a>(requests: impl Iterator<Item = &'a callsite::Request<'ctx>>) {
    for r in requests {
        if let Some(placeholder) = r.unwind {
            zyg_ir::llvm::invokes::reattach(placeholder, r.call);
        }
    }
}

/// `differentiate` with each `--fn` in turn (the first fills in the requests as well; the
/// others find none left); the exports' C prototypes one after another, each header block
/// with its own include guard.
pub fn differentiate_all(
    module: &inkwell::module::Module<'_>,
    machine: &inkwell::targets::TargetMachine,
    path: &Path,
    all: &[GradOptions],
) -> Result<Option<String>> {
    let mut header: Option<String> = None;
    for opts in all {
        if let Some(text) = differentiate(module, machine, path, opts)? {
            header.get_or_insert_with(String::new).push_str(&text);
        }
    }
    Ok(header)
}

/// `opts` with `--fn`'s name as the module's symbol (`names::resolve`: a C++ name becomes
/// the symbol it names), and the export named after the name given (`names::export_stem`)
/// unless `--name` names it.
fn with_symbol(module: &inkwell::module::Module<'_>, path: &Path, opts: &GradOptions) -> Result<GradOptions> {
    let mut resolved = opts.clone();
    let Some(given) = &opts.function else { return Ok(resolved) };
    let symbol = crate::names::resolve(module, given, path)?;
    if resolved.export_name.is_none() && *given != symbol {
        resolved.export_name = Some(opts.export_name(&crate::names::export_stem(&symbol)));
    }
    resolved.function = Some(symbol);
    Ok(resolved)
}

/// One round of `differentiate`: fills in `requests` and, when `export`, `--fn`'s export.
fn differentiate_round(
    module: &inkwell::module::Module<'_>,
    machine: &inkwell::targets::TargetMachine,
    path: &Path,
    opts: &GradOptions,
    requests: Vec<callsite::Request<'_>>,
    export: bool,
) -> Result<Option<String>> {
    let last_round = export;
    let export = opts.function.as_deref().filter(|_| export);
    let ns = namespace(module);
    // What the program declares about its functions and globals (inactive, function-like,
    // allocators); calls marked inactive at the call site are renamed in the prepared copy.
    let crate::conventions::Declared { mut conventions, kept } = crate::conventions::read(module, path)?;
    let custom = crate::custom::custom_rules(module, path)?;
    let keep = calls_to_keep(&custom, &conventions, &kept);
    // The functions to read: the requests' and their callbacks, and the exported one.
    let mut roots: Vec<String> = requests.iter().map(|r| r.function.clone()).collect();
    roots.extend(requests.iter().flat_map(|r| r.callbacks.iter().map(|(_, f)| f.clone())));
    roots.extend(export.map(str::to_string));
    let (mut read, aliases) = prepare_and_read(module, machine, path, &ns, &roots, &mut conventions, &keep)?;
    let targets = request_targets(&mut read, &ns, &requests, path)?;
    // Under a tape budget, long loops of the functions reverse mode differentiates are cut
    // into segments whose calls are checkpointed (the last round only, as checkpoints are).
    // The targets whose gradient calls run primal and adjoint back to back: their parameters'
    // memory may be read where it is (segments) and reloaded (`reload`).
    let whole = whole_targets(&requests, &targets, export, opts);
    let segments = if last_round && !is_gpu(module) {
        segment_for_budgets(&mut read.module, &conventions, &requests, (&targets, &whole), export, opts, &ns)
    } else {
        None
    };
    crate::supervisor::phase("differentiating");
    let registered = crate::inlining::registered(&custom, &conventions, &aliases);
    let differentiated: Vec<String> = read.module.functions.iter().map(|f| f.name.clone()).collect();
    let requested = requests.iter().map(|r| r.function.clone()).collect();
    crate::inlining::warn_lost(module, path, &registered, &differentiated, &requested);
    let mut diff = Differentiator::new(&read.module, &ns);
    if !last_round {
        // A later round differentiates this round's gradients again.
        diff = diff.without_checkpoints();
    }
    if is_gpu(module) {
        diff = diff.for_gpu();
    }
    // The globals the adjoints measure the steps' tapes in (`Segments::measured`).
    let measured: Vec<String> = segments.iter().flat_map(|s| s.measured.values().cloned()).collect();
    let segment_functions: Vec<zyg_ir::Function> = match segments {
        Some(segments) => {
            let made = read.module.functions.iter().filter(|f| segments.is_segment(&f.name)).cloned().collect();
            diff.set_segments(segments);
            made
        }
        None => Vec::new(),
    };
    // Functions whose gradient calls run primal and adjoint back to back reload what their
    // loops read from their parameters' memory when nothing writes it later.
    let mut all_targets = targets.clone();
    all_targets.extend(export.map(str::to_string));
    diff.set_whole_entries(zyg_transform::whole_entries(&read.module, &all_targets, &whole));
    diff.set_custom_rules(custom);
    diff.set_conventions(conventions);
    let mut grads = Vec::new();
    for (r, target) in requests.iter().zip(&targets) {
        refuse_global_passed_as_dup(r, target, &read.module, path)?;
        let spec = Spec { width: r.width, ..Spec::new(target.clone(), r.kinds.clone()) };
        grads.push(diff.entry(&spec, r.entry).map_err(|e| transform_error(e, &read, path))?);
        if matches!(r.entry, zyg_transform::Entry::AugmentedInto | zyg_transform::Entry::ReverseFrom) {
            let tape = diff.tape_type(&spec).map_err(|e| transform_error(e, &read, path))?;
            check_allocated_size(module, r, &tape, path)?;
        }
    }
    let exported = match export {
        Some(name) => Some(self::export(module, &mut diff, &read, name, opts, path)?),
        None => None,
    };
    let output = diff.finish();
    define_globals(module, &output);
    for name in &measured {
        zyg_ir::llvm::define_zeroed_global(module, name, &zyg_ir::Type::I64, false);
    }
    let mut functions = output.functions;
    // The segment functions the primals call, as they are (zyg's copies of the loops).
    functions.extend(segment_functions);
    functions.extend(exported.as_ref().map(|(wrapper, _)| wrapper.clone()));
    let through = wide_wrappers(&requests, &grads);
    let mut wrapped = std::collections::HashSet::new();
    functions.extend(through.iter().flatten().filter(|w| wrapped.insert(w.name.clone())).cloned());
    tracing::info!(functions = functions.len(), "generated primals, adjoints and gradients");
    let kernel_export = exported.as_ref().filter(|_| export.is_some_and(|n| is_kernel(module, n)));
    // Helpers shared by several functions are compiled for the first one's machine.
    let first_root = requests.first().map(|r| r.function.as_str()).or(export);
    write_generated(module, machine, path, &ns, &functions, first_root, kernel_export.map(|(w, _)| w.name.as_str()))?;
    let written = call_targets(module, &grads, &through);
    callsite::rewrite_all(&requests, &written, path)?;
    callsite::remove_dead_markers(&requests);
    crate::conventions::restore_call_sites(module, &aliases);
    let (prefix, marker) = indirect_names(&ns);
    zyg_ir::llvm::dispatch::restore(module, &prefix, &marker);
    crate::inlining::release_kept(module, &kept);
    // `__zyg_release_tape_cache` now also releases this round's cache (`tape_cache`).
    crate::tape_cache::fill(module, path)?;
    module.verify().map_err(|e| DriverError::Verify { path: path.to_path_buf(), message: e.to_string() })?;
    Ok(exported.map(|(_, text)| text))
}

/// Under a tape budget (`--tape-budget`, or a request's `zyg_tape_budget`), the long loops of
/// the functions those reverse-mode requests differentiate are cut into segments whose calls
/// are checkpointed (`zyg_transform::segment_loops`). Functions other requests reach too (a
/// request without a budget, forward mode) are left alone. None when nothing asks.
fn segment_for_budgets(
    module: &mut zyg_ir::Module,
    conventions: &zyg_transform::Conventions,
    requests: &[callsite::Request],
    (targets, whole): (&[String], &[String]),
    export: Option<&str>,
    opts: &GradOptions,
    ns: &str,
) -> Option<zyg_transform::Segments> {
    use zyg_transform::Entry;
    let mut budgets: Vec<u64> = Vec::new();
    let (mut roots, mut others): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for (r, target) in requests.iter().zip(targets) {
        match r.tape_budget.or(opts.tape_budget).filter(|_| r.entry != Entry::Forward) {
            Some(b) => {
                budgets.push(b);
                roots.push(target.clone());
            }
            None => others.push(target.clone()),
        }
    }
    if let Some(name) = export {
        match opts.tape_budget.filter(|_| !opts.forward) {
            Some(b) => {
                budgets.push(b);
                roots.push(name.to_string());
            }
            None => others.push(name.to_string()),
        }
    }
    let budget = budgets.iter().min()?;
    let segments = zyg_transform::segment_loops(module, conventions, &roots, whole, &others, *budget, ns);
    // -vv: the segment functions as zyg made them.
    for f in module.functions.iter().filter(|f| segments.is_segment(&f.name)) {
        tracing::debug!("segment function:\n{}", zyg_ir::text::print_function(f));
    }
    tracing::info!("tape budget {budget} bytes: {} loops segmented", segments.sized.len() / 2);
    for line in &segments.report {
        tracing::info!("{line}");
    }
    Some(segments)
}

/// The targets whose gradient runs primal and adjoint in one call: those of combined-mode
/// requests (`__enzyme_autodiff`) and a reverse-mode export, less any that a split-mode
/// request differentiates too (its primal and adjoint are apart, and share their plan).
fn whole_targets(requests: &[callsite::Request], targets: &[String], export: Option<&str>, opts: &GradOptions) -> Vec<String> {
    use zyg_transform::Entry;
    let split: Vec<&String> = requests
        .iter()
        .zip(targets)
        .filter(|(r, _)| {
            matches!(r.entry, Entry::Augmented | Entry::Reverse | Entry::AugmentedInto | Entry::ReverseFrom | Entry::TapeSize)
        })
        .map(|(_, t)| t)
        .collect();
    let mut whole: Vec<String> =
        requests.iter().zip(targets).filter(|(r, _)| r.entry == Entry::Gradient).map(|(_, t)| t.clone()).collect();
    whole.extend(export.filter(|_| !opts.forward).map(str::to_string));
    whole.retain(|t| !split.contains(&t));
    whole
}

/// Functions whose calls must stay calls in the copy zyg reads (`prepare`'s inlining):
/// those with a registered derivative or convention, deallocators, `ZYG_KEEP`'s.
fn calls_to_keep(
    custom: &[zyg_transform::CustomRule],
    conventions: &zyg_transform::Conventions,
    kept: &[String],
) -> std::collections::HashSet<String> {
    crate::inlining::registered(custom, conventions, &[])
        .into_keys()
        .chain(conventions.allocators.values().map(|a| a.deallocator.clone()))
        .chain(kept.iter().cloned())
        .collect()
}

/// The functions whose calls zyg must see in `module` (`calls_to_keep`), for the plugin,
/// which keeps them out of line until zyg runs.
pub fn kept_calls(module: &inkwell::module::Module<'_>, path: &Path) -> Result<std::collections::HashSet<String>> {
    let crate::conventions::Declared { conventions, kept } = crate::conventions::read(module, path)?;
    let custom = crate::custom::custom_rules(module, path)?;
    Ok(calls_to_keep(&custom, &conventions, &kept))
}

/// Step "find requests": calls to `__enzyme_autodiff` and friends (and `--fn`'s export name
/// checked).
fn find_requests<'ctx>(
    module: &inkwell::module::Module<'ctx>,
    path: &Path,
    opts: &GradOptions,
) -> Result<Vec<callsite::Request<'ctx>>> {
    crate::supervisor::phase("finding the gradient requests");
    if let Some(name) = &opts.function {
        check_export_name(module, &opts.export_name(name), path)?;
    }
    let requests = callsite::find_requests(module, path)?;
    tracing::info!(requests = requests.len(), "found gradient requests");
    if requests.is_empty() && opts.function.is_none() {
        tracing::warn!(
            "{}: no gradient requests (__enzyme_autodiff and friends) and no --fn: nothing to differentiate",
            path.display()
        );
    }
    Ok(requests)
}

/// Steps "prepare" and "read": a prepared copy of the module (`prepare`), the functions
/// to differentiate read from it into zyg-ir, with the program's conventions marked and
/// brought to the transform's shape (`zyg_transform::normalize`). Also returns the names
/// of call sites renamed for their conventions (`conventions::mark_call_sites`).
fn prepare_and_read(
    module: &inkwell::module::Module<'_>,
    machine: &inkwell::targets::TargetMachine,
    path: &Path,
    ns: &str,
    roots: &[String],
    conventions: &mut zyg_transform::Conventions,
    keep: &std::collections::HashSet<String>,
) -> Result<(zyg_ir::llvm::ReadModule, Vec<(String, String)>)> {
    crate::supervisor::phase(&format!("preparing a copy of the module ({})", prepare::PREPARE_PIPELINE));
    let prepared = prepare::prepare(module, machine, path, keep)?;
    let (prefix, marker) = indirect_names(ns);
    let dispatchers = zyg_ir::llvm::dispatch::dispatch_indirect_calls(&prepared, &prefix, &marker);
    conventions.inactive_functions.insert(marker.clone());
    conventions.indirect =
        zyg_transform::IndirectCalls { marker, sites: dispatchers.into_iter().map(|d| (d.name, d.site)).collect() };
    let aliases = crate::conventions::mark_call_sites(&prepared, ns, conventions);
    crate::supervisor::phase("reading the functions to differentiate");
    let mut read = zyg_ir::llvm::read_functions(&prepared, roots);
    conventions.mark_globals(&mut read.module);
    zyg_transform::normalize(&mut read.module);
    tracing::info!(
        read = read.module.functions.len(),
        unreadable = read.unreadable.len(),
        "prepared a copy ({}) and read the functions to differentiate",
        prepare::PREPARE_PIPELINE
    );
    Ok((read, aliases))
}

/// The names of the dispatchers of calls through pointers (`zyg_ir::llvm::dispatch`) and
/// of the identity their last branch passes an unknown callee through, in namespace `ns`.
fn indirect_names(ns: &str) -> (String, String) {
    let prefix = format!("{ns}.indirect");
    let marker = format!("{prefix}.callee");
    (prefix, marker)
}

/// A transform error as the driver reports it. A callee zyg must differentiate but could
/// not read: the reason it could not is the error, at the instruction that stopped it ("has
/// no body" would mislead).
fn transform_error(source: TransformError, read: &zyg_ir::llvm::ReadModule, path: &Path) -> DriverError {
    let unreadable = source.callee.as_ref().and_then(|c| read.unreadable.get(c).map(|e| (c, e)));
    let source = match unreadable {
        Some((callee, e)) => {
            let mut diagnostic = e.clone();
            let caller = &source.diagnostic.function;
            diagnostic.message = if caller == callee {
                format!("{} (in the function to differentiate)", e.message)
            } else {
                format!("{} (zyg must differentiate `{callee}` for `{caller}`)", e.message)
            };
            TransformError { diagnostic, callee: None }
        }
        None => source,
    };
    DriverError::Transform { path: path.to_path_buf(), source: Box::new(source), note: String::new() }
}

/// `--fn`'s export: the gradient of `name` and its wrapper under the export name, with its
/// C prototype (`header`).
fn export(
    module: &inkwell::module::Module<'_>,
    diff: &mut Differentiator,
    read: &zyg_ir::llvm::ReadModule,
    name: &str,
    opts: &GradOptions,
    path: &Path,
) -> Result<(Function, String)> {
    let func = read.module.function(name).ok_or_else(|| missing_function(path, name, read))?;
    let kernel = is_kernel(module, name);
    if kernel && opts.width > 1 {
        return Err(DriverError::Usage(format!(
            "{}: --width {}: vector mode for GPU kernels is not supported yet; export one tangent kernel and launch \
             it once per direction",
            path.display(),
            opts.width
        )));
    }
    if opts.width > 1 && !opts.forward {
        return Err(DriverError::Usage(format!(
            "{}: --width {} asks for vector mode, which zyg supports with --mode forward only so far",
            path.display(),
            opts.width
        )));
    }
    if func.sig.ret.carries_derivative() && !func.sig.ret.is_float() {
        // An exported function returns one float (or N through `out`); a struct of floats
        // in registers would need a C type of the ABI's making, and a gradient a seed.
        let how = if opts.forward {
            "exporting the forward mode of a function that returns a struct is not supported yet; call \
             `__enzyme_fwddiff` in the program (it returns the struct of tangents), or write the outputs through a \
             pointer argument, whose shadow receives their tangents"
        } else {
            "an exported gradient seeds a float result only; write the outputs through a pointer argument (`dup`), \
             whose shadow is their seed, or call `__enzyme_autodiff` with `enzyme_active_return` in the program"
        };
        return Err(DriverError::Usage(format!("{}: --fn {name}: `{name}` returns `{}`; {how}", path.display(), func.sig.ret)));
    }
    let kinds = export_kinds(func, opts.args.as_deref(), kernel, path)?;
    let spec = Spec { width: opts.width, ..Spec::new(name, kinds) };
    let entry = if opts.forward { zyg_transform::Entry::Forward } else { zyg_transform::Entry::Gradient };
    let gradient = diff.entry(&spec, entry).map_err(|e| transform_error(e, read, path))?;
    let export_name = opts.export_name(name);
    let text = if opts.forward {
        crate::header::render_forward(&export_name, name, &func.sig, &spec.args, spec.width)
    } else {
        crate::header::render(&export_name, name, &func.sig.params, &spec.args)
    };
    let text = if kernel && zyg_transform::dynamic_shared_reached(&read.module, name) {
        crate::header::with_dynamic_shared_note(text, &export_name, name)
    } else {
        text
    };
    // A kernel's tangent kernel returns nothing (a kernel's result is void) and takes no
    // `out` pointers: its tangents are written beside its results, as any shadow is.
    let wrapper = if kernel && !opts.forward {
        zyg_transform::kernel_export_wrapper(&export_name, &gradient)
    } else {
        zyg_transform::export_wrapper(&export_name, &gradient)
    };
    Ok((wrapper, text))
}

/// Step "write": the generated functions into the user's module, each compiled for the
/// machine of the code it came from, cleaned up (`GENERATED_CLEANUP`); `kernel_export` is
/// the exported gradient of a kernel, a kernel itself.
fn write_generated(
    module: &inkwell::module::Module<'_>,
    machine: &inkwell::targets::TargetMachine,
    path: &Path,
    ns: &str,
    functions: &[Function],
    first_root: Option<&str>,
    kernel_export: Option<&str>,
) -> Result<()> {
    crate::supervisor::phase("writing the generated functions");
    let llvm = |message: String| DriverError::Llvm { path: path.to_path_buf(), message };
    let gpu = is_gpu(module);
    let fallback = first_root.and_then(|r| function(module, r));
    for f in functions {
        let fv = zyg_ir::llvm::write_function(module, f).map_err(|e| llvm(e.to_string()))?;
        let origin = f.name.split_once(&format!(".{ns}.")).and_then(|(source, _)| function(module, source));
        copy_target_attributes(origin.or(fallback), fv);
        if gpu {
            // As clang marks every CUDA function: a barrier inside (the primal's, the adjoint's
            // replay, the shared shadows' zeroing) must not be moved into divergent code, by
            // LLVM's passes here or after inlining.
            add_function_attribute(fv, "convergent");
        }
        prepare::restore_dynamic_allocas(fv);
        if kernel_export == Some(f.name.as_str()) {
            fv.set_call_conventions(PTX_KERNEL);
        }
        fv.run_passes(GENERATED_CLEANUP, machine, PassBuilderOptions::create())
            .map_err(|e| llvm(e.to_string_lossy().into_owned()))?;
        limit_slp(fv);
    }
    zyg_ir::llvm::delete_unused_function(module, prepare::VLA_MARKER);
    Ok(())
}

/// The function each request differentiates: its own, or a copy specialised to the
/// callbacks it passes; a request that seeds the result otherwise than with 1 differentiates
/// a wrapper of that (`zyg_transform::wrap`).
fn request_targets(
    read: &mut zyg_ir::llvm::ReadModule,
    ns: &str,
    requests: &[callsite::Request],
    path: &Path,
) -> Result<Vec<String>> {
    let mut targets = Vec::new();
    for r in requests {
        let seed = match r.seed {
            Some(seed) => {
                let memory = r.result_memory.map(zyg_ir::llvm::type_of);
                let memory = memory.transpose().map_err(|message| DriverError::Request {
                    path: path.to_path_buf(),
                    message: format!("{}: {message}", r.place),
                })?;
                Some((seed, memory))
            }
            None => None,
        };
        let target = zyg_transform::request_target(&mut read.module, ns, &r.function, &r.callbacks, seed)
            .map_err(|missing| missing_function(path, &missing, read))?;
        targets.push(target);
    }
    Ok(targets)
}

/// Split mode's tape in the caller's memory (`enzyme_allocated, SIZE`): a SIZE known now
/// that is smaller than the tape is an error here (the entry checks other sizes when it
/// runs). The tape's bytes are its allocation size by the module's data layout, the number
/// `__enzyme_augmentsize` folds to.
fn check_allocated_size(module: &inkwell::module::Module<'_>, r: &callsite::Request, tape: &Type, path: &Path) -> Result<()> {
    // Sign-extended, as the call passes it: a negative `int` is too small.
    let given = match r.extra.last().copied().flatten().and_then(|a| a.value()) {
        Some(inkwell::values::BasicValueEnum::IntValue(v)) => v.get_sign_extended_constant(),
        _ => None,
    };
    let needed = zyg_ir::llvm::allocation_size(module, tape);
    match given {
        Some(given) if given < 0 || (given as u64) < needed => Err(DriverError::Request {
            path: path.to_path_buf(),
            message: format!(
                "{}: the tape memory given with `enzyme_allocated, {given}` is too small: the tape of `{}` with this \
                 activity takes {needed} bytes (what `__enzyme_augmentsize` gives for it); allocate and pass that size",
                r.place, r.function
            ),
        }),
        _ => Ok(()),
    }
}

/// A global variable passed as a `dup` argument and also used by name by the function
/// (or its callees): its adjoint would be split between the shadow the request passes and
/// the global's own shadow (`__zyg_shadow_NAME`), so each would hold part of the gradient.
fn refuse_global_passed_as_dup(r: &callsite::Request, target: &str, module: &zyg_ir::Module, path: &Path) -> Result<()> {
    let used = zyg_transform::globals_reached(module, target);
    for (kind, value) in r.kinds.iter().zip(&r.values) {
        if *kind != ArgActivity::Dup {
            continue;
        }
        if let Some(name) = callsite::global_variable(*value).filter(|g| used.contains(g)) {
            return Err(DriverError::Request {
                path: path.to_path_buf(),
                message: format!(
                    "{}: the global `{name}` is passed as a `dup` argument and `{target}` also uses it by name, so its \
                     gradient would be split between the shadow passed and the global's own shadow \
                     `__zyg_shadow_{name}`; pass a copy of it, or do not pass it and read `__zyg_shadow_{name}`",
                    r.place
                ),
            });
        }
    }
    Ok(())
}

/// `zyg` unless the module already holds zyg's output, then `zyg1`, `zyg2`, ...
/// Generated code is compiled for the same machine as the code it came from: the function
/// it differentiates (or, for shared helpers, the first requested one) lends it its CPU
/// and features, so that `-march=native` code keeps its vector width and FMA.
fn copy_target_attributes(from: Option<inkwell::values::FunctionValue<'_>>, to: inkwell::values::FunctionValue<'_>) {
    use inkwell::attributes::AttributeLoc;
    let Some(from) = from else { return };
    for key in ["target-cpu", "target-features", "tune-cpu"] {
        if let Some(attr) = from.get_string_attribute(AttributeLoc::Function, key) {
            to.add_attribute(AttributeLoc::Function, attr);
        }
    }
}

/// The function zyg-ir calls `name`: by its name, or an unnamed one (`@0`) by its number
/// (`zyg_ir::llvm::global_name`).
pub(crate) fn function<'ctx>(module: &inkwell::module::Module<'ctx>, name: &str) -> Option<inkwell::values::FunctionValue<'ctx>> {
    zyg_ir::llvm::function_named(module, name)
}

fn namespace(module: &inkwell::module::Module) -> String {
    let taken = |ns: &str| {
        let marker = format!("__{ns}_stack_push");
        module.get_functions().any(|f| {
            let name = f.get_name().to_string_lossy();
            name == marker || name.contains(&format!(".{ns}.grad."))
        })
    };
    (0..).map(|i| if i == 0 { "zyg".to_string() } else { format!("zyg{i}") }).find(|ns| !taken(ns)).expect("a free name")
}

fn missing_function(path: &Path, name: &str, read: &zyg_ir::llvm::ReadModule) -> DriverError {
    let message = match read.unreadable.get(name) {
        Some(e) => format!("cannot read `{name}`: {e}"),
        None => format!("no function named `{name}` with a body in this module"),
    };
    DriverError::Request { path: path.to_path_buf(), message }
}

/// The kinds for `--fn`: as given by `--args`, or floats `out` and the rest `const`.
/// LLVM's `ptx_kernel` calling convention: a CUDA kernel.
const PTX_KERNEL: u32 = 71;

fn is_kernel(module: &inkwell::module::Module<'_>, name: &str) -> bool {
    function(module, name).is_some_and(|f| f.get_call_conventions() == PTX_KERNEL)
}

/// Code for a GPU: NVPTX or AMDGPU.
fn is_gpu(module: &inkwell::module::Module<'_>) -> bool {
    let triple = module.get_triple();
    let triple = triple.as_str().to_string_lossy();
    triple.starts_with("nvptx") || triple.starts_with("amdgcn")
}

/// A kernel's gradient is a kernel of the same grid: its float scalars are `const` unless
/// `--args` says `out` (each thread's contribution is then added, atomically, into a
/// pointer the kernel takes at the end).
fn export_kinds(func: &Function, args: Option<&[ArgActivity]>, kernel: bool, path: &Path) -> Result<Vec<ArgActivity>> {
    let defaults = func.params.iter().map(|p| match func.ty(*p) {
        t if t.is_float() && !kernel => ArgActivity::Active,
        t if t.is_ptr() => ArgActivity::Dup,
        _ => ArgActivity::Const,
    });
    let Some(args) = args else { return Ok(defaults.collect()) };
    if args.len() != func.params.len() {
        return Err(DriverError::Usage(format!(
            "{}: --args gives {} kinds but `{}` has {} parameters",
            path.display(),
            args.len(),
            func.name,
            func.params.len()
        )));
    }
    Ok(args.to_vec())
}

/// A request whose gradient struct has more fields than this gets it through memory: a
/// wrapper stores the struct through a pointer, and the call site loads each field. Given
/// as a value, the call site takes it apart into the request's own struct type, a chain of
/// `extractvalue`/`insertvalue`, and LLVM's interprocedural constant propagation (IPSCCP,
/// in every `-O` pipeline) tracks a returned struct field by field and revisits each
/// `insertvalue` of the chain, of all the fields, whenever one field of the call's result
/// changes: cubic in the fields. A request with 500 `out` arguments took 7 s at -O2 and one
/// with 1,000 about a minute; through memory, 0.7 s and 3 s.
const WIDE_GRADIENT: usize = 16;

/// For each request, the wrapper that gives its gradients through memory when they are
/// many (see `WIDE_GRADIENT`), or `None`.
fn wide_wrappers(requests: &[callsite::Request], grads: &[Gradient]) -> Vec<Option<Function>> {
    requests
        .iter()
        .zip(grads)
        .map(|(r, g)| match &g.sig.ret {
            Type::Struct(fields)
                if !matches!(r.entry, zyg_transform::Entry::Augmented | zyg_transform::Entry::AugmentedInto)
                    && fields.len() > WIDE_GRADIENT =>
            {
                Some(zyg_transform::store_gradients_wrapper(&format!("{}.into", g.name), g))
            }
            _ => None,
        })
        .collect()
}

/// What each request's call becomes a call to, once the gradients and wrappers are written.
fn call_targets<'ctx>(
    module: &inkwell::module::Module<'ctx>,
    grads: &[Gradient],
    through: &[Option<Function>],
) -> Vec<callsite::Target<'ctx>> {
    grads
        .iter()
        .zip(through)
        .map(|(g, w)| {
            let gradient = module.get_function(&g.name).expect("gradient was written");
            match w {
                Some(w) => callsite::Target {
                    function: module.get_function(&w.name).expect("wrapper was written"),
                    through: gradient.get_type().get_return_type(),
                },
                None => callsite::Target { function: gradient, through: None },
            }
        })
        .collect()
}

/// Defines the globals the generated code uses (`zyg_transform::Output::globals`): zeroed,
/// thread-local, shared memory; then the shadows of globals holding pointers start as their
/// globals do, at the other shadows (`double *cur = buf` has the shadow `&__zyg_shadow_buf`),
/// once all of them are defined.
fn define_globals(module: &inkwell::module::Module<'_>, output: &zyg_transform::Output) {
    use zyg_transform::GlobalInit;
    for g in &output.globals {
        match &g.init {
            GlobalInit::Shared => zyg_ir::llvm::define_shared_global(module, &g.name, &g.ty),
            GlobalInit::ThreadLocalZero => zyg_ir::llvm::define_zeroed_global(module, &g.name, &g.ty, true),
            GlobalInit::Zero | GlobalInit::Mirror { .. } => zyg_ir::llvm::define_zeroed_global(module, &g.name, &g.ty, false),
        }
    }
    for g in &output.globals {
        if let GlobalInit::Mirror { of } = &g.init {
            zyg_ir::llvm::mirror_initializer(module, &g.name, of, &|global: &str| output.shadow_of(global));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn tape_budget_sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("512KiB"), Ok(512 << 10));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("3MB"), Ok(3_000_000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("MiB").is_err());
        assert!(parse_size("1.5MiB").is_err());
        assert!(parse_size("1TiB").is_err());
        assert!(parse_size("99999999999999999999GiB").is_err());
    }
}
