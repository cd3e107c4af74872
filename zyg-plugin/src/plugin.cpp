// libzyg_plugin.so's C++ side: registers zyg's module pass with LLVM's new pass manager, in
// clang's and lld's default pipelines and under the names `zyg` and `zyg-grad<...>` for opt,
// and declares the `-zyg-*` options (`-mllvm -zyg-fn=...`). The work itself is Rust's
// (`zyg_plugin_fill` in src/lib.rs, over the same module through LLVM's C API): this file
// only decides where in the pipeline it runs and turns a failure into a diagnostic.
//
// `llvmGetPassPluginInfo`, the symbol LLVM looks up, is defined in src/lib.rs: a Rust
// shared library exports only its Rust symbols. It hands LLVM
// `zyg_register_pass_builder_callbacks` below.

#include "llvm-c/Core.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"

#include <string>
#include <vector>

using namespace llvm;

// Where the pass runs; the numbers are `Stage` in src/lib.rs.
enum class Stage : unsigned {
  Compile = 0,        // a compile without LTO: fill every request
  FullLtoPreLink = 1, // `-flto`'s compile: keep the requests for the link
  ThinLtoPreLink = 2, // `-flto=thin`'s compile: not supported when there are requests
  LtoLink = 3,        // full LTO at link time (lld): fill every request, whole program
  Pass = 4,           // `-passes=zyg` or `zyg-grad<...>` (opt, or clang's -fpass-plugin pipeline text)
  Last = 5,           // the end of a compile's pipeline: anything left is an error
  Deferred = 6,       // after -O1..3's simplification: requests zyg refused early, tried again
};

extern "C" {
// src/lib.rs. Returns 0 (module unchanged), 1 (changed) or -1 (failed; `*message` is the
// error, freed with `zyg_plugin_free_message`).
int zyg_plugin_fill(LLVMModuleRef module, unsigned stage, unsigned level, const char *params, char **message);
void zyg_plugin_free_message(char *message);
}

// `-mllvm -zyg-...`: what `zyg grad`'s command line takes for exported gradients.
static cl::list<std::string> ZygFn("zyg-fn", cl::desc("zyg: also export the gradient of this function (may be repeated)"),
                                   cl::value_desc("name"));
static cl::list<std::string> ZygArgs("zyg-args",
                                     cl::desc("zyg: argument kinds of -zyg-fn's gradient, out,const,dup,... (once per -zyg-fn)"),
                                     cl::value_desc("kinds"));
static cl::list<std::string> ZygName("zyg-name", cl::desc("zyg: name of -zyg-fn's gradient (once per -zyg-fn)"),
                                     cl::value_desc("name"));
static cl::opt<std::string> ZygMode("zyg-mode", cl::desc("zyg: reverse (default) or forward, for -zyg-fn"), cl::init(""));
static cl::opt<unsigned> ZygWidth("zyg-width", cl::desc("zyg: forward mode's tangents per call, for -zyg-fn"), cl::init(0));
static cl::opt<std::string> ZygHeader("zyg-header", cl::desc("zyg: write the C prototypes of -zyg-fn's gradients to this file"),
                                      cl::value_desc("file"), cl::init(""));
static cl::opt<std::string> ZygTapeBudget("zyg-tape-budget",
                                          cl::desc("zyg: keep gradients' tapes small: checkpoint long loops (e.g. 64MiB)"),
                                          cl::value_desc("size"), cl::init(""));
static cl::opt<unsigned> ZygVerbose("zyg-verbose", cl::desc("zyg: log what zyg does (1: info, 2: debug)"), cl::init(0));

// The `-zyg-*` options as the parameter text `zyg-grad<...>` takes: `key=value;...`.
static std::string optionParams() {
  std::string text;
  auto add = [&](const char *key, const std::string &value) {
    if (!text.empty())
      text += ';';
    text += key;
    text += '=';
    text += value;
  };
  for (const std::string &f : ZygFn)
    add("fn", f);
  for (const std::string &a : ZygArgs)
    add("args", a);
  for (const std::string &n : ZygName)
    add("name", n);
  if (!ZygMode.empty())
    add("mode", ZygMode);
  if (ZygWidth != 0)
    add("width", std::to_string(ZygWidth));
  if (!ZygHeader.empty())
    add("header", ZygHeader);
  if (!ZygTapeBudget.empty())
    add("tape-budget", ZygTapeBudget);
  if (ZygVerbose != 0)
    add("verbose", std::to_string(ZygVerbose));
  return text;
}

namespace {
// Named metadata marking a module zyg failed on.
constexpr const char *FailedMark = "zyg.failed";

struct ZygPass : PassInfoMixin<ZygPass> {
  Stage stage;
  // The pipeline's optimisation level (0-3).
  unsigned level;
  // Parameters in `zyg-grad<...>`'s syntax; empty: the `-zyg-*` options'.
  std::string params;
  bool explicitParams;

  ZygPass(Stage stage, OptimizationLevel level, std::string params = "", bool explicitParams = false)
      : stage(stage), level(level.getSpeedupLevel()), params(std::move(params)), explicitParams(explicitParams) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    // After an error the compile goes on to its end; zyg's later stages say nothing more.
    if (M.getNamedMetadata(FailedMark))
      return PreservedAnalyses::all();
    std::string text = explicitParams ? params : optionParams();
    char *message = nullptr;
    int result = zyg_plugin_fill(wrap(&M), static_cast<unsigned>(stage), level, text.c_str(), &message);
    if (result < 0) {
      // The message is printed by Rust as `zyg: error: ...`; this makes the compile fail.
      M.getOrInsertNamedMetadata(FailedMark);
      M.getContext().diagnose(DiagnosticInfoGeneric(message ? message : "zyg: the gradient requests were not filled in"));
      zyg_plugin_free_message(message);
      return PreservedAnalyses::all();
    }
    return result == 0 ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }

  // Runs at -O0 and on `optnone` code too: requests must be filled in whatever the level.
  static bool isRequired() { return true; }
};

bool isLtoPreLink(ThinOrFullLTOPhase phase) {
  return phase == ThinOrFullLTOPhase::FullLTOPreLink || phase == ThinOrFullLTOPhase::ThinLTOPreLink;
}
} // namespace

extern "C" void zyg_register_pass_builder_callbacks(PassBuilder &PB) {
  // Early in every compile, before the inliner: registered derivatives and call boundaries
  // are still there, and the rest of the pipeline optimises the gradients with the program.
  PB.registerPipelineEarlySimplificationEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel level, ThinOrFullLTOPhase phase) {
        Stage stage = Stage::Compile;
        if (phase == ThinOrFullLTOPhase::FullLTOPreLink)
          stage = Stage::FullLtoPreLink;
        else if (phase == ThinOrFullLTOPhase::ThinLTOPreLink)
          stage = Stage::ThinLtoPreLink;
        MPM.addPass(ZygPass(stage, level));
      });
  // After -O1..3's simplification (inlining, SROA, GVN), before its optimisation
  // (vectorisation, unrolling): requests zyg refused on the early code are tried again on
  // code shaped as `zyg grad` sees clang's output, and the rest of the pipeline optimises
  // the gradients.
  PB.registerOptimizerEarlyEPCallback([](ModulePassManager &MPM, OptimizationLevel level, ThinOrFullLTOPhase phase) {
    if (!isLtoPreLink(phase))
      MPM.addPass(ZygPass(Stage::Deferred, level));
  });
  // The end of a compile's pipeline: a request still there (one another pass made) is
  // filled in, or is an error; never left for the linker to miss.
  PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel level, ThinOrFullLTOPhase phase) {
    if (!isLtoPreLink(phase))
      MPM.addPass(ZygPass(Stage::Last, level));
  });
  // Full LTO (`clang -flto -fuse-ld=lld -Wl,--load-pass-plugin=...`): the whole program.
  PB.registerFullLinkTimeOptimizationEarlyEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel level) { MPM.addPass(ZygPass(Stage::LtoLink, level)); });
  // Pipeline text: `-passes=zyg,default<O2>`, `-passes='zyg-grad<fn=f;args=out:dup>'` (a comma
  // ends a pass in LLVM's pipeline text, even inside `<...>`).
  PB.registerPipelineParsingCallback(
      [](StringRef name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (name == "zyg") {
          MPM.addPass(ZygPass(Stage::Pass, OptimizationLevel::O0));
          return true;
        }
        if (name.consume_front("zyg-grad")) {
          // `zyg-grad<...>`, or `zyg-grad` alone (zyg then says --fn is missing).
          std::string params;
          if (name.consume_front("<") && name.consume_back(">"))
            params = name.str();
          else if (!name.empty())
            return false;
          if (params.empty())
            params = "fn=";
          MPM.addPass(ZygPass(Stage::Pass, OptimizationLevel::O0, params, true));
          return true;
        }
        return false;
      });
}
