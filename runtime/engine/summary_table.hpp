#pragma once
// A table of a node's end-of-run summary that the engine carries and never
// reads: a kind's own rows (a PE's commands, a unit's stage tallies). The
// kind's layer defines the table (a subclass with its rows and their
// encoding) and its readers; the engine only hands it on, and across
// processes sends its bytes, which the reader decodes (for_each_table).
// Tags are the schema's (messages/sim.capnp, `...TableTag`).

#include <cstdint>
#include <memory>
#include <vector>

namespace kb {

class summary_table {
public:
  explicit summary_table(uint16_t tag) : tag_(tag) {}
  virtual ~summary_table() = default;
  /// Which table this is: the same in every process.
  uint16_t tag() const { return tag_; }
  /// The rows as bytes, for another process.
  virtual std::vector<char> encode() const = 0;
  /// A table that came from another process: its bytes (null: made here).
  virtual const std::vector<char>* encoded() const { return nullptr; }

private:
  uint16_t tag_;
};

using summary_tables = std::vector<std::shared_ptr<const summary_table>>;

/// A table received from another process, still encoded.
class encoded_table final : public summary_table {
public:
  encoded_table(uint16_t tag, std::vector<char> bytes)
    : summary_table(tag), bytes_(std::move(bytes)) {}
  std::vector<char> encode() const override { return bytes_; }
  const std::vector<char>* encoded() const override { return &bytes_; }

private:
  std::vector<char> bytes_;
};

/// Calls `f` with each table of type `T` (tag `T::table_tag`, decoded by
/// `T::decode(bytes)` if it came from another process), in order.
template <class T, class F>
void for_each_table(const summary_tables& tables, F&& f) {
  for (const auto& t : tables) {
    if (!t || t->tag() != T::table_tag)
      continue;
    if (const auto* typed = dynamic_cast<const T*>(t.get()))
      f(*typed);
    else if (const std::vector<char>* bytes = t->encoded())
      f(T::decode(*bytes));
  }
}

/// The rows of every table of type `T` in `tables`, in order (for_each_table).
template <class T>
auto all_rows(const summary_tables& tables) {
  std::vector<typename decltype(T::rows)::value_type> out;
  for_each_table<T>(tables,
                    [&](const T& t) { out.insert(out.end(), t.rows.begin(), t.rows.end()); });
  return out;
}

} // namespace kb
