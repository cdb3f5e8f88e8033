// What an entry of a large encoding points to: a hash's or set's table (a Keyspace), a sorted
// set, a chunked list. The entry owns it. Freeing one can take long, so the Reclaimer takes it
// apart a slice at a time through this interface, whatever its type.
#pragma once

#include <cstddef>
#include <string_view>

namespace warden::storage {

class LargeValue {
 public:
  virtual ~LargeValue() = default;
  // Elements held (fields, members, list elements): what freeing it costs, roughly.
  virtual std::size_t element_count() const = 0;
  // Frees up to about `max_elements` elements; true once nothing is left.
  virtual bool ClearSome(std::size_t max_elements) = 0;
};

// The value bytes that make an entry point at `value`: the pointer itself, as a LargeValue*,
// which Entry::large() reads back. The view lives as long as `slot`: to the end of the full
// expression when a derived pointer was converted.
inline std::string_view LargePointerBytes(LargeValue* const& slot) {
  return {reinterpret_cast<const char*>(&slot), sizeof(slot)};
}

}  // namespace warden::storage
