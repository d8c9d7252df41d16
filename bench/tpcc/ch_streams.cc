#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tpcc.h"

namespace tpcc {

std::vector<ChQuery> read_ch_queries(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<ChQuery> queries;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("-- q", 0) == 0) {
      std::istringstream name(line.substr(3));
      queries.push_back({});
      name >> queries.back().name;
    } else if (!queries.empty() && line.rfind("--", 0) != 0) {
      queries.back().sql += line + "\n";
    }
  }
  return queries;
}

}  // namespace tpcc
