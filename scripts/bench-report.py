#!/usr/bin/python3
"""Turn make bench's raw BENCH lines into the report.

Input lines (scripts/bench.sh adds round and kernel):
  BENCH round=R kernel=K fs=FS workload=W value=V unit=U
  BENCH-IDENTITY round=R kernel=K fs=FS failed=N counter=N ... identity=holds
  BENCH-KERNEL round=R kernel=K RELEASE fs_msg=yes|no

usage: bench-report.py RAW [BASELINE]: BASELINE says what the baseline
kernel is (default: unpatched).

Ratios are patched/baseline of medians, rates (higher is better).  The
baseline ran twice per round (A and B); a ratio within the A/A noise
floor is reported as "no measurable difference".
"""
import statistics
import sys
from collections import defaultdict

FSES = ["ext4", "xfs", "btrfs"]

# (baseline workload, patched workload, target, what).  The "listening"
# runs are second runs in the same state on both kernels; only the patched
# one has a family for fsmsg to listen to.
COMPARED = [
    ("write", "write", 0.98, "normal path: 4 KiB buffered writes"),
    ("write-fsync", "write-fsync", 0.98, "normal path: 4 KiB writes, each fsync()ed"),
    ("write-fsync-ram", "write-fsync-ram", 0.99,
     "4 KiB writes, each fsync()ed, on a RAM disk (make bench-writeback)"),
    ("create", "create", 0.98, "normal path: file creates"),
    ("mkdir", "mkdir", 0.98, "normal path: mkdirs"),
    ("enospc-write", "enospc-write", 0.98, "ENOSPC path: failing writes, no listener"),
    ("enospc-write-listening", "enospc-write-listening", 0.95,
     "ENOSPC path: failing writes again, fsmsg listening"),
    ("enospc-create", "enospc-create", 0.98, "ENOSPC path: failing creates, no listener"),
    ("enospc-create-listening", "enospc-create-listening", 0.95,
     "ENOSPC path: failing creates again, fsmsg listening"),
    ("flood-ops", "flood-ops", None, "flood: 4 threads of failing writes"),
]

# At the default rate limit, a root listener that never reads must not
# slow failing writes.
SLEEPER_TARGET = 0.98


def difference(ratio, noise):
    """A ratio of rates in words; within the noise it is no difference."""
    if abs(ratio - 1) <= noise:
        return "no measurable difference"
    if ratio < 1:
        return f"slower by {(1 - ratio) * 100:.1f}%"
    return f"faster by {(ratio - 1) * 100:.1f}%"


def fields(line):
    out = {}
    for word in line.split()[1:]:
        if "=" in word:
            k, v = word.split("=", 1)
            out[k] = v
    return out


def main(path, baseline="unpatched"):
    values = defaultdict(list)          # (kernel, fs, workload) -> [value]
    units = {}
    identities = []
    releases = set()
    for line in open(path):
        f = fields(line)
        if line.startswith("BENCH-IDENTITY"):
            identities.append(f)
        elif line.startswith("BENCH-KERNEL"):
            releases.add((f["kernel"], line.split()[3], f.get("fs_msg")))
        elif line.startswith("BENCH ") and "value" in f:
            key = (f["kernel"], f["fs"], f["workload"])
            values[key].append(float(f["value"]))
            units[f["workload"]] = f["unit"]

    rounds = max((len(v) for v in values.values()), default=0)
    print(f"FS_MSG benchmark: baseline ({baseline}) and patched 6.12 kernels,")
    print(f"same tree, configuration and QEMU settings, booted in turn, {rounds} rounds.")
    print("QEMU runs under TCG with -icount shift=0,sleep=off: times are emulated")
    print("(guest time counts instructions), so absolute figures mean little; the")
    print("ratios measured in the same run are the figures that count.  A ratio")
    print("inside the baseline's own A/A spread is 'no measurable difference'.")
    print()

    def has(prefix):
        """Whether the run measured any workload named PREFIX..."""
        return any(k[2].startswith(prefix) for k in values)

    def med(kernel, fs, w):
        v = values.get((kernel, fs, w))
        return (statistics.median(v), min(v), max(v), v) if v else None

    print(f"{'fs':6} {'workload':34} {'baseline median [min-max]':>32} "
          f"{'A/A':>6} {'patched median [min-max]':>32} {'P/base':>7}  verdict")
    misses = []
    shown = []
    for fs in FSES:
        for base_w, pat_w, target, what in COMPARED:
            a = med("baseline-a", fs, base_w)
            b = med("baseline-b", fs, base_w)
            p = med("patched", fs, pat_w)
            if not (a and b and p):
                continue
            base_all = a[3] + b[3]
            base_med = statistics.median(base_all)
            aa = b[0] / a[0]
            # Noise floor: the A/A ratio's distance from 1, or half the
            # baseline's relative spread, whichever is larger.
            noise = max(abs(aa - 1), (max(base_all) - min(base_all)) / base_med / 2)
            ratio = p[0] / base_med
            verdict = difference(ratio, noise)
            if target is not None:
                met = ratio >= target or abs(ratio - 1) <= noise
                verdict += f"; target >= {target:.2f}: {'met' if met else 'MISSED'}"
                if not met:
                    misses.append(f"{fs} {pat_w}: {ratio:.3f} < {target}")
            unit = units.get(pat_w, "")
            print(f"{fs:6} {pat_w + ' (' + unit + ')':34} "
                  f"{base_med:12.1f} [{min(base_all):8.1f}-{max(base_all):8.1f}] "
                  f"{aa:6.3f} "
                  f"{p[0]:12.1f} [{p[1]:8.1f}-{p[2]:8.1f}] {ratio:7.3f}  {verdict}")
            if what not in shown:
                shown.append(what)
    print()
    print("Workloads: " + "; ".join(f"{w[1]}: {w[3]}" for w in COMPARED
                                    if w[3] in shown) + ".")
    if any("listening" in w for w in shown):
        print("The listening rows compare the patched kernel with fsmsg listening to the")
        print("same run on the baseline, which has no FS_MSG family to listen to.")
    if any(k[2] == "write-fsync-ram-busy" for k in values):
        print("Guest busy time during the RAM disk runs, % of their elapsed time (/proc/stat,")
        print("10 ms ticks; near 100: nothing waited outside the instruction count), median:")
        for fs in FSES:
            row = [med(k, fs, "write-fsync-ram-busy")
                   for k in ("baseline-a", "baseline-b", "patched")]
            if all(row):
                print(f"  {fs:6} baseline A {row[0][0]:.0f}, B {row[1][0]:.0f}, "
                      f"patched {row[2][0]:.0f}")
    print()

    if has("latency-"):
        print("Delivery latency, kernel timestamp to fsmsg's receipt (patched, rate limit")
        print("off, >= 1000 warnings per round; median over rounds, and the worst round):")
        print(f"{'fs':6} {'p50 (us)':>10} {'p99 (us)':>10} {'max (us)':>10} {'worst max':>10}"
              f"  {'fsmsg rss KiB before/peak':>26}")
        for fs in FSES:
            p50 = med("patched", fs, "latency-p50")
            p99 = med("patched", fs, "latency-p99")
            mx = med("patched", fs, "latency-max")
            rss0 = med("patched", fs, "latency-fsmsg-rss-start")
            hwm = med("patched", fs, "latency-fsmsg-rss-peak")
            if p50 and p99 and mx and rss0 and hwm:
                print(f"{fs:6} {p50[0]:10.1f} {p99[0]:10.1f} {mx[0]:10.1f} {mx[2]:10.1f}"
                      f"  {rss0[0]:12.0f}/{hwm[2]:<13.0f}")
        print()

    if has("sleeper-"):
        print("A root listener that never reads (patched; failing writes per second on a")
        print("full filesystem, medians; 'none' ran before and after the others, and their")
        print("spread is the noise).  Rate limit off: every failure builds a message and")
        print("the sleeper's socket overruns; default: one message a second gets through.")
        print(f"{'fs':6} {'rate limit':10} {'none':>10} {'sleeper':>10} {'reading':>10} "
              f"{'sleeper/none':>13} {'reading/none':>13}  verdict")
        for fs in FSES:
            for setting in ("off", "default"):
                a = med("patched", fs, f"sleeper-{setting}-none-a")
                b = med("patched", fs, f"sleeper-{setting}-none-b")
                asleep = med("patched", fs, f"sleeper-{setting}-asleep")
                reading = med("patched", fs, f"sleeper-{setting}-reading")
                if not (a and b and asleep and reading):
                    continue
                none_all = a[3] + b[3]
                none = statistics.median(none_all)
                # Half a percent at least: icount can make two runs agree
                # to the last digit.
                noise = max((max(none_all) - min(none_all)) / none / 2, 0.005)
                ratio = asleep[0] / none
                verdict = difference(ratio, noise)
                # What servers run: the sleeper must not slow failing writes.
                # With rate limiting off it costs what building the messages
                # costs, and must cost no more than a listener that reads.
                if setting == "default":
                    met = ratio >= SLEEPER_TARGET or abs(ratio - 1) <= noise
                    verdict += f"; target >= {SLEEPER_TARGET:.2f}: {'met' if met else 'MISSED'}"
                else:
                    met = asleep[0] >= reading[0] * (1 - noise)
                    verdict += f"; no slower than reading: {'met' if met else 'MISSED'}"
                if not met:
                    misses.append(f"{fs} sleeper, rate limit {setting}: {ratio:.3f}")
                print(f"{fs:6} {setting:10} {none:10.1f} {asleep[0]:10.1f} {reading[0]:10.1f} "
                      f"{ratio:13.3f} {reading[0] / none:13.3f}  {verdict}")
        print()

    if has("flood-failed"):
        print("Flood with the default rate limit (patched, fsmsg listening; medians):")
        print(f"{'fs':6} {'ops/s':>9} {'failed':>8} {'messages':>9} {'suppressed':>11} "
              f"{'fsmsg cpu s':>12} {'rss KiB start/peak':>19}  accounting identity")
        for fs in FSES:
            row = {w: med("patched", fs, "flood-" + w)
                   for w in ("ops", "failed", "delivered", "suppressed", "fsmsg-cpu",
                             "fsmsg-rss-start", "fsmsg-rss-peak")}
            if not all(row.values()):
                continue
            ids = [i for i in identities if i["fs"] == fs]
            held = sum(1 for i in ids if i.get("identity") == "holds")
            if held != len(ids):
                misses.append(f"{fs}: the accounting identity broke in "
                              f"{len(ids) - held} of {len(ids)} rounds")
            growth = row["fsmsg-rss-peak"][2] - row["fsmsg-rss-start"][0]
            print(f"{fs:6} {row['ops'][0]:9.1f} {row['failed'][0]:8.0f} "
                  f"{row['delivered'][0]:9.0f} {row['suppressed'][0]:11.0f} "
                  f"{row['fsmsg-cpu'][0]:12.2f} "
                  f"{row['fsmsg-rss-start'][0]:9.0f}/{row['fsmsg-rss-peak'][0]:<9.0f} "
                  f"holds in {held} of {len(ids)} rounds (failed = counter = "
                  f"messages + suppressed + held back); rss growth {growth:.0f} KiB")
        print()

    if has("filtered-"):
        # Kernel-side filters on XFS's failing writes: the writer with one
        # listener, then with 63 more filtered to another filesystem, with
        # rate limiting off (target: within 2%) and at the default (within
        # 1%); and the 63 alone against no listener: no message is built for
        # nobody (within 1%).
        print("Listeners filtered in the kernel (patched, XFS; failing writes per second,")
        print("medians [min-max] of the rounds; 'filtered' listeners select another")
        print("filesystem; per socket: the writer's extra time per message and socket):")
        print(f"{'fs':6} {'rate limit':10} {'compared':26} {'without':>24} "
              f"{'with':>24} {'ratio':>7} {'per socket':>11}  verdict")
        rows = [
            ("off", "1 listener, +filtered", "filtered-one", "filtered-many", 0.98),
            ("default", "1 listener, +filtered", "filtered-one-default",
             "filtered-many-default", 0.99),
            ("off", "none, filtered only", "filtered-none", "filtered-only", 0.99),
        ]
        for fs in FSES:
            n = med("patched", fs, "filtered-listeners")
            got = med("patched", fs, "filtered-received")
            if not (n and got):
                continue
            for limit, what, w0, w1, target in rows:
                a = med("patched", fs, w0)
                b = med("patched", fs, w1)
                if not (a and b):
                    continue
                ratio = b[0] / a[0]
                # Seconds per failing write, apart: what each socket adds.
                per = (1 / b[0] - 1 / a[0]) / n[0] * 1e9
                met = ratio >= target
                if not met:
                    misses.append(f"{fs} filtered listeners, rate limit {limit}, "
                                  f"{what}: {ratio:.3f} < {target}")
                print(f"{fs:6} {limit:10} {what:26} "
                      f"{a[0]:10.1f} [{a[1]:.0f}-{a[2]:.0f}] "
                      f"{b[0]:10.1f} [{b[1]:.0f}-{b[2]:.0f}] {ratio:7.3f} "
                      f"{per:8.0f} ns  {difference(ratio, 0.005)}; target >= "
                      f"{target}: {'met' if met else 'MISSED'}")
            if got[2]:
                misses.append(f"{fs}: {got[2]:.0f} messages to filtered sockets")
            print(f"{fs:6} messages to the {n[0]:.0f} filtered sockets: "
                  f"{got[2]:.0f} (most in a round)")
        print()
    if misses:
        print("Targets missed:")
        for m in misses:
            print("  " + m)
    else:
        print("All targets met.")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
