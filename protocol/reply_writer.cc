#include "protocol/reply_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace warden::protocol {

void ReplyWriter::Header(char type, std::int64_t value) {
  char buf[24];
  buf[0] = type;
  char* end = std::to_chars(buf + 1, buf + sizeof(buf) - 2, value).ptr;
  *end++ = '\r';
  *end++ = '\n';
  out_->append(buf, static_cast<std::size_t>(end - buf));
}

void ReplyWriter::Status(std::string_view text) {
  out_->push_back('+');
  out_->append(text);
  out_->append("\r\n");
}

std::size_t ReplyWriter::BeginError() {
  out_->push_back('-');
  return out_->size();
}

void ReplyWriter::EndError(std::size_t mark, bool repeat) {
  for (std::size_t i = mark; i < out_->size(); ++i) {
    char& c = (*out_)[i];
    if (c == '\r' || c == '\n') c = ' ';
  }
  if (error_listener_ != nullptr) {
    error_listener_->OnErrorReply(std::string_view(*out_).substr(mark), repeat);
  }
  out_->append("\r\n");
}

void ReplyWriter::Error(std::string_view text) {
  const std::size_t mark = BeginError();
  out_->append(text);
  EndError(mark);
}

void ReplyWriter::RepeatedError(std::string_view text) {
  const std::size_t mark = BeginError();
  out_->append(text);
  EndError(mark, true);
}

void ReplyWriter::Error(std::initializer_list<std::string_view> parts) {
  const std::size_t mark = BeginError();
  for (std::string_view part : parts) out_->append(part);
  EndError(mark);
}

void ReplyWriter::Integer(std::int64_t value) {
  switch (value) {
    case 0:
      Raw(":0\r\n");
      return;
    case 1:
      Raw(":1\r\n");
      return;
    default:
      Header(':', value);
  }
}

void ReplyWriter::Bulk(std::string_view data) {
  Header('$', static_cast<std::int64_t>(data.size()));
  out_->append(data);
  out_->append("\r\n");
}

void ReplyWriter::BulkInteger(std::int64_t value) {
  char digits[24];
  const char* end = std::to_chars(digits, digits + sizeof(digits), value).ptr;
  Bulk(std::string_view(digits, static_cast<std::size_t>(end - digits)));
}

void ReplyWriter::Null() { Raw(protocol_ == 3 ? std::string_view("_\r\n") : "$-1\r\n"); }

void ReplyWriter::NullArray() { Raw(protocol_ == 3 ? std::string_view("_\r\n") : "*-1\r\n"); }

void ReplyWriter::ArrayHeader(std::size_t count) { Header('*', static_cast<std::int64_t>(count)); }

void ReplyWriter::InsertHeader(std::size_t mark, char type, std::size_t count) {
  char buf[24];
  buf[0] = type;
  char* end = std::to_chars(buf + 1, buf + sizeof(buf) - 2, count).ptr;
  *end++ = '\r';
  *end++ = '\n';
  out_->insert(mark, buf, static_cast<std::size_t>(end - buf));
}

void ReplyWriter::MapHeader(std::size_t pairs) {
  if (protocol_ == 3) {
    Header('%', static_cast<std::int64_t>(pairs));
  } else {
    Header('*', static_cast<std::int64_t>(pairs * 2));
  }
}

void ReplyWriter::SetHeader(std::size_t count) {
  Header(protocol_ == 3 ? '~' : '*', static_cast<std::int64_t>(count));
}

void ReplyWriter::Boolean(bool value) {
  if (protocol_ == 3) {
    Raw(value ? "#t\r\n" : "#f\r\n");
  } else {
    Raw(value ? ":1\r\n" : ":0\r\n");
  }
}

std::size_t FormatDouble(double value, char* buf) {
  if (std::isinf(value)) {
    const char* text = value > 0 ? "inf" : "-inf";
    const std::size_t len = value > 0 ? 3 : 4;
    for (std::size_t i = 0; i < len; ++i) buf[i] = text[i];
    return len;
  }
  if (std::isnan(value)) {
    buf[0] = 'n';
    buf[1] = 'a';
    buf[2] = 'n';
    return 3;
  }
  // An integral value below 2^53 (a timestamp, a counter) is what %.17g prints it as: its
  // digits, with no point or exponent (-0.0 excepted, which %.17g prints "-0").
  if (value == std::trunc(value) && std::fabs(value) < 9007199254740992.0 &&
      !(value == 0 && std::signbit(value))) {
    const auto result = std::to_chars(buf, buf + 32, static_cast<std::int64_t>(value));
    return static_cast<std::size_t>(result.ptr - buf);
  }
  // The same bytes as snprintf's %.17g (the standard defines to_chars' general form by it),
  // at a fraction of the cost: scores are in every sorted set reply.
  const auto result = std::to_chars(buf, buf + 32, value, std::chars_format::general, 17);
  return static_cast<std::size_t>(result.ptr - buf);
}

void ReplyWriter::Double(double value) {
  char buf[40];
  const std::size_t len = FormatDouble(value, buf);
  if (protocol_ == 3) {
    out_->push_back(',');
    out_->append(buf, len);
    out_->append("\r\n");
  } else {
    Bulk(std::string_view(buf, len));
  }
}

void ReplyWriter::Verbatim(std::string_view text) {
  if (protocol_ == 3) {
    Header('=', static_cast<std::int64_t>(text.size() + 4));
    out_->append("txt:");
    out_->append(text);
    out_->append("\r\n");
  } else {
    Bulk(text);
  }
}

void ReplyWriter::BigNumber(std::string_view digits) {
  if (protocol_ == 3) {
    out_->push_back('(');
    out_->append(digits);
    out_->append("\r\n");
  } else {
    Bulk(digits);
  }
}

}  // namespace warden::protocol
