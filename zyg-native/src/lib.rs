//! zyg-native: the driver's foreign code, behind safe functions, so that zyg-driver has no
//! `unsafe` at all (it forbids it). Here: MLIR's C API where melior has no safe form
//! (parsing a file with its name in the locations, translating to LLVM IR in zyg's LLVM
//! context); the three C++ shims `build.rs` compiles (`import.cpp`: LLVM IR to MLIR;
//! `cpu_names.cpp`: the CPUs a target knows; `demangle.cpp`: LLVM's C++ demangler); and an ELF constructor that sees whether
//! standard output was closed at the start. zyg-ir's LLVM layer is no place for them: MLIR
//! is not zyg-ir's business, and the shims are built and linked with MLIR by this crate's
//! build script.

use inkwell::context::Context;
use inkwell::module::Module;
use std::ffi::{c_char, CStr, CString};
use std::path::Path;

extern "C" {
    /// `mlir/import.cpp`: takes ownership of the module.
    fn zyg_llvm_to_mlir(module: inkwell::llvm_sys::prelude::LLVMModuleRef, error: *mut *mut c_char) -> *mut c_char;
    /// `cpu_names.cpp`.
    fn zyg_cpu_known(triple: *const c_char, cpu: *const c_char, known: *mut *mut c_char) -> i32;
    /// `demangle.cpp`.
    fn zyg_demangle_itanium(name: *const c_char) -> *mut c_char;
}

/// Parses the MLIR file at `path` (its name in the locations); `None` after a parse error,
/// which MLIR reports to the context's diagnostic handler.
pub fn parse_mlir_file<'c>(context: &'c melior::Context, path: &Path) -> Option<melior::ir::Module<'c>> {
    let name = path.display().to_string();
    // SAFETY: the context is live and the name is copied by MLIR during the call; a null
    // module means a parse error, and a module made of a non-null one is owned by the
    // `Module` returned, tied to the context's lifetime.
    unsafe {
        let raw = mlir_sys::mlirModuleCreateParseFromFile(context.to_raw(), melior::StringRef::new(&name).to_raw());
        if raw.ptr.is_null() {
            return None;
        }
        Some(melior::ir::Module::from_raw(raw))
    }
}

/// Translates an MLIR module in the LLVM dialect to an LLVM module of `llvm`; `None` when
/// MLIR cannot (it reports why to the context's diagnostic handler).
pub fn translate_to_llvm<'ctx>(module: &melior::ir::Module<'_>, llvm: &'ctx Context) -> Option<Module<'ctx>> {
    // SAFETY: the module and the LLVM context are live (libMLIR and inkwell share the one
    // libLLVM, so MLIR's LLVMContext is inkwell's); the translation is a new module of that
    // context or null, owned from here on by the `Module` returned.
    unsafe {
        let translated = mlir_sys::mlirTranslateModuleToLLVMIR(module.as_operation().to_raw(), llvm.raw() as *mut _);
        if translated.is_null() {
            return None;
        }
        Some(Module::new(translated as *mut _))
    }
}

/// A string `malloc`'d by a shim, copied and freed; "" for null.
///
/// # Safety
/// `p` must be null or a NUL-terminated string from `malloc` that nothing else frees.
unsafe fn take_malloced(p: *mut c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    let text = CStr::from_ptr(p).to_string_lossy().into_owned();
    libc::free(p.cast());
    text
}

/// The module as MLIR text (LLVM dialect), by MLIR's importer; the error is MLIR's message.
pub fn llvm_to_mlir(module: &Module<'_>) -> Result<Vec<u8>, String> {
    // The importer consumes a module: give it a copy, which inkwell must not dispose of.
    let copy = module.clone();
    let raw = copy.as_mut_ptr();
    std::mem::forget(copy);
    let mut error: *mut c_char = std::ptr::null_mut();
    // SAFETY: `raw` is a module of the live context, owned by the callee from here on; the
    // strings it returns are malloc'd, copied and freed here.
    unsafe {
        let text = zyg_llvm_to_mlir(raw, &mut error);
        if text.is_null() {
            let message = take_malloced(error);
            return Err(if message.is_empty() {
                "MLIR cannot import the module".to_string()
            } else {
                message.trim_end().to_string()
            });
        }
        let bytes = CStr::from_ptr(text).to_bytes().to_vec();
        libc::free(text.cast());
        Ok(bytes)
    }
}

/// What `cpu_names.cpp` says of a CPU for a triple: `Some(true)` known, `Some(false)` not
/// (with the names it knows, one per line), `None` when there is no target for the triple.
pub fn cpu_known(triple: &CStr, cpu: &str) -> (Option<bool>, String) {
    let Ok(name) = CString::new(cpu) else { return (Some(false), String::new()) };
    let mut known = std::ptr::null_mut();
    // SAFETY: two NUL-terminated strings that outlive the call; `known` is set to null or
    // to a malloc'd string, copied and freed here.
    let (answer, list) = unsafe {
        let answer = zyg_cpu_known(triple.as_ptr(), name.as_ptr(), &mut known);
        (answer, take_malloced(known))
    };
    let answer = match answer {
        1 => Some(true),
        0 => Some(false),
        _ => None,
    };
    (answer, list)
}

/// The demangled form of an Itanium C++ name (`_ZN2ns4lossEPKdi` is `ns::loss(double
/// const*, int)`), as LLVM's demangler (llvm-cxxfilt) prints it; `None` for a name that is
/// not one (a C name).
pub fn demangle(name: &str) -> Option<String> {
    if !name.starts_with("_Z") {
        return None;
    }
    let name = CString::new(name).ok()?;
    // SAFETY: a NUL-terminated string that outlives the call; the result is null or a
    // malloc'd string, copied and freed here.
    let text = unsafe { take_malloced(zyg_demangle_itanium(name.as_ptr())) };
    (!text.is_empty()).then_some(text)
}

/// Whether standard output was closed when the process started (`zyg ... -o - >&-`).
/// Rust's runtime reopens a closed standard descriptor on `/dev/null` before `main`, after
/// which `-o -` would write into nothing and succeed; `note_closed_stdout` runs before that,
/// as an ELF constructor (what the `ctor` crate makes), and notes it.
pub fn stdout_closed_at_start() -> bool {
    STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed)
}

static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

// rustc keeps `#[used]` statics of a library in the final link (it lists them in a synthetic
// object), so the constructor runs in every binary that links this crate.
#[used]
#[link_section = ".init_array"]
static NOTE_CLOSED_STDOUT: extern "C" fn() = note_closed_stdout;

extern "C" fn note_closed_stdout() {
    // F_GETFD only asks whether descriptor 1 is open; it runs before Rust's runtime is set up,
    // so it calls the C library directly.
    // SAFETY: fcntl with F_GETFD reads the descriptor's flags and touches no memory.
    if unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } == -1 {
        STDOUT_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}
