#include "runtime/config/components_json.hpp"

#include "runtime/io/json_writer.hpp"

namespace kb {

std::string components_json(const impl_catalog& impls) {
  json_writer j;
  j.begin_object().field("schema_version", uint64_t{2});
  j.key("kinds").begin_array();
  for (const std::string& kind : impls.kinds()) {
    j.begin_object().field("kind", kind);
    j.key("impls").begin_array();
    for (const impl_doc* d : impls.of_kind(kind)) {
      j.begin_object().field("impl", d->impl).field("description", d->description);
      j.key("keys").begin_array();
      for (const param_doc& p : d->params) {
        j.begin_object().field("name", p.name).field("type", p.type).key("default");
        if (p.default_value.empty())
          j.null_value();
        else
          j.value(p.default_value);
        j.field("doc", p.doc).end_object();
      }
      j.end_array().key("ports").begin_array();
      for (const port_doc& p : d->ports)
        j.begin_object().field("name", p.name).field("to", p.to).end_object();
      j.end_array().key("statistics").begin_array();
      for (const stat_doc& s : d->stats)
        j.begin_object().field("name", s.name).field("unit", s.unit).field("doc", s.doc).end_object();
      j.end_array().end_object();
    }
    j.end_array().end_object();
  }
  j.end_array().end_object();
  return j.str() + "\n";
}

} // namespace kb
