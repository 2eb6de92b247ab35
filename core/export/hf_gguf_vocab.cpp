// SPDX-License-Identifier: MIT
// The vocabulary of an HF → GGUF conversion (hf_gguf.h): what convert_hf_to_gguf.py's
// LlamaModel.set_vocab writes for a byte-level BPE tokenizer.json — TextModel.get_vocab_base's
// tokens and token types, and the `gguf` package's SpecialVocab (merges, special token ids, the
// add-bos/eos flags, the chat template, normalizer flags) — read from the JSON files directly,
// without a running tokenizer.
#include <algorithm>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <system_error>

#include "export/hf_gguf.h"
#include "util/error.h"

namespace quantscope {

namespace {

/// A JSON file of the checkpoint folder: null when absent, FormatError when it is not JSON.
nlohmann::json readJson(const std::filesystem::path &path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        return nullptr;
    std::ifstream is(path);
    nlohmann::json j = nlohmann::json::parse(is, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw FormatError("'" + path.string() + "': not a JSON object");
    return j;
}

/// A tokenizer_config.json token entry: "<s>" or {"content": "<s>", …}; "" otherwise.
std::string contentOf(const nlohmann::json &e)
{
    if (e.is_string())
        return e.get<std::string>();
    if (e.is_object() && e.contains("content") && e["content"].is_string())
        return e["content"].get<std::string>();
    return {};
}

/// TextModel.does_token_look_special.
bool looksSpecial(const std::string &t)
{
    const auto wrapped = [&](std::string_view a, std::string_view b) {
        return t.size() >= a.size() + b.size() && t.starts_with(a) && t.ends_with(b);
    };
    return t == "<pad>" || t == "<mask>" || t == "<2mass>" || t == "[@BOS@]" || wrapped("<|", "|>") ||
           wrapped("<\xEF\xBD\x9C", "\xEF\xBD\x9C>") || wrapped("<unused", ">");
}

void replaceAll(std::string &s, std::string_view from, std::string_view to)
{
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

/// Llama 3's split pattern as its tokenizer.json writes it.
constexpr std::string_view kLlama3Split =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

bool isByteLevel(const nlohmann::json &p, bool regex)
{
    return p.is_object() && p.value("type", "") == "ByteLevel" && p.value("use_regex", true) == regex &&
           p.value("add_prefix_space", false) == false;
}

/// The `gguf` package's SpecialVocab state.
struct Special {
    std::vector<std::pair<std::string, std::int64_t>> ids; ///< in the order first set
    std::vector<std::pair<std::string, bool>> add;
    void setId(const std::string &typ, std::int64_t id, std::int64_t vocab)
    {
        if (id < 0 || id >= vocab)
            return; // SpecialVocab with n_vocab unset takes any id ≥ 0; the tokens array would lack it
        for (const auto &[t, v] : ids)
            if (t == typ)
                return;
        ids.emplace_back(typ, id);
    }
    bool hasAdd(const std::string &typ) const
    {
        return std::any_of(add.begin(), add.end(), [&](const auto &a) { return a.first == typ; });
    }
    void setAdd(const std::string &typ, bool v, bool overwrite)
    {
        for (auto &[t, x] : add)
            if (t == typ) {
                if (overwrite)
                    x = v;
                return;
            }
        add.emplace_back(typ, v);
    }
};

} // namespace

std::string hfPreTokenizerName(const nlohmann::json &pre)
{
    if (isByteLevel(pre, true))
        return "gpt-2";
    if (pre.is_object() && pre.value("type", "") == "Sequence" && pre.contains("pretokenizers") &&
        pre["pretokenizers"].is_array() && pre["pretokenizers"].size() == 2) {
        const nlohmann::json &a = pre["pretokenizers"][0], &b = pre["pretokenizers"][1];
        if (a.is_object() && a.value("type", "") == "Digits" && a.value("individual_digits", false) == true &&
            isByteLevel(b, true))
            return "smollm";
        if (a.is_object() && a.value("type", "") == "Split" && a.contains("pattern") && a["pattern"].is_object() &&
            a["pattern"].value("Regex", "") == kLlama3Split && isByteLevel(b, false))
            return "llama-bpe";
    }
    return "default";
}

std::string addHfTokenizer(const std::filesystem::path &folder, const nlohmann::json &config, std::int64_t vocabSize,
                           GgufKvList &kv, std::vector<std::string> &notes)
{
    std::error_code ec;
    const std::filesystem::path dir = folder.empty() ? std::filesystem::path(".") : folder;
    const std::filesystem::path tjPath = dir / "tokenizer.json", tcPath = dir / "tokenizer_config.json";
    if (std::filesystem::is_regular_file(dir / "tokenizer.model", ec))
        throw UnsupportedError(
            "'" + (dir / "tokenizer.model").string() +
            "': a SentencePiece tokenizer, which convert_hf_to_gguf.py writes as tokenizer model "
            "'llama' with scores; Quantscope writes byte-level BPE tokenizers (tokenizer.json) only");
    const nlohmann::json tj = readJson(tjPath);
    if (tj.is_null()) {
        notes.push_back("no tokenizer.json beside the checkpoint: the GGUF has no tokenizer.* keys (llama.cpp needs "
                        "one to run it; convert_hf_to_gguf.py refuses such a folder)");
        return {};
    }
    nlohmann::json tc = readJson(tcPath);
    const nlohmann::json model = tj.value("model", nlohmann::json());
    const std::string type = model.is_object() ? model.value("type", "") : "";
    if (type != "BPE")
        throw UnsupportedError("'" + tjPath.string() + "': tokenizer model '" + type +
                               "' is not BPE; Quantscope writes byte-level BPE vocabularies (tokenizer.ggml.model "
                               "gpt2) only");
    // gguf's LlamaHfVocab takes a byte-fallback BPE with a Sequence decoder (SentencePiece-style).
    const bool llama3 = model.value("ignore_merges", false) && !model.value("byte_fallback", true);
    if (!llama3 && model.value("byte_fallback", false) && tj.contains("decoder") && tj["decoder"].is_object() &&
        tj["decoder"].value("type", "") == "Sequence")
        throw UnsupportedError("'" + tjPath.string() +
                               "': a byte-fallback BPE (SentencePiece-style), which convert "
                               "writes as tokenizer model 'llama' with scores; not written by Quantscope");
    if (!model.contains("vocab") || !model["vocab"].is_object())
        throw FormatError("'" + tjPath.string() + "': model.vocab is not an object");

    if (tc.is_object() && tc.contains("add_prefix_space") && tc["add_prefix_space"].is_boolean())
        kv.boolean("tokenizer.ggml.add_space_prefix", tc["add_prefix_space"].get<bool>());

    // TextModel.get_vocab_base: ids 0 … vocab_size−1, the added tokens over the model's.
    std::map<std::int64_t, std::string> byId;
    const auto checkId = [&](const nlohmann::json &id, const std::string &tok) {
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0)
            throw FormatError("'" + tjPath.string() + "': token '" + tok + "' has id " + id.dump());
        if (id.get<std::int64_t>() >= vocabSize)
            throw FormatError("'" + tjPath.string() + "': token '" + tok + "' has id " + id.dump() +
                              ", beyond config.json's vocab_size " + std::to_string(vocabSize));
        return id.get<std::int64_t>();
    };
    for (auto it = model["vocab"].begin(); it != model["vocab"].end(); ++it)
        byId[checkId(it.value(), it.key())] = it.key();
    const nlohmann::json added = tj.value("added_tokens", nlohmann::json::array());
    std::map<std::int64_t, const nlohmann::json *> addedById;
    std::map<std::string, bool> addedContent;
    for (const nlohmann::json &a : added) {
        if (!a.is_object() || !a.contains("content") || !a["content"].is_string())
            throw FormatError("'" + tjPath.string() + "': an added_tokens entry without content");
        const std::string c = a["content"].get<std::string>();
        const std::int64_t id = checkId(a.value("id", nlohmann::json()), c);
        byId[id] = c;
        addedById[id] = &a;
        addedContent[c] = true;
    }
    std::vector<std::string> tokens;
    std::vector<std::int32_t> types;
    int userDefined = 0, control = 0, unused = 0;
    for (std::int64_t i = 0; i < vocabSize; ++i) {
        const auto it = byId.find(i);
        if (it == byId.end()) {
            tokens.push_back("[PAD" + std::to_string(i) + "]");
            types.push_back(5); // UNUSED
            ++unused;
            continue;
        }
        std::string tok = it->second;
        if (addedContent.count(tok)) {
            const auto a = addedById.find(i);
            const bool special = a != addedById.end() && a->second->value("special", false);
            if (special || looksSpecial(tok)) {
                types.push_back(3); // CONTROL
                ++control;
            } else {
                replaceAll(tok, "\xE2\x96\x81", " "); // pre-normalized user-defined spaces
                types.push_back(4);                   // USER_DEFINED
                ++userDefined;
            }
        } else {
            types.push_back(1); // NORMAL
        }
        tokens.push_back(std::move(tok));
    }
    const std::string pre = hfPreTokenizerName(tj.value("pre_tokenizer", nlohmann::json()));
    if (pre == "default")
        notes.push_back("the pre-tokenizer of '" + tjPath.string() +
                        "' is none Quantscope's table knows (docs/formats.md \"GGUF from a Hugging Face "
                        "checkpoint\"): tokenizer.ggml.pre is 'default'; convert_hf_to_gguf.py names it from the "
                        "token ids of its running tokenizer");
    kv.str("tokenizer.ggml.model", "gpt2");
    kv.str("tokenizer.ggml.pre", pre);
    kv.strArray("tokenizer.ggml.tokens", tokens);
    kv.i32Array("tokenizer.ggml.token_type", types);

    // SpecialVocab(load_merges=True): merges, then the tokenizer's special tokens, then config.json's.
    std::vector<std::string> merges;
    const nlohmann::json ms = model.value("merges", nlohmann::json::array());
    for (const nlohmann::json &mg : ms) {
        if (mg.is_string()) {
            merges.push_back(mg.get<std::string>());
        } else if (mg.is_array() && mg.size() == 2 && mg[0].is_string() && mg[1].is_string()) {
            std::string a = mg[0].get<std::string>(), b = mg[1].get<std::string>();
            replaceAll(a, " ", "\xC4\xA0"); // a space inside a part: chr(ord(' ') + 256)
            replaceAll(b, " ", "\xC4\xA0");
            merges.push_back(a + " " + b);
        } else {
            throw FormatError("'" + tjPath.string() + "': a merges entry that is neither \"a b\" nor [\"a\", \"b\"]");
        }
    }
    if (!merges.empty())
        kv.strArray("tokenizer.ggml.merges", merges);
    else
        notes.push_back("'" + tjPath.string() + "' has no merges: the vocabulary may not tokenize");

    Special sp;
    const std::vector<std::string> typesOrder = {"bos", "eos", "unk", "sep", "pad", "cls", "mask"};
    std::string bos = tc.is_object() ? contentOf(tc.value("bos_token", nlohmann::json())) : "";
    std::string eos = tc.is_object() ? contentOf(tc.value("eos_token", nlohmann::json())) : "";
    const std::string cls = tc.is_object() ? contentOf(tc.value("cls_token", nlohmann::json())) : "";
    const std::string sep = tc.is_object() ? contentOf(tc.value("sep_token", nlohmann::json())) : "";
    if (bos.empty() && !cls.empty() && tc.is_object())
        tc["bos_token"] = bos = cls;
    if (eos.empty() && !sep.empty() && tc.is_object())
        tc["eos_token"] = eos = sep;
    if (tj.contains("post_processor") && tj["post_processor"].is_object()) {
        const nlohmann::json &pp = tj["post_processor"];
        const nlohmann::json procs = pp.contains("processors") ? pp["processors"] : nlohmann::json::array({pp});
        for (const nlohmann::json &p : procs) {
            const std::string pt = p.is_object() ? p.value("type", "") : "";
            if (pt == "ByteLevel") {
                sp.setAdd("bos", false, false);
                sp.setAdd("eos", false, false);
            } else if (pt == "RobertaProcessing") {
                sp.setAdd("bos", true, true);
                sp.setAdd("eos", true, true);
                sp.setAdd("sep", true, true);
            } else if (pt == "TemplateProcessing") {
                const nlohmann::json single = p.value("single", nlohmann::json::array());
                const auto specialAt = [&](std::size_t i) -> std::string {
                    const nlohmann::json &e = single[i];
                    return e.is_object() && e.contains("SpecialToken") && e["SpecialToken"].is_object()
                               ? e["SpecialToken"].value("id", "")
                               : "";
                };
                if (single.is_array() && single.size() > 1) {
                    const std::string first = specialAt(0), last = specialAt(single.size() - 1);
                    if (!first.empty()) {
                        if (!tc.is_object())
                            bos = first;
                        else if (first != bos && first != cls && bos.empty())
                            tc["bos_token"] = bos = first;
                        sp.setAdd("bos", first == bos || first == cls, true);
                    }
                    if (!last.empty()) {
                        if (!tc.is_object())
                            eos = last;
                        else if (last != eos)
                            throw UnsupportedError("'" + tjPath.string() + "': the post-processor ends with '" + last +
                                                   "', not the eos token '" + eos +
                                                   "' (convert then writes eot/eom tokens; not written by Quantscope)");
                        sp.setAdd("eos", last == eos, true);
                    }
                }
                if (p.contains("pair") && p["pair"].is_array() && p["pair"].size() > 2)
                    notes.push_back("the post-processor's pair template is not read: no tokenizer.ggml.add_sep_token");
            }
        }
    }
    const auto idOfContent = [&](const std::string &c) -> std::int64_t {
        for (const nlohmann::json &a : added)
            if (a.value("content", "") == c)
                return a.value("id", nlohmann::json(-1)).is_number_integer() ? a["id"].get<std::int64_t>() : -1;
        return -1;
    };
    std::string chatTemplate;
    if (tc.is_object()) {
        nlohmann::json ct = tc.value("chat_template", nlohmann::json());
        if (ct.is_null()) {
            if (std::filesystem::is_regular_file(dir / "chat_template.jinja", ec)) {
                std::ifstream is(dir / "chat_template.jinja", std::ios::binary);
                ct = std::string(std::istreambuf_iterator<char>(is), {});
            } else if (const nlohmann::json cj = readJson(dir / "chat_template.json"); cj.is_object()) {
                ct = cj.value("chat_template", nlohmann::json());
            }
        }
        if (ct.is_string())
            chatTemplate = ct.get<std::string>();
        else if (!ct.is_null())
            notes.push_back("the chat template is a list of named templates: not written");
        for (const std::string &typ : typesOrder) {
            const nlohmann::json addEntry = tc.value("add_" + typ + "_token", nlohmann::json());
            if (addEntry.is_boolean() && !sp.hasAdd(typ))
                sp.setAdd(typ, addEntry.get<bool>(), false);
            const std::string c = contentOf(tc.value(typ + "_token", nlohmann::json()));
            if (!c.empty())
                sp.setId(typ, idOfContent(c), std::numeric_limits<std::int64_t>::max());
        }
    }
    for (const std::string &typ : typesOrder) {
        nlohmann::json id = config.value(typ + "_token_id", nlohmann::json());
        if (id.is_null() && config.contains("text_config") && config["text_config"].is_object())
            id = config["text_config"].value(typ + "_token_id", nlohmann::json());
        if (id.is_number_integer())
            sp.setId(typ, id.get<std::int64_t>(), std::numeric_limits<std::int64_t>::max());
    }
    static const std::map<std::string, std::string> kIdKey = {
        {"bos", "tokenizer.ggml.bos_token_id"},     {"eos", "tokenizer.ggml.eos_token_id"},
        {"unk", "tokenizer.ggml.unknown_token_id"}, {"sep", "tokenizer.ggml.seperator_token_id"},
        {"pad", "tokenizer.ggml.padding_token_id"}, {"mask", "tokenizer.ggml.mask_token_id"}};
    for (const auto &[typ, id] : sp.ids)
        if (const auto k = kIdKey.find(typ); k != kIdKey.end()) // no cls handler in GGUFWriter
            kv.u32(k->second, static_cast<std::uint32_t>(id));
    for (const auto &[typ, v] : sp.add)
        if (typ == "bos" || typ == "eos" || typ == "sep")
            kv.boolean("tokenizer.ggml.add_" + typ + "_token", v);
    if (!chatTemplate.empty() || (tc.is_object() && tc.contains("chat_template") && tc["chat_template"].is_string()))
        kv.str("tokenizer.chat_template", chatTemplate);
    if (tj.contains("normalizer") && tj["normalizer"].is_object()) {
        std::optional<bool> lower, strip;
        const std::function<void(const nlohmann::json &)> parse = [&](const nlohmann::json &n) {
            const std::string t = n.is_object() ? n.value("type", "") : "";
            if (t == "Lowercase")
                lower = true;
            else if (t == "StripAccents")
                strip = true;
            else if (t == "BertNormalizer") {
                if (n.contains("lowercase") && n["lowercase"].is_boolean())
                    lower = n["lowercase"].get<bool>();
                if (n.contains("strip_accents") && n["strip_accents"].is_boolean())
                    strip = n["strip_accents"].get<bool>();
            } else if (t == "Sequence")
                for (const nlohmann::json &s : n.value("normalizers", nlohmann::json::array()))
                    parse(s);
        };
        parse(tj["normalizer"]);
        if (lower)
            kv.boolean("tokenizer.ggml.normalizer.lowercase", *lower);
        if (strip)
            kv.boolean("tokenizer.ggml.normalizer.strip_accents", *strip);
    }
    // LlamaModel.set_vocab: vocab_size 49152 (granite small models, and SmolLM's) adds no BOS.
    if (vocabSize == 49152)
        kv.boolean("tokenizer.ggml.add_bos_token", false);
    return "gpt2, pre-tokenizer " + pre + ", " + std::to_string(tokens.size()) + " tokens (" + std::to_string(control) +
           " control, " + std::to_string(userDefined) + " user-defined, " + std::to_string(unused) + " padding), " +
           std::to_string(merges.size()) + " merges";
}

} // namespace quantscope
