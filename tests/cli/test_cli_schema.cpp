// SPDX-License-Identifier: MIT
// The CLI is generated from one schema: every SpecField of every method has an option that
// parses to the same QuantSpec as its JSON; every command answers --help with its options;
// `quantize --help` names every field; --json is declared once; docs/cli.md has every command;
// the bash completion generated from the tree completes options and enum values.
#include <fstream>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include "cli.h"
#include "cli_run.h"
#include "quant/quant_spec.h"
#include "quant/quantizer.h"

namespace fs = std::filesystem;
using namespace quantscope;
using cli_test::Result;
using cli_test::run;
using cli_test::runWith;
using quantscope::cli::Commands;
using quantscope::cli::QuantizerOptions;

namespace {

/// quantize's quantizer options on a fresh App (the code quantize and spectrum use), parsed.
QuantSpec parseFlags(const std::vector<std::string> &args)
{
    CLI::App app;
    QuantizerOptions q;
    cli::addQuantizerOptions(&app, q);
    std::vector<std::string> rev(args.rbegin(), args.rend());
    app.parse(rev);
    return q.build();
}

/// The outcome of a spec: its canonical JSON, or the error it raised.
std::string outcome(const std::function<QuantSpec()> &make)
{
    try {
        return toJson(make()).dump();
    } catch (const std::exception &e) {
        return std::string("error: ") + e.what();
    }
}

/// Candidate values of a field as option text and as JSON: every enum choice, both bools, and
/// for numbers the range ends and a few values inside.
std::vector<std::pair<std::string, nlohmann::json>> candidates(const SpecField &f)
{
    std::vector<std::pair<std::string, nlohmann::json>> out;
    if (f.kind == "enum")
        for (const auto &c : f.choices)
            out.push_back({c, c});
    if (f.kind == "bool")
        out = {{"true", true}, {"false", false}};
    if (f.kind == "int")
        for (long long v : {static_cast<long long>(f.minValue), static_cast<long long>(f.minValue) + 1, 3LL, 8LL, 16LL,
                            64LL, static_cast<long long>(f.maxValue)})
            if (v >= f.minValue && v <= f.maxValue)
                out.push_back({std::to_string(v), v});
    if (f.kind == "number")
        for (double v : {f.minReal, 0.25, 0.5, f.maxReal})
            if (v >= f.minReal && v <= f.maxReal) {
                std::ostringstream s;
                s.precision(17);
                s << v;
                out.push_back({s.str(), v});
            }
    if (f.kind == "spec")
        for (const auto &m : f.choices)
            out.push_back({"method=" + m, nlohmann::json{{"method", m}}});
    return out;
}

std::string readFile(const fs::path &p)
{
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

TEST(CliSchema, EveryFieldHasAnOptionThatParsesToTheSpecOfItsJson)
{
    int compared = 0, nonDefaultOk = 0, fields = 0;
    for (const MethodInfo &m : quantizerMethods()) {
        for (const SpecField &f : m.fields) {
            ++fields;
            // The option that sets this field for this method.
            const SpecFlag *flag = nullptr;
            for (const auto &x : specFlags())
                if (const SpecFlagTarget *t = x.targetFor(m.method); t && t->nested.empty() && t->field.key == f.key)
                    flag = &x;
            ASSERT_NE(flag, nullptr) << m.method << "." << f.key << " has no option";
            bool someNonDefault = false;
            for (const auto &[text, value] : candidates(f)) {
                std::vector<std::string> args{"--method", m.method};
                if (f.kind == "bool")
                    args.push_back(value.get<bool>() ? flag->name : flag->negName);
                else
                    args.insert(args.end(), {flag->name, text});
                nlohmann::json j{{"method", m.method}, {f.key, value}};
                const std::string viaJson = outcome([&] { return parseQuantSpec(j); });
                const std::string viaFlags = outcome([&] { return parseFlags(args); });
                // The only difference a flag may make is what giving it implies (--group: group
                // granularity), which the JSON must state to compare.
                if (!f.impliesKey.empty())
                    j[f.impliesKey] = f.impliesValue;
                const std::string viaJsonImplied = outcome([&] { return parseQuantSpec(j); });
                EXPECT_EQ(viaFlags, f.impliesKey.empty() ? viaJson : viaJsonImplied)
                    << m.method << "." << f.key << " = " << text;
                ++compared;
                const bool ok = viaFlags.rfind("error", 0) != 0;
                if (ok && value != m.defaults.value(f.key, nlohmann::json()))
                    someNonDefault = true;
            }
            EXPECT_TRUE(someNonDefault) << m.method << "." << f.key << ": no value other than the default parsed";
            nonDefaultOk += someNonDefault;
        }
    }
    EXPECT_GT(compared, 100);
    EXPECT_EQ(nonDefaultOk, fields);
}

TEST(CliSchema, FlattenedStageOptionsWriteIntoTheNestedSpec)
{
    // progressive: the INT options apply to stage 2, as the JSON {"stage2": {...}} does.
    const std::string flags = toJson(parseFlags({"--method", "progressive", "--bits", "3", "--group", "32",
                                                 "--asymmetric", "--stage1", "format=e5m2"}))
                                  .dump();
    const std::string json = toJson(parseQuantSpec(nlohmann::json::parse(
                                        R"({"method":"progressive","stage1":{"method":"fp8","format":"e5m2"},
                                            "stage2":{"method":"int","bits":3,"group":32,"granularity":"group",
                                                      "symmetric":false}})")))
                                 .dump();
    EXPECT_EQ(flags, json);
    // MiLo's preset shorthand: --preset passes=N is the code preset with N passes.
    EXPECT_EQ(toJson(parseFlags({"--method", "milo", "--preset", "passes=4"})).dump(),
              toJson(parseQuantSpec({{"method", "milo"}, {"preset", "code"}, {"passes", 4}})).dump());
}

TEST(CliSchema, OptionErrorsNameTheOptionAndTheAllowedValues)
{
    auto error = [](const std::vector<std::string> &args) {
        try {
            parseFlags(args);
        } catch (const std::exception &e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    const std::string badEnum = error({"--method", "int", "--granularity", "row"});
    EXPECT_NE(badEnum.find("--granularity"), std::string::npos) << badEnum;
    EXPECT_NE(badEnum.find("tensor|channel|group|block"), std::string::npos) << badEnum;
    const std::string badInt = error({"--method", "int", "--bits", "four"});
    EXPECT_NE(badInt.find("--bits"), std::string::npos) << badInt;
    EXPECT_NE(badInt.find("four"), std::string::npos) << badInt;
    const std::string notHere = error({"--method", "fp8", "--bits", "4"});
    EXPECT_NE(notHere.find("--bits does not apply to --method fp8"), std::string::npos) << notHere;
    const std::string both = error({"--method", "int", "--symmetric", "--asymmetric"});
    EXPECT_NE(both.find("exclude each other"), std::string::npos) << both;
    const std::string noMethod = error({"--bits", "4"});
    EXPECT_NE(noMethod.find("--method"), std::string::npos) << noMethod;
}

TEST(CliSchema, EveryCommandAnswersHelpWithItsOptions)
{
    Commands c;
    cli::addAllCommands(c);
    std::vector<std::pair<std::vector<std::string>, const CLI::App *>> commands;
    for (const CLI::App *s : c.root().get_subcommands({})) {
        commands.push_back({{s->get_name()}, s});
        for (const CLI::App *n : s->get_subcommands({}))
            commands.push_back({{s->get_name(), n->get_name()}, n});
    }
    ASSERT_GE(commands.size(), 16u);
    const Result top = run({"--help"});
    ASSERT_EQ(top.rc, 0) << top.err;
    for (const auto &[path, app] : commands) {
        EXPECT_NE(top.out.find(path.front()), std::string::npos) << path.front() << " missing from --help";
        std::vector<std::string> args = path;
        args.push_back("--help");
        const Result r = run(args);
        EXPECT_EQ(r.rc, 0) << path.back() << ": " << r.err;
        for (const CLI::Option *o : app->get_options())
            for (const auto &n : o->get_lnames())
                EXPECT_NE(r.out.find("--" + n), std::string::npos) << path.back() << " --help lacks --" << n;
        if (app->get_subcommands({}).empty()) { // commands (not groups) show an example
            EXPECT_NE(r.out.find("quantscope-cli " + path.front()), std::string::npos) << path.back() << ": no example";
        }
    }
}

TEST(CliSchema, QuantizeHelpNamesEveryFieldOfEveryMethod)
{
    const Result r = run({"quantize", "--help"});
    ASSERT_EQ(r.rc, 0) << r.err;
    for (const MethodInfo &m : quantizerMethods()) {
        EXPECT_NE(r.out.find(m.method), std::string::npos) << m.method;
        for (const SpecField &f : m.fields) {
            const SpecFlag *flag = nullptr;
            for (const auto &x : specFlags())
                if (const SpecFlagTarget *t = x.targetFor(m.method); t && t->field.key == f.key)
                    flag = &x;
            ASSERT_NE(flag, nullptr) << m.method << "." << f.key;
            EXPECT_NE(r.out.find(flag->name), std::string::npos) << m.method << "." << f.key;
            // The field's help sentence is there (CLI11 may wrap it: compare its first words).
            const std::string head = f.help.substr(0, std::min<std::size_t>(f.help.size(), 20));
            EXPECT_NE(r.out.find(head), std::string::npos) << m.method << "." << f.key << ": " << head;
        }
    }
}

TEST(CliSchema, UsageErrorsExitTwoAndNameTheOption)
{
    const Result unknown = run({"export", "--frobnicate"});
    EXPECT_EQ(unknown.rc, 2);
    EXPECT_NE(unknown.err.find("--frobnicate"), std::string::npos) << unknown.err;
    const Result missing = run({"quantize"});
    EXPECT_EQ(missing.rc, 2);
    EXPECT_NE(missing.err.find("PATH"), std::string::npos) << missing.err;
    // A value the field does not have is refused like the same spec in a --spec file (exit 1),
    // before anything is read; a malformed value is a usage error (exit 2).
    const Result badEnum = run({"quantize", "x.safetensors", "--tensor", "w", "--method", "int", "--rounding", "up"});
    EXPECT_EQ(badEnum.rc, 1);
    EXPECT_NE(badEnum.err.find("--rounding"), std::string::npos) << badEnum.err;
    const Result badInt = run({"quantize", "x.safetensors", "--tensor", "w", "--method", "int", "--bits", "four"});
    EXPECT_EQ(badInt.rc, 2);
    EXPECT_NE(badInt.err.find("--bits"), std::string::npos) << badInt.err;
    EXPECT_NE(badEnum.err.find("half_even"), std::string::npos) << badEnum.err;
    EXPECT_EQ(run({"recipe"}).rc, 2);
    EXPECT_EQ(run({"--version"}).rc, 0);
}

TEST(CliSchema, JsonIsDeclaredOnceAndNoHandWrittenParserRemains)
{
    const fs::path cliDir = fs::path(QUANTSCOPE_SOURCE_DIR) / "app" / "cli";
    int declarations = 0;
    for (const auto &e : fs::directory_iterator(cliDir)) {
        if (e.path().extension() != ".cpp")
            continue;
        const std::string text = readFile(e.path());
        for (std::size_t at = text.find("\"--json\""); at != std::string::npos; at = text.find("\"--json\"", at + 1))
            ++declarations;
        EXPECT_EQ(text.find("args.value("), std::string::npos) << e.path();
        EXPECT_EQ(text.find("args.flag("), std::string::npos) << e.path();
    }
    EXPECT_EQ(declarations, 1);
}

TEST(CliSchema, DocsCliNamesEveryCommand)
{
    const std::string doc = readFile(fs::path(QUANTSCOPE_SOURCE_DIR) / "docs/cli.md");
    ASSERT_FALSE(doc.empty());
    Commands c;
    cli::addAllCommands(c);
    for (const CLI::App *s : c.root().get_subcommands({})) {
        if (s->get_subcommands({}).empty()) {
            EXPECT_NE(doc.find("## `" + s->get_name() + "`"), std::string::npos) << s->get_name();
        }
        for (const CLI::App *n : s->get_subcommands({}))
            EXPECT_NE(doc.find("## `" + s->get_name() + " " + n->get_name() + "`"), std::string::npos)
                << s->get_name() << " " << n->get_name();
    }
}

TEST(CliSchema, BashCompletionCompletesCommandsOptionsAndValues)
{
    const fs::path dir = fs::temp_directory_path() / ("qs_completion_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const Result gen = run({"completion", "bash"});
    ASSERT_EQ(gen.rc, 0) << gen.err;
    {
        std::ofstream(dir / "qs.bash") << gen.out;
    }
    // Completes in a real bash: COMP_WORDS as the shell would set them.
    auto complete = [&](const std::string &words, int cword) {
        const fs::path script = dir / "t.sh";
        std::ofstream(script) << "source " << (dir / "qs.bash").string() << "\nCOMP_WORDS=(" << words
                              << ")\nCOMP_CWORD=" << cword << "\n_quantscope_cli\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n";
        const Result r = runWith("bash " + script.string() + " #", {});
        return r.out;
    };
    EXPECT_NE(complete("quantscope-cli qua", 1).find("quantize"), std::string::npos);
    EXPECT_NE(complete("quantscope-cli quantize --scale-r", 2).find("--scale-rule"), std::string::npos);
    const std::string values = complete("quantscope-cli quantize --granularity ''", 3);
    for (const char *g : {"tensor", "channel", "group", "block"})
        EXPECT_NE(values.find(g), std::string::npos) << values;
    EXPECT_NE(complete("quantscope-cli recipe ch", 2).find("check"), std::string::npos);
    EXPECT_NE(complete("quantscope-cli recipe check --chec", 3).find("--checkpoint"), std::string::npos);
    fs::remove_all(dir);
}
