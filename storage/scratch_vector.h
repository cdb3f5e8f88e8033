// A vector borrowed from a per-thread free list for the length of a call, so code that needs a
// temporary array on every command (a stream walk's entry offsets, XREAD's ids) allocates only
// until the list's vectors have grown. Borrowing nests: each borrower gets its own vector.
#pragma once

#include <utility>
#include <vector>

namespace warden::storage {

template <typename T>
class ScratchVector {
 public:
  ScratchVector() {
    std::vector<std::vector<T>>& pool = Pool();
    if (!pool.empty()) {
      v_ = std::move(pool.back());
      pool.pop_back();
    }
  }
  ~ScratchVector() {
    v_.clear();
    Pool().push_back(std::move(v_));
  }
  ScratchVector(const ScratchVector&) = delete;
  ScratchVector& operator=(const ScratchVector&) = delete;

  std::vector<T>& operator*() { return v_; }
  std::vector<T>* operator->() { return &v_; }
  const std::vector<T>& operator*() const { return v_; }
  const std::vector<T>* operator->() const { return &v_; }

 private:
  static std::vector<std::vector<T>>& Pool() {
    static thread_local std::vector<std::vector<T>> pool;
    return pool;
  }
  std::vector<T> v_;
};

}  // namespace warden::storage
