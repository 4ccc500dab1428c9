#include "runtime/config/components_json.hpp"

#include "runtime/io/json_writer.hpp"

namespace kb {

std::string components_json(const kind_catalog& kinds, const impl_registry& impls) {
  json_writer j;
  j.begin_object().field("schema_version", uint64_t{1});
  j.key("kinds").begin_array();
  for (const kind_doc* k : kinds.all_sorted()) {
    j.begin_object().field("kind", k->kind).field("summary", k->summary);
    j.key("impls").begin_array();
    for (const impl_entry* e : impls.of_kind(k->kind))
      j.begin_object().field("impl", e->impl).field("description", e->description).end_object();
    j.end_array().key("keys").begin_array();
    for (const param_doc& p : k->params) {
      j.begin_object().field("name", p.name).field("type", p.type).key("default");
      if (p.default_value.empty())
        j.null_value();
      else
        j.value(p.default_value);
      j.field("doc", p.doc).end_object();
    }
    j.end_array().end_object();
  }
  j.end_array().key("undocumented_impls").begin_array();
  for (const impl_entry* e : impls.all_sorted())
    if (kinds.find(e->kind) == nullptr)
      j.begin_object().field("impl", e->impl).field("kind", e->kind).end_object();
  j.end_array().end_object();
  return j.str() + "\n";
}

} // namespace kb
