// SPDX-License-Identifier: MIT
// The quantizer spec JSON (--spec files, recipe specs, sessions' configurations): parse, and the
// canonical JSON of what parsed must parse again to the same canonical JSON.
#include "fuzz_common.h"
#include "quant/quant_spec.h"

#include <nlohmann/json.hpp>

using namespace quantscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded())
        return 0;
    qsfuzz::refusalsOnly("spec", [&] {
        const nlohmann::json canon = toJson(parseQuantSpec(j));
        const nlohmann::json again = toJson(parseQuantSpec(canon));
        if (again != canon) {
            std::fprintf(stderr, "spec: the canonical JSON does not round-trip:\n%s\n%s\n", canon.dump().c_str(),
                         again.dump().c_str());
            std::abort();
        }
    });
    return 0;
}
