// SPDX-License-Identifier: MIT
#include "export/fp8block_writer.h"

#include <cstring>
#include <variant>

#include "quant/quant_spec.h"
#include "util/error.h"

namespace quantscope {

nlohmann::json fp8BlockConfig(const Recipe &recipe, const ExportOptions &options)
{
    const std::string where = "fp8-block";
    if (recipe.rules.size() != 1 || !exportdetail::isCatchAll(recipe.rules[0]) || recipe.rules[0].specs.size() != 1 ||
        !recipe.rules[0].overrides.empty())
        throw UnsupportedError(where + ": the layout has one scheme per checkpoint — give one catch-all rule ('*') "
                                       "with one FP8 block spec and no overrides");
    const QuantSpec spec = parseQuantSpec(recipe.rules[0].specs[0]);
    const auto *f = std::get_if<Fp8Spec>(&spec);
    if (!f || f->format != Fp8Format::E4M3 || f->granularity != Granularity::Block)
        throw UnsupportedError(exportdetail::ruleLabel(recipe, 0) + ": the FP8 block layout holds FP8 E4M3 per " +
                               "square block (method fp8, granularity block)");
    if (options.activations == ActivationScheme::Fp8Static)
        throw UnsupportedError(where + ": activations fp8-static — the layout keeps no input scales (dynamic only)");
    nlohmann::json skip = nlohmann::json::array();
    for (const RecipeExclude &e : recipe.exclude) {
        if (e.dialect != PatternDialect::Exact)
            throw UnsupportedError(where + ": exclude '" + e.pattern + "' is a " + std::string(toString(e.dialect)) +
                                   " pattern; modules_to_not_convert takes exact module names");
        skip.push_back(e.pattern);
    }
    nlohmann::json q;
    q["activation_scheme"] = "dynamic";
    q["fmt"] = "e4m3";
    q["modules_to_not_convert"] = skip;
    q["quant_method"] = "fp8";
    q["weight_block_size"] = {f->block, f->block};
    return q;
}

} // namespace quantscope
