// SPDX-License-Identifier: MIT
#include "quant/activation.h"

#include <cmath>
#include <cstdlib>

#include "quant/fp8.h"
#include "quant/groupwise.h"
#include "quant/uniform.h"
#include "tensor/convert.h"
#include "util/error.h"

namespace quantscope {

ActQuantSpec ActQuantSpec::parse(const std::string &s)
{
    ActQuantSpec a;
    if (s == "int8-token")
        a.kind = ActQuantKind::Int8Token;
    else if (s == "fp8-token")
        a.kind = ActQuantKind::Fp8Token;
    else if (s == "fp8-tensor")
        a.kind = ActQuantKind::Fp8Tensor;
    else if (s == "static")
        a.kind = ActQuantKind::Static;
    else if (s.rfind("static:", 0) == 0) {
        a.kind = ActQuantKind::Static;
        const std::string v = s.substr(7);
        char *end = nullptr;
        const double d = std::strtod(v.c_str(), &end);
        if (v.empty() || end != v.c_str() + v.size() || !(d > 0.0) || !std::isfinite(static_cast<float>(d)))
            throw UnsupportedError("static activation scale must be a positive number, got '" + v + "'");
        a.staticScale = static_cast<float>(d);
    } else {
        throw UnsupportedError("activation quantization '" + s +
                               "' unknown (int8-token, fp8-token, fp8-tensor, static[:S])");
    }
    return a;
}

std::string ActQuantSpec::name() const
{
    switch (kind) {
    case ActQuantKind::Int8Token:
        return "int8-token";
    case ActQuantKind::Fp8Token:
        return "fp8-token";
    case ActQuantKind::Fp8Tensor:
        return "fp8-tensor";
    case ActQuantKind::Static: {
        if (!staticScale)
            return "static";
        char buf[64];
        std::snprintf(buf, sizeof buf, "static:%.9g", static_cast<double>(*staticScale));
        return buf;
    }
    }
    return "";
}

float QuantizedActivations::codeValue(std::int64_t i) const
{
    const std::uint8_t c = codes[static_cast<std::size_t>(i)];
    return int8 ? static_cast<float>(static_cast<std::int8_t>(c)) : e4m3ToFloat(c);
}

QuantSpec dynamicActivationSpec(const ActQuantSpec &spec)
{
    if (spec.kind == ActQuantKind::Int8Token) {
        IntSpec s;
        s.bits = 8;
        s.granularity = Granularity::Channel;
        s.axis = 0;
        s.symmetric = true;
        s.scaleRule = ScaleRule::Max;
        return s;
    }
    Fp8Spec s; // fp8-tensor; a static kind is E4M3 per tensor too, with its scale given
    s.granularity = spec.kind == ActQuantKind::Fp8Token ? Granularity::Channel : Granularity::Tensor;
    return s;
}

QuantizedActivations quantizeActivations(const Tensor &x, const ActQuantSpec &spec, int threads,
                                         const CancelToken *cancel)
{
    if (!isDecodable(x.dtype()))
        throw UnsupportedError("cannot quantize " + std::string(nameOf(x.dtype())) + " activations");
    QuantizedActivations a;
    std::tie(a.rows, a.cols) = matrixView(x.shape());
    a.int8 = spec.int8();
    a.perToken = spec.perToken();
    QuantizeOptions o;
    o.threads = threads;
    o.tensorName = "activations";
    if (spec.kind != ActQuantKind::Static) {
        QuantizedTensor q;
        const QuantSpec qs = dynamicActivationSpec(spec);
        if (const auto *is = std::get_if<IntSpec>(&qs))
            q = IntQuantizer(*is).quantize(x, o, cancel);
        else
            q = Fp8Quantizer(std::get<Fp8Spec>(qs)).quantize(x, o, cancel);
        a.codes = std::move(q.codes);
        a.scales = std::move(q.scales);
        a.dequantized = std::move(q.dequantized);
        a.nonFinite = q.nonFiniteGroups;
        a.scaleSource = "dynamic";
        return a;
    }
    float s = 0;
    if (spec.staticScale) {
        s = *spec.staticScale;
        a.scaleSource = "user";
    } else {
        s = detail::finiteAbsMax(x, threads, cancel) / 448.0f;
        if (!(s > 0.0f))
            s = 1.1920929e-7f; // FP32 eps, as the dynamic rule
        a.scaleSource = "absmax of the loaded tensor";
    }
    a.scales = {s};
    const std::int64_t n = a.rows * a.cols;
    a.codes.resize(static_cast<std::size_t>(n));
    a.dequantized.resize(static_cast<std::size_t>(n));
    std::vector<float> buf(static_cast<std::size_t>(n));
    x.decodeTo(buf);
    for (std::int64_t i = 0; i < n; ++i) {
        const float v = buf[static_cast<std::size_t>(i)];
        std::uint8_t c = 0;
        if (qmath::isFinite(v))
            c = floatToE4m3(v / s); // the quantization cast clamps to ±448 first
        else
            ++a.nonFinite;
        a.codes[static_cast<std::size_t>(i)] = c;
        a.dequantized[static_cast<std::size_t>(i)] = e4m3ToFloat(c) * s;
    }
    return a;
}

} // namespace quantscope
