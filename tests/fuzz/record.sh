#!/bin/bash
# Records real client traffic and turns it into fuzz_engine's seed corpus.
#
#   tests/fuzz/record.sh [BUILD_DIR]        (default: build; needs its pqtpm-server)
#
# 1. Runs the tpm2-tools and ESAPI integration tests (and a few session-heavy tpm2-tools
#    flows) against servers started with PQTPM_RECORD_DIR, which makes pqtpm-server write
#    every command it receives to a file (mssim/conn.c; a debug aid: secrets in clear).
# 2. Turns each connection's commands, in order, into one fuzz_engine input (records of
#    u8 flags = 0, u16 length, command; see fuzz_engine.c), dropping duplicates.
# 3. Merges them into tests/fuzz/corpus/engine/ with libFuzzer's -merge=1 (only inputs that
#    add coverage are kept), building fuzz_engine first if needed.
# A failing integration test still leaves useful traffic; this script does not judge them.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
BUILD_DIR=${1:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$root/$BUILD_DIR ;; esac
export BUILD_DIR
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}

rec=$(mktemp -d "${TMPDIR:-/tmp}/pqtpm-record.XXXXXX")
seeds=$(mktemp -d "${TMPDIR:-/tmp}/pqtpm-seeds.XXXXXX")
trap 'rm -rf "$rec" "$seeds"' EXIT
export PQTPM_RECORD_DIR=$rec

# every tpm2-tools script, every ESAPI program, the post-quantum client programs
tests=$(cd tests/integration && ls tpm2tools_*.sh esys_*.c pq_tool.c pq_mssim.c 2>/dev/null |
	sed 's/\.[a-z]*$//')
progs=$(for t in $tests; do
	if [ -e "tests/integration/$t.c" ]; then echo "$BUILD_DIR/tests/$t"; fi
done)
echo "record: building the server and the test programs in $BUILD_DIR"
# shellcheck disable=SC2086
${MAKE:-make} --no-print-directory -s BUILD="$BUILD_DIR" all $progs
echo "record: integration tests with recording on ($rec)"
# shellcheck disable=SC2086
tests/run-integration.sh "$BUILD_DIR" $tests | grep -E '^(PASS|FAIL|SKIP)|passed' || true

echo "record: session flows"
(
	# shellcheck source=tests/integration/lib.sh
	. tests/integration/lib.sh
	tpm_start
	run "startup" tpm2_startup -c
	run "primary" tpm2_createprimary -C o -G ecc256 -c "$T/p.ctx"
	run "createprimary rsa" tpm2_createprimary -C e -G rsa2048 -c "$T/r.ctx"
	run "create under primary" tpm2_create -C "$T/p.ctx" -G ecc256 -u "$T/k.pub" -r "$T/k.priv"
	run "load" tpm2_load -C "$T/p.ctx" -u "$T/k.pub" -r "$T/k.priv" -c "$T/k.ctx"
	echo data >"$T/msg"
	run "sign" tpm2_sign -c "$T/k.ctx" -g sha256 -o "$T/sig" "$T/msg"
	run "verify" tpm2_verifysignature -c "$T/k.ctx" -g sha256 -m "$T/msg" -s "$T/sig"
	run "hash" tpm2_hash -g sha256 -C o "$T/msg"
	run "hmac key" tpm2_create -C "$T/p.ctx" -G hmac -c "$T/h.ctx"
	run "hmac" tpm2_hmac -c "$T/h.ctx" "$T/msg"
	run "pcr event" tpm2_pcrevent 16 "$T/msg"
	run "readclock" tpm2_readclock
	run "getcap" tpm2_getcap properties-variable
	run "testparms" tpm2_testparms ecc256
	run "selftest" tpm2_selftest -f
	run "gettestresult" tpm2_gettestresult
	run "stirrandom" tpm2_stirrandom "$T/msg"
	run "evict" tpm2_evictcontrol -C o -c "$T/p.ctx" 0x81000010
	run "readpublic" tpm2_readpublic -c 0x81000010
	run "unevict" tpm2_evictcontrol -C o -c 0x81000010
	run "changeauth" tpm2_changeauth -c o newpass
	run "changeauth back" tpm2_changeauth -c o -p newpass
	run "clear" tpm2_clear -c p
	# one connection: a key, signatures, HMAC sessions (tests/load/load.c, 1 client)
	if cc -std=c11 -D_GNU_SOURCE -O2 tests/load/load.c -lpthread -o "$T/load"; then
		run "load flow" "$T/load" 127.0.0.1 "$PORT" 1 24
	fi
	finish
) | grep -E 'passed' || true

echo "record: $(find "$rec" -name '*.cmd' | wc -l) commands recorded"
# One seed per connection: its commands in order, each as u8 0, u16 length, bytes; a long
# connection is cut into seeds of at most 128 commands (what fuzz_engine runs of an input).
perl -e '
	use strict; use Digest::SHA qw(sha1_hex);
	my ($rec, $out) = @ARGV;
	opendir(my $d, $rec) or die; my @f = sort grep { /\.cmd$/ } readdir($d); closedir($d);
	my (%conn, %cnt, @order);
	for my $f (@f) {
		my ($pid, $id) = $f =~ /^(\d+)-(\d+)-/ or next;
		my $k = "$pid-$id"; $cnt{$k}++;
		$k .= "-" . int(($cnt{$k} - 1) / 128);
		push @order, $k unless exists $conn{$k};
		open(my $h, "<:raw", "$rec/$f") or die; local $/; my $b = <$h>; close($h);
		$conn{$k} .= pack("Cn", 0, length($b)) . $b;
	}
	my %seen; my $n = 0;
	for my $k (@order) {
		my $s = sha1_hex($conn{$k}); next if $seen{$s}++;
		open(my $h, ">:raw", "$out/rec-$s") or die; print $h $conn{$k}; close($h); $n++;
	}
	print "record: $n distinct connections\n";
' "$rec" "$seeds"

tests/fuzz/run.sh build
mkdir -p tests/fuzz/corpus/engine
"$FUZZ_BUILD/fuzz/fuzz_engine" -merge=1 -max_len=16384 -timeout=60 tests/fuzz/corpus/engine \
	"$seeds" 2>&1 | grep -E 'MERGE-OUTER: [0-9]+ new files' || true
echo "record: tests/fuzz/corpus/engine: $(find tests/fuzz/corpus/engine -type f | wc -l) files," \
	"$(du -sh tests/fuzz/corpus/engine | cut -f1)"
