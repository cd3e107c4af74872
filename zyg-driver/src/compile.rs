//! `zyg compile`: lowers LLVM IR to native code (an object file, assembly, or a shared
//! library) or, for `--target nvptx64`, to PTX. LLVM's backends do the work; on the GPU,
//! calls to the C math library (and the LLVM math intrinsics NVPTX cannot lower) become
//! calls to libdevice (`__nv_sin`, ...), whose bitcode is linked in.

use crate::error::{DriverError, Result};
use crate::llvm_io;
use crate::target::Cpu;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;
use std::path::{Path, PathBuf};

pub struct CompileOptions {
    pub input: PathBuf,
    pub output: PathBuf,
    /// `nvptx64` (or a full triple); the module's own triple, or the host's, otherwise.
    pub target: Option<String>,
    /// The GPU (`sm_70`...) for NVPTX, or the CPU (`native`, `x86-64-v3`...).
    pub cpu: Option<String>,
    pub opt_level: u8,
    /// libdevice's bitcode; found in the CUDA wheels or toolkit when not given.
    pub libdevice: Option<PathBuf>,
}

/// What the output's name asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Emit {
    Object,
    Assembly,
    SharedLibrary,
}

fn emit_kind(output: &Path, gpu: bool) -> Result<Emit> {
    let ext = output.extension().and_then(|e| e.to_str()).unwrap_or("");
    Ok(match ext {
        "o" | "obj" if !gpu => Emit::Object,
        "s" | "S" | "ptx" => Emit::Assembly,
        "so" | "dylib" if !gpu => Emit::SharedLibrary,
        _ => {
            let want = if gpu { "`.ptx` (or `.s`)" } else { "`.o`, `.s` or `.so`" };
            return Err(DriverError::Usage(format!("{}: cannot tell what to write; name the output {want}", output.display())));
        }
    })
}

pub fn run(opts: &CompileOptions) -> Result<()> {
    let path = opts.input.as_path();
    let context = Context::create();
    let mut module = llvm_io::read_module(&context, path)?;
    let triple = match opts.target.as_deref() {
        Some("nvptx64") | Some("nvptx") | Some("cuda") => TargetTriple::create("nvptx64-nvidia-cuda"),
        Some(t) => TargetTriple::create(t),
        None if !module.get_triple().as_str().to_bytes().is_empty() => module.get_triple(),
        None => TargetMachine::get_default_triple(),
    };
    let gpu = triple.as_str().to_string_lossy().starts_with("nvptx");
    let emit = emit_kind(&opts.output, gpu)?;
    if emit == Emit::SharedLibrary {
        module = not_pie(&context, &module, path)?;
    }
    let machine = target_machine(opts, &triple, gpu)?;
    module.set_triple(&triple);
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    if gpu {
        for f in module.get_functions() {
            // The host's CPU attributes mean nothing on the GPU.
            for key in ["target-cpu", "target-features", "tune-cpu"] {
                f.remove_string_attribute(inkwell::attributes::AttributeLoc::Function, key);
            }
        }
        crate::input::refuse_host_floats(&module, path)?;
        scalarize_vector_math(&module, &machine, path)?;
        crate::libdevice::link(&context, &module, path, opts.libdevice.as_deref())?;
    } else {
        // Compiled for another target than the module names: its functions' CPUs must be
        // that target's.
        crate::target::check_function_cpus(&module, &triple, path)?;
    }
    let pipeline = format!("default<O{}>", opts.opt_level.min(3));
    crate::supervisor::phase(&format!("optimising the module ({pipeline})"));
    let llvm = |message: String| DriverError::Llvm { path: path.to_path_buf(), message };
    module.run_passes(&pipeline, &machine, PassBuilderOptions::create()).map_err(|e| llvm(e.to_string_lossy().into_owned()))?;
    module.verify().map_err(|e| DriverError::Verify { path: path.to_path_buf(), message: e.to_string_lossy().into_owned() })?;
    write_code(opts, &module, &machine, &triple, emit)
}

/// The target machine `--cpu`/`--gpu` and `-O` ask for, for `triple`.
fn target_machine(opts: &CompileOptions, triple: &TargetTriple, gpu: bool) -> Result<TargetMachine> {
    let llvm = |message: String| DriverError::Llvm { path: opts.input.clone(), message };
    crate::target::initialize();
    let target = Target::from_triple(triple).map_err(|e| llvm(e.to_string_lossy().into_owned()))?;
    let cpu = match (&opts.cpu, gpu) {
        (Some(c), _) if c == "native" => TargetMachine::get_host_cpu_name().to_string(),
        (Some(c), _) => c.clone(),
        (None, true) => "sm_70".to_string(),
        (None, false) => String::new(),
    };
    if !cpu.is_empty() {
        check_cpu(triple, &cpu, gpu)?;
    }
    let features =
        if opts.cpu.as_deref() == Some("native") { TargetMachine::get_host_cpu_features().to_string() } else { String::new() };
    let level = match opts.opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    target
        .create_target_machine(triple, &cpu, &features, level, RelocMode::PIC, CodeModel::Default)
        .ok_or_else(|| llvm(format!("LLVM cannot generate code for `{}` (cpu `{cpu}`)", triple.as_str().to_string_lossy())))
}

/// Generates the code and puts it at the output: written beside it and renamed into place
/// (no half-written output), linked first for a shared library.
fn write_code(
    opts: &CompileOptions,
    module: &Module<'_>,
    machine: &TargetMachine,
    triple: &TargetTriple,
    emit: Emit,
) -> Result<()> {
    let llvm = |message: String| DriverError::Llvm { path: opts.input.clone(), message };
    let tmp = llvm_io::temp_beside(&opts.output, ".o")?;
    let file_type = if emit == Emit::Assembly { FileType::Assembly } else { FileType::Object };
    crate::supervisor::phase(&format!("generating code for `{}`", triple.as_str().to_string_lossy()));
    machine.write_to_file(module, file_type, tmp.path()).map_err(|e| llvm(e.to_string_lossy().into_owned()))?;
    match emit {
        Emit::Object | Emit::Assembly => {
            llvm_io::persist(tmp, &opts.output, 0o644)?;
        }
        Emit::SharedLibrary => {
            crate::supervisor::phase("linking the shared library");
            let lib = llvm_io::temp_beside(&opts.output, ".so")?;
            let linker = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
            let status = std::process::Command::new(&linker)
                .arg("-shared")
                .arg("-o")
                .arg(lib.path())
                .arg(tmp.path())
                .arg("-lm")
                .status()
                .map_err(|e| DriverError::Usage(format!("cannot run the linker `{linker}`: {e}")))?;
            if !status.success() {
                return Err(DriverError::Usage(format!("the linker `{linker}` failed ({status})")));
            }
            llvm_io::persist(lib, &opts.output, 0o755)?;
        }
    }
    Ok(())
}

/// Refuses a `--cpu` (or `--gpu`) the target does not know, listing those it does.
fn check_cpu(triple: &TargetTriple, cpu: &str, gpu: bool) -> Result<()> {
    let option = if gpu { "--gpu" } else { "--cpu" };
    match crate::target::cpu(triple, cpu) {
        Cpu::Known => Ok(()),
        Cpu::Unknown(names) => Err(DriverError::Usage(format!(
            "{option} {cpu}: `{}` has no CPU of that name; it knows: {}",
            crate::target::triple_text(triple),
            names.join(", ")
        ))),
        Cpu::NoTarget => {
            Err(DriverError::Usage(format!("--target: LLVM has no target for `{}`", crate::target::triple_text(triple))))
        }
    }
}

/// The module as code for a shared library. clang marks `-fPIE` output (its default) with a
/// "PIE Level" flag, which lets LLVM use the executable-only TLS model for zyg's
/// thread-local chunk cache; a shared library needs the dynamic one. The C API cannot drop
/// a module flag, so the flag is set to 0 in the module's text and the text read back.
fn not_pie<'ctx>(context: &'ctx Context, module: &Module<'ctx>, path: &Path) -> Result<Module<'ctx>> {
    let text = module.print_to_string().to_string();
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        match line.find("!\"PIE Level\", i32 ") {
            Some(at) => {
                let (head, _) = line.split_at(at);
                out.push_str(head);
                out.push_str("!\"PIE Level\", i32 0}");
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    llvm_io::parse_ir(context, out.as_bytes(), path)
}

/// Splits calls of vector math intrinsics (`llvm.sin.v4f64`, from code vectorised for the
/// host) into one call per lane, which `use_libdevice` then points at libdevice: NVPTX has
/// no vector sine, and its backend stopped the process on one ("Cannot select: fsin").
fn scalarize_vector_math(module: &Module<'_>, machine: &TargetMachine, path: &Path) -> Result<()> {
    let vector_math = module.get_functions().any(|f| {
        let name = f.get_name().to_string_lossy();
        name.strip_prefix("llvm.")
            .and_then(|base| base.split_once('.'))
            .is_some_and(|(op, ty)| crate::libdevice::INTRINSICS.contains(&op) && ty.starts_with('v'))
    });
    if !vector_math {
        return Ok(());
    }
    module
        .run_passes("function(scalarizer)", machine, PassBuilderOptions::create())
        .map_err(|e| DriverError::Llvm { path: path.to_path_buf(), message: e.to_string_lossy().into_owned() })
}
