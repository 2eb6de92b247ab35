// SPDX-License-Identifier: MIT
// TEMPORARY (branch `budget`): targetCanWrite (checkpoint_writer.h) until the writers' checkSpec
// lands on main; delete this file (and its line in core/CMakeLists.txt) at that merge. It asks
// the target's config exporter about a one-rule catch-all recipe holding `spec`: a spec the
// config cannot express is one its checkpoint writer cannot store either.
#include "export/checkpoint_writer.h"

#include "util/error.h"

namespace quantscope {

bool targetCanWrite(ExportFormat format, const QuantSpec &spec, std::string *why)
{
    if (format == ExportFormat::Quantscope)
        return true; // the native layout stores every spec
    Recipe recipe;
    RecipeRule rule;
    rule.name = "spec";
    rule.patterns = {"*"};
    rule.specs = {toJson(spec)};
    recipe.rules.push_back(std::move(rule));
    try {
        (void)exportRecipeText(recipe, format);
        return true;
    } catch (const UnsupportedError &e) {
        if (why)
            *why = e.what();
        return false;
    }
}

} // namespace quantscope
