// The handler the snapshot tests register before forking: a tiny command
// language over the fake table, run inside the snapshot process.
//
//   "count_max"     rows with a nonzero value in slots [0, rows): "<count> <max> <rows>"
//   "sum N STRIDE"  sum of slots 0, STRIDE, ..., (N-1)*STRIDE
//   "hang"          emits "started", then waits for Cancel
//   "work"          mallocs, starts a thread, joins it: "ok"
//   "fail"          throws DbError 22012
//   "throw"         throws std::runtime_error
//   "big N"         emits one batch of N bytes
//   "batches N"     emits N batches "0".."N-1"
//   "read ADDR"     reads an int64 at ADDR (hex)
//   "fd FD"         "open" or "closed"
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fake_txn_engine.h"
#include "snapshot/snapshot.h"
#include "storage/error.h"

namespace forktail::testing {

inline SnapshotHandler MakeTestHandler(FakeTable* table) {
  return [table](const SnapshotContext&, std::string_view request, BatchSink& sink) {
    const std::string req(request);
    auto arg = [&](size_t i) {
      size_t pos = 0;
      for (size_t k = 0; k < i; ++k) pos = req.find(' ', pos) + 1;
      return std::strtoull(req.c_str() + pos, nullptr, 0);
    };
    if (req == "count_max") {
      const size_t rows = table->rows;
      int64_t count = 0, max = 0;
      for (size_t i = 0; i < rows; ++i) {
        const int64_t v = table->at(i);
        if (v != 0) ++count;
        if (v > max) max = v;
      }
      sink.Emit(std::to_string(count) + " " + std::to_string(max) + " " + std::to_string(rows));
    } else if (req.starts_with("sum ")) {
      const size_t n = arg(1), stride = arg(2);
      int64_t sum = 0;
      for (size_t i = 0; i < n; ++i) sum += table->at(i * stride);
      sink.Emit(std::to_string(sum));
    } else if (req == "hang") {
      sink.Emit("started");
      while (!sink.Canceled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      sink.Emit("unreachable");  // throws 57014
    } else if (req == "work") {
      std::vector<std::string> v;
      for (int i = 0; i < 100; ++i) v.push_back(std::string(100 + i, 'x'));
      size_t total = 0;
      std::thread t([&] {
        for (const auto& s : v) total += s.size();
      });
      t.join();
      sink.Emit(total == 14950 ? "ok" : "bad");
    } else if (req == "fail") {
      throw DbError(sqlstate::kDivisionByZero, "division by zero");
    } else if (req == "throw") {
      throw std::runtime_error("something broke");
    } else if (req.starts_with("big ")) {
      sink.Emit(std::string(arg(1), 'b'));
    } else if (req.starts_with("batches ")) {
      for (size_t i = 0; i < arg(1); ++i) sink.Emit(std::to_string(i));
    } else if (req.starts_with("read ")) {
      const auto* p =
          reinterpret_cast<const volatile int64_t*>(std::strtoull(req.c_str() + 5, nullptr, 16));
      sink.Emit(std::to_string(*p));
    } else if (req.starts_with("fd ")) {
      sink.Emit(fcntl(static_cast<int>(arg(1)), F_GETFD) < 0 ? "closed" : "open");
    } else {
      throw DbError(sqlstate::kSyntaxError, "unknown test request \"" + req + "\"");
    }
  };
}

}  // namespace forktail::testing
