// SPDX-License-Identifier: MIT
// What a path opens: a file, a sharded folder (through its index or the index path), a folder
// with one file; and the lies an index can tell.
#include "io/checkpoint.h"
#include "io/reader.h"
#include "safetensors_fixture.h"
#include "util/error.h"

#include <cstring>
#include <gtest/gtest.h>
#include <vector>

using namespace quantscope;
using namespace quantscope::test;

namespace {

/// A valid file whose tensors are U8 [2] each, holding {k, k+1} for the k-th byte of the data
/// (bytes start at `first`, so tensors of different shards differ).
fs::path writeShard(const fs::path &p, const std::vector<std::string> &names, unsigned first = 0)
{
    std::string h = "{";
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i)
            h += ",";
        h += "\"" + names[i] + "\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[" + std::to_string(2 * i) + "," +
             std::to_string(2 * i + 2) + "]}";
    }
    h += "}";
    return writeSt(p, h, ramp(2 * names.size(), first));
}

/// model.safetensors.index.json from (tensor, shard) pairs, in the given order.
fs::path writeIndex(const fs::path &folder, const std::vector<std::pair<std::string, std::string>> &map,
                    const std::string &metadata = "{\"total_size\": 123456789, \"format\": \"pt\"}")
{
    std::string j = "{\"metadata\": " + metadata + ", \"weight_map\": {";
    for (std::size_t i = 0; i < map.size(); ++i)
        j += (i ? ", " : "") + std::string("\"") + map[i].first + "\": \"" + map[i].second + "\"";
    j += "}}";
    const fs::path p = folder / "model.safetensors.index.json";
    writeBytes(p, j);
    return p;
}

std::vector<std::string> namesOf(const Checkpoint &c)
{
    std::vector<std::string> out;
    for (const auto &e : c.entries())
        out.push_back(e.name);
    return out;
}

template <typename E> E openFails(const fs::path &p)
{
    try {
        Checkpoint::open(p);
    } catch (const E &e) {
        return e;
    }
    throw std::runtime_error("expected an error opening " + p.string());
}

class CheckpointTest : public ::testing::Test {
protected:
    ScratchDir dir;

    /// Two shards: s1 holds a, b; s2 holds c. The index lists c, a, b.
    void makeSharded()
    {
        writeShard(dir / "model-00001-of-00002.safetensors", {"a", "b"}, 0);
        writeShard(dir / "model-00002-of-00002.safetensors", {"c"}, 100);
        writeIndex(dir.path(), {{"c", "model-00002-of-00002.safetensors"},
                                {"a", "model-00001-of-00002.safetensors"},
                                {"b", "model-00001-of-00002.safetensors"}});
    }
};

TEST_F(CheckpointTest, SingleFilePicksUpConfigJson)
{
    const auto p = writeShard(dir / "model.safetensors", {"x", "y"});
    writeBytes(dir / "config.json", R"({"model_type": "llama", "quantization_config": {"quant_method": "quark"}})");
    const Checkpoint c = Checkpoint::open(p);
    EXPECT_FALSE(c.sharded());
    EXPECT_EQ(c.path(), p);
    EXPECT_EQ(namesOf(c), (std::vector<std::string>{"x", "y"}));
    EXPECT_EQ(c.files(), std::vector<fs::path>{p});
    EXPECT_EQ(c.config().at("model_type"), "llama");
    EXPECT_EQ(c.quantizationConfig().at("quant_method"), "quark");
    EXPECT_TRUE(c.warnings().empty());
    const Tensor y = c.tensor("y");
    EXPECT_EQ(std::to_integer<int>(y.data()[0]), 2);
    EXPECT_EQ(c.find("z"), nullptr);
    EXPECT_THROW(c.tensor("z"), FormatError);
}

TEST_F(CheckpointTest, NoConfigGivesNull)
{
    const auto p = writeShard(dir / "model.safetensors", {"x"});
    const Checkpoint c = Checkpoint::open(p);
    EXPECT_TRUE(c.config().is_null());
    EXPECT_TRUE(c.quantizationConfig().is_null());
}

TEST_F(CheckpointTest, BrokenConfigJsonIsAWarningNotAFailure)
{
    const auto p = writeShard(dir / "model.safetensors", {"x"});
    writeBytes(dir / "config.json", "{\"model_type\": ");
    const Checkpoint c = Checkpoint::open(p);
    EXPECT_TRUE(c.config().is_null());
    ASSERT_EQ(c.warnings().size(), 1u);
    EXPECT_NE(c.warnings()[0].find("config.json"), std::string::npos) << c.warnings()[0];
}

TEST_F(CheckpointTest, ShardedFolderOpensThroughItsIndex)
{
    makeSharded();
    for (const fs::path &p : {dir.path(), dir / "model.safetensors.index.json"}) {
        SCOPED_TRACE(p.string());
        const Checkpoint c = Checkpoint::open(p);
        EXPECT_TRUE(c.sharded());
        EXPECT_EQ(namesOf(c), (std::vector<std::string>{"c", "a", "b"})); // weight_map order
        EXPECT_EQ(c.files(), (std::vector<fs::path>{dir / "model-00002-of-00002.safetensors",
                                                    dir / "model-00001-of-00002.safetensors"}));
        EXPECT_EQ(std::to_integer<int>(c.tensor("c").data()[0]), 100);
        EXPECT_EQ(std::to_integer<int>(c.tensor("b").data()[1]), 3);
        EXPECT_EQ(c.find("a")->file, dir / "model-00001-of-00002.safetensors");
        EXPECT_TRUE(c.warnings().empty());
        EXPECT_TRUE(c.config().is_null());
    }
    writeBytes(dir / "config.json", R"({"quantization_config": {"format": "pack-quantized"}})");
    EXPECT_EQ(Checkpoint::open(dir.path()).quantizationConfig().at("format"), "pack-quantized");
}

TEST_F(CheckpointTest, MissingShardIsRefusedNamingIt)
{
    writeShard(dir / "s1.safetensors", {"a"});
    writeIndex(dir.path(), {{"a", "s1.safetensors"}, {"b", "s2.safetensors"}});
    const IoError e = openFails<IoError>(dir.path());
    expectWhere(e, dir / "s2.safetensors", "b", std::nullopt, "shard \"s2.safetensors\"");
    EXPECT_NE(e.message().find("does not exist"), std::string::npos);
}

TEST_F(CheckpointTest, TensorAbsentFromItsShardIsRefused)
{
    writeShard(dir / "s1.safetensors", {"a"});
    writeShard(dir / "s2.safetensors", {"c"});
    writeIndex(dir.path(), {{"a", "s1.safetensors"}, {"b", "s2.safetensors"}, {"c", "s2.safetensors"}});
    const FormatError e = openFails<FormatError>(dir.path());
    expectWhere(e, dir / "s2.safetensors", "b", std::nullopt, "does not contain it");
}

TEST_F(CheckpointTest, TensorInTwoShardsIsRefused)
{
    writeShard(dir / "s1.safetensors", {"a", "w"});
    writeShard(dir / "s2.safetensors", {"w", "c"});
    writeIndex(dir.path(), {{"a", "s1.safetensors"}, {"w", "s1.safetensors"}, {"c", "s2.safetensors"}});
    const FormatError e = openFails<FormatError>(dir.path());
    // The copy in the second shard is reported, at the start of its span.
    const std::uint64_t dataStart =
        8 +
        std::string(
            R"({"w":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"c":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})")
            .size();
    expectWhere(e, dir / "s2.safetensors", "w", dataStart, "in two shards");
    EXPECT_NE(e.message().find("s1.safetensors"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("s2.safetensors"), std::string::npos) << e.what();
}

TEST_F(CheckpointTest, ShardNamesLeavingTheFolderAreRefused)
{
    const fs::path inner = dir / "ckpt";
    fs::create_directories(inner / "sub");
    writeShard(dir / "x.safetensors", {"a"}); // exists, one level up: still refused
    writeShard(inner / "sub" / "y.safetensors", {"a"});
    for (const std::string &shard :
         std::vector<std::string>{"../x.safetensors", (dir / "x.safetensors").string(), "sub/../../x.safetensors",
                                  "sub/y.safetensors", "..", ""}) {
        SCOPED_TRACE(shard);
        const fs::path index = writeIndex(inner, {{"a", shard}});
        const FormatError e = openFails<FormatError>(inner);
        expectWhere(e, index, "a", std::nullopt, "not a plain file name in the index's folder");
        EXPECT_NE(e.message().find("\"" + shard + "\""), std::string::npos) << e.what();
    }
}

TEST_F(CheckpointTest, IndexWithoutWeightMapOrWithDuplicatesIsRefused)
{
    writeShard(dir / "s1.safetensors", {"a"});
    writeBytes(dir / "model.safetensors.index.json", R"({"metadata": {}})");
    EXPECT_THROW(Checkpoint::open(dir.path()), FormatError);
    writeBytes(dir / "model.safetensors.index.json",
               R"({"weight_map": {"a": "s1.safetensors", "a": "s1.safetensors"}})");
    const FormatError e = openFails<FormatError>(dir.path());
    EXPECT_NE(e.message().find("duplicate key \"a\""), std::string::npos) << e.what();
    EXPECT_EQ(e.where().offset, std::string(R"({"weight_map": {"a": "s1.safetensors", )").size());
    writeBytes(dir / "model.safetensors.index.json", R"({"weight_map": {"a": 1}})");
    EXPECT_THROW(Checkpoint::open(dir.path()), FormatError);
}

TEST_F(CheckpointTest, TensorInAShardButNotInTheIndexIsAWarning)
{
    writeShard(dir / "s1.safetensors", {"a", "extra"});
    writeIndex(dir.path(), {{"a", "s1.safetensors"}});
    const Checkpoint c = Checkpoint::open(dir.path());
    EXPECT_EQ(namesOf(c), std::vector<std::string>{"a"});
    ASSERT_EQ(c.warnings().size(), 1u);
    EXPECT_NE(c.warnings()[0].find("'extra'"), std::string::npos) << c.warnings()[0];
}

TEST_F(CheckpointTest, ShardIsValidatedAtOpen)
{
    writeShard(dir / "s1.safetensors", {"a"});
    writeSt(dir / "s2.safetensors", R"({"b":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", ramp(3));
    writeIndex(dir.path(), {{"a", "s1.safetensors"}, {"b", "s2.safetensors"}});
    const FormatError e = openFails<FormatError>(dir.path());
    EXPECT_EQ(e.where().file, (dir / "s2.safetensors").string());
    EXPECT_NE(e.message().find("trailing"), std::string::npos);

    ReadOptions lenient;
    lenient.lenient = true;
    const Checkpoint c = Checkpoint::open(dir.path(), lenient);
    ASSERT_EQ(c.warnings().size(), 1u);
    EXPECT_NE(c.warnings()[0].find("s2.safetensors"), std::string::npos);
}

TEST_F(CheckpointTest, FolderWithSeveralFilesAndNoIndexIsRefusedListingThem)
{
    writeShard(dir / "first.safetensors", {"a"});
    writeShard(dir / "second.safetensors", {"b"});
    const FormatError e = openFails<FormatError>(dir.path());
    expectWhere(e, dir.path(), "", std::nullopt, "ambiguous");
    EXPECT_NE(e.message().find("first.safetensors"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("second.safetensors"), std::string::npos) << e.what();
}

TEST_F(CheckpointTest, FolderWithOneFileOpensIt)
{
    writeShard(dir / "only.safetensors", {"a", "b"});
    writeBytes(dir / "config.json", R"({"hidden_size": 64})");
    writeBytes(dir / "notes.txt", "not a model");
    const Checkpoint c = Checkpoint::open(dir.path());
    EXPECT_FALSE(c.sharded());
    EXPECT_EQ(namesOf(c), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(c.files(), std::vector<fs::path>{dir / "only.safetensors"});
    EXPECT_EQ(c.config().at("hidden_size"), 64);
}

TEST_F(CheckpointTest, FolderWithoutSafetensorsOrMissingPathIsRefused)
{
    writeBytes(dir / "config.json", "{}");
    expectWhere(openFails<IoError>(dir.path()), dir.path(), "", std::nullopt, "no .safetensors file");
    expectWhere(openFails<IoError>(dir / "absent.safetensors"), dir / "absent.safetensors", "", std::nullopt,
                "no such file");
}

// ---- which reader takes a path ---------------------------------------------------------------

/// The name of the reader readerFor picks for an existing path.
std::string readerName(const fs::path &p)
{
    const ReaderFormat *r = readerFor(p, fs::status(p));
    return r ? std::string(r->name) : std::string("(none)");
}

TEST(Readers, AreAskedInTheOrderTheyTakePrecedence)
{
    std::vector<std::string> names;
    for (const ReaderFormat &r : readerFormats())
        names.emplace_back(r.name);
    EXPECT_EQ(names, (std::vector<std::string>{"npy", "npz", "gguf", "sharded index", "safetensors folder",
                                               "safetensors file"}));
}

TEST_F(CheckpointTest, EachPathKindGoesToItsReader)
{
    makeSharded();
    EXPECT_EQ(readerName(dir.path()), "sharded index");
    EXPECT_EQ(readerName(dir / "model.safetensors.index.json"), "sharded index");
    writeBytes(dir / "other.index.json", "{}");
    EXPECT_EQ(readerName(dir / "other.index.json"), "sharded index");
    EXPECT_EQ(readerName(dir / "model-00001-of-00002.safetensors"), "safetensors file");
    writeBytes(dir / "a.npy", "");
    writeBytes(dir / "b.NPZ", "");
    writeBytes(dir / "weights.bin", "");
    EXPECT_EQ(readerName(dir / "a.npy"), "npy");
    EXPECT_EQ(readerName(dir / "b.NPZ"), "npz");                    // extensions in any case
    EXPECT_EQ(readerName(dir / "weights.bin"), "safetensors file"); // any other file
    writeBytes(dir / "m.GGUF", "");
    writeBytes(dir / "llama.bin", "GGUF\x03");
    EXPECT_EQ(readerName(dir / "m.GGUF"), "gguf");    // by extension, in any case
    EXPECT_EQ(readerName(dir / "llama.bin"), "gguf"); // or by its magic
    fs::create_directory(dir / "plain");
    EXPECT_EQ(readerName(dir / "plain"), "safetensors folder");
    fs::create_directory(dir / "arrays.npy"); // a folder is never an array file
    EXPECT_EQ(readerName(dir / "arrays.npy"), "safetensors folder");
    expectWhere(openFails<IoError>(dir / "arrays.npy"), dir / "arrays.npy", "", std::nullopt, "no .safetensors file");
}

// ---- the real model ---------------------------------------------------------------------------

TEST(CheckpointReal, Stories260KOpensWith48TensorsAndItsConfig)
{
    const fs::path p = QUANTSCOPE_SHARED_DATA "/stories260K/model.safetensors";
    if (!fs::exists(p))
        GTEST_SKIP() << "real test data not found at " << p
                     << " (set QUANTSCOPE_SHARED_DATA to the shared/data folder)";
    const Checkpoint c = Checkpoint::open(p);
    EXPECT_EQ(c.entries().size(), 48u);
    EXPECT_TRUE(c.config().is_object()) << "config.json next to the model was not picked up";
    EXPECT_TRUE(c.warnings().empty());
    for (const TensorEntry &e : c.entries()) {
        EXPECT_EQ(e.dtype, DType::F32) << e.name;
        EXPECT_EQ(c.tensor(e.name).nbytes(), e.nbytes()) << e.name;
    }

    // The folder holds model.safetensors and model.bf16.safetensors and no index: ambiguous.
    const FormatError e = openFails<FormatError>(p.parent_path());
    EXPECT_NE(e.message().find("model.bf16.safetensors"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("model.safetensors"), std::string::npos) << e.what();
}

} // namespace
