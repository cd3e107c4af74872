//! The refusals of activity analysis: what the memory model cannot represent yet (an active
//! value or a pointer to differentiated memory stored where no shadow follows it, a pointer
//! that mixes differentiated memory with other memory, an integer copy of bytes zyg cannot
//! type, a non-local jump), refused rather than dropping derivatives.

use super::calls::NON_LOCAL_JUMPS;
use super::ModuleFacts;
use crate::error::TransformError;
use crate::types::IntegerCopy;
use cranelift_entity::{EntitySet, SecondaryMap};
use zyg_ir::{Callee, Constant, Function, Inst, InstKind, Module, Type, Value};

/// Refuses what the memory model cannot represent yet, rather than dropping derivatives.
pub(super) fn check_memory(
    module: &Module,
    facts: &ModuleFacts,
    func: &Function,
    insts: &[Inst],
    varied: &EntitySet<Value>,
    shadowed: &EntitySet<Value>,
    silent: &EntitySet<Inst>,
) -> Result<(), TransformError> {
    let mut entry_insts = EntitySet::new();
    entry_insts.extend(func.entry().into_iter().flat_map(|b| func.blocks[b].insts.iter().copied()));
    let check =
        MemoryCheck { module, facts, func, varied, shadowed, silent, copies: crate::types::integer_copies(func), entry_insts };
    for &inst in insts {
        if let Some(message) = check.problem(inst) {
            return Err(TransformError::at(func, inst, message));
        }
    }
    Ok(())
}

/// What `check_memory` looks at, computed once per function.
struct MemoryCheck<'a> {
    module: &'a Module,
    facts: &'a ModuleFacts,
    func: &'a Function,
    varied: &'a EntitySet<Value>,
    shadowed: &'a EntitySet<Value>,
    silent: &'a EntitySet<Inst>,
    copies: SecondaryMap<Inst, Option<IntegerCopy>>,
    entry_insts: EntitySet<Inst>,
}

impl MemoryCheck<'_> {
    /// Null, and the poison a phi takes on paths where the pointer is not used, need no shadow.
    fn has_shadow_or_null(&self, v: Value) -> bool {
        self.shadowed.contains(v)
            || matches!(
                self.func.constant(v),
                Some(Constant::Null(_) | Constant::Poison(_) | Constant::Undef(_) | Constant::Zero(_))
            )
    }

    /// Why `inst` is refused, if it is.
    fn problem(&self, inst: Inst) -> Option<String> {
        let (func, shadowed) = (self.func, self.shadowed);
        if let Some(what) = unshadowed_address_vector(func, inst, shadowed) {
            return Some(format!(
                "{what}; that is not supported yet (clang makes gathers and scatters with -march=x86-64-v4 \
                 or AVX-512: compiling without them avoids it)"
            ));
        }
        if let Some(what) = crate::addresses::aggregate_problem(func, inst, self.shadowed, self.silent) {
            return Some(what);
        }
        match &func.insts[inst].kind {
            InstKind::Call { callee: Callee::Direct(name), .. } if NON_LOCAL_JUMPS.contains(&&**name) => Some(format!(
                "`{name}`: zyg cannot differentiate non-local jumps (setjmp and longjmp skip the tape's \
                 bookkeeping); return normally instead"
            )),
            InstKind::Store { value, ptr } | InstKind::AtomicFAdd { value, ptr, .. }
                if self.varied.contains(*value)
                    && !shadowed.contains(*ptr)
                    && !crate::conventions::is_inactive_memory(self.module, func, *ptr) =>
            {
                Some(self.untraced_store(*ptr))
            }
            kind @ (InstKind::Phi { .. }
            | InstKind::Select { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. }) => self.mixed_pointer(inst, kind),
            InstKind::Load { ptr, .. } if shadowed.contains(*ptr) => {
                self.copies[inst].as_ref().and_then(|copy| self.integer_copy(copy, *ptr))
            }
            InstKind::Call { callee: Callee::Direct(name), args, .. }
                if &**name == "realloc" && args.first().is_some_and(|p| !self.has_shadow_or_null(*p)) =>
            {
                Some(
                    "realloc of memory zyg cannot trace to differentiated memory or to an allocation; that is not \
                     supported yet"
                        .into(),
                )
            }
            InstKind::Store { value, ptr } if shadowed.contains(*value) && !shadowed.contains(*ptr) => Some(
                "a pointer to differentiated memory is stored to memory zyg cannot trace (its shadow would \
                 be lost); that is not supported yet"
                    .into(),
            ),
            InstKind::Alloca { .. }
                if shadowed.contains(func.result(inst).expect("alloca")) && !self.entry_insts.contains(inst) =>
            {
                Some("an alloca outside the entry block is not supported yet".into())
            }
            _ => None,
        }
    }

    /// An active value stored through `ptr`, which is not differentiated memory.
    fn untraced_store(&self, ptr: Value) -> String {
        if let Some(name) = dynamic_shared(self.module, self.func, ptr) {
            return format!(
                "an active value is stored to dynamic shared memory (`extern __shared__` @{name}), which zyg \
                 does not differentiate in this program: it is declared inactive, or none of its names is an \
                 array of floats and no float is stored into it directly; declare it as one \
                 (`extern __shared__ float {name}[]`), and launch the gradient with twice its dynamic bytes"
            );
        }
        "an active value is stored to memory that is not differentiated (a global or memory zyg \
         cannot trace to a `dup` argument); that is not supported yet"
            .into()
    }

    /// A phi, select or vector lane merging a shadowed pointer (or struct value holding one) with
    /// one that has no shadow.
    fn mixed_pointer(&self, inst: Inst, kind: &InstKind) -> Option<String> {
        if !self.func.result(inst).is_some_and(|r| self.shadowed.contains(r)) {
            return None;
        }
        let ptrs: Vec<Value> = match kind {
            InstKind::Phi { incoming } => incoming.iter().map(|(_, v)| *v).collect(),
            InstKind::Select { then_value, else_value, .. } => vec![*then_value, *else_value],
            InstKind::InsertElement { vec, value, .. } => vec![*vec, *value],
            InstKind::ShuffleVector { a, b, .. } => vec![*a, *b],
            _ => unreachable!("matched phi, select, insertelement or shufflevector"),
        };
        let aggregate = self.func.result(inst).is_some_and(|r| super::is_holder(self.func.ty(r)));
        (!ptrs.iter().all(|p| self.has_shadow_or_null(*p))).then(|| {
            if aggregate {
                "this struct value may hold pointers to differentiated memory or to other memory; mixing \
                 them is not supported yet"
                    .into()
            } else {
                "this pointer may point to differentiated memory or to other memory; mixing them is not \
                 supported yet"
                    .into()
            }
        })
    }

    /// An integer load from differentiated memory at `ptr` whose value is only stored
    /// (`copy`), into differentiated memory, of bytes the type analysis cannot type.
    fn integer_copy(&self, copy: &IntegerCopy, ptr: Value) -> Option<String> {
        let bits = copy.bits;
        let bytes = u64::from(bits.div_ceil(8));
        let known = self.facts.memory.at(self.func, ptr, bytes);
        // Float bytes copied piecemeal (a byte loop, part of a double): no float
        // type covers the copy, so no adjoint could follow it.
        let float_bytes = crate::memtypes::may_hold_floats(&known);
        let undecided = matches!(bits, 32 | 64) && known != crate::memtypes::Known::All(zyg_ir::ScalarKind::Integer);
        if !(copy.targets.iter().any(|p| self.shadowed.contains(*p)) && (float_bytes || undecided)) {
            return None;
        }
        Some(format!(
            "this copies {bits} bits of differentiated memory as an integer, and zyg cannot tell \
             whether they hold a float, a pointer or an integer, or they hold part of a float ({}); \
             copy them with their own type or with memcpy, or compile with -O1 or higher so that \
             clang describes the types",
            crate::memtypes::describe_known(&known)
        ))
    }
}

/// What is wrong, when `inst` handles a vector of pointers into differentiated memory in a
/// way that has no shadow: it makes one from shadowed pointers by an operation the shadows
/// do not follow (a gather of pointers, `inttoptr`, a call), or it stores one through a
/// masked store or scatter (the pointers' shadows would not be stored).
fn unshadowed_address_vector(func: &Function, inst: Inst, shadowed: &EntitySet<Value>) -> Option<String> {
    let kind = &func.insts[inst].kind;
    let is_vector = |v: Value| matches!(func.ty(v), Type::Vector(..)) && func.ty(v).is_address();
    let makes = func.result(inst).is_some_and(|r| is_vector(r) && !shadowed.contains(r));
    if makes && kind.operands().iter().any(|v| shadowed.contains(*v)) {
        return Some(format!(
            "this `{}` makes a vector of pointers from pointers into differentiated memory, and zyg cannot \
             give it a shadow (the derivatives through it would be lost)",
            kind.opcode_name()
        ));
    }
    match kind {
        InstKind::Call { callee: Callee::Direct(name), args, .. }
            if (name.starts_with("llvm.masked.scatter.") || name.starts_with("llvm.masked.store."))
                && args.len() == 3
                && func.ty(args[0]).holds_pointers()
                && shadowed.contains(args[1]) =>
        {
            Some(
                "this stores pointers into differentiated memory through a masked store or scatter, and zyg \
                  cannot store their shadows"
                    .into(),
            )
        }
        _ => None,
    }
}

/// The dynamic shared-memory global (`GlobalVar::is_dynamic_shared`) `ptr` points into.
fn dynamic_shared<'m>(module: &'m Module, func: &Function, ptr: Value) -> Option<&'m str> {
    match func.constant(crate::memory::root(func, ptr)) {
        Some(Constant::Global(name, _)) => {
            module.globals.get_key_value(name).filter(|(_, g)| g.is_dynamic_shared()).map(|(n, _)| n.as_str())
        }
        _ => None,
    }
}
