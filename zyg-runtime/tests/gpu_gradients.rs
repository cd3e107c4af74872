//! Runs zyg's gradient kernels (tests/kernels/kernels.c, differentiated by `zyg grad --fn`,
//! lowered by `zyg compile --target nvptx64`) on a GPU and checks them against gradients
//! computed on the CPU in double precision, and against finite differences of the primal
//! kernel run on the GPU. Without a GPU (or a driver) the test says it skipped, and passes.

mod common;

use zyg_runtime::{DeviceBuffer, Gpu, Kernel, Module};

const N: usize = 4096;
const BLOCK: u32 = 256;
const GRID: u32 = (N as u32).div_ceil(BLOCK);

fn gpu_or_skip() -> Option<Gpu> {
    match Gpu::new(0) {
        Ok(gpu) => {
            let name = gpu.name().unwrap_or_default();
            let (major, minor) = gpu.compute_capability().unwrap();
            println!("GPU 0: {name} (sm_{major}{minor})");
            Some(gpu)
        }
        Err(e) => {
            println!("skipped: {e}");
            None
        }
    }
}

/// The module: freshly built by the current zyg where possible, else the checked-in PTX.
fn module(gpu: &Gpu) -> Module {
    let dir = tempfile::tempdir().unwrap();
    let text = match common::fresh_ptx(dir.path()) {
        Some(text) => {
            println!("PTX: built now by {}", common::zyg().unwrap().display());
            text
        }
        None => {
            println!("PTX: tests/data/kernels.ptx (checked in)");
            common::checked_in_ptx()
        }
    };
    let module = gpu.load_ptx(&text).unwrap();
    println!("kernels: {:?}", module.kernel_names());
    module
}

/// `|got - want| <= rtol * scale + atol`, where `scale` is the size of the terms summed
/// (at least |want|): sums with cancellation are judged by what was summed.
#[track_caller]
fn check(label: &str, got: f32, want: f64, scale: f64, rtol: f64, atol: f64) {
    let err = (got as f64 - want).abs();
    let bound = rtol * scale.max(want.abs()) + atol;
    assert!(err <= bound && got.is_finite(), "{label}: got {got}, want {want} (error {err:e} > {bound:e})");
}

fn weights() -> Vec<f32> {
    (0..N).map(|i| 1.0 + 0.1 * (i % 5) as f32).collect()
}

/// Deterministic values in [lo, hi).
fn spread(lo: f32, hi: f32, salt: usize) -> Vec<f32> {
    (0..N)
        .map(|i| {
            let u = ((i * 2654435761 + salt * 40503) % 65536) as f32 / 65536.0;
            lo + (hi - lo) * u
        })
        .collect()
}

fn dot(w: &[f32], y: &[f32]) -> f64 {
    w.iter().zip(y).map(|(&w, &y)| w as f64 * y as f64).sum()
}

/// Launches a gradient kernel `(x, dx, y, dy, n)` over GRID x BLOCK with dx zeroed and
/// returns (dx, dy, y) as the kernel left them.
fn launch_x_y_gradient(gpu: &Gpu, grad: &Kernel, x: &[f32], y0: &[f32], dy0: &[f32]) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let n = N as i32;
    let x_d = DeviceBuffer::from_slice(gpu, x).unwrap();
    let dx_d = DeviceBuffer::<f32>::zeros(gpu, N).unwrap();
    let y_d = DeviceBuffer::from_slice(gpu, y0).unwrap();
    let dy_d = DeviceBuffer::from_slice(gpu, dy0).unwrap();
    unsafe { gpu.launch(grad, GRID, BLOCK, &[&x_d, &dx_d, &y_d, &dy_d, &n]).unwrap() };
    (dx_d.to_vec().unwrap(), dy_d.to_vec().unwrap(), y_d.to_vec().unwrap())
}

#[test]
fn saxpy_sin_gradient_on_gpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let module = module(&gpu);
    let primal = module.kernel("saxpy_sin").unwrap();
    let grad = module.kernel("saxpy_sin_grad").unwrap();
    let a = 0.7f32;
    let (x, y, w) = (spread(-1.5, 1.5, 1), spread(0.2, 1.2, 2), weights());
    let n = N as i32;

    // Loss: sum_i w_i y_i after the kernel. The gradient's seed is dy = w.
    let dx_d = DeviceBuffer::<f32>::zeros(&gpu, N).unwrap();
    let dy_d = DeviceBuffer::from_slice(&gpu, &w).unwrap();
    let da_d = DeviceBuffer::<f32>::zeros(&gpu, 1).unwrap();
    let x_d = DeviceBuffer::from_slice(&gpu, &x).unwrap();
    let y_d = DeviceBuffer::from_slice(&gpu, &y).unwrap();
    unsafe { gpu.launch(&grad, GRID, BLOCK, &[&a, &x_d, &dx_d, &y_d, &dy_d, &n, &da_d]).unwrap() };
    let (dx, dy, da, y_out) = (dx_d.to_vec().unwrap(), dy_d.to_vec().unwrap(), da_d.to_vec().unwrap()[0], y_d.to_vec().unwrap());

    let mut da_want = 0.0;
    let mut da_scale = 0.0;
    for i in 0..N {
        let (xi, yi, wi) = (x[i] as f64, y[i] as f64, w[i] as f64);
        check("y (primal inside the gradient)", y_out[i], a as f64 * xi.sin() + yi * (0.5 * xi).exp(), 1.0, 1e-5, 1e-6);
        check(&format!("dx[{i}]"), dx[i], wi * (a as f64 * xi.cos() + 0.5 * yi * (0.5 * xi).exp()), 1.0, 1e-5, 1e-6);
        check(&format!("dy[{i}]"), dy[i], wi * (0.5 * xi).exp(), 1.0, 1e-5, 1e-6);
        da_want += wi * xi.sin();
        da_scale += (wi * xi.sin()).abs();
    }
    check("da (atomic sum over threads)", da, da_want, da_scale, 1e-5, 0.0);

    // Central differences of the loss, with the primal kernel on the GPU.
    let loss = |a: f32, x: &[f32]| -> f64 {
        let x_d = DeviceBuffer::from_slice(&gpu, x).unwrap();
        let y_d = DeviceBuffer::from_slice(&gpu, &y).unwrap();
        unsafe { gpu.launch(&primal, GRID, BLOCK, &[&a, &x_d, &y_d, &n]).unwrap() };
        dot(&w, &y_d.to_vec().unwrap())
    };
    let h = 1e-2f32;
    let fd = (loss(a + h, &x) - loss(a - h, &x)) / (2.0 * h as f64);
    check("da vs finite differences", da, fd, da_scale, 1e-3, 0.0);
    for k in [0, 1, 1000, 2047, N - 1] {
        let (mut up, mut down) = (x.clone(), x.clone());
        up[k] += h;
        down[k] -= h;
        let fd = (loss(a, &up) - loss(a, &down)) / (up[k] as f64 - down[k] as f64);
        check(&format!("dx[{k}] vs finite differences"), dx[k], fd, 1.0, 2e-3, 1e-3);
    }
}

#[test]
fn stencil_gradient_on_gpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let module = module(&gpu);
    let grad = module.kernel("stencil_grad").unwrap();
    let (x, w) = (spread(-0.6, 0.9, 3), weights());
    let y0 = vec![0.5f32; N];
    let (dx, dy, y) = launch_x_y_gradient(&gpu, &grad, &x, &y0, &w);

    let u = |i: usize| 0.25 * x[i - 1] as f64 + 0.5 * (x[i] as f64).powi(2) + 0.25 * x[i + 1] as f64;
    let mut want = vec![0.0f64; N];
    for i in 1..N - 1 {
        let g = w[i] as f64 * (1.0 - u(i).tanh().powi(2));
        want[i - 1] += 0.25 * g;
        want[i] += x[i] as f64 * g;
        want[i + 1] += 0.25 * g;
        check("y (primal inside the gradient)", y[i], u(i).tanh(), 1.0, 1e-5, 1e-6);
        check(&format!("dy[{i}] (consumed)"), dy[i], 0.0, 1.0, 0.0, 0.0);
    }
    for (i, &want) in want.iter().enumerate() {
        check(&format!("dx[{i}] (atomic adds from 3 threads)"), dx[i], want, 1.0, 1e-5, 1e-6);
    }
    // Threads 0 and N-1 write nothing: their y and seeds are left alone.
    for i in [0, N - 1] {
        assert_eq!((y[i], dy[i]), (y0[i], w[i]), "boundary {i}");
    }
}

#[test]
fn horner_gradient_on_gpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let module = module(&gpu);
    let grad = module.kernel("horner_grad").unwrap();
    const DEG: usize = 5;
    let c = [0.5f32, -0.3, 0.2, 0.1, -0.05, 0.02];
    let (t, w) = (spread(-1.0, 1.0, 4), weights());
    let c_d = DeviceBuffer::from_slice(&gpu, &c).unwrap();
    let dc_d = DeviceBuffer::<f32>::zeros(&gpu, DEG + 1).unwrap();
    let t_d = DeviceBuffer::from_slice(&gpu, &t).unwrap();
    let dt_d = DeviceBuffer::<f32>::zeros(&gpu, N).unwrap();
    let p_d = DeviceBuffer::<f32>::zeros(&gpu, N).unwrap();
    let dp_d = DeviceBuffer::from_slice(&gpu, &w).unwrap();
    let (deg, n) = (DEG as i32, N as i32);
    unsafe { gpu.launch(&grad, GRID, BLOCK, &[&c_d, &dc_d, &deg, &t_d, &dt_d, &p_d, &dp_d, &n]).unwrap() };
    let (dc, dt, p) = (dc_d.to_vec().unwrap(), dt_d.to_vec().unwrap(), p_d.to_vec().unwrap());

    let mut dc_want = [0.0f64; DEG + 1];
    let mut dc_scale = [0.0f64; DEG + 1];
    for i in 0..N {
        let (ti, wi) = (t[i] as f64, w[i] as f64);
        let value: f64 = (0..=DEG).map(|k| c[k] as f64 * ti.powi(k as i32)).sum();
        let slope: f64 = (1..=DEG).map(|k| k as f64 * c[k] as f64 * ti.powi(k as i32 - 1)).sum();
        check("p (primal inside the gradient)", p[i], value, 1.0, 1e-5, 1e-6);
        check(&format!("dt[{i}]"), dt[i], wi * slope, 1.0, 1e-5, 1e-6);
        for k in 0..=DEG {
            dc_want[k] += wi * ti.powi(k as i32);
            dc_scale[k] += (wi * ti.powi(k as i32)).abs();
        }
    }
    for k in 0..=DEG {
        check(&format!("dc[{k}] (atomic sum over threads)"), dc[k], dc_want[k], dc_scale[k], 1e-5, 0.0);
    }
}

#[test]
fn blocksum_gradient_on_gpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let module = module(&gpu);
    let grad = module.kernel("blocksum_grad").unwrap();
    let x = spread(-0.6, 0.9, 5);
    let blocks = GRID as usize;
    // One seed per block's sum; y starts as garbage the kernel overwrites.
    let seed: Vec<f32> = (0..blocks).map(|b| 1.0 + 0.25 * (b % 4) as f32).collect();
    let (dx, dy, y) = launch_x_y_gradient(&gpu, &grad, &x, &vec![f32::NAN; blocks], &seed);
    for b in 0..blocks {
        let squares = x[b * BLOCK as usize..((b + 1) * BLOCK as usize).min(N)].iter().map(|&v| v as f64 * v as f64);
        let sum: f64 = squares.sum();
        check(&format!("y[{b}] (the block's sum)"), y[b], sum, sum, 1e-5, 1e-6);
        check(&format!("dy[{b}] (consumed)"), dy[b], 0.0, 1.0, 0.0, 0.0);
    }
    for i in 0..N {
        let want = 2.0 * x[i] as f64 * seed[i / BLOCK as usize] as f64;
        check(&format!("dx[{i}] (through the shared shadow)"), dx[i], want, 1.0, 1e-5, 1e-6);
    }
}

#[test]
fn dynamic_shared_gradient_on_gpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let module = module(&gpu);
    let (primal, grad) = (module.kernel("dynsum").unwrap(), module.kernel("dynsum_grad").unwrap());
    let x = spread(-0.8, 0.7, 6);
    let blocks = GRID as usize;
    let seed: Vec<f32> = (0..blocks).map(|b| 0.5 + 0.125 * (b % 8) as f32).collect();
    let n = N as i32;
    let bytes = BLOCK * 4; // a float per thread: a multiple of 16
                           // The primal with its own bytes.
    let x_d = DeviceBuffer::from_slice(&gpu, &x).unwrap();
    let mut y_d = DeviceBuffer::<f32>::zeros(&gpu, blocks).unwrap();
    unsafe { gpu.launch_with_shared(&primal, GRID, BLOCK, bytes, &[&x_d, &y_d, &n]).unwrap() };
    let y = y_d.to_vec().unwrap();
    // The gradient with twice as many (its shadow is the second half).
    let dx_d = DeviceBuffer::<f32>::zeros(&gpu, N).unwrap();
    y_d.copy_from(&vec![f32::NAN; blocks]).unwrap();
    let dy_d = DeviceBuffer::from_slice(&gpu, &seed).unwrap();
    unsafe { gpu.launch_with_shared(&grad, GRID, BLOCK, 2 * bytes, &[&x_d, &dx_d, &y_d, &dy_d, &n]).unwrap() };
    let (dx, y_again) = (dx_d.to_vec().unwrap(), y_d.to_vec().unwrap());
    for b in 0..blocks {
        let sum: f64 = x[b * BLOCK as usize..((b + 1) * BLOCK as usize).min(N)].iter().map(|&v| v as f64 * v as f64).sum();
        check(&format!("y[{b}] (primal)"), y[b], sum, sum, 1e-5, 1e-6);
        check(&format!("y[{b}] (gradient's primal)"), y_again[b], sum, sum, 1e-5, 1e-6);
    }
    for i in 0..N {
        let want = 2.0 * x[i] as f64 * seed[i / BLOCK as usize] as f64;
        check(&format!("dx[{i}] (through the dynamic shared shadow)"), dx[i], want, 1.0, 1e-5, 1e-6);
    }
}
