// SPDX-License-Identifier: MIT
// The .qscope session file. Its parser is core's sessionFromJson (Qt-free); the window only reads
// the file's bytes and parses them as JSON (a JSON syntax error is its own message there, so it
// is an expected refusal here too). A session that opens is written again, and what is written
// must read back to the same text (the session's exact round trip, tests/core/engine/test_jobs.cpp).
#include "fuzz_common.h"
#include "results/session.h"

#include <nlohmann/json.hpp>

using namespace quantscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded())
        return 0;
    qsfuzz::refusalsOnly("session", [&] {
        const Session s = sessionFromJson(j);
        const std::string text = sessionToJson(s).dump(1);
        const std::string again = sessionToJson(sessionFromJson(nlohmann::json::parse(text))).dump(1);
        if (again != text) {
            std::fprintf(stderr, "session: written text does not read back to itself:\n%s\n%s\n", text.c_str(),
                         again.c_str());
            std::abort();
        }
    });
    return 0;
}
