//! Links MLIR for zyg's `.mlir` input (zyg-driver's src/mlir/) and compiles the three C++ shims.
//!
//! mlir-sys, in its shared mode (`MLIR_SYS_LINK_SHARED=1`, set in `.cargo/config.toml`),
//! links `-lMLIR` and `-lMLIR-C`. Debian's libmlir-22-dev ships the shared `libMLIR.so`
//! (MLIR's C++ libraries, over the shared `libLLVM.so` that inkwell uses too) but the C
//! API only as static archives (`libMLIRCAPI*.a`). So `libMLIR-C.so` here is a linker
//! script: the C API archives, then `libMLIR.so` for what they call. Only the archive
//! members zyg uses are linked in; the rest of MLIR stays in the shared library.
//!
//! `libMLIR.so.22.1` lives in `/usr/lib/llvm-22/lib`, not on the loader's default path. A
//! build script's `rustc-link-arg` reaches only its own crate's binaries, so zyg-driver's
//! build.rs gives the `zyg` binary its rpath; cargo puts OUT_DIR (where a link to the library
//! is made here) on the library path of build scripts and tests of crates that depend on
//! this one.
//!
//! `src/import.cpp` uses MLIR's C++ API for what the C API lacks (LLVM IR to MLIR), and
//! `src/cpu_names.cpp` LLVM's (the CPU names a target knows), `src/demangle.cpp` LLVM's
//! demangler (C++ names for `--fn`).

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/import.cpp");
    println!("cargo:rerun-if-changed=src/cpu_names.cpp");
    println!("cargo:rerun-if-changed=src/demangle.cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    let prefix = PathBuf::from(std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into()));
    let lib = prefix.join("lib");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));

    let mut archives: Vec<String> = std::fs::read_dir(&lib)
        .unwrap_or_else(|e| panic!("{}: {e} (is libmlir-22-dev installed? see ci/setup.sh)", lib.display()))
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            (name.starts_with("libMLIRCAPI") && name.ends_with(".a")).then(|| lib.join(name).display().to_string())
        })
        .collect();
    archives.sort();
    assert!(!archives.is_empty(), "no libMLIRCAPI*.a in {} (install libmlir-22-dev)", lib.display());
    let shared = lib.join("libMLIR.so");
    assert!(shared.exists(), "{} is missing (install libmlir-22-dev)", shared.display());
    let script = format!(
        "/* zyg-native/build.rs: MLIR's C API archives over the shared libMLIR.so */\nGROUP ( {} {} )\n",
        archives.join(" "),
        shared.display()
    );
    write_if_changed(&out.join("libMLIR-C.so"), &script);
    println!("cargo:rustc-link-search=native={}", out.display());

    // The loader finds libMLIR.so.22.1 through an rpath (this crate's tests; zyg-driver's
    // build.rs gives the `zyg` binary its own), and through OUT_DIR (which cargo adds to the
    // library path) for build scripts and tests of dependent crates.
    let soname = std::fs::read_dir(&lib)
        .ok()
        .and_then(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.starts_with("libMLIR.so.") && n.matches('.').count() == 3)
                .min()
        })
        .unwrap_or_else(|| "libMLIR.so.22.1".into());
    let link = out.join(&soname);
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(lib.join(&soname), &link).expect("a link to libMLIR in OUT_DIR");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());

    cc::Build::new()
        .cpp(true)
        .compiler(compiler(&prefix))
        .file("src/import.cpp")
        .file("src/cpu_names.cpp")
        .file("src/demangle.cpp")
        .include(prefix.join("include"))
        .flag("-std=c++17")
        .flag("-fno-exceptions")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .warnings(false)
        .compile("zyg_mlir_import");
}

/// LLVM's own clang++ when it is there (it reads LLVM's headers without complaint).
fn compiler(prefix: &Path) -> PathBuf {
    let clang = prefix.join("bin/clang++");
    if let Ok(cxx) = std::env::var("CXX") {
        return cxx.into();
    }
    if clang.exists() {
        clang
    } else {
        "c++".into()
    }
}

fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
