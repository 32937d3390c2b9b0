#!/bin/bash
# make conformance: tests/conformance/run.sh [BUILD_DIR]   (default: build)
#
# Runs tpm2-tools' own integration suite (an unmodified copy in ../shared/peer-suites, never
# copied here) the way upstream does: each tests/NAME.sh sources helpers.sh, which starts a fresh
# simulator in a fresh directory and tpm2-abrmd in front of it. Once against pqtpm-server (as
# the "tpm_server" helpers.sh knows, through a wrapper in BUILD_DIR/conformance/sim) and once
# against Debian's swtpm. Every test runs in its own D-Bus session so that two may run at once.
#
# Writes BUILD_DIR/conformance/<tpm>/<test>.log, results.tsv (tpm, test, result, response code
# of the first TPM error in a failing test) and report.md (the table and each failing test), and
# prints report.md. Environment: PEER_SUITE (default: shared/peer-suites/tpm2-tools-5.4 next to
# the project or to the clone it is a worktree of), CONFORMANCE_TPMS (default "pqtpm swtpm"),
# CONFORMANCE_TESTS (test names, default all), CONFORMANCE_JOBS (default 2),
# CONFORMANCE_TIMEOUT (seconds per test, default 1200: abrmd_policycphash, the longest, took over
# 300 s on both TPMs with 2 cores shared by many builds).
# Exits non-zero when something needed is missing; failing peer tests are the report, not an
# error.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
abs() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
BUILD_DIR=$(abs "${1:-build}")
# ../shared next to a clone, ../../shared next to a worktree of one.
if [ -n "${PEER_SUITE:-}" ]; then
	SUITE=$(abs "$PEER_SUITE")
elif [ -d "$root/../shared/peer-suites/tpm2-tools-5.4" ]; then
	SUITE=$(cd "$root/../shared/peer-suites/tpm2-tools-5.4" && pwd)
else
	SUITE=$(cd "$root/../.." && pwd)/shared/peer-suites/tpm2-tools-5.4
fi
OUT=$BUILD_DIR/conformance
TPMS=${CONFORMANCE_TPMS:-pqtpm swtpm}
JOBS=${CONFORMANCE_JOBS:-2}
TIMEOUT=${CONFORMANCE_TIMEOUT:-1200}

need() {
	command -v "$1" >/dev/null || { echo "conformance: $1 not found ($2)" >&2; exit 1; }
}
[ -f "$SUITE/integration/helpers.sh" ] || { echo "conformance: no suite at $SUITE" >&2; exit 1; }
[ -x "$BUILD_DIR/bin/pqtpm-server" ] ||
	{ echo "conformance: $BUILD_DIR/bin/pqtpm-server not built" >&2; exit 1; }
need tpm2-abrmd "scripts/install-deps.sh conformance"
need tpm2 "scripts/install-deps.sh"
need swtpm "scripts/install-deps.sh"
need dbus-run-session "dbus-daemon, with tpm2-abrmd"
need ss "iproute2: helpers.sh checks the simulator's ports with it"

rm -rf "$OUT"
mkdir -p "$OUT/sim/bin" "$OUT/sim/exec" "$OUT/src/test"
# helpers.sh names fixtures as $srcdir/test/integration/...: a link to the suite, not a copy.
ln -s "$SUITE/integration" "$OUT/src/test/integration"
# helpers.sh checks that the listening process's name contains "tpm_server": the server is
# exec'd through a link of that name, with the arguments IBM's simulator takes (-port N).
ln -s "$BUILD_DIR/bin/pqtpm-server" "$OUT/sim/exec/tpm_server"
cat >"$OUT/sim/bin/tpm_server" <<EOF
#!/bin/sh
# IBM simulator's command line (-port N) to pqtpm-server, state in the test's fresh directory.
set -eu
[ "\$1" = -port ] || { echo "tpm_server wrapper: usage: tpm_server -port N" >&2; exit 2; }
mkdir -m 0700 -p "\$PWD/pqtpm-state"
# Without EK certificates, as the reference simulators the suite is written for start
# (docs/conformance.md): tests take "the" NV index from tpm2_nvreadpublic's whole list.
exec "$OUT/sim/exec/tpm_server" --state-dir "\$PWD/pqtpm-state" --bind 127.0.0.1 \\
	--port "\$2" --platform-port "\$((\$2 + 1))" --threads 1 --log-level warn \\
	--ek-certificates no
EOF
chmod 0755 "$OUT/sim/bin/tpm_server"

tests=${CONFORMANCE_TESTS:-$(cd "$SUITE/integration/tests" && ls *.sh | sed 's/\.sh$//')}

# One test against one TPM: exit status 0 pass, 77 skip, other fail (automake's convention).
run_one() {
	local tpm=$1 t=$2 sim log rc
	case $tpm in
		pqtpm) sim=tpm_server ;;
		swtpm) sim=swtpm ;;
	esac
	log=$OUT/$tpm/$t.log
	mkdir -p "$OUT/$tpm/work/$t"
	rc=0
	# From the top of the "source tree" with a relative script path, as upstream's make check.
	(cd "$OUT/src" &&
		PATH="$OUT/sim/bin:$SUITE/integration:$PATH" TPM2_SIM=$sim TPM2_ABRMD=tpm2-abrmd \
		PYTHON=python3 TMPDIR="$OUT/$tpm/work/$t" srcdir="$OUT/src" abs_srcdir="$OUT/src" \
		abs_builddir="$OUT/$tpm/work/$t" \
		timeout -k 10 "$TIMEOUT" dbus-run-session -- bash "test/integration/tests/$t.sh" \
		</dev/null >"$log" 2>&1) || rc=$?
	local result=failed code=-
	case $rc in
		0) result=passed ;;
		77) result=skipped ;;
		*)
			# The first response code a tool reported (ESAPI "ErrorCode (0x...)" or a raw
			# "Error: 0x..."), else the exit status of the test.
			code=$(grep -oE 'ErrorCode \(0x[0-9a-fA-F]+\)|rc=0x[0-9a-fA-F]+|[Ee]rror:? \(?0x[0-9a-fA-F]+' \
				"$log" | head -n1 | grep -oE '0x[0-9a-fA-F]+' || true)
			[ -n "$code" ] || code="exit $rc"
			[ "$rc" = 124 ] && code="timeout"
			;;
	esac
	printf '%s\t%s\t%s\t%s\n' "$tpm" "$t" "$result" "$code" >"$OUT/$tpm/$t.result"
	printf '%-6s %-32s %s %s\n' "$tpm" "$t" "$result" "$([ "$code" = - ] || echo "$code")"
}
export -f run_one
export OUT SUITE TIMEOUT

for tpm in $TPMS; do
	mkdir -p "$OUT/$tpm"
	for t in $tests; do echo "$tpm $t"; done
done | xargs -P "$JOBS" -L 1 bash -c 'run_one "$0" "$1"'

cat "$OUT"/*/*.result | sort >"$OUT/results.tsv"
{
	echo "# tpm2-tools 5.4 integration suite (behind tpm2-abrmd, fresh server per test)"
	echo
	echo "| TPM | passed | failed | skipped |"
	echo "| --- | --- | --- | --- |"
	for tpm in $TPMS; do
		awk -F'\t' -v t="$tpm" '$1 == t { n[$3]++ }
			END { printf "| %s | %d | %d | %d |\n", t, n["passed"], n["failed"], n["skipped"] }' \
			"$OUT/results.tsv"
	done
	for tpm in $TPMS; do
		echo
		echo "## $tpm: failed and skipped"
		echo
		awk -F'\t' -v t="$tpm" '$1 == t && $3 != "passed" {
			printf "- %s: %s%s\n", $2, $3, ($4 == "-" ? "" : " (" $4 ")"); n++ }
			END { if (!n) print "none" }' "$OUT/results.tsv"
	done
	echo
	echo "Logs: $OUT/<tpm>/<test>.log"
} >"$OUT/report.md"
cat "$OUT/report.md"
