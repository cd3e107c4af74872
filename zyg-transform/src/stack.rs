//! The tape's growable stacks, emitted inline as small zyg-ir functions so that gradients
//! need nothing but libc (`malloc`, `free`, and glibc's `__cxa_thread_atexit_impl`). A
//! stack is a list of chunks; records are fixed-size per block and pushed by bumping an
//! offset. Released chunks are kept in a thread-local cache for the next call, so that a
//! gradient run in a loop (training) does not map, fault in and unmap its tape every time.
//!
//! The cache is bounded and given back: it holds only standard chunks (`CHUNK_BYTES`), at
//! most `CACHED_CHUNKS` of them (64 MiB per thread and namespace); a thread's cache is freed
//! when the thread exits (a destructor registered the first time the thread caches a
//! chunk), and `__zyg_release_tape_cache()` frees the calling thread's cache at once
//! (`RELEASE_TAPE_CACHE`). GPU modules have no cache.

use crate::builder::Cursor;
use zyg_ir::{BinOp, Constant, Function, InstKind, IntPred, Linkage, Signature, Type, Value};

/// The stack operations; the helper functions are named `__<namespace>_stack_<op>`.
///
/// The last three keep a shadow stack's memory for reverse mode over a generated gradient
/// (`rules::stacks`): the outer primal pushes with `PushKeep` and pops with `PopKeep`, which
/// never release a chunk (the outer adjoint still adds into its records), and the outer
/// adjoint frees each chunk going back past the push that took it (`Unpush`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Push,
    Top,
    Pop,
    Free,
    PushKeep,
    PopKeep,
    Unpush,
}

impl Op {
    pub fn name(self, namespace: &str) -> String {
        let op = match self {
            Op::Push => "push",
            Op::Top => "top",
            Op::Pop => "pop",
            Op::Free => "free",
            Op::PushKeep => "push_keep",
            Op::PopKeep => "pop_keep",
            Op::Unpush => "unpush",
        };
        format!("__{namespace}_stack_{op}")
    }
}

/// The stack operation a function of a generated gradient is, by its name
/// (`__zyg_stack_push`, `__zyg1_stack_top`, for any namespace `zyg<digits>` the driver
/// chose): a gradient differentiated again (a nested derivative) calls them, and their
/// rules (`rules::stacks`) mirror them on the shadow stack.
pub fn op_of(name: &str) -> Option<Op> {
    let op = name.strip_prefix("__zyg")?.trim_start_matches(|c: char| c.is_ascii_digit()).strip_prefix("_stack_")?;
    match op {
        "push" => Some(Op::Push),
        "top" => Some(Op::Top),
        "pop" => Some(Op::Pop),
        "free" => Some(Op::Free),
        "push_keep" => Some(Op::PushKeep),
        "pop_keep" => Some(Op::PopKeep),
        "unpush" => Some(Op::Unpush),
        _ => None,
    }
}

/// The header type of one stack: `{ ptr chunk, i64 used, i64 end }`, the newest chunk,
/// the offset of its first free byte, and its size.
pub fn header_type() -> Type {
    Type::structure(vec![Type::PTR, Type::I64, Type::I64])
}

/// `push(header, record size) -> ptr`: room for one more record; `top(header, size)` -> the
/// newest record; `pop(header, size)` drops it; `free(header)` releases every chunk;
/// `unpush(record, size)` frees the chunk a kept stack's push took for `record`.
pub fn signature(op: Op) -> Signature {
    match op {
        Op::Push | Op::Top | Op::PushKeep => Signature::new(vec![Type::PTR, Type::I64], Type::PTR),
        Op::Pop | Op::PopKeep | Op::Unpush => Signature::new(vec![Type::PTR, Type::I64], Type::Void),
        Op::Free => Signature::new(vec![Type::PTR], Type::Void),
    }
}

/// Bytes of the first chunk of a stack kept inside the tape (`inline_stack_type`).
pub const INLINE_CHUNK_BYTES: i64 = 512;

/// A stack whose first chunk is part of the tape: `{ header, [INLINE_CHUNK_BYTES x i8] }`
/// (the header first, so a pointer to the field is a pointer to the header). On a GPU the
/// tape is in local memory, so a loop's records need no `malloc` until they outgrow it.
pub fn inline_stack_type() -> Type {
    Type::structure(vec![header_type(), Type::Array(INLINE_CHUNK_BYTES as u64, Type::I8.into())])
}

/// Points a stack at its inline chunk: `{ chunk, used = chunk header, end = its size }`,
/// the chunk's own header saying it has no predecessor.
pub fn init_inline(c: &mut Cursor, stack: Value) {
    let ty = inline_stack_type();
    let chunk = c.field_ptr(&ty, stack, &[1]);
    let null = c.constant(Constant::Null(0));
    let zero = c.i64(0);
    let size = c.i64(INLINE_CHUNK_BYTES);
    let ch = chunk_header();
    let (prev_p, prev_used_p, size_p) =
        (c.field_ptr(&ch, chunk, &[0]), c.field_ptr(&ch, chunk, &[1]), c.field_ptr(&ch, chunk, &[2]));
    c.store(null, prev_p);
    c.store(zero, prev_used_p);
    c.store(size, size_p);
    let h = header_type();
    let (chunk_p, used_p, end_p) = (c.field_ptr(&h, stack, &[0]), c.field_ptr(&h, stack, &[1]), c.field_ptr(&h, stack, &[2]));
    let header = c.i64(CHUNK_HEADER);
    c.store(chunk, chunk_p);
    c.store(header, used_p);
    c.store(size, end_p);
}

/// Bytes in a chunk. A stack is a list of chunks, newest first, so that growing never
/// copies records (a contiguous buffer grown by `realloc` copied the whole tape, and fresh
/// pages faulted in on every call).
pub const CHUNK_BYTES: i64 = 64 * 1024;
/// A stack's first chunk (other than a kept stack's, or the inline one of GPU tapes); the
/// next ones double up to `CHUNK_BYTES`.
pub const FIRST_CHUNK_BYTES: i64 = 1024;
/// A chunk starts with `{ ptr previous chunk, i64 previous used, i64 size }`; records follow
/// at this offset (16-byte aligned, like `malloc`'s memory, for vector fields).
const CHUNK_HEADER: i64 = 32;
/// Released chunks of `CHUNK_BYTES` are kept for the next push, per thread, up to this many
/// (the next gradient call then finds its tape's memory mapped and warm); beyond, freed.
/// So a thread keeps at most 64 MiB per namespace (one per round of nested requests,
/// `zyg`, `zyg1`, ...) of each module: freed when the thread exits, or when it calls
/// `__zyg_release_tape_cache()` (`RELEASE_TAPE_CACHE`).
pub const CACHED_CHUNKS: i64 = 1024;

/// The C entry point that frees the calling thread's cached chunks of every namespace of
/// the module it is called from. The driver fills it in: the module's declaration becomes
/// an internal function calling each namespace's `release_cache_name` helper (so each
/// module releases its own caches, and several modules never define it twice).
pub const RELEASE_TAPE_CACHE: &str = "__zyg_release_tape_cache";

/// The thread-local cache of released chunks, `{ ptr head, i64 count, i64 registered,
/// i64 live }`: the chunks, linked through their first word, how many, whether this thread
/// has registered the destructor that frees them when it exits (`cache_at_exit`), and the
/// bytes of the chunks the thread's stacks hold now (`live_bytes`). The driver defines it
/// (zero-initialised, `thread_local`).
pub fn cache_global(namespace: &str) -> (String, Type) {
    (format!("__{namespace}_stack_cache"), Type::structure(vec![Type::PTR, Type::I64, Type::I64, Type::I64]))
}

/// The bytes of the chunks the calling thread's stacks of `namespace` hold now: what a
/// taped run has taken is the difference before and after it (a segmented loop's steps
/// measure their tape per iteration so: `segment`). CPU code only.
pub fn live_bytes(c: &mut Cursor, namespace: &str) -> Value {
    let (name, ty) = cache_global(namespace);
    let cache = c.constant(Constant::Global(name, 0));
    let live_p = c.field_ptr(&ty, cache, &[3]);
    c.load(Type::I64, live_p)
}

/// Adds `delta` bytes to the thread's count of chunk bytes in use (`live_bytes`).
fn count_live(c: &mut Cursor, cache: Value, ty: &Type, delta: Value) {
    let live_p = c.field_ptr(ty, cache, &[3]);
    let live = c.load(Type::I64, live_p);
    let now = c.binary(BinOp::Add, live, delta);
    c.store(now, live_p);
}

/// `void __<namespace>_stack_release_cache(void)`: frees the calling thread's cached chunks
/// of `namespace`; `RELEASE_TAPE_CACHE` calls one per namespace.
pub fn release_cache_name(namespace: &str) -> String {
    format!("__{namespace}_stack_release_cache")
}

/// The namespace whose `release_cache_name` helper `name` is, if it is one.
pub fn release_cache_namespace(name: &str) -> Option<&str> {
    let namespace = name.strip_prefix("__")?.strip_suffix("_stack_release_cache")?;
    let digits = namespace.strip_prefix("zyg")?;
    digits.chars().all(|c| c.is_ascii_digit()).then_some(namespace)
}

/// The helper functions, to be emitted once per module. For GPUs (no thread-local globals,
/// stacks starting in the tape, `inline_stack_type`) chunks come from `malloc` and go back
/// to `free`, and the first chunk of a stack is never freed; the kept stacks of reverse
/// mode over a gradient are refused there, so GPUs have no kept-stack helpers, and no cache
/// to release.
pub fn helpers(namespace: &str, gpu: bool) -> Vec<Function> {
    let mut out = vec![push(namespace), top(namespace), pop(namespace), free(namespace, gpu)];
    if gpu {
        out.extend([plain_take(namespace), plain_release(namespace)]);
    } else {
        out.extend([
            // Before `release_chunk`, which takes its address.
            cache_at_exit(namespace),
            release_cache(namespace),
            take_chunk(namespace),
            release_chunk(namespace),
            push_keep(namespace),
            pop_keep(namespace),
            unpush(namespace),
        ]);
    }
    out
}

fn plain_take(namespace: &str) -> Function {
    let mut f = helper(take_name(namespace), Signature::new(vec![Type::I64], Type::PTR));
    let size = f.params[0];
    let entry = f.entry().expect("entry");
    let mut c = Cursor::at_end(&mut f, entry);
    let memory = c.call("malloc", Signature::new(vec![Type::I64], Type::PTR), vec![size]).expect("ptr");
    c.ret(Some(memory));
    f
}

fn plain_release(namespace: &str) -> Function {
    let mut f = helper(release_name(namespace), Signature::new(vec![Type::PTR], Type::Void));
    let chunk = f.params[0];
    let entry = f.entry().expect("entry");
    let mut c = Cursor::at_end(&mut f, entry);
    c.free(chunk);
    c.ret(None);
    f
}

fn helper(name: String, sig: Signature) -> Function {
    let mut f = Function::new(name, sig);
    f.linkage = Linkage::Internal;
    f.attributes = vec!["alwaysinline".into(), "nounwind".into()];
    f.create_block(Some("entry".into()));
    f
}

fn take_name(namespace: &str) -> String {
    format!("__{namespace}_stack_take_chunk")
}

fn release_name(namespace: &str) -> String {
    format!("__{namespace}_stack_release_chunk")
}

/// `take_chunk(size) -> ptr`: a cached chunk when `size` is `CHUNK_BYTES` and one is
/// cached, else `malloc`; aborts when memory runs out.
fn take_chunk(namespace: &str) -> Function {
    let mut f = helper(take_name(namespace), Signature::new(vec![Type::I64], Type::PTR));
    f.attributes = vec!["nounwind".into()];
    let size = f.params[0];
    let entry = f.entry().expect("entry");
    let cached = f.create_block(Some("cached".into()));
    let fresh = f.create_block(Some("fresh".into()));
    let (name, ty) = cache_global(namespace);
    let mut c = Cursor::at_end(&mut f, entry);
    let cache = c.constant(Constant::Global(name, 0));
    count_live(&mut c, cache, &ty, size);
    let (head_p, count_p) = (c.field_ptr(&ty, cache, &[0]), c.field_ptr(&ty, cache, &[1]));
    let head = c.load(Type::PTR, head_p);
    let null = c.constant(Constant::Null(0));
    let empty = c.icmp(IntPred::Eq, head, null);
    let chunk = c.i64(CHUNK_BYTES);
    let standard = c.icmp(IntPred::Eq, size, chunk);
    let not_empty = c.not(empty);
    let reuse = c.binary(BinOp::And, standard, not_empty);
    c.cond_br(reuse, cached, fresh);

    c.switch_to(cached);
    let next = c.load(Type::PTR, head);
    c.store(next, head_p);
    let count = c.load(Type::I64, count_p);
    let one = c.i64(1);
    let less = c.binary(BinOp::Sub, count, one);
    c.store(less, count_p);
    c.ret(Some(head));

    c.switch_to(fresh);
    let memory = c.call("malloc", Signature::new(vec![Type::I64], Type::PTR), vec![size]).expect("ptr");
    abort_if_null(&mut c, memory);
    c.ret(Some(memory));
    f
}

/// `release_chunk(chunk)`: into the cache when it is a standard chunk and the cache has
/// room, else `free`. The first chunk a thread caches registers `cache_at_exit` for the
/// thread (`register_at_exit`); later ones test one flag beside the count.
fn release_chunk(namespace: &str) -> Function {
    let mut f = helper(release_name(namespace), Signature::new(vec![Type::PTR], Type::Void));
    f.attributes = vec!["nounwind".into()];
    let chunk = f.params[0];
    let entry = f.entry().expect("entry");
    let keep = f.create_block(Some("keep".into()));
    let drop = f.create_block(Some("drop".into()));
    let register = f.create_block(Some("register".into()));
    let kept = f.create_block(Some("kept".into()));
    let (name, ty) = cache_global(namespace);
    let mut c = Cursor::at_end(&mut f, entry);
    let cache = c.constant(Constant::Global(name, 0));
    let (head_p, count_p) = (c.field_ptr(&ty, cache, &[0]), c.field_ptr(&ty, cache, &[1]));
    let size_p = c.field_ptr(&chunk_header(), chunk, &[2]);
    let size = c.load(Type::I64, size_p);
    let nothing = c.i64(0);
    let gone = c.binary(BinOp::Sub, nothing, size);
    count_live(&mut c, cache, &ty, gone);
    let standard_size = c.i64(CHUNK_BYTES);
    let standard = c.icmp(IntPred::Eq, size, standard_size);
    let count = c.load(Type::I64, count_p);
    let limit = c.i64(CACHED_CHUNKS);
    let room = c.icmp(IntPred::Ult, count, limit);
    let cacheable = c.binary(BinOp::And, standard, room);
    c.cond_br(cacheable, keep, drop);

    c.switch_to(keep);
    let head = c.load(Type::PTR, head_p);
    c.store(head, chunk);
    c.store(chunk, head_p);
    let one = c.i64(1);
    let more = c.binary(BinOp::Add, count, one);
    c.store(more, count_p);
    let registered_p = c.field_ptr(&ty, cache, &[2]);
    let registered = c.load(Type::I64, registered_p);
    let zero = c.i64(0);
    let first = c.icmp(IntPred::Eq, registered, zero);
    c.cond_br(first, register, kept);

    c.switch_to(register);
    register_at_exit(&mut c, namespace, cache, registered_p);
    c.br(kept);

    c.switch_to(kept);
    c.ret(None);

    c.switch_to(drop);
    c.free(chunk);
    c.ret(None);
    f
}

/// glibc's registration of a thread's destructors (what C++ `thread_local` objects use):
/// `int __cxa_thread_atexit_impl(void (*)(void *), void *object, void *dso_symbol)`, in
/// libc itself since glibc 2.18, so C programs linked without `-pthread` have it, and it
/// needs no process-wide key (`pthread_key_create` would, made once by every thread racing
/// for it). The destructor runs when the thread exits (for the main thread, at `exit`);
/// `dso_symbol`, any address in this module, keeps a `dlopen`ed library loaded until then.
const THREAD_AT_EXIT: &str = "__cxa_thread_atexit_impl";

fn cache_at_exit_name(namespace: &str) -> String {
    format!("__{namespace}_stack_cache_at_exit")
}

/// Registers `cache_at_exit(cache)` for this thread and records that it did (at
/// `registered_p`); if registering fails (no memory), the next cached chunk tries again.
fn register_at_exit(c: &mut Cursor, namespace: &str, cache: Value, registered_p: Value) {
    let destructor = c.constant(Constant::Global(cache_at_exit_name(namespace), 0));
    let sig = Signature::new(vec![Type::PTR, Type::PTR, Type::PTR], Type::I32);
    let status = c.call(THREAD_AT_EXIT, sig, vec![destructor, cache, destructor]).expect("int");
    let ok = c.constant(Constant::int(32, 0));
    let done = c.icmp(IntPred::Eq, status, ok);
    let flag = c.cast(zyg_ir::CastOp::ZExt, done, Type::I64);
    c.store(flag, registered_p);
}

/// Frees every chunk in the cache at `cache` and empties it (its registration stays).
fn drain_cache(c: &mut Cursor, cache: Value, ty: &Type) {
    let (head_p, count_p) = (c.field_ptr(ty, cache, &[0]), c.field_ptr(ty, cache, &[1]));
    let start = c.block;
    let walk = c.func.create_block(Some("walk".into()));
    let done = c.func.create_block(Some("drained".into()));
    let head = c.load(Type::PTR, head_p);
    let null = c.constant(Constant::Null(0));
    let empty = c.icmp(IntPred::Eq, head, null);
    c.cond_br(empty, done, walk);

    c.switch_to(walk);
    let chunk = c.emit(InstKind::Phi { incoming: vec![(start, head)] }, Type::PTR).expect("phi");
    let next = c.load(Type::PTR, chunk);
    c.free(chunk);
    let last = c.icmp(IntPred::Eq, next, null);
    c.cond_br(last, done, walk);
    let phi = c.func.def_inst(chunk).expect("phi inst");
    if let InstKind::Phi { incoming } = &mut c.func.insts[phi].kind {
        incoming.push((walk, next));
    }

    c.switch_to(done);
    c.store(null, head_p);
    let zero = c.i64(0);
    c.store(zero, count_p);
}

/// `cache_at_exit(cache)`: the destructor of a thread's cache, run as the thread exits:
/// frees its chunks, and clears the registration, so that a gradient run after it (by a
/// later destructor of the same thread) registers again and its chunks are freed too.
fn cache_at_exit(namespace: &str) -> Function {
    let mut f = helper(cache_at_exit_name(namespace), Signature::new(vec![Type::PTR], Type::Void));
    f.attributes = vec!["nounwind".into()];
    let cache = f.params[0];
    let entry = f.entry().expect("entry");
    let ty = cache_global(namespace).1;
    let mut c = Cursor::at_end(&mut f, entry);
    drain_cache(&mut c, cache, &ty);
    let registered_p = c.field_ptr(&ty, cache, &[2]);
    let zero = c.i64(0);
    c.store(zero, registered_p);
    c.ret(None);
    f
}

/// `release_cache()` (`release_cache_name`): frees the calling thread's cached chunks. The
/// thread's destructor stays registered (it finds the cache empty, or what was cached
/// since), so releasing often registers nothing more.
fn release_cache(namespace: &str) -> Function {
    let mut f = helper(release_cache_name(namespace), Signature::new(vec![], Type::Void));
    f.attributes = vec!["nounwind".into()];
    let entry = f.entry().expect("entry");
    let (name, ty) = cache_global(namespace);
    let mut c = Cursor::at_end(&mut f, entry);
    let cache = c.constant(Constant::Global(name, 0));
    drain_cache(&mut c, cache, &ty);
    c.ret(None);
    f
}

/// `RELEASE_TAPE_CACHE` as the driver first defines it, with signature `sig` (the module's
/// declaration's: `void (void)`, or `void (...)` from C without a prototype): internal, a
/// body that returns; the driver then adds a call of each namespace's `release_cache`.
pub fn release_tape_cache_entry(sig: Signature) -> Function {
    let mut f = Function::new(RELEASE_TAPE_CACHE.to_string(), sig);
    f.linkage = Linkage::Internal;
    f.attributes = vec!["nounwind".into()];
    let entry = f.create_block(Some("entry".into()));
    let mut c = Cursor::at_end(&mut f, entry);
    c.ret(None);
    f
}

fn chunk_header() -> Type {
    Type::structure(vec![Type::PTR, Type::I64, Type::I64])
}

/// The fast path bumps `used`; a full (or absent) chunk gets a new one linked before it.
fn push(namespace: &str) -> Function {
    push_from(Op::Push, namespace)
}

/// A kept stack's chunks are `KEPT_ALIGN`-aligned and zeroed, each from its own
/// `aligned_alloc` (never the cache), so that `unpush` can tell a chunk's first record by
/// its address: the first record of a chunk, and only it, sits `CHUNK_HEADER` bytes past a
/// multiple of `KEPT_ALIGN` (a standard chunk is `KEPT_ALIGN` bytes; a larger one holds one
/// record).
const KEPT_ALIGN: i64 = CHUNK_BYTES;

/// `push_keep`: `push` on a kept stack.
fn push_keep(namespace: &str) -> Function {
    push_from(Op::PushKeep, namespace)
}

/// `push` or `push_keep`, which differ in where a new chunk comes from.
fn push_from(op: Op, namespace: &str) -> Function {
    let mut f = helper(op.name(namespace), signature(op));
    let (hdr, size) = (f.params[0], f.params[1]);
    let entry = f.entry().expect("entry");
    let fits = f.create_block(Some("fits".into()));
    let grow = f.create_block(Some("grow".into()));
    let h = header_type();
    let mut c = Cursor::at_end(&mut f, entry);
    let (chunk_p, used_p, end_p) = (c.field_ptr(&h, hdr, &[0]), c.field_ptr(&h, hdr, &[1]), c.field_ptr(&h, hdr, &[2]));
    let used = c.load(Type::I64, used_p);
    let end = c.load(Type::I64, end_p);
    let after = c.binary(BinOp::Add, used, size);
    let room = c.icmp(IntPred::Ule, after, end);
    c.cond_br(room, fits, grow);

    c.switch_to(fits);
    let chunk = c.load(Type::PTR, chunk_p);
    let slot = c.byte_offset(chunk, used);
    c.store(after, used_p);
    c.ret(Some(slot));

    c.switch_to(grow);
    let old = c.load(Type::PTR, chunk_p);
    let header = c.i64(CHUNK_HEADER);
    let needed = c.binary(BinOp::Add, size, header);
    let standard = c.i64(CHUNK_BYTES);
    // A kept stack's chunks are all standard (see `KEPT_ALIGN`). Any other stack's first
    // chunk is small and each next one twice the last, up to the standard size: a stack
    // that pushes a few records per activation (a callee's loop, a recursion) then takes
    // about what it uses, not a whole standard chunk per activation.
    let target = if op == Op::PushKeep {
        standard
    } else {
        let two = c.i64(2);
        let doubled = c.binary(BinOp::Mul, end, two);
        let first = c.i64(FIRST_CHUNK_BYTES);
        let at_least = c.icmp(IntPred::Ult, doubled, first);
        let grown = c.select(at_least, first, doubled);
        let capped = c.icmp(IntPred::Ult, grown, standard);
        c.select(capped, grown, standard)
    };
    let small = c.icmp(IntPred::Ule, needed, target);
    let bytes = c.select(small, target, needed);
    let new = if op == Op::PushKeep {
        // `aligned_alloc` wants a multiple of the alignment.
        let mask = c.i64(KEPT_ALIGN - 1);
        let up = c.binary(BinOp::Add, bytes, mask);
        let inverse = c.i64(!(KEPT_ALIGN - 1));
        let rounded = c.binary(BinOp::And, up, inverse);
        let align = c.i64(KEPT_ALIGN);
        let sig = Signature::new(vec![Type::I64, Type::I64], Type::PTR);
        let memory = c.call("aligned_alloc", sig, vec![align, rounded]).expect("ptr");
        abort_if_null(&mut c, memory);
        // Zeroed: the records are shadows, whose adjoints start at 0 (the outer primal writes
        // only their pointers' shadows, and the adjoint leaves what it overwrites zero).
        crate::rules::memcalls::zero_bytes(&mut c, memory, rounded);
        memory
    } else {
        c.call(&take_name(namespace), Signature::new(vec![Type::I64], Type::PTR), vec![bytes]).expect("ptr")
    };
    let ch = chunk_header();
    let (prev_p, prev_used_p, size_p) = (c.field_ptr(&ch, new, &[0]), c.field_ptr(&ch, new, &[1]), c.field_ptr(&ch, new, &[2]));
    c.store(old, prev_p);
    c.store(used, prev_used_p);
    c.store(bytes, size_p);
    c.store(new, chunk_p);
    c.store(needed, used_p);
    c.store(bytes, end_p);
    let slot = c.byte_offset(new, header);
    c.ret(Some(slot));
    f
}

fn top(namespace: &str) -> Function {
    let mut f = helper(Op::Top.name(namespace), signature(Op::Top));
    let (hdr, size) = (f.params[0], f.params[1]);
    let entry = f.entry().expect("entry");
    let h = header_type();
    let mut c = Cursor::at_end(&mut f, entry);
    let (chunk_p, used_p) = (c.field_ptr(&h, hdr, &[0]), c.field_ptr(&h, hdr, &[1]));
    let chunk = c.load(Type::PTR, chunk_p);
    let used = c.load(Type::I64, used_p);
    let offset = c.binary(BinOp::Sub, used, size);
    let slot = c.byte_offset(chunk, offset);
    c.ret(Some(slot));
    f
}

/// Drops the newest record; a chunk left empty goes back (unless it is the only one), and
/// its predecessor becomes the newest chunk again.
fn pop(namespace: &str) -> Function {
    pop_from(Op::Pop, namespace)
}

/// `pop_keep`: `pop` on a kept stack. A chunk left empty is not released (records of it may
/// still get adjoints); its predecessor, or none, becomes the newest chunk, so that the next
/// push takes a chunk of its own (and `unpush` finds one first record per chunk).
fn pop_keep(namespace: &str) -> Function {
    pop_from(Op::PopKeep, namespace)
}

/// `pop` or `pop_keep`, which differ in what becomes of a chunk left empty.
fn pop_from(op: Op, namespace: &str) -> Function {
    let keep = op == Op::PopKeep;
    let mut f = helper(op.name(namespace), signature(op));
    let (hdr, size) = (f.params[0], f.params[1]);
    let entry = f.entry().expect("entry");
    let check = f.create_block(Some("check".into()));
    let back = f.create_block(Some("back".into()));
    let stay = f.create_block(Some("stay".into()));
    let first = if keep { f.create_block(Some("first".into())) } else { stay };
    let h = header_type();
    let mut c = Cursor::at_end(&mut f, entry);
    let (chunk_p, used_p, end_p) = (c.field_ptr(&h, hdr, &[0]), c.field_ptr(&h, hdr, &[1]), c.field_ptr(&h, hdr, &[2]));
    let chunk = c.load(Type::PTR, chunk_p);
    let used = c.load(Type::I64, used_p);
    let less = c.binary(BinOp::Sub, used, size);
    let header = c.i64(CHUNK_HEADER);
    // Records of no bytes (a callee's empty tape) never get a chunk: `used` stays 0.
    let emptied = c.icmp(IntPred::Eq, less, header);
    c.cond_br(emptied, check, stay);

    c.switch_to(check);
    let ch = chunk_header();
    let prev_p = c.field_ptr(&ch, chunk, &[0]);
    let prev = c.load(Type::PTR, prev_p);
    let null = c.constant(Constant::Null(0));
    let has_prev = c.icmp(IntPred::Ne, prev, null);
    c.cond_br(has_prev, back, first);

    c.switch_to(back);
    let prev_used_p = c.field_ptr(&ch, chunk, &[1]);
    let prev_used = c.load(Type::I64, prev_used_p);
    let prev_size_p = c.field_ptr(&ch, prev, &[2]);
    let prev_size = c.load(Type::I64, prev_size_p);
    c.store(prev, chunk_p);
    c.store(prev_used, used_p);
    c.store(prev_size, end_p);
    if !keep {
        c.call(&release_name(namespace), Signature::new(vec![Type::PTR], Type::Void), vec![chunk]);
    }
    c.ret(None);

    if keep {
        // The only chunk, left empty: the stack is empty, with no chunk.
        c.switch_to(first);
        let empty = c.constant(Constant::Zero(header_type()));
        c.store(empty, hdr);
        c.ret(None);
    }

    c.switch_to(stay);
    c.store(less, used_p);
    c.ret(None);
    f
}

/// `unpush(record, size)`: frees the kept chunk whose first record `record` is (see
/// `KEPT_ALIGN`); any other record, and records of no bytes, free nothing.
fn unpush(namespace: &str) -> Function {
    let mut f = helper(Op::Unpush.name(namespace), signature(Op::Unpush));
    let (record, size) = (f.params[0], f.params[1]);
    let entry = f.entry().expect("entry");
    let first = f.create_block(Some("first".into()));
    let done = f.create_block(Some("done".into()));
    let mut c = Cursor::at_end(&mut f, entry);
    let address = c.cast(zyg_ir::CastOp::PtrToInt, record, Type::I64);
    let mask = c.i64(KEPT_ALIGN - 1);
    let offset = c.binary(BinOp::And, address, mask);
    let header = c.i64(CHUNK_HEADER);
    let at_start = c.icmp(IntPred::Eq, offset, header);
    let zero = c.i64(0);
    let sized = c.icmp(IntPred::Ne, size, zero);
    let owns = c.binary(BinOp::And, at_start, sized);
    c.cond_br(owns, first, done);

    c.switch_to(first);
    let back = c.i64(-CHUNK_HEADER);
    let chunk = c.byte_offset(record, back);
    c.free(chunk);
    c.br(done);

    c.switch_to(done);
    c.ret(None);
    f
}

/// `abort()` where `memory` is null (memory ran out).
fn abort_if_null(c: &mut Cursor, memory: Value) {
    let fail = c.func.create_block(Some("fail".into()));
    let ok = c.func.create_block(Some("ok".into()));
    let null = c.constant(Constant::Null(0));
    let failed = c.icmp(IntPred::Eq, memory, null);
    c.cond_br(failed, fail, ok);
    c.switch_to(fail);
    c.call("abort", Signature::new(vec![], Type::Void), vec![]);
    c.emit(InstKind::Unreachable, Type::Void);
    c.switch_to(ok);
}

/// Releases every chunk of the stack (but for an inline first chunk, which has no
/// predecessor and is part of the tape).
fn free(namespace: &str, keep_first: bool) -> Function {
    let mut f = helper(Op::Free.name(namespace), signature(Op::Free));
    f.attributes = vec!["nounwind".into()];
    let hdr = f.params[0];
    let entry = f.entry().expect("entry");
    let walk = f.create_block(Some("walk".into()));
    let done = f.create_block(Some("done".into()));
    let mut c = Cursor::at_end(&mut f, entry);
    let chunk_p = c.field_ptr(&header_type(), hdr, &[0]);
    let first = c.load(Type::PTR, chunk_p);
    let null = c.constant(Constant::Null(0));
    let none = c.icmp(IntPred::Eq, first, null);
    c.cond_br(none, done, walk);

    c.switch_to(walk);
    let chunk = c.emit(InstKind::Phi { incoming: vec![(entry, first)] }, Type::PTR).expect("phi");
    let prev_p = c.field_ptr(&chunk_header(), chunk, &[0]);
    let prev = c.load(Type::PTR, prev_p);
    let last = c.icmp(IntPred::Eq, prev, null);
    if keep_first {
        let release = c.func.create_block(Some("release".into()));
        c.cond_br(last, done, release);
        c.switch_to(release);
        c.call(&release_name(namespace), Signature::new(vec![Type::PTR], Type::Void), vec![chunk]);
        c.br(walk);
    } else {
        c.call(&release_name(namespace), Signature::new(vec![Type::PTR], Type::Void), vec![chunk]);
        c.cond_br(last, done, walk);
    }

    c.switch_to(done);
    c.ret(None);
    let back_edge =
        if keep_first { f.layout.iter().copied().find(|b| f.blocks[*b].name.as_deref() == Some("release")) } else { Some(walk) };
    let phi = f.def_inst(chunk).expect("phi inst");
    if let InstKind::Phi { incoming } = &mut f.insts[phi].kind {
        incoming.push((back_edge.expect("the loop's latch"), prev));
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use zyg_ir::interp::{Interpreter, Val};

    /// The cache's fields: head, count, registered.
    fn cache(interp: &Interpreter) -> (u64, i128, i128) {
        let (name, ty) = cache_global("zyg");
        let v = interp.load(interp.global(&name).expect("cache"), &ty).expect("load");
        let f = v.elements().expect("struct");
        (f[0].as_ptr().unwrap(), f[1].as_i128().unwrap(), f[2].as_i128().unwrap())
    }

    /// Chunks a stack gives back stay cached (and register the thread's destructor) until
    /// `release_cache` frees them; the destructor frees them too and clears the registration.
    #[test]
    fn the_cache_is_released_and_freed_at_exit() {
        let functions = helpers("zyg", false);
        let mut interp = Interpreter::new(&functions);
        let (name, ty) = cache_global("zyg");
        let cache_at = interp.define_global(&name, &ty).unwrap();
        let header = interp.alloc_values(&header_type(), &[Val::zero(&header_type()).unwrap()]).unwrap();
        let before = interp.memory().live_heap_bytes();
        // Records of 30,000 bytes: the first chunks grow (one of 30,032 bytes, one of 60,064:
        // three records, freed at once), then two per standard chunk: eight take three.
        let (stack, size) = (Val::Ptr(header), Val::i64(30_000));
        let push = Op::Push.name("zyg");
        for _ in 0..8 {
            interp.call(&push, &[stack.clone(), size.clone()]).unwrap();
        }
        for _ in 0..8 {
            interp.call(&Op::Pop.name("zyg"), &[stack.clone(), size.clone()]).unwrap();
        }
        interp.call(&Op::Free.name("zyg"), std::slice::from_ref(&stack)).unwrap();
        let (head, count, registered) = cache(&interp);
        assert!(head != 0 && count == 3 && registered == 1, "three chunks cached, destructor registered");
        assert_eq!(interp.memory().live_heap_bytes() - before, 3 * CHUNK_BYTES as u64);

        interp.call(&release_cache_name("zyg"), &[]).unwrap();
        assert_eq!(cache(&interp), (0, 0, 1), "released; the destructor stays registered");
        assert_eq!(interp.memory().live_heap_bytes(), before);

        // A fresh stack (a freed one's header still names its last chunk).
        interp.store(header, &Val::zero(&header_type()).unwrap(), &header_type()).unwrap();
        for _ in 0..6 {
            interp.call(&push, &[stack.clone(), size.clone()]).unwrap();
        }
        interp.call(&Op::Free.name("zyg"), std::slice::from_ref(&stack)).unwrap();
        assert_eq!(cache(&interp).1, 2);
        interp.call(&cache_at_exit_name("zyg"), &[Val::Ptr(cache_at)]).unwrap();
        assert_eq!(cache(&interp), (0, 0, 0), "freed at exit, registration cleared");
        assert_eq!(interp.memory().live_heap_bytes(), before);
    }
}
