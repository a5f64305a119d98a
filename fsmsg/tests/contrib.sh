#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Checks of ../contrib/, the files that plug fsmsg into a fleet's tools:
# the Prometheus rules (promtool check rules, promtool test rules), the
# systemd unit (systemd-analyze verify), the journal catalog (journalctl
# --update-catalog into a scratch root), the rsyslog snippet (rsyslogd
# -N1), and that the MESSAGE_IDs of the sources, the man page, the catalog
# and the README agree. A missing tool is a SKIP. TAP on stdout.
#
# usage: contrib.sh CONTRIB_DIR FSMSG [PROMTOOL]

CONTRIB=${1:?usage: contrib.sh CONTRIB_DIR FSMSG [PROMTOOL]}
FSMSG=${2:?usage: contrib.sh CONTRIB_DIR FSMSG [PROMTOOL]}
PROMTOOL=${3:-promtool}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsmsg-contrib.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	sed 's/^/#   /' "$TMP/log" | head -n 30
}
# run NAME CMD...: a point, the command's output shown when it fails
run() {
	name=$1
	shift
	if "$@" >"$TMP/log" 2>&1; then ok "$name"; else not_ok "$name"; fi
}
have() { command -v "$1" >/dev/null 2>&1; }

echo "TAP version 13"

RULES=$CONTRIB/prometheus/fsmsg-alerts.yml
if have "$PROMTOOL"; then
	run "promtool check rules prometheus/fsmsg-alerts.yml" "$PROMTOOL" check rules "$RULES"
	# promtool resolves rule_files: relative to the test file.
	run "promtool test rules prometheus/fsmsg-alerts.test.yml" \
		"$PROMTOOL" test rules "$CONTRIB/prometheus/fsmsg-alerts.test.yml"
else
	skip "promtool check rules, test rules" "promtool not installed (Debian: prometheus)"
fi

# The unit as installed, with ExecStart= pointing at the built binary.
UNIT=$CONTRIB/systemd/fsmsg-prometheus.service
mkdir -p "$TMP/unit"
printf '[Service]\nExecStart=/bin/true\n' >"$TMP/unit/probe.service"
if have systemd-analyze &&
   systemd-analyze verify --man=no "$TMP/unit/probe.service" >/dev/null 2>&1; then
	sed "s|/usr/local/sbin/fsmsg|$FSMSG|" "$UNIT" >"$TMP/unit/fsmsg-prometheus.service"
	run "systemd-analyze verify systemd/fsmsg-prometheus.service" \
		systemd-analyze verify --man=no "$TMP/unit/fsmsg-prometheus.service"
else
	skip "systemd-analyze verify" "systemd-analyze not usable here"
fi
run "the unit runs fsmsg with --journal and the Debian textfile folder, writable" \
	eval "grep -q '^ExecStart=/usr/local/sbin/fsmsg -F --journal --quiet --prometheus-textfile /var/lib/prometheus/node-exporter/fsmsg.prom\$' '$UNIT' &&
	      grep -q '^ReadWritePaths=-/var/lib/prometheus/node-exporter\$' '$UNIT' &&
	      grep -q '^CapabilityBoundingSet=CAP_SYS_ADMIN CAP_NET_ADMIN\$' '$UNIT' &&
	      grep -q '^RestrictAddressFamilies=AF_NETLINK AF_UNIX\$' '$UNIT'"

# The catalog, compiled into a scratch root.
CATALOG=$CONTRIB/journald/fsmsg.catalog
if have journalctl; then
	mkdir -p "$TMP/root/usr/lib/systemd/catalog"
	cp "$CATALOG" "$TMP/root/usr/lib/systemd/catalog/"
	if journalctl --root="$TMP/root" --update-catalog >"$TMP/log" 2>&1 &&
	   journalctl --root="$TMP/root" --list-catalog >"$TMP/catalog" 2>>"$TMP/log" &&
	   [ "$(grep -c ' fsmsg: ' "$TMP/catalog")" -eq 9 ]; then
		ok "journald/fsmsg.catalog compiles, nine entries"
	else
		cat "$TMP/catalog" >>"$TMP/log" 2>/dev/null
		not_ok "journald/fsmsg.catalog compiles, nine entries"
	fi
else
	skip "journald/fsmsg.catalog" "journalctl not installed"
fi

if have rsyslogd; then
	mkdir -p "$TMP/spool"
	printf '$WorkDirectory %s\ninclude(file="%s")\n' "$TMP/spool" \
		"$(cd "$CONTRIB/rsyslog" && pwd)/30-fsmsg.conf" >"$TMP/rsyslog.conf"
	run "rsyslogd -N1: rsyslog/30-fsmsg.conf" rsyslogd -N1 -f "$TMP/rsyslog.conf"
else
	skip "rsyslogd -N1: rsyslog/30-fsmsg.conf" "rsyslog not installed"
fi

# One set of MESSAGE_IDs everywhere.
ids() { grep -o '[0-9a-f]\{32\}' "$@" | sort -u; }
sed -n 's/^#define FSM_MSGID_[A-Z_]*[[:space:]]*"\([0-9a-f]\{32\}\)"$/\1/p' src/journal.h | sort -u >"$TMP/src"
sed -n 's/^-- \([0-9a-f]\{32\}\)$/\1/p' "$CATALOG" | sort -u >"$TMP/cat"
sed -n 's/^\.B \([0-9a-f]\{32\}\)$/\1/p' fsmsg.8 | sort -u >"$TMP/man"
ids "$CONTRIB/README.md" >"$TMP/readme"
if [ "$(wc -l <"$TMP/src")" -eq 9 ] && cmp -s "$TMP/src" "$TMP/cat" &&
   cmp -s "$TMP/src" "$TMP/man" && cmp -s "$TMP/src" "$TMP/readme"; then
	ok "MESSAGE_IDs: the same nine in src/journal.h, fsmsg.8, the catalog, the README"
else
	{
		echo "sources:"; cat "$TMP/src"
		echo "catalog:"; cat "$TMP/cat"
		echo "man page:"; cat "$TMP/man"
		echo "README:"; cat "$TMP/readme"
	} >"$TMP/log"
	not_ok "MESSAGE_IDs: the same nine in src/journal.h, fsmsg.8, the catalog, the README"
fi

# The metric names the rules use are the ones fsmsg writes.
grep -o 'fsmsg_[a-z_]*[a-z]' "$RULES" | sort -u >"$TMP/used"
grep -o 'fsmsg_[a-z_]*[a-z]' src/metrics.c | sort -u >"$TMP/written"
if [ -s "$TMP/used" ] && [ -z "$(comm -23 "$TMP/used" "$TMP/written")" ]; then
	ok "the rules use only metrics fsmsg writes"
else
	{ echo "used by the rules:"; cat "$TMP/used"; echo "written:"; cat "$TMP/written"; } >"$TMP/log"
	not_ok "the rules use only metrics fsmsg writes"
fi

# The labels the rules match, aggregate and query by are ones the series
# have: fsmsg's (the {name=\"...\"} of src/metrics.c) or the target's
# instance and job. Never device to find a filesystem's info series: it
# has mountinfo's "/dev/vdb" where fsmsg_warnings_total has the kernel's
# "vdb".
{
	grep -o '\(on\|by\|group_left\|group_right\)([^)]*)' "$RULES" |
		sed 's/^[a-z_]*(//; s/)$//' | tr ',' '\n'
	grep -o '[a-z_]*=%q' "$RULES" | sed 's/=%q$//'
	grep -o '\(sortByLabel\|label\) "[a-z_]*"' "$RULES" | sed 's/.* "//; s/"$//'
} | tr -d ' ' | sed '/^$/d' | sort -u >"$TMP/labels"
{ grep -o '[a-z_]*=\\"' src/metrics.c | sed 's/=.*//'; echo instance; echo job; } |
	sort -u >"$TMP/written"
{ grep -o 'on([^)]*)' "$RULES" | grep -w device; grep -o 'device=%q' "$RULES"; } >"$TMP/bad"
if [ -s "$TMP/labels" ] && [ -z "$(comm -23 "$TMP/labels" "$TMP/written")" ] &&
   [ ! -s "$TMP/bad" ]; then
	ok "the rules match and query by labels fsmsg writes (or instance, job), not device"
else
	{ echo "used by the rules:"; cat "$TMP/labels"; echo "written:"; cat "$TMP/written"
	  echo "device to match:"; cat "$TMP/bad"; } >"$TMP/log"
	not_ok "the rules match and query by labels fsmsg writes (or instance, job), not device"
fi

# Every @FIELD@ the catalog substitutes is a field src/journal.c writes
# (journalctl shows the name itself for one an entry lacks).
grep -o '@[A-Z0-9_]*@' "$CATALOG" | tr -d @ | sort -u >"$TMP/catfields"
grep -o '"[A-Z][A-Z0-9_]*"' src/journal.c | tr -d '"' | sort -u >"$TMP/jfields"
if [ -s "$TMP/catfields" ] && [ -z "$(comm -23 "$TMP/catfields" "$TMP/jfields")" ]; then
	ok "the catalog substitutes only fields fsmsg writes"
else
	{ echo "in the catalog:"; cat "$TMP/catfields"; echo "written:"; cat "$TMP/jfields"; } >"$TMP/log"
	not_ok "the catalog substitutes only fields fsmsg writes"
fi

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
