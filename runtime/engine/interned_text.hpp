#pragma once
// Texts kept once for the life of the process: a figure's statistic pattern
// and qualifier (a lane, command, channel or link's far end) are views of
// them. A machine of 16,384 PEs reports about a million figures, most with
// a qualifier that many nodes share ("read", a command's number) or that
// is the name of a node; held as a std::string each, they were 64 bytes a
// figure plus the heap of every name longer than 15 characters (issue 31).

#include <string_view>

namespace kb {

/// The process's one copy of `text` (made at its first use; never freed:
/// the views may be read by a thread that outlives main). Safe from any
/// thread; the table is split by hash, so shards summarising at once
/// seldom wait for each other.
std::string_view intern_text(std::string_view text);

} // namespace kb
