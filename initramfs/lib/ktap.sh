# SPDX-License-Identifier: GPL-2.0
# KTAP output for the guest tests, after the kernel's
# tools/testing/selftests/kselftest/ktap_helpers.sh.

KTAP_TESTNO=1
KTAP_CNT_PASS=0
KTAP_CNT_FAIL=0
KTAP_CNT_SKIP=0

ktap_print_header() {
	echo "TAP version 13"
}

ktap_set_plan() {
	echo "1..$1"
}

ktap_print_msg() {
	echo "# $*"
}

ktap_test_pass() {
	echo "ok $KTAP_TESTNO $1"
	KTAP_TESTNO=$((KTAP_TESTNO + 1))
	KTAP_CNT_PASS=$((KTAP_CNT_PASS + 1))
}

ktap_test_skip() {
	echo "ok $KTAP_TESTNO $1 # SKIP $2"
	KTAP_TESTNO=$((KTAP_TESTNO + 1))
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
}

ktap_test_fail() {
	echo "not ok $KTAP_TESTNO $1"
	KTAP_TESTNO=$((KTAP_TESTNO + 1))
	KTAP_CNT_FAIL=$((KTAP_CNT_FAIL + 1))
}

ktap_exit_fail_msg() {
	echo "Bail out! $*"
	exit 1
}

ktap_finished() {
	echo "# Totals: pass:$KTAP_CNT_PASS fail:$KTAP_CNT_FAIL xfail:0 xpass:0 skip:$KTAP_CNT_SKIP error:0"
}
