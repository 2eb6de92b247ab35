// SPDX-License-Identifier: MIT
// The checkpoint doctor's whole report path (core/doctor/doctor.h): runDoctor, then toJson and
// dump, as `quantscope-cli doctor --json` runs it. The input is as for fuzz_quantized: config.json,
// the line "#QSFUZZ#", then the bytes of model.safetensors (no separator: the whole input is the
// safetensors file and there is no config). The oracle is stricter than the readers': the doctor
// may not refuse at all (every lie is a finding), the report must dump as JSON and parse back,
// and its exit code is 0, 3 or 4.
#include "doctor/doctor.h"
#include "fuzz_common.h"

#include <string_view>

using namespace quantscope;

namespace {
constexpr std::string_view kSeparator = "\n#QSFUZZ#\n";
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    qsfuzz::clearScratch();
    const std::string_view in(reinterpret_cast<const char *>(data), size);
    const auto cut = in.find(kSeparator);
    if (cut != std::string_view::npos) {
        qsfuzz::writeFile("d/config.json", in.substr(0, cut));
        qsfuzz::writeFile("d/model.safetensors", in.substr(cut + kSeparator.size()));
    } else {
        qsfuzz::writeFile("d/model.safetensors", in);
    }
    DoctorOptions o;
    o.maxValueBytes = qsfuzz::kMaxTensorBytes;
    for (const auto &path : {qsfuzz::scratch() / "d", qsfuzz::scratch() / "d" / "model.safetensors"}) {
        try {
            const DoctorReport r = runDoctor(path, o);
            const std::string text = r.toJson().dump(1);
            const nlohmann::json back = nlohmann::json::parse(text);
            const int rc = r.exitCode();
            if ((rc != 0 && rc != 3 && rc != 4) || back.at("exit_code").get<int>() != rc ||
                back.at("findings").size() != r.findings.size()) {
                std::fprintf(stderr, "doctor: exit code %d or a report that does not round-trip: %s\n", rc,
                             text.c_str());
                std::abort();
            }
        } catch (const std::exception &e) {
            std::fprintf(stderr, "doctor: the report path threw (it may not, the path exists): %s\n", e.what());
            std::abort();
        }
    }
    return 0;
}
