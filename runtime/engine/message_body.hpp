#pragma once
// An owned Cap'n Proto message carried by a sim_event. In one process it moves
// between actors without re-serialisation; copying (which the engine never
// does on its hot path) makes a deep copy, so no state is ever shared.

#include <capnp/message.h>

#include <memory>

namespace kb {

class message_body {
public:
  message_body() = default;
  explicit message_body(std::unique_ptr<capnp::MallocMessageBuilder> msg)
    : msg_(std::move(msg)) {}
  message_body(message_body&&) noexcept = default;
  message_body& operator=(message_body&&) noexcept = default;
  message_body(const message_body& other);
  message_body& operator=(const message_body& other);

  bool empty() const { return msg_ == nullptr; }
  capnp::MallocMessageBuilder& builder() { return *msg_; }
  const capnp::MallocMessageBuilder& builder() const { return *msg_; }

  /// Reads the root as `T` (a Cap'n Proto struct type).
  template <class T>
  typename T::Reader root() const {
    return const_cast<capnp::MallocMessageBuilder&>(*msg_).getRoot<T>().asReader();
  }
  template <class T>
  typename T::Builder root_builder() {
    return msg_->getRoot<T>();
  }

  /// Copies a struct reader into a fresh message (deserialisation path).
  static message_body copy_of(capnp::AnyStruct::Reader r);

private:
  std::unique_ptr<capnp::MallocMessageBuilder> msg_;
};

} // namespace kb
