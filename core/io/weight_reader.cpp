// SPDX-License-Identifier: MIT
#include "io/weight_reader.h"

#include <utility>

#include "util/error.h"

namespace quantscope {

namespace {

std::string lastComponent(std::string_view name)
{
    const auto dot = name.rfind('.');
    return std::string(dot == std::string_view::npos ? name : name.substr(dot + 1));
}

/// A tensor of a module the detection refused that is one of its quantized parts (the weight,
/// its scales, zero points, g_idx or shape), not e.g. its bias.
bool looksLikePart(std::string_view name)
{
    const std::string last = lastComponent(name);
    return last.rfind("weight", 0) == 0 || last.find("scale") != std::string::npos ||
           last.find("zero") != std::string::npos || last == "g_idx";
}

std::string fixText(const Checkpoint &ck, std::string_view module)
{
    return "run `quantscope-cli decode " + ck.path().string() + " --tensor " + std::string(module) +
           " --out w.npy` first, or pass the module name '" + std::string(module) + "' to quantize its decoded weights";
}

} // namespace

bool holdsCodes(DType t) noexcept
{
    return t == DType::F8_E8M0 || !isFloating(t);
}

WeightReader::WeightReader(std::shared_ptr<const Checkpoint> checkpoint) : m_checkpoint(std::move(checkpoint))
{
    DetectOptions detect;
    detect.strict = false;
    m_detection = std::make_shared<const Detection>(detectQuantized(*m_checkpoint, detect));
}

WeightReader::WeightReader(std::shared_ptr<const Checkpoint> checkpoint, std::shared_ptr<const Detection> detection)
    : m_checkpoint(std::move(checkpoint)), m_detection(std::move(detection))
{
    if (!m_detection)
        m_detection = std::make_shared<const Detection>();
}

const QuantizedModule *WeightReader::resolve(std::string_view name) const
{
    const Checkpoint &ck = *m_checkpoint;
    const Location where{ck.path().string(), std::string(name), {}};
    if (const QuantizedModule *m = m_detection->find(name)) {
        // The module and its logical weight decode (Quark stores its packed codes under the
        // logical weight's own name: that name means the weight, never the words).
        if (name == m->module || name == m->name)
            return m;
        std::string role = "part";
        for (const auto &[r, t] : m->parts)
            if (t == name)
                role = r;
        throw UnsupportedError("is the " + role + " of the quantized module '" + m->module + "' (" +
                                   std::string(formatName(m->format)) + ", " + m->scheme.text() + "), not weights; " +
                                   fixText(ck, m->module),
                               where);
    }
    if (const ModuleProblem *p = m_detection->problem(name); p && looksLikePart(name))
        throw UnsupportedError("belongs to a quantized module that cannot be decoded (" + p->message +
                                   "); its stored parts are not weights",
                               where);
    const TensorEntry *e = ck.find(name);
    if (!e)
        throw FormatError("no such tensor in the checkpoint", where);
    if (holdsCodes(e->dtype)) {
        const auto dot = name.rfind('.');
        const std::string_view module = dot == std::string_view::npos ? name : name.substr(0, dot);
        throw UnsupportedError("is stored as " + std::string(nameOf(e->dtype)) +
                                   ": integer codes (a packed or quantized tensor, scheme not detected), "
                                   "not weights; " +
                                   fixText(ck, module),
                               where);
    }
    return nullptr;
}

Tensor WeightReader::read(std::string_view name) const
{
    if (const QuantizedModule *m = resolve(name))
        return decodeQuantized(*m_checkpoint, *m);
    return m_checkpoint->tensor(name);
}

Shape WeightReader::shape(std::string_view name) const
{
    if (const QuantizedModule *m = resolve(name))
        return m->shape;
    return m_checkpoint->find(name)->shape;
}

std::string WeightReader::note(std::string_view name) const
{
    const QuantizedModule *m = resolve(name);
    if (!m)
        return {};
    return "decoded " + m->module + " (" + std::string(formatName(m->format)) + ", " + m->scheme.text() +
           ") to FP32 first";
}

} // namespace quantscope
