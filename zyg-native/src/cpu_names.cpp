// The CPU names a target knows, for `zyg compile --cpu`: LLVM's C API has no such query, and
// a target machine made for a CPU its target does not know only warns ("'foo' is not a
// recognized processor") and goes on with a subtarget that can stop the process later
// ("LLVM ERROR: 64-bit code requested on a subtarget that doesn't support it!").
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/Triple.h"
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

// 1 when `triple`'s target knows `cpu`, 0 when it does not, -1 when there is no such
// target. With 0, *known (malloc'd) lists the CPUs it knows, one per line.
extern "C" int zyg_cpu_known(const char *triple, const char *cpu, char **known) {
    *known = nullptr;
    std::string error;
    llvm::Triple t(triple);
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(t, error);
    if (!target)
        return -1;
    std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(t, "", ""));
    if (!info)
        return -1;
    if (info->isCPUStringValid(cpu))
        return 1;
    std::string names;
    for (const auto &kv : info->getAllProcessorDescriptions()) {
        names += kv.Key;
        names += '\n';
    }
    *known = static_cast<char *>(std::malloc(names.size() + 1));
    if (*known)
        std::memcpy(*known, names.c_str(), names.size() + 1);
    return 0;
}
