// SPDX-License-Identifier: MIT
// Resource limits (docs/reliability.md "Resource limits"): declared sizes larger than the memory
// are refused before allocating, ZIP bombs are refused before or while they inflate, and a file
// truncated while it is mapped gives an error naming it instead of SIGBUS.
#include <gtest/gtest.h>

#include "io/checkpoint.h"
#include "io/npz.h"
#include "io/quantized.h"
#include "io/safetensors.h"
#include "tensor/tensor.h"
#include "util/error.h"
#include "util/memory.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using namespace quantscope;

namespace {

const fs::path kLimits = fs::path(QUANTSCOPE_TEST_DATA) / "limits";

fs::path tempDir(const std::string &name)
{
    const fs::path d = fs::path(::testing::TempDir()) / ("qs_limits_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

template <typename T> Tensor raw(DType d, Shape s, const std::vector<T> &v)
{
    std::vector<std::byte> b(v.size() * sizeof(T));
    std::memcpy(b.data(), v.data(), b.size());
    return Tensor::fromBytes(d, std::move(s), std::move(b));
}

struct MemoryLimit {
    explicit MemoryLimit(std::uint64_t bytes) { setMemoryLimit(bytes); }
    ~MemoryLimit() { setMemoryLimit(0); }
};

} // namespace

TEST(ResourceLimits, ShapeLargerThanTheMachineIsRefusedBeforeAllocating)
{
    // 2^21 × 2^21 FP32 = 16 TiB: more than any machine this runs on.
    try {
        (void)Tensor::zeros(DType::F32, {1 << 21, 1 << 21});
        FAIL() << "allocated 16 TiB";
    } catch (const ResourceError &e) {
        EXPECT_NE(std::string(e.what()).find("2097152x2097152"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("more than the memory limit"), std::string::npos) << e.what();
    }
}

TEST(ResourceLimits, QuantizedModuleWhoseDecodeDoesNotFitIsRefusedNamingIt)
{
    // compressed-tensors INT4, [256, 512] group 128: 1.5 MiB at the decode's peak, over a 1 MiB cap.
    const fs::path d = tempDir("decode");
    const std::string mod = "model.layers.0.mlp.down_proj";
    std::vector<std::uint32_t> packed(256 * 64, 0x76543210u);
    std::vector<float> scales(256 * 4, 0.5f);
    writeSafetensors(d / "model.safetensors",
                     {{mod + ".weight_packed", raw(DType::I32, {256, 64}, packed)},
                      {mod + ".weight_scale", raw(DType::F32, {256, 4}, scales)},
                      {mod + ".weight_shape", raw(DType::I64, {2}, std::vector<std::int64_t>{256, 512})}});
    std::ofstream(d / "config.json") << R"({"quantization_config": {"quant_method": "compressed-tensors",
        "format": "pack-quantized", "config_groups": {"g": {"targets": ["Linear"], "weights":
        {"num_bits": 4, "type": "int", "symmetric": true, "group_size": 128, "strategy": "group"}}}}})";
    const Checkpoint ck = Checkpoint::open(d);
    const QuantizedModule m = detectQuantized(ck).modules.at(0);
    EXPECT_EQ(decodeQuantized(ck, m).numel(), 256 * 512); // fits without the cap
    MemoryLimit cap(1 << 20);
    try {
        (void)decodeQuantized(ck, m);
        FAIL() << "decoded past the cap";
    } catch (const ResourceError &e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(mod + ".weight"), std::string::npos) << what;
        EXPECT_NE(what.find(d.filename().string()), std::string::npos) << what;
    }
    fs::remove_all(d);
}

TEST(ResourceLimits, ZipMemberInflatingPastItsStatedSizeIsRefused)
{
    try {
        (void)NpzFile::open(kLimits / "bomb_understated.npz");
        FAIL() << "opened";
    } catch (const FormatError &e) {
        EXPECT_NE(std::string(e.what()).find("inflates past its stated size of 1048576"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("a.npy"), std::string::npos) << e.what();
    }
}

TEST(ResourceLimits, ZipMemberStatingMoreThanDeflatesLargestRatioIsRefusedWithoutInflating)
{
    try {
        (void)NpzFile::open(kLimits / "bomb_overstated.npz");
        FAIL() << "opened";
    } catch (const FormatError &e) {
        EXPECT_NE(std::string(e.what()).find("more than deflate's largest ratio"), std::string::npos) << e.what();
    }
}

TEST(ResourceLimits, HonestBombOpensButItsArrayIsRefusedOverTheMemoryCap)
{
    const NpzFile z = NpzFile::open(kLimits / "bomb_ok.npz"); // 20 MiB from 20 KiB, streamed for its CRC
    ASSERT_EQ(z.members().size(), 1u);
    {
        MemoryLimit cap(8 << 20);
        try {
            (void)z.tensor("a");
            FAIL() << "inflated past the cap";
        } catch (const ResourceError &e) {
            EXPECT_NE(std::string(e.what()).find("inflating array 'a'"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("bomb_ok.npz"), std::string::npos) << e.what();
        }
    }
    const Tensor t = z.tensor("a");
    EXPECT_EQ(t.numel(), 5 * 1024 * 1024);
    EXPECT_EQ(t.at(t.numel() - 1), 0.0);
}

namespace {

/// A checkpoint of one 8 MiB tensor, opened (mapped), then truncated to 4 KiB by another process.
struct Truncated {
    fs::path dir, file;
    Checkpoint ck;
};

Truncated openThenTruncate(const std::string &name)
{
    Truncated t;
    t.dir = tempDir(name);
    t.file = t.dir / "model.safetensors";
    std::vector<float> v(2 << 20, 1.5f);
    writeSafetensors(t.file, {{"w.weight", Tensor::fromFloats({2048, 1024}, v)}});
    t.ck = Checkpoint::open(t.file);
    const pid_t pid = ::fork();
    if (pid == 0)
        ::_exit(::truncate(t.file.c_str(), 4096) == 0 ? 0 : 1);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return t;
}

} // namespace

TEST(ResourceLimits, FileTruncatedWhileMappedGivesAnErrorNamingItNotSigbus)
{
    Truncated t = openThenTruncate("trunc");
    const Tensor w = t.ck.tensor("w.weight");
    try {
        (void)w.toF32();
        FAIL() << "read past the truncated end";
    } catch (const IoError &e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(t.file.string()), std::string::npos) << what;
        EXPECT_NE(what.find("truncated"), std::string::npos) << what;
    }
    // The first page is still there: reads before the new end work.
    std::vector<float> head(16);
    w.decodeRange(0, head);
    EXPECT_EQ(head[0], 1.5f);
    fs::remove_all(t.dir);
}

TEST(ResourceLimitsDeathTest, UnguardedReadOfATruncatedMappingEndsWithTheFileNamed)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            Truncated t = openThenTruncate("trunc_death");
            const Tensor w = t.ck.tensor("w.weight");
            volatile std::byte b = w.data()[w.nbytes() - 1]; // a read outside any guard
            (void)b;
            ::_exit(0);
        },
        ::testing::ExitedWithCode(1), "model.safetensors: the file was truncated or replaced while it was read");
    // The child's 4 KiB folder (named by its own PID) stays in the test temp folder.
}
