// SPDX-License-Identifier: MIT
// Recipes (recipe/recipe.h, recipe_check.h): the strict parse refuses every way the input can
// lie, naming the JSON path; the round trip is exact and byte-stable; the dialects match as
// Quark's fnmatch and compressed-tensors' full-match regexes do (expectations worked out by hand
// from those rules); the queries find what a hand-made module list holds.
#include "recipe/recipe.h"
#include "recipe/recipe_check.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "util/error.h"

using namespace quantscope;
using ojson = nlohmann::ordered_json;

namespace {

ojson rule(std::vector<std::string> patterns, std::string dialect, ojson specs)
{
    return ojson{{"patterns", patterns}, {"dialect", dialect}, {"specs", specs}};
}

ojson minimal()
{
    return ojson{{"quantscope_recipe", 1},
                 {"rules", ojson::array({rule({"*"}, "fnmatch", ojson::array({{{"method", "int"}}}))})}};
}

/// The FormatError message of parsing `j`, or "" when it parses.
std::string refusal(const ojson &j)
{
    try {
        Recipe::fromJson(j);
    } catch (const FormatError &e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(Recipe, MinimalParsesWithDefaultsFilledIn)
{
    const Recipe r = Recipe::fromJson(minimal());
    ASSERT_EQ(r.rules.size(), 1u);
    EXPECT_EQ(r.rules[0].dialect, PatternDialect::Fnmatch);
    EXPECT_EQ(r.rules[0].specs[0].at("bits"), 4);
    EXPECT_EQ(r.rules[0].specs[0].at("group"), 128);
    EXPECT_EQ(r.rules[0].specs[0].at("symmetric"), true);
    EXPECT_TRUE(r.exclude.empty());
}

TEST(Recipe, StrictParseNamesThePathOfEveryLie)
{
    struct Case {
        std::function<void(ojson &)> edit;
        std::string path;
    };
    const std::vector<Case> cases = {
        {[](ojson &j) { j.erase("quantscope_recipe"); }, "missing \"quantscope_recipe\""},
        {[](ojson &j) { j["quantscope_recipe"] = 2; }, "quantscope_recipe"},
        {[](ojson &j) { j["quantscope_recipe"] = "1"; }, "quantscope_recipe"},
        {[](ojson &j) { j["rulez"] = ojson::array(); }, "rulez: unknown key"},
        {[](ojson &j) { j.erase("rules"); }, "missing \"rules\""},
        {[](ojson &j) { j["rules"] = ojson::object(); }, "rules: must be an array"},
        {[](ojson &j) { j["rules"][0]["pattern"] = "x"; }, "rules[0].pattern: unknown key"},
        {[](ojson &j) { j["rules"][0]["patterns"] = ojson::array(); }, "rules[0].patterns"},
        {[](ojson &j) { j["rules"][0]["patterns"] = ojson::array({3}); }, "rules[0].patterns[0]: must be a string"},
        {[](ojson &j) { j["rules"][0]["patterns"] = ojson::array({""}); }, "rules[0].patterns[0]: empty pattern"},
        {[](ojson &j) { j["rules"][0]["dialect"] = "glob"; }, "rules[0].dialect"},
        {[](ojson &j) { j["rules"][0]["specs"] = ojson::array(); }, "rules[0].specs"},
        {[](ojson &j) { j["rules"][0]["specs"][0] = "int"; }, "rules[0].specs[0]"},
        {[](ojson &j) { j["rules"][0]["specs"][0]["bits"] = 99; }, "rules[0].specs[0]"},
        {[](ojson &j) { j["rules"][0]["specs"][0]["colour"] = 1; }, "rules[0].specs[0]"},
        {[](ojson &j) { j["rules"][0]["specs"][0]["method"] = "int5"; }, "rules[0].specs[0]"},
        {[](ojson &j) { j["rules"][0]["overrides"] = ojson::array(); }, "rules[0].overrides"},
        {[](ojson &j) {
             j["rules"][0]["overrides"]["m"] = {{"rank", 8}};
         },
         "rules[0].overrides.m.rank: no spec"},
        {[](ojson &j) {
             j["rules"][0]["overrides"]["m"] = {{"bits", 1}};
         },
         "rules[0].overrides.m: makes specs[0] invalid"},
        {[](ojson &j) {
             j["rules"][0]["overrides"]["m"] = {{"bits", 3.5}};
         },
         "rules[0].overrides.m.bits: must be an integer"},
        // 2^32 + 4: get<int>() would have read it as 4.
        {[](ojson &j) {
             j["rules"][0]["overrides"]["m"] = {{"bits", 4294967300LL}};
         },
         "rules[0].overrides.m.bits: must be an integer"},
        {[](ojson &j) {
             j["rules"][0]["overrides"]["m"] = {{"size", 3}};
         },
         "rules[0].overrides.m.size: unknown key"},
        {[](ojson &j) { j["rules"][0]["overrides"]["m"] = ojson::object(); }, "rules[0].overrides.m: sets nothing"},
        {[](ojson &j) { j["rules"][0]["name"] = 7; }, "rules[0].name: must be a string"},
        {[](ojson &j) { j["exclude"] = "lm_head"; }, "exclude: must be an array"},
        {[](ojson &j) {
             j["exclude"] = ojson::array({{{"pattern", "x"}, {"kind", "re"}}});
         },
         "exclude[0].kind"},
        {[](ojson &j) {
             j["exclude"] = ojson::array({{{"dialect", "re"}}});
         },
         "exclude[0]: missing \"pattern\""},
        {[](ojson &j) {
             j["exclude"] = ojson::array({{{"pattern", "a("}, {"dialect", "re"}}});
         },
         "exclude[0]"},
        {[](ojson &j) { j["metadata"] = ojson::array(); }, "metadata: must be an object"},
        {[](ojson &j) { j = ojson::array(); }, "must be an object"},
        {[](ojson &j) {
             j["rules"][0]["dialect"] = "re";
             j["rules"][0]["patterns"] = ojson::array({"(?<=a)b"});
         },
         "rules[0].patterns[0]: regex '(?<=a)b': lookbehind"},
        // Numbers libstdc++'s regex compiler would overflow (the fuzz finding of docs/reliability.md).
        {[](ojson &j) {
             j["rules"][0]["dialect"] = "re";
             j["rules"][0]["patterns"] = ojson::array({"a{3333333333333333333}"});
         },
         "a repetition count above 1000"},
        {[](ojson &j) {
             j["rules"][0]["dialect"] = "re";
             j["rules"][0]["patterns"] = ojson::array({"a{2,1001}"});
         },
         "a repetition count above 1000"},
        {[](ojson &j) {
             j["rules"][0]["dialect"] = "re";
             j["rules"][0]["patterns"] = ojson::array({"(a)\\99999999999999999999"});
         },
         "an escape with more than 3 digits"},
    };
    // Counts within the subset's limits stay accepted.
    EXPECT_NO_THROW(checkRegexSubset(R"(model\.layers\.\d{1,3}\.mlp\.(up|down)_proj)"));
    EXPECT_NO_THROW(checkRegexSubset("a{1000}b{0,1000}(c)\\1"));
    for (std::size_t i = 0; i < cases.size(); ++i) {
        ojson j = minimal();
        cases[i].edit(j);
        const std::string msg = refusal(j);
        EXPECT_NE(msg.find(cases[i].path), std::string::npos)
            << "case " << i << ": expected '" << cases[i].path << "' in '" << msg << "'";
    }
}

TEST(Recipe, RoundTripIsExactAndByteStable)
{
    ojson j = minimal();
    j["rules"].push_back({{"name", "experts"},
                          {"patterns", {R"(model\.layers\.\d+\.mlp\.experts\.\d+\..*)"}},
                          {"dialect", "re"},
                          {"specs", {{{"method", "fp8"}}, {{"method", "milo"}, {"rank", 16}}}},
                          {"overrides", {{"model.layers.3.mlp.experts.0.up_proj", {{"rank", 32}}}}}});
    j["exclude"] = ojson::array({"*lm_head", {{"pattern", "model.norm"}, {"dialect", "exact"}}});
    j["metadata"] = {{"zeta", 1}, {"alpha", {{"b", 2}}}};
    const Recipe a = Recipe::fromJson(j);
    const std::string text = a.text();
    const Recipe b = Recipe::fromJson(ojson::parse(text));
    EXPECT_EQ(a, b);
    EXPECT_EQ(b.text(), text);
    EXPECT_EQ(b.hash(), a.hash());
    // Metadata key order survives (ordered, not sorted).
    EXPECT_LT(text.find("zeta"), text.find("alpha"));
    // A changed spec changes the hash.
    Recipe c = b;
    c.rules[0].specs[0]["bits"] = 3;
    EXPECT_NE(c.hash(), a.hash());

    const auto path = std::filesystem::temp_directory_path() / "qs_recipe_rt.json";
    a.save(path.string());
    EXPECT_EQ(Recipe::load(path.string()), a);
    std::filesystem::remove(path);
}

TEST(Recipe, LoadRefusesDuplicateKeysAndNamesTheFile)
{
    const auto path = std::filesystem::temp_directory_path() / "qs_recipe_dup.json";
    {
        std::ofstream(path) << R"({"quantscope_recipe":1,"rules":[],"rules":[]})";
    }
    try {
        Recipe::load(path.string());
        FAIL() << "duplicate key accepted";
    } catch (const FormatError &e) {
        EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    }
    std::filesystem::remove(path);
}

TEST(Recipe, DialectsMatchTheWholeModuleName)
{
    // fnmatch (Quark): "*mlp.up_proj" matches a dense MLP but not an expert's up_proj.
    EXPECT_TRUE(patternMatches(PatternDialect::Fnmatch, "*mlp.up_proj", "model.layers.0.mlp.up_proj"));
    EXPECT_FALSE(patternMatches(PatternDialect::Fnmatch, "*mlp.up_proj", "model.layers.1.mlp.experts.42.up_proj"));
    EXPECT_TRUE(patternMatches(PatternDialect::Fnmatch, "*.[qk]_proj", "a.q_proj"));
    EXPECT_FALSE(patternMatches(PatternDialect::Fnmatch, "*.[!qk]_proj", "a.q_proj"));
    // re: a full match (a prefix is not enough, and neither is a match in the middle).
    EXPECT_TRUE(patternMatches(PatternDialect::Re, R"(.*\.q_proj)", "model.layers.0.self_attn.q_proj"));
    EXPECT_FALSE(patternMatches(PatternDialect::Re, R"(.*\.q_proj)", "model.layers.0.self_attn.q_proj_extra"));
    EXPECT_FALSE(patternMatches(PatternDialect::Re, "layers", "model.layers.0"));
    EXPECT_TRUE(patternMatches(PatternDialect::Re, R"(model\.layers\.(0|1)\..*)", "model.layers.1.mlp"));
    EXPECT_FALSE(patternMatches(PatternDialect::Re, R"(model\.layers\.(0|1)\..*)", "model.layers.10.mlp"));
    EXPECT_TRUE(patternMatches(PatternDialect::Re, R"(.*(?!gate)_proj)", "x.up_proj")); // lookahead is ECMAScript too
    // exact: nothing special about any character.
    EXPECT_TRUE(patternMatches(PatternDialect::Exact, "a.*", "a.*"));
    EXPECT_FALSE(patternMatches(PatternDialect::Exact, "a.*", "a.b"));
}

TEST(Recipe, RegexSubsetRefusesWhatEcmaScriptReadsDifferently)
{
    for (const char *bad :
         {"(?<=x)y", "(?<!x)y", "(?P<n>x)", "(?<n>x)", "(?i)x", "(?>x)", R"(\Ax)", R"(x\Z)", "x*+", "[]a]"}) {
        EXPECT_THROW(checkRegexSubset(bad), FormatError) << bad;
    }
    for (const char *good : {"(?:x)", "(?=x)x", "(?!y)x", R"(\d+\.[a-z_]+)", R"(a\(b\))", "[(?<=]"})
        EXPECT_NO_THROW(checkRegexSubset(good)) << good;
}

TEST(Recipe, FirstRuleWinsExcludeWinsOverAllOverridesApply)
{
    ojson j = minimal();
    j["rules"] =
        ojson::array({rule({"*.q_proj", "*.k_proj"}, "fnmatch", ojson::array({{{"method", "int"}, {"bits", 8}}})),
                      rule({"*_proj"}, "fnmatch", ojson::array({{{"method", "int"}}}))});
    j["rules"][1]["overrides"] = {{"l.0.mlp.down_proj", {{"bits", 3}}}};
    j["exclude"] = ojson::array({"l.1.*"});
    const Recipe r = Recipe::fromJson(j);

    RecipeMatch m = matchModule(r, "l.0.attn.k_proj");
    EXPECT_EQ(m.rule, 0);
    EXPECT_EQ(m.pattern, 1);
    EXPECT_EQ(m.alsoMatched, std::vector<int>{1});
    ASSERT_EQ(m.specs.size(), 1u);
    EXPECT_EQ(toJson(m.specs[0]).at("bits"), 8);

    m = matchModule(r, "l.0.mlp.down_proj");
    EXPECT_EQ(m.rule, 1);
    EXPECT_EQ(toJson(m.specs[0]).at("bits"), 3); // the override
    EXPECT_NE(m.why.find("override"), std::string::npos);
    EXPECT_EQ(toJson(matchModule(r, "l.0.mlp.up_proj").specs[0]).at("bits"), 4);

    m = matchModule(r, "l.1.attn.q_proj");
    EXPECT_TRUE(m.excluded);
    EXPECT_FALSE(m.matched());
    EXPECT_EQ(m.excludeIndex, 0);
    EXPECT_TRUE(m.specs.empty());

    m = matchModule(r, "l.0.norm");
    EXPECT_FALSE(m.matched());
    EXPECT_FALSE(m.excluded);
}

TEST(Recipe, DefaultIsInt4Group128SymmetricOnEverything)
{
    const Recipe d = Recipe::defaults();
    const RecipeMatch m = matchModule(d, "anything.at.all");
    ASSERT_TRUE(m.matched());
    ASSERT_EQ(m.specs.size(), 1u);
    const auto &spec = std::get<IntSpec>(m.specs[0]);
    EXPECT_EQ(spec.bits, 4);
    EXPECT_EQ(spec.group, 128);
    EXPECT_EQ(spec.granularity, Granularity::Group);
    EXPECT_TRUE(spec.symmetric);
    EXPECT_EQ(Recipe::fromJson(d.toJson()), d);
}

TEST(RecipeCheck, PublishedW4A8ExcludeListKeepsOnlyRoutedExperts)
{
    // docs/formats.md "The published W4A8 recipe": everything but the routed experts is excluded.
    ojson j = minimal();
    j["exclude"] = ojson::array({"*self_attn*", "*mlp.gate", "*lm_head", "*mlp.gate_proj", "*mlp.up_proj",
                                 "*mlp.down_proj", "*shared_experts*", "*mm_projector*", "*vision_tower*"});
    const Recipe r = Recipe::fromJson(j);
    const std::vector<std::string> modules = {"model.layers.0.self_attn.q_proj",
                                              "model.layers.0.mlp.up_proj",
                                              "model.layers.1.mlp.gate",
                                              "model.layers.1.mlp.experts.42.up_proj",
                                              "model.layers.1.mlp.shared_experts.down_proj",
                                              "lm_head"};
    const RecipeCheck c = checkRecipe(r, modules);
    ASSERT_EQ(c.excluded.size(), 5u);
    ASSERT_EQ(c.modules.size(), modules.size());
    EXPECT_TRUE(c.modules[3].match.matched());
    EXPECT_EQ(c.unmatched.size(), 0u);
    // Excluding nothing here: "*mlp.gate_proj", "*mlp.down_proj" (the shared experts end otherwise), "*mm_projector*", "*vision_tower*".
    EXPECT_EQ(c.unusedExcludes, (std::vector<int>{3, 5, 7, 8}));
}

TEST(RecipeCheck, UnmatchedUnusedOverlapsFusionAndRegexDots)
{
    ojson j = minimal();
    j["rules"] = ojson::array({
        rule({"model.layers.0.self_attn.q_proj"}, "exact", ojson::array({{{"method", "int"}, {"bits", 8}}})),
        rule({R"(model.layers.\d+.self_attn.[qkv]_proj)"}, "re", ojson::array({{{"method", "int"}}})),
        rule({"*.nothing"}, "fnmatch", ojson::array({{{"method", "fp8"}}})),
        rule({"*experts.*"}, "fnmatch", ojson::array({{{"method", "int"}}})),
    });
    j["rules"][3]["overrides"] = {{"model.layers.0.mlp.experts.1.down_proj", {{"bits", 3}}}};
    const Recipe r = Recipe::fromJson(j);
    const std::vector<std::string> modules = {
        "model.layers.0.self_attn.q_proj",        "model.layers.0.self_attn.k_proj",
        "model.layers.0.self_attn.v_proj",        "modelXlayers.1.self_attn.q_proj",
        "model.layers.0.mlp.experts.0.down_proj", "model.layers.0.mlp.experts.1.down_proj",
        "model.layers.0.mlp.experts.0.up_proj",   "model.norm"};
    const RecipeCheck c = checkRecipe(r, modules);
    EXPECT_EQ(c.unmatched, std::vector<std::string>{"model.norm"});
    ASSERT_EQ(c.unusedRules.size(), 1u);
    EXPECT_EQ(c.unusedRules[0].rule, 2);
    EXPECT_EQ(c.unusedRules[0].matches, 0);
    ASSERT_EQ(c.overlaps.size(), 1u);
    EXPECT_EQ(c.overlaps[0].module, "model.layers.0.self_attn.q_proj");
    EXPECT_EQ(c.overlaps[0].winner, 0);
    EXPECT_EQ(c.overlaps[0].others, std::vector<int>{1});
    // q (8 bits) vs k, v (4 bits); experts' down_proj 4 vs 3 bits; the up_proj group has one member.
    ASSERT_EQ(c.fusion.size(), 2u);
    EXPECT_EQ(c.fusion[0].group, "model.layers.0.self_attn.{q,k,v}_proj");
    EXPECT_EQ(c.fusion[0].members.size(), 3u);
    EXPECT_EQ(c.fusion[1].group, "model.layers.0.mlp.experts.*.down_proj");
    // The bare dots of rule 1 let "modelXlayers…" through.
    ASSERT_EQ(c.regex.size(), 1u);
    EXPECT_EQ(c.regex[0].where, "rules[1].patterns[0]");
    EXPECT_EQ(c.regex[0].example, "modelXlayers.1.self_attn.q_proj");
    const ojson out = c.toJson(r);
    EXPECT_EQ(out["modules"].size(), modules.size());
    EXPECT_EQ(out["fusion_warnings"].size(), 2u);
}

TEST(RecipeCheck, RegexDotWarningWithoutModulesBuildsAnExample)
{
    ojson j = minimal();
    j["rules"][0]["dialect"] = "re";
    j["rules"][0]["patterns"] = ojson::array({"lm_head", R"(model\.norm)", "model.embed_tokens", ".*_proj"});
    const RecipeCheck c = checkRecipe(Recipe::fromJson(j), {});
    ASSERT_EQ(c.regex.size(), 1u); // ".*" is meant; the escaped and dot-free ones are fine
    EXPECT_EQ(c.regex[0].where, "rules[0].patterns[2]");
    EXPECT_EQ(c.regex[0].example, "modelXembed_tokens");
    EXPECT_EQ(literalDots("a.b.*c"), R"(a\.b.*c)");
    EXPECT_EQ(literalDots(R"([.]\.x.)"), R"([.]\.x\.)");
}

TEST(RecipeCheck, FusionGroups)
{
    EXPECT_EQ(fusionGroupOf("m.l.3.self_attn.k_proj"), "m.l.3.self_attn.{q,k,v}_proj");
    EXPECT_EQ(fusionGroupOf("m.l.3.mlp.up_proj"), "m.l.3.mlp.{gate,up}_proj");
    EXPECT_EQ(fusionGroupOf("m.l.3.mlp.experts.17.gate_proj"), "m.l.3.mlp.experts.*.gate_proj");
    EXPECT_EQ(fusionGroupOf("m.l.3.mlp.down_proj"), "");
    EXPECT_EQ(fusionGroupOf("m.l.3.self_attn.o_proj"), "");
}

TEST(Recipe, WithSpecsReplacesEveryRulesSpecsAndDropsOrphanOverrides)
{
    ojson j = minimal();
    j["rules"][0]["overrides"] = {{"a", {{"bits", 3}}}};
    const Recipe r = Recipe::fromJson(j);
    const Recipe fp8 = r.withSpecs({QuantSpec{Fp8Spec{}}});
    EXPECT_EQ(fp8.rules[0].specs[0].at("method"), "fp8");
    EXPECT_TRUE(fp8.rules[0].overrides.empty());
    EXPECT_NE(fp8.hash(), r.hash());
    const Recipe two = r.withSpecs({QuantSpec{IntSpec{}}, QuantSpec{Fp8Spec{}}});
    const RecipeMatch m = matchModule(two, "a");
    ASSERT_EQ(m.specs.size(), 2u);
    EXPECT_EQ(std::get<IntSpec>(m.specs[0]).bits, 3);
}
