// NodePool (checkers/core/node_pool.h): a map's erased entries' nodes are kept and new entries made
// in them, reset; the model's per-host-function maps then allocate nothing in the steady state.
#include <gtest/gtest.h>

#include <string>
#include <unordered_map>

#include "checkers/core/node_pool.h"

namespace gilsan::checkers::testing {
namespace {

struct Entry {
  int count = 0;
  std::string text;
};
using Map = std::unordered_map<int, Entry>;

TEST(NodePool, NewEntriesAreMadeInTheNodesOfErasedOnesAndReset) {
  Map map;
  NodePool<Map> pool;
  const Entry* first = &pool.find_or_make(map, 1)->second;
  pool.find_or_make(map, 1)->second = {7, "a text longer than a short string's buffer"};
  pool.erase(map, map.find(1));
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(1u, pool.kept());

  auto made = pool.find_or_make(map, 2);
  EXPECT_EQ(0u, pool.kept());
  EXPECT_EQ(2, made->first);
  EXPECT_EQ(first, &made->second) << "made in the erased entry's node";
  EXPECT_EQ(0, made->second.count);
  EXPECT_TRUE(made->second.text.empty());
  EXPECT_EQ(1u, map.count(2));
}

TEST(NodePool, AnExistingEntryIsFoundAsItIs) {
  Map map;
  NodePool<Map> pool;
  pool.find_or_make(map, 3)->second.count = 5;
  pool.erase(map, pool.find_or_make(map, 4));
  EXPECT_EQ(5, pool.find_or_make(map, 3)->second.count);
  EXPECT_EQ(1u, pool.kept()) << "finding takes no kept node";
}

TEST(NodePool, AResetMayKeepAValuesBuffers) {
  Map map;
  NodePool<Map> pool;
  auto entry = pool.find_or_make(map, 1);
  entry->second.text.assign(200, 'x');
  const char* buffer = entry->second.text.data();
  pool.erase(map, entry);
  auto reused = pool.find_or_make(map, 2, [](Entry& kept) {
    kept.count = 0;
    kept.text.clear();
  });
  EXPECT_TRUE(reused->second.text.empty());
  reused->second.text.assign(100, 'y');
  EXPECT_EQ(buffer, reused->second.text.data()) << "the string's buffer served the next text";
}

TEST(NodePool, KeepsNoMoreNodesThanTheMapOnceHeldEntries) {
  Map map;
  NodePool<Map> pool;
  for (int round = 0; round < 3; ++round) {
    for (int key = 0; key < 100; ++key) pool.find_or_make(map, key);
    while (!map.empty()) pool.erase(map, map.begin());
    EXPECT_EQ(100u, pool.kept());
  }
}

}  // namespace
}  // namespace gilsan::checkers::testing
