// SPDX-License-Identifier: MIT
#pragma once
/// \file quant_spec.h
/// The typed quantizer spec: one value that names the method by its type. A spec enters as
/// JSON or form fields at the edge (CLI flags, the quantizer panel, a session file, later
/// recipes), is parsed and validated once there, and travels typed through the engine to the
/// backends; JSON is produced again only for output (toJson gives the full spec, defaults
/// filled in, exactly as each spec struct writes it).
#include <memory>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "quant/constopt.h"
#include "quant/data_aware.h"
#include "quant/gguf_quant.h"
#include "quant/hqq.h"
#include "quant/milo.h"
#include "quant/mxfp4.h"
#include "quant/nvfp4.h"
#include "quant/progressive.h"
#include "quant/spec.h"

namespace quantscope {

class Quantizer;

/// Every quantizer's spec; the alternative is the method.
using QuantSpec = std::variant<IntSpec, Fp8Spec, HqqSpec, MiloSpec, MxFp4Spec, NvFp4Spec, ProgressiveSpec, ConstOptSpec,
                               GptqSpec, AwqSpec, GgufQuantSpec>;

/// Parses and validates a spec JSON whose "method" names the quantizer (missing fields take
/// their defaults). Throws UnsupportedError naming the method or the field, with the same
/// messages the quantizers give.
QuantSpec parseQuantSpec(const nlohmann::json &j);
/// The full spec as JSON ("method" first, then every field).
nlohmann::json toJson(const QuantSpec &spec);
/// The method name ("int", "fp8", "hqq", "milo", "mxfp4", "nvfp4", "progressive", "constopt", "gguf").
std::string methodOf(const QuantSpec &spec);
/// The quantizer of a typed spec.
std::unique_ptr<Quantizer> makeQuantizer(const QuantSpec &spec);
/// A ProgressiveSpec stage as the spec it is (IntSpec or Fp8Spec), without re-parsing.
QuantSpec stageSpec(const ProgressiveStage &stage);
/// The plain spec a GPTQ result is stored and dequantized as (its observer): spec.quant (target
/// int), or Fp8Spec (E4M3, spec.quant's granularity), NvFp4Spec, MxFp4Spec (mode even; spec.quant's
/// group and strict).
QuantSpec gptqTargetSpec(const GptqSpec &spec);

} // namespace quantscope
