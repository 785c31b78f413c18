#include "sandbox/value.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::sandbox {

size_t dtype_itemsize(std::string_view dtype) {
  for (auto d : kArrayDtypes)
    if (d == dtype) return static_cast<size_t>(d[2] - '0');
  return 0;
}

size_t NdArray::element_count() const {
  size_t n = 1;
  for (int64_t s : shape) n *= static_cast<size_t>(s);
  return n;
}

template <class T>
std::vector<T> array_values(const NdArray& a) {
  PCGLAB_CHECK(a.dtype == dtype_of<T>()) << "array of dtype " << a.dtype << " read as " << dtype_of<T>();
  PCGLAB_CHECK(a.data.size() == a.element_count() * sizeof(T)) << "array data does not match its shape";
  std::vector<T> out(a.element_count());
  if (!out.empty()) std::memcpy(static_cast<void*>(out.data()), a.data.data(), a.data.size());
  return out;
}

template std::vector<int8_t> array_values<int8_t>(const NdArray&);
template std::vector<uint8_t> array_values<uint8_t>(const NdArray&);
template std::vector<int16_t> array_values<int16_t>(const NdArray&);
template std::vector<uint16_t> array_values<uint16_t>(const NdArray&);
template std::vector<int32_t> array_values<int32_t>(const NdArray&);
template std::vector<uint32_t> array_values<uint32_t>(const NdArray&);
template std::vector<int64_t> array_values<int64_t>(const NdArray&);
template std::vector<uint64_t> array_values<uint64_t>(const NdArray&);
template std::vector<float> array_values<float>(const NdArray&);
template std::vector<double> array_values<double>(const NdArray&);

namespace {
const char* const kTypeNames[] = {"None", "bool", "int", "float", "str", "list", "dict", "ndarray"};

template <class T>
OrderedJson element_json(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(v)) return nullptr;
  }
  return v;
}

OrderedJson element_json(std::string_view dtype, const char* p) {
  switch (dtype[1]) {
    case 'b': return *p != 0;
    case 'i':
      switch (dtype[2]) {
        case '1': return element_json<int8_t>(p);
        case '2': return element_json<int16_t>(p);
        case '4': return element_json<int32_t>(p);
        default: return element_json<int64_t>(p);
      }
    case 'u':
      switch (dtype[2]) {
        case '1': return element_json<uint8_t>(p);
        case '2': return element_json<uint16_t>(p);
        case '4': return element_json<uint32_t>(p);
        default: return element_json<uint64_t>(p);
      }
    default: return dtype[2] == '4' ? element_json<float>(p) : element_json<double>(p);
  }
}

// Nested lists of the elements from dimension `dim` on, starting at element `*index`.
OrderedJson nested_json(std::string_view dtype, const std::vector<int64_t>& shape, const char* data,
                        size_t dim, size_t* index, size_t itemsize) {
  if (dim == shape.size()) return element_json(dtype, data + (*index)++ * itemsize);
  OrderedJson list = OrderedJson::array();
  for (int64_t k = 0; k < shape[dim]; ++k)
    list.push_back(nested_json(dtype, shape, data, dim + 1, index, itemsize));
  return list;
}
}  // namespace

OrderedJson array_json(std::string_view dtype, const std::vector<int64_t>& shape, std::string_view data) {
  size_t count = 1;
  for (int64_t s : shape) count *= static_cast<size_t>(s);
  size_t index = 0;
  const size_t itemsize = dtype_itemsize(dtype);
  OrderedJson out = OrderedJson::object();
  out["dtype"] = dtype;
  out["shape"] = shape;
  out["data"] = itemsize == 0 || data.size() != count * itemsize
                    ? OrderedJson(nullptr)
                    : nested_json(dtype, shape, data.data(), 0, &index, itemsize);
  return out;
}

const char* Value::type_name() const {
  return kTypeNames[v_.index()];
}

template <class T>
const T& Value::as() const {
  const T* p = std::get_if<T>(&v_);
  PCGLAB_CHECK(p != nullptr) << "sandbox value is a " << type_name() << ", not a "
                             << kTypeNames[Storage(T{}).index()];
  return *p;
}
template const bool& Value::as<bool>() const;
template const int64_t& Value::as<int64_t>() const;
template const double& Value::as<double>() const;
template const std::string& Value::as<std::string>() const;
template const List& Value::as<List>() const;
template const Dict& Value::as<Dict>() const;
template const NdArray& Value::as<NdArray>() const;

OrderedJson to_json(const Value& value) {
  return std::visit(
      [](const auto& v) -> OrderedJson {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, double>) {
          return std::isfinite(v) ? OrderedJson(v) : OrderedJson(nullptr);
        } else if constexpr (std::is_same_v<T, List>) {
          OrderedJson out = OrderedJson::array();
          for (const auto& x : v) out.push_back(to_json(x));
          return out;
        } else if constexpr (std::is_same_v<T, Dict>) {
          OrderedJson out = OrderedJson::object();
          for (const auto& [k, x] : v) out[k] = to_json(x);
          return out;
        } else if constexpr (std::is_same_v<T, NdArray>) {
          return array_json(v.dtype, v.shape, v.data);
        } else {
          return v;
        }
      },
      value.storage());
}

Value from_json(const Json& json) {
  return from_json(json, kMaxValueDepth);
}

Value from_json(const Json& json, int max_depth) {
  if (max_depth < 0)
    throw InputError(
        fmt::format("a value nested more than {} levels deep (the sandbox protocol carries at most {})",
                    kMaxValueDepth, kMaxValueDepth));
  switch (json.type()) {
    case Json::value_t::null: return Value();
    case Json::value_t::boolean: return Value(json.get<bool>());
    case Json::value_t::number_integer: return Value(json.get<int64_t>());
    case Json::value_t::number_unsigned: {
      const uint64_t u = json.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        throw InputError(fmt::format("integer {} does not fit in 64 bits", u));
      return Value(static_cast<int64_t>(u));
    }
    case Json::value_t::number_float: return Value(json.get<double>());
    case Json::value_t::string: return Value(json.get<std::string>());
    case Json::value_t::array: {
      List out;
      for (const auto& x : json) out.push_back(from_json(x, max_depth - 1));
      return Value(std::move(out));
    }
    case Json::value_t::object: {
      Dict out;
      for (const auto& [k, x] : json.items()) out.emplace_back(k, from_json(x, max_depth - 1));
      return Value(std::move(out));
    }
    default: throw InputError(fmt::format("JSON {} values cannot be passed to Python", json.type_name()));
  }
}

}  // namespace pcglab::sandbox
