// A kernel's own accesses in flight (runtime/kernel/memory_hazards): which
// commands a load or a write must follow, what a load takes from the
// kernel's stores in flight, and exact overlaps (byte by byte, whatever
// the rows).

#include "runtime/kernel/memory_hazards.hpp"

#include <gtest/gtest.h>

#include <set>

namespace kb {
namespace {

using ids = std::vector<uint64_t>;

struct fixture {
  std::set<uint64_t> done;
  memory_hazards h{[this](uint64_t id) { return done.count(id) > 0; }};
};

tensor_view rows(uint64_t address, uint64_t stride, uint64_t n, uint64_t row_bytes) {
  return memory_hazards::bytes(address, stride, n, row_bytes);
}

memory_hazards::write store(uint64_t id, tensor_view range, std::vector<uint8_t> data,
                            bool atomic = false) {
  return {id, range, std::move(data), "store", atomic};
}

TEST(MemoryHazards, ALoadFollowsTheKernelsStoresOfItsBytesUntilTheyAreDone) {
  fixture f;
  // Store 5: two rows of 8 B, 16 B apart from 0x1000 (0x1000-0x1007, 0x1010-0x1017).
  f.h.wrote(store(5, rows(0x1000, 16, 2, 8), std::vector<uint8_t>(16, 1)));
  EXPECT_EQ(f.h.stores_into(rows(0x1004, 8, 1, 8)), ids{5});  // meets the first row
  EXPECT_EQ(f.h.stores_into(rows(0x1008, 8, 1, 8)), ids{});   // the gap
  f.done = {5};
  EXPECT_EQ(f.h.stores_into(rows(0x1004, 8, 1, 8)), ids{});
  EXPECT_TRUE(f.h.stores().empty()); // forgotten once done
}

TEST(MemoryHazards, OverlapsAreExactForManyRowsOfDifferentStrides) {
  fixture f;
  // A compute result: 300 rows of 8 B, 64 B apart from 0. A read of 300
  // rows of 8 B, 128 B apart from 32: its rows start 32 B into a 64 B
  // period and the result's end 8 B into it, so no byte is shared though
  // the spans overlap (the old bound of 256 row checks said "overlap").
  // A load of its bytes follows it (and gets no data, ADR-0043).
  f.h.wrote({7, rows(0, 64, 300, 8), {}, "a result"});
  EXPECT_EQ(f.h.stores_into(rows(32, 128, 300, 8)), ids{});
  EXPECT_EQ(f.h.stores_into(rows(4, 128, 300, 8)), ids{7});
  // Composite commands keep their order with results in PE_SCHEDULER:
  // only stores with data are theirs to wait for.
  EXPECT_EQ(f.h.stores_in_flight(), ids{});
}

TEST(MemoryHazards, ForwardingSkipsResultsWithoutData) {
  // A store with data (1s), then a compute result over its second half: a
  // load after both lays only what comes after the result over the bytes
  // it read (the memory's), here nothing.
  const std::vector<memory_hazards::write> stores = {
    {1, rows(0, 8, 1, 8), std::vector<uint8_t>(8, 1), "store"},
    {2, rows(4, 4, 1, 4), {}, "a result"}};
  std::vector<uint8_t> data(8, 9);
  memory_hazards::forward(rows(0, 8, 1, 8), stores, data);
  EXPECT_EQ(data, std::vector<uint8_t>(8, 9));
  // The store alone is forwarded.
  memory_hazards::forward(rows(0, 8, 1, 8), {stores[0]}, data);
  EXPECT_EQ(data, std::vector<uint8_t>(8, 1));
}

TEST(MemoryHazards, AWriteFollowsLoadsStoresCompositeReadsAndResultsOnItsBytes) {
  fixture f;
  f.h.wrote(store(4, rows(0x100, 16, 1, 16), std::vector<uint8_t>(16, 0))); // store 4
  f.h.loading(3, "load", rows(0x000, 16, 1, 16));                            // load 3
  f.h.composite(6, {{0x200, 0x240}});                                         // reads 64 B
  f.h.wrote({7, rows(0x300, 16, 1, 16), {}, "a result"});                     // result 7
  const tensor_view all = rows(0x000, 0x100, 4, 16); // one row in each of the four
  // Loads, then stores, then composite reads, then results.
  EXPECT_EQ(f.h.write_hazards(all), (ids{3, 4, 6, 7}));
  EXPECT_EQ(f.h.write_hazards(rows(0x210, 16, 1, 16)), ids{6});
  EXPECT_EQ(f.h.write_hazards(rows(0x240, 16, 1, 16)), ids{}); // just past the read
  f.done = {4, 6};
  EXPECT_EQ(f.h.write_hazards(all), (ids{3, 7}));
}

TEST(MemoryHazards, ACompositeFollowsStoresInFlightAndLoadsOfWhatItWrites) {
  fixture f;
  f.h.wrote(store(2, rows(0x500, 8, 1, 8), std::vector<uint8_t>(8, 0)));
  f.h.loading(3, "load a", rows(0x000, 32, 2, 16));
  f.h.loading(8, "load b", rows(0x800, 32, 2, 16));
  EXPECT_EQ(f.h.stores_in_flight(), ids{2});
  EXPECT_EQ(f.h.loads_reading(rows(0x010, 16, 1, 16)), ids{}); // the gap of load 3
  EXPECT_EQ(f.h.loads_reading(rows(0x020, 16, 1, 16)), ids{3});
  f.done = {3};
  EXPECT_EQ(f.h.loads_reading(rows(0x020, 16, 1, 16)), ids{});
  ASSERT_NE(f.h.load_of(8), nullptr);
  EXPECT_EQ(f.h.load_of(8)->what, "load b");
  f.h.loaded(8);
  EXPECT_EQ(f.h.load_of(8), nullptr);
}

TEST(MemoryHazards, ALoadTakesTheBytesOfStoresAfterTheLastAtomicOnThem) {
  // A load of two rows of 4 B, 8 B apart from 0x100 (0x100-0x103, 0x108-0x10b).
  const tensor_view load = rows(0x100, 8, 2, 4);
  // Store 1 writes 0x102-0x105: bytes 0x102, 0x103 of the load's first row.
  // Store 2 writes 0x10a-0x10b: the last two of its second row.
  std::vector<memory_hazards::write> stores = {store(1, rows(0x102, 4, 1, 4), {1, 2, 3, 4}),
                                               store(2, rows(0x10a, 2, 1, 2), {5, 6})};
  std::vector<uint8_t> data(8, 0);
  memory_hazards::forward(load, stores, data);
  EXPECT_EQ(data, (std::vector<uint8_t>{0, 0, 1, 2, 0, 0, 5, 6}));
  // An atomic on 0x100-0x103 after both: the memory computed what it
  // left there and the load waited for it, so no store before it is
  // taken, not even store 2 on other bytes of the load.
  stores.push_back(store(3, rows(0x100, 4, 1, 4), {9, 9, 9, 9}, true));
  data.assign(8, 0);
  memory_hazards::forward(load, stores, data);
  EXPECT_EQ(data, (std::vector<uint8_t>(8, 0)));
  // A store after the atomic is taken.
  stores.push_back(store(4, rows(0x108, 1, 1, 1), {7}));
  memory_hazards::forward(load, stores, data);
  EXPECT_EQ(data, (std::vector<uint8_t>{0, 0, 0, 0, 7, 0, 0, 0}));
}

TEST(MemoryHazards, ARangeTooLargeForAViewIsAClearError) {
  EXPECT_THROW((void)memory_hazards::bytes(0, 1ull << 33, 1, 1ull << 33), std::invalid_argument);
}

} // namespace
} // namespace kb
