#!/usr/bin/env python3
"""Fuzzes the `zyg` command line: modules from llvm-stress and from zyg's own test suite,
with gradient requests added, mutated as text and as bitcode, run through `zyg grad`,
`zyg opt` and `zyg compile` with good and bad command lines.

A run passes when it exits 0 with outputs that verify (LLVM's verifier; MLIR's parser for
`.mlir`), or exits 1 with `zyg: error:` and nothing written; and never dies from a signal,
an LLVM abort or a panic (zyg's supervising parent reports those as "LLVM stopped", "zyg
crashed", "internal error": each is a failure here), never hangs, never leaves a
temporary file and never modifies its input.

Everything about a case follows from its seed: `--seeds 0:400` runs cases 0 to 399, and
`--seeds 123:124 --keep DIR` reruns case 123 and keeps its files. CI runs a fixed range
(ci/test.sh); run a longer one by hand (`--seeds 0:5000 --jobs 2`).
"""

import argparse
import concurrent.futures
import glob
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM_BIN = "/usr/lib/llvm-22/bin"
RUN_TIMEOUT = 60  # seconds for one zyg run: more is a hang

# What a failing zyg run must never print: each means the process died or lied.
FORBIDDEN = [
    "internal error",
    "panicked",
    "LLVM stopped",
    "zyg crashed",
    "was killed",
    "LLVM ERROR",
    "PLEASE submit",
    "Stack dump",
]

GOOD_PIPELINES = [
    "grad",
    "grad,default<O2>",
    "grad,instcombine",
    "instcombine,grad,function(sroa,instcombine<max-iterations=2>)",
    "function(mem2reg),grad,default<O1>",
    "grad,grad",
    "default<O3>,grad",
]
BAD_PIPELINES = ["no-such-pass", "grad,default<O9>", "function(", ",,", "grad,function(grad)", "module(grad"]
GOOD_CPUS = ["x86-64", "x86-64-v2", "x86-64-v3", "native", "skylake", "znver3"]
BAD_CPUS = ["foo", "x87-64", "sm_80", "x86-64-v9", "-mcpu"]
TARGETS = ["x86_64-pc-linux-gnu", "x86_64-unknown-linux-gnu", "nvptx64", "aarch64-linux-gnu", "garbage-triple", "i686-pc-linux-gnu"]
TYPES = ["float", "double", "i64", "i1", "<2 x double>", "<vscale x 2 x double>", "x86_fp80", "fp128", "half",
         "bfloat", "ptr", "{ double, double }", "[4 x double]", "i128", "ppc_fp128", "<4 x float>", "void", "label"]
SAME_SHAPE = {}
for group in (["fadd", "fsub", "fmul", "fdiv", "frem"], ["add", "sub", "mul", "and", "or", "xor", "shl"],
              ["olt", "ogt", "oeq", "une", "uno", "ord", "ule"], ["slt", "sgt", "eq", "ne", "ult", "uge"],
              ["@sin", "@cos", "@exp", "@log", "@sqrt", "@tanh", "@fabs"],
              ["@llvm.sin.f64", "@llvm.cos.f64", "@llvm.exp.f64", "@llvm.sqrt.f64", "@llvm.fabs.f64"],
              ["fptosi", "fptoui"], ["sitofp", "uitofp"], ["zext", "sext"], ["nsz", "fast", "nnan", "ninf", "reassoc"],
              ["inbounds", "nuw", "nsw"], ["internal", "private", "linkonce_odr", "weak"]):
    for word in group:
        SAME_SHAPE[word] = group
NUMBERS = ["0", "-1", "1", "2147483648", "-9223372036854775808", "18446744073709551615", "4294967296",
           "1.0e308", "0x7FF8000000000000", "1000000000", "65536", "3"]


def tool(name):
    for candidate in (os.path.join(LLVM_BIN, name), shutil.which(name + "-22") or "", shutil.which(name) or ""):
        if candidate and os.path.exists(candidate):
            return candidate
    sys.exit(f"fuzz-cli: {name} not found (install llvm-22-tools: ci/setup.sh)")


def run(cmd, timeout=120, **kw):
    return subprocess.run(cmd, capture_output=True, timeout=timeout, **kw)


# ---------------------------------------------------------------- sources

def corpus_modules(cache):
    """zyg's own test programs as LLVM IR: every .ll test, and a fixed third of the e2e C
    programs compiled by clang at -O0 and -O2 (into `cache`, once)."""
    out = sorted(glob.glob(os.path.join(REPO, "test-suite", "ir", "*.ll")))
    out += sorted(glob.glob(os.path.join(REPO, "test-suite", "errors", "*.ll")))
    clang = shutil.which("clang-22") or os.path.join(LLVM_BIN, "clang")
    include = os.path.join(REPO, "test-suite", "include")
    sources = sorted(glob.glob(os.path.join(REPO, "test-suite", "e2e", "*.c")))[::3]
    os.makedirs(cache, exist_ok=True)
    flavours = {"O0": ["-O0"], "O2": ["-O2"], "O3v3": ["-O3", "-ffast-math", "-march=x86-64-v3"]}
    for k, src in enumerate(sources):
        for name in ("O0", "O2") if k % 2 else ("O0", "O3v3"):
            dest = os.path.join(cache, os.path.basename(src)[:-2] + "-" + name + ".ll")
            if not os.path.exists(dest):
                r = run([clang] + flavours[name] + ["-S", "-emit-llvm", "-I", include, src, "-o", dest + ".tmp"])
                if r.returncode != 0:
                    continue
                os.replace(dest + ".tmp", dest)
            out.append(dest)
    return out


def mlir_modules():
    return sorted(glob.glob(os.path.join(REPO, "test-suite", "mlir", "*.mlir")))


def stress_module(rng, seed):
    """A module from llvm-stress with gradient requests of its function added."""
    size = rng.choice([8, 20, 50, 120, 300])
    cmd = [tool("llvm-stress"), f"-seed={seed}", f"-size={size}", "-o", "-"]
    if rng.random() < 0.1:
        cmd.append("--enable-scalable-vectors")
    text = run(cmd).stdout.decode()
    name = re.search(r"define void @(autogen_SD\d+)", text).group(1)
    return text + requests_for(rng, name), name


def requests_for(rng, name):
    """A function calling __enzyme_autodiff on llvm-stress's `void f(ptr, ptr, ptr, i32, i64, i8)`,
    with the markers in one of several shapes, some wrong on purpose."""
    shape = rng.choice(["default", "markers", "const", "null", "few", "many", "integer", "sret", "twice"])
    first = {"null": "ptr null", "integer": "ptr inttoptr (i64 7 to ptr)"}.get(shape, f"ptr @{name}")
    if shape == "markers":
        args = "i32 %m, ptr %a, ptr %da, i32 %m, ptr %b, ptr %db, i32 %c2, ptr %c, i32 %n, i64 %k, i8 %j"
    elif shape == "const":
        args = "i32 %c2, ptr %a, i32 %c2, ptr %b, i32 %c2, ptr %c, i32 %n, i64 %k, i8 %j"
    elif shape == "few":
        args = "ptr %a, ptr %da"
    elif shape == "many":
        args = "ptr %a, ptr %da, ptr %b, ptr %db, ptr %c, ptr %dc, i32 %n, i64 %k, i8 %j, double 1.0"
    else:
        args = "ptr %a, ptr %da, ptr %b, ptr %db, ptr %c, ptr %dc, i32 %n, i64 %k, i8 %j"
    call = f"call void (ptr, ...) @__enzyme_autodiff({first}, {args})"
    if shape == "sret":
        call = f"call void (ptr, ...) @__enzyme_autodiff(ptr sret({{ double }}) %da, ptr @{name}, {args})"
    body = f"  {call}\n"
    if shape == "twice":
        body += f"  {call}\n"
    return f"""
@enzyme_dup = external global i32
@enzyme_const = external global i32
declare void @__enzyme_autodiff(ptr, ...)
define void @zyg_fuzz_request(ptr %a, ptr %da, ptr %b, ptr %db, ptr %c, ptr %dc, i32 %n, i64 %k, i8 %j) {{
  %m = load i32, ptr @enzyme_dup
  %c2 = load i32, ptr @enzyme_const
{body}  ret void
}}
"""


# ---------------------------------------------------------------- mutations

TOKEN = re.compile(r"\s+|[%@!#]?[\w.$-]+|\"[^\"\n]*\"|.", re.S)


def mutate_text(rng, text):
    """One to three textual mutations: tokens dropped, swapped or replaced, lines deleted or
    duplicated, types and numbers changed, attributes corrupted, truncation."""
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["drop", "swap", "replace", "line-del", "line-dup", "type", "number",
                           "truncate", "cpu", "intrinsic", "unnamed", "request", "op", "op", "op"])
        tokens = TOKEN.findall(text)
        words = [i for i, t in enumerate(tokens) if not t.isspace()]
        if not words:
            return text
        if kind == "drop":
            del tokens[rng.choice(words)]
        elif kind == "swap":
            i, j = rng.choice(words), rng.choice(words)
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif kind == "replace":
            tokens[rng.choice(words)] = tokens[rng.choice(words)]
        elif kind in ("line-del", "line-dup"):
            lines = text.split("\n")
            k = rng.randrange(len(lines))
            if kind == "line-del":
                del lines[k]
            else:
                lines.insert(rng.randrange(len(lines) + 1), lines[k])
            text = "\n".join(lines)
            continue
        elif kind == "type":
            spots = [i for i in words if tokens[i] in ("double", "float", "i32", "i64", "ptr")]
            if spots:
                tokens[rng.choice(spots)] = rng.choice(TYPES)
        elif kind == "number":
            spots = [i for i in words if re.fullmatch(r"-?\d+", tokens[i])]
            if spots:
                tokens[rng.choice(spots)] = rng.choice(NUMBERS)
        elif kind == "op":
            # Another operation of the same shape: the module usually stays valid, and the
            # transform sees a program it has not seen.
            spots = [i for i in words if tokens[i] in SAME_SHAPE]
            if spots:
                i = rng.choice(spots)
                tokens[i] = rng.choice(SAME_SHAPE[tokens[i]])
        elif kind == "truncate":
            text = text[: rng.randrange(len(text) + 1)]
            continue
        elif kind == "cpu":
            if rng.random() < 0.5:
                text = re.sub(r'"target-cpu"="[^"]*"', '"target-cpu"="' + rng.choice(BAD_CPUS + GOOD_CPUS) + '"', text, count=1)
            else:
                features = rng.choice(["-sse,-sse2", "+avx512f", "+nonsense", "", "+avx2,+fma", "-avx"])
                text = re.sub(r'"target-features"="[^"]*"', '"target-features"="' + features + '"', text, count=1)
            continue
        elif kind == "intrinsic":
            # An invalid module: the address of an intrinsic taken.
            text += "\ndeclare double @llvm.sin.f64(double)\n@zyg_fuzz_taken = global ptr @llvm.sin.f64\n"
            continue
        elif kind == "unnamed":
            names = sorted(set(re.findall(r"^@([\w.]+) = ", text, re.M)))
            if names:
                old = rng.choice(names)
                text = re.sub(r"@" + re.escape(old) + r"\b", "@0", text)
            continue
        elif kind == "request":
            text = text.replace("ptr @", rng.choice(["ptr null, ptr @", "ptr @", "i64 0, ptr @"]), 1)
            continue
        text = "".join(tokens)
    return text


def mutate_bytes(rng, data):
    """Bitcode mutations: bytes flipped, a 32-bit field made huge, truncation, a chunk
    repeated or zeroed."""
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not data:
            break
        kind = rng.choice(["flip", "huge", "truncate", "repeat", "zero"])
        at = rng.randrange(len(data))
        if kind == "flip":
            data[at] ^= 1 << rng.randrange(8)
        elif kind == "huge":
            data[at:at + 4] = rng.choice([b"\xff\xff\xff\xff", b"\xff\xff\xff\x7f", b"\x00\x00\x00\x80"])
        elif kind == "truncate":
            del data[at:]
        elif kind == "repeat":
            n = rng.randint(1, 64)
            data[at:at] = data[at:at + n]
        else:
            n = rng.randint(1, 16)
            data[at:at + n] = bytes(min(n, len(data) - at))
    return bytes(data)


# ---------------------------------------------------------------- command lines

def command_for(rng, form, function):
    """The zyg command (arguments after `zyg`), the outputs it should write, and what
    standard input and output are: the input is `in.ll`/`in.bc`/`in.mlir` in the case's
    directory."""
    inp = {"ll": "in.ll", "bc": "in.bc", "mlir": "in.mlir", "stdin": "-"}[form]
    which = rng.choices(["grad", "opt", "compile"], weights=[5, 2, 2])[0]
    bad = rng.random() < 0.25
    stdout_closed = False
    if which == "compile":
        ext = rng.choice(["o", "s", "so", "ptx", "o", "txt"])
        out = "out." + ext
        args = ["compile", inp, "-o", out, f"-O{rng.randint(0, 3)}"]
        if rng.random() < 0.4:
            args += ["--target", rng.choice(TARGETS)]
        if rng.random() < 0.4:
            args += ["--cpu", rng.choice(BAD_CPUS if bad else GOOD_CPUS)]
        return args, [out], stdout_closed
    out = rng.choice(["out.ll", "out.bc", "out.ll", "-", "out.mlir", "sub/none/out.ll" if bad else "out.ll"])
    if which == "grad":
        args = ["grad", inp, "-o", out, f"-O{rng.randint(0, 3)}"]
    else:
        pipeline = rng.choice(BAD_PIPELINES if bad and rng.random() < 0.5 else GOOD_PIPELINES)
        args = ["opt", inp, "-o", out, "--passes=" + pipeline]
    if rng.random() < 0.3:
        args.append("-S")
    if rng.random() < 0.25:
        args += ["--tape-budget", rng.choice(["0", "12XB", "-5", "MiB"] if bad else ["1MiB", "4096", "64KiB"])]
    outputs = [out]
    if function and rng.random() < 0.5:
        fn = function if not (bad and rng.random() < 0.3) else "no_such_function"
        args += ["--fn", fn]
        if rng.random() < 0.3:
            n = rng.randint(0, 7)
            args += ["--args", ",".join(rng.choice(["out", "const", "dup", "dupnoneed"]) for _ in range(n))]
        if rng.random() < 0.3:
            args += ["--name", rng.choice(["llvm.foo", "a b", "", "main", "9lives"]) if bad else "fuzz_grad"]
        if rng.random() < 0.4:
            header = rng.choice([inp, out, "link.h"] if bad else ["out.h"])
            if header != "-":
                args += ["--header", header]
                outputs.append(header)
    if bad and out == "-" and rng.random() < 0.5:
        stdout_closed = True
    if bad and rng.random() < 0.2:
        args.insert(1, rng.choice(["-O9", "--bogus", "-o"]))
    return args, outputs, stdout_closed


# ---------------------------------------------------------------- one case

def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def listing(d):
    out = set()
    for root, dirs, files in os.walk(d):
        for name in files + dirs:
            out.add(os.path.relpath(os.path.join(root, name), d))
    return out


def verifies(path_or_bytes, mlir=False):
    if mlir:
        cmd = [tool("mlir-opt"), path_or_bytes, "-o", "/dev/null"]
        r = run(cmd)
    elif isinstance(path_or_bytes, bytes):
        r = run([tool("opt"), "-passes=verify", "-disable-output", "-"], input=path_or_bytes)
    else:
        r = run([tool("opt"), "-passes=verify", "-disable-output", path_or_bytes])
    return r.returncode == 0, r.stderr.decode(errors="replace")[-2000:]


def llvm_reader_fails(path):
    """Whether LLVM's own llvm-dis rejects the file: dies, stops, or reports an error. (The
    same file can make the reader ask for gigabytes: zyg, under its memory limit, stops
    with "out of memory" where llvm-dis, given the memory, reads on to a plain error.)"""
    try:
        r = run([tool("llvm-dis"), path, "-o", "/dev/null"], timeout=120)
    except subprocess.TimeoutExpired:
        return True
    return r.returncode != 0 or b"LLVM ERROR" in r.stderr


def build_case(rng, seed, d, corpus, mlirs):
    """Writes the case's input into `d`; returns its form and a function for --fn."""
    source = rng.choices(["stress", "corpus", "mlir"], weights=[5, 4, 1])[0]
    if source == "mlir" and mlirs:
        text = open(rng.choice(mlirs)).read()
        if rng.random() < 0.7:
            text = mutate_text(rng, text)
        with open(os.path.join(d, "in.mlir"), "w") as f:
            f.write(text)
        return "mlir", None
    if source == "stress":
        text, function = stress_module(rng, seed)
    else:
        text = open(rng.choice(corpus)).read()
        names = re.findall(r"^define [^@]*@([\w.]+)\(", text, re.M)
        function = rng.choice(names) if names else None
    form = rng.choices(["ll", "bc", "stdin"], weights=[5, 3, 1])[0]
    if form != "bc" and rng.random() < 0.4:
        text = mutate_text(rng, text)
    with open(os.path.join(d, "in.ll"), "w") as f:
        f.write(text)
    if form == "bc":
        r = run([tool("llvm-as"), "-disable-verify", os.path.join(d, "in.ll"), "-o", os.path.join(d, "in.bc")])
        os.remove(os.path.join(d, "in.ll"))
        if r.returncode != 0:
            with open(os.path.join(d, "in.bc"), "wb") as f:
                f.write(b"BC\xc0\xde" + bytes(rng.randrange(256) for _ in range(64)))
        if rng.random() < 0.5:
            data = open(os.path.join(d, "in.bc"), "rb").read()
            with open(os.path.join(d, "in.bc"), "wb") as f:
                f.write(mutate_bytes(rng, data))
    return form, function


def check_case(seed, zyg, corpus, mlirs, keep):
    rng = random.Random(seed)
    d = tempfile.mkdtemp(prefix=f"zyg-fuzz-{seed}-")
    try:
        form, function = build_case(rng, seed, d, corpus, mlirs)
        args, outputs, stdout_closed = command_for(rng, form, function)
        if "link.h" in args:
            os.symlink("out.ll", os.path.join(d, "link.h"))
        input_file = {"stdin": "in.ll"}.get(form, "in." + form)
        before_hash = sha(os.path.join(d, input_file))
        before = listing(d)
        stdin = open(os.path.join(d, input_file), "rb") if form == "stdin" else subprocess.DEVNULL
        started = time.time()
        try:
            # Standard output closed: through a shell, since preexec_fn is unsafe in threads.
            cmd = ["sh", "-c", 'exec "$0" "$@" >&-', zyg] + args if stdout_closed else [zyg] + args
            p = subprocess.Popen(cmd, cwd=d, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 start_new_session=True)
            try:
                out, err = p.communicate(timeout=RUN_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
                return failure(seed, args, d, keep, f"no answer after {RUN_TIMEOUT} s (a hang)")
        finally:
            if stdin is not subprocess.DEVNULL:
                stdin.close()
        elapsed = time.time() - started
        err = err.decode(errors="replace")
        problems = []
        if sha(os.path.join(d, input_file)) != before_hash:
            problems.append("the input was modified")
        after = listing(d)
        if p.returncode == 0:
            for o in outputs:
                if o == "-":
                    if out and not args[0] == "compile":
                        ok, why = verifies(out) if not args[args.index("-o") + 1].endswith(".mlir") else (True, "")
                        if not ok:
                            problems.append("stdout does not verify: " + why)
                    continue
                path = os.path.join(d, o)
                if not os.path.exists(path):
                    problems.append(f"exit 0 but no {o}")
                elif o.endswith((".ll", ".bc")) and not o.endswith(".h"):
                    ok, why = verifies(path)
                    if not ok:
                        problems.append(f"{o} does not verify: {why}")
                elif o.endswith(".mlir"):
                    ok, why = verifies(path, mlir=True)
                    if not ok:
                        problems.append(f"{o} does not parse as MLIR: {why}")
                elif os.path.getsize(path) == 0:
                    problems.append(f"{o} is empty")
            extra = after - before - {o for o in outputs} - {"sub", "sub/none"}
            if extra:
                problems.append(f"left behind: {sorted(extra)}")
        elif p.returncode == 1:
            if "zyg: error:" not in err:
                problems.append("exit 1 without `zyg: error:`")
            bad = [w for w in FORBIDDEN if w in err]
            if bad and form == "bc" and "while reading" in err and llvm_reader_fails(os.path.join(d, input_file)):
                # LLVM's bitcode reader is not hardened against corrupt files (llvm-dis fails
                # on this one too): zyg reported it, which is all it can do.
                return ("llvm-reader", seed, f"case {seed}: {err.strip().splitlines()[-1][:200]}")
            if bad:
                problems.append(f"says {bad}")
            if after != before:
                problems.append(f"a failed run changed the directory: {sorted(after ^ before)}")
        elif p.returncode < 0:
            problems.append(f"killed by signal {-p.returncode}")
        else:
            problems.append(f"exit status {p.returncode}")
        if problems:
            return failure(seed, args, d, keep, "; ".join(problems) + "\n    stderr: " + err.strip()[-1500:])
        return ("pass", seed, p.returncode, elapsed)
    finally:
        if keep is None or not os.path.exists(os.path.join(keep, str(seed))):
            shutil.rmtree(d, ignore_errors=True)


def failure(seed, args, d, keep, why):
    if keep is not None:
        dest = os.path.join(keep, str(seed))
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(d, dest, symlinks=True)
    return ("fail", seed, f"case {seed}: zyg {' '.join(args)}\n    {why}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="0:200", help="A:B, the cases A to B-1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--zyg", default=os.environ.get("ZYG", os.path.join(REPO, "target", "release", "zyg")))
    ap.add_argument("--keep", help="copy the files of failing cases to DIR/SEED")
    ap.add_argument("--cache", default=os.path.join(REPO, "target", "fuzz-cli-cache"), help="compiled corpus")
    a = ap.parse_args()
    start, end = (int(x) for x in a.seeds.split(":"))
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    corpus = corpus_modules(a.cache)
    mlirs = mlir_modules()
    failures, codes, slow, reader = [], {0: 0, 1: 0}, (-1.0, -1), []
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = [pool.submit(check_case, s, a.zyg, corpus, mlirs, a.keep) for s in range(start, end)]
        for fut in concurrent.futures.as_completed(futures):
            try:
                r = fut.result()
            except Exception as e:  # the driver's own failure is a failure too
                failures.append(f"driver error: {e!r}")
                continue
            if r[0] == "fail":
                failures.append(r[2])
                print(r[2], flush=True)
            elif r[0] == "llvm-reader":
                reader.append(r[2])
            else:
                codes[r[2]] = codes.get(r[2], 0) + 1
                slow = max(slow, (r[3], r[1]))
    n = end - start
    for line in sorted(reader):
        print("LLVM's reader failed (reported by zyg, llvm-dis fails too): " + line)
    print(f"fuzz-cli: {n} cases in {time.time() - t0:.0f} s: {codes.get(0, 0)} exited 0, {codes.get(1, 0)} exited 1 "
          f"with an error ({len(reader)} of them LLVM's bitcode reader failing), {len(failures)} failed "
          f"(slowest passing run {slow[0]:.1f} s, case {slow[1]})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
