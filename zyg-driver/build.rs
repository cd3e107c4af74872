//! The `zyg` binary's rpath to MLIR's and LLVM's shared libraries.
//!
//! zyg-native's build script links MLIR (see there), but a build script's `rustc-link-arg`
//! reaches only its own crate's binaries: this crate's must name the directory itself.
//! `libMLIR.so.22.1` is not on the loader's default path.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rustc-link-arg=-Wl,-rpath,{prefix}/lib");
}
