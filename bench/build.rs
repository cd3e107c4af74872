//! Differentiates `src/kernels.c` with zyg (as a library, so no prebuilt binary is needed)
//! and links the result as a static library.

use std::path::PathBuf;
use std::process::Command;

fn run(cmd: &mut Command) {
    let status = cmd.status().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(status.success(), "{cmd:?} failed");
}

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let clang = std::env::var("ZYG_CLANG").unwrap_or_else(|_| "clang-22".into());
    let src = PathBuf::from("src/kernels.c");
    println!("cargo:rerun-if-changed={}", src.display());
    let ll = out.join("kernels.ll");
    run(Command::new(&clang).args(["-O2", "-S", "-emit-llvm", "-o"]).arg(&ll).arg(&src));
    let grad = out.join("kernels.grad.ll");
    zyg_driver::grad(&zyg_driver::GradOptions {
        input: ll,
        output: grad.clone(),
        opt_level: 2,
        text: true,
        function: None,
        args: None,
        export_name: None,
        header: None,
    })
    .unwrap_or_else(|e| panic!("zyg grad failed: {e}"));
    let obj = out.join("kernels.o");
    run(Command::new(&clang).args(["-O2", "-fPIC", "-c", "-o"]).arg(&obj).arg(&grad));
    let lib = out.join("libzygkernels.a");
    let _ = std::fs::remove_file(&lib);
    run(Command::new("ar").arg("crs").arg(&lib).arg(&obj));
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=zygkernels");
    println!("cargo:rustc-link-lib=m");
}
