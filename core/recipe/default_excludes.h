// SPDX-License-Identifier: MIT
#pragma once
/// \file default_excludes.h
/// Which modules stay dense unless the user says otherwise: embeddings, the output head, MoE
/// routers, norms and anything not 2-D (docs/formats.md "Exported configs", docs/cli.md "`budget`").
/// Here, below export/ and budget/, because both the exporters (export/toolkit_rules.h) and the
/// budget solver (budget/budget.h) keep these modules dense.
#include <string>

#include "tensor/tensor.h"

namespace quantscope {

/// Why a module stays dense unless the user says otherwise ("" when it does not): an
/// embedding, the output head, a MoE router, or a weight that is not 2-D.
std::string defaultExcludeReason(const std::string &module, const Shape &weightShape);
/// Whether the module is an embedding (not a Linear layer: compressed-tensors' `Linear` target
/// and Quark's global config do not apply to it).
bool isEmbeddingModule(const std::string &module);

} // namespace quantscope
