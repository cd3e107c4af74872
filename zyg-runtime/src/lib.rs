//! zyg-runtime: loading PTX and launching kernels, such as the gradient kernels
//! `zyg grad --fn KERNEL` makes, from Rust through the CUDA driver API.
//!
//! CPU gradients need nothing from here: their tapes are emitted inline in the IR and use
//! only libc. On the GPU, `zyg compile --target nvptx64 --gpu sm_XX` writes PTX; this crate
//! loads it into a context, copies data to and from the device, and launches its kernels.
//!
//! The driver (`libcuda.so`) is loaded when [`Gpu::new`] first runs, not linked: the crate
//! builds, and its users run, on machines with no CUDA at all, where [`Gpu::new`] returns
//! [`Error::NoDriver`] (or [`Error::NoDevice`] with a driver but no GPU).
//!
//! ```no_run
//! use zyg_runtime::{DeviceBuffer, Gpu};
//! # fn main() -> zyg_runtime::Result<()> {
//! let gpu = Gpu::new(0)?;
//! let module = gpu.load_ptx(&std::fs::read_to_string("saxpy.grad.ptx").unwrap())?;
//! let grad = module.kernel("saxpy_grad")?;
//! let n = 1000;
//! let x = DeviceBuffer::from_slice(&gpu, &vec![1.0f32; n])?;
//! let dx = DeviceBuffer::<f32>::zeros(&gpu, n)?;
//! let y = DeviceBuffer::from_slice(&gpu, &vec![0.0f32; n])?;
//! let dy = DeviceBuffer::from_slice(&gpu, &vec![1.0f32; n])?;  // the seed
//! let da = DeviceBuffer::<f32>::zeros(&gpu, 1)?;
//! // saxpy_grad(a, x, dx, y, dy, n, &da): `dup` pointers with their shadows, then the `out` scalar
//! unsafe { gpu.launch(&grad, (n as u32).div_ceil(256), 256, &[&2.0f32, &x, &dx, &y, &dy, &(n as i32), &da])? };
//! println!("d/da = {}", da.to_vec()?[0]);
//! # Ok(())
//! # }
//! ```

pub mod ptx;

use cudarc::driver::{self as cu, sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DriverError};
use std::fmt;
use std::sync::Arc;

pub use ptx::{Entry, Param};

/// What can go wrong; the driver's own errors carry its name and text for the code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `libcuda.so` could not be loaded: no NVIDIA driver on this machine.
    #[error("no CUDA driver: libcuda.so could not be loaded")]
    NoDriver,
    /// The driver is there, but there is no GPU with this ordinal.
    #[error("no CUDA device {ordinal}: {reason}")]
    NoDevice { ordinal: usize, reason: String },
    /// A driver call failed.
    #[error("CUDA driver: {what}: {}", describe(.source))]
    Driver { what: &'static str, source: DriverError },
    /// The text handed to [`Gpu::load_ptx`] is not PTX this crate can read.
    #[error("PTX: {0}")]
    Ptx(String),
    /// The PTX was compiled for a newer GPU than this one.
    #[error("the PTX targets sm_{}{}, but device {ordinal} is sm_{}{}", .ptx.0, .ptx.1, .device.0, .device.1)]
    Arch { ordinal: usize, ptx: (u32, u32), device: (u32, u32) },
    /// [`Module::kernel`] was asked for a kernel the module does not define.
    #[error("the module has no kernel `{name}`; it has: {available}")]
    NoKernel { name: String, available: String },
    /// A launch with the wrong number of arguments.
    #[error("kernel `{kernel}` takes {expected} arguments, {given} given")]
    ArgCount { kernel: String, expected: usize, given: usize },
    /// A launch argument that does not fit the kernel's parameter.
    #[error("kernel `{kernel}`: argument {index} is {given}, but the parameter is `{param}`")]
    ArgType { kernel: String, index: usize, param: String, given: ArgKind },
    /// A copy between buffers of different lengths.
    #[error("length mismatch: the device buffer has {device} elements, the host slice {host}")]
    Length { device: usize, host: usize },
}

fn describe(e: &DriverError) -> String {
    match (e.error_name(), e.error_string()) {
        (Ok(name), Ok(text)) => format!("{} ({})", name.to_string_lossy(), text.to_string_lossy()),
        _ => format!("{:?}", e.0),
    }
}

pub type Result<T> = std::result::Result<T, Error>;

fn driver(what: &'static str) -> impl FnOnce(DriverError) -> Error {
    move |source| Error::Driver { what, source }
}

/// Whether the CUDA driver library can be loaded on this machine (it says nothing about GPUs).
pub fn driver_available() -> bool {
    // SAFETY: loads and unloads the library with libloading; no symbol is called.
    unsafe { sys::is_culib_present() }
}

/// A context on one GPU (the device's primary context) and the stream work goes to.
///
/// Everything is issued on one stream, in order; copies back to the host wait for the work
/// before them, so a launch followed by [`DeviceBuffer::to_vec`] reads the kernel's results.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gpu").field("ordinal", &self.ctx.ordinal()).finish()
    }
}

impl Gpu {
    /// Opens GPU `ordinal` (0 for the first). Returns [`Error::NoDriver`] where there is no
    /// driver library and [`Error::NoDevice`] where the driver finds no such GPU; never panics
    /// for either.
    pub fn new(ordinal: usize) -> Result<Gpu> {
        if !driver_available() {
            return Err(Error::NoDriver);
        }
        let no_device = |e: DriverError| {
            use sys::cudaError_enum as E;
            match e.0 {
                E::CUDA_ERROR_NO_DEVICE | E::CUDA_ERROR_INVALID_DEVICE | E::CUDA_ERROR_STUB_LIBRARY => {
                    Error::NoDevice { ordinal, reason: describe(&e) }
                }
                _ => Error::Driver { what: "opening the device", source: e },
            }
        };
        cu::result::init().map_err(no_device)?;
        let count = CudaContext::device_count().map_err(no_device)?;
        if ordinal >= count.max(0) as usize {
            return Err(Error::NoDevice { ordinal, reason: format!("{count} device(s) present") });
        }
        let ctx = CudaContext::new(ordinal).map_err(no_device)?;
        // SAFETY: all work goes to one stream, in order, so cudarc's events that order
        // work across streams are not needed; buffers are made after this.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.default_stream();
        Ok(Gpu { ctx, stream })
    }

    /// The number of GPUs the driver sees (0 without a driver).
    pub fn count() -> usize {
        if !driver_available() || cu::result::init().is_err() {
            return 0;
        }
        CudaContext::device_count().map_or(0, |n| n.max(0) as usize)
    }

    /// The device's name, as `nvidia-smi` shows it.
    pub fn name(&self) -> Result<String> {
        self.ctx.name().map_err(driver("reading the device name"))
    }

    /// The device's compute capability: `(7, 0)` for sm_70.
    pub fn compute_capability(&self) -> Result<(u32, u32)> {
        let (major, minor) = self.ctx.compute_capability().map_err(driver("reading the compute capability"))?;
        Ok((major as u32, minor as u32))
    }

    /// Loads a PTX module (the driver compiles it for this GPU). The text is checked first:
    /// it must be PTX, and its `.target` no newer than the device.
    pub fn load_ptx(&self, ptx: &str) -> Result<Module> {
        ptx::validate(ptx)?;
        let entries = ptx::entries(ptx)?;
        if let Some(target) = ptx::target(ptx) {
            let device = self.compute_capability()?;
            if target > device {
                return Err(Error::Arch { ordinal: self.ctx.ordinal(), ptx: target, device });
            }
        }
        let inner = self
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .map_err(driver("loading the PTX module (cuModuleLoadData)"))?;
        Ok(Module { inner, entries })
    }

    /// Launches `kernel` on a grid of `grid` blocks of `block` threads (each a count, or a
    /// 2- or 3-tuple), with `args` in the kernel's parameter order: [`DeviceBuffer`]s for
    /// pointers, and `f32`, `f64`, `i32`, `u32`, `i64`, `u64` for scalars. The arguments are
    /// checked against the kernel's PTX signature (count, and kind and size of each), and the
    /// launch is queued on the stream; read results with [`DeviceBuffer::to_vec`].
    ///
    /// # Safety
    ///
    /// The kernel runs with these arguments: it must stay within the buffers (the sizes it
    /// is given must match them), and the buffers it writes must not be read by other work
    /// at the same time.
    pub unsafe fn launch(
        &self,
        kernel: &Kernel,
        grid: impl Into<Dim3>,
        block: impl Into<Dim3>,
        args: &[&dyn KernelArg],
    ) -> Result<()> {
        // SAFETY: this function's contract.
        unsafe { self.launch_with_shared(kernel, grid, block, 0, args) }
    }

    /// [`Gpu::launch`], with `shared_bytes` bytes of dynamic shared memory per block (the
    /// size of a kernel's `extern __shared__` array). A gradient (or tangent) kernel zyg
    /// made of a kernel that uses dynamic shared memory keeps its shadow in a second half:
    /// launch it with twice the primal's bytes, N a multiple of 16 (`zyg grad --header`
    /// states it; the kernel traps otherwise).
    ///
    /// # Safety
    ///
    /// As for [`Gpu::launch`]; and the kernel must not index its dynamic shared memory
    /// beyond `shared_bytes`.
    pub unsafe fn launch_with_shared(
        &self,
        kernel: &Kernel,
        grid: impl Into<Dim3>,
        block: impl Into<Dim3>,
        shared_bytes: u32,
        args: &[&dyn KernelArg],
    ) -> Result<()> {
        let kinds: Vec<ArgKind> = args.iter().map(|a| a.kind()).collect();
        kernel.entry.check_args(&kinds)?;
        let (grid, block) = (grid.into(), block.into());
        let cfg = cu::LaunchConfig {
            grid_dim: (grid.0, grid.1, grid.2),
            block_dim: (block.0, block.1, block.2),
            shared_mem_bytes: shared_bytes,
        };
        let mut builder = self.stream.launch_builder(&kernel.function);
        for a in args {
            a.push(&mut builder);
        }
        // SAFETY: the arguments match the kernel's parameters (checked above); the rest is
        // this function's contract.
        unsafe { builder.launch(cfg) }.map_err(driver("launching the kernel (cuLaunchKernel)"))?;
        Ok(())
    }

    /// Waits for all work queued so far; reports an error a kernel hit while running.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(driver("waiting for the GPU"))
    }
}

/// Launch dimensions: `n` is `(n, 1, 1)`, `(x, y)` is `(x, y, 1)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim3(pub u32, pub u32, pub u32);

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3(x, 1, 1)
    }
}
impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3(x, y, 1)
    }
}
impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3(x, y, z)
    }
}

/// A loaded PTX module; unloaded when the last [`Kernel`] from it and it are dropped.
pub struct Module {
    inner: Arc<CudaModule>,
    entries: Vec<Entry>,
}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Module").field("kernels", &self.kernel_names()).finish()
    }
}

impl Module {
    /// The kernels the module defines, in its order.
    pub fn kernel_names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.name.as_str()).collect()
    }

    /// The kernel `name` (for a gradient from `zyg grad --fn K`, `K_grad`).
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let entry = self
            .entries
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| Error::NoKernel { name: name.to_string(), available: self.kernel_names().join(", ") })?;
        let function = self.inner.load_function(name).map_err(driver("finding the kernel (cuModuleGetFunction)"))?;
        Ok(Kernel { function, entry: entry.clone() })
    }
}

/// A kernel of a loaded module, with its PTX signature.
pub struct Kernel {
    function: CudaFunction,
    entry: Entry,
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kernel").field("entry", &self.entry).finish()
    }
}

impl Kernel {
    pub fn name(&self) -> &str {
        &self.entry.name
    }

    /// The kernel's parameters, as its PTX declares them.
    pub fn params(&self) -> &[Param] {
        &self.entry.params
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Element types of device buffers: plain numbers, valid as all-zero bits.
pub trait Element: cu::DeviceRepr + cu::ValidAsZeroBits + Copy + Default + sealed::Sealed + 'static {}
macro_rules! elements {
    ($($t:ty),*) => {$(impl sealed::Sealed for $t {} impl Element for $t {})*};
}
elements!(f32, f64, i8, u8, i16, u16, i32, u32, i64, u64);

/// Device memory holding `len` values of `T`, freed when dropped.
pub struct DeviceBuffer<T: Element> {
    slice: CudaSlice<T>,
    stream: Arc<CudaStream>,
}

impl<T: Element> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceBuffer").field("type", &std::any::type_name::<T>()).field("len", &self.len()).finish()
    }
}

impl<T: Element> DeviceBuffer<T> {
    /// A buffer holding a copy of `data`.
    pub fn from_slice(gpu: &Gpu, data: &[T]) -> Result<Self> {
        let slice = gpu.stream.clone_htod(data).map_err(driver("copying to the device (cuMemcpyHtoD)"))?;
        Ok(DeviceBuffer { slice, stream: gpu.stream.clone() })
    }

    /// A buffer of `len` zeros (a shadow to accumulate a gradient into).
    pub fn zeros(gpu: &Gpu, len: usize) -> Result<Self> {
        let slice = gpu.stream.alloc_zeros(len).map_err(driver("allocating device memory (cuMemAlloc)"))?;
        Ok(DeviceBuffer { slice, stream: gpu.stream.clone() })
    }

    pub fn len(&self) -> usize {
        self.slice.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The contents, after the work queued before this call (kernels included) is done.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.len()];
        self.copy_to(&mut out)?;
        Ok(out)
    }

    /// Copies the contents into `host`, which must have the buffer's length.
    pub fn copy_to(&self, host: &mut [T]) -> Result<()> {
        if host.len() != self.len() {
            return Err(Error::Length { device: self.len(), host: host.len() });
        }
        self.stream.memcpy_dtoh(&self.slice, host).map_err(driver("copying to the host (cuMemcpyDtoH)"))?;
        self.stream.synchronize().map_err(driver("copying to the host (cuMemcpyDtoH)"))
    }

    /// Overwrites the contents with `host`, which must have the buffer's length.
    pub fn copy_from(&mut self, host: &[T]) -> Result<()> {
        if host.len() != self.len() {
            return Err(Error::Length { device: self.len(), host: host.len() });
        }
        self.stream.memcpy_htod(host, &mut self.slice).map_err(driver("copying to the device (cuMemcpyHtoD)"))
    }
}

/// What a launch argument is, as [`Param::accepts`] checks it against the PTX.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    F32,
    F64,
    /// An integer of this many bytes.
    Int(usize),
    /// A device pointer (a [`DeviceBuffer`]).
    Pointer,
}

impl fmt::Display for ArgKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgKind::F32 => write!(f, "an f32"),
            ArgKind::F64 => write!(f, "an f64"),
            ArgKind::Int(n) => write!(f, "a {}-bit integer", n * 8),
            ArgKind::Pointer => write!(f, "a device buffer"),
        }
    }
}

/// A value [`Gpu::launch`] can pass to a kernel: a scalar or a [`DeviceBuffer`].
pub trait KernelArg: sealed::Sealed {
    fn kind(&self) -> ArgKind;
    #[doc(hidden)]
    fn push<'a>(&'a self, builder: &mut cu::LaunchArgs<'a>);
}

macro_rules! scalar_args {
    ($($t:ty => $kind:expr),*) => {$(
        impl KernelArg for $t {
            fn kind(&self) -> ArgKind {
                $kind
            }
            fn push<'a>(&'a self, builder: &mut cu::LaunchArgs<'a>) {
                use cu::PushKernelArg;
                builder.arg(self);
            }
        }
    )*};
}
scalar_args!(f32 => ArgKind::F32, f64 => ArgKind::F64, i32 => ArgKind::Int(4), u32 => ArgKind::Int(4),
             i64 => ArgKind::Int(8), u64 => ArgKind::Int(8));

impl<T: Element> sealed::Sealed for DeviceBuffer<T> {}
impl<T: Element> KernelArg for DeviceBuffer<T> {
    fn kind(&self) -> ArgKind {
        ArgKind::Pointer
    }
    fn push<'a>(&'a self, builder: &mut cu::LaunchArgs<'a>) {
        use cu::PushKernelArg;
        builder.arg(&self.slice);
    }
}
