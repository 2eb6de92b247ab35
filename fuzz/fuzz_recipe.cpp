// SPDX-License-Identifier: MIT
// The recipe file: strict UTF-8 JSON without duplicate keys, its schema, patterns in three
// dialects (the regex subset check included). A recipe that loads must round-trip through its
// canonical JSON (recipe.h's promise), match module names, pass the checks and export to every
// format (refusals there are UnsupportedError).
#include "export/config_export.h"
#include "fuzz_common.h"
#include "recipe/recipe.h"
#include "recipe/recipe_check.h"

using namespace quantscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size > 65536) // regex compilation is super-linear; recipes are small
        return 0;
    const auto path = qsfuzz::writeFile("recipe.json", data, size);
    qsfuzz::refusalsOnly("recipe", [&] {
        const Recipe r = Recipe::load(path.string());
        if (!(Recipe::fromJson(r.toJson()) == r)) {
            std::fprintf(stderr, "recipe: fromJson(toJson()) differs:\n%s\n", r.text().c_str());
            std::abort();
        }
        (void)r.hash();
        const std::vector<std::string> modules = {"model.layers.0.self_attn.q_proj", "model.layers.0.mlp.down_proj",
                                                  "model.layers.1.mlp.experts.3.up_proj", "lm_head"};
        for (const auto &m : modules)
            (void)matchModule(r, m);
        (void)checkRecipe(r, modules);
        for (const auto f : allExportFormats())
            qsfuzz::refusalsOnly("recipe", [&] { (void)exportRecipeText(r, f); });
    });
    return 0;
}
