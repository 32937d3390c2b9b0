# Plot of a benchmark report (tests/bench/report.sh calls it):
#   gnuplot -e "tpm='TPM.dat'; pq='PQ.dat'; sign='SIGN.dat'; has_sign=1; out='report.png'" report.gp
# TPM.dat: label<TAB>pqtpm SP<TAB>pqtpm system<TAB>swtpm (median µs, NaN when missing);
# PQ.dat: label<TAB>C<TAB>noble; SIGN.dat (plotted when has_sign): label<TAB>ECDSA<TAB>ML-DSA
# signatures/s. Grouped bars on a log scale: the figures span 1 µs to 100 ms.
set terminal pngcairo size 1700,2200 font "sans,11" noenhanced
set output out
set datafile separator "\t"
set datafile missing "NaN"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set format y "%.0f"
set yrange [1:*]
set grid ytics
set ylabel "median, µs (log scale)"
set xtics rotate by -45 scale 0 nomirror
set key top left opaque
set lmargin 12
set rmargin 16
set multiplot
set origin 0, 0.55
set size 1, 0.45
set bmargin 19
set title "TPM commands, kernel flow and NV over the socket: pqtpm (SP / Debian wolfSSL) and swtpm; server and client pinned"
plot tpm using 2:xtic(1) title "pqtpm SP wolfCrypt" lc rgb "#1f77b4", \
     '' using 3 title "pqtpm Debian libwolfssl" lc rgb "#9ecae1", \
     '' using 4 title "swtpm" lc rgb "#d62728"
set origin 0, 0.25
set size 1, 0.30
set bmargin 9
set title "ML-DSA and ML-KEM in-process: pqtpm C against @noble/post-quantum"
plot pq using 2:xtic(1) title "pqtpm C" lc rgb "#1f77b4", \
     '' using 3 title "@noble/post-quantum" lc rgb "#ff7f0e"
if (has_sign) {
	set origin 0, 0
	set size 1, 0.25
	set bmargin 9
	set ylabel "signatures/s (log scale)"
	set title "Concurrent signing (issue 14): pqtpm SP, each client its own key; not pinned"
	plot sign using 2:xtic(1) title "ECDSA P-256" lc rgb "#1f77b4", \
	     '' using 3 title "ML-DSA-65" lc rgb "#2ca02c"
}
unset multiplot
