#include "runtime/kernel/mask_runs.hpp"

#include <algorithm>
#include <tuple>

namespace kb {

std::vector<mask_run> mask_runs(std::span<const uint8_t> flags, uint32_t rows, uint32_t cols,
                                uint8_t value) {
  std::vector<mask_run> done, open, next;
  for (uint32_t r = 0; r < rows; ++r) {
    next.clear();
    const uint8_t* row = flags.data() + uint64_t{r} * cols;
    for (uint32_t c = 0; c < cols;) {
      if (row[c] != value) {
        ++c;
        continue;
      }
      uint32_t end = c;
      while (end < cols && row[end] == value)
        ++end;
      // The same run in the row above extends its group, else a new one.
      auto it = std::find_if(open.begin(), open.end(), [&](const mask_run& g) {
        return g.col == c && g.cols == end - c;
      });
      if (it != open.end()) {
        ++it->rows;
        next.push_back(*it);
        open.erase(it);
      } else {
        next.push_back({r, 1, c, end - c});
      }
      c = end;
    }
    done.insert(done.end(), open.begin(), open.end()); // runs that stopped
    open.swap(next);
  }
  done.insert(done.end(), open.begin(), open.end());
  std::sort(done.begin(), done.end(), [](const mask_run& a, const mask_run& b) {
    return std::tie(a.row, a.col) < std::tie(b.row, b.col);
  });
  return done;
}

} // namespace kb
