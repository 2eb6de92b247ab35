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
        if (why) {
            // The message names our one-rule recipe ("rules[0] 'spec': …"): keep the reason.
            std::string w = e.what();
            for (const std::string prefix : {"rules[0] 'spec': ", "the catch-all rule: "})
                if (const auto at = w.find(prefix); at != std::string::npos)
                    w.erase(0, at + prefix.size());
            *why = w;
        }
        return false;
    }
}

} // namespace quantscope
