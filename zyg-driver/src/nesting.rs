//! Nested derivatives (a Hessian-vector product is `__enzyme_fwddiff` of a function that
//! calls `__enzyme_autodiff`): requests are filled in rounds, innermost first. A request
//! whose function reaches another request (through calls, or by naming a function that
//! holds one) waits; once the inner request's call is a call to the generated gradient,
//! the outer request differentiates that generated code like any other function, its tape
//! stacks included (the stack helpers' rules, `zyg_transform` `rules/stacks.rs`).
//!
//! Each round prepares and reads a fresh copy of the module, so a program without nested
//! requests costs one round, as before.

use crate::callsite::Request;
use crate::error::{DriverError, Result};
use inkwell::values::{FunctionValue, InstructionValue};
use std::collections::HashSet;
use std::path::Path;
use zyg_ir::llvm::calls::{self, FunctionUse};
use zyg_ir::llvm::values::name_of;

/// What one round fills in.
pub struct Round {
    /// Whether each request (in `find_requests`'s order) is filled in this round.
    pub now: Vec<bool>,
    /// No request is left for a later round: `--fn`'s export is made in this one.
    pub last: bool,
}

/// The next round: every request whose function (or callback) reaches no request, and the
/// export when nothing it reaches is left. Refuses requests that reach each other in a cycle.
pub fn next_round(requests: &[Request<'_>], export: Option<&str>, path: &Path) -> Result<Round> {
    let holders: Vec<FunctionValue<'_>> = requests.iter().filter_map(|r| parent(calls::instruction(r.call))).collect();
    let reach = reaching(holders);
    let waits = |name: &str| reach.contains(name);
    let now: Vec<bool> = requests.iter().map(|r| !waits(&r.function) && r.callbacks.iter().all(|(_, f)| !waits(f))).collect();
    let all_now = now.iter().all(|&n| n);
    let export_now = export.is_none_or(|name| !waits(name));
    if !requests.is_empty() && !now.iter().any(|&n| n) {
        let r = &requests[0];
        return Err(DriverError::Request {
            path: path.to_path_buf(),
            message: format!(
                "{}: the requests for `{}` and the functions it differentiates reach each other (a derivative of a \
                 function that asks for its own derivative, directly or through calls); zyg fills nested requests \
                 innermost first and cannot order these",
                r.place, r.function
            ),
        });
    }
    Ok(Round { now, last: all_now && export_now })
}

/// The function holding an instruction.
fn parent<'ctx>(inst: InstructionValue<'ctx>) -> Option<FunctionValue<'ctx>> {
    inst.get_parent().and_then(|b| b.get_parent())
}

/// The names of `holders` and of every function that calls or names one of them, directly or
/// through others. A function named in a constant (a table in a global) is not followed: a
/// request reached only through such a table is filled in the same round as its caller's,
/// which then refuses it as a request inside a function being differentiated.
fn reaching(holders: Vec<FunctionValue<'_>>) -> HashSet<String> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut work = holders;
    while let Some(f) = work.pop() {
        if !seen.insert(name_of(&f)) {
            continue;
        }
        for u in calls::uses(f) {
            let user = match u {
                FunctionUse::Called(call, _) => parent(calls::instruction(call)),
                FunctionUse::Instruction(inst) => parent(inst),
                FunctionUse::Constant(_) => None,
            };
            work.extend(user);
        }
    }
    seen
}
