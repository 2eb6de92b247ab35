// SPDX-License-Identifier: MIT
// `quantscope-cli doctor --json` as a script sees it: whatever bytes a file holds, the command
// prints one parseable JSON report and exits 0, 3 or 4 (never 1 with an exception): headers with
// bytes that are not UTF-8, and every input of the fuzz corpus (tests/fuzz/, the repository's
// bad-input collection) given to the doctor as it is.
#include "cli_run.h"

#include <cstring>

#include <nlohmann/json.hpp>

using namespace cli_test;

namespace {

/// A safetensors file whose header is `header` as raw bytes (not necessarily UTF-8).
void writeRaw(const fs::path &p, const std::string &header, std::size_t dataBytes)
{
    std::ofstream f(p, std::ios::binary);
    const std::uint64_t n = header.size();
    f.write(reinterpret_cast<const char *>(&n), 8);
    f << header << std::string(dataBytes, '\0');
}

/// The report of `doctor --json path`, or a test failure saying why there is none.
nlohmann::json report(const fs::path &p, int &rc)
{
    const Result r = run({"doctor", p.string(), "--json"});
    rc = r.rc;
    try {
        return nlohmann::json::parse(r.out);
    } catch (const std::exception &e) {
        ADD_FAILURE() << p << ": rc " << r.rc << ", not JSON (" << e.what() << "): " << r.out << r.err;
        return nullptr;
    }
}

} // namespace

TEST(CliDoctor, BytesThatAreNotUtf8GiveAJsonReport)
{
    const fs::path d = fs::path(::testing::TempDir()) / ("qs_cli_doctor_utf8_" + std::to_string(getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    // A name, a dtype and a metadata value with bytes that are not UTF-8; the parser refuses the
    // header and quotes the bytes.
    writeRaw(d / "name.safetensors", "{\"w\xff\xfe.weight\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
             4);
    writeRaw(d / "dtype.safetensors", "{\"w.weight\":{\"dtype\":\"F\xc3\x28\",\"shape\":[1],\"data_offsets\":[0,4]}}",
             4);
    writeRaw(d / "meta.safetensors",
             "{\"__metadata__\":{\"format\":\"pt\xe2\x82\"},\"w.weight\":{\"dtype\":\"F32\",\"shape\":[1],"
             "\"data_offsets\":[0,4]}}",
             4);
    // Escaped in the JSON (\u00ff is valid JSON text) but odd as a name: the finding names it.
    writeRaw(d / "escaped.safetensors",
             "{\"w.weight\":{\"dtype\":\"F\\u00ff32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4);
    for (const char *f : {"name", "dtype", "meta", "escaped"}) {
        int rc = 0;
        const nlohmann::json j = report(d / (std::string(f) + ".safetensors"), rc);
        EXPECT_TRUE(rc == 3 || rc == 4) << f << " rc " << rc << ' ' << j.dump();
        ASSERT_TRUE(j.is_object()) << f;
        EXPECT_EQ(j["exit_code"], rc) << f;
        EXPECT_FALSE(j["findings"].empty()) << f;
    }
    // The bytes are named, escaped visibly.
    int rc = 0;
    const std::string text = report(d / "name.safetensors", rc).dump();
    EXPECT_NE(text.find("\\\\xFF"), std::string::npos) << text;
    fs::remove_all(d);
}

TEST(CliDoctor, EveryInputOfTheFuzzCorpusGivesAJsonReport)
{
    // The corpus holds bad inputs (crash-* reproducers, truncated and hostile files) and the seeds
    // they grew from. A seed that is a valid checkpoint of its own kind (a safetensors file, a
    // NumPy array, a GGUF file — an imatrix GGUF is one) may be healthy; everything else is
    // reported with exit 3 or 4.
    const fs::path corpus = fs::path(QUANTSCOPE_SOURCE_DIR) / "tests/fuzz";
    int inputs = 0;
    for (const auto &e : fs::recursive_directory_iterator(corpus)) {
        if (!e.is_regular_file() || e.path().filename().string()[0] == '.')
            continue;
        ++inputs;
        int rc = 0;
        const nlohmann::json j = report(e.path(), rc);
        ASSERT_TRUE(j.is_object()) << e.path();
        EXPECT_EQ(j["exit_code"], rc) << e.path();
        const std::string kind = e.path().parent_path().filename().string();
        const std::string ext = e.path().extension().string();
        // The doctor's own seeds without the "#QSFUZZ#" line are a whole safetensors file.
        const bool plainDoctorSeed = kind == "doctor" && e.path().filename().string().rfind("seed-", 0) == 0 &&
                                     slurp(e.path()).find("\n#QSFUZZ#\n") == std::string::npos;
        const bool mayBeHealthy = kind == "safetensors" || kind == "npy" || kind == "npz" || kind == "gguf" ||
                                  ext == ".safetensors" || ext == ".gguf" || plainDoctorSeed;
        if (mayBeHealthy)
            EXPECT_TRUE(rc == 0 || rc == 3 || rc == 4) << e.path() << " rc " << rc << ' ' << j.dump(1);
        else
            EXPECT_TRUE(rc == 3 || rc == 4) << e.path() << " rc " << rc << ' ' << j.dump(1);
    }
    EXPECT_GT(inputs, 50);
}
