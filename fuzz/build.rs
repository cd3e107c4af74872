//! The fuzz targets link zyg-driver, and with it the shared libMLIR.so.22.1, which lives
//! in LLVM's own directory: an rpath to it, as zyg-driver/build.rs gives zyg's binaries.
fn main() {
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{prefix}/lib");
}
