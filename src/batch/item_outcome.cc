#include "batch/item_outcome.h"

#include <utility>

#include <fmt/format.h>

namespace pcglab {

ItemOutcome ItemOutcome::success(std::string key, OrderedJson metadata) {
  return {std::move(key), ItemStatus::kOk, ErrorKind::kNone, "", std::move(metadata), 0};
}

ItemOutcome ItemOutcome::failure(std::string key, ErrorKind kind, std::string message, OrderedJson metadata) {
  return {std::move(key), ItemStatus::kError, kind, std::move(message), std::move(metadata), 0};
}

ItemOutcome ItemOutcome::from_error(std::string key, const ItemError& error, ErrorKind kind) {
  return failure(std::move(key), error.internal ? ErrorKind::kInternal : kind, error.describe());
}

OrderedJson ItemOutcome::to_json() const {
  OrderedJson j{{"key", key}, {"status", status_name(status)}};
  if (status == ItemStatus::kError) {
    j["kind"] = error_kind_name(kind);
    j["message"] = message;
  }
  if (requests != 0) j["requests"] = requests;
  j["metadata"] = metadata.is_null() ? OrderedJson::object() : metadata;
  return j;
}

OrderedJson ItemOutcome::to_stored_json() const {
  OrderedJson j = to_json();
  j["seconds"] = seconds;
  return j;
}

ItemOutcome ItemOutcome::from_json(const Json& j) {
  const std::string where = "item outcome";
  ItemOutcome o;
  o.key = json_field<std::string>(j, "key", where);
  const auto status = parse_item_status(json_field<std::string>(j, "status", where));
  if (!status) throw InputError(fmt::format("{} {}: unknown status", where, o.key));
  o.status = *status;
  if (o.status == ItemStatus::kError) {
    const auto kind = parse_error_kind(json_field_or<std::string>(j, "kind", "bad-input", where));
    if (!kind) throw InputError(fmt::format("{} {}: unknown error kind", where, o.key));
    o.kind = *kind;
    o.message = json_field_or<std::string>(j, "message", "", where);
  }
  o.requests = json_field_or<int>(j, "requests", 0, where);
  if (o.requests < 0) throw InputError(fmt::format("{} {}: negative request count", where, o.key));
  o.seconds = json_field_or<double>(j, "seconds", 0.0, where);
  if (j.contains("metadata") && j["metadata"].is_object())
    o.metadata = OrderedJson::parse(j["metadata"].dump());
  return o;
}

ItemOutcome ItemOutcome::from_json(const OrderedJson& j) {
  Json fields = Json::object();
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != "metadata") fields[it.key()] = Json::parse(it.value().dump());
  }
  ItemOutcome o = from_json(fields);
  if (j.is_object() && j.contains("metadata") && j["metadata"].is_object()) o.metadata = j["metadata"];
  return o;
}

}  // namespace pcglab
