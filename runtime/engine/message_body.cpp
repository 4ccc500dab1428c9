#include "runtime/engine/message_body.hpp"

namespace kb {

message_body::message_body(const message_body& other) {
  if (!other.empty())
    *this = copy_of(const_cast<capnp::MallocMessageBuilder&>(*other.msg_)
                      .getRoot<capnp::AnyStruct>()
                      .asReader());
}

message_body& message_body::operator=(const message_body& other) {
  if (this != &other)
    *this = message_body{other};
  return *this;
}

message_body message_body::copy_of(capnp::AnyStruct::Reader r) {
  auto msg = std::make_unique<capnp::MallocMessageBuilder>();
  msg->setRoot(r);
  return message_body{std::move(msg)};
}

} // namespace kb
