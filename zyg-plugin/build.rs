//! Compiles the plugin's C++ shim (src/plugin.cpp) against LLVM 22's headers, and gives the
//! shared library its rpath to MLIR's (zyg-native/build.rs links libMLIR.so, which clang
//! and opt do not load themselves).
//!
//! LLVM is built without RTTI; the shim's pass class instantiates LLVM's pass templates,
//! so it must be too (`-fno-rtti`), or it would need type information libLLVM.so lacks.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/plugin.cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    let prefix = std::path::PathBuf::from(std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into()));
    let clang = prefix.join("bin/clang++");
    let mut build = cc::Build::new();
    if clang.exists() {
        build.compiler(clang);
    }
    build
        .cpp(true)
        .file("src/plugin.cpp")
        .include(prefix.join("include"))
        .flag("-std=c++17")
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        .flag("-fvisibility=hidden")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .warnings(false)
        .compile("zyg_plugin_shim");
    println!("cargo:rustc-link-arg-cdylib=-Wl,-rpath,{}", prefix.join("lib").display());
}
