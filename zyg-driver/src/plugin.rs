//! zyg inside LLVM's pipeline: what `libzyg_plugin.so` (the `zyg-plugin` crate) does with
//! the module clang, opt or lld hands it. The plugin's C++ shim decides where it runs
//! (`Stage`); this module does the work with the same steps as `zyg grad`
//! (`grad::differentiate_all`), on the module in place, without reading or writing files
//! and without rerunning a pipeline: the host's own pipeline optimises what zyg wrote.

use crate::error::{DriverError, Result};
use crate::grad::{self, Exports, GradOptions};
use inkwell::module::Module;
use std::path::{Path, PathBuf};

/// Where in the host's pipeline the pass runs (the numbers are the shim's `Stage`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// A compile without LTO, early (before the inliner): fill in every request; an export
    /// (`-zyg-fn`) whose function is not in this file is left to the file that has it.
    Compile,
    /// `-flto`'s compile: the requests wait for the link, where the whole program is one
    /// module; functions zyg must see called are kept out of line until then.
    FullLtoPreLink,
    /// `-flto=thin`'s compile: each file is optimised alone at link time, so a request
    /// cannot see the other files; refused when there are requests.
    ThinLtoPreLink,
    /// Full LTO at link time: fill in every request and export.
    LtoLink,
    /// The pass named in pipeline text (`-passes=zyg`, `zyg-grad<...>`): as `zyg grad`.
    Pass,
    /// The end of a compile's pipeline: a request still there is filled in (or refused).
    Last,
    /// After -O1..3's simplification: the requests zyg refused in `Compile` (whose code was
    /// not yet simplified, as at -O0), tried again on code shaped as clang's -O2 output.
    Deferred,
}

impl Stage {
    pub fn from_number(n: u32) -> Option<Stage> {
        Some(match n {
            0 => Stage::Compile,
            1 => Stage::FullLtoPreLink,
            2 => Stage::ThinLtoPreLink,
            3 => Stage::LtoLink,
            4 => Stage::Pass,
            5 => Stage::Last,
            6 => Stage::Deferred,
            _ => return None,
        })
    }
}

/// The plugin's options: `zyg-grad<fn=f;args=out:dup;name=g;mode=forward;width=2;header=f.h>`
/// or the same from `-mllvm -zyg-fn=f -mllvm -zyg-args=out,dup ...`. (LLVM's pipeline text
/// ends a pass at a comma, even inside `<...>`: kinds there are separated by `:`, and a C++
/// function is named by its symbol or its name without the parameter list.)
#[derive(Debug, Default)]
pub struct Params {
    pub exports: Exports,
    /// Log level: 0 warnings, 1 info, 2 debug (`ZYG_LOG` overrides, as for `zyg`).
    pub verbose: u32,
}

/// Reads `key=value;...` (keys `fn`, `args`, `name` as often as there are functions; `mode`,
/// `width`, `header`, `tape-budget`, `verbose` once).
pub fn parse_params(text: &str) -> Result<Params> {
    let usage = |message: String| DriverError::Usage(format!("the plugin's options (`{text}`): {message}"));
    let mut params = Params::default();
    for item in text.split(';').map(str::trim).filter(|i| !i.is_empty()) {
        let (key, value) = item.split_once('=').ok_or_else(|| usage(format!("`{item}` is not key=value")))?;
        let value = value.trim();
        match key.trim() {
            "fn" if value.is_empty() => return Err(usage("fn= needs a function name (zyg-grad<fn=NAME>)".into())),
            "fn" => params.exports.functions.push(value.to_string()),
            // In opt's pipeline text a comma ends the pass, so kinds may be separated by `:`.
            "args" => params.exports.args.push(grad::parse_kinds(&value.replace(':', ",")).map_err(usage)?),
            "name" => params.exports.names.push(value.to_string()),
            "mode" => {
                params.exports.forward = match value {
                    "forward" => true,
                    "reverse" => false,
                    other => return Err(usage(format!("mode={other}: expected reverse or forward"))),
                }
            }
            "width" => {
                params.exports.width = value
                    .parse()
                    .ok()
                    .filter(|w| (1..=64).contains(w))
                    .ok_or_else(|| usage(format!("width={value}: expected 1 to 64")))?
            }
            "header" => params.exports.header = Some(PathBuf::from(value)),
            "tape-budget" => {
                params.exports.tape_budget =
                    Some(grad::parse_size(value).map_err(|e| usage(format!("tape-budget={value}: {e}")))?)
            }
            "verbose" => params.verbose = value.parse().map_err(|_| usage(format!("verbose={value}: expected 0, 1 or 2")))?,
            other => {
                return Err(usage(format!(
                    "unknown option `{other}` (expected fn, args, name, mode, width, header, tape-budget, verbose)"
                )))
            }
        }
    }
    Ok(params)
}

/// Fills in `module`'s requests (and exports) as `stage` asks; whether it changed the
/// module.
pub fn fill(module: &Module<'_>, stage: Stage, level: u32, params: &Params) -> Result<bool> {
    let path = source_path(module);
    let asked = has_requests(module);
    // `__zyg_release_tape_cache` alone asks for no gradient, only to be filled in.
    let release = crate::tape_cache::wanted(module);
    if stage == Stage::Deferred {
        if !asked || module.get_global_metadata_size(DEFERRED) == 0 {
            return Ok(false);
        }
        let machine = crate::llvm_io::target_machine(module, &path)?;
        let requests_only = Exports { tape_budget: params.exports.tape_budget, ..Exports::default() };
        let all = requests_only.options(path.clone(), PathBuf::from("-"), 0, false)?;
        grad::differentiate_all(module, &machine, &path, &all).map_err(|e| in_another_file(e, module, stage))?;
        after_gpu_gradients(module, &machine, &path)?;
        // The generated functions get the simplification the pipeline gave the program
        // before this point; its optimisation follows.
        run_passes(module, &machine, &path, DEFERRED_CLEANUP)?;
        return Ok(true);
    }
    match stage {
        // Every file: the registrations may be in one without requests.
        Stage::FullLtoPreLink => {
            let kept = keep_registered_out_of_line(module, &path)?;
            return Ok(record_exports(module, &path, &params.exports)? || kept);
        }
        Stage::ThinLtoPreLink if asked || exports_here(module, &path, &params.exports) => {
            return Err(DriverError::Unsupported {
                path,
                message: "gradient requests or -zyg-fn exports in a ThinLTO build (-flto=thin): zyg differentiates the \
                          whole program at link time with full LTO; build with -flto (or -flto=full)"
                    .into(),
            })
        }
        // No gradients here (refused above), so nothing cached to release.
        Stage::ThinLtoPreLink if release => {
            crate::tape_cache::fill(module, &path)?;
            return Ok(true);
        }
        Stage::ThinLtoPreLink => return Ok(false),
        _ => {}
    }
    let mut exports = params.exports.clone();
    if matches!(stage, Stage::Compile | Stage::Last) {
        // Each file of a program is compiled with the same flags: an export belongs to the
        // file that defines its function (and is written once, at the pipeline's start).
        if stage == Stage::Last {
            exports = Exports { tape_budget: exports.tape_budget, ..Exports::default() };
        }
        exports.keep_defined_in(module, &path);
    }
    let recorded = if stage == Stage::LtoLink { recorded_exports(module, &exports)? } else { Vec::new() };
    if !asked && !release && exports.functions.is_empty() && recorded.is_empty() {
        return Ok(false);
    }
    let header_file = exports.header.clone();
    let exporting = !exports.functions.is_empty();
    let tape_budget = exports.tape_budget;
    let mut all: Vec<GradOptions> = Vec::new();
    if asked || exporting || release {
        all = exports.options(path.clone(), PathBuf::from("-"), 0, false)?;
    }
    for mut one in recorded {
        one.tape_budget = tape_budget;
        all.extend(one.options(path.clone(), PathBuf::from("-"), 0, false)?);
    }
    // The other files of an LTO link declare the exported gradients they call.
    let declared = set_aside_declarations(module, &all);
    let machine = crate::llvm_io::target_machine(module, &path)?;
    if is_gpu(module) {
        let held = crate::libdevice::hold_math(module);
        tracing::debug!("{held} libdevice math functions held out of line");
    }
    run_passes(module, &machine, &path, "always-inline")?;
    let header = match grad::differentiate_all(module, &machine, &path, &all) {
        Ok(header) => header,
        // Refused on code not yet simplified: with -O1 and above, tried again once the
        // pipeline has simplified it (`Stage::Deferred`), with the registered functions
        // kept out of line until then. The module is as it was (`grad::differentiate`).
        Err(e) if stage == Stage::Compile && level > 0 && e.is_refusal() && !exporting => {
            tracing::info!("zyg refused the requests on the early code; trying again after simplification: {e}");
            put_back_declarations(module, &declared, false);
            keep_registered_out_of_line(module, &path)?;
            let context = module.get_context();
            module
                .add_global_metadata(DEFERRED, &context.metadata_node(&[]))
                .map_err(|e| DriverError::Llvm { path: path.clone(), message: e.to_string() })?;
            return Ok(true);
        }
        Err(e) => {
            put_back_declarations(module, &declared, false);
            crate::libdevice::release_math(module);
            return Err(in_another_file(e, module, stage));
        }
    };
    put_back_declarations(module, &declared, true);
    after_gpu_gradients(module, &machine, &path)?;
    if let (Some(file), Some(text)) = (&header_file, header) {
        crate::llvm_io::write_atomically(file, text.as_bytes(), 0o644)?;
    }
    Ok(true)
}

/// Whether `module` is GPU code (clang's CUDA device compilation).
fn is_gpu(module: &Module<'_>) -> bool {
    module.get_triple().as_str().to_bytes().starts_with(b"nvptx")
}

/// In GPU code, once the gradients are written: the libdevice functions held out of line
/// are let go, and the math functions the gradients call (`cos` for `sin`) are pointed at
/// libdevice and, where clang linked it (not with `-nocudalib`), linked in as clang linked
/// those of the source; what is not called is
/// dropped at once (`globaldce`), since an -O0 pipeline would keep all of libdevice. And
/// gradients that return no adjoint return `void` (`deadargelim`), not `{}`: NVPTX
/// writes an empty struct as a zero-length return parameter, which ptxas rejects, and an
/// -O0 pipeline would not remove it.
fn after_gpu_gradients(module: &Module<'_>, machine: &inkwell::targets::TargetMachine, path: &Path) -> Result<()> {
    if !is_gpu(module) {
        return Ok(());
    }
    crate::libdevice::release_math(module);
    if crate::libdevice::point_calls(module) && crate::libdevice::is_linked(module) {
        crate::libdevice::link_bitcode(module.get_context(), module, path, None)?;
    }
    run_passes(module, machine, path, "deadargelim,globaldce")
}

/// Named metadata holding, in `-flto`'s compile, the exports (`-zyg-fn`) of the file's
/// functions, in the options' `key=value;...` form: the link's pass makes them.
const EXPORTS: &str = "zyg.exports";

/// Whether this file defines a function of `exports`.
fn exports_here(module: &Module<'_>, path: &Path, exports: &Exports) -> bool {
    let mut mine = exports.clone();
    mine.keep_defined_in(module, path);
    !mine.functions.is_empty()
}

/// `-flto`'s compile: records the exports whose functions this file defines (`EXPORTS`).
/// A header (`-zyg-header`) needs the gradients and is refused: under LTO they exist only
/// at the link.
fn record_exports(module: &Module<'_>, path: &Path, exports: &Exports) -> Result<bool> {
    let mut mine = exports.clone();
    mine.keep_defined_in(module, path);
    if mine.functions.is_empty() {
        return Ok(false);
    }
    if let Some(header) = &mine.header {
        return Err(DriverError::Usage(format!(
            "{}: -zyg-header={}: with -flto the gradients are made at the link, after this file is compiled; declare \
             the exported gradients yourself (`zyg grad --header` on the linked IR prints them)",
            path.display(),
            header.display()
        )));
    }
    let context = module.get_context();
    for (i, function) in mine.functions.iter().enumerate() {
        let mut text = format!("fn={function}");
        if let Some(args) = mine.args.get(i) {
            let kinds: Vec<&str> = args.iter().map(|&a| kind_word(a)).collect();
            text.push_str(&format!(";args={}", kinds.join(":")));
        }
        if let Some(name) = mine.names.get(i) {
            text.push_str(&format!(";name={name}"));
        }
        if mine.forward {
            text.push_str(";mode=forward");
        }
        if mine.width > 1 {
            text.push_str(&format!(";width={}", mine.width));
        }
        let node = context.metadata_node(&[context.metadata_string(&text).into()]);
        module
            .add_global_metadata(EXPORTS, &node)
            .map_err(|e| DriverError::Llvm { path: path.to_path_buf(), message: e.to_string() })?;
    }
    Ok(true)
}

/// The link's pass: the exports the files recorded (`record_exports`), one per function,
/// without those `-zyg-fn` also gives the link.
fn recorded_exports(module: &Module<'_>, given: &Exports) -> Result<Vec<Exports>> {
    let mut out: Vec<Exports> = Vec::new();
    for node in module.get_global_metadata(EXPORTS) {
        let values = node.get_node_values().unwrap_or_default();
        let Some(text) = values.first().and_then(|v| {
            let string = v.into_metadata_value();
            string.get_string_value().map(|bytes| String::from_utf8_lossy(bytes).into_owned())
        }) else {
            continue;
        };
        let one = parse_params(&text)?.exports;
        let seen = |f: &String| given.functions.contains(f) || out.iter().any(|e| e.functions.contains(f));
        if !one.functions.iter().any(seen) {
            out.push(one);
        }
    }
    Ok(out)
}

/// `--args`' word for a kind.
fn kind_word(kind: zyg_transform::ArgActivity) -> &'static str {
    match kind {
        zyg_transform::ArgActivity::Active => "out",
        zyg_transform::ArgActivity::Const => "const",
        zyg_transform::ArgActivity::Dup => "dup",
    }
}

/// Renames the declarations of the exports' names (`f_grad` declared by the file that calls
/// it, in an LTO link) out of the way of the exports; returns (export name, new name).
fn set_aside_declarations(module: &Module<'_>, all: &[GradOptions]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for opts in all {
        let Some(function) = &opts.function else { continue };
        let name = opts.export_name(function);
        let Some(f) = module.get_function(&name).filter(|f| f.as_global_value().is_declaration()) else { continue };
        let aside = format!("{name}.zyg.declared");
        f.as_global_value().set_name(&aside);
        out.push((name, aside));
    }
    out
}

/// After `set_aside_declarations`: with `made`, the uses of each declaration call the
/// export instead and the declaration goes; otherwise it gets its name back.
fn put_back_declarations(module: &Module<'_>, declared: &[(String, String)], made: bool) {
    for (name, aside) in declared {
        let Some(declaration) = module.get_function(aside) else { continue };
        match module.get_function(name).filter(|_| made) {
            Some(export) => {
                let old = declaration.as_global_value().as_pointer_value();
                old.replace_all_uses_with(export.as_global_value().as_pointer_value());
                zyg_ir::llvm::delete_unused_function(module, aside);
            }
            None => declaration.as_global_value().set_name(name),
        }
    }
}

/// Named metadata marking a module whose requests wait for `Stage::Deferred`.
const DEFERRED: &str = "zyg.deferred";

/// What the generated functions of `Stage::Deferred` get: the inliner and the function
/// simplification the program's code had before that point.
const DEFERRED_CLEANUP: &str = "cgscc(inline),function(sroa,early-cse,instcombine<no-verify-fixpoint>,gvn,simplifycfg)";

/// Runs LLVM passes on the module. Before `differentiate_all`: `always-inline`, which the
/// host's pipeline runs later. `zyg grad` reads clang's output, where `always_inline`
/// functions are already inlined, and requests rely on it: zyg.hpp's `zyg::autodiff` is
/// such a function, and the function it differentiates becomes a constant only once its
/// call is inlined into the caller.
fn run_passes(module: &Module<'_>, machine: &inkwell::targets::TargetMachine, path: &Path, passes: &str) -> Result<()> {
    module
        .run_passes(passes, machine, inkwell::passes::PassBuilderOptions::create())
        .map_err(|e| DriverError::Llvm { path: path.to_path_buf(), message: e.to_string_lossy().into_owned() })
}

/// The module's source file (clang's `source_filename`), for messages.
fn source_path(module: &Module<'_>) -> PathBuf {
    let name = module.get_source_file_name().to_string_lossy().into_owned();
    if name.is_empty() {
        PathBuf::from(module.get_name().to_string_lossy().into_owned())
    } else {
        PathBuf::from(name)
    }
}

/// Whether the module calls any of zyg's or Enzyme's entry points but
/// `__zyg_release_tape_cache` (cheap: a look at its declarations), so that a file without
/// requests costs nothing.
fn has_requests(module: &Module<'_>) -> bool {
    module.get_functions().any(|f| {
        let name = f.get_name().to_string_lossy();
        // zyg.hpp's requests are calls of a function template, `zyg::detail::__zyg_autodiff<...>`.
        let entry = (crate::unfilled::is_entry_name(&name) && name != zyg_transform::RELEASE_TAPE_CACHE)
            || crate::callsite::request_entry(&name).is_some();
        f.as_global_value().is_declaration() && entry && !zyg_ir::llvm::calls::uses(f).is_empty()
    })
}

/// Marks `noinline` the functions whose calls zyg must see (registered derivatives,
/// inactive and function-like declarations, allocators), so that `-flto`'s compile-time
/// optimisation does not inline them before the link, where zyg runs; zyg's link-time pass
/// takes the mark off again (`inlining::release_kept`), as for `ZYG_KEEP`.
fn keep_registered_out_of_line(module: &Module<'_>, path: &Path) -> Result<bool> {
    // The registrations themselves: nothing refers to them, so LTO would drop them before
    // the link's pass reads them.
    let registrations: Vec<_> = module
        .get_globals()
        .filter(|g| {
            let name = g.get_name().to_string_lossy();
            crate::custom::REGISTRATIONS.iter().any(|(prefix, _)| name.starts_with(prefix))
                || crate::conventions::REGISTRATIONS.iter().any(|part| name.contains(part))
        })
        .collect();
    let mut changed = !registrations.is_empty();
    if changed {
        zyg_ir::llvm::append_to_used(module, &registrations);
    }
    for name in grad::kept_calls(module, path)? {
        let Some(f) = module.get_function(&name).filter(|f| !f.as_global_value().is_declaration()) else { continue };
        crate::inlining::mark_kept(f);
        changed = true;
    }
    Ok(changed)
}

/// A transform error about a function with no body, in a compile of one file: the function
/// may well be in another file of the program; says how to give zyg the whole program.
fn in_another_file(e: DriverError, module: &Module<'_>, stage: Stage) -> DriverError {
    let DriverError::Transform { path, source, mut note } = e else { return e };
    // (LLVM's intrinsics are declared everywhere and defined nowhere.)
    let declared = |name: &&String| {
        !name.starts_with("llvm.") && module.get_function(name).is_some_and(|f| f.as_global_value().is_declaration())
    };
    // The callee without a body, or the requested function itself.
    let missing = source.callee.as_ref().filter(declared).or(Some(&source.diagnostic.function).filter(declared));
    if let (Some(name), Stage::Compile | Stage::Deferred) = (missing, stage) {
        note.push_str(&format!(
            "\nzyg: note: `{name}` is not defined in {}; if another file of the program defines it, compile every file \
             with -flto and link with -fuse-ld=lld -Wl,--load-pass-plugin=$(zyg plugin-path), so that zyg sees the \
             whole program (README, \"Programs of several files\")",
            path.display()
        ));
    }
    DriverError::Transform { path, source, note }
}

/// The plugin's file name.
pub const PLUGIN_FILE: &str = "libzyg_plugin.so";

/// Where `libzyg_plugin.so` is (`zyg plugin-path`): `$ZYG_PLUGIN` if set, else beside the
/// `zyg` binary's directory as installed (`<prefix>/bin/zyg`, `<prefix>/lib/libzyg_plugin.so`),
/// else in the same directory (cargo's `target/release`).
pub fn installed_path() -> Result<PathBuf> {
    if let Some(given) = std::env::var_os("ZYG_PLUGIN") {
        let given = PathBuf::from(given);
        return if given.is_file() {
            Ok(given)
        } else {
            Err(DriverError::Usage(format!("ZYG_PLUGIN={}: no such file", given.display())))
        };
    }
    let exe = std::env::current_exe().map_err(|e| DriverError::Usage(format!("cannot tell where zyg is installed: {e}")))?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let bin = exe.parent().unwrap_or(Path::new("."));
    let candidates = [bin.join("../lib").join(PLUGIN_FILE), bin.join(PLUGIN_FILE)];
    candidates.iter().find(|c| c.is_file()).map(|c| c.canonicalize().unwrap_or_else(|_| c.clone())).ok_or_else(|| {
        DriverError::Usage(format!(
            "{PLUGIN_FILE} is not installed beside {} (looked for {}); build it with `cargo build --release` and \
             install it with install.sh (README, \"Install\"), or set ZYG_PLUGIN",
            exe.display(),
            candidates.iter().map(|c| c.display().to_string()).collect::<Vec<_>>().join(" and ")
        ))
    })
}
