//! libdevice, CUDA's math library as LLVM bitcode, in the modules zyg makes for the GPU.
//!
//! NVPTX has no instructions for most of the C math library, so on the GPU `sin` is a call
//! of libdevice's `__nv_sin`. Two places need this: `zyg compile --target nvptx64`, which
//! points the module's math calls at libdevice and links it (`link`), and the pass plugin
//! in clang's CUDA device compilation, where clang has already linked the libdevice
//! functions the source calls: those are always-inline, and inlined they are loops of
//! integer and inline-asm code zyg cannot (and should not) differentiate, so they are held
//! out of line while zyg differentiates (`hold_math`, `release_math`) and their calls are
//! read by the math rules; the adjoint's own math calls (`cos` for `sin`) are then linked
//! like `zyg compile`'s.

use crate::error::{DriverError, Result};
use crate::llvm_io;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::context::AsContextRef;
use inkwell::module::{Linkage, Module};
use inkwell::values::{BasicValue, FunctionValue};
use std::path::{Path, PathBuf};

/// The C math functions libdevice has, by their C names (`f` suffix: float).
pub(crate) const LIBM: &[&str] = &[
    "sin",
    "cos",
    "tan",
    "exp",
    "exp2",
    "exp10",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "pow",
    "sqrt",
    "cbrt",
    "tanh",
    "sinh",
    "cosh",
    "asin",
    "acos",
    "atan",
    "atan2",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "erfc",
    "hypot",
    "fabs",
    "floor",
    "ceil",
    "trunc",
    "round",
    "rint",
    "fma",
    "fmin",
    "fmax",
    "copysign",
    "lgamma",
    "tgamma",
    "fmod",
    "remainder",
];
/// LLVM intrinsics NVPTX cannot lower in double precision (it lowers sqrt, fabs, fma,
/// floor, ceil, trunc, rint, min/max and copysign itself).
pub(crate) const INTRINSICS: &[&str] = &[
    "sin", "cos", "tan", "exp", "exp2", "exp10", "log", "log2", "log10", "pow", "tanh", "sinh", "cosh", "asin", "acos", "atan",
    "atan2",
];

/// Points math calls at libdevice and links it in where they need it (its functions
/// internal, so the optimiser keeps only those used).
pub fn link<'ctx>(context: impl AsContextRef<'ctx>, module: &Module<'ctx>, path: &Path, given: Option<&Path>) -> Result<()> {
    if point_calls(module) {
        link_bitcode(context, module, path, given)?;
    }
    Ok(())
}

/// Points calls of C math functions, and of LLVM math intrinsics NVPTX cannot lower, at
/// libdevice's functions (`cosf`, `llvm.cos.f32` → `__nv_cosf`); those the module already
/// defines (clang's copies in a CUDA compilation) are used as they are. Whether any
/// libdevice function is then called but not defined.
pub fn point_calls(module: &Module<'_>) -> bool {
    for f in module.get_functions() {
        if f.count_basic_blocks() > 0 {
            continue;
        }
        let name = f.get_name().to_string_lossy().into_owned();
        let target = if let Some(base) = name.strip_prefix("llvm.") {
            let (op, ty) = base.rsplit_once('.').unwrap_or((base, ""));
            match ty {
                "f64" if INTRINSICS.contains(&op) => Some(format!("__nv_{op}")),
                "f32" if INTRINSICS.contains(&op) => Some(format!("__nv_{op}f")),
                _ => None,
            }
        } else if LIBM.contains(&name.as_str()) {
            Some(format!("__nv_{name}"))
        } else {
            name.strip_suffix('f').filter(|b| LIBM.contains(b)).map(|b| format!("__nv_{b}f"))
        };
        if let Some(target) = target {
            let nv = module.get_function(&target).unwrap_or_else(|| module.add_function(&target, f.get_type(), None));
            f.as_global_value().as_pointer_value().replace_all_uses_with(nv.as_global_value().as_pointer_value());
        }
    }
    module.get_functions().any(|f| {
        f.count_basic_blocks() == 0
            && f.get_name().to_bytes().starts_with(b"__nv_")
            && f.as_global_value().as_pointer_value().get_first_use().is_some()
    })
}

/// Whether clang linked libdevice into this module (it defines a libdevice function); a
/// CUDA compilation with `-nocudalib` leaves that to whoever links the device code.
pub fn is_linked(module: &Module<'_>) -> bool {
    module.get_functions().any(|f| f.count_basic_blocks() > 0 && f.get_name().to_bytes().starts_with(b"__nv_"))
}

/// Links libdevice's bitcode into `module`, its functions internal and given the module's
/// GPU attributes (`target-cpu`, `target-features`), as clang gives its own copies, so that
/// they can be inlined.
pub fn link_bitcode<'ctx>(
    context: impl AsContextRef<'ctx>,
    module: &Module<'ctx>,
    path: &Path,
    given: Option<&Path>,
) -> Result<()> {
    let file = match given.map(Path::to_path_buf).or_else(find) {
        Some(f) => f,
        None => {
            return Err(DriverError::Usage(format!(
                "{}: the module calls math functions, which need libdevice on the GPU; give --libdevice PATH \
                 (or set ZYG_LIBDEVICE for the pass plugin): libdevice.10.bc, from `pip install nvidia-cuda-nvcc-cu12` \
                 or a CUDA toolkit",
                path.display()
            )))
        }
    };
    let bytes = llvm_io::read_input(&file)?;
    let libdevice = llvm_io::parse_ir(context, &bytes, &file)?;
    crate::input::check(&libdevice, &file)?;
    libdevice.set_triple(&module.get_triple());
    libdevice.set_data_layout(&module.get_data_layout());
    let provided: Vec<String> = libdevice
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .collect();
    let gpu = gpu_attributes(module);
    module
        .link_in_module(libdevice)
        .map_err(|e| DriverError::Llvm { path: file.clone(), message: e.to_string_lossy().into_owned() })?;
    // Internal once linked, so that the optimiser drops what the module does not call.
    for name in provided {
        if let Some(f) = module.get_function(&name) {
            f.set_linkage(Linkage::Internal);
            for attribute in &gpu {
                f.add_attribute(AttributeLoc::Function, *attribute);
            }
        }
    }
    Ok(())
}

/// The `target-cpu` and `target-features` of the module's first function that has them
/// (none in `zyg compile`, which removes the host's).
fn gpu_attributes<'ctx>(module: &Module<'ctx>) -> Vec<Attribute> {
    let Some(f) = module.get_functions().find(|f| f.get_string_attribute(AttributeLoc::Function, "target-cpu").is_some()) else {
        return Vec::new();
    };
    ["target-cpu", "target-features"].iter().filter_map(|key| f.get_string_attribute(AttributeLoc::Function, key)).collect()
}

/// The string attribute that marks a libdevice function `hold_math` keeps out of line; its
/// value says whether it was always-inline.
const HELD: &str = "zyg-held-out-of-line";

/// The libdevice functions of a math rule that `module` defines (clang's CUDA device
/// compilation links them in): made `noinline` until `release_math`, so that the calls stay
/// calls, which the math rules differentiate. How many it held.
pub fn hold_math(module: &Module<'_>) -> usize {
    let context = module.get_context();
    let mut held = 0;
    for f in module.get_functions().filter(|f| is_math(*f)) {
        if f.get_string_attribute(AttributeLoc::Function, HELD).is_some() {
            continue;
        }
        let always = enum_kind("alwaysinline");
        let was_always = f.get_enum_attribute(AttributeLoc::Function, always).is_some();
        f.remove_enum_attribute(AttributeLoc::Function, always);
        f.add_attribute(AttributeLoc::Function, context.create_enum_attribute(enum_kind("noinline"), 0));
        f.add_attribute(AttributeLoc::Function, context.create_string_attribute(HELD, if was_always { "1" } else { "0" }));
        held += 1;
    }
    held
}

/// Undoes `hold_math`: the held functions are inlined as clang meant them to be.
pub fn release_math(module: &Module<'_>) {
    let context = module.get_context();
    for f in module.get_functions() {
        let Some(held) = f.get_string_attribute(AttributeLoc::Function, HELD) else { continue };
        let was_always = held.get_string_value().to_bytes() == b"1";
        f.remove_string_attribute(AttributeLoc::Function, HELD);
        f.remove_enum_attribute(AttributeLoc::Function, enum_kind("noinline"));
        if was_always {
            f.add_attribute(AttributeLoc::Function, context.create_enum_attribute(enum_kind("alwaysinline"), 0));
        }
    }
}

/// A defined `__nv_*` function that a math rule differentiates (by name and argument count).
fn is_math(f: FunctionValue<'_>) -> bool {
    let name = f.get_name().to_string_lossy();
    name.starts_with("__nv_")
        && f.count_basic_blocks() > 0
        && zyg_transform::math_rule_arity(&name) == Some(f.count_params() as usize)
}

fn enum_kind(name: &str) -> u32 {
    Attribute::get_named_enum_kind_id(name)
}

/// libdevice in the places CUDA puts it: `$ZYG_LIBDEVICE`, the `nvidia-cuda-nvcc-cu12`
/// wheel in a Python `site-packages`, a CUDA toolkit.
pub fn find() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ZYG_LIBDEVICE") {
        return Some(PathBuf::from(p));
    }
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(home) = std::env::var_os("HOME") {
        roots.push(PathBuf::from(home).join(".local/lib"));
    }
    roots.extend(["/usr/local/lib", "/usr/lib"].map(PathBuf::from));
    for root in roots {
        let Ok(entries) = std::fs::read_dir(&root) else { continue };
        for python in entries.flatten().filter(|e| e.file_name().to_string_lossy().starts_with("python3")) {
            for packages in ["site-packages", "dist-packages"] {
                let p = python.path().join(packages).join("nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc");
                if p.exists() {
                    return Some(p);
                }
            }
        }
    }
    let toolkit = std::env::var_os("CUDA_HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr/local/cuda"));
    Some(toolkit.join("nvvm/libdevice/libdevice.10.bc")).filter(|p| p.exists())
}
