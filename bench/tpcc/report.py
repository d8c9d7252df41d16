"""Summary and plots of a bench/tpcc/tpcc_bench.sh run.

  report.py OUT_DIR

Reads OUT_DIR/{tpcc,ch}_{postgres,forktail}.json (tpcc_driver run),
OUT_DIR/proc{,ch}_{postgres,forktail}.json (tpcc_driver run --procedures),
OUT_DIR/ch_static.json (ch_compare.py) and OUT_DIR/tpcc_inproc.json
(tpcc_inproc); writes OUT_DIR/summary.md, inproc.png (in-process
transactions per second, alone and with analytical streams) and
throughput.png (New-Orders per second over time, analytical queries marked),
ch_latency.png (per-query latency, PostgreSQL / Forktail / DuckDB) and
ratios.png (Forktail / PostgreSQL and Forktail / DuckDB). Every figure comes
from the files of that run.
"""
import json, math, os, sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

SYSTEMS = ("postgres", "forktail")
TXNS = ("new_order", "payment", "order_status", "delivery", "stock_level")


def load(out, name):
    path = os.path.join(out, name + ".json")
    return json.load(open(path)) if os.path.exists(path) else None


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(v, digits=1):
    return "-" if v is None else "%.*f" % (digits, v)


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def verdict(q, label):
    if q[label + "_equal"]:
        return "="
    return "ERROR: " + q[label + "_error"] if label + "_error" in q else "**DIFFERS**"


def inproc_section(r, out):
    """The in-process run: C++ stored procedures on one transaction thread."""
    phases = r["phases"]
    alone = next((p for p in phases if p["streams"] == 0), None)
    md = ["## TPC-C in process: stored procedures on one transaction thread", "",
          "bench/tpcc/tpcc_inproc: %d warehouse(s), %d s per phase, %d transactions in flight, "
          "%s commit (group commit through the write-ahead log). Analytical streams run the 22 CH "
          "queries in turn through the embedded server, each on a snapshot %s. Goal (issue 20): "
          "170k transactions/s alone, at most 10%% fewer with analytics; HyPer reported 85k alone "
          "and 60k (-30%%) with analytics on a 2009 Xeon." % (
              r["warehouses"], r["duration_s"], r["window"],
              "synchronous" if r["synchronous_commit"] else "asynchronous",
              "forked for each query (fresh)" if not r.get("max_snapshot_age_ms") else
              "at most %d ms old" % r["max_snapshot_age_ms"]), "",
          "| analytical streams | txn/s | New-Order/s | tpmC | drop vs alone | txn thread busy | "
          "CH queries done | snapshots/s | mean snapshot age (ms) | mean commits behind | "
          "conditions 1-4 |",
          "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for p in phases:
        drop = 100 * (1 - p["txn_per_s"] / alone["txn_per_s"]) if alone and alone["txn_per_s"] else None
        age, behind = p.get("mean_snapshot_age_ms", -1), p.get("mean_commits_behind", -1)
        md.append("| %d | %.0f | %.0f | %.0f | %s | %.0f%% | %d | %.1f | %s | %s | %s |" % (
            p["streams"], p["txn_per_s"], p["new_order_per_s"], p["tpmC"],
            "-" if drop is None or p is alone else "%.1f%%" % drop, 100 * p["txn_thread_busy"],
            p["ch_completed"], p["snapshots"] / p["elapsed_s"],
            "-" if age < 0 else "%.1f" % age, "-" if behind < 0 else "%.0f" % behind,
            "hold" if p["consistent"] else "**FAIL**"))
    if alone:
        md += ["", "Mean latency from submission to durable commit (ms, alone): " + ", ".join(
            "%s %.2f" % (t, alone["transactions"][t]["avg_ms"]) for t in TXNS) + "."]
    md.append("")
    fig, ax = plt.subplots(figsize=(10, 4))
    for p in phases:
        ax.plot(range(len(p["per_second"])), p["per_second"],
                label="%d analytical stream(s)" % p["streams"])
    ax.set_xlabel("second of the phase")
    ax.set_ylabel("transactions per second")
    ax.set_ylim(bottom=0)
    ax.set_title("TPC-C in process (stored procedures), alone and with CH streams")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "inproc.png"), dpi=110)
    plt.close(fig)
    return md + ["![in-process TPC-C](inproc.png)", ""]


def procedures_section(out, runs):
    """One CALL per transaction (tpcc_driver run --procedures): PL/pgSQL
    procedures in PostgreSQL, C++ procedures in Forktail."""
    proc = {s: load(out, "proc_" + s) for s in SYSTEMS}
    with_ch = {s: load(out, "procch_" + s) for s in SYSTEMS}
    if not any(proc.values()):
        return []
    md = ["", "### One CALL of a stored procedure per transaction", "",
          "The same driver and terminals, each transaction one `CALL name(arguments)`: "
          "PostgreSQL runs PL/pgSQL procedures (bench/tpcc/tpcc_procedures.sql), Forktail its C++ "
          "procedures (bench/tpcc/tpcc_procedures.cc, served by `tpcc_inproc --serve`).", "",
          "| run | system | tpmC | New-Order/s | txn/s | analytical queries done | retries | errors |",
          "|---|---|---:|---:|---:|---:|---:|---:|"]
    for runs_of, title in ((proc, "alone"), (with_ch, "with analytical streams")):
        for s in SYSTEMS:
            r = runs_of[s]
            if r:
                md.append("| %s (%d streams) | %s | %.0f | %.1f | %.1f | %d | %d | %d |" % (
                    title, r["ch_streams"], s, r["tpmC"], r["new_order_per_s"], r["txn_per_s"],
                    sum(1 for q in r["ch_queries"] if q["status"] == "ok"),
                    sum(t["retries"] for t in r["transactions"].values()),
                    sum(t["errors"] for t in r["transactions"].values())))
    pg, ft, pg_statements = proc["postgres"], proc["forktail"], runs[("tpcc", "postgres")]
    if pg and ft:
        md.append("| alone | **Forktail / PostgreSQL, both procedures** | **%sx** | | | | | |" %
                  fmt(ratio(ft["tpmC"], pg["tpmC"]), 2))
    if with_ch["postgres"] and with_ch["forktail"]:
        md.append("| with analytical streams | **Forktail / PostgreSQL, both procedures** | "
                  "**%sx** | | | | | |" %
                  fmt(ratio(with_ch["forktail"]["tpmC"], with_ch["postgres"]["tpmC"]), 2))
    if ft and pg_statements:
        md.append("| alone | **Forktail procedures / PostgreSQL statements** | **%sx** | | | | | |" %
                  fmt(ratio(ft["tpmC"], pg_statements["tpmC"]), 2))
    return md


def main():
    out = sys.argv[1]
    runs = {(kind, sys_): load(out, "%s_%s" % (kind, sys_)) for kind in ("tpcc", "ch") for sys_ in SYSTEMS}
    static = load(out, "ch_static")
    md = ["# TPC-C and CH-benCHmark: Forktail vs PostgreSQL 15 (and DuckDB)", ""]
    info = load(out, "run_info")
    if info:
        md += ["Run of %s, commit %s (%s; %s). Load average before %s, after %s: figures taken "
               "while other work ran on this 2-core machine are noisy." % (
                   info["date"], info["commit"], info["forktail"], info["postgres"],
                   info["loadavg_before"], info.get("loadavg_after", "?")), ""]
    any_run = next((r for r in runs.values() if r), None)
    if any_run:
        md += ["%d warehouse(s), %d terminal(s), %d s per run, no think time; both servers durable "
               "(fsync on). The same driver (bench/tpcc/tpcc_driver, libpq) ran against both in "
               "the same run; retries after SQLSTATE 40001/40P01 are counted." %
               (any_run["warehouses"], any_run["terminals"], any_run["duration_s"]), ""]

    inproc = load(out, "tpcc_inproc")
    if inproc:
        md += inproc_section(inproc, out)

    md += ["## TPC-C throughput over the wire", "",
           "| run | system | tpmC | New-Order/s | txn/s | NO rolled back (1%) | retries | errors |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    for kind, title in (("tpcc", "TPC-C alone"), ("ch", "TPC-C + analytical streams")):
        for s in SYSTEMS:
            r = runs[(kind, s)]
            if not r:
                continue
            retries = sum(t["retries"] for t in r["transactions"].values())
            errors = sum(t["errors"] for t in r["transactions"].values())
            md.append("| %s (%d streams) | %s | %.0f | %.1f | %.1f | %d | %d | %d |" % (
                title, r["ch_streams"], s, r["tpmC"], r["new_order_per_s"], r["txn_per_s"],
                r["new_order_rolled_back"], retries, errors))
        pg, ft = runs[(kind, "postgres")], runs[(kind, "forktail")]
        if pg and ft:
            md.append("| %s | **Forktail / PostgreSQL** | **%sx** | | | | | |" % (
                title, fmt(ratio(ft["tpmC"], pg["tpmC"]), 2)))
    md += procedures_section(out, runs)
    alone, with_ch = runs[("tpcc", "forktail")], runs[("ch", "forktail")]
    md.append("")
    for s in SYSTEMS:
        a, c = runs[("tpcc", s)], runs[("ch", s)]
        if a and c and a["tpmC"]:
            md.append("- %s: tpmC with %d analytical stream(s) is %.1f%% of tpmC alone; %d analytical "
                      "queries completed (%.0f per hour)." % (
                          s, c["ch_streams"], 100 * c["tpmC"] / a["tpmC"],
                          sum(1 for q in c["ch_queries"] if q["status"] == "ok"),
                          3600 * sum(1 for q in c["ch_queries"] if q["status"] == "ok") / c["duration_s"]))
    for kind in ("tpcc", "ch"):
        c, r = load(out, "%s_forktail_counters" % kind), runs[(kind, "forktail")]
        if c and r:
            md.append("- forktail, %s: %d snapshots forked (%.2f per second); transaction thread "
                      "busy %.0f%% of the run; %d block steps, %d reruns (commit-time "
                      "validation), %d serialization failures." % (
                          "TPC-C alone" if kind == "tpcc" else "with analytical streams",
                          c["snapshots_created"], c["snapshots_created"] / r["elapsed_s"],
                          100.0 * c["txn_thread_busy_ms"] / max(1, c["txn_thread_alive_ms"]),
                          c.get("block_steps", 0), c.get("block_reruns", 0),
                          c.get("serialization_failures", 0)))
    md += ["", "## Latency per transaction (ms, TPC-C alone)", "",
           "| transaction | system | count | retries | avg | p50 | p90 | p99 | max |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for t in TXNS:
        for s in SYSTEMS:
            r = runs[("tpcc", s)]
            if r:
                x = r["transactions"][t]
                md.append("| %s | %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f |" % (
                    t, s, x["count"], x["retries"], x["avg_ms"], x["p50_ms"], x["p90_ms"],
                    x["p99_ms"], x["max_ms"]))

    if static:
        md += ["", "## CH-benCHmark queries on the loaded data (static, no TPC-C running)", "",
               "Seconds per query (best of %d), PostgreSQL 15 and Forktail over the wire (psycopg), "
               "DuckDB 1.5.5 in process on a copy of the same rows (%d threads). `=` : the answer "
               "equals PostgreSQL's." % (static["runs"], static["duckdb_threads"]), "",
               "| query | rows | PostgreSQL s | Forktail s | DuckDB s | time Forktail / PostgreSQL (<1: Forktail faster) | time Forktail / DuckDB | answers |",
               "|---|---:|---:|---:|---:|---:|---:|---|"]
        for q in static["queries"]:
            md.append("| %s | %d | %s | %s | %s | %s | %s | Forktail %s, DuckDB %s |" % (
                q["query"], q["rows"], fmt(q["postgres_s"], 4), fmt(q["forktail_s"], 4),
                fmt(q["duckdb_s"], 4), fmt(ratio(q["forktail_s"], q["postgres_s"]), 2),
                fmt(ratio(q["forktail_s"], q["duckdb_s"]), 2),
                verdict(q, "forktail"), verdict(q, "duckdb")))
        g = {k: geomean([q[k + "_s"] for q in static["queries"]]) for k in ("postgres", "forktail", "duckdb")}
        md += ["", "Geometric means: PostgreSQL %s s, Forktail %s s, DuckDB %s s." % (
            fmt(g["postgres"], 4), fmt(g["forktail"], 4), fmt(g["duckdb"], 4))]

    ch_pg, ch_ft = runs[("ch", "postgres")], runs[("ch", "forktail")]
    if ch_pg or ch_ft:
        def means(r, field="secs"):
            acc = {}
            for q in (r or {}).get("ch_queries", []):
                if q["status"] == "ok" and field in q:
                    acc.setdefault(q["query"], []).append(q[field])
            return {k: (sum(v) / len(v), len(v)) for k, v in acc.items()}
        mp, mf = means(ch_pg), means(ch_ft)
        age, behind = means(ch_ft, "snapshot_age_ms"), means(ch_ft, "commits_behind")
        names = sorted(set(mp) | set(mf), key=lambda n: int(n[1:]))
        md += ["", "## CH queries while TPC-C runs (mean seconds, completed runs)", "",
               "Freshness: the age of the snapshot each Forktail query read, and the transactions "
               "committed since its fork, when the query started (SHOW forktail.last_read).", "",
               "| query | PostgreSQL s (runs) | Forktail s (runs) | Forktail snapshot age ms | "
               "Forktail commits behind |", "|---|---:|---:|---:|---:|"]
        for n in names:
            p_, f_, a_, b_ = mp.get(n), mf.get(n), age.get(n), behind.get(n)
            md.append("| %s | %s | %s | %s | %s |" % (
                n, "%.3f (%d)" % p_ if p_ else "-", "%.3f (%d)" % f_ if f_ else "-",
                "%.1f" % a_[0] if a_ else "-", "%.0f" % b_[0] if b_ else "-"))
        for label, r in (("postgres", ch_pg), ("forktail", ch_ft)):
            cancelled = [q["query"] for q in (r or {}).get("ch_queries", []) if q["status"] == "cancelled"]
            if cancelled:
                md.append("\n%s: cancelled at the end of the run: %s" % (label, ", ".join(cancelled)))

    # Plots.
    fig, ax = plt.subplots(figsize=(10, 4.5))
    colors = {"postgres": "tab:blue", "forktail": "tab:red"}
    for (kind, s), r in runs.items():
        if not r:
            continue
        ys = r["per_second"]["new_order"]
        ax.plot(range(len(ys)), ys, color=colors[s], linestyle="-" if kind == "tpcc" else "--",
                label="%s, %s" % (s, "TPC-C alone" if kind == "tpcc" else
                                  "with %d analytical stream(s)" % r["ch_streams"]))
        if kind == "ch":
            for q in r["ch_queries"]:
                ax.axvspan(q["start_s"], q["start_s"] + q["secs"], ymin=0.0 if s == "postgres" else 0.03,
                           ymax=0.03 if s == "postgres" else 0.06, color=colors[s], alpha=0.5)
                ax.axvline(q["start_s"], ymax=0.06, color=colors[s], linewidth=0.5)
    ax.set_xlabel("second of the run (bars at the bottom: analytical queries running)")
    ax.set_ylabel("New-Orders per second")
    ax.set_title("TPC-C throughput over time")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "throughput.png"), dpi=110)
    plt.close(fig)

    if static:
        qs = static["queries"]
        fig, ax = plt.subplots(figsize=(12, 4.5))
        width = 0.27
        for i, (k, c) in enumerate((("postgres", "tab:blue"), ("forktail", "tab:red"), ("duckdb", "tab:olive"))):
            ax.bar([j + (i - 1) * width for j in range(len(qs))],
                   [q[k + "_s"] or 0 for q in qs], width, label=k, color=c)
        ax.set_xticks(range(len(qs)))
        ax.set_xticklabels([q["query"] for q in qs])
        ax.set_yscale("log")
        ax.set_ylabel("seconds (log)")
        ax.set_title("CH-benCHmark query latency, same data")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "ch_latency.png"), dpi=110)
        plt.close(fig)

    bars = []
    for kind, title in (("tpcc", "tpmC alone"), ("ch", "tpmC with CH streams")):
        r = ratio((runs[(kind, "forktail")] or {}).get("tpmC"), (runs[(kind, "postgres")] or {}).get("tpmC"))
        if r is not None:
            bars.append(("%s\nForktail/PostgreSQL" % title, r))
    if static:
        for k in ("postgres", "duckdb"):
            r = geomean([ratio(q[k + "_s"], q["forktail_s"]) for q in static["queries"]])
            if r is not None:
                bars.append(("CH query speed\nForktail/%s (geomean)" % k, r))
    if bars:
        fig, ax = plt.subplots(figsize=(8, 4))
        ax.bar([b[0] for b in bars], [b[1] for b in bars], color="tab:red")
        ax.axhline(1, color="black", linewidth=0.8)
        for i, b in enumerate(bars):
            ax.text(i, b[1], "%.2fx" % b[1], ha="center", va="bottom")
        ax.set_ylabel("ratio (>1: Forktail faster)")
        ax.set_title("Forktail relative to its peers, same run")
        plt.xticks(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "ratios.png"), dpi=110)
        plt.close(fig)
    md += ["", "## Plots", "", "![throughput](throughput.png)", "", "![CH latency](ch_latency.png)",
           "", "![ratios](ratios.png)", ""]
    tpch = os.path.join(out, "tpch.txt")
    if os.path.exists(tpch):
        lines = open(tpch).read().splitlines()
        start = next((i for i, l in enumerate(lines) if l.startswith("query ")), None)
        if start is not None:
            md += ["## TPC-H vs DuckDB (tpch_bench, same run: tpch.txt)", "", "```"] + \
                lines[start:start + 24] + ["```", ""]
    if os.path.exists(os.path.join(out, "micro.txt")):
        md += ["Micro-benchmarks of the same run, each beside its baseline: micro.txt.", ""]
    open(os.path.join(out, "summary.md"), "w").write("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
