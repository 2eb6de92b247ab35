// SPDX-License-Identifier: MIT
// `quantscope-cli decode`: one quantized module (or any tensor) decoded to FP32, written
// atomically as .safetensors or .npy.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "io/checkpoint.h"
#include "io/npy_writer.h"
#include "io/quantized.h"
#include "io/safetensors.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

int runDecode(Args args)
{
    const bool json = args.flag("--json");
    ReadOptions opts;
    opts.lenient = args.flag("--lenient");
    const auto tensor = args.value("--tensor");
    const auto outPath = args.value("--out");
    const auto pos = args.positionals();
    const char *usage =
        "usage: quantscope-cli decode PATH --tensor MODULE_OR_NAME --out OUT.safetensors|OUT.npy "
        "[--lenient] [--json]";
    if (pos.size() != 1 || !tensor || !outPath)
        throw UsageError(usage);
    const bool toNpy = endsWith(*outPath, ".npy");
    if (!toNpy && !endsWith(*outPath, ".safetensors"))
        throw UsageError("--out must end in .safetensors or .npy");

    const Checkpoint ck = Checkpoint::open(pos[0], opts);
    // One undecodable module does not make the others undecodable.
    DetectOptions detect;
    detect.strict = false;
    const Detection det = detectQuantized(ck, detect);
    if (const ModuleProblem *p = det.problem(*tensor))
        throw FormatError(p->message);
    Tensor decoded;
    std::string name, format = "dense", scheme;
    if (const QuantizedModule *m = det.find(*tensor)) {
        decoded = decodeQuantized(ck, *m);
        name = m->name;
        format = std::string(formatName(m->format));
        scheme = m->scheme.text();
    } else if (ck.find(*tensor)) {
        decoded = ck.tensor(*tensor).toF32();
        name = *tensor;
    } else {
        throw FormatError("no quantized module or tensor of this name in the checkpoint",
                          Location{pos[0], *tensor, {}});
    }

    if (toNpy) {
        writeNpy(*outPath, decoded);
    } else {
        std::map<std::string, std::string> meta{{"quantscope_decoded_from", pos[0]},
                                                {"format", format}};
        if (!scheme.empty())
            meta["scheme"] = scheme;
        writeSafetensors(*outPath, {{name, decoded}}, meta);
    }
    if (json) {
        nlohmann::ordered_json j{{"tensor", name}, {"format", format}, {"shape", decoded.shape()},
                                 {"dtype", "F32"}, {"out", *outPath}};
        if (!scheme.empty())
            j["scheme_text"] = scheme;
        std::cout << j.dump(1) << '\n';
    } else {
        std::printf("%s (%s) -> %s F32 %s\n", name.c_str(), format.c_str(), outPath->c_str(),
                    shapeToString(decoded.shape()).c_str());
    }
    return 0;
}

} // namespace quantscope::cli
