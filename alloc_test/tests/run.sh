#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host tests for alloc_test; TAP output, exit status 1 if any test failed.
#
# Nothing is mounted and nothing fills the host: run() refuses to start the
# binary on an existing folder without a bound (--max-ops, --max-bytes, COUNT,
# --ops or --seconds), also where enospc_shim.so (LD_PRELOAD) makes a syscall
# fail with ENOSPC, so a shim that does not load cannot fill the disk either.
# The usage tests name a folder that does not exist.
#
#   ALLOC_TEST        binary under test (make check: the ASan+UBSan build)
#   ALLOC_TEST_PLAIN  unsanitized dynamic build, for the valgrind runs
#   ALLOC_TEST_STATIC static build, checked to be static and to run
#   ENOSPC_SHIM       enospc_shim.so
#   ALLOC_TEST_VERSION  the Makefile's VERSION, which --version must print
#   ALLOC_TEST_MAN    the man page, checked and installed with MAKE install
#   TMPDIR            where the temporary folders go

BIN=${ALLOC_TEST:?set ALLOC_TEST to the alloc_test binary}
PLAIN=${ALLOC_TEST_PLAIN:-}
STATIC=${ALLOC_TEST_STATIC:-}
SHIM=${ENOSPC_SHIM:-}

# The shim is preloaded ahead of the ASan runtime; halt on any UBSan report.
ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
export ASAN_OPTIONS UBSAN_OPTIONS

top=$(mktemp -d) || exit 1
trap 'rm -rf "$top"' EXIT
trap 'exit 1' INT TERM
page=$(getconf PAGESIZE)
n=0
passed=0
failed=0

echo "TAP version 13"

pass() {
	n=$((n + 1)); passed=$((passed + 1))
	echo "ok $n - $1"
}

skip() {
	n=$((n + 1)); passed=$((passed + 1))
	echo "ok $n - $1 # SKIP $2"
}

# fail DESC WHY: WHY and the last run's output become TAP diagnostics.
fail() {
	n=$((n + 1)); failed=$((failed + 1))
	echo "not ok $n - $1"
	{
		echo "why: $2"
		echo "command: $cmd"
		echo "exit status: $rc"
		sed 's/^/stdout: /' "$top/out"
		sed 's/^/stderr: /' "$top/err"
	} | sed 's/^/#   /'
}

# fresh: a new empty folder in $d.
fresh() {
	d=$(mktemp -d "$top/d.XXXXXX")
}

# bounded ARGS...: true if ARGS cannot fill a filesystem: they hold a bound
# or the 2011 COUNT, or name no existing folder.
bounded() {
	for a; do
		case $a in --max-ops|--max-bytes|--ops|--seconds|--help) return 0 ;; esac
	done
	if [ $# -ge 3 ]; then
		for last; do :; done
		case $last in ''|*[!0-9]*) ;; *) return 0 ;; esac
	fi
	for a; do
		[ -d "$a" ] && return 1
	done
	return 0
}

# run ARGS...: run the binary (with $PRE, e.g. "env LD_PRELOAD=..."), setting
# rc, out (stdout) and err (stderr). timeout catches a hang.
run() {
	cmd="$PRE $BIN $*"
	if ! bounded "$@"; then
		echo "test bug: refusing to run without a bound" >"$top/err"
		: >"$top/out"
		rc=99 out='' err="refused"
		return
	fi
	# shellcheck disable=SC2086 # PRE is a word list on purpose
	timeout 120 $PRE "$BIN" "$@" >"$top/out" 2>"$top/err"
	rc=$?
	out=$(cat "$top/out")
	err=$(cat "$top/err")
}

# field KEY: the value of KEY in the report line.
field() {
	printf '%s\n' "$out" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

REPORT='^alloc_test mode=[a-z]+ ops=[0-9]+ ok=[0-9]+ enospc=[0-9]+ short=[0-9]+ other=[0-9]+ errors=(-|[A-Z0-9]+:[0-9]+(,[A-Z0-9]+:[0-9]+)*) bytes=[0-9]+ elapsed=[0-9]+\.[0-9]{3} result=(enospc|bound|error)( threads=[0-9]+ ops_per_sec=[0-9]+\.[0-9])?$'

# why_report RC FIELDS: print what is wrong with the last run (exit status RC,
# one well-formed report line holding every key=value of FIELDS, no sanitizer
# report), or nothing.
why_report() {
	[ "$rc" = "$1" ] || { echo "exit status $rc, expected $1"; return; }
	[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || { echo "stdout is not exactly one line"; return; }
	printf '%s\n' "$out" | grep -Eq "$REPORT" || { echo "malformed report line"; return; }
	for kv in $2; do
		case " $out " in
		*" $kv "*) ;;
		*) echo "report lacks $kv"; return ;;
		esac
	done
	case $err in
	*Sanitizer*|*"runtime error"*) echo "sanitizer report on stderr" ;;
	esac
}

# t DESC RC FIELDS ARGS...: run ARGS with a fresh folder $d as DIR (in place
# of an @D among ARGS, else appended), check the report and, unless --keep is
# among ARGS, that nothing is left.
t() {
	desc=$1 want=$2 fields=$3
	shift 3
	fresh
	keep=no
	nargs=$# dir=append
	for a; do
		case $a in
		@D) set -- "$@" "$d"; dir=placed ;;
		*) set -- "$@" "$a" ;;
		esac
		[ "$a" = --keep ] && keep=yes
	done
	shift "$nargs"
	[ $dir = append ] && set -- "$@" "$d"
	run "$@"
	why=$(why_report "$want" "$fields")
	if [ -z "$why" ] && [ $keep = no ] && [ -n "$(ls -A "$d")" ]; then
		why="work folder left behind: $(ls -A "$d")"
	fi
	if [ -n "$why" ]; then fail "$desc" "$why"; else pass "$desc"; fi
}

# usage DESC TEXT ARGS...: exit status 64, TEXT on stderr, nothing on stdout.
usage() {
	desc=$1 text=$2
	shift 2
	run "$@"
	if [ "$rc" != 64 ]; then
		fail "$desc" "exit status $rc, expected 64"
	elif [ -n "$out" ]; then
		fail "$desc" "unexpected stdout"
	else
		case $err in
		*"$text"*) pass "$desc" ;;
		*) fail "$desc" "stderr lacks '$text'" ;;
		esac
	fi
}

# check DESC CONDITION...: pass if the shell condition holds.
check() {
	desc=$1
	shift
	if "$@" 2>/dev/null; then pass "$desc"; else fail "$desc" "failed: $*"; fi
}

kept() {	# the single work folder kept in $d
	set -- "$d"/alloc_test.*
	[ $# = 1 ] && [ -d "$1" ] && echo "$1"
}

count() {	# count DIR GLOB: entries matching GLOB
	# shellcheck disable=SC2086 # GLOB is meant to expand
	set -- "$1"/$2
	[ -e "$1" ] || [ -L "$1" ] || { echo 0; return; }
	echo $#
}

size() { stat -c %s "$1" 2>/dev/null; }

### Command line

run --help
if [ "$rc" = 0 ] && [ -z "$err" ] && printf '%s\n' "$out" | grep -q '^Usage: alloc_test ' &&
   printf '%s\n' "$out" | grep -q -- '--symlink-target-len'; then
	pass "--help exits 0 with the usage on stdout"
else
	fail "--help exits 0 with the usage on stdout" "exit status or text"
fi
case $out in
*"Exit status"*" 0  ENOSPC was reached"*" 1  a bound"*" 2  runtime error"*" 64  usage error"*)
	pass "--help documents exit statuses 0, 1, 2 and 64" ;;
*)	fail "--help documents exit statuses 0, 1, 2 and 64" "exit status text" ;;
esac
for v in --version -V; do
	run $v
	if [ "$rc" = 0 ] && [ -z "$err" ] && [ "$out" = "alloc_test ${ALLOC_TEST_VERSION:-1.0.0}" ]; then
		pass "$v prints 'alloc_test ${ALLOC_TEST_VERSION:-1.0.0}', exits 0"
	else
		fail "$v prints 'alloc_test ${ALLOC_TEST_VERSION:-1.0.0}', exits 0" "exit status or text"
	fi
done
case $(printf '%s\n' "${ALLOC_TEST_VERSION:-1.0.0}") in
[0-9]*.[0-9]*.[0-9]*) pass "the version is MAJOR.MINOR.PATCH, as fsmsg's" ;;
*) fail "the version is MAJOR.MINOR.PATCH, as fsmsg's" "$ALLOC_TEST_VERSION" ;;
esac
cmd="$BIN --version >&-"
"$BIN" --version >&- 2>"$top/err"
rc=$?
if [ "$rc" = 2 ]; then pass "--version to a closed stdout: exit 2"; else fail "--version to a closed stdout: exit 2" "exit status $rc"; fi
none=$top/none	# if a usage test's arguments were accepted, the run fails harmlessly
usage "no arguments: missing DIR" "missing DIR"
usage "usage errors point to --help" "Try 'alloc_test --help'"
usage "unknown long option" "unknown option '--bogus'" --bogus "$none"
usage "unknown short option" "unknown option '-Z'" -Z "$none"
usage "unknown short option in a cluster" "unknown option '-Z'" -qZ "$none"
usage "argument to a flag" "option '--keep=1' takes no argument" --keep=1 "$none"
usage "argument to --version" "option '--version=1' takes no argument" --version=1
usage "option without its argument" "needs an argument" "$none" --max-ops
usage "bad number: letters" "invalid number 'abc' for --max-ops" --max-ops abc "$none"
usage "bad number: negative" "invalid number '-1' for --max-ops" --max-ops -1 "$none"
usage "bad number: zero" "--max-ops must be between 1" --max-ops 0 "$none"
usage "bad number: trailing junk" "invalid number '4X'" --block-size 4X "$none"
usage "bad number: overflow" "invalid number" --max-bytes 99999999999999999999 "$none"
usage "bad number: suffix overflow" "invalid number" --max-bytes 99999999999T "$none"
usage "bad number: suffix on a count" "invalid number '1K'" --max-ops 1K "$none"
usage "bad number: block size too big" "--block-size must be between 1 and" -b 65M "$none"
usage "bad number: --threads 0" "--threads must be between 1 and 512" -m flood --ops 1 -t 0 "$none"
usage "bad number: --seconds nan" "invalid number 'nan' for --seconds" -m flood --seconds nan "$none"
usage "bad number: --seconds -1" "invalid number '-1' for --seconds" -m flood --seconds -1 "$none"
usage "bad number: --seconds 0x10" "invalid number '0x10' for --seconds" -m flood --seconds 0x10 "$none"
usage "bad number: --seconds 0" "--seconds must be above 0" -m flood --seconds 0 "$none"
usage "bad number: --seconds 1.2.3" "invalid number '1.2.3'" -m flood --seconds 1.2.3 "$none"
usage "bad number: COUNT" "invalid number 'x' for COUNT" "$none" 3 x
usage "bad mode name" "unknown mode 'foo'" --mode foo "$none"
usage "bad 2011 mode number" "unknown mode '5'" "$none" 5
usage "bad --flood-op" "unknown --flood-op 'rename'" -m flood --ops 1 --flood-op rename "$none"
usage "too many arguments" "too many arguments: 'extra'" "$none" 3 5 extra
usage "MODE twice" "MODE given twice" -m files "$none" 3
usage "COUNT and --max-ops" "COUNT and --max-ops both given" --max-ops 3 "$none" 3 5
usage "flood option outside flood" "--no-fill: only valid in flood mode" -m files -t 2 "$none"
usage "--block-size in files mode" "--block-size: only valid when writing data" -m files -b 4K "$none"
usage "--fsync outside buffered mode" "--fsync: only valid in buffered mode" -m direct --fsync "$none"
usage "--max-bytes in dirs mode" "--max-bytes: only valid when writing data or symlinks" -m dirs --max-bytes 1M "$none"
usage "--after-full in flood mode" "--after-full: only valid outside flood" -m flood --ops 1 --after-full 1 "$none"
usage "--symlink-target-len in files mode" "only valid in symlinks mode" -m files --symlink-target-len 9 "$none"
usage "--symlink-target-len too long" "between 1 and 4095" -m symlinks --symlink-target-len 4096 "$none"
usage "--name-len in buffered mode" "only valid in files, dirs and symlinks modes" -m buffered --name-len 9 "$none"
usage "--name-len too long" "between 1 and 255" -m files --name-len 256 "$none"
usage "--no-fill with --max-ops" "not with --no-fill" -m flood --ops 1 --no-fill --max-ops 5 "$none"
usage "flood without --ops or --seconds" "needs --ops N or --seconds T" -m flood "$none"
usage "O_DIRECT block size" "multiple of 512" -m direct -b 1000 "$none"
usage "mmap window size" "multiple of the page size" -m mmap -b 1000 "$none"
usage "--file-size below the block size" "--file-size must be at least" -b 8K --file-size 4K "$none"
usage "--workdir-name with a slash" "plain file name" --workdir-name a/b "$none"

# setup DESC FIELDS TEXT ARGS...: a runtime error before the first operation:
# exit 2, the report line with FIELDS (result=error, the errno), TEXT on stderr.
setup() {
	desc=$1 fields=$2 text=$3
	shift 3
	run "$@"
	why=$(why_report 2 "$fields")
	case $err in
	*"$text"*) ;;
	*) why=${why:-"stderr lacks '$text'"} ;;
	esac
	if [ -z "$why" ]; then pass "$desc"; else fail "$desc" "$why"; fi
}
fresh
setup "nonexistent DIR: exit 2, report with the errno" \
	"mode=buffered ops=1 ok=0 enospc=0 short=0 other=1 errors=ENOENT:1 bytes=0 result=error" \
	"$d/none: No such file or directory" --max-ops 1 "$d/none"
: >"$d/file"
setup "DIR is a file: exit 2, report with ENOTDIR" "ops=1 other=1 errors=ENOTDIR:1 result=error" \
	"$d/file: Not a directory" -m files --max-ops 1 "$d/file"
fresh
run --json --max-ops 1 "$d/none"
if [ "$rc" = 2 ] && python3 -c 'import json, sys
j = json.loads(sys.argv[1])
assert j["errors"] == {"ENOENT": 1} and j["ops"] == 1 and j["other"] == 1 and j["result"] == "error"' "$out" 2>/dev/null; then
	pass "nonexistent DIR: --json report with the errno"
else
	fail "nonexistent DIR: --json report with the errno" "JSON"
fi
chmod 500 "$d"
if [ "$(id -u)" = 0 ]; then
	skip "unwritable DIR: mkdir of the work folder fails, report with EACCES" "root can write anywhere"
else
	setup "unwritable DIR: mkdir of the work folder fails, report with EACCES" \
		"ops=1 ok=0 other=1 errors=EACCES:1 result=error" "mkdir: Permission denied" --max-ops 1 "$d"
	check "unwritable DIR: nothing made" test -z "$(ls -A "$d")"
fi
chmod 700 "$d"

### Bounded runs: each stops before ENOSPC and exits 1

t "2011 form: DIR 3 50 creates 50 files" 1 \
	"mode=files ops=50 ok=50 enospc=0 short=0 other=0 errors=- bytes=0 result=bound" @D 3 50
case $err in
*"limit of 50 operations was reached before the filesystem reported ENOSPC"*)
	pass "2011 form: the bound is explained on stderr" ;;
*) fail "2011 form: the bound is explained on stderr" "no sentence on stderr" ;;
esac
t "2011 form with --keep" 1 "mode=files ops=50 ok=50" --keep @D 3 50
w=$(kept)
check "2011 form with --keep leaves exactly 50 files" \
	test -n "$w" -a "$(count "$w" 'file.*')" = 50 -a "$(count "$w" '*')" = 50
case $err in
*"kept $w"*) pass "--keep names the kept folder on stderr" ;;
*) fail "--keep names the kept folder on stderr" "no note" ;;
esac
t "2011 form: DIR 1 10 (buffered)" 1 "mode=buffered ops=10 ok=10 bytes=40960 result=bound" @D 1 10
t "2011 form: DIR 4 7 (dirs)" 1 "mode=dirs ops=7 ok=7 result=bound" @D 4 7
t "buffered --fsync: each write synced, counted as written" 1 \
	"mode=buffered ops=10 ok=10 bytes=40960 result=bound" --fsync @D 1 10

t "buffered --max-bytes 1M" 1 \
	"mode=buffered ops=256 ok=256 enospc=0 short=0 other=0 errors=- bytes=1048576 result=bound" \
	--max-bytes 1M
t "buffered: --max-bytes rounds up to whole blocks" 1 "ops=3 ok=3 bytes=3000" -b 1000 --max-bytes 2500
t "write is an alias of buffered" 1 "mode=buffered ops=2" -m write --max-ops 2
t "buffered: new file at --file-size" 1 "ops=5 ok=5 bytes=20480" --file-size 8K --max-ops 5 --keep
w=$(kept)
check "buffered: data files of 8K, 8K, 4K" test -n "$w" -a "$(count "$w" '*')" = 3 -a \
	"$(size "$w/data.000000") $(size "$w/data.000001") $(size "$w/data.000002")" = "8192 8192 4096"

# O_DIRECT: tmpfs may refuse it; then try a disk-backed folder.
fresh
run -m direct --max-ops 1 "$d"
if [ "$rc" = 2 ] && [ -d /var/tmp ] && [ -w /var/tmp ]; then
	dtop=$(mktemp -d /var/tmp/alloc_test_check.XXXXXX)
	d=$dtop
	run -m direct --max-ops 1 "$d"
fi
if [ "$rc" = 1 ]; then
	run -m direct --max-ops 8 "$d"
	why=$(why_report 1 "mode=direct ops=8 ok=8 enospc=0 short=0 other=0 errors=- bytes=32768 result=bound")
	[ -z "$why" ] && [ -n "$(ls -A "$d")" ] && why="work folder left behind"
	if [ -z "$why" ]; then pass "direct --max-ops 8"; else fail "direct --max-ops 8" "$why"; fi
	run "$d" 2 3
	why=$(why_report 1 "mode=direct ops=3 ok=3 bytes=12288 result=bound")
	if [ -z "$why" ]; then pass "2011 form: DIR 2 3 (direct)"; else fail "2011 form: DIR 2 3 (direct)" "$why"; fi
else
	skip "direct --max-ops 8" "O_DIRECT not supported under ${TMPDIR:-/tmp} or /var/tmp"
	skip "2011 form: DIR 2 3 (direct)" "O_DIRECT not supported"
fi
[ -n "${dtop:-}" ] && rm -rf "$dtop"

t "fallocate --max-bytes 4M" 1 \
	"mode=fallocate ops=4 ok=4 enospc=0 short=0 other=0 errors=- bytes=4194304 result=bound" \
	-m fallocate --max-bytes 4M --keep
w=$(kept)
alloc=$(stat -c '%b %B' "$w/data.000000" 2>/dev/null | awk '{ print $1 * $2 }')
check "fallocate: the file is 4M and allocated" test -n "$w" -a "$(size "$w/data.000000")" = 4194304 \
	-a "${alloc:-0}" -ge 4194304
t "files --max-ops 20" 1 "mode=files ops=20 ok=20 enospc=0 short=0 other=0 errors=- bytes=0 result=bound" \
	-m files --max-ops 20
t "dirs --max-ops 20" 1 "mode=dirs ops=20 ok=20 enospc=0 bytes=0 result=bound" -m dirs --max-ops 20 --keep
w=$(kept)
check "dirs: 20 directories kept" test -n "$w" -a "$(find "$w" -mindepth 1 -type d 2>/dev/null | wc -l)" = 20
t "symlinks --max-ops 5 --symlink-target-len 300" 1 \
	"mode=symlinks ops=5 ok=5 enospc=0 bytes=1500 result=bound" -m symlinks --max-ops 5 \
	--symlink-target-len 300 --keep
w=$(kept)
check "symlinks: targets are 300 bytes" test -n "$w" -a "$(count "$w" 'link.*')" = 5 -a \
	"$(readlink "$w/link.0" | tr -d '\n' | wc -c)" = 300
t "symlinks: default target is 200 bytes" 1 "ops=2 bytes=400" -m symlinks --max-ops 2
t "mmap --max-bytes 1M" 1 \
	"mode=mmap ops=$((1048576 / page)) ok=$((1048576 / page)) enospc=0 short=0 other=0 errors=- bytes=1048576 result=bound" \
	-m mmap --max-bytes 1M
t "mmap: windows and new files" 1 "mode=mmap ops=10 ok=10 bytes=$((10 * page))" \
	-m mmap -b $((2 * page)) --file-size $((4 * page)) --max-ops 10 --keep
w=$(kept)
check "mmap: sparse files of 4, 4 and 2 pages, one byte per page stored" test -n "$w" -a \
	"$(size "$w/data.000000") $(size "$w/data.000001") $(size "$w/data.000002")" = \
	"$((4 * page)) $((4 * page)) $((2 * page))" -a \
	"$(od -An -v -tu1 "$w/data.000000" 2>/dev/null | tr -s ' ' '\n' | grep -c '^1$')" = 4
t "--workdir-name names the folder" 1 "ops=1" -m files --max-ops 1 --keep --workdir-name mine
check "--workdir-name: DIR/mine exists" test -f "$d/mine/file.0"
setup "--workdir-name: an existing folder with files is an error, report with ENOTEMPTY" \
	"mode=files ops=1 ok=0 other=1 errors=ENOTEMPTY:1 result=error" "$d/mine: Directory not empty" \
	-m files --max-ops 1 --workdir-name mine "$d"
check "--workdir-name: the existing folder and its file are left alone" test -f "$d/mine/file.0"
rm -r "$d/mine" && mkdir "$d/mine"
t "--workdir-name: an existing empty folder is used" 1 "ops=2 ok=2" -m files --max-ops 2 --keep --workdir-name mine
check "--workdir-name: the files are in the existing folder" test -f "$d/mine/file.1"
t "--name-len 200: long entry names" 1 "ops=3 ok=3" -m dirs --max-ops 3 --name-len 200 --keep --workdir-name long
check "--name-len: names are 200 bytes" test "$(ls "$d/long" | awk '{ print length($0) }' | sort -u)" = 200
t "--quiet drops the notes" 1 "ops=1" -m files --max-ops 1 --quiet
check "--quiet: stderr is empty" test -z "$err"

### JSON

for args in "-m files --max-ops 20" "--max-bytes 64K" "-m mmap --max-ops 3" \
	    "-m flood --no-fill -t 3 --ops 7"; do
	fresh
	# shellcheck disable=SC2086
	run $args "$d"
	text=$out
	# shellcheck disable=SC2086
	run --json $args "$d"
	if python3 - "$text" "$out" 2>/dev/null <<'EOF'
import json, sys
text, js = sys.argv[1], sys.argv[2]
j = json.loads(js)
words = text.split()
assert words[0] == "alloc_test", words
kv = dict(w.split("=", 1) for w in words[1:])
assert list(kv) == list(j), (list(kv), list(j))
for k, v in kv.items():
    if k == "errors":
        assert j[k] == ({} if v == "-" else {a: int(b) for a, b in (e.split(":") for e in v.split(","))})
    elif k in ("mode", "result"):
        assert j[k] == v, k
    elif k in ("elapsed", "ops_per_sec"):
        assert isinstance(j[k], (int, float)), k
    else:
        assert isinstance(j[k], int) and j[k] == int(v), k
EOF
	then
		pass "--json $args: same keys and numbers as the report line"
	else
		fail "--json $args: same keys and numbers as the report line" "JSON differs: $out / $text"
	fi
done

### Flood without ENOSPC: exits 1

t "flood --no-fill --ops 50 -t 4" 1 \
	"mode=flood ops=200 ok=200 enospc=0 short=0 other=0 errors=- bytes=819200 result=bound threads=4" \
	-m flood --no-fill --ops 50 -t 4
case $err in
*"the flood got no ENOSPC"*) pass "flood: the missing ENOSPC is explained" ;;
*) fail "flood: the missing ENOSPC is explained" "no sentence on stderr" ;;
esac
t "flood: bounded fill, then the flood" 1 "ops=26 ok=26 bytes=106496 result=bound threads=1" \
	-m flood --max-bytes 64K --ops 10
for op in create mkdir fallocate; do
	t "flood --flood-op $op --no-fill" 1 "ops=20 ok=20 enospc=0 result=bound threads=2" \
		-m flood --flood-op $op --no-fill --ops 10 -t 2
done
t "flood --seconds 0.3" 1 "enospc=0 other=0 result=bound threads=2" -m flood --no-fill --seconds 0.3 -t 2 -b 1
el=$(field elapsed)
check "flood --seconds 0.3: ran about 0.3 s" awk "BEGIN { exit !($el >= 0.29 && $el < 5) }"
check "flood --seconds 0.3: ops_per_sec is ops / seconds" \
	awk "BEGIN { r = $(field ops) / $el; exit !($(field ops_per_sec) > r * 0.5 && $(field ops_per_sec) < r * 2) }"

### Signals: SIGTERM stops the run, cleans up, exits 2

fresh
# shellcheck disable=SC2086
$PRE "$BIN" -m flood --no-fill --seconds 60 -t 2 -b 1 "$d" >"$top/out" 2>"$top/err" &
pid=$!
sleep 1
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
out=$(cat "$top/out")
err=$(cat "$top/err")
cmd="SIGTERM during flood --seconds 60"
why=$(why_report 2 "result=error")
[ -z "$why" ] && [ -n "$(ls -A "$d")" ] && why="work folder left behind"
case $err in *"interrupted by a signal"*) ;; *) why=${why:-"no interruption message"} ;; esac
if [ -z "$why" ]; then pass "SIGTERM: report, cleanup, exit 2"; else fail "SIGTERM: report, cleanup, exit 2" "$why"; fi

### Simulated ENOSPC (enospc_shim.so): exact counts, exit 0

if [ -n "$SHIM" ] && [ -f "$SHIM" ]; then
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=5 SHIM_FUNC=write"
	t "shim: buffered stops at the first ENOSPC" 0 \
		"mode=buffered ops=6 ok=5 enospc=1 short=0 other=0 errors=- bytes=20480 result=enospc" --max-ops 1000
fi
if [ -n "$SHIM" ] && [ -f "$SHIM" ] && [ "$rc" = 0 ]; then
	t "shim: buffered --after-full 7" 0 "ops=13 ok=5 enospc=8 result=enospc" --after-full 7 --max-ops 1000
	t "shim: --max-ops caps --after-full" 0 "ops=10 ok=5 enospc=5 result=enospc" --after-full 100 --max-ops 10
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=5 SHIM_FUNC=write SHIM_SHORT=1"
	t "shim: a short write is counted, the rest is the next operation" 1 \
		"ops=10 ok=9 enospc=0 short=1 bytes=36864 result=bound" --max-ops 10
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=5 SHIM_FUNC=write SHIM_ERRNO=5"
	t "shim: EIO is an error" 2 "ops=6 ok=5 enospc=0 other=1 errors=EIO:1 result=error" --max-ops 1000
	case $err in
	*"/data.000000: write: Input/output error"*) pass "shim: EIO message names path, call and strerror" ;;
	*) fail "shim: EIO message names path, call and strerror" "message" ;;
	esac
	fresh
	run --json --max-ops 1000 "$d"
	if [ "$rc" = 2 ] && python3 -c 'import json, sys
j = json.loads(sys.argv[1])
assert j["errors"] == {"EIO": 1} and j["other"] == 1 and j["result"] == "error"' "$out" 2>/dev/null; then
		pass "shim: --json lists errors as an object"
	else
		fail "shim: --json lists errors as an object" "JSON errors"
	fi
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=1 SHIM_FUNC=openat"
	t "shim: failing open of the next data file is an operation" 0 \
		"ops=3 ok=2 enospc=1 bytes=8192 result=enospc" --file-size 8K --max-ops 1000
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=5 SHIM_FUNC=pwrite"
	t "shim: direct" 0 "mode=direct ops=7 ok=5 enospc=2 result=enospc" -m direct --after-full 1 --max-ops 1000
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=3 SHIM_FUNC=fallocate"
	t "shim: fallocate" 0 "mode=fallocate ops=4 ok=3 enospc=1 bytes=3145728 result=enospc" -m fallocate --max-ops 1000
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=10 SHIM_FUNC=openat"
	t "shim: files --after-full 2" 0 "mode=files ops=13 ok=10 enospc=3 result=enospc" -m files --after-full 2 --max-ops 1000
	PRE="env LD_PRELOAD=$SHIM SHIM_FUNC=mkdirat"
	fresh
	setup "shim: no room for the work folder: exit 2, enospc=1, result=error" \
		"mode=files ops=1 ok=0 enospc=1 short=0 other=0 errors=- bytes=0 result=error" \
		"mkdir: No space left on device" -m files --max-ops 1000 "$d"
	check "shim: no room for the work folder: nothing left" test -z "$(ls -A "$d")"
	PRE="env LD_PRELOAD=$SHIM SHIM_FUNC=mkdirat SHIM_ERRNO=13"
	fresh
	setup "shim: mkdir of the work folder EACCES: exit 2, report with the errno" \
		"ops=1 ok=0 enospc=0 other=1 errors=EACCES:1 result=error" "mkdir: Permission denied" \
		-m dirs --max-ops 1000 "$d"
	# The work folder is the first mkdirat.
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=11 SHIM_FUNC=mkdirat"
	t "shim: dirs" 0 "mode=dirs ops=11 ok=10 enospc=1 result=enospc" -m dirs --max-ops 1000
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=10 SHIM_FUNC=symlinkat"
	t "shim: symlinks" 0 "mode=symlinks ops=11 ok=10 enospc=1 bytes=2000 result=enospc" -m symlinks --max-ops 1000
	# ftruncate does not grow the file: the next window's stores get SIGBUS.
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=1 SHIM_FUNC=ftruncate"
	t "shim: mmap SIGBUS counts as ENOSPC, --after-full 3" 0 \
		"mode=mmap ops=6 ok=2 enospc=4 bytes=$((2 * page)) result=enospc" \
		-m mmap -b $((2 * page)) --after-full 3 --max-ops 1000
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=1 SHIM_FUNC=msync"
	t "shim: mmap failing msync is an operation" 0 "mode=mmap ops=5 ok=4 enospc=1 result=enospc" \
		-m mmap -b $((2 * page)) --max-ops 1000
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=5 SHIM_FUNC=write,pwrite"
	t "shim: flood write: fill ENOSPC + 3 x 100 flood ENOSPC" 0 \
		"mode=flood ops=306 ok=5 enospc=301 short=0 other=0 result=enospc threads=3" \
		-m flood -t 3 --ops 100 --max-bytes 1M
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=3 SHIM_FUNC=fallocate"
	t "shim: flood fallocate" 0 "ops=104 ok=3 enospc=101 result=enospc threads=2" \
		-m flood --flood-op fallocate -t 2 --ops 50 --max-bytes 64M
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=7 SHIM_FUNC=openat"
	t "shim: flood create" 0 "ops=108 ok=7 enospc=101 result=enospc threads=4" \
		-m flood --flood-op create -t 4 --ops 25 --max-ops 1000
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=8 SHIM_FUNC=mkdirat"
	t "shim: flood mkdir" 0 "ops=108 ok=7 enospc=101 result=enospc threads=4" \
		-m flood --flood-op mkdir -t 4 --ops 25 --max-ops 1000
	PRE="env LD_PRELOAD=$SHIM SHIM_FUNC=pwrite"
	t "shim: flood --no-fill on a full filesystem" 0 "ops=40 ok=0 enospc=40 result=enospc threads=4" \
		-m flood --no-fill -t 4 --ops 10
	PRE="env LD_PRELOAD=$SHIM SHIM_FUNC=openat"
	t "shim: flood thread files cannot be created: error" 2 "ops=1 enospc=1 result=error" \
		-m flood --no-fill -t 2 --ops 5
	case $err in
	*"run flood without --no-fill"*) pass "shim: flood explains the missing thread files" ;;
	*) fail "shim: flood explains the missing thread files" "no hint" ;;
	esac
	PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=10 SHIM_FUNC=pwrite SHIM_ERRNO=5"
	# Each thread may see its EIO before it sees the other one stop.
	t "shim: flood EIO stops all threads with an error" 2 "ok=10 result=error" \
		-m flood --no-fill -t 2 --ops 50
	case $out in
	*" other=1 errors=EIO:1 "* | *" other=2 errors=EIO:2 "*)
		pass "shim: flood EIO is counted once per thread at most" ;;
	*)	fail "shim: flood EIO is counted once per thread at most" "$out" ;;
	esac
	PRE=
else
	skip "simulated ENOSPC" "ENOSPC_SHIM not set, or LD_PRELOAD does not work here"
fi

### valgrind, on the unsanitized build

if [ -z "$PLAIN" ]; then
	skip "valgrind" "ALLOC_TEST_PLAIN not set"
elif ! command -v valgrind >/dev/null; then
	skip "valgrind" "valgrind not installed"
else
	VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all"
	saved=$BIN
	BIN=$PLAIN
	PRE=$VG
	t "valgrind: buffered --max-bytes 256K" 1 "ops=64 ok=64 result=bound" --max-bytes 256K
	t "valgrind: flood -t 3 --ops 20" 1 "ops=60 ok=60 result=bound threads=3" -m flood --no-fill -t 3 --ops 20
	if [ -n "$SHIM" ] && [ -f "$SHIM" ]; then
		PRE="env LD_PRELOAD=$SHIM SHIM_AFTER=1 SHIM_FUNC=ftruncate $VG"
		t "valgrind: mmap SIGBUS path" 0 "ops=6 ok=2 enospc=4 result=enospc" \
			-m mmap -b $((2 * page)) --after-full 3 --max-ops 1000
	fi
	PRE=
	BIN=$saved
fi

### The static build for the initramfs

if [ -z "$STATIC" ]; then
	skip "static build" "ALLOC_TEST_STATIC not set"
else
	check "static build: no program interpreter" sh -c "! readelf -l '$STATIC' | grep -q INTERP"
	saved=$BIN
	BIN=$STATIC
	t "static build: bounded run" 1 "mode=files ops=5 ok=5 result=bound" -m files --max-ops 5
	t "static build: flood threads" 1 "ops=6 ok=6 threads=3" -m flood --no-fill -t 3 --ops 2
	BIN=$saved
fi

### The man page and make install

MAN=${ALLOC_TEST_MAN:-}
if [ -z "$MAN" ] || [ ! -f "$MAN" ]; then
	skip "man page" "ALLOC_TEST_MAN not set"
else
	check "man page: .TH names version ${ALLOC_TEST_VERSION:-1.0.0}" \
		grep -q "^\.TH ALLOC_TEST 1 .*\"alloc_test ${ALLOC_TEST_VERSION:-1.0.0}\"" "$MAN"
	check "man page: EXIT STATUS lists 0, 1, 2 and 64" sh -c "sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' '$MAN' |
		grep -x '\.B [0-9]*' | tr '\n' ' ' | grep -qx '.B 0 .B 1 .B 2 .B 64 '"
	check "man page: --version documented" grep -q 'BR \\-V ", " \\-\\-version' "$MAN"
	if command -v man >/dev/null; then
		warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$MAN" 2>&1 >/dev/null)
		check "man page: man --warnings is silent" test -z "$warn"
	else
		skip "man page: man --warnings" "man not installed"
	fi
	inst=$top/inst
	if ${MAKE:-make} -s install DESTDIR="$inst" PREFIX=/opt/at >"$top/out" 2>"$top/err"; then
		check "make install DESTDIR PREFIX: the binary in PREFIX/bin, the page in PREFIX/share/man/man1" \
			test -x "$inst/opt/at/bin/alloc_test" -a -f "$inst/opt/at/share/man/man1/alloc_test.1"
		check "make install: the installed binary runs --version" \
			test "$("$inst/opt/at/bin/alloc_test" --version)" = "alloc_test ${ALLOC_TEST_VERSION:-1.0.0}"
		check "make install: the man page is 0644" test "$(stat -c %a "$inst/opt/at/share/man/man1/alloc_test.1")" = 644
	else
		cmd="make install DESTDIR=$inst" rc=$?
		fail "make install DESTDIR PREFIX" "make install failed"
	fi
fi

### The README documents the exit statuses

README=${ALLOC_TEST_MAN:+$(dirname "$ALLOC_TEST_MAN")/README.md}
if [ -n "$README" ] && [ -f "$README" ]; then
	check "README: exit statuses 0, 1, 2 and 64" sh -c "sed -n '/^## Exit status/,\$p' '$README' |
		grep -o '^- [0-9]*:' | tr '\n' ' ' | grep -qx '\- 0: - 1: - 2: - 64: '"
else
	skip "README exit statuses" "README not found"
fi

echo "1..$n"
echo "# $passed passed, $failed failed"
[ "$failed" = 0 ] && exit 0
exit 1
