#!/bin/bash
# tests/bench/report.sh RESULTS.tsv OUT_DIR: OUT_DIR/report.md and OUT_DIR/report.png from the
# figures run.sh collected, then the Markdown on stdout and the two paths.
#
# RESULTS.tsv: impl<TAB>mode<TAB>key<TAB>label<TAB>unit<TAB>median<TAB>p99<TAB>samples, one line
# per RESULT line of a bench program; impl is pqtpm-sp, pqtpm-system or swtpm; mode is pinned
# (server and client on their own CPU), unpinned (the concurrent-client runs: tpm_bench's
# GetRandom, head_of_line, sign_scaling) or engine (in-process). The groups, their order and the issue targets are in the awk program below; a
# figure that no group claims lands in "Other figures", so a new bench program needs no edit
# here. Environment (from run.sh, all optional): BENCH_QUICK, BENCH_ELAPSED (seconds),
# BENCH_PINNED (1 when pinned), BENCH_SWTPM_VERSION. Needs gnuplot (tests/bench/report.gp).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
tsv=$1
out=$2
if [ ! -s "$tsv" ]; then
	echo "report: no figures in $tsv" >&2
	exit 1
fi
if ! command -v gnuplot >/dev/null; then
	echo "report: gnuplot not found (Debian: gnuplot-nox; scripts/install-deps.sh bench)" >&2
	exit 1
fi
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pqtpm-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

run="Full run"
case ${BENCH_QUICK:-0} in "" | 0) ;; *) run="Quick run (BENCH_QUICK=1)" ;; esac
wolf_sp=$(sed -n 's/.*LIBWOLFSSL_VERSION_STRING "\(.*\)"/\1/p' \
	"$here/../../build/wolfssl-sp/include/wolfssl/version.h" 2>/dev/null || true)
wolf_sys=$(dpkg-query -W -f='${Version}' libwolfssl-dev 2>/dev/null || true)

{
	echo "# pqtpm benchmark report"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n): $(nproc) CPUs," \
		"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)." \
		"$run, ${BENCH_ELAPSED:-?} s of measuring;" \
		"load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
	echo "- **pqtpm SP**: pqtpm with the static wolfCrypt ${wolf_sp:+$wolf_sp }built with SP math" \
		"and x86-64 assembly (the default build)."
	echo "- **pqtpm system**: pqtpm with Debian's libwolfssl ${wolf_sys:+$wolf_sys }(\`make WOLFSSL=system\`)."
	echo "- **swtpm**: Debian's ${BENCH_SWTPM_VERSION:-swtpm}, raw command port (it serves one" \
		"connection at a time)."
	if [ "${BENCH_PINNED:-}" = 1 ]; then
		echo "- Latencies: server pinned to CPU 1, client to CPU 0 (\`taskset\`), fresh state for each server."
	else
		echo "- Latencies: server and client not pinned (fewer than two CPUs or no taskset)."
	fi
	echo "- Concurrent clients: a fresh server and the clients **unpinned** (scaling needs both CPUs)."
} >"$tmp/head.md"

awk -F'\t' -v tpmdat="$tmp/tpm.dat" -v pqdat="$tmp/pq.dat" -v signdat="$tmp/sign.dat" \
	-v tgtmd="$tmp/targets.md" -v tgt14md="$tmp/targets14.md" '
function has(v) { return v != "" && v != "-" && v != "n/a" && v + 0 > 0 }
function cell(v) { return has(v) ? v : (v == "-" ? "-" : "n/a") }
function us(k) { return unit[k] == "us" }
# How many times faster pqtpm (a) is than the peer (b) for figure k, or n/a. (mawk, the default
# awk, takes no line break after ? or :)
function times_peer(a, b, k) {
	if (!has(a) || !has(b) || !(us(k) || unit[k] == "ops/s"))
		return "n/a"
	return sprintf("%.2fx", us(k) ? b / a : a / b)
}
function val(impl, mode, k,    v) {
	v = med[impl, mode, k]
	if (!has(v))
		return cell(v)
	return us(k) ? v : unit[k] == "x" ? v "x" : v " " unit[k]
}
# swtpm / pqtpm SP for times, pqtpm SP / swtpm for rates: how many times faster pqtpm SP is.
function ratio(mode, k,    a, b) {
	a = med["pqtpm-sp", mode, k]; b = med["swtpm", mode, k]
	if (!has(a) || !has(b))
		return "n/a"
	return sprintf("%.2f", us(k) ? b / a : a / b)
}
# The issue'"'"'s targets are for figures over the socket, so only for pinned rows.
function target(mode, k,    v) {
	if (!(k in tmax) || mode != "pinned")
		return ""
	v = med["pqtpm-sp", mode, k]
	if (!has(v))
		return "≤ " tmax[k] " µs: n/a"
	return "≤ " tmax[k] " µs: " (v + 0 <= tmax[k] ? "met" : "missed")
}
function plotnum(v) { return has(v) ? v : "NaN" }
function begin_group(title, kind) {
	printf "\n## %s\n\n", title
	if (kind == "one") {
		print "| figure | pqtpm SP | p99 |"
		print "| --- | ---: | ---: |"
	} else if (kind == "three") {
		print "| operation | pqtpm SP median | p99 | pqtpm system median | p99 | swtpm median | p99 | swtpm / pqtpm SP | target (pqtpm SP) |"
		print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
	} else {
		print "| operation | pqtpm SP median | p99 | pqtpm system median | p99 |"
		print "| --- | ---: | ---: | ---: | ---: |"
	}
}
function row(mode, k, kind, plot) {
	claimed[mode, k] = 1
	if (kind == "one")
		printf "| %s | %s | %s |\n", label[k], val("pqtpm-sp", mode, k),
		       cell(p99["pqtpm-sp", mode, k])
	else if (kind == "three")
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label[k],
		       val("pqtpm-sp", mode, k), cell(p99["pqtpm-sp", mode, k]),
		       val("pqtpm-system", mode, k), cell(p99["pqtpm-system", mode, k]),
		       val("swtpm", mode, k), cell(p99["swtpm", mode, k]), ratio(mode, k), target(mode, k)
	else
		printf "| %s | %s | %s | %s | %s |\n", label[k],
		       val("pqtpm-sp", mode, k), cell(p99["pqtpm-sp", mode, k]),
		       val("pqtpm-system", mode, k), cell(p99["pqtpm-system", mode, k])
	if (plot && us(k))
		printf "%s\t%s\t%s\t%s\n", label[k], plotnum(med["pqtpm-sp", mode, k]),
		       plotnum(med["pqtpm-system", mode, k]), plotnum(med["swtpm", mode, k]) >tpmdat
}
# A table of the figures of MODE whose key matches RE, in the order the programs printed them.
function group(title, mode, re, kind, plot,    i, k, any) {
	for (i = 1; i <= n[mode]; i++) {
		k = ord[mode, i]
		if (k ~ re && !claimed[mode, k]) {
			if (!any++)
				begin_group(title, kind)
			row(mode, k, kind, plot)
		}
	}
	return any
}
# 4 clients / 1 client, per implementation; target: at least twice.
function scaling(mode,    impl, s, a, b, i, t) {
	split("pqtpm-sp pqtpm-system swtpm", impl, " ")
	for (i = 1; i <= 3; i++) {
		a = med[impl[i], mode, "getrandom_ops_4"]; b = med[impl[i], mode, "getrandom_ops_1"]
		s[i] = has(a) && has(b) ? sprintf("%.2fx", a / b) : "n/a"
	}
	a = med["pqtpm-sp", mode, "getrandom_ops_4"]; b = med["pqtpm-sp", mode, "getrandom_ops_1"]
	t = "≥ 2x: " (has(a) && has(b) ? (a / b >= 2 ? "met" : "missed") : "n/a")
	printf "| ops/s 4 clients ÷ 1 client | %s | - | %s | - | %s | - | - | %s |\n", s[1], s[2], s[3], t
	scale_sp = s[1]; scale_t = t
}
# The PKCS#11 figures (p11_bench, mode p11): ours (p11_X, both builds) against SoftHSMv2
# (p11_peer_X, measured in the run of the SP build), with the targets of issue 13.
function p11_target(mode, x,    a, b) {
	a = med["pqtpm-sp", mode, "p11_" x]; b = med["pqtpm-sp", mode, "p11_peer_" x]
	if (x == "sign_ecdsa_p256_1t" || x == "sign_rsa2048_1t")
		return "≥ " (x ~ /ecdsa/ ? "1.4" : "1.2") "x SoftHSMv2: " \
		       (has(a) && has(b) ? (a / b >= (x ~ /ecdsa/ ? 1.4 : 1.2) ? "met" : "missed") : "n/a")
	if (x ~ /_2t$/) {
		b = med["pqtpm-sp", mode, "p11_" substr(x, 1, length(x) - 2) "1t"]
		return "≥ 1.8x 1 thread: " (has(a) && has(b) ? sprintf("%.2fx, ", a / b) \
		       (a / b >= 1.8 ? "met" : "missed") : "n/a")
	}
	if (x == "sign_mldsa65_1t")
		return "≥ 2000 ops/s: " (has(a) ? (a + 0 >= 2000 ? "met" : "missed") : "n/a")
	if (x == "login")
		return "< 1000 µs: " (has(a) ? (a + 0 < 1000 ? "met" : "missed") : "n/a")
	return ""
}
function p11(mode,    i, k, x, a, b, any) {
	for (i = 1; i <= n[mode]; i++) {
		k = ord[mode, i]
		if (k !~ /^p11_/ || k ~ /^p11_peer_/)
			continue
		x = substr(k, 5)
		claimed[mode, k] = claimed[mode, "p11_peer_" x] = 1
		if (!any++) {
			printf "\n## PKCS#11 (p11_bench: the module on an embedded TPM and SoftHSMv2, the same code in one run, unpinned)\n\n"
			print "| operation | pqtpm SP median | p99 | pqtpm system median | SoftHSMv2 median | p99 | pqtpm SP vs SoftHSMv2 | target (issue 13, pqtpm SP) |"
			print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
		}
		a = med["pqtpm-sp", mode, k]; b = med["pqtpm-sp", mode, "p11_peer_" x]
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", label[k], val("pqtpm-sp", mode, k),
		       cell(p99["pqtpm-sp", mode, k]), val("pqtpm-system", mode, k),
		       val("pqtpm-sp", mode, "p11_peer_" x), cell(p99["pqtpm-sp", mode, "p11_peer_" x]),
		       times_peer(a, b, k), p11_target(mode, x)
	}
	if (any)
		print "\nops/s: all threads together, the median of five timed windows; with two threads each has its own session and key. CPU time per signature: the signing thread'"'"'s CPU clock over its signatures (the embedded TPM runs in that thread), which other load on the machine changes far less than ops/s. The busy-loop row says how much two threads could get from the machine during the run: two-thread figures are worth no more than it. \"pqtpm SP vs SoftHSMv2\": how many times faster (above 1: pqtpm is). SoftHSMv2 2.6 has no ML-DSA (n/a)."
}
# C against noble for each c_X / noble_X pair; the C figure from the SP build.
function pq(mode,    i, k, x, c, j, any, lbl) {
	for (i = 1; i <= n[mode]; i++) {
		k = ord[mode, i]
		if (k !~ /^c_/)
			continue
		x = substr(k, 3)
		claimed[mode, k] = claimed[mode, "noble_" x] = 1
		c = med["pqtpm-sp", mode, k]; j = med["pqtpm-sp", mode, "noble_" x]
		if (!any++) {
			printf "\n## ML-DSA and ML-KEM: C (core/crypto) against @noble/post-quantum (pq_bench, in-process, median µs)\n\n"
			print "| operation | C | noble | noble / C |"
			print "| --- | ---: | ---: | ---: |"
		}
		lbl = label[k]; sub(/ \(C\)$/, "", lbl)
		printf "| %s | %s | %s | %s |\n", lbl, cell(c), cell(j),
		       has(c) && has(j) ? sprintf("%.1f", j / c) : "n/a"
		printf "%s\t%s\t%s\n", lbl, plotnum(c), plotnum(j) >pqdat
	}
}
# Issue 14: a figure of pqtpm SP against a bound: "lt" below it, "ge" at least it.
function goal(k, col, op, bound, text,    v) {
	v = col == "p99" ? p99["pqtpm-sp", "unpinned", k] : med["pqtpm-sp", "unpinned", k]
	if (!has(v)) {
		printf "- %s: n/a (target %s %s)\n", text, op == "lt" ? "<" : "≥", bound >tgt14md
		return
	}
	printf "- %s: %s %s (target %s %s: %s)\n", text, v, unit[k], op == "lt" ? "<" : "≥", bound,
	       (op == "lt" ? v + 0 < bound : v + 0 >= bound) ? "met" : "missed" >tgt14md
}
# Signatures/s of sign_scaling for the plot: one row per run, ECDSA and ML-DSA side by side.
function signrow(text, suffix,    a, b) {
	a = med["pqtpm-sp", "unpinned", "sign_ops_ecdsa_" suffix]
	b = med["pqtpm-sp", "unpinned", "sign_ops_mldsa_" suffix]
	if (has(a) || has(b))
		printf "%s\t%s\t%s\n", text, plotnum(a), plotnum(b) >signdat
}
BEGIN {
	# Sign and CreatePrimary against the raw-client rows: ESAPI'"'"'s own client CPU would count.
	tmax["getrandom_raw"] = 20; tmax["kf_total"] = 300; tmax["sign_ecdsa_raw"] = 60
	tmax["sign_rsa_raw"] = 550; tmax["cp_ecc_raw"] = 100
}
NF >= 8 {
	impl = $1; mode = $2; k = $3
	if (!((mode, k) in seen)) {
		seen[mode, k] = 1
		ord[mode, ++n[mode]] = k
	}
	label[k] = $4; unit[k] = $5; med[impl, mode, k] = $6; p99[impl, mode, k] = $7
}
END {
	printf "" >tpmdat; printf "" >pqdat; printf "" >signdat; printf "" >tgtmd; printf "" >tgt14md
	group("TPM commands (tpm_bench: tss2 ESAPI through the stock TCTI; raw client), µs",
	      "pinned", "^(getrandom_esys|pcr_extend|sign_|cp_|getrandom_raw)", "three", 1)
	print "\nRows without \"raw\" go through tss2 ESAPI and the stock TCTI, which spends tens to hundreds of µs of client CPU per command (fresh crypto contexts, names, session HMACs); the \"raw\" rows use tpm_bench'"'"'s raw client (one connection, bare commands, password session, no client crypto), so they measure the TPM, and issue 7'"'"'s targets use them."
	group("Kernel flow (kernel_flow: the Linux kernel'"'"'s salted-session PCR extend, own raw client), µs",
	      "pinned", "^(kf_|sas_|getrandom_enc$)", "three", 1)
	group("NV (nv_bench, raw client), µs", "pinned", "^nv_", "three", 1)
	if (group("Concurrent clients (tpm_bench: GetRandom(32) ops/s; server and clients unpinned)",
		  "unpinned", "^getrandom_ops_", "three", 0))
		scaling("unpinned")
	group("Head-of-line blocking (head_of_line: B'"'"'s GetRandom, paced 200 µs apart, alone and while A makes RSA-3072 primaries; unpinned), µs",
	      "unpinned", "^hol_", "one", 0)
	group("Concurrent signing (sign_scaling: each client its own connection or thread and key; unpinned)",
	      "unpinned", "^sign_", "one", 0)
	group("Kernel flow against an in-process engine (no transport: the engine'"'"'s own cost), µs",
	      "engine", ".", "two", 0)
	group("Post-quantum commands over MSSIM (pq_bench, pqtpm client library), µs",
	      "pinned", "^tpm_", "two", 0)
	pq("pinned")
	p11("p11")
	group("Other figures", "pinned", ".", "three", 0)
	# The targets, for the summary at the top, in the order issue 7 lists them.
	split("getrandom_raw kf_total sign_ecdsa_raw sign_rsa_raw cp_ecc_raw", tk, " ")
	for (i = 1; i <= 5; i++) {
		k = tk[i]
		cpu = ""
		if (k == "kf_total" && has(med["pqtpm-sp", "pinned", "kf_server_cpu"]))
			cpu = "; the server'"'"'s CPU time per flow: " med["pqtpm-sp", "pinned", "kf_server_cpu"] " µs"
		printf "- %s: %s µs (target %s%s)\n", label[k] != "" ? label[k] : k,
		       cell(med["pqtpm-sp", "pinned", k]), target("pinned", k), cpu >tgtmd
	}
	printf "- GetRandom(32) ops/s, 4 clients against 1 (unpinned): %s (target %s)\n",
	       scale_sp != "" ? scale_sp : "n/a", scale_t != "" ? scale_t : "≥ 2x: n/a" >tgtmd
	goal("hol_mssim_keygen", "p99", "lt", 1000, "B'"'"'s GetRandom p99 over MSSIM while A makes RSA-3072 keys")
	goal("hol_inproc_keygen", "p99", "lt", 1000, "B'"'"'s GetRandom p99 in process while A makes RSA-3072 keys")
	goal("sign_ratio_ecdsa_split", "med", "ge", 0.85, "ECDSA P-256 signatures/s, 2 clients on one server ÷ on two servers")
	goal("sign_ratio_mldsa_split", "med", "ge", 0.85, "ML-DSA-65 signatures/s, 2 clients on one server ÷ on two servers")
	goal("sign_ratio_ecdsa_mssim_2_1", "med", "ge", 1.8, "ECDSA P-256 signatures/s, 2 clients ÷ 1 (MSSIM)")
	goal("sign_ratio_mldsa_mssim_2_1", "med", "ge", 1.8, "ML-DSA-65 signatures/s, 2 clients ÷ 1 (MSSIM)")
	signrow("in process, 1 thread", "inproc_1")
	signrow("in process, 2 threads", "inproc_2")
	signrow("in process, 4 threads", "inproc_4")
	signrow("MSSIM, 1 client", "mssim_1")
	signrow("MSSIM, 2 clients", "mssim_2")
	signrow("MSSIM, 2 clients, two servers", "mssim_2_split")
	signrow("MSSIM, 4 clients", "mssim_4")
}' "$tsv" >"$tmp/body.md"

{
	cat "$tmp/head.md"
	echo
	echo "## Targets of issue 7 (pqtpm SP, medians)"
	echo
	cat "$tmp/targets.md"
	if [ -s "$tmp/targets14.md" ]; then
		echo
		echo "## Targets of issue 14 (pqtpm SP: no client waits behind another's cryptography)"
		echo
		cat "$tmp/targets14.md"
	fi
	cat "$tmp/body.md"
	echo
	echo "## Notes"
	echo
	echo "- swtpm / pqtpm SP: how many times faster pqtpm SP is (swtpm time / pqtpm time; for ops/s,"
	echo "  pqtpm ops/s / swtpm ops/s). Above 1: pqtpm is faster."
	echo "- The kernel flow's server CPU time is a mean per flow (the server's threads' schedstat),"
	echo "  less disturbed by other load than the wall-clock figures; no p99."
	echo "- kernel_flow computes the client's ephemeral ECDH for the salt before each iteration's"
	echo "  clock starts; every response HMAC is verified."
	echo "- Durable NV writes are not alike: pqtpm writes a temp file, fsyncs it, renames it and"
	echo "  fsyncs the directory (two device flushes, a crash leaves the old or the new state);"
	echo "  swtpm 0.7 writes and renames without any fsync, so its NV_Write is not on disk when it"
	echo "  answers (strace of both servers during nv_bench)."
	echo "- PKCS#11: p11_bench signs, generates keys, logs in and draws random bytes through the"
	echo "  module's function list and through SoftHSMv2's in the same process, one after the other;"
	echo "  our keys live in the TPM (each signature is a TPM command), SoftHSMv2's in its process."
	echo "- Issue 14's figures (head_of_line, sign_scaling) run unpinned, from the SP build only; an"
	echo "  ML-DSA-65 signature is SignSequenceStart and SignSequenceComplete of a 100-byte message."
	echo "  Two servers are two processes on two state directories: no engine shared."
	echo "- Plot: report.png, medians on a log scale; signatures/s of sign_scaling at the bottom."
} >"$out/report.md"

sign_rows=0
[ -s "$tmp/sign.dat" ] && sign_rows=1
gnuplot -e "tpm='$tmp/tpm.dat'; pq='$tmp/pq.dat'; sign='$tmp/sign.dat'; has_sign=$sign_rows; out='$out/report.png'" \
	"$here/report.gp"

cat "$out/report.md"
echo
echo "report: $out/report.md"
echo "plot:   $out/report.png"
