// SPDX-License-Identifier: MIT
// Test tool of the crash-safety test: writes a session the way the window saves one (core's
// saveSessionFile, which the window's Save calls), with real results — a small job over two
// generated tensors, the configurations and tensors chosen by SEED so that two seeds give two
// different files. Usage: qs_session_writer OUT.qscope SEED
#include "engine/job.h"
#include "results/session.h"
#include "tensor/tensor.h"
#include "util/cancel.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>
#include <vector>

using namespace quantscope;

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: qs_session_writer OUT.qscope SEED\n");
        return 2;
    }
    try {
        const unsigned seed = static_cast<unsigned>(std::atoi(argv[2]));
        std::mt19937 rng(seed);
        std::normal_distribution<float> nd(0.0f, 0.02f);
        std::vector<float> a(256 * 128), b(128 * 256);
        for (auto &x : a)
            x = nd(rng);
        for (auto &x : b)
            x = nd(rng) * (1.0f + static_cast<float>(seed % 3));
        const Tensor ta = Tensor::fromFloats({256, 128}, a), tb = Tensor::fromFloats({128, 256}, b);

        Session s;
        s.checkpoint = SessionSource{"/models/seed-" + std::to_string(seed), false, false};
        s.selected = {"a.weight", "b.weight"};
        s.device = "cpu";
        s.bins = 64 + static_cast<int>(seed % 64);
        s.configs = {{"INT" + std::to_string(2 + seed % 6), {{"method", "int"}, {"bits", 2 + seed % 6}}},
                     {"FP8", {{"method", "fp8"}}},
                     {"HQQ", {{"method", "hqq"}, {"bits", 4}}}};
        QuantizeJobRequest req;
        req.tensors = s.selected;
        req.configs = s.configs;
        req.device = DeviceChoice::Cpu;
        req.bins = s.bins;
        req.threads = 1;
        TensorSource src;
        src.weight = [&](const std::string &name) { return name == "a.weight" ? ta : tb; };
        CancelToken cancel;
        s.results = runQuantizeJob(req, src, cancel);
        for (auto &o : s.results.outcomes) // the one field that differs between two runs
            o.timeMs = 0;
        s.view = {{"tab", static_cast<int>(seed % 4)}};
        saveSessionFile(argv[1], s);
        // The file written must read back to what was saved (the crash test then only has to
        // tell a complete file from a torn one).
        const Session back = loadSessionFile(argv[1]);
        if (sessionToJson(back) != sessionToJson(s)) {
            std::fprintf(stderr, "qs_session_writer: %s does not read back to the session saved\n", argv[1]);
            return 1;
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "qs_session_writer: %s\n", e.what());
        return 1;
    }
    return 0;
}
