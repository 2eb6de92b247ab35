// SPDX-License-Identifier: MIT
#include "results/results.h"

namespace quantscope {

const TensorProfile *QuantizeJobResult::profile(const std::string &tensor) const
{
    for (const auto &p : tensors)
        if (p.tensor == tensor)
            return &p;
    return nullptr;
}

const QuantizeOutcome *QuantizeJobResult::outcome(const std::string &tensor, const std::string &config) const
{
    for (const auto &o : outcomes)
        if (o.tensor == tensor && o.config == config)
            return &o;
    return nullptr;
}

} // namespace quantscope
