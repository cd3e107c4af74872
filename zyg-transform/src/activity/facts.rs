//! What activity analysis needs to know about the whole module, computed once: the
//! functions that return memory of their own, the type analysis of memory (`memtypes`),
//! what functions do with float bits (`floatbits`); and the active globals a function
//! reaches.

use crate::conventions::Conventions;
use std::collections::{BTreeSet, HashMap, HashSet};
use zyg_ir::{Callee, Constant, InstKind, Module};

/// The globals that carry derivatives (`Module::active_global`) that `function` and the
/// functions it calls (directly, or through callbacks it passes) use by name.
pub fn active_globals_reached(module: &Module, function: &str) -> BTreeSet<String> {
    let (mut seen, mut todo, mut found) = (HashSet::new(), vec![function.to_string()], BTreeSet::new());
    while let Some(name) = todo.pop() {
        let Some(func) = module.function(&name).filter(|_| seen.insert(name.clone())) else { continue };
        for (_, inst) in func.inst_order() {
            let kind = &func.insts[inst].kind;
            // A direct callee is not an operand; a function passed as a callback is.
            if let InstKind::Call { callee: Callee::Direct(callee), .. } = kind {
                todo.push(callee.to_string());
            }
            for v in kind.operands() {
                let Some(Constant::Global(g, _)) = func.constant(v) else { continue };
                if module.function(g).is_some() {
                    todo.push(g.clone());
                } else if module.active_global(g).is_some() {
                    found.insert(g.clone());
                }
            }
        }
    }
    with_pointed_at(module, found)
}

/// `globals` and the active globals their initialisers point at, transitively
/// (`GlobalVar::points_to`): their shadows point at those ones' shadows.
pub fn with_pointed_at(module: &Module, globals: BTreeSet<String>) -> BTreeSet<String> {
    let mut todo: Vec<String> = globals.iter().cloned().collect();
    let mut out = globals;
    while let Some(g) = todo.pop() {
        for h in module.globals.get(&g).map(|g| g.points_to.as_slice()).unwrap_or_default() {
            if module.active_global(h).is_some() && out.insert(h.clone()) {
                todo.push(h.clone());
            }
        }
    }
    out
}

/// What activity analysis of one function needs to know about the rest of the module,
/// computed once per module.
pub struct ModuleFacts {
    /// Defined functions returning a pointer that may point to differentiated memory they
    /// make themselves, without being given any: they allocate (`posix_memalign` too), use a global that carries
    /// derivatives, or call such a function (a `cons` cell constructor, a wrapper around
    /// one). Their primal writes the returned pointer's shadow.
    returns_own_memory: HashSet<String>,
    /// Defined functions that use a global carrying derivatives by name, or call (or pass
    /// as a callback) one that does, transitively: a call of one moves derivatives through
    /// that global's shadow even when it is given nothing active and returns nothing (a
    /// helper reading `buf[t + 1]`, a step writing one global from another).
    reaches_active_globals: HashSet<String>,
    /// Which bytes of memory hold floats, pointers and integers.
    pub memory: crate::memtypes::MemTypes,
    /// What functions do with float bits kept in integers.
    pub bits: crate::floatbits::BitSummaries,
}

impl ModuleFacts {
    pub fn compute(module: &Module, conventions: &Conventions) -> ModuleFacts {
        let mut callers: HashMap<&str, Vec<&str>> = HashMap::new();
        // Functions named as operands (callbacks), by the functions that name them.
        let mut passers: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut returns_own_memory = HashSet::new();
        let mut reaches_active_globals = HashSet::new();
        let (mut work, mut reaching) = (Vec::new(), Vec::new());
        for f in module.functions.iter().filter(|f| !f.is_declaration()) {
            let (mut direct, mut uses_global) = (false, false);
            for (_, i) in f.inst_order() {
                let kind = &f.insts[i].kind;
                if let InstKind::Call { callee: Callee::Direct(g), .. } = kind {
                    callers.entry(&**g).or_default().push(&f.name);
                    // `posix_memalign(&p, ..)`: memory of its own, returned through `p`.
                    direct |= super::OUT_PARAMETER_ALLOCATIONS.contains(&&**g);
                }
                for v in kind.operands() {
                    let Some(Constant::Global(g, _)) = f.constant(v) else { continue };
                    if module.active_global(g).is_some() {
                        uses_global = true;
                    } else if module.function(g).is_some() {
                        passers.entry(g.as_str()).or_default().push(&f.name);
                    }
                }
                direct |= conventions.is_allocation(kind);
            }
            direct |= uses_global;
            if direct && f.sig.ret.is_ptr() && returns_own_memory.insert(f.name.clone()) {
                work.push(f.name.as_str());
            }
            if uses_global && reaches_active_globals.insert(f.name.clone()) {
                reaching.push(f.name.as_str());
            }
        }
        // Callers and passers of a function that reaches an active global reach it too.
        while let Some(g) = reaching.pop() {
            let by = [callers.get(g), passers.get(g)];
            for &caller in by.into_iter().flatten().flatten() {
                if reaches_active_globals.insert(caller.to_string()) {
                    reaching.push(caller);
                }
            }
        }
        // Callers that return a pointer inherit it, transitively.
        while let Some(g) = work.pop() {
            for &caller in callers.get(g).map(Vec::as_slice).unwrap_or_default() {
                let returns_ptr = module.function(caller).is_some_and(|f| f.sig.ret.is_ptr());
                if returns_ptr && returns_own_memory.insert(caller.to_string()) {
                    work.push(caller);
                }
            }
        }
        let memory = crate::memtypes::MemTypes::compute(module);
        let bits = crate::floatbits::BitSummaries::compute(module, &memory);
        ModuleFacts { returns_own_memory, reaches_active_globals, memory, bits }
    }

    /// Whether `name` is a defined function that uses a global carrying derivatives, itself
    /// or through what it calls (`reaches_active_globals`).
    pub fn reaches_active_globals(&self, name: &str) -> bool {
        self.reaches_active_globals.contains(name)
    }

    /// Whether a call to `name` may return a pointer to differentiated memory: the callee is
    /// defined here, returns a pointer, and is given differentiated memory or makes its own.
    /// Its primal then writes the returned pointer's shadow (null when it returns other
    /// memory).
    pub fn returns_shadowed(&self, module: &Module, name: &str, given_shadowed: bool) -> bool {
        let defined = module.function(name).is_some_and(|f| f.sig.ret.is_ptr() && !f.is_declaration());
        defined && (given_shadowed || self.returns_own_memory.contains(name))
    }
}
