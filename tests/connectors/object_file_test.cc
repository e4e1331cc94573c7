#include "host/connectors/object_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sh::connectors::object_file_test {
namespace {

using ::testing::ElementsAre;

TEST(ObjectFileTest, ElementLinesOfItems) {
  std::string text =
      "{\n"                                                         // 1
      "  \"kind\": \"List\", \"note\": \"items: [\\\"x\\\" ]\",\n"  // 2: not the key
      "  \"metadata\": {\"items\": [1, 2]},\n"                      // 3: not at the root
      "  \"items\": [\n"                                            // 4
      "    {\"a\": \"}]\"},\n"                                      // 5
      "    {\"b\": [1,\n"                                           // 6
      "      2]}, {\"c\": 1},\n"                                    // 7
      "\n"                                                          // 8
      "    \"s\"\n"                                                 // 9
      "  ]\n"
      "}\n";
  EXPECT_THAT(elementLines(text), ElementsAre(5u, 6u, 7u, 9u));
}

TEST(ObjectFileTest, ElementLinesOfRootArrayAndEmptyOnes) {
  EXPECT_THAT(elementLines("[\n{},\n{}]"), ElementsAre(2u, 3u));
  EXPECT_TRUE(elementLines("{\"items\": []}").empty());
  EXPECT_TRUE(elementLines("[ ]").empty());
  EXPECT_TRUE(elementLines("{\"kind\": \"Pod\"}").empty());
}

TEST(ObjectFileTest, Formats) {
  // A single object, surrounded by blank lines.
  auto one = parseObjectFile("\n\n  {\"kind\": \"Pod\"}  \n");
  ASSERT_EQ(one.objects.size(), 1u);
  EXPECT_EQ(one.objects[0].line, 3u);
  EXPECT_TRUE(one.problems.empty());

  // A bare array.
  auto array = parseObjectFile("[{\"kind\": \"Node\"},\n {\"kind\": \"Pod\"}]");
  ASSERT_EQ(array.objects.size(), 2u);
  EXPECT_EQ(array.objects[1].line, 2u);

  // JSON lines with CRLF endings and a bad line.
  auto jl = parseObjectFile("{\"kind\": \"Node\"}\r\n{\"kind\":\r\n\r\n{\"kind\": \"Pod\"}\r\n");
  ASSERT_EQ(jl.objects.size(), 2u);
  EXPECT_EQ(jl.objects[1].line, 4u);
  ASSERT_EQ(jl.problems.size(), 1u);
  EXPECT_EQ(jl.problems[0].line, 2u);

  // Nothing at all, and a document that is not made of objects.
  EXPECT_TRUE(parseObjectFile(" \n\n").objects.empty());
  EXPECT_TRUE(parseObjectFile(" \n\n").problems.empty());
  auto scalar = parseObjectFile("42");
  ASSERT_EQ(scalar.problems.size(), 1u);
  EXPECT_EQ(scalar.problems[0].reason, "expected an object, a list or JSON lines");
  auto badItems = parseObjectFile("{\"items\": 3}");
  ASSERT_EQ(badItems.problems.size(), 1u);
  EXPECT_EQ(badItems.problems[0].reason, "items: expected an array");
}

std::string nestedArrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// Nesting is bounded (Boost.JSON's max_depth, limits::kMaxJsonDepth) in every form of the file,
// and the refusal names the limit.
TEST(ObjectFileTest, DeepNestingIsRefusedNamingTheLimit) {
  const std::string message = "invalid JSON: nested deeper than the limit of 256 levels";
  ObjectFileContents doc = parseObjectFile("{\"items\": [{\"a\": " + nestedArrays(10'000) + "}]}");
  EXPECT_TRUE(doc.objects.empty());
  ASSERT_EQ(doc.problems.size(), 1u);
  EXPECT_EQ(doc.problems[0].reason, message);
  ObjectFileContents lines =
      parseObjectFile("{\"kind\": \"Node\"}\n{\"a\": " + nestedArrays(300) + "}\n");
  ASSERT_EQ(lines.objects.size(), 1u);
  ASSERT_EQ(lines.problems.size(), 1u);
  EXPECT_EQ(lines.problems[0].line, 2u);
  EXPECT_EQ(lines.problems[0].reason, message);
  EXPECT_EQ(parseObjectFile("{\"a\": " + nestedArrays(250) + "}").objects.size(), 1u);
}

// One object over limits::kMaxObjectBytes is refused with its size; its neighbours are kept.
TEST(ObjectFileTest, AnObjectOverTheSizeLimitIsRefused) {
  const std::string big = "{\"kind\": \"Pod\", \"pad\": \"" + std::string(16u << 20, 'x') + "\"}";
  const std::string limit = "larger than the limit of 16777216 bytes";
  ObjectFileContents lines = parseObjectFile("{\"kind\": \"Node\"}\n" + big + "\n{}\n");
  EXPECT_EQ(lines.objects.size(), 2u);
  ASSERT_EQ(lines.problems.size(), 1u);
  EXPECT_EQ(lines.problems[0].line, 2u);
  EXPECT_EQ(lines.problems[0].reason, "object of 16777242 bytes is " + limit);
  ObjectFileContents list = parseObjectFile("{\"items\": [\n{},\n" + big + "\n, {}]}");
  EXPECT_EQ(list.objects.size(), 2u);
  ASSERT_EQ(list.problems.size(), 1u);
  EXPECT_EQ(list.problems[0].line, 3u);
  EXPECT_EQ(list.problems[0].reason, "items[1]: object of 16777243 bytes is " + limit);
  ObjectFileContents single = parseObjectFile(big);
  EXPECT_TRUE(single.objects.empty());
  ASSERT_EQ(single.problems.size(), 1u);
  EXPECT_EQ(single.problems[0].reason, "object of 16777242 bytes is " + limit);
}

}  // namespace
}  // namespace sh::connectors::object_file_test
