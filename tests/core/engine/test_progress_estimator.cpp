// SPDX-License-Identifier: MIT
// The progress estimator the window and the CLI share: interpolation inside a step by the
// measured speed, the 95 % cap, time left, and the speed remembered across jobs.
#include <thread>

#include <gtest/gtest.h>

#include "engine/progress_estimator.h"

using quantscope::ProgressEstimator;
using quantscope::steadySeconds;
using quantscope::StepMailbox;

TEST(ProgressEstimator, UnknownSpeedStaysAtTheStepStartWithNoTimeLeft)
{
    ProgressEstimator p;
    p.start(100.0);
    p.step(0.0, 0.5, 10.0, "first", 100.0);
    const auto e = p.at(100.1);
    EXPECT_DOUBLE_EQ(e.fraction, 0.0);
    EXPECT_LT(e.secondsLeft, 0.0);
    EXPECT_EQ(e.what, "first");
}

TEST(ProgressEstimator, MeasuresSpeedFromCompletedStepsAndInterpolates)
{
    ProgressEstimator p;
    p.start(0.0);
    p.step(0.0, 0.25, 100.0, "a", 0.0);
    // 25 cost units done in 1 s: 25 units/s. The next step (25 units) is half done at 1.5 s.
    p.step(0.25, 0.5, 100.0, "b", 1.0);
    const auto e = p.at(1.5);
    EXPECT_NEAR(p.costPerSecond(), 25.0 / 1.5, 1e-12); // begin·total / elapsed at 1.5 s
    const double expectFraction = 0.25 + 0.25 * (0.5 * (25.0 / 1.5) / 25.0);
    EXPECT_NEAR(e.fraction, expectFraction, 1e-12);
    EXPECT_NEAR(e.secondsLeft, (1.0 - expectFraction) * 100.0 / (25.0 / 1.5), 1e-9);
}

TEST(ProgressEstimator, NeverPassesNinetyFivePercentOfAStep)
{
    ProgressEstimator p;
    p.start(0.0);
    p.step(0.5, 0.6, 10.0, "slow step", 1.0); // 5 units in 1 s
    const auto e = p.at(1000.0);              // far longer than the speed predicts
    EXPECT_LT(e.fraction, 0.6);
    EXPECT_NEAR(e.fraction, 0.5 + 0.1 * 0.95, 0.01);
}

TEST(ProgressEstimator, RemembersTheSpeedOfTheLastJob)
{
    ProgressEstimator p;
    p.start(0.0);
    p.step(0.0, 1.0, 40.0, "only", 0.0);
    p.finish(2.0); // 40 units in 2 s
    EXPECT_DOUBLE_EQ(p.costPerSecond(), 20.0);
    p.start(10.0);
    p.step(0.0, 1.0, 40.0, "again", 10.0);
    const auto e = p.at(11.0); // 1 s at 20 units/s of a 40-unit step
    EXPECT_NEAR(e.fraction, 0.5, 1e-12);
    EXPECT_NEAR(e.secondsLeft, 0.5 * 40.0 / 20.0, 1e-12);
}

TEST(ProgressEstimator, AnAssumedInitialSpeedInterpolatesTheFirstJob)
{
    ProgressEstimator p(10.0); // 10 units per second before anything was measured
    p.start(0.0);
    p.step(0.0, 1.0, 20.0, "first", 0.0);
    const auto e = p.at(0.5); // 5 of 20 units
    EXPECT_NEAR(e.fraction, 0.25, 1e-12);
    EXPECT_NEAR(e.secondsLeft, 0.75 * 20.0 / 10.0, 1e-12);
}

TEST(ProgressEstimator, TimeLeftNeverRisesAndTheBarNeverMovesBack)
{
    // Fast first steps, then a step ten times slower: the raw estimate from the measured speed
    // rises, the time shown holds instead (issue 42: "no jumps back").
    ProgressEstimator p;
    p.start(0.0);
    p.step(0.0, 0.1, 100.0, "fast", 0.0);
    p.step(0.1, 0.2, 100.0, "fast", 1.0);
    p.step(0.2, 0.3, 100.0, "slow", 2.0);
    double lastLeft = 1e300, lastFraction = 0;
    for (double t = 2.0; t <= 30.0; t += 0.25) {
        if (t >= 22.0)
            p.step(0.3, 0.4, 100.0, "after the slow one", 22.0);
        const auto e = p.at(t);
        EXPECT_GE(e.fraction, lastFraction) << t;
        ASSERT_GE(e.secondsLeft, 0.0) << t;
        EXPECT_LE(e.secondsLeft, lastLeft) << t;
        lastLeft = e.secondsLeft;
        lastFraction = e.fraction;
    }
    // A new job starts afresh.
    p.start(100.0);
    p.step(0.0, 0.5, 100.0, "again", 100.0);
    EXPECT_DOUBLE_EQ(p.at(100.0).fraction, 0.0);
}

TEST(StepMailbox, HandsTheLastReportedStepWithItsTimeToTheEstimator)
{
    // Before any report the estimator sees the empty step at the job's start; after reports
    // from another thread it sees the last one, stamped when it was reported.
    const double t0 = steadySeconds();
    StepMailbox box(t0);
    ProgressEstimator p;
    p.start(t0);
    box.feed(p);
    EXPECT_EQ(p.at(t0).what, "");
    std::thread worker([&box] {
        box.report(0.0, 0.25, 100.0, "first");
        box.report(0.25, 0.5, 100.0, "second");
    });
    worker.join();
    const double after = steadySeconds();
    box.feed(p);
    const auto e = p.at(after);
    EXPECT_EQ(e.what, "second");
    EXPECT_GE(e.fraction, 0.25);
    EXPECT_LE(e.fraction, 0.5);
    EXPECT_GE(after, t0);
}
