#include "runtime/host/data_session.hpp"

#include "runtime/data/npy.hpp"
#include "runtime/data/oplog_stream.hpp"
#include "runtime/data/tensor.hpp"
#include "runtime/kernel/op_log.hpp"
#include "runtime/io/atomic_file.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace kb {

bool data_result::ok() const {
  for (const auto& v : verdicts)
    if (!v.ok)
      return false;
  return true;
}

namespace {

/// A tensor's bytes as one packed view: its own view in `source`, or (a
/// tensor in blocks) its blocks copied one after the other into an image
/// of its own, so that verdicts and dumps count rows from the tensor's first.
class gathered {
public:
  gathered(const memory_image& source, const data_tensor& t)
    : image(t.blocks.empty() ? source : own_), view(t.view) {
    if (t.blocks.empty())
      return;
    uint64_t at = 0;
    uint32_t rows = 0;
    for (const tensor_view& b : t.blocks) {
      const std::vector<uint8_t> bytes = load_bytes(source, b);
      own_.write(at, bytes);
      at += bytes.size();
      rows += b.rows;
    }
    view = packed_view(0, rows, t.view.cols, t.view.type);
  }
  gathered(const gathered&) = delete;
  gathered& operator=(const gathered&) = delete;

private:
  memory_image own_; // declared before `image`, which may refer to it

public:
  const memory_image& image;
  tensor_view view;
};

/// A temporary op log path (removed after the run).
std::string temp_oplog() {
  static std::atomic<uint64_t> n{0};
  return (std::filesystem::temp_directory_path() /
          fmt::format("kernbench-{}-{}.oplog", ::getpid(), n++))
    .string();
}

/// One line of the debug mode: the op, its output view, an FNV-1a digest of
/// the output's bytes and how many of its values are NaN or infinite.
std::string digest_line(const op_record& r, const memory_image& m) {
  uint64_t h = 0xcbf29ce484222325ull;
  std::vector<uint8_t> row(r.out.row_bytes());
  for (uint32_t i = 0; i < r.out.rows; ++i) {
    m.read(r.out.address + uint64_t{i} * r.out.row_stride, row);
    for (uint8_t b : row)
      h = (h ^ b) * 0x100000001b3ull;
  }
  uint64_t bad = 0;
  for (float v : load_f32(m, r.out))
    bad += !std::isfinite(v);
  return fmt::format("{} t={}..{} {} {} out=0x{:x} {}x{} {} digest={:016x} nonfinite={}\n", r.id,
                     r.t_start_ps, r.t_end_ps, r.component, r.op_name, r.out.address, r.out.rows,
                     r.out.cols, to_string(r.out.type), h, bad);
}

} // namespace

data_session::data_session(const data_request& r, std::shared_ptr<const memory_image> initial)
    : request_(r), initial_(std::move(initial)) {
  if (!r.wants_results())
    return;
  temporary_ = r.oplog.empty();
  // A kept --oplog is written to a temporary beside it and renamed over it
  // only when the run has finished (commit_oplog): a run that fails or is
  // stopped leaves the path it was given as it was (issue 67 item 1). A
  // device, FIFO or pipe cannot take a rename: the log is written to a
  // temporary of our own and copied into it at the end.
  struct stat st {};
  const bool in_place = !temporary_ && ::stat(r.oplog.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  if (!temporary_ && !in_place) {
    try {
      kept_ = std::make_unique<atomic_file>(r.oplog, "--oplog file");
    } catch (const output_error& e) {
      throw std::invalid_argument(e.what()); // known before the run: bad input
    }
    log_path_ = kept_->temp_path();
  } else {
    log_path_ = temp_oplog();
    if (!std::ofstream(log_path_, std::ios::binary))
      throw std::invalid_argument(fmt::format("op log {}: cannot write it", log_path_));
  }
  // Written while the run goes: a signal leaves no temporary behind.
  log_on_signal_ = signal_cleanup::file(log_path_);
  if (!r.op_digests.empty()) // checked, not created: a failed run leaves no file
    try {
      check_writable(r.op_digests, "--op-digests file");
    } catch (const output_error& e) {
      throw std::invalid_argument(e.what());
    }
  log_ = std::make_shared<op_log>(log_path_);
}

data_session::~data_session() {
  log_.reset();
  // Only the files this session made itself are removed: its temporary op
  // log (a kept_ one's goes with kept_, unless committed). Never the path
  // it was given (ADR-0042).
  if (!committed_ && !log_path_.empty())
    ::unlink(log_path_.c_str());
  log_on_signal_.release();
}

void data_session::commit_oplog() {
  if (temporary_ || committed_)
    return;
  if (kept_) {
    kept_->commit(); // the log was written under its temporary name
  } else { // a device, FIFO or pipe: copied into it
    atomic_file out(request_.oplog, "--oplog file");
    {
      std::ifstream in(log_path_, std::ios::binary);
      out.stream() << in.rdbuf();
      if (in.bad())
        throw output_error(fmt::format("cannot write --oplog file '{}': cannot read back its "
                                       "temporary '{}'",
                                       request_.oplog, log_path_));
    }
    out.commit();
    ::unlink(log_path_.c_str());
  }
  committed_ = true;
}

std::shared_ptr<op_sink> data_session::sink() const { return log_; }

void data_session::absorb(const std::vector<node_summary>& nodes) {
  if (!log_)
    return;
  for (const auto& n : nodes) {
    if (n.ops.empty())
      continue;
    std::vector<op_record> ops;
    try {
      ops = decode_ops(n.ops);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(fmt::format("the op records of {} from another process: {}",
                                           n.name, e.what()));
    }
    for (auto& r : ops)
      log_->append(std::move(r));
  }
}

data_result data_session::finish(
  const std::vector<data_tensor>& tensors,
  const std::function<std::vector<double>(const std::string&)>& expected) {
  data_result d;
  if (!log_)
    return d;
  d.op_records = log_->finish();
  if (!request_.verify && request_.dump_dir.empty() && request_.op_digests.empty()) {
    commit_oplog();
    return d;
  }

  memory_image final_image = *initial_;
  final_image.materialize(); // inputs made when read: made once, before the workers
  replay_options ro;
  ro.workers = request_.phase2_workers;
  std::string digests;
  if (!request_.op_digests.empty())
    ro.after_each = [&digests](const op_record& r, const memory_image& m) {
      digests += digest_line(r, m);
    };
  d.phase2 = replay(log_path_, final_image, ro);
  d.replayed = true;
  commit_oplog(); // complete and replayed: it is the run's op log now
  if (!request_.op_digests.empty())
    write_file_atomically(request_.op_digests, "--op-digests file", digests);
  if (request_.verify)
    for (const data_tensor& t : tensors)
      if (t.output) {
        const gathered g(final_image, t);
        d.verdicts.push_back(verify(g.image, g.view, expected(t.name), t.name, t.tol));
      }
  if (!request_.dump_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(request_.dump_dir, ec);
    if (ec)
      throw std::runtime_error(fmt::format("--dump-tensors {}: cannot create it: {}",
                                           request_.dump_dir, ec.message()));
    for (const data_tensor& t : tensors) {
      const gathered g(t.output || t.scratch ? final_image : *initial_, t);
      write_npy((std::filesystem::path(request_.dump_dir) / (t.name + ".npy")).string(), g.image,
                g.view);
    }
  }
  return d;
}

} // namespace kb
