//! Builds the benchmarks' C code: each translation unit of `src/` (one per family of cases;
//! the `modes` family has two, `modes.c` and `hvp.c`, and the `memory` family three, `det.c`,
//! `tree.c` and `ode.c`) is
//! compiled by clang to LLVM IR, differentiated by zyg (as a library, so no prebuilt binary is
//! needed: `zyg grad` at its default -O2), compiled to an object, and archived with
//! `src/heap.c` into one static library.
//!
//! In each zyg-produced object, malloc/calloc/realloc/free are renamed (llvm-objcopy
//! --redefine-sym) to the counting wrappers of `src/heap.c`, which measure the peak heap use
//! of one call (the "tape bytes" of bench/RESULTS.md).
//!
//! When zyg fails on a translation unit, the build goes on: that unit is compiled again
//! without zyg, with its requests stubbed out (ZYG_BENCH_NO_ZYG, see `src/bench.h`), and the
//! error is recorded in `$OUT_DIR/zyg_errors.txt` (read by `src/lib.rs`), so the bench
//! reports it and leaves zyg's column empty rather than failing to build.
//!
//! Environment: ZYG_CLANG (default clang-22), ZYG_OBJCOPY (default llvm-objcopy-22, then
//! llvm-objcopy), ZYG_BENCH_CFLAGS (extra flags for every clang call, e.g. -march=native).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The translation units, one per family of cases (two for `modes`, three for `memory`).
const UNITS: &[&str] = &["gmm", "ba", "lstm", "hand", "scalar", "modes", "hvp", "det", "tree", "ode", "ode_budget", "omp"];
/// Units compiled with OpenMP (clang's -fopenmp; the bench links Debian's libomp).
const OPENMP: &[&str] = &["omp"];
/// Units differentiated under `zyg grad --tape-budget` (bytes).
const BUDGETS: &[(&str, u64)] = &[("ode_budget", 1 << 20)];
/// The allocation functions counted by src/heap.c.
const ALLOCATORS: &[&str] = &["malloc", "calloc", "realloc", "free"];

fn run(cmd: &mut Command) {
    let status = cmd.status().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(status.success(), "{cmd:?} failed");
}

fn works(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

fn objcopy() -> String {
    if let Ok(t) = std::env::var("ZYG_OBJCOPY") {
        return t;
    }
    ["llvm-objcopy-22", "/usr/lib/llvm-22/bin/llvm-objcopy", "llvm-objcopy", "objcopy"]
        .into_iter()
        .find(|t| works(t))
        .unwrap_or("llvm-objcopy")
        .to_string()
}

/// `zyg grad input -o output` through the library; panics inside zyg are errors too.
fn zyg_grad(input: &Path, output: &Path, tape_budget: Option<u64>) -> Result<(), String> {
    let opts = zyg_driver::GradOptions {
        input: input.to_path_buf(),
        output: output.to_path_buf(),
        opt_level: 2,
        text: true,
        function: None,
        args: None,
        export_name: None,
        header: None,
        forward: false,
        width: 1,
        tape_budget,
    };
    match std::panic::catch_unwind(|| zyg_driver::grad(std::slice::from_ref(&opts))) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(format!("{e:#}")),
        Err(panic) => Err(format!(
            "zyg panicked: {}",
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        )),
    }
}

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let clang = std::env::var("ZYG_CLANG").unwrap_or_else(|_| "clang-22".into());
    let cflags: Vec<String> =
        std::env::var("ZYG_BENCH_CFLAGS").unwrap_or_default().split_whitespace().map(String::from).collect();
    let objcopy = objcopy();
    for var in ["ZYG_CLANG", "ZYG_OBJCOPY", "ZYG_BENCH_CFLAGS"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    for dir in ["src", "adbench"] {
        for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
            let path = entry.path();
            if matches!(path.extension().and_then(|e| e.to_str()), Some("c" | "h")) {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }

    let mut objects = Vec::new();
    let mut errors = String::new();
    for unit in UNITS {
        let src = PathBuf::from(format!("src/{unit}.c"));
        let ll = out.join(format!("{unit}.ll"));
        let grad = out.join(format!("{unit}.grad.ll"));
        let obj = out.join(format!("{unit}.o"));
        let openmp: &[&str] = if OPENMP.contains(unit) { &["-fopenmp"] } else { &[] };
        run(Command::new(&clang).args(["-O2", "-S", "-emit-llvm"]).args(openmp).args(&cflags).arg("-o").arg(&ll).arg(&src));
        let budget = BUDGETS.iter().find(|(u, _)| u == unit).map(|(_, b)| *b);
        match zyg_grad(&ll, &grad, budget) {
            Ok(()) => run(Command::new(&clang).args(["-O2", "-fPIC", "-c"]).args(&cflags).arg("-o").arg(&obj).arg(&grad)),
            Err(e) => {
                let line = e.replace(['\n', '\t'], " ");
                println!("cargo:warning=zyg grad failed on {}: {line}", src.display());
                errors.push_str(&format!("{unit}\t{line}\n"));
                run(Command::new(&clang)
                    .args(["-O2", "-fPIC", "-c", "-DZYG_BENCH_NO_ZYG"])
                    .args(openmp)
                    .args(&cflags)
                    .arg("-o")
                    .arg(&obj)
                    .arg(&src));
            }
        }
        let mut rename = Command::new(&objcopy);
        for a in ALLOCATORS {
            rename.arg(format!("--redefine-sym={a}=zb_{a}"));
        }
        run(rename.arg(&obj));
        objects.push(obj);
    }
    let heap = out.join("heap.o");
    run(Command::new(&clang).args(["-O2", "-fPIC", "-c"]).args(&cflags).arg("-o").arg(&heap).arg("src/heap.c"));
    objects.push(heap);
    std::fs::write(out.join("zyg_errors.txt"), errors).expect("write zyg_errors.txt");

    let lib = out.join("libzygbench.a");
    let _ = std::fs::remove_file(&lib);
    run(Command::new("ar").arg("crs").arg(&lib).args(&objects));
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=zygbench");
    println!("cargo:rustc-link-lib=m");
    // The OpenMP units' runtime (libomp-22-dev: the library is LLVM's, found at run time as
    // libomp.so.5 in the system's library directory).
    println!("cargo:rustc-link-search=native=/usr/lib/llvm-22/lib");
    println!("cargo:rustc-link-lib=omp");
}
