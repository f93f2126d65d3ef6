# gbps.gp - `mpbench plot gbps`: GEMV (N = 1) bandwidth in GB/s of packed weights
# per shape (x) and variant (bars), like seed 003 Fig. 5-7; the dashed line is
# the machine's read_DRAM bandwidth from `mpbench probe` (when bw > 0).
# Inputs (gnuplot -e): datafile outpng outsvg ncols bw plottitle.  The data is a
# table: first column the shape, one column per variant, '?' where missing.
do for [term=1:2] {
    if (term == 1) {
        set terminal pngcairo size 1300,800 font "sans,11" noenhanced
        set output outpng
    } else {
        set terminal svg size 1300,800 font "sans,11" noenhanced
        set output outsvg
    }
    # 16 distinct colours (gnuplot's default cycle repeats after 8)
    set linetype 9 lc rgb "#8c564b"
    set linetype 10 lc rgb "#e377c2"
    set linetype 11 lc rgb "#7f7f7f"
    set linetype 12 lc rgb "#bcbd22"
    set linetype 13 lc rgb "#17becf"
    set linetype 14 lc rgb "#393b79"
    set linetype 15 lc rgb "#637939"
    set linetype 16 lc rgb "#d6616b"
    set title plottitle
    set datafile missing '?'
    set style data histograms
    set style histogram clustered gap 1
    set style fill solid 0.85 border -1
    set boxwidth 0.9
    set xlabel "shape M x K (out x in features)"
    set ylabel "GB/s of packed weights (median)"
    set yrange [0:*]
    set offsets 0, 0, graph 0.08, 0
    set xtics rotate by -30
    set grid ytics lc rgb "#dddddd"
    set key outside right top box
    plot for [i=2:ncols] datafile using i:xtic(1) lc (i-1) title columnheader(i), \
         (bw > 0 ? bw : 1/0) with lines dt 2 lw 2 lc rgb "black" title (bw > 0 ? sprintf("read_DRAM %.1f GB/s", bw) : "")
    unset output
}
