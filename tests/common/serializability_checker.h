// Serializability checker for recorded "list-append" histories, after Jepsen's Elle
// (Kingsbury & Alvaro, VLDB 2020).
//
// Model: each int64 key holds a list of int64 elements; transactions append elements (unique
// across the history) and read whole lists. Appends never overwrite and no element repeats, so
// a read shows every write that made the list, in order: each key's version order is observable
// (the longest list read; every other read must be a prefix of it), and each read names the
// version it saw. The dependencies between transactions then follow without guessing:
//   ww  T1 -> T2  T2 appended the element right after T1's in the key's order;
//   wr  T1 -> T2  T2 read a list whose last element T1 appended;
//   rw  T1 -> T2  T1 read n elements and T2 appended element n (an anti-dependency).
// A cycle means no serial order fits; it is named as Adya does: G0 (ww only), G1c (ww and wr),
// G2 (some rw). Anomalies that need no cycle are checked first: garbage reads, reads of aborted
// (G1a) or intermediate (G1b) state, duplicates, incompatible orders, and reads that disagree
// with the transaction's own earlier operations (internal).
//
// Outcomes: a committed txn's appends and reads count. An aborted txn's appends must never be
// read. A txn of unknown outcome (committed = false, unknown = true) may have taken effect: its
// appends that were read make it a writer in the graph. Neither's reads are checked.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace forktail::testing {

struct Op {
  enum Kind { kAppend, kRead };
  Kind kind = kRead;
  int64_t key = 0;
  int64_t element = 0;            // kAppend: the element appended.
  std::vector<int64_t> observed;  // kRead: the whole list, with this txn's own earlier appends.

  static Op Append(int64_t key, int64_t element) { return Op{kAppend, key, element, {}}; }
  static Op Read(int64_t key, std::vector<int64_t> observed) {
    return Op{kRead, key, 0, std::move(observed)};
  }
};

struct Txn {
  uint64_t id = 0;
  bool committed = false;
  std::vector<Op> ops;
  bool unknown = false;  // Only meaningful with committed = false: the outcome is unknown.
};

struct CheckResult {
  bool ok = true;
  // Empty when ok, else "<kind>: <details>", kind one of: G0, G1a, G1b, G1c, G2,
  // garbage read, duplicate element, duplicate append, internal, incompatible order.
  // Cycles read "G2: T3 -ww(k=5)-> T7 -rw(k=2)-> T3", then one line per transaction.
  std::string anomaly;
};

// "[1, 2, 3]"; lists longer than `window` elements show only the `window` elements ending
// at `end` (default: the end of the list), e.g. "[12 earlier..., 13, 14, ...3 later]".
inline std::string FormatList(const std::vector<int64_t>& list, size_t end = SIZE_MAX,
                              size_t window = 8) {
  end = std::min(end, list.size());
  const size_t begin = end > window ? end - window : 0;
  std::string out = "[";
  if (begin > 0) out += std::to_string(begin) + " earlier...";
  for (size_t i = begin; i < end; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(list[i]);
  }
  if (end < list.size()) {
    out += (end > 0 ? ", ..." : "...") + std::to_string(list.size() - end) + " later";
  }
  return out + "]";
}

// "T7 (committed): a(5,12) r(2)=[1, 3]".
inline std::string FormatTxn(const Txn& txn) {
  std::string out = "T" + std::to_string(txn.id) +
                    (txn.committed ? " (committed):"
                     : txn.unknown ? " (unknown):"
                                   : " (aborted):");
  for (const Op& op : txn.ops) {
    if (op.kind == Op::kAppend) {
      out += " a(" + std::to_string(op.key) + "," + std::to_string(op.element) + ")";
    } else {
      out += " r(" + std::to_string(op.key) + ")=" + FormatList(op.observed);
    }
  }
  return out;
}

// One transaction a line, at most `max_txns` of them.
inline std::string FormatHistory(const std::vector<Txn>& history, size_t max_txns = 50) {
  std::string out;
  for (size_t i = 0; i < history.size() && i < max_txns; ++i) out += FormatTxn(history[i]) + "\n";
  if (history.size() > max_txns) {
    out += "... " + std::to_string(history.size() - max_txns) + " more transactions\n";
  }
  return out;
}

namespace list_append_internal {

// Dependency kinds, as bits so that a search can take a set of them.
enum DepKind : uint8_t { kWW = 1, kWR = 2, kRW = 4 };

inline const char* DepName(DepKind kind) { return kind == kWW ? "ww" : kind == kWR ? "wr" : "rw"; }

struct Dep {
  uint32_t to;  // Index into the history.
  DepKind kind;
  int64_t key;
};

// Adjacency lists in one array: node n's deps are deps[begin[n], begin[n + 1]).
struct DepGraph {
  std::vector<uint32_t> begin;
  std::vector<Dep> deps;

  uint32_t NumNodes() const { return static_cast<uint32_t>(begin.size() - 1); }
};

inline DepGraph BuildGraph(size_t num_nodes, std::vector<std::pair<uint32_t, Dep>> edges) {
  // Sorted so that the graph, and so the cycle reported, does not depend on hash order, and so
  // that a search meets a pair's ww before its wr before its rw.
  std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second.kind, a.second.to, a.second.key) <
           std::tie(b.first, b.second.kind, b.second.to, b.second.key);
  });
  DepGraph graph;
  graph.begin.assign(num_nodes + 1, 0);
  graph.deps.reserve(edges.size());
  for (const auto& [from, dep] : edges) {
    ++graph.begin[from + 1];
    graph.deps.push_back(dep);
  }
  for (size_t n = 0; n < num_nodes; ++n) graph.begin[n + 1] += graph.begin[n];
  return graph;
}

// The nodes of one strongly connected component of more than one node in the graph of the
// deps whose kind is in `mask`, or nothing if that graph is acyclic (there are no self-deps).
// Tarjan's algorithm with an explicit stack of frames instead of recursion.
inline std::vector<uint32_t> FindCyclicComponent(const DepGraph& graph, uint8_t mask) {
  constexpr uint32_t kUnvisited = std::numeric_limits<uint32_t>::max();
  const uint32_t n = graph.NumNodes();
  std::vector<uint32_t> index(n, kUnvisited), low(n);
  std::vector<bool> on_stack(n, false);
  std::vector<uint32_t> stack;
  struct Frame {
    uint32_t node;
    uint32_t next_dep;
  };
  std::vector<Frame> frames;
  uint32_t counter = 0;
  auto visit = [&](uint32_t node) {
    index[node] = low[node] = counter++;
    stack.push_back(node);
    on_stack[node] = true;
    frames.push_back({node, graph.begin[node]});
  };
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] != kUnvisited) continue;
    visit(root);
    while (!frames.empty()) {
      const uint32_t u = frames.back().node;
      if (frames.back().next_dep < graph.begin[u + 1]) {
        const Dep& dep = graph.deps[frames.back().next_dep++];
        if ((dep.kind & mask) == 0) continue;
        if (index[dep.to] == kUnvisited) {
          visit(dep.to);
        } else if (on_stack[dep.to]) {
          low[u] = std::min(low[u], index[dep.to]);
        }
        continue;
      }
      frames.pop_back();  // All of u's deps seen.
      if (!frames.empty()) {
        const uint32_t parent = frames.back().node;
        low[parent] = std::min(low[parent], low[u]);
      }
      if (low[u] != index[u]) continue;  // u is not the root of its component.
      std::vector<uint32_t> component;
      uint32_t v;
      do {
        v = stack.back();
        stack.pop_back();
        on_stack[v] = false;
        component.push_back(v);
      } while (v != u);
      if (component.size() > 1) return component;
    }
  }
  return {};
}

struct Step {
  uint32_t from;
  Dep dep;
};

// A shortest cycle, over deps whose kind is in `mask`, through the first node of a strongly
// connected component of that graph (breadth-first search inside the component).
inline std::vector<Step> ShortestCycle(const DepGraph& graph, uint8_t mask,
                                       const std::vector<uint32_t>& component) {
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  const uint32_t n = graph.NumNodes();
  std::vector<bool> in_component(n, false);
  for (uint32_t node : component) in_component[node] = true;
  std::vector<uint32_t> parent(n, kNone), via(n, kNone);  // How BFS reached each node.
  const uint32_t start = component.front();
  std::vector<uint32_t> queue = {start};
  parent[start] = start;
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t u = queue[head];
    for (uint32_t i = graph.begin[u]; i < graph.begin[u + 1]; ++i) {
      const Dep& dep = graph.deps[i];
      if ((dep.kind & mask) == 0 || !in_component[dep.to]) continue;
      if (dep.to == start) {
        std::vector<Step> cycle = {{u, dep}};
        for (uint32_t v = u; v != start; v = parent[v]) {
          cycle.push_back({parent[v], graph.deps[via[v]]});
        }
        std::reverse(cycle.begin(), cycle.end());
        return cycle;
      }
      if (parent[dep.to] != kNone) continue;
      parent[dep.to] = u;
      via[dep.to] = i;
      queue.push_back(dep.to);
    }
  }
  return {};  // Unreachable for a strongly connected component.
}

// "T3 -ww(k=5)-> T7 -rw(k=2)-> T3", starting at the smallest id, long cycles elided in the
// middle; then each transaction of the cycle (a few of them) on its own line.
inline std::string FormatCycle(const std::vector<Txn>& history, std::vector<Step> cycle) {
  auto by_id = [&](const Step& a, const Step& b) {
    return history[a.from].id < history[b.from].id;
  };
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end(), by_id), cycle.end());
  constexpr size_t kShownSteps = 8;  // At each end.
  constexpr size_t kShownTxns = 8;
  std::string out = "T" + std::to_string(history[cycle.front().from].id);
  for (size_t i = 0; i < cycle.size(); ++i) {
    if (cycle.size() > 2 * kShownSteps && i == kShownSteps) {
      out += " ...(" + std::to_string(cycle.size() - 2 * kShownSteps) + " more steps)... T" +
             std::to_string(history[cycle[cycle.size() - kShownSteps].from].id);
      i = cycle.size() - kShownSteps;
    }
    const Dep& dep = cycle[i].dep;
    out += std::string(" -") + DepName(dep.kind) + "(k=" + std::to_string(dep.key) + ")-> T" +
           std::to_string(history[dep.to].id);
  }
  for (size_t i = 0; i < cycle.size() && i < kShownTxns; ++i) {
    out += "\n  " + FormatTxn(history[cycle[i].from]);
  }
  if (cycle.size() > kShownTxns) out += "\n  ...";
  return out;
}

inline CheckResult Fail(const std::string& kind, const std::string& details) {
  return CheckResult{false, kind + ": " + details};
}

}  // namespace list_append_internal

inline CheckResult CheckListAppend(const std::vector<Txn>& history) {
  using namespace list_append_internal;
  constexpr size_t kUnordered = std::numeric_limits<size_t>::max();
  auto name = [&](uint32_t txn) { return "T" + std::to_string(history[txn].id); };
  auto is_aborted = [&](uint32_t txn) { return !history[txn].committed && !history[txn].unknown; };

  // Who appended each element, whatever the outcome.
  struct Write {
    uint32_t txn;
    int64_t key;
    bool last_of_txn_on_key;         // The writer appended nothing more to the key after it.
    size_t position = kUnordered;    // Index in the key's version order, if it is there.
    uint64_t last_list_checked = 0;  // The last list (numbered from 1) whose check met it.
  };
  std::unordered_map<int64_t, Write> writes;
  for (uint32_t t = 0; t < history.size(); ++t) {
    std::unordered_map<int64_t, Write*> previous_on_key;
    for (const Op& op : history[t].ops) {
      if (op.kind != Op::kAppend) continue;
      auto [it, inserted] = writes.try_emplace(op.element, Write{t, op.key, true});
      if (!inserted) {
        return Fail("duplicate append", "element " + std::to_string(op.element) + " appended by " +
                                            name(it->second.txn) + " and " + name(t));
      }
      Write*& previous = previous_on_key[op.key];
      if (previous != nullptr) previous->last_of_txn_on_key = false;
      previous = &it->second;
    }
  }

  // The committed reads, and for each key the read of the longest list: its version order.
  struct Read {
    uint32_t txn;
    const Op* op;
    size_t prefix = 0;  // The length of the list before the txn's own appends to the key.
  };
  std::vector<Read> reads;
  std::unordered_map<int64_t, const Read*> orders;
  for (uint32_t t = 0; t < history.size(); ++t) {
    if (!history[t].committed) continue;
    for (const Op& op : history[t].ops) {
      if (op.kind == Op::kRead) reads.push_back({t, &op});
    }
  }
  for (const Read& read : reads) {
    const Read*& longest = orders[read.op->key];
    if (longest == nullptr || read.op->observed.size() > longest->op->observed.size()) {
      longest = &read;
    }
  }
  auto read_text = [&](const Read& read) {
    return name(read.txn) + " read key " + std::to_string(read.op->key) + " = " +
           FormatList(read.op->observed);
  };

  // Each element of a list was appended, to that key, by a txn not known to have aborted, and
  // appears once. Checked for each version order, so for each element once: any read that is a
  // prefix of its key's order needs no check of its own.
  uint64_t lists_checked = 0;
  auto check_elements = [&](const Read& read) {
    ++lists_checked;
    for (int64_t element : read.op->observed) {
      auto fail = [&](const char* kind, const std::string& what) {
        return Fail(kind, read_text(read) + ": element " + std::to_string(element) + " " + what);
      };
      auto it = writes.find(element);
      if (it == writes.end()) return fail("garbage read", "was never appended");
      Write& write = it->second;
      if (write.key != read.op->key) {
        return fail("garbage read",
                    "was appended by " + name(write.txn) + " to key " + std::to_string(write.key));
      }
      if (is_aborted(write.txn)) {
        return fail("G1a", "was appended by aborted " + name(write.txn) + "\n  " +
                               FormatTxn(history[write.txn]));
      }
      if (write.last_list_checked == lists_checked) {
        return fail("duplicate element", "appears twice");
      }
      write.last_list_checked = lists_checked;
    }
    return CheckResult{true, ""};
  };
  for (const Read& read : reads) {
    if (orders.at(read.op->key) != &read) continue;
    if (CheckResult result = check_elements(read); !result.ok) return result;
    const std::vector<int64_t>& order = read.op->observed;
    for (size_t i = 0; i < order.size(); ++i) writes.at(order[i]).position = i;
  }

  // Every other read of the key is a prefix of its order.
  for (const Read& read : reads) {
    const Read& longest = *orders.at(read.op->key);
    const std::vector<int64_t>& list = read.op->observed;
    const std::vector<int64_t>& order = longest.op->observed;
    const size_t diverge =
        std::mismatch(list.begin(), list.end(), order.begin()).first - list.begin();
    if (diverge == list.size()) continue;
    if (CheckResult result = check_elements(read); !result.ok) return result;
    return Fail("incompatible order",
                "key " + std::to_string(read.op->key) + ": " + name(longest.txn) + " read " +
                    FormatList(order, diverge + 1) + " but " + name(read.txn) + " read " +
                    FormatList(list, diverge + 1) + " (differ at index " + std::to_string(diverge) +
                    ")");
  }

  // Each committed txn's reads agree with its own earlier reads and appends; and the part of
  // each read before its own appends shows none of its later appends, and no other txn's
  // intermediate state.
  for (size_t r = 0; r < reads.size();) {
    const uint32_t t = reads[r].txn;
    struct OwnState {
      const std::vector<int64_t>* last_read = nullptr;
      std::vector<int64_t> appended_since_read;
      size_t appended = 0;
      size_t first_position = kUnordered;  // Of any of its appends in the key's order.
    };
    std::unordered_map<int64_t, OwnState> own;
    for (const Op& op : history[t].ops) {
      if (op.kind != Op::kAppend) continue;
      OwnState& state = own[op.key];
      state.first_position = std::min(state.first_position, writes.at(op.element).position);
    }
    for (const Op& op : history[t].ops) {
      OwnState& state = own[op.key];
      if (op.kind == Op::kAppend) {
        state.appended_since_read.push_back(op.element);
        ++state.appended;
        continue;
      }
      Read& read = reads[r++];  // The reads are in history order.
      const std::vector<int64_t>& list = op.observed;
      const std::vector<int64_t>& mine = state.appended_since_read;
      if (state.last_read != nullptr) {
        const std::vector<int64_t>& before = *state.last_read;
        if (list.size() != before.size() + mine.size() ||
            !std::equal(before.begin(), before.end(), list.begin()) ||
            !std::equal(mine.begin(), mine.end(), list.begin() + before.size())) {
          return Fail("internal", read_text(read) + " after reading " + FormatList(before) +
                                      " and appending " + FormatList(mine) + "\n  " +
                                      FormatTxn(history[t]));
        }
      } else if (list.size() < mine.size() ||
                 !std::equal(mine.begin(), mine.end(), list.end() - mine.size())) {
        return Fail("internal", read_text(read) + " after appending " + FormatList(mine) + "\n  " +
                                    FormatTxn(history[t]));
      }
      state.last_read = &list;
      state.appended_since_read.clear();
      read.prefix = list.size() - state.appended;
      // The list is a prefix of the order, so position i holds list[i].
      if (state.first_position < read.prefix) {
        return Fail("internal", read_text(read) + ": element " +
                                    std::to_string(list[state.first_position]) +
                                    " is its own later append\n  " + FormatTxn(history[t]));
      }
      if (read.prefix > 0) {
        const Write& last = writes.at(list[read.prefix - 1]);
        if (!last.last_of_txn_on_key) {
          return Fail("G1b", read_text(read) + ": " + name(last.txn) +
                                 " appended more to the key after " +
                                 std::to_string(list[read.prefix - 1]) + "\n  " +
                                 FormatTxn(history[last.txn]));
        }
      }
    }
  }

  // The dependency graph, over all of the history (aborted and unseen txns have no deps).
  std::vector<std::pair<uint32_t, Dep>> edges;
  auto add = [&](uint32_t from, uint32_t to, DepKind kind, int64_t key) {
    if (from != to) edges.push_back({from, Dep{to, kind, key}});
  };
  auto writer = [&](int64_t element) { return writes.at(element).txn; };
  for (const auto& [key, longest] : orders) {
    const std::vector<int64_t>& order = longest->op->observed;
    for (size_t i = 1; i < order.size(); ++i) add(writer(order[i - 1]), writer(order[i]), kWW, key);
  }
  for (const Read& read : reads) {
    const int64_t key = read.op->key;
    const std::vector<int64_t>& order = orders.at(key)->op->observed;
    if (read.prefix > 0) add(writer(order[read.prefix - 1]), read.txn, kWR, key);
    if (read.prefix < order.size()) add(read.txn, writer(order[read.prefix]), kRW, key);
  }
  const DepGraph graph = BuildGraph(history.size(), std::move(edges));

  // Report the mildest cycle there is: one of ww alone, else of ww and wr, else any.
  if (FindCyclicComponent(graph, kWW | kWR | kRW).empty()) return CheckResult{true, ""};
  const std::pair<uint8_t, const char*> classes[] = {
      {kWW, "G0"}, {kWW | kWR, "G1c"}, {kWW | kWR | kRW, "G2"}};
  for (const auto& [mask, kind] : classes) {
    const std::vector<uint32_t> component = FindCyclicComponent(graph, mask);
    if (!component.empty()) {
      return Fail(kind, FormatCycle(history, ShortestCycle(graph, mask, component)));
    }
  }
  return CheckResult{true, ""};  // Unreachable: the full graph has a cycle.
}

}  // namespace forktail::testing
