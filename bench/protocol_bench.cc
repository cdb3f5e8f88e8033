// The request parser and the reply writer.
#include <benchmark/benchmark.h>

#include <string>

#include "protocol/reply_writer.h"
#include "protocol/request_parser.h"

namespace {

using warden::protocol::ParseStatus;
using warden::protocol::ReplyWriter;
using warden::protocol::RequestParser;

// 16 pipelined lock acquisitions, as one read delivers them.
std::string PipelinedSets() {
  std::string batch;
  for (int i = 0; i < 16; ++i) {
    const std::string key = "lock:order:" + std::to_string(100000 + i);
    batch += "*6\r\n$3\r\nSET\r\n$" + std::to_string(key.size()) + "\r\n" + key +
             "\r\n$36\r\n0123456789abcdef0123456789abcdef0123\r\n$2\r\nNX\r\n$2\r\nPX\r\n$5\r\n"
             "30000\r\n";
  }
  return batch;
}

void BM_RequestParserSet(benchmark::State& state) {
  const std::string batch = PipelinedSets();
  RequestParser parser;
  for (auto _ : state) {
    std::string_view data = batch;
    while (!data.empty()) {
      const ParseStatus status = parser.Parse(data, true);
      benchmark::DoNotOptimize(parser.args().data());
      data.remove_prefix(parser.consumed());
      parser.Reset();
      if (status != ParseStatus::kRequest) break;
    }
  }
  state.SetItemsProcessed(state.iterations() * 16);
}
BENCHMARK(BM_RequestParserSet);

void BM_RequestParserInline(benchmark::State& state) {
  const std::string line = "SET lock:order:1001 token-abc123 NX PX 30000\r\n";
  RequestParser parser;
  for (auto _ : state) {
    parser.Parse(line, true);
    benchmark::DoNotOptimize(parser.args().data());
    parser.Reset();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RequestParserInline);

void BM_ReplyWriterMixed(benchmark::State& state) {
  std::string out;
  out.reserve(4096);
  for (auto _ : state) {
    out.clear();
    ReplyWriter writer(&out);
    writer.Ok();
    writer.Null();
    writer.Integer(29999);
    writer.Bulk("0123456789abcdef0123456789abcdef0123");
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * 4);
}
BENCHMARK(BM_ReplyWriterMixed);

}  // namespace
