# lit configuration of zyg's end-to-end suite (run by ci/test.sh).
import os
import shutil

import lit.formats

config.name = "zyg"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".cpp", ".ll", ".test"]
config.excludes = ["include", "examples", "Inputs", "bin", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

repo = os.path.dirname(config.test_source_root)
llvm_bin = "/usr/lib/llvm-22/bin"
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment.get("PATH", os.environ["PATH"])])
zyg = os.environ.get("ZYG", os.path.join(repo, "target", "release", "zyg"))
clang = shutil.which("clang-22") or os.path.join(llvm_bin, "clang")
clangxx = shutil.which("clang++-22") or os.path.join(llvm_bin, "clang++")

config.substitutions.append(("%zyg", zyg))
config.substitutions.append(("%clangxx", clangxx))
config.substitutions.append(("%clang", clang))
config.substitutions.append(("%FileCheck", os.path.join(llvm_bin, "FileCheck")))
config.substitutions.append(("%include", os.path.join(config.test_source_root, "include")))
config.substitutions.append(("%grad-run", "bash " + os.path.join(config.test_source_root, "bin", "grad-run.sh")))
config.environment["ZYG"] = zyg
config.environment["CLANG"] = clang
