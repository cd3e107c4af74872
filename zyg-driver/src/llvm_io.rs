//! Reading and writing LLVM modules (text or bitcode, files or standard streams), and the
//! target machine LLVM's pass pipelines need.

use crate::error::{DriverError, Result};
use inkwell::context::{AsContextRef, Context};
use inkwell::module::Module;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Reads `.ll` or `.bc` (LLVM tells them apart by content), or `.mlir`; `-` is standard
/// input (LLVM IR). The module is verified before it is returned (`input::check`).
pub fn read_module<'ctx>(context: &'ctx Context, path: &Path) -> Result<Module<'ctx>> {
    crate::supervisor::phase(&format!("reading {}", path.display()));
    crate::input::configure_reader();
    // `.mlir`: lowered and translated by MLIR, with its gradient requests (src/mlir/).
    let module = if crate::mlir::is_mlir(path) {
        crate::mlir::read_module(context, path)?
    } else {
        let bytes = read_input(path)?;
        let bitcode = is_bitcode(&bytes);
        let _memory =
            bitcode.then(|| ResourceBound::address_space(BITCODE_BUDGET_BASE + BITCODE_BUDGET_PER_BYTE * bytes.len() as u64));
        let _time =
            bitcode.then(|| ResourceBound::cpu_time(BITCODE_SECONDS_BASE + bytes.len() as u64 / BITCODE_BYTES_PER_SECOND));
        parse_ir(context, &bytes, path)?
    };
    crate::supervisor::phase(&format!("verifying {}", path.display()));
    crate::input::check(&module, path)?;
    Ok(module)
}

/// The most zyg reads from one input: LLVM's memory buffers and bitcode offsets are 32-bit
/// on the way, and an input without end (`/dev/zero`, a pipe that never closes) would
/// otherwise fill memory.
const INPUT_LIMIT: u64 = 4 << 30;

/// The bytes of `path` (`-`: standard input). A device is refused: reading `/dev/zero` as
/// a module never ends.
pub(crate) fn read_input(path: &Path) -> Result<Vec<u8>> {
    use std::os::unix::fs::FileTypeExt;
    let io = |source| DriverError::Io { path: path.to_path_buf(), source };
    let mut bytes = Vec::new();
    let read = if path == Path::new("-") {
        std::io::stdin().lock().take(INPUT_LIMIT + 1).read_to_end(&mut bytes)
    } else {
        let file = std::fs::File::open(path).map_err(io)?;
        let kind = file.metadata().map_err(io)?.file_type();
        if kind.is_char_device() || kind.is_block_device() {
            return Err(DriverError::Usage(format!(
                "{}: a device, not a module (give a file, or `-` for standard input)",
                path.display()
            )));
        }
        file.take(INPUT_LIMIT + 1).read_to_end(&mut bytes)
    };
    read.map_err(io)?;
    if bytes.len() as u64 > INPUT_LIMIT {
        return Err(DriverError::Usage(format!("{}: more than 4 GiB: not a module zyg reads", path.display())));
    }
    Ok(bytes)
}

/// Parses LLVM IR, text or bitcode, named `path` in LLVM's messages
/// (`zyg_ir::llvm::parse_ir`, which does not leak the input's buffer as inkwell 0.11 does).
pub fn parse_ir<'ctx>(context: impl AsContextRef<'ctx>, bytes: &[u8], path: &Path) -> Result<Module<'ctx>> {
    zyg_ir::llvm::parse_ir(context, bytes, &path.display().to_string())
        .map_err(|message| DriverError::Parse { path: path.to_path_buf(), message: message.trim_end().to_string() })
}

/// LLVM's bitcode reader sizes its tables from counts written in the file, so a corrupt
/// file can make it ask for any amount of memory: more than there is (LLVM then stops with
/// "out of memory", which the supervising parent reports), or, worse, an amount the kernel
/// grants and that it then fills, until the machine swaps or kills something. While it
/// reads, the process's address space is bounded to what it uses plus this much and as
/// much again per byte of bitcode (an LLVM module takes some ten times its bitcode's size).
const BITCODE_BUDGET_BASE: u64 = 2 << 30;
const BITCODE_BUDGET_PER_BYTE: u64 = 64;

/// The same counts can make it loop for hours (a constant array of billions of elements,
/// built one by one): while it reads, the process's CPU time is bounded to what it used
/// plus this many seconds and one more per this many bytes of bitcode (LLVM reads some
/// hundreds of megabytes a second). Past it the kernel stops the process (SIGXCPU), which
/// the supervising parent reports as the reader's failure.
const BITCODE_SECONDS_BASE: u64 = 20;
const BITCODE_BYTES_PER_SECOND: u64 = 1 << 20;

/// Bitcode's magic numbers: raw (`BC` C0DE) or in its wrapper (0x0B17C0DE).
fn is_bitcode(bytes: &[u8]) -> bool {
    bytes.starts_with(b"BC\xc0\xde") || bytes.starts_with(&[0xde, 0xc0, 0x17, 0x0b])
}

/// A soft resource limit lowered around one step (reading bitcode) and lifted again when
/// dropped. Process-wide: for a single-threaded process.
pub struct ResourceBound {
    resource: nix::sys::resource::Resource,
    /// The soft and hard limits before.
    old: (u64, u64),
}

impl ResourceBound {
    /// The address space (`RLIMIT_AS`): what the process uses now plus `extra` bytes.
    pub fn address_space(extra: u64) -> Option<Self> {
        let pages: u64 = std::fs::read_to_string("/proc/self/statm").ok()?.split_whitespace().next()?.parse().ok()?;
        let page = u64::try_from(nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE).ok()??).ok()?;
        Self::lower(nix::sys::resource::Resource::RLIMIT_AS, pages.saturating_mul(page).saturating_add(extra))
    }

    /// CPU time (`RLIMIT_CPU`, whole seconds): what the process has used plus `seconds`.
    pub fn cpu_time(seconds: u64) -> Option<Self> {
        use nix::sys::resource::{getrusage, UsageWho};
        let used = getrusage(UsageWho::RUSAGE_SELF).ok()?;
        let spent = (used.user_time().tv_sec() + used.system_time().tv_sec()).max(0) as u64;
        Self::lower(nix::sys::resource::Resource::RLIMIT_CPU, spent + 1 + seconds)
    }

    /// The soft limit of `resource` lowered to `want` (never above the hard limit); `None`
    /// when it is that low already, or the limits cannot be read or set.
    fn lower(resource: nix::sys::resource::Resource, want: u64) -> Option<Self> {
        use nix::sys::resource::{getrlimit, setrlimit};
        let old = getrlimit(resource).ok()?;
        let want = want.min(old.1);
        if want >= old.0 {
            return None;
        }
        setrlimit(resource, want, old.1).ok().map(|()| ResourceBound { resource, old })
    }
}

impl Drop for ResourceBound {
    fn drop(&mut self) {
        // Restoring the soft limit read in `lower` (at most the hard limit).
        let _ = nix::sys::resource::setrlimit(self.resource, self.old.0, self.old.1);
    }
}

/// How to write the output, following `opt`: `-S` or a `.ll` name gives text (a `.mlir`
/// name gives MLIR, whatever this says).
pub fn wants_text(output: &Path, force_text: bool) -> bool {
    force_text || output.extension().is_some_and(|e| e == "ll")
}

/// The module's bytes as `output` asks for them: MLIR, text or bitcode.
pub fn module_bytes(module: &Module, output: &Path, text: bool) -> Result<Vec<u8>> {
    crate::supervisor::phase(&format!("writing {}", output.display()));
    Ok(if crate::mlir::is_mlir(output) {
        crate::mlir::to_text(module, output)? // MLIR's LLVM dialect (src/mlir/)
    } else if text {
        text_form(module, output)?
    } else {
        module.write_bitcode_to_memory().as_slice().to_vec()
    })
}

/// The module as LLVM assembly. LLVM prints it whole into a file, then it is read back:
/// the C API's string of it ends at the first NUL byte, and LLVM writes a target triple or
/// data layout as it is, so a corrupt input's NUL there once gave a cut-off `.ll` and exit
/// status 0. Text that holds a NUL cannot be read back as assembly, so it is refused.
fn text_form(module: &Module, output: &Path) -> Result<Vec<u8>> {
    let io = |e: std::io::Error| DriverError::Io { path: output.to_path_buf(), source: e };
    let file = tempfile::NamedTempFile::new().map_err(io)?;
    module.print_to_file(file.path()).map_err(|e| DriverError::Llvm { path: output.to_path_buf(), message: e.to_string() })?;
    let bytes = std::fs::read(file.path()).map_err(io)?;
    if let Some(at) = bytes.iter().position(|b| *b == 0) {
        let line = bytes[..at].iter().filter(|b| **b == b'\n').count() + 1;
        return Err(DriverError::Llvm {
            path: output.to_path_buf(),
            message: format!(
                "the module's text form would hold a NUL byte (line {line}: a target triple, data layout or name \
                 with one, as in a corrupt input), which LLVM assembly cannot carry; write bitcode instead"
            ),
        });
    }
    Ok(bytes)
}

/// Writes the module atomically (see `Outputs`); `-` is standard output.
pub fn write_module(module: &Module, output: &Path, text: bool) -> Result<()> {
    let mut outputs = Outputs::default();
    outputs.stage(output, &module_bytes(module, output, text)?, 0o644)?;
    outputs.commit()
}

/// Writes `bytes` to `output` through a temporary file beside it (see `Outputs`).
pub fn write_atomically(output: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    let mut outputs = Outputs::default();
    outputs.stage(output, bytes, mode)?;
    outputs.commit()
}

/// Whether standard output was closed when zyg started (`zyg grad m.ll -o - >&-`), found
/// before Rust's runtime reopened it on `/dev/null` (see zyg-native), or told by the
/// supervising parent; `-o -` is then an error rather than a success that wrote nothing.
pub fn stdout_closed() -> bool {
    zyg_native::stdout_closed_at_start() || PARENT_SAW_STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed)
}

static PARENT_SAW_STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Called in the supervised child when its parent found standard output closed at its start.
pub fn note_stdout_closed() {
    PARENT_SAW_STDOUT_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// The error for `-o -` when standard output was closed at the start.
pub fn check_stdout(output: &Path) -> Result<()> {
    if output == Path::new("-") && stdout_closed() {
        return Err(DriverError::Usage("-o -: standard output is closed; nothing can be written to it".into()));
    }
    Ok(())
}

/// A temporary file in `output`'s directory (so that renaming it into place is atomic),
/// named `.zyg-PID-...` (so that the supervising parent can remove it if LLVM stops this
/// process, see `supervisor`) and ending with `suffix` (tools that look at the extension:
/// the linker).
pub fn temp_beside(output: &Path, suffix: &str) -> Result<tempfile::NamedTempFile> {
    let dir = crate::supervisor::directory_of(output);
    // tempfile's own message names the temporary file, which the user never asked for.
    let io = |e: std::io::Error| DriverError::Io {
        path: output.to_path_buf(),
        source: std::io::Error::new(e.kind(), format!("cannot write in `{}`: {}", dir.display(), std::io::Error::from(e.kind()))),
    };
    tempfile::Builder::new().prefix(&crate::supervisor::temp_prefix()).suffix(suffix).tempfile_in(&dir).map_err(io)
}

/// The files a command writes, put in place together: each is written in full to a
/// temporary file beside its destination first (`stage`); `commit` then renames them all
/// into place, or, if one cannot be, puts back what the others replaced, so an output and
/// its `--header` land together or not at all, and a failed run never leaves a half-written
/// file. An output that exists and is not a regular file (`/dev/null`, a named pipe, a
/// symbolic link such as `/dev/stdout`) is written through instead, as LLVM's tools do:
/// renaming over it would replace the device, pipe or link. Standard output (`-`) is written
/// last. What is written through cannot be taken back.
#[derive(Default)]
pub struct Outputs {
    staged: Vec<Staged>,
}

enum Staged {
    File { tmp: tempfile::NamedTempFile, path: PathBuf, mode: u32 },
    Stdout(Vec<u8>),
}

impl Outputs {
    /// Writes `bytes` for `path` (`-`: standard output) into a temporary file beside it.
    pub fn stage(&mut self, path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
        if path == Path::new("-") {
            check_stdout(path)?;
            self.staged.push(Staged::Stdout(bytes.to_vec()));
            return Ok(());
        }
        let io = |source| DriverError::Io { path: path.to_path_buf(), source };
        let mut tmp = temp_beside(path, "")?;
        tmp.write_all(bytes).and_then(|_| tmp.flush()).map_err(io)?;
        self.staged.push(Staged::File { tmp, path: path.to_path_buf(), mode });
        Ok(())
    }

    /// A finished temporary file (from `temp_beside`) to put at `path`.
    pub fn stage_file(&mut self, tmp: tempfile::NamedTempFile, path: &Path, mode: u32) {
        self.staged.push(Staged::File { tmp, path: path.to_path_buf(), mode });
    }

    /// Puts every staged file in place, or none (see the type's comment).
    pub fn commit(self) -> Result<()> {
        let mut renames = Vec::new();
        let mut through = Vec::new();
        let mut stdout = Vec::new();
        for s in self.staged {
            match s {
                Staged::File { tmp, path, mode } if is_special(&path) => through.push((tmp, path, mode)),
                Staged::File { tmp, path, mode } => renames.push((tmp, path, mode)),
                Staged::Stdout(bytes) => stdout.push(bytes),
            }
        }
        let mut done: Vec<(PathBuf, Option<tempfile::NamedTempFile<()>>)> = Vec::new();
        let result = (|| {
            for (tmp, path, mode) in renames {
                let backup = backup_of(&path)?;
                rename_into_place(tmp, &path, mode)?;
                done.push((path, backup));
            }
            for (tmp, path, _) in through {
                write_through(&tmp, &path)?;
            }
            for bytes in stdout {
                let io = |source| DriverError::Io { path: PathBuf::from("-"), source };
                let mut out = std::io::stdout().lock();
                out.write_all(&bytes).and_then(|_| out.flush()).map_err(io)?;
            }
            Ok(())
        })();
        if result.is_err() {
            for (path, backup) in done.into_iter().rev() {
                match backup {
                    Some(b) => {
                        let _ = b.persist(&path);
                    }
                    None => {
                        let _ = std::fs::remove_file(&path);
                    }
                }
            }
        }
        result
    }
}

/// An output that exists and is not a regular file: written through, not renamed over.
fn is_special(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file())
}

/// A second name (a hard link, `.zyg-PID-...` beside it) for the regular file at `path`,
/// to put it back if a later output of the same run cannot be written; `None` when there
/// is no file there. Where hard links are not possible, a copy.
fn backup_of(path: &Path) -> Result<Option<tempfile::NamedTempFile<()>>> {
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file()) {
        return Ok(None);
    }
    let io = |source| DriverError::Io { path: path.to_path_buf(), source };
    let dir = crate::supervisor::directory_of(path);
    let prefix = crate::supervisor::temp_prefix();
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".old");
    let backup = match builder.make_in(&dir, |p| std::fs::hard_link(path, p)) {
        Ok(b) => b,
        Err(_) => builder.make_in(&dir, |p| std::fs::copy(path, p).map(|_| ())).map_err(io)?,
    };
    Ok(Some(backup))
}

/// Renames a finished temporary file over `output`, with ordinary permissions (a
/// temporary file is created private, 0600; an output is not).
fn rename_into_place(tmp: tempfile::NamedTempFile, output: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let io = |source| DriverError::Io { path: output.to_path_buf(), source };
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode)).map_err(io)?;
    tmp.persist(output).map_err(|e| io(e.error))?;
    Ok(())
}

/// Copies a finished temporary file into the existing special file `output`.
fn write_through(tmp: &tempfile::NamedTempFile, output: &Path) -> Result<()> {
    let io = |source| DriverError::Io { path: output.to_path_buf(), source };
    let mut from = std::fs::File::open(tmp.path()).map_err(io)?;
    let mut to = std::fs::OpenOptions::new().write(true).truncate(true).open(output).map_err(io)?;
    std::io::copy(&mut from, &mut to).map_err(io)?;
    to.flush().map_err(io)
}

/// Puts one finished temporary file in place (see `Outputs`).
pub fn persist(tmp: tempfile::NamedTempFile, output: &Path, mode: u32) -> Result<()> {
    let mut outputs = Outputs::default();
    outputs.stage_file(tmp, output, mode);
    outputs.commit()
}

pub use crate::target::target_machine;
