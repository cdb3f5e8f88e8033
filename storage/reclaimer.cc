#include "storage/reclaimer.h"

namespace warden::storage {

void Reclaimer::Defer(std::unique_ptr<LargeValue> value) {
  if (value->element_count() < kDeferAbove) return;  // freed here, by the destructor
  queue_.push_back(std::move(value));
}

bool Reclaimer::Step(std::size_t max_entries) {
  // Freeing a table may defer the large values it held: they join the end of the queue.
  while (!queue_.empty() && max_entries > 0) {
    std::unique_ptr<LargeValue> value = std::move(queue_.front());
    queue_.pop_front();
    const std::size_t before = value->element_count();
    if (!value->ClearSome(max_entries)) {
      queue_.push_front(std::move(value));
      return true;
    }
    ++freed_;
    max_entries = before >= max_entries ? 0 : max_entries - before;
  }
  return !queue_.empty();
}

void Reclaimer::Drain() {
  while (Step(1u << 20)) {
  }
}

}  // namespace warden::storage
