// SPDX-License-Identifier: MIT
// `quantscope-cli decode`: one quantized module (or any tensor) decoded to FP32, written
// atomically as .safetensors or .npy.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "ggml/ggml_types.h"
#include "io/checkpoint.h"
#include "io/gguf.h"
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

struct DecodeOptions {
    std::string path;
    std::optional<std::string> tensor, outPath;
};

int runDecode(const DecodeOptions &o, const CommonOptions &common)
{
    const bool json = common.json;
    ReadOptions opts;
    opts.lenient = common.lenient;
    const auto &tensor = o.tensor;
    const auto &outPath = o.outPath;
    const std::vector<std::string> pos{o.path};
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
        if (const GgufFile *g = ck.gguf()) { // a GGUF tensor: block types decode as ggml does
            const TensorEntry *e = ck.find(*tensor);
            name = e->name;
            format = "gguf";
            scheme = ggml::schemeText(g->tensorInfo(e->name)->type);
        }
    } else {
        throw FormatError("no quantized module or tensor of this name in the checkpoint",
                          Location{pos[0], *tensor, {}});
    }

    if (toNpy) {
        writeNpy(*outPath, decoded);
    } else {
        std::map<std::string, std::string> meta{{"quantscope_decoded_from", pos[0]}, {"format", format}};
        if (!scheme.empty())
            meta["scheme"] = scheme;
        writeSafetensors(*outPath, {{name, decoded}}, meta);
    }
    if (json) {
        nlohmann::ordered_json j{
            {"tensor", name}, {"format", format}, {"shape", decoded.shape()}, {"dtype", "F32"}, {"out", *outPath}};
        if (!scheme.empty())
            j["scheme_text"] = scheme;
        std::cout << j.dump(1) << '\n';
    } else {
        std::printf("%s (%s) -> %s F32 %s\n", name.c_str(), format.c_str(), outPath->c_str(),
                    shapeToString(decoded.shape()).c_str());
    }
    return 0;
}

} // namespace

void addDecodeCommand(Commands &c)
{
    auto o = std::make_shared<DecodeOptions>();
    CLI::App *cmd = c.add("decode", "write a quantized module (or any tensor) decoded to FP32",
                          [o, &c] { return runDecode(*o, c.common()); });
    cmd->add_option("PATH", o->path, "the checkpoint")->required();
    cmd->add_option("--tensor", o->tensor, "the quantized module (or a tensor)")
        ->type_name("MODULE_OR_NAME")
        ->required();
    cmd->add_option("--out", o->outPath, "where to write the FP32 tensor")
        ->type_name("OUT.safetensors|OUT.npy")
        ->required();
    c.addCommon(cmd, kJson | kLenient);
    cmd->footer("Example:\n"
                "  quantscope-cli export --recipe examples/recipe.json --format compressed-tensors --checkpoint demo/ "
                "--out-dir w4a16/\n"
                "  quantscope-cli decode w4a16/ --tensor model.layers.0.mlp.down_proj --out down.npy");
}

} // namespace quantscope::cli
