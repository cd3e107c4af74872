//! Tests that need no GPU and no driver: errors instead of panics, reading PTX, checking
//! launch arguments against it, and the checked-in PTX against ptxas and the current zyg.

mod common;

use zyg_runtime::{ptx, ArgKind, Error, Gpu};

#[test]
fn no_driver_or_device_is_an_error_not_a_panic() {
    if !zyg_runtime::driver_available() {
        let err = Gpu::new(0).unwrap_err();
        assert!(matches!(err, Error::NoDriver), "{err:?}");
        assert!(err.to_string().starts_with("no CUDA driver"), "{err}");
        assert_eq!(Gpu::count(), 0);
    }
    // With or without a driver, an ordinal past the last GPU is an error.
    let err = Gpu::new(4096).unwrap_err();
    assert!(matches!(err, Error::NoDriver | Error::NoDevice { .. }), "{err:?}");
}

#[test]
fn reads_the_kernels_of_zygs_ptx() {
    let text = common::checked_in_ptx();
    ptx::validate(&text).unwrap();
    assert_eq!(ptx::target(&text), Some((7, 0)));
    let entries = ptx::entries(&text).unwrap();
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    for k in ["saxpy_sin", "stencil", "horner", "saxpy_sin_grad", "stencil_grad", "horner_grad", "dynsum", "dynsum_grad"] {
        assert!(names.contains(&k), "{k} missing from {names:?}");
    }
    // saxpy_sin_grad(float a, x, dx, y, dy, int n, float *da): each dup pointer followed by
    // its shadow, then one pointer per `out` scalar.
    let grad = entries.iter().find(|e| e.name == "saxpy_sin_grad").unwrap();
    let sig: Vec<String> = grad.params.iter().map(|p| p.to_string()).collect();
    assert_eq!(sig, [".f32", ".u64 .ptr", ".u64 .ptr", ".u64 .ptr", ".u64 .ptr", ".u32", ".u64 .ptr"]);
    use ArgKind::*;
    grad.check_args(&[F32, Pointer, Pointer, Pointer, Pointer, Int(4), Pointer]).unwrap();
    let horner = entries.iter().find(|e| e.name == "horner_grad").unwrap();
    horner.check_args(&[Pointer, Pointer, Int(4), Pointer, Pointer, Pointer, Pointer, Int(4)]).unwrap();
}

#[test]
fn launch_arguments_are_checked_against_the_signature() {
    let text = common::checked_in_ptx();
    let entries = ptx::entries(&text).unwrap();
    let grad = entries.iter().find(|e| e.name == "saxpy_sin_grad").unwrap();
    use ArgKind::*;
    let err = grad.check_args(&[F32, Pointer, Pointer, Pointer, Pointer, Int(4)]).unwrap_err();
    assert_eq!(err.to_string(), "kernel `saxpy_sin_grad` takes 7 arguments, 6 given");
    let err = grad.check_args(&[F64, Pointer, Pointer, Pointer, Pointer, Int(4), Pointer]).unwrap_err();
    assert_eq!(err.to_string(), "kernel `saxpy_sin_grad`: argument 0 is an f64, but the parameter is `.f32`");
    let err = grad.check_args(&[F32, Pointer, Pointer, Pointer, Pointer, Int(8), Pointer]).unwrap_err();
    assert!(matches!(err, Error::ArgType { index: 5, .. }), "{err}");
    let err = grad.check_args(&[F32, Int(8), Pointer, Pointer, Pointer, Int(4), Pointer]).unwrap_err();
    assert!(matches!(err, Error::ArgType { index: 1, .. }), "{err}");
    let err = grad.check_args(&[F32, Pointer, Pointer, Pointer, Pointer, Pointer, Pointer]).unwrap_err();
    assert!(matches!(err, Error::ArgType { index: 5, .. }), "{err}");
}

#[test]
fn checked_in_ptx_assembles() {
    let Some(ptxas) = common::ptxas() else {
        println!("skipped: no ptxas (ci/setup.sh installs nvidia-cuda-nvcc-cu12)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("kernels.ptx");
    std::fs::write(&src, common::checked_in_ptx()).unwrap();
    for arch in ["sm_70", "sm_90"] {
        let out = std::process::Command::new(&ptxas)
            .arg(format!("-arch={arch}"))
            .arg(&src)
            .arg("-o")
            .arg(dir.path().join(format!("{arch}.cubin")))
            .output()
            .unwrap();
        assert!(out.status.success(), "ptxas -arch={arch}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// The checked-in PTX must keep the kernel signatures the current zyg produces (the
/// gradient calling convention); regenerate it with tests/kernels/build.sh when this fails.
#[test]
fn checked_in_ptx_matches_current_zyg() {
    let dir = tempfile::tempdir().unwrap();
    let Some(fresh) = common::fresh_ptx(dir.path()) else {
        println!("skipped: no zyg binary (cargo build --release) or clang-22");
        return;
    };
    let fresh = ptx::entries(&fresh).unwrap();
    let checked_in = ptx::entries(&common::checked_in_ptx()).unwrap();
    assert_eq!(fresh, checked_in, "regenerate with: bash zyg-runtime/tests/kernels/build.sh zyg-runtime/tests/data");
}
