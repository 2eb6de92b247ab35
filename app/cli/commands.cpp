// SPDX-License-Identifier: MIT
// The command tree of quantscope-cli on CLI11: the common options (declared once here), the
// quantizer options generated from the spec schema, parsing with the documented exit codes,
// running the selected command, and the bash completion generated from the same tree.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "io/safetensors.h"
#include "quant/quant_spec.h"
#include "util/error.h"
#include "util/parallel.h"

namespace quantscope::cli {

std::int64_t toInt(const std::string &opt, const std::string &v)
{
    try {
        std::size_t used = 0;
        const long long x = std::stoll(v, &used);
        if (used == v.size())
            return x;
    } catch (const std::exception &) {
    }
    throw UsageError(opt + " needs an integer, got '" + v + "'");
}

double toReal(const std::string &opt, const std::string &v)
{
    try {
        std::size_t used = 0;
        const double x = std::stod(v, &used);
        if (used == v.size())
            return x;
    } catch (const std::exception &) {
    }
    throw UsageError(opt + " needs a number, got '" + v + "'");
}

DeviceChoice CommonOptions::deviceChoice() const
{
    try {
        return parseDeviceChoice(device);
    } catch (const Error &) {
        throw UsageError("--device must be auto, cpu or gpu");
    }
}

Commands::Commands() : m_root(std::make_unique<CLI::App>())
{
    CLI::App &app = *m_root;
    app.name("quantscope-cli");
    app.description("Quantscope: quantizers, error metrics, spectra, scans and exports of LLM checkpoints, "
                    "as text or JSON.");
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.require_subcommand(0, 1);
    app.get_formatter()->column_width(36);
    app.add_flag("--version", m_versionFlag, "print the version, the GPU backends built and the compute device");
    app.footer("quantize, spectrum, sweep-c, sweep, gemm-bench, scan and compare show a progress line with the\n"
               "time left on stderr when it is a terminal (--quiet silences it); --device auto|cpu|gpu picks\n"
               "where they compute. `quantscope-cli COMMAND --help` lists a command's options.\n"
               "Exit codes: 0 success, 1 refused input or failed work, 2 usage (doctor: 3 warnings, 4 errors).\n"
               "Documentation: docs/cli.md");
}

Commands::~Commands() = default;

CLI::App *Commands::add(const std::string &name, const std::string &description, std::function<int()> run,
                        CLI::App *parent)
{
    CLI::App *cmd = (parent ? parent : m_root.get())->add_subcommand(name, description);
    if (run)
        m_runs[cmd] = std::move(run);
    return cmd;
}

void Commands::addCommon(CLI::App *cmd, unsigned which)
{
    const char *group = "Common";
    if (which & kJson)
        cmd->add_flag("--json", m_common.json, "print the result as JSON on stdout")->group(group);
    if (which & kQuiet)
        cmd->add_flag("--quiet", m_common.quiet, "no progress line on stderr")->group(group);
    if (which & kDevice)
        cmd->add_option("--device", m_common.device, "where to compute: auto (the GPU when present), cpu or gpu")
            ->type_name("auto|cpu|gpu")
            ->capture_default_str()
            ->group(group);
    if (which & kThreads)
        cmd->add_option("--threads", m_common.threads, "CPU threads of the engine (0: every core)")
            ->check(CLI::NonNegativeNumber)
            ->type_name("N")
            ->capture_default_str()
            ->group(group);
    if (which & kLenient)
        cmd->add_flag("--lenient", m_common.lenient,
                      "read checkpoints leniently (unknown dtypes, gaps between tensors are reported, not refused)")
            ->group(group);
}

std::optional<int> Commands::parse(const std::vector<std::string> &args)
{
    std::vector<std::string> reversed(args.rbegin(), args.rend()); // CLI11 takes them back to front
    try {
        m_root->parse(reversed);
    } catch (const CLI::CallForHelp &) {
        std::cout << m_root->help();
        return 0;
    } catch (const CLI::CallForAllHelp &) {
        std::cout << m_root->help("", CLI::AppFormatMode::All);
        return 0;
    } catch (const SpecFlagError &e) { // a schema option's value, typed while parsing
        std::fprintf(stderr, "quantscope-cli %s: %s%s\n", selectedName().c_str(), e.usage ? "" : "error: ", e.what());
        return e.usage ? 2 : 1;
    } catch (const CLI::ParseError &e) {
        std::string where = selectedName();
        std::fprintf(stderr, "quantscope-cli%s%s: %s\nRun 'quantscope-cli%s%s --help' for the options.\n",
                     where.empty() ? "" : " ", where.c_str(), e.what(), where.empty() ? "" : " ", where.c_str());
        return 2;
    }
    if (m_versionFlag) {
        m_selected = m_version;
        return std::nullopt;
    }
    const CLI::App *at = selectedPath().back();
    if (at == m_root.get()) {
        std::fputs(m_root->help().c_str(), stderr);
        return 2;
    }
    if (!m_runs.count(at)) { // a group of commands ("recipe") without its subcommand
        std::fputs(at->help().c_str(), stderr);
        return 2;
    }
    m_selected = at;
    if (m_common.threads > 0)
        setDefaultThreads(m_common.threads);
    return std::nullopt;
}

std::vector<const CLI::App *> Commands::selectedPath() const
{
    std::vector<const CLI::App *> path{m_root.get()};
    for (auto subs = m_root->get_subcommands(); !subs.empty(); subs = subs.front()->get_subcommands())
        path.push_back(subs.front());
    return path;
}

std::string Commands::selectedName() const
{
    std::string name;
    const auto path = selectedPath();
    for (std::size_t i = 1; i < path.size(); ++i)
        name += (name.empty() ? "" : " ") + path[i]->get_name();
    return name;
}

int Commands::run()
{
    if (!m_selected)
        return 0;
    const std::string cmd = selectedName();
    try {
        return m_runs.at(m_selected)();
    } catch (const UsageError &e) {
        std::fprintf(stderr, "quantscope-cli %s: %s\n", cmd.c_str(), e.what());
        return 2;
    } catch (const SpecFlagError &e) { // usage: malformed; else refused as in a --spec file
        std::fprintf(stderr, "quantscope-cli %s: %s%s\n", cmd.c_str(), e.usage ? "" : "error: ", e.what());
        return e.usage ? 2 : 1;
    } catch (const HeaderTooLargeError &e) {
        // The action the user can take, in the CLI's terms.
        std::fprintf(stderr, "quantscope-cli %s: error: %s%s\n", cmd.c_str(), e.what(),
                     cmd == "info" ? "; if the file is genuine, raise the limit with --max-header-bytes N" : "");
        return 1;
    } catch (const Error &e) {
        std::fprintf(stderr, "quantscope-cli %s: error: %s\n", cmd.c_str(), e.what());
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "quantscope-cli %s: error: %s\n", cmd.c_str(), e.what());
        return 1;
    }
}

// ---- the quantizer options of the spec schema ----------------------------------------------------

void addQuantizerOptions(CLI::App *cmd, QuantizerOptions &o)
{
    const char *group = "Quantizer (the spec schema; an option applies to the methods it names)";
    cmd->add_option("--method", o.method, "the quantizer")->type_name(methodChoices())->group(group);
    cmd->add_option("--spec", o.specFile, "a spec JSON file (its \"method\" and fields; the options below go on top)")
        ->type_name("FILE.json")
        ->group(group);
    for (const SpecFlag &f : specFlags()) {
        const std::string name = f.name; // an alias is an option of its own (specFlags())
        if (f.kind == "bool" && name == "--imatrix") {
            // gguf's `imatrix`, with an optional value: llama.cpp's imatrix file to take the
            // weights from (without one they come from the paired --capture).
            cmd->add_option_function<std::string>(
                   name,
                   [&o, name](const std::string &v) {
                       o.given.push_back({name, "", false});
                       if (v != "true") // CLI11's value of an option given without one
                           o.imatrixFile = v;
                   },
                   f.help() + "; with FILE (llama.cpp's imatrix.dat or imatrix GGUF) the weights come from it")
                ->expected(0, 1)
                ->type_name("[FILE]")
                ->group(group);
            cmd->add_flag_callback(
                   f.negName,
                   [&o, name] {
                       o.given.push_back({name, "", true});
                   },
                   "the opposite of " + f.name)
                ->group(group);
            continue;
        }
        if (f.kind == "bool") {
            cmd->add_flag_callback(
                   name,
                   [&o, name] {
                       o.given.push_back({name, "", false});
                   },
                   f.help())
                ->group(group);
            cmd->add_flag_callback(
                   f.negName,
                   [&o, name] {
                       o.given.push_back({name, "", true});
                   },
                   "the opposite of " + f.name)
                ->group(group);
            continue;
        }
        cmd->add_option_function<std::string>(
               name,
               [&o, name](const std::string &v) {
                   o.given.push_back({name, v, false});
               },
               f.help())
            ->type_name(f.valueName())
            ->group(group);
    }
}

namespace {

nlohmann::json loadSpecFile(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        throw IoError("cannot open the spec file", Location{path, {}, {}});
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
        throw FormatError(std::string("spec is not valid JSON: ") + e.what(), Location{path, {}, {}});
    }
}

} // namespace

nlohmann::json QuantizerOptions::baseSpec() const
{
    nlohmann::json spec = nlohmann::json::object();
    if (specFile)
        spec = loadSpecFile(*specFile);
    if (method)
        spec["method"] = *method;
    if (!spec.is_object() || !spec.contains("method"))
        throw UsageError("--method " + methodChoices() + " (or a --spec with \"method\") is required");
    return spec;
}

QuantSpec QuantizerOptions::build(nlohmann::json base) const
{
    return parseQuantSpec(applySpecFlags(std::move(base), given));
}

void addSchemaOptions(CLI::App *cmd, const std::string &method, const std::vector<std::string> &keys, SchemaValues &out)
{
    for (const std::string &key : keys) {
        const SpecFlag *flag = nullptr;
        for (const SpecFlag &f : specFlags())
            if (const SpecFlagTarget *t = f.targetFor(method); t && t->nested.empty() && t->field.key == key)
                flag = &f;
        if (!flag)
            throw std::logic_error("no field '" + key + "' in the " + method + " schema");
        const SpecField field = flag->targetFor(method)->field;
        const std::string name = flag->name;
        if (field.kind == "bool") {
            cmd->add_flag_callback(
                name, [&out, key] { out[key] = true; }, field.help);
            continue;
        }
        cmd->add_option_function<std::string>(
               name, [&out, key, field, name](const std::string &v) { out[key] = specFieldValue(field, v, name); },
               field.help)
            ->type_name(field.kind == "enum"  ? CLI::detail::join(field.choices, "|")
                        : field.kind == "int" ? "N"
                                              : "X");
    }
}

// ---- bash completion -------------------------------------------------------------------------

namespace {

std::string shQuote(const std::string &s)
{
    return "'" + s + "'";
}

void collect(const CLI::App *app, const std::string &path, std::ostringstream &cases, std::vector<std::string> &paths)
{
    std::string opts, values;
    for (const CLI::Option *o : app->get_options()) {
        for (const auto &n : o->get_lnames())
            opts += " --" + n;
        const std::string type = o->get_type_name();
        if (o->get_lnames().empty() || type.find('|') == std::string::npos)
            continue;
        std::string words = type;
        std::replace(words.begin(), words.end(), '|', ' ');
        for (const auto &n : o->get_lnames())
            values += "      --" + n + ") COMPREPLY=($(compgen -W " + shQuote(words) + " -- \"$cur\")); return ;;\n";
    }
    std::string subs;
    for (const CLI::App *s : app->get_subcommands({})) {
        subs += " " + s->get_name();
        const std::string child = path.empty() ? s->get_name() : path + " " + s->get_name();
        paths.push_back(child);
        collect(s, child, cases, paths);
    }
    cases << "    " << shQuote(path) << ")\n";
    if (!values.empty())
        cases << "      case \"$prev\" in\n" << values << "      esac\n";
    cases << "      opts=" << shQuote(opts.empty() ? "" : opts.substr(1))
          << "; subs=" << shQuote(subs.empty() ? "" : subs.substr(1)) << " ;;\n";
}

} // namespace

std::string Commands::bashCompletion() const
{
    std::ostringstream cases;
    std::vector<std::string> paths;
    collect(m_root.get(), "", cases, paths);
    std::string known;
    for (const auto &p : paths)
        known += (known.empty() ? "" : "|") + std::string("\"") + p + "\"";
    std::ostringstream s;
    s << "# bash completion for quantscope-cli, generated by `quantscope-cli completion bash` from its\n"
         "# command tree and spec schema. Install: quantscope-cli completion bash > \\\n"
         "#   ~/.local/share/bash-completion/completions/quantscope-cli\n"
         "_quantscope_cli() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
         "  local path=\"\" w i opts=\"\" subs=\"\"\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    w=\"${COMP_WORDS[i]}\"\n"
         "    case \"${path:+$path }$w\" in\n"
         "      "
      << (known.empty() ? "\"\"" : known)
      << ") path=\"${path:+$path }$w\" ;;\n"
         "    esac\n"
         "  done\n"
         "  case \"$path\" in\n"
      << cases.str()
      << "  esac\n"
         "  if [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
         "  else\n"
         "    COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\") $(compgen -f -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -F _quantscope_cli quantscope-cli\n";
    return s.str();
}

} // namespace quantscope::cli
