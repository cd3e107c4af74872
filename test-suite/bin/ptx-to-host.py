#!/usr/bin/env python3
"""ptx-to-host.py IN.ll > OUT.ll

Retargets a module of NVPTX kernels (clang --target=nvptx64-nvidia-cuda, and zyg's
gradients of them) to the host, so that the same kernel IR runs on the CPU over an emulated
grid (test-suite/include/zyg_gpu_emu.h): the thread and block registers
(llvm.nvvm.read.ptx.sreg.*) become calls to host functions that read the emulated grid,
`__syncthreads()` becomes a call to the emulation's block barrier, warp shuffles calls to
its shuffles, kernels become plain
functions, and the GPU's target, data layout and CPU attributes go.

Shared memory (address space 3) becomes ordinary memory: x86 has no address space 3, and
the emulation runs one block at a time, so one copy of each shared array serves every block.
Dynamic shared memory (`extern __shared__`: external zero-length arrays) becomes one buffer,
`__emu_dynamic_shared` (DYNAMIC_CAPACITY bytes, aligned to 16), of which each such name is an
alias: they all start at its start, as on a GPU. The launch says how much of it a block may
use (`emu_launch_threads_dynamic`, `__emu_dynamic_shared_capacity()` the most), and
`llvm.nvvm.read.ptx.sreg.dynamic_smem_size` reads that.
Its globals lose `internal` (so that LLVM cannot assume the barrier call leaves them alone:
an internal global whose address never escapes is invisible to an external call), pointer
types lose `addrspace(3)`, casts between the address spaces become no-op bitcasts, and
intrinsics mangled for address space 3 (`.p3`) become their `.p0` forms.
The 64-bit NVPTX data layout and x86-64's agree on every size zyg's tests use.
"""
import re
import sys

text = open(sys.argv[1]).read()
text = re.sub(r'^target (datalayout|triple) = ".*"\n', "", text, flags=re.M)
text = text.replace("@llvm.nvvm.read.ptx.sreg.", "@__emu_sreg_")
text = text.replace("@llvm.nvvm.barrier.cta.sync.aligned.all(", "@__emu_barrier(")
text = text.replace("@llvm.nvvm.barrier0(", "@__emu_barrier0(")
text = re.sub(r"@llvm\.nvvm\.shfl\.sync\.(down|up|bfly)\.f32\(", r"@__emu_shfl_\1(", text)
text = re.sub(r"\bptx_kernel\b ?", "", text)
text = re.sub(r'"target-(cpu|features)"="[^"]*"', "", text)

# Dynamic shared memory: each external zero-length array in address space 3 is an alias of
# one buffer (an alias, not a global of its own, so that LLVM does not take two names of it
# for two objects).
DYNAMIC_CAPACITY = 49152
dynamic = []
def dynamic_global(m):
    dynamic.append(m.group(1))
    return f"{m.group(1)} = alias {m.group(2)}, ptr @__emu_dynamic_shared"
text = re.sub(r"^(@[-\w.$]+) = external .*?addrspace\(3\) global (\[0 x [^\]]+\]).*$", dynamic_global, text, flags=re.M)
if dynamic:
    text += f"\n@__emu_dynamic_shared = global [{DYNAMIC_CAPACITY} x i8] zeroinitializer, align 16\n"

# Shared-memory globals: external linkage, zero-initialised, in the default address space.
# `__emu_scramble_shared()` fills them with all-ones bytes (NaN floats) before each block of
# a threaded launch: shared memory holds no zeros at a block's start on a GPU, and a kernel
# (or gradient) that reads it before writing should not pass by luck.
shared = []
def shared_global(m):
    name, rest = m.group(1), m.group(2)
    ty = re.search(r"\bglobal (.*?)(?: (?:zeroinitializer|undef|poison)\b|,|$)", rest).group(1)
    shared.append((name, ty))
    rest = re.sub(r"\b(internal|private|dso_local|unnamed_addr|local_unnamed_addr)\s+", "", rest)
    rest = re.sub(r"\b(undef|poison)(?=(,|\s*$))", "zeroinitializer", rest)
    return f"{name} = {rest}"
text = re.sub(r"^(@[-\w.$]+) = (.*\baddrspace\(3\) global .*)$", shared_global, text, flags=re.M)
text = re.sub(r"\s*addrspace\(3\)", "", text)
text = text.replace("addrspacecast", "bitcast")  # now between pointers of one address space
text = re.sub(r"(@llvm\.[\w.]*?)\.p3(?=[.(])", r"\1.p0", text)
# Renaming `.p3` intrinsics may leave two identical declarations.
seen, lines = set(), []
for line in text.split("\n"):
    if line.startswith("declare "):
        if line in seen:
            continue
        seen.add(line)
    lines.append(line)
text = "\n".join(lines)
scramble = ["define void @__emu_scramble_shared() {"]
for name, ty in shared:
    size = f"ptrtoint (ptr getelementptr ({ty}, ptr null, i64 1) to i64)"
    scramble.append(f"  call void @llvm.memset.p0.i64(ptr {name}, i8 -1, i64 {size}, i1 false)")
if dynamic:
    scramble.append(f"  call void @llvm.memset.p0.i64(ptr @__emu_dynamic_shared, i8 -1, i64 {DYNAMIC_CAPACITY}, i1 false)")
scramble += ["  ret void", "}", ""]
capacity = DYNAMIC_CAPACITY if dynamic else 0
scramble += ["define i64 @__emu_dynamic_shared_capacity() {", f"  ret i64 {capacity}", "}", ""]
text += "\n" + "\n".join(scramble)
if (shared or dynamic) and "declare void @llvm.memset.p0.i64(" not in text:
    text += "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n"
if re.search(r"@llvm\.nvvm\.", text) or re.search(r"addrspace\(\d+\)", text):
    sys.exit("ptx-to-host.py: the module uses NVVM intrinsics or address spaces the CPU emulation does not provide")
sys.stdout.write(text)
