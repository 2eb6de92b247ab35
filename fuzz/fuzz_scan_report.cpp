// SPDX-License-Identifier: MIT
// A scan report being resumed: the input is the existing report; its header must be the scan's,
// whole lines are kept while they parse and are objects, and the file is truncated after the
// last kept line (then the kept lines must be exactly the file's lines after the header).
#include "fuzz_common.h"
#include "scan/scan_report.h"

#include <fstream>
#include <sstream>

using namespace quantscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto path = qsfuzz::writeFile("scan.jsonl", data, size);
    nlohmann::ordered_json header = {{"quantscope_scan", 1}, {"checkpoint", "model"}, {"recipe", "0123456789abcdef"}};
    std::vector<nlohmann::ordered_json> kept;
    qsfuzz::refusalsOnly("scan_report", [&] {
        ReportWriter w(path.string(), header);
        kept = w.resume(
            [](std::size_t, const nlohmann::ordered_json &l) { return l.is_object() && l.contains("module"); });
    });
    // Whatever happened, the file left is a header line and whole lines only (or untouched).
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    if (!kept.empty()) {
        std::size_t lines = 0;
        for (const char c : text)
            lines += c == '\n';
        if (text.empty() || text.back() != '\n' || lines != kept.size() + 1) {
            std::fprintf(stderr, "scan_report: %zu lines kept but the file has %zu lines after its header\n",
                         kept.size(), lines ? lines - 1 : 0);
            std::abort();
        }
    }
    return 0;
}
