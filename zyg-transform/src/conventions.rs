//! What a program says about its own functions and globals, in Enzyme's conventions: calls
//! that carry no derivative (`__enzyme_inactivefn`, `enzyme_inactive` attributes and
//! annotations), globals that are never differentiated (`__enzyme_inactive_global`),
//! functions that take the derivative rule of a math function (`__enzyme_function_like`),
//! and allocators paired with their deallocators (`__enzyme_allocation_like`). The driver
//! reads them from the LLVM module; the transform consults them here.
//!
//! Each is the user's assertion, taken as given: an inactive call's result has no
//! derivative, its arguments get none from it, and what it does to memory is not
//! differentiated; a function-like function is differentiated by its rule whatever its
//! body computes.

use crate::rules::{self, MathRule};
use std::collections::{BTreeMap, BTreeSet};
use zyg_ir::{Callee, Function, Inst, InstKind, Module, Value};

/// A custom allocator (`__enzyme_allocation_like`): its memory gets a shadow as `malloc`'s
/// does, zeroed memory of the same size from `calloc`, freed by the adjoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocator {
    /// The argument that holds the size in bytes.
    pub size_arg: usize,
    /// The function that frees its memory: its calls pass through as `free`'s do.
    pub deallocator: String,
}

/// The conventions of one module, by function and global name.
#[derive(Clone, Debug, Default)]
pub struct Conventions {
    /// Functions whose calls are inactive.
    pub inactive_functions: BTreeSet<String>,
    /// Global variables that never get a shadow.
    pub inactive_globals: BTreeSet<String>,
    /// Functions differentiated with the rule of a math function: function → family name
    /// (`log1p`, as `rules::math::family` spells it).
    pub function_like: BTreeMap<String, String>,
    /// Allocation functions, by name.
    pub allocators: BTreeMap<String, Allocator>,
    /// Calls through pointers the driver turned into calls of dispatchers
    /// (`zyg_ir::llvm::dispatch`).
    pub indirect: IndirectCalls,
}

/// The dispatchers of calls through pointers (`zyg_ir::llvm::dispatch`): the identity
/// function their last branch passes an unknown callee through, and where each
/// dispatcher's call was in the program, for the message that stops a program there.
#[derive(Clone, Debug, Default)]
pub struct IndirectCalls {
    pub marker: String,
    /// Dispatcher → "file:line:column (in `function`)" of the call it stands for.
    pub sites: BTreeMap<String, String>,
}

impl IndirectCalls {
    /// Whether `v` is the callee an unknown pointer reaches a dispatcher's last branch as.
    pub fn is_unknown_callee(&self, func: &Function, v: Value) -> bool {
        let Some(def) = func.def_inst(v) else { return false };
        matches!(&func.insts[def].kind, InstKind::Call { callee: Callee::Direct(name), .. } if !self.marker.is_empty() && **name == *self.marker)
    }
}

impl Conventions {
    /// Whether `inst` is a call the program declares inactive: to an inactive function, or to
    /// the deallocator of a custom allocator (whose shadow the adjoint frees, as for `free`).
    pub fn is_inactive_call(&self, func: &Function, inst: Inst) -> bool {
        let InstKind::Call { callee: Callee::Direct(name), .. } = &func.insts[inst].kind else { return false };
        self.inactive_functions.contains(&**name) || self.is_custom_deallocator(name)
    }

    /// Whether a call to `name` frees memory: `free`, `operator delete` and the rest of
    /// `activity::DEALLOCATIONS`, or a custom allocator's deallocator. Where the program
    /// frees memory, zyg frees its shadow too (forward mode; the primal's exception handlers).
    pub fn frees(&self, name: &str) -> bool {
        crate::activity::DEALLOCATIONS.contains(&name) || self.is_custom_deallocator(name)
    }

    /// Whether `name` is the deallocator of a custom allocator.
    pub fn is_custom_deallocator(&self, name: &str) -> bool {
        self.allocators.values().any(|a| a.deallocator == name)
    }

    /// The math rule for calls to `callee`: its own family, or that of the function it is
    /// declared like.
    pub fn math_rule(&self, callee: &str) -> Option<&'static MathRule> {
        rules::family(self.function_like.get(callee).map_or(callee, String::as_str))
    }

    /// The custom allocator a call calls, if it is one.
    pub fn allocator(&self, kind: &InstKind) -> Option<&Allocator> {
        match kind {
            InstKind::Call { callee: Callee::Direct(name), .. } => self.allocators.get(&**name),
            _ => None,
        }
    }

    /// Whether a call allocates memory that gets a shadow: `malloc` and friends, or a custom
    /// allocator.
    pub fn is_allocation(&self, kind: &InstKind) -> bool {
        crate::activity::is_allocation(kind) || self.allocator(kind).is_some()
    }

    /// Marks the module's inactive globals (`GlobalVar::inactive`), so that none gets a shadow.
    pub fn mark_globals(&self, module: &mut Module) {
        for name in &self.inactive_globals {
            if let Some(g) = module.globals.get_mut(name) {
                g.inactive = true;
            }
        }
    }
}

/// Whether `ptr` points into a global the program declares inactive
/// (`Conventions::mark_globals`): an active value stored there is dropped, as the program
/// asserted.
pub fn is_inactive_memory(module: &Module, func: &Function, ptr: zyg_ir::Value) -> bool {
    match func.constant(crate::memory::root(func, ptr)) {
        Some(zyg_ir::Constant::Global(name, _)) => module.globals.get(name).is_some_and(|g| g.inactive),
        _ => false,
    }
}
