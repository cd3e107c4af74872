//! The MPI family: calls of OpenMPI's C API (`MPI_Send` and friends, declared without a body)
//! that move `double` or `float` data between ranks, differentiated by rules whose adjoints
//! communicate again, in the reverse direction (the adjoint of a send is a receive, of a
//! broadcast a gather to the root, of a sum reduction a broadcast), as Enzyme's MPI rules
//! do. Every rank runs the same gradient, so each rank's adjoint makes the reverse of the
//! calls its primal made, in reverse order, and the reversed calls match across ranks as
//! the primal's did.
//!
//! OpenMPI's handles are pointers to its predefined globals (`MPI_DOUBLE` is
//! `@ompi_mpi_double`, `MPI_SUM` `@ompi_mpi_op_sum`): a call's data is recognised by its
//! datatype operand, which must be such a global. `MPI_DOUBLE` and `MPI_FLOAT` carry
//! derivatives; the integer datatypes carry none (the call moves no derivative, and its
//! adjoint does nothing); any other datatype (`MPI_BYTE` may hold floats' bytes), one not
//! known at compile time, and reductions other than `MPI_SUM` of floats are refused,
//! naming the call and the datatype or operation. MPICH's `mpi.h` (integer handles) is
//! refused by the signature check.
//!
//! The helpers (zyg text, `mpi.zir`, one template for `double` and `float`, added once per
//! module by `helpers.rs`) take the call's arguments with each buffer's shadow (null: the
//! memory is not differentiated; the helper still communicates, zeros or into scratch, so
//! that the other rank's reversed call is matched). The rules, with `d(x)` the shadow of x:
//!
//! - `MPI_Send(buf → dest)`: receive from dest into scratch, `d(buf) += scratch`.
//!   `MPI_Recv(buf ← src)`: send `d(buf)` to src, `d(buf) = 0`. `MPI_Sendrecv`: both, in
//!   one `MPI_Sendrecv`. A peer `MPI_PROC_NULL` moves nothing, and its adjoint nothing.
//!   Wildcards (`MPI_ANY_SOURCE`, `MPI_ANY_TAG`) are refused when written at the call, and
//!   stop the program in the adjoint when they come in a variable.
//! - `MPI_Bcast`: the shadows are gathered to the root, which sums them (its own included);
//!   the others' `d(buf) = 0` (their buffer was overwritten).
//!   `MPI_Reduce(SUM)`: the root broadcasts `d(result)`, every rank adds it into `d(send)`,
//!   the root's `d(result) = 0` (with `MPI_IN_PLACE` at the root, its `d(result)` is the
//!   input's adjoint and stays). `MPI_Allreduce(SUM)`: an allreduce of `d(result)` added
//!   into `d(send)`, `d(result) = 0`; with `MPI_IN_PLACE`, the allreduce in place.
//!   `MPI_Gather` and `MPI_Scatter` are each other's adjoints; `MPI_Allgather`'s is an
//!   `MPI_Alltoall` of `d(result)` whose blocks are summed into `d(send)`. (A gather and an
//!   all-to-all instead of reductions: the helpers then refer to no MPI global the module
//!   may not declare.) `MPI_IN_PLACE` is refused for the gathers and scatter.
//!   `MPI_Barrier` is replayed.
//! - Nonblocking calls. `MPI_Isend`/`MPI_Irecv` make, in the primal, a *record* of the
//!   request (heap memory: the kind, the buffer's shadow, count, datatype, peer, tag,
//!   communicator, and room for the reversed request and a scratch buffer) and store its
//!   address in the shadow of the `MPI_Request` (a request variable holds a pointer, so its
//!   memory has a shadow, which follows the request where the program copies it, as a
//!   pointer's shadow does); the record is also the call's tape. `MPI_Wait`/`MPI_Waitall`
//!   take the records out of the requests' shadows in the primal (the shadow slot is
//!   cleared: a request is completed once) and keep them on the tape. The adjoint of the
//!   wait *starts* the reversed communication (an `MPI_Irecv` into scratch for an Isend, an
//!   `MPI_Isend` of `d(buf)` for an Irecv: by then every use of the received buffer has
//!   added its adjoint); the adjoint of the Isend/Irecv *completes* it (`MPI_Wait`), then
//!   adds the scratch into `d(buf)` (Isend) or zeroes `d(buf)` (Irecv), and frees the
//!   record. An integer-data Isend/Irecv clears its request's shadow, so that a stale
//!   record is never started.
//! - Message order. MPI matches messages of one channel (peer, tag, communicator) in the
//!   order they are posted. The reversed messages match as the primal's did only if each
//!   rank posts them in the reverse of the order it posted the primal's; a wait's adjoint
//!   posts at the wait's place, which is that order only when requests are waited for in
//!   the order they were posted. So each point-to-point call takes a sequence number in the
//!   primal (a per-process counter, the global `__<ns>_mpi_order`), and the adjoint checks
//!   that it posts in strictly decreasing order, stopping the program with a message
//!   otherwise (never a silently wrong derivative); `MPI_Waitall` starts its records in
//!   decreasing order itself, whatever their order in the array.
//!
//! Calls that only ask or set up (`MPI_Comm_rank`, `MPI_Comm_size`, `MPI_Init`,
//! `MPI_Wtime`, ...) move no derivative: where activity finds them active (a pointer into
//! memory that also holds floats), their adjoint does nothing. Everything else of MPI is
//! refused by `calls` (`parallel_construct`): one-sided communication, derived datatypes,
//! other calls. Forward mode refuses the family's data-moving calls, naming it; vector mode
//! too.
//!
//! What zyg cannot check: a reversed call is made only where the primal's call was active,
//! so both sides of a message must be differentiated (a send from memory zyg does not
//! differentiate to a receive into memory it does leaves the receiver's adjoint waiting).

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::builder::Cursor;
use crate::error::TransformError;
use crate::tangent::Tangent;
use crate::Plan;
use std::collections::HashMap;
use zyg_ir::{Callee, CastOp, Constant, FloatTy, Function, Inst, InstKind, Signature, Type, Value};

/// The calls with rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Routine {
    Send,
    Recv,
    Sendrecv,
    Isend,
    Irecv,
    Wait,
    Waitall,
    Bcast,
    Reduce,
    Allreduce,
    Gather,
    Scatter,
    Allgather,
    Barrier,
    /// Calls that move no derivative (queries, setup).
    Inert,
}

/// A call's routine, the float type its data has (None: integer data, or none), and its name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MpiCall {
    pub routine: Routine,
    pub elem: Option<FloatTy>,
    pub name: &'static str,
}

/// A parameter of OpenMPI's declaration: a pointer (buffers, handles, statuses, requests)
/// or an `int`.
#[derive(Clone, Copy, PartialEq)]
enum P {
    Ptr,
    Int,
}
use P::{Int, Ptr};

/// Where a routine's operands are.
struct Shape {
    params: &'static [P],
    /// (buffer, its datatype) pairs.
    buffers: &'static [(usize, usize)],
    /// The buffers the call writes.
    written: &'static [usize],
    /// The reduction operation.
    op: Option<usize>,
    /// The (source, tag) a receive matches, which may be wildcards.
    matches: Option<(usize, usize)>,
    /// A buffer that must not be `MPI_IN_PLACE`.
    no_in_place: Option<usize>,
    /// The `MPI_Request *` of a nonblocking call.
    request: Option<usize>,
}

const fn shape(params: &'static [P], buffers: &'static [(usize, usize)], written: &'static [usize]) -> Shape {
    Shape { params, buffers, written, op: None, matches: None, no_in_place: None, request: None }
}

impl Routine {
    fn shape(self) -> Shape {
        match self {
            Routine::Send => shape(&[Ptr, Int, Ptr, Int, Int, Ptr], &[(0, 2)], &[]),
            Routine::Recv => Shape { matches: Some((3, 4)), ..shape(&[Ptr, Int, Ptr, Int, Int, Ptr, Ptr], &[(0, 2)], &[0]) },
            Routine::Sendrecv => Shape {
                matches: Some((8, 9)),
                ..shape(&[Ptr, Int, Ptr, Int, Int, Ptr, Int, Ptr, Int, Int, Ptr, Ptr], &[(0, 2), (5, 7)], &[5])
            },
            Routine::Isend => Shape { request: Some(6), ..shape(&[Ptr, Int, Ptr, Int, Int, Ptr, Ptr], &[(0, 2)], &[]) },
            Routine::Irecv => {
                Shape { request: Some(6), matches: Some((3, 4)), ..shape(&[Ptr, Int, Ptr, Int, Int, Ptr, Ptr], &[(0, 2)], &[0]) }
            }
            Routine::Wait => shape(&[Ptr, Ptr], &[], &[]),
            Routine::Waitall => shape(&[Int, Ptr, Ptr], &[], &[]),
            Routine::Bcast => shape(&[Ptr, Int, Ptr, Int, Ptr], &[(0, 2)], &[0]),
            Routine::Reduce => Shape { op: Some(4), ..shape(&[Ptr, Ptr, Int, Ptr, Ptr, Int, Ptr], &[(0, 3), (1, 3)], &[1]) },
            Routine::Allreduce => Shape { op: Some(4), ..shape(&[Ptr, Ptr, Int, Ptr, Ptr, Ptr], &[(0, 3), (1, 3)], &[1]) },
            Routine::Gather => {
                Shape { no_in_place: Some(0), ..shape(&[Ptr, Int, Ptr, Ptr, Int, Ptr, Int, Ptr], &[(0, 2), (3, 5)], &[3]) }
            }
            Routine::Scatter => {
                Shape { no_in_place: Some(3), ..shape(&[Ptr, Int, Ptr, Ptr, Int, Ptr, Int, Ptr], &[(0, 2), (3, 5)], &[3]) }
            }
            Routine::Allgather => {
                Shape { no_in_place: Some(0), ..shape(&[Ptr, Int, Ptr, Ptr, Int, Ptr, Ptr], &[(0, 2), (3, 5)], &[3]) }
            }
            Routine::Barrier => shape(&[Ptr], &[], &[]),
            Routine::Inert => shape(&[], &[], &[]),
        }
    }

    /// The helper's name stem (`__<ns>_mpi_<d|s>_<stem>_adjoint`).
    fn stem(self) -> &'static str {
        match self {
            Routine::Send => "send",
            Routine::Recv => "recv",
            Routine::Sendrecv => "sendrecv",
            Routine::Isend => "isend",
            Routine::Irecv => "irecv",
            Routine::Wait => "wait",
            Routine::Waitall => "waitall",
            Routine::Bcast => "bcast",
            Routine::Reduce => "reduce",
            Routine::Allreduce => "allreduce",
            Routine::Gather => "gather",
            Routine::Scatter => "scatter",
            Routine::Allgather => "allgather",
            Routine::Barrier => "barrier",
            Routine::Inert => "inert",
        }
    }

    /// Point-to-point calls, which take a sequence number (the module comment).
    fn ordered(self) -> bool {
        matches!(self, Routine::Send | Routine::Recv | Routine::Sendrecv | Routine::Isend | Routine::Irecv)
    }
}

/// The calls with rules, by name.
static ROUTINES: &[(&str, Routine)] = &[
    ("MPI_Send", Routine::Send),
    ("MPI_Ssend", Routine::Send),
    ("MPI_Recv", Routine::Recv),
    ("MPI_Sendrecv", Routine::Sendrecv),
    ("MPI_Isend", Routine::Isend),
    ("MPI_Irecv", Routine::Irecv),
    ("MPI_Wait", Routine::Wait),
    ("MPI_Waitall", Routine::Waitall),
    ("MPI_Bcast", Routine::Bcast),
    ("MPI_Reduce", Routine::Reduce),
    ("MPI_Allreduce", Routine::Allreduce),
    ("MPI_Gather", Routine::Gather),
    ("MPI_Scatter", Routine::Scatter),
    ("MPI_Allgather", Routine::Allgather),
    ("MPI_Barrier", Routine::Barrier),
    ("MPI_Comm_rank", Routine::Inert),
    ("MPI_Comm_size", Routine::Inert),
    ("MPI_Init", Routine::Inert),
    ("MPI_Init_thread", Routine::Inert),
    ("MPI_Initialized", Routine::Inert),
    ("MPI_Finalize", Routine::Inert),
    ("MPI_Finalized", Routine::Inert),
    ("MPI_Abort", Routine::Inert),
    ("MPI_Wtime", Routine::Inert),
    ("MPI_Wtick", Routine::Inert),
    ("MPI_Get_count", Routine::Inert),
    ("MPI_Get_processor_name", Routine::Inert),
];

/// The routine `name` calls, if zyg has rules for it.
pub fn lookup(name: &str) -> Option<(&'static str, Routine)> {
    ROUTINES.iter().find(|(n, _)| *n == name).copied()
}

/// Calls that activity keeps in the adjoint whatever their arguments: `MPI_Barrier`, which
/// the adjoint replays (`crate::activity`).
pub fn is_replayed(name: &str) -> bool {
    name == "MPI_Barrier"
}

/// OpenMPI's datatypes of integers (no derivative moves through them).
const INTEGER_TYPES: &[&str] = &[
    "char",
    "signed_char",
    "unsigned_char",
    "short",
    "unsigned_short",
    "int",
    "unsigned",
    "long",
    "unsigned_long",
    "long_long_int",
    "unsigned_long_long",
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "c_bool",
    "wchar",
    "aint",
    "offset",
    "count",
];

/// What a datatype operand says of the data.
enum Data {
    Float(FloatTy),
    Integer,
    /// Another predefined datatype, named as the program writes it (`MPI_BYTE`).
    Other(String),
    /// Not a predefined datatype known at compile time.
    Unknown,
}

fn data_of(func: &Function, v: Value) -> Data {
    let Some(Constant::Global(name, _)) = func.constant(v) else { return Data::Unknown };
    let Some(t) = name.strip_prefix("ompi_mpi_") else { return Data::Unknown };
    match t {
        "double" => Data::Float(FloatTy::F64),
        "float" => Data::Float(FloatTy::F32),
        t if INTEGER_TYPES.contains(&t) => Data::Integer,
        t => Data::Other(format!("MPI_{}", t.to_uppercase())),
    }
}

/// `MPI_IN_PLACE`, `(void *) 1`, as preparation leaves it: an `inttoptr` of 1.
fn is_in_place(func: &Function, v: Value) -> bool {
    let Some(inst) = func.def_inst(v) else { return false };
    matches!(&func.insts[inst].kind, InstKind::Cast { op: CastOp::IntToPtr, arg }
        if matches!(func.constant(*arg), Some(Constant::Int { value: 1, .. })))
}

/// An `int` constant's value.
fn int_constant(func: &Function, v: Value) -> Option<i64> {
    match func.constant(v) {
        Some(Constant::Int { bits: 32, value }) => Some(*value as u32 as i32 as i64),
        _ => None,
    }
}

pub struct Mpi;

impl RuleFamily for Mpi {
    fn name(&self) -> &'static str {
        "MPI calls"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        let InstKind::Call { callee: Callee::Direct(callee), sig, args, .. } = &cx.func.insts[inst].kind else {
            return Ok(None);
        };
        let Some((name, routine)) = lookup(callee).filter(|_| cx.module.function(callee).is_none()) else { return Ok(None) };
        let pullback = |elem| Ok(Some(Choice::Pullback(Pullback::Mpi(MpiCall { routine, elem, name }))));
        if routine == Routine::Inert {
            return pullback(None);
        }
        let func = cx.func;
        let refuse = |what: String| Err(TransformError::at(func, inst, format!("`{name}`: {what}")));
        let shape = routine.shape();
        let expected: Vec<Type> = shape.params.iter().map(|p| if *p == Ptr { Type::PTR } else { Type::I32 }).collect();
        if sig.params != expected || sig.ret != Type::I32 || sig.variadic {
            return refuse(format!(
                "zyg's MPI rules expect OpenMPI's declaration `i32 ({})`, whose handles are pointers; this one \
                 is `{} ({})`; compile with OpenMPI's mpi.h (`mpicc -showme:compile`)",
                list(&expected),
                sig.ret,
                list(&sig.params)
            ));
        }
        let activity = cx.activity;
        let mut elem = None;
        let mut integer = false;
        for &(buf, datatype) in shape.buffers {
            if is_in_place(func, args[buf]) {
                continue;
            }
            match data_of(func, args[datatype]) {
                Data::Float(ty) if elem.is_none_or(|e| e == ty) => elem = Some(ty),
                Data::Float(_) => return refuse(
                    "its send and receive datatypes differ (`MPI_DOUBLE` and `MPI_FLOAT`); zyg's rules need one float datatype"
                        .into(),
                ),
                Data::Integer => integer = true,
                Data::Other(t) => {
                    return refuse(format!(
                        "its datatype `{t}` is not supported: zyg differentiates MPI calls on `MPI_DOUBLE` and \
                         `MPI_FLOAT` buffers (integer datatypes carry no derivative); send the floats with their own \
                         datatype"
                    ))
                }
                Data::Unknown => {
                    return refuse(format!(
                        "its datatype (argument {}) is not one of MPI's predefined datatypes known at compile time; \
                         zyg differentiates MPI calls whose datatype is written at the call (`MPI_DOUBLE`, \
                         `MPI_FLOAT`); derived datatypes are not supported yet",
                        datatype + 1
                    ))
                }
            }
        }
        if elem.is_some() && integer {
            return refuse("it sends one datatype and receives another (a float and an integer type)".into());
        }
        let Some(ty) = elem else { return pullback(None) };
        if let Some(op) = shape.op {
            match func.constant(args[op]) {
                Some(Constant::Global(g, _)) if g == "ompi_mpi_op_sum" => {}
                Some(Constant::Global(g, _)) if g.starts_with("ompi_mpi_op_") => {
                    let op = format!("MPI_{}", g["ompi_mpi_op_".len()..].to_uppercase());
                    return refuse(format!(
                        "the reduction `{op}` of floats is not supported: zyg differentiates `MPI_SUM` reductions \
                         only; reduce with MPI_SUM, or gather the values and reduce them in code zyg differentiates"
                    ));
                }
                _ => {
                    return refuse(
                        "its reduction operation is not one of MPI's predefined operations known at compile time; \
                         zyg differentiates `MPI_SUM` reductions only"
                            .into(),
                    )
                }
            }
        }
        if let Some((source, tag)) = shape.matches {
            for (k, what) in [(source, "MPI_ANY_SOURCE"), (tag, "MPI_ANY_TAG")] {
                if int_constant(func, args[k]) == Some(-1) {
                    return refuse(format!(
                        "a receive with `{what}` is not supported: its adjoint must send back to the rank and tag \
                         the message came from; receive from a named rank with a named tag"
                    ));
                }
            }
        }
        if let Some(k) = shape.no_in_place.filter(|k| is_in_place(func, args[*k])) {
            return refuse(format!(
                "`MPI_IN_PLACE` (argument {}) is not supported for this call yet; use separate send and receive buffers",
                k + 1
            ));
        }
        // A null buffer is what a rank that is not the root passes to a rooted collective:
        // nothing is written there.
        for &k in shape.written {
            let null = matches!(func.constant(args[k]), Some(Constant::Null(_)));
            if !null && !is_in_place(func, args[k]) && !activity.has_shadow(args[k]) {
                return refuse(format!(
                    "it writes {} into memory zyg does not differentiate (argument {}: a global, or memory a \
                     `const` argument reaches), so the derivatives it receives would be lost; receive into a local \
                     array, heap memory, or memory passed with `enzyme_dup`",
                    if ty == FloatTy::F64 { "doubles" } else { "floats" },
                    k + 1
                ));
            }
        }
        if let Some(k) = shape.request.filter(|k| !activity.has_shadow(args[*k])) {
            return refuse(format!(
                "its request (argument {}) is kept where zyg cannot keep the request's record (a global); keep the \
                 `MPI_Request` in a local variable or heap memory",
                k + 1
            ));
        }
        pullback(Some(ty))
    }

    /// The call's arguments, its buffers' shadows, and what its primal step recorded (a
    /// sequence number, a request's record, a wait's records).
    fn alphas(&self, needs: &mut Alphas, inst: Inst, pullback: &Pullback) {
        let (Pullback::Mpi(call), InstKind::Call { args, .. }) = (pullback, &needs.func.insts[inst].kind) else { return };
        match call.routine {
            Routine::Barrier => needs.value(args[0]),
            Routine::Wait | Routine::Waitall => needs.callee_tape(inst, Type::PTR),
            Routine::Isend | Routine::Irecv if call.elem.is_some() => needs.callee_tape(inst, Type::PTR),
            _ if call.elem.is_some() => {
                for (k, &a) in args.iter().enumerate() {
                    if call.routine.shape().buffers.iter().any(|(b, _)| *b == k) {
                        needs.shadow_if_any(a);
                    }
                    needs.value(a);
                }
                if call.routine.ordered() {
                    needs.callee_tape(inst, Type::I64);
                }
            }
            _ => {}
        }
    }

    fn reverse(&self, cx: &mut Reverse, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Mpi(call) = pullback else { return Ok(()) };
        if cx.width() > 1 {
            return Err(TransformError::at(
                cx.func(),
                cx.inst,
                format!(
                    "`{}`: vector mode (`enzyme_width`) through an MPI call is not supported yet; make one request per direction",
                    call.name
                ),
            ));
        }
        let ns = cx.plan().namespace.clone();
        let InstKind::Call { args, .. } = cx.kind() else { return Ok(()) };
        let (name, helper_args) = match (call.routine, call.elem) {
            (Routine::Barrier, _) => {
                let comm = cx.alpha(args[0])?;
                ("MPI_Barrier".to_string(), vec![comm])
            }
            (Routine::Wait, _) => (format!("__{ns}_mpi_wait_adjoint"), vec![cx.callee_tape()?]),
            (Routine::Waitall, _) => {
                let count = cx.alpha(args[0])?;
                (format!("__{ns}_mpi_waitall_adjoint"), vec![count, cx.callee_tape()?])
            }
            (_, None) => return Ok(()),
            (Routine::Isend | Routine::Irecv, Some(elem)) => (call.helper(&ns, elem), vec![cx.callee_tape()?]),
            (_, Some(elem)) => {
                let func = cx.func();
                let buffers = call.routine.shape().buffers;
                let mut helper_args = Vec::new();
                if call.routine.ordered() {
                    helper_args.push(cx.callee_tape()?);
                }
                for (k, &a) in args.iter().enumerate() {
                    let is_buffer = buffers.iter().any(|(b, _)| *b == k);
                    // A status is not read; a buffer's address only to tell `MPI_IN_PLACE`.
                    if func.ty(a).is_ptr() && is_buffer {
                        helper_args.push(cx.alpha(a)?);
                        let shadow =
                            if cx.plan().activity.has_shadow(a) { cx.shadow(a)? } else { cx.constant(Constant::Null(0)) };
                        helper_args.push(shadow);
                    } else if !(func.ty(a).is_ptr() && k + 1 == args.len() && call.routine.shape().matches.is_some()) {
                        helper_args.push(cx.alpha(a)?);
                    }
                }
                (call.helper(&ns, elem), helper_args)
            }
        };
        let mut c = cx.cursor();
        let ret = if name == "MPI_Barrier" { Type::I32 } else { Type::Void };
        let sig = Signature::new(helper_args.iter().map(|v| c.func.ty(*v).clone()).collect(), ret);
        c.call(&name, sig, helper_args);
        Ok(())
    }

    /// Forward mode: the calls that move no derivative keep their place; the others are
    /// refused, naming the family.
    fn tangent(&self, cx: &mut Tangent, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Mpi(call) = pullback else { return Ok(()) };
        match call.routine {
            Routine::Inert | Routine::Barrier => Ok(()),
            _ => Err(TransformError::at(
                cx.func(),
                cx.inst,
                format!(
                    "`{}`: forward mode does not handle MPI calls yet (rule family `{}`); use reverse mode",
                    call.name,
                    self.name()
                ),
            )),
        }
    }
}

impl MpiCall {
    /// The adjoint helper of this call, in `namespace`, for data of `elem`.
    fn helper(&self, namespace: &str, elem: FloatTy) -> String {
        format!("__{namespace}_mpi_{}_{}_adjoint", letter(elem), self.routine.stem())
    }
}

fn letter(elem: FloatTy) -> &'static str {
    if elem == FloatTy::F32 {
        "s"
    } else {
        "d"
    }
}

/// A step of the primal: the sequence number of each point-to-point call (taken before
/// it), the record of each nonblocking call (made after it, its address stored in the
/// request's shadow), the records each wait takes out of its requests' shadows (before
/// it). Returns each call's tape value.
pub fn record_requests(plan: &Plan, p: &mut Function, shadows: &HashMap<Value, Value>) -> HashMap<Inst, Value> {
    let ns = &plan.namespace;
    let mut tapes = HashMap::new();
    for (inst, pullback) in super::chosen(&plan.pullbacks) {
        let Pullback::Mpi(call) = pullback else { continue };
        let InstKind::Call { args, .. } = plan.func.insts[inst].kind.clone() else { continue };
        let b = plan.block_of[inst];
        let at = crate::primal::position(p, b, inst);
        let null = p.constant_value(Constant::Null(0));
        let shadow = |v: Value| shadows.get(&v).copied().unwrap_or(null);
        let (helper, helper_args, ret, after) = match (call.routine, call.elem) {
            (Routine::Wait, _) => (format!("__{ns}_mpi_wait_save"), vec![shadow(args[0])], Type::PTR, false),
            (Routine::Waitall, _) => (format!("__{ns}_mpi_waitall_save"), vec![args[0], shadow(args[1])], Type::PTR, false),
            (Routine::Isend | Routine::Irecv, None) => {
                (format!("__{ns}_mpi_forget_request"), vec![shadow(args[6])], Type::Void, true)
            }
            (Routine::Isend | Routine::Irecv, Some(elem)) => {
                let kind = p.constant_value(Constant::int(32, if call.routine == Routine::Isend { 1 } else { 2 }));
                let mut v = vec![kind, shadow(args[0])];
                v.extend_from_slice(&args[1..6]);
                v.push(shadow(args[6]));
                (format!("__{ns}_mpi_{}_request_record", letter(elem)), v, Type::PTR, true)
            }
            (routine, Some(_)) if routine.ordered() => (format!("__{ns}_mpi_next"), vec![], Type::I64, false),
            _ => continue,
        };
        let sig = Signature::new(helper_args.iter().map(|v| p.ty(*v).clone()).collect(), ret);
        let mut c = Cursor { func: p, block: b, at: Some(at + usize::from(after)) };
        if let Some(t) = c.call(&helper, sig, helper_args) {
            tapes.insert(inst, t);
        }
    }
    tapes
}

fn list(types: &[Type]) -> String {
    types.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ")
}

/// The helpers' text (`mpi.zir`), for `double` and `float`.
const TEMPLATE: &str = include_str!("mpi.zir");

/// The helper functions for data of `elem` (and the untyped ones, the same for both), in
/// `namespace`, without the stops (`stops`).
pub fn helpers(namespace: &str, elem: FloatTy) -> Vec<Function> {
    let (real, bytes) = match elem {
        FloatTy::F32 => ("float", "4"),
        _ => ("double", "8"),
    };
    let text = TEMPLATE
        .replace("@NS_X_", &format!("@__{namespace}_mpi_{}_", letter(elem)))
        .replace("@NS_", &format!("@__{namespace}_mpi_"))
        .replace("REAL", real)
        .replace("ELEMBYTES", bytes);
    let module = zyg_ir::text::parse_module(&text).expect("zyg's MPI helpers parse");
    module
        .functions
        .into_iter()
        .map(|mut f| {
            f.linkage = zyg_ir::Linkage::Internal;
            f
        })
        .collect()
}

/// The helpers that stop the program with a message where a derivative would be wrong at
/// run time, which the text helpers call: (name, message).
pub fn stops(namespace: &str) -> Vec<(String, &'static str)> {
    vec![
        (
            format!("__{namespace}_mpi_stop_wildcard"),
            "zyg: runtime error: a receive with MPI_ANY_SOURCE or MPI_ANY_TAG was differentiated: its adjoint must \
             send back to the rank and tag the message came from, and zyg does not record them; receive from a \
             named rank with a named tag.\n",
        ),
        (
            format!("__{namespace}_mpi_stop_in_place"),
            "zyg: runtime error: MPI_IN_PLACE in MPI_Gather, MPI_Scatter or MPI_Allgather is not supported by \
             zyg's MPI rules yet; use separate send and receive buffers.\n",
        ),
        (
            format!("__{namespace}_mpi_stop_order"),
            "zyg: runtime error: the gradient would post MPI messages in another order than the reverse of the \
             program's, and messages of one rank, tag and communicator would then match the wrong ones: zyg \
             needs nonblocking requests waited for in the order they were started (MPI_Waitall may take them \
             in any order).\n",
        ),
        (
            format!("__{namespace}_mpi_stop_unstarted"),
            "zyg: runtime error: the adjoint of an MPI_Isend or MPI_Irecv found its reversed communication not \
             started: the request was completed by a wait zyg did not differentiate (or reached through memory \
             zyg does not trace); wait for requests in the function being differentiated.\n",
        ),
    ]
}

/// The global the sequence numbers are counted in: `{ next, last posted }`.
pub fn order_global(namespace: &str) -> (String, Type) {
    (format!("__{namespace}_mpi_order"), Type::Array(2, std::sync::Arc::new(Type::I64)))
}

/// Whether `name` is one of this module's helpers (`__<ns>_mpi_...`).
pub fn is_helper(namespace: &str, name: &str) -> bool {
    name.starts_with(&format!("__{namespace}_mpi_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_parse_and_verify() {
        for elem in [FloatTy::F64, FloatTy::F32] {
            let fs = helpers("zyg", elem);
            for f in &fs {
                zyg_ir::verify(f).unwrap_or_else(|e| panic!("{}: {e}", f.name));
            }
            for (_, routine) in ROUTINES {
                let call = MpiCall { routine: *routine, elem: Some(elem), name: "" };
                if matches!(routine, Routine::Inert | Routine::Barrier | Routine::Wait | Routine::Waitall) {
                    continue;
                }
                let helper = call.helper("zyg", elem);
                assert!(fs.iter().any(|f| f.name == helper), "{helper} missing");
            }
        }
    }
}
