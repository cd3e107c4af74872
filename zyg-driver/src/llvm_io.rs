//! Reading and writing LLVM modules (text or bitcode, files or standard streams), and the
//! target machine LLVM's pass pipelines need.

use crate::error::{DriverError, Result};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Reads `.ll` or `.bc` (LLVM tells them apart by content), or `.mlir`; `-` is standard
/// input (LLVM IR).
pub fn read_module<'ctx>(context: &'ctx Context, path: &Path) -> Result<Module<'ctx>> {
    // `.mlir`: lowered and translated by MLIR, with its gradient requests (src/mlir/).
    if crate::mlir::is_mlir(path) {
        return crate::mlir::read_module(context, path);
    }
    let io = |source| DriverError::Io { path: path.to_path_buf(), source };
    let bytes = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).map_err(io)?;
        buf
    } else {
        std::fs::read(path).map_err(io)?
    };
    let buffer = MemoryBuffer::create_from_memory_range_copy(&bytes, &path.display().to_string());
    context
        .create_module_from_ir(buffer)
        .map_err(|e| DriverError::Parse { path: path.to_path_buf(), message: e.to_string() })
}

/// How to write the output, following `opt`: `-S` or a `.ll` name gives text (a `.mlir`
/// name gives MLIR, whatever this says).
pub fn wants_text(output: &Path, force_text: bool) -> bool {
    force_text || output.extension().is_some_and(|e| e == "ll")
}

/// Writes the module atomically: to a temporary file beside `output`, renamed into place,
/// so a failure never leaves a truncated file. `-` is standard output.
pub fn write_module(module: &Module, output: &Path, text: bool) -> Result<()> {
    let bytes: Vec<u8> = if crate::mlir::is_mlir(output) {
        crate::mlir::to_text(module, output)? // MLIR's LLVM dialect (src/mlir/)
    } else if text {
        module.print_to_string().to_bytes().to_vec()
    } else {
        module.write_bitcode_to_memory().as_slice().to_vec()
    };
    if output == Path::new("-") {
        let io = |source| DriverError::Io { path: output.to_path_buf(), source };
        return std::io::stdout().write_all(&bytes).map_err(io);
    }
    write_atomically(output, &bytes, 0o644)
}

/// Writes `bytes` to `output` through a temporary file beside it (see `persist`).
pub fn write_atomically(output: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    let io = |source| DriverError::Io { path: output.to_path_buf(), source };
    let mut tmp = temp_beside(output, "")?;
    tmp.write_all(bytes).map_err(io)?;
    persist(tmp, output, mode)
}

/// A temporary file in `output`'s directory (so that renaming it into place is atomic),
/// named with `suffix` (tools that look at the extension: the linker).
pub fn temp_beside(output: &Path, suffix: &str) -> Result<tempfile::NamedTempFile> {
    let dir = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let io = |source| DriverError::Io { path: output.to_path_buf(), source };
    tempfile::Builder::new().suffix(suffix).tempfile_in(&dir).map_err(io)
}

/// Puts a finished temporary file in place: renamed over `output` with ordinary
/// permissions (a temporary file is created private, 0600; an output is not), so a failed
/// run never leaves a half-written output. An output that exists and is not a regular file
/// (`/dev/null`, a named pipe, a symbolic link such as `/dev/stdout`) is written through
/// instead, as LLVM's tools do: renaming over it would replace the device, pipe or link.
pub fn persist(tmp: tempfile::NamedTempFile, output: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let io = |source| DriverError::Io { path: output.to_path_buf(), source };
    let special = std::fs::symlink_metadata(output).is_ok_and(|m| !m.file_type().is_file());
    if special {
        let mut from = std::fs::File::open(tmp.path()).map_err(io)?;
        let mut to = std::fs::OpenOptions::new().write(true).truncate(true).open(output).map_err(io)?;
        std::io::copy(&mut from, &mut to).map_err(io)?;
        return Ok(());
    }
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode)).map_err(io)?;
    tmp.persist(output).map_err(|e| io(e.error))?;
    Ok(())
}

/// A target machine for the module's triple (the host's when the module names none).
pub fn target_machine(module: &Module, path: &Path) -> Result<TargetMachine> {
    Target::initialize_x86(&InitializationConfig::default());
    Target::initialize_aarch64(&InitializationConfig::default());
    Target::initialize_nvptx(&InitializationConfig::default());
    let triple = module.get_triple();
    let triple = if triple.as_str().to_bytes().is_empty() { TargetMachine::get_default_triple() } else { triple };
    let llvm = |e: inkwell::support::LLVMString| DriverError::Llvm { path: path.to_path_buf(), message: e.to_string() };
    let target = Target::from_triple(&triple).map_err(llvm)?;
    target
        .create_target_machine(&triple, "", "", OptimizationLevel::Default, RelocMode::PIC, CodeModel::Default)
        .ok_or_else(|| DriverError::Llvm {
            path: path.to_path_buf(),
            message: format!("no target machine for `{}`", triple_text(&triple)),
        })
}

fn triple_text(t: &TargetTriple) -> String {
    t.as_str().to_string_lossy().into_owned()
}
