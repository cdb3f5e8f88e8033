// A growable byte buffer with a consumed prefix: bytes are appended at the end and consumed from
// the front, and the space is reused without zero-filling (unlike std::string::resize).
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace warden::server {

class IoBuffer {
 public:
  std::string_view unread() const { return {data_.get() + start_, end_ - start_}; }
  std::size_t unread_size() const { return end_ - start_; }
  std::size_t capacity() const { return capacity_; }
  std::size_t free_space() const { return capacity_ - end_; }

  // Makes room for at least `n` more bytes at the end; returns where they go.
  char* Reserve(std::size_t n) {
    if (capacity_ - end_ >= n) return data_.get() + end_;
    Compact();
    if (capacity_ - end_ < n) {
      std::size_t capacity = capacity_ == 0 ? 16 * 1024 : capacity_;
      while (capacity - end_ < n) capacity *= 2;
      std::unique_ptr<char[]> bigger(new char[capacity]);
      if (end_ > 0) std::memcpy(bigger.get(), data_.get(), end_);
      data_ = std::move(bigger);
      capacity_ = capacity;
    }
    return data_.get() + end_;
  }
  void Commit(std::size_t n) { end_ += n; }
  void Consume(std::size_t n) {
    start_ += n;
    if (start_ == end_) start_ = end_ = 0;
  }
  // Moves unread bytes to the front.
  void Compact() {
    if (start_ == 0) return;
    std::memmove(data_.get(), data_.get() + start_, end_ - start_);
    end_ -= start_;
    start_ = 0;
  }
  // Gives back a large buffer once it is empty, so one big request does not pin memory.
  void ShrinkIfIdle(std::size_t keep) {
    if (start_ == end_ && capacity_ > keep) {
      data_.reset();
      capacity_ = start_ = end_ = 0;
    }
  }

 private:
  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;
  std::size_t start_ = 0;
  std::size_t end_ = 0;
};

}  // namespace warden::server
