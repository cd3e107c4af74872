#!/usr/bin/env python3
"""ptx-to-host.py IN.ll > OUT.ll

Retargets a module of NVPTX kernels (clang --target=nvptx64-nvidia-cuda, and zyg's
gradients of them) to the host, so that the same kernel IR runs on the CPU over an emulated
grid (test-suite/include/zyg_gpu_emu.h): the thread and block registers
(llvm.nvvm.read.ptx.sreg.*) become calls to host functions that read the emulated grid,
kernels become plain functions, and the GPU's target, data layout and CPU attributes go.
The 64-bit NVPTX data layout and x86-64's agree on every size zyg's tests use.
"""
import re
import sys

text = open(sys.argv[1]).read()
text = re.sub(r'^target (datalayout|triple) = ".*"\n', "", text, flags=re.M)
text = text.replace("@llvm.nvvm.read.ptx.sreg.", "@__emu_sreg_")
text = re.sub(r"\bptx_kernel\b ?", "", text)
text = re.sub(r'"target-(cpu|features)"="[^"]*"', "", text)
if re.search(r"@llvm\.nvvm\.", text):
    sys.exit("ptx-to-host.py: the module uses NVVM intrinsics the CPU emulation does not provide")
sys.stdout.write(text)
