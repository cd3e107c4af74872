//! Reading the program's conventions (`zyg_transform::conventions`) from the LLVM module, in
//! every spelling Enzyme's users write them:
//!
//! - registration globals (any name containing the word): `__enzyme_inactivefn` and
//!   `__enzyme_inactivenoblockfn` (a function, or an array of functions),
//!   `__enzyme_inactive_global` (the address of a global, or an array of them),
//!   `__enzyme_function_like` (`{fn, "log1p"}`), `__enzyme_allocation_like` (`{allocator,
//!   size argument index, "deallocation argument indices", deallocator}`); a function
//!   declared like `free` is a deallocator, whose calls pass through;
//! - clang annotations in `@llvm.global.annotations`, from `__attribute__((annotate(...)))`
//!   and Enzyme's clang plugin: `enzyme_inactivefn`, `enzyme_inactivenoblockfn`,
//!   `enzyme_inactive` (a function or a global), `enzyme_function_like=NAME`, and zyg.h's
//!   `zyg_keep`;
//! - IR attributes: `"enzyme_inactive"` and `"enzyme_inactive_noblock"` on a function or on
//!   a call site, `"enzyme_math"="NAME"` on a function, and `!enzyme_inactive` metadata on a
//!   global (what Enzyme's own preprocessing leaves).
//!
//! A registration zyg cannot read is an error naming it, never skipped.

use crate::error::{DriverError, Result};
use inkwell::module::Module;
use inkwell::values::{BasicValueEnum, FunctionValue};
use std::path::Path;
use zyg_ir::llvm::annotations::{has_metadata, string_attribute, string_initializer};
use zyg_ir::llvm::calls;
use zyg_ir::llvm::values::{
    as_function, as_global_variable, constant_operands, constant_unsigned, is_constant_aggregate, name_of, parameter_types,
    strip_constant_expressions,
};
use zyg_transform::{Allocator, Conventions};

/// The module's conventions, and what else zyg.h marks.
#[derive(Debug, Default)]
pub struct Declared {
    pub conventions: Conventions,
    /// Functions marked `ZYG_KEEP` (`annotate("zyg_keep")`): kept out of line for zyg, given
    /// back to LLVM's optimiser in zyg's output (`inlining::release_kept`).
    pub kept: Vec<String>,
}

/// The names (parts of names) of the arrays that declare conventions.
pub(crate) const REGISTRATIONS: [&str; 5] = [
    "__enzyme_inactivefn",
    "__enzyme_inactivenoblockfn",
    "__enzyme_inactive_global",
    "__enzyme_function_like",
    "__enzyme_allocation_like",
];

/// Reads every convention of the module.
pub fn read(module: &Module, path: &Path) -> Result<Declared> {
    let mut out = Declared::default();
    for global in module.get_globals() {
        let name = global.get_name().to_string_lossy().into_owned();
        let fail = |message: String| DriverError::Request { path: path.to_path_buf(), message: format!("`@{name}`: {message}") };
        if has_metadata(global, "enzyme_inactive") {
            out.conventions.inactive_globals.insert(name.clone());
        }
        let init = global.get_initializer();
        if name == "llvm.global.annotations" {
            if let Some(init) = init {
                read_annotations(init, &mut out).map_err(fail)?;
                continue;
            }
        }
        let kind = REGISTRATIONS.iter().copied().find(|k| name.contains(k));
        let Some(kind) = kind else { continue };
        let Some(init) = init else {
            return Err(fail("a registration must be defined, with an initializer".into()));
        };
        let c = &mut out.conventions;
        match kind {
            "__enzyme_inactive_global" => {
                for e in elements(init) {
                    let g = as_global_variable(strip_constant_expressions(e));
                    let g = g.ok_or_else(|| fail("it must hold the addresses of global variables".into()))?;
                    c.inactive_globals.insert(name_of(&g));
                }
            }
            "__enzyme_function_like" => read_function_like(init, c).map_err(fail)?,
            "__enzyme_allocation_like" => read_allocation_like(init, c).map_err(fail)?,
            _ => {
                for e in elements(init) {
                    c.inactive_functions.insert(function(e).ok_or_else(|| fail("it must hold functions".into()))?);
                }
            }
        }
    }
    for f in module.get_functions() {
        let name = name_of(&f);
        // The plugin's mark (`inlining::KEPT_ATTRIBUTE`) on functions `-flto`'s compile kept
        // out of line for the link, where zyg runs: kept as `ZYG_KEEP`'s are.
        if string_attribute(f, crate::inlining::KEPT_ATTRIBUTE).is_some() {
            out.kept.push(name.clone());
        }
        if ["enzyme_inactive", "enzyme_inactive_noblock"].iter().any(|a| string_attribute(f, a).is_some()) {
            out.conventions.inactive_functions.insert(name.clone());
        }
        if let Some(like) = string_attribute(f, "enzyme_math").filter(|s| !s.is_empty()) {
            check_function_like(f, &like).map_err(|message| DriverError::Request {
                path: path.to_path_buf(),
                message: format!("`{name}` (attribute \"enzyme_math\"): {message}"),
            })?;
            out.conventions.function_like.insert(name, like);
        }
    }
    // OpenMP's and MPI's calls that move data between threads or ranks cannot be left out of
    // a derivative: declared inactive, zyg would compute a wrong one without a word.
    if let Some(name) = out.conventions.inactive_functions.iter().find(|n| moves_parallel_data(n)) {
        return Err(DriverError::Request {
            path: path.to_path_buf(),
            message: format!(
                "`{name}` is declared inactive, but it runs or moves data between OpenMP threads or MPI ranks: \
                 the derivatives through it would be lost. zyg differentiates MPI's point-to-point and collective \
                 calls itself (leave them declared as mpi.h declares them); it does not differentiate OpenMP \
                 programs yet: differentiate the serial code (compiled without -fopenmp)"
            ),
        });
    }
    Ok(out)
}

/// OpenMP's and MPI's entry points that run code in parallel or move data between threads or
/// ranks (not those that only ask, wait or synchronise: `omp_get_thread_num`, `MPI_Comm_rank`,
/// `MPI_Barrier`).
fn moves_parallel_data(name: &str) -> bool {
    const OPENMP: [&str; 6] =
        ["__kmpc_fork_call", "__kmpc_fork_teams", "__kmpc_omp_task", "__kmpc_reduce", "__tgt_target", "GOMP_parallel"];
    const MPI: [&str; 33] = [
        "MPI_Send",
        "MPI_Isend",
        "MPI_Ssend",
        "MPI_Issend",
        "MPI_Bsend",
        "MPI_Rsend",
        "MPI_Recv",
        "MPI_Irecv",
        "MPI_Sendrecv",
        "MPI_Sendrecv_replace",
        "MPI_Bcast",
        "MPI_Ibcast",
        "MPI_Reduce",
        "MPI_Ireduce",
        "MPI_Allreduce",
        "MPI_Iallreduce",
        "MPI_Reduce_scatter",
        "MPI_Scan",
        "MPI_Exscan",
        "MPI_Gather",
        "MPI_Gatherv",
        "MPI_Scatter",
        "MPI_Scatterv",
        "MPI_Allgather",
        "MPI_Allgatherv",
        "MPI_Alltoall",
        "MPI_Alltoallv",
        "MPI_Put",
        "MPI_Get",
        "MPI_Accumulate",
        "MPI_Get_accumulate",
        "MPI_Rput",
        "MPI_Rget",
    ];
    let mpi = name.strip_prefix('P').filter(|n| n.starts_with("MPI_")).unwrap_or(name);
    OPENMP.iter().any(|p| name.starts_with(p)) || MPI.contains(&mpi)
}

/// `@llvm.global.annotations`: `[{ annotated value, annotation string, file, line, args }]`.
fn read_annotations(init: BasicValueEnum<'_>, out: &mut Declared) -> std::result::Result<(), String> {
    for entry in elements(init) {
        let fields = constant_operands(entry);
        if fields.len() < 2 {
            continue;
        }
        let target = strip_constant_expressions(fields[0]);
        let Some(text) = c_string(fields[1]) else { continue };
        let function = as_function(target);
        let name = name_of(&target);
        let c = &mut out.conventions;
        match text.as_str() {
            "enzyme_inactivefn" | "enzyme_inactivenoblockfn" | "enzyme_inactive" if function.is_some() => {
                c.inactive_functions.insert(name);
            }
            "enzyme_inactive" if as_global_variable(target).is_some() => {
                c.inactive_globals.insert(name);
            }
            "zyg_keep" if function.is_some() => out.kept.push(name),
            _ => {
                if let (Some(like), Some(f)) = (text.strip_prefix("enzyme_function_like="), function) {
                    check_function_like(f, like)?;
                    c.function_like.insert(name, like.to_string());
                }
            }
        }
    }
    Ok(())
}

/// `{fn, "name"}`: calls to fn take the derivative rule of the math function `name`.
fn read_function_like(init: BasicValueEnum<'_>, c: &mut Conventions) -> std::result::Result<(), String> {
    let e = elements(init);
    let shape = "it must hold {function, \"math function name\"}";
    let (Some(f), Some(like)) = (e.first().map(|v| strip_constant_expressions(*v)), e.get(1).and_then(|v| c_string(*v))) else {
        return Err(shape.into());
    };
    let Some(f) = as_function(f) else {
        return Err(shape.into());
    };
    // Like `free`: a deallocator, whose calls pass through as `free`'s do.
    if like == "free" {
        c.inactive_functions.insert(name_of(&f));
        return Ok(());
    }
    check_function_like(f, &like)?;
    c.function_like.insert(name_of(&f), like);
    Ok(())
}

/// A function declared like the math function `like`: zyg must have its rule, of as many
/// arguments as the function has.
fn check_function_like(f: FunctionValue<'_>, like: &str) -> std::result::Result<(), String> {
    let name = name_of(&f);
    let Some(arity) = zyg_transform::math_rule_arity(like) else {
        let known = zyg_transform::math_rule_names();
        return Err(format!(
            "`{name}` is declared like `{like}`, but zyg has no derivative rule for `{like}`; it knows {}",
            known.join(", ")
        ));
    };
    let params = f.count_params() as usize;
    if params != arity {
        return Err(format!("`{name}` is declared like `{like}`, which takes {arity} argument(s), but `{name}` takes {params}"));
    }
    Ok(())
}

/// `{allocator, size index, "deallocation indices", deallocator}`.
fn read_allocation_like(init: BasicValueEnum<'_>, c: &mut Conventions) -> std::result::Result<(), String> {
    let e = elements(init);
    let shape = "it must hold {allocator, (void *)size argument index, \"deallocation argument indices\", deallocator}";
    if e.len() != 4 {
        return Err(shape.into());
    }
    let (Some(alloc), Some(size_arg), Some(indices), Some(dealloc)) =
        (function(e[0]), constant_unsigned(strip_constant_expressions(e[1])), c_string(e[2]), function(e[3]))
    else {
        return Err(shape.into());
    };
    if indices.split(',').any(|i| i.trim().parse::<i64>().is_err()) {
        return Err(format!("the deallocation argument indices \"{indices}\" must be integers separated by commas"));
    }
    let params = as_function(strip_constant_expressions(e[0])).map(parameter_types).unwrap_or_default();
    let size_ty = usize::try_from(size_arg).ok().and_then(|i| params.get(i));
    if !size_ty.is_some_and(|t| t.as_ref().is_ok_and(|t| t.is_int_type())) {
        return Err(format!("argument {size_arg} of `{alloc}` must be its size in bytes, an integer"));
    }
    c.allocators.insert(alloc, Allocator { size_arg: size_arg as usize, deallocator: dealloc });
    Ok(())
}

/// The constants an initializer holds: the elements of an array or struct, or itself.
fn elements(init: BasicValueEnum<'_>) -> Vec<BasicValueEnum<'_>> {
    if is_constant_aggregate(init) {
        constant_operands(init)
    } else {
        vec![init]
    }
}

/// The name of the function a constant is, with casts taken off.
fn function(v: BasicValueEnum<'_>) -> Option<String> {
    as_function(strip_constant_expressions(v)).map(|f| name_of(&f))
}

/// The text of a C string constant (the global a string literal is).
fn c_string(v: BasicValueEnum<'_>) -> Option<String> {
    let g = as_global_variable(strip_constant_expressions(v))?;
    Some(string_initializer(g)?.trim_end_matches('\0').to_string())
}

/// Calls marked inactive at the call site (`"enzyme_inactive"`, as Julia emits): in the
/// prepared copy zyg reads, each such call of `f` is pointed at a declaration
/// `f.<namespace>.inactive`, which the conventions make inactive. Returns (that name, `f`)
/// for each, so that `restore_call_sites` points zyg's output back at `f`.
pub fn mark_call_sites(prepared: &Module, namespace: &str, conventions: &mut Conventions) -> Vec<(String, String)> {
    let mut aliases: Vec<(String, String)> = Vec::new();
    for f in prepared.get_functions() {
        for bb in f.get_basic_blocks() {
            for inst in bb.get_instructions() {
                let Some((call, calls::CallKind::Call)) = calls::call_site(inst) else { continue };
                let marked = ["enzyme_inactive", "enzyme_inactive_noblock"]
                    .iter()
                    .any(|key| call.get_string_attribute(inkwell::attributes::AttributeLoc::Function, key).is_some());
                let Some(callee) = calls::called_function(call).filter(|_| marked) else { continue };
                let target = name_of(&callee);
                if conventions.inactive_functions.contains(&target) {
                    continue;
                }
                let alias = format!("{target}.{namespace}.inactive");
                let decl =
                    prepared.get_function(&alias).unwrap_or_else(|| prepared.add_function(&alias, callee.get_type(), None));
                calls::set_called_function(call, decl);
                conventions.inactive_functions.insert(alias.clone());
                if !aliases.iter().any(|(a, _)| *a == alias) {
                    aliases.push((alias, target));
                }
            }
        }
    }
    aliases
}

/// Points the calls zyg wrote to `mark_call_sites`' declarations back at their functions.
pub fn restore_call_sites(module: &Module, aliases: &[(String, String)]) {
    for (alias, target) in aliases {
        let (Some(decl), Some(f)) = (module.get_function(alias), module.get_function(target)) else { continue };
        calls::replace_function(decl, f);
    }
}
