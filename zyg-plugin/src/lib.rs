//! `libzyg_plugin.so`: zyg as an LLVM pass plugin. clang-22 (`-fpass-plugin=`), opt-22
//! (`-load-pass-plugin=`) and lld (`--load-pass-plugin=`) load it and call
//! `llvmGetPassPluginInfo`; its C++ shim (src/plugin.cpp) registers zyg's pass, which calls
//! `zyg_plugin_fill` here with the module being compiled. The work is zyg-driver's
//! (`zyg_driver::plugin::fill`), on that module in place: the host and zyg share one LLVM,
//! the shared `libLLVM.so.22.1` both link.
//!
//! This crate is the plugin's foreign-function boundary and nothing else: the C ABI the
//! shim and LLVM call, a borrowed module handed to safe code, and errors and panics turned
//! into a message for the host's diagnostics.

use inkwell::llvm_sys::prelude::LLVMModuleRef;
use std::ffi::{c_char, c_void, CStr, CString};
use std::mem::ManuallyDrop;
use zyg_driver::plugin::{self, Stage};

/// LLVM's `PassPluginLibraryInfo` (llvm/Plugins/PassPlugin.h), API version 2 (LLVM 22).
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_builder_callbacks: Option<unsafe extern "C" fn(*mut c_void)>,
    pre_codegen_callback: Option<unsafe extern "C" fn()>,
}

/// `LLVM_PLUGIN_API_VERSION` of LLVM 22's PassPlugin.h.
const LLVM_PLUGIN_API_VERSION: u32 = 2;

unsafe extern "C" {
    /// src/plugin.cpp: registers the pass with a `llvm::PassBuilder`.
    fn zyg_register_pass_builder_callbacks(builder: *mut c_void);
}

/// The entry point LLVM's `PassPlugin::Load` looks up. Defined here rather than in the
/// shim: a Rust shared library exports only the symbols Rust defines.
#[unsafe(no_mangle)]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: LLVM_PLUGIN_API_VERSION,
        plugin_name: c"zyg".as_ptr(),
        plugin_version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast(),
        register_pass_builder_callbacks: Some(zyg_register_pass_builder_callbacks),
        pre_codegen_callback: None,
    }
}

/// Fills in the requests of `module` for `stage` (src/plugin.cpp's `Stage`) in a pipeline
/// of optimisation level `level` (0-3) with the
/// options `params` (`key=value;...`). Returns 0 (unchanged), 1 (changed) or -1 with the
/// error in `*message` (free it with `zyg_plugin_free_message`); the error has already
/// been printed as `zyg: error: ...`.
///
/// # Safety
/// `module` is a live module the caller owns for the call; `params` a NUL-terminated string;
/// `message` a writable pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zyg_plugin_fill(
    module: LLVMModuleRef,
    stage: u32,
    level: u32,
    params: *const c_char,
    message: *mut *mut c_char,
) -> i32 {
    // SAFETY: the caller passes a NUL-terminated string.
    let params = unsafe { CStr::from_ptr(params) }.to_string_lossy().into_owned();
    // SAFETY: the module is the host's, alive for this call. It is borrowed, never
    // disposed: `ManuallyDrop` keeps inkwell's `Drop` (which would dispose it) from running.
    let module = ManuallyDrop::new(unsafe { inkwell::module::Module::new(module) });
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&module, stage, level, &params)));
    let error = match outcome {
        Ok(Ok(changed)) => return i32::from(changed),
        Ok(Err(e)) => format!("zyg: error: {e}"),
        Err(_) => "zyg: internal error (a panic, reported above); please report this, with the input".to_string(),
    };
    // The whole message goes to standard error as `zyg` prints it; the host's diagnostic,
    // which fails the compile, only points at it.
    eprintln!("{error}");
    if !message.is_null() {
        let text = CString::new("zyg: no gradient was written (the `zyg: error:` above says why)").unwrap_or_default();
        // SAFETY: the caller gave a writable pointer.
        unsafe { *message = text.into_raw() };
    }
    -1
}

/// Frees a message `zyg_plugin_fill` returned.
///
/// # Safety
/// `message` is null or a pointer `zyg_plugin_fill` wrote, freed once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zyg_plugin_free_message(message: *mut c_char) {
    if !message.is_null() {
        // SAFETY: made by `CString::into_raw` above.
        drop(unsafe { CString::from_raw(message) });
    }
}

fn run(module: &inkwell::module::Module<'_>, stage: u32, level: u32, params: &str) -> Result<bool, zyg_driver::DriverError> {
    let stage = Stage::from_number(stage).expect("src/plugin.cpp passes a known stage");
    let params = plugin::parse_params(params)?;
    start_logging(params.verbose);
    plugin::fill(module, stage, level, &params)
}

/// zyg's log (warnings, and `-zyg-verbose`'s detail) on standard error, set up once per
/// process; `ZYG_LOG` chooses as it does for `zyg`.
fn start_logging(verbose: u32) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let level = match verbose {
            0 => "warn",
            1 => "info",
            _ => "debug",
        };
        let filter = tracing_subscriber::EnvFilter::try_from_env("ZYG_LOG").unwrap_or_else(|_| level.into());
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .without_time()
            .with_target(false)
            .with_ansi(false)
            .try_init();
    });
}
