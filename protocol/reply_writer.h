// Appends RESP replies to a caller-owned byte buffer.
//
// The writer never owns memory: it appends to the std::string it is given, whose capacity the
// caller keeps from one command to the next, so common replies cost no heap allocation. The
// protocol version (2 or 3) decides how null, maps, booleans, doubles and verbatim text are
// encoded; everything else is the same in both.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace warden::protocol {

// Told of every error reply once it is complete (the server's error statistics). `text` is the
// error after "-", without CRLF, and is valid only during the call. `repeat` marks an error
// passed on from an earlier reply (a script failing with its redis.call's error).
class ErrorListener {
 public:
  virtual void OnErrorReply(std::string_view text, bool repeat) = 0;

 protected:
  ~ErrorListener() = default;
};

class ReplyWriter {
 public:
  explicit ReplyWriter(std::string* out, int protocol = 2) : out_(out), protocol_(protocol) {}

  int protocol() const { return protocol_; }
  void set_protocol(int protocol) { protocol_ = protocol; }
  std::string* buffer() const { return out_; }
  void set_buffer(std::string* out) { out_ = out; }
  // Null (the default) tells no one; errors cost one extra branch, other replies nothing.
  ErrorListener* error_listener() const { return error_listener_; }
  void set_error_listener(ErrorListener* listener) { error_listener_ = listener; }

  void Ok() { Raw("+OK\r\n"); }
  // Status text must not contain CR or LF.
  void Status(std::string_view text);
  // `text` is the whole error after "-", code included ("ERR syntax error"). CR and LF in it
  // become spaces, as Redis does in addReplyErrorLength.
  void Error(std::string_view text);
  // An error assembled from pieces: Error({"ERR unknown command '", name, "'"}).
  void Error(std::initializer_list<std::string_view> parts);
  // For errors built piece by piece with Raw(): BeginError() returns a mark to pass to EndError().
  std::size_t BeginError();
  void EndError(std::size_t mark, bool repeat = false);
  // An error reply passed on from another reply, already counted there.
  void RepeatedError(std::string_view text);
  void Integer(std::int64_t value);
  void Bulk(std::string_view data);
  void BulkInteger(std::int64_t value);
  void Null();       // $-1 in RESP2, _ in RESP3
  void NullArray();  // *-1 in RESP2, _ in RESP3
  void ArrayHeader(std::size_t count);
  void MapHeader(std::size_t pairs);  // flat array of 2n in RESP2
  void SetHeader(std::size_t count);  // array in RESP2
  void Boolean(bool value);           // :1/:0 in RESP2
  // A double formatted as Redis does (%.17g, inf/-inf/nan); bulk in RESP2.
  void Double(double value);
  // Free text (INFO, CLIENT LIST): bulk in RESP2, verbatim "txt" in RESP3.
  void Verbatim(std::string_view text);
  void BigNumber(std::string_view digits);  // bulk in RESP2

  // Appends pre-encoded RESP.
  void Raw(std::string_view bytes) { out_->append(bytes); }

  // An array whose length is known only once its elements are written (Redis's deferred
  // length): DeferredMark() before the elements, then InsertArrayHeader(mark, n) after them.
  std::size_t DeferredMark() const { return out_->size(); }
  void InsertArrayHeader(std::size_t mark, std::size_t count) { InsertHeader(mark, '*', count); }
  void InsertRawAt(std::size_t mark, std::string_view bytes) { out_->insert(mark, bytes); }
  void InsertMapHeader(std::size_t mark, std::size_t pairs) {
    InsertHeader(mark, protocol_ == 3 ? '%' : '*', protocol_ == 3 ? pairs : pairs * 2);
  }

 private:
  void Header(char type, std::int64_t value);
  void InsertHeader(std::size_t mark, char type, std::size_t count);

  std::string* out_;
  int protocol_;
  ErrorListener* error_listener_ = nullptr;
};

// Formats a double like Redis's %.17g-based conversion into `buf` (at least 32 bytes); returns
// the length.
std::size_t FormatDouble(double value, char* buf);

}  // namespace warden::protocol
