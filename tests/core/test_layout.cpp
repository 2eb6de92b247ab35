// SPDX-License-Identifier: MIT
// The source tree's layout rules (docs/architecture.md): no dependency cycle between core's
// folders, and no source file over 800 lines outside tests and translations.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = QUANTSCOPE_SOURCE_DIR;

bool isSource(const fs::path &p)
{
    static const std::set<std::string> ext{".h", ".cpp", ".cu", ".cuh"};
    return ext.count(p.extension().string()) > 0;
}

/// folder → folders it includes from (within core/).
std::map<std::string, std::set<std::string>> coreEdges()
{
    std::map<std::string, std::set<std::string>> edges;
    std::set<std::string> folders;
    for (const auto &d : fs::directory_iterator(kRoot / "core"))
        if (d.is_directory())
            folders.insert(d.path().filename().string());
    const std::regex include(R"re(^\s*#\s*include\s*"([A-Za-z0-9_]+)/)re");
    for (const auto &e : fs::recursive_directory_iterator(kRoot / "core")) {
        if (!e.is_regular_file() || !isSource(e.path()))
            continue;
        const std::string from = fs::relative(e.path(), kRoot / "core").begin()->string();
        std::ifstream in(e.path());
        std::string line;
        std::smatch m;
        while (std::getline(in, line))
            if (std::regex_search(line, m, include) && folders.count(m[1]) && m[1] != from)
                edges[from].insert(m[1]);
    }
    return edges;
}

} // namespace

TEST(Layout, CoreFoldersFormNoCycle)
{
    const auto edges = coreEdges();
    ASSERT_FALSE(edges.empty()) << "no core sources found under " << kRoot;
    std::map<std::string, int> state; // 0 new, 1 on the path, 2 done
    std::vector<std::string> path;
    std::string cycle;
    std::function<void(const std::string &)> visit = [&](const std::string &f) {
        state[f] = 1;
        path.push_back(f);
        if (auto it = edges.find(f); it != edges.end())
            for (const auto &to : it->second) {
                if (!cycle.empty())
                    break;
                if (state[to] == 1) {
                    for (const auto &p : path)
                        cycle += p + " → ";
                    cycle += to;
                } else if (state[to] == 0) {
                    visit(to);
                }
            }
        path.pop_back();
        state[f] = 2;
    };
    for (const auto &[f, _] : edges)
        if (state[f] == 0 && cycle.empty())
            visit(f);
    EXPECT_EQ(cycle, "") << "core's folders include each other in a cycle";
    // The two folders the restructuring separated stay apart.
    EXPECT_EQ(edges.count("quant") ? edges.at("quant").count("metrics") : 0u, 0u);
    EXPECT_EQ(edges.count("metrics") ? edges.at("metrics").count("quant") : 0u, 0u);
}

TEST(Layout, NoSourceFileOverEightHundredLines)
{
    std::vector<std::string> tooLong;
    for (const char *dir : {"core", "gpu", "app", "widgets", "bench"}) {
        for (const auto &e : fs::recursive_directory_iterator(kRoot / dir)) {
            if (!e.is_regular_file() || !isSource(e.path()))
                continue;
            std::ifstream in(e.path());
            std::string line;
            int n = 0;
            while (std::getline(in, line))
                ++n;
            if (n > 800)
                tooLong.push_back(fs::relative(e.path(), kRoot).string() + " (" + std::to_string(n) + ")");
        }
    }
    EXPECT_TRUE(tooLong.empty()) << "over 800 lines: " << ::testing::PrintToString(tooLong);
}
