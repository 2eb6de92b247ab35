// SPDX-License-Identifier: MIT
// globMatch (util/glob.h): the fnmatch rules, each expectation worked out by hand from them
// (`*` any run, `?` one character, `[…]` classes, the whole text matched, no escapes).
#include "util/glob.h"

#include <gtest/gtest.h>

using quantscope::globMatch;

TEST(Glob, EmptyPatternMatchesOnlyEmptyText)
{
    EXPECT_TRUE(globMatch("", ""));
    EXPECT_FALSE(globMatch("", "a"));
    EXPECT_FALSE(globMatch("a", ""));
    EXPECT_TRUE(globMatch("*", ""));
    EXPECT_TRUE(globMatch("**", ""));
    EXPECT_FALSE(globMatch("?", ""));
    EXPECT_FALSE(globMatch("[abc]", ""));
}

TEST(Glob, StarMatchesAnyRunIncludingDotsAndSlashes)
{
    EXPECT_TRUE(globMatch("*", "anything.at/all"));
    EXPECT_TRUE(globMatch("a*", "a"));
    EXPECT_TRUE(globMatch("a*", "abc"));
    EXPECT_FALSE(globMatch("a*", "ba"));
    EXPECT_TRUE(globMatch("*a", "ba"));
    EXPECT_FALSE(globMatch("*a", "ab"));
    EXPECT_TRUE(globMatch("*self_attn*", "model.layers.3.self_attn.q_proj"));
    EXPECT_TRUE(globMatch("*mlp.up_proj", "model.layers.0.mlp.up_proj"));
    EXPECT_FALSE(globMatch("*mlp.up_proj", "model.layers.1.mlp.experts.42.up_proj"));
}

TEST(Glob, StarsBacktrack)
{
    EXPECT_TRUE(globMatch("a*b*c", "aXXbYYc"));
    EXPECT_TRUE(globMatch("a*b*c", "abcbc")); // the last c, not the first, ends the match
    EXPECT_FALSE(globMatch("a*b*c", "abcb"));
    EXPECT_TRUE(globMatch("*x*x*", "axbxc"));
    EXPECT_FALSE(globMatch("*x*x*", "axb"));
    EXPECT_TRUE(globMatch("*[0-9]", "layer9"));
    EXPECT_FALSE(globMatch("*[0-9]", "layerX"));
}

TEST(Glob, QuestionMarkIsExactlyOneCharacter)
{
    EXPECT_TRUE(globMatch("?", "a"));
    EXPECT_FALSE(globMatch("?", "ab"));
    EXPECT_TRUE(globMatch("??", "ab"));
    EXPECT_TRUE(globMatch("?", "."));
    EXPECT_TRUE(globMatch("a?c", "a/c"));
    EXPECT_TRUE(globMatch("layer.?.x", "layer.7.x"));
    EXPECT_FALSE(globMatch("layer.?.x", "layer.17.x"));
}

TEST(Glob, LiteralsAreWholeAnchoredAndCaseSensitive)
{
    EXPECT_TRUE(globMatch("model.layers.0", "model.layers.0"));
    EXPECT_FALSE(globMatch("model.layers.0", "modelXlayers.0"));  // a dot is not a wildcard
    EXPECT_FALSE(globMatch("model.layers.0", "model.layers.01")); // anchored at the end
    EXPECT_FALSE(globMatch("model.layers.0", "xmodel.layers.0")); // and at the start
    EXPECT_FALSE(globMatch("abc", "ABC"));
    EXPECT_TRUE(globMatch("a\\b", "a\\b")); // a backslash is no escape
    EXPECT_FALSE(globMatch("a\\b", "ab"));
}

TEST(Glob, Classes)
{
    EXPECT_TRUE(globMatch("[abc]", "b"));
    EXPECT_FALSE(globMatch("[abc]", "d"));
    EXPECT_FALSE(globMatch("[abc]", "ab"));
    EXPECT_TRUE(globMatch("l[0-2].x", "l1.x"));
    EXPECT_FALSE(globMatch("l[0-2].x", "l3.x"));
    EXPECT_TRUE(globMatch("[.]", "."));
    EXPECT_FALSE(globMatch("[.]", "x"));
    EXPECT_TRUE(globMatch("[*]", "*")); // wildcards are members inside a class
    EXPECT_FALSE(globMatch("[*]", "a"));
    EXPECT_TRUE(globMatch("[?]", "?"));
    EXPECT_FALSE(globMatch("[?]", "a"));
}

TEST(Glob, NegatedClasses)
{
    EXPECT_FALSE(globMatch("l[!0-2].x", "l1.x"));
    EXPECT_TRUE(globMatch("l[!0-2].x", "l3.x"));
    // '^' negates too (fnmatchcase would read it as a member).
    EXPECT_FALSE(globMatch("l[^0-2].x", "l1.x"));
    EXPECT_TRUE(globMatch("l[^0-2].x", "l3.x"));
    EXPECT_FALSE(globMatch("[^a]", "a"));
    EXPECT_TRUE(globMatch("[^a]", "^"));
}

TEST(Glob, ClassEdgeCases)
{
    EXPECT_TRUE(globMatch("[a-]", "-")); // '-' last is a member
    EXPECT_TRUE(globMatch("[-a]", "-")); // and first
    EXPECT_TRUE(globMatch("[]]", "]"));  // ']' first is a member
    EXPECT_TRUE(globMatch("[]a]", "a"));
    EXPECT_FALSE(globMatch("[!]]", "]")); // ']' right after '!' as well
    EXPECT_TRUE(globMatch("[!]]", "x"));
    EXPECT_FALSE(globMatch("[z-a]", "m")); // a reversed range is empty
    EXPECT_TRUE(globMatch("[!z-a]", "m"));
}

TEST(Glob, UnterminatedBracketIsLiteral)
{
    EXPECT_TRUE(globMatch("[]", "[]")); // "]" would be a member, so nothing closes the class
    EXPECT_FALSE(globMatch("[]", ""));
    EXPECT_TRUE(globMatch("[ab", "[ab"));
    EXPECT_FALSE(globMatch("[ab", "a"));
    EXPECT_TRUE(globMatch("x[", "x["));
}
