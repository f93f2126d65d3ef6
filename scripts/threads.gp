# threads.gp - `mpbench plot threads`: scaling with the thread count for one
# shape, one line per variant (GB/s at N = 1, else GOPS), and the probe's
# read_DRAM bandwidth per thread count as the dashed line (when probe = 1).
# Inputs (gnuplot -e): datafile outpng outsvg nblocks titles probe ycol ylab
# tmax plottitle.  Blocks: one per variant, then the probe block.
do for [term=1:2] {
    if (term == 1) {
        set terminal pngcairo size 1200,800 font "sans,11" noenhanced
        set output outpng
    } else {
        set terminal svg size 1200,800 font "sans,11" noenhanced
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
    set xlabel "threads"
    set ylabel ylab
    set xrange [0.5:tmax+0.5]
    set xtics 1
    set yrange [0:*]
    set offsets 0, 0, graph 0.08, 0
    set grid xtics ytics lc rgb "#dddddd"
    set key outside right top box
    if (probe && ycol == 2) {
        plot for [i=0:nblocks-1] datafile index i using 1:ycol with linespoints lw 2 pt (i%7)+4 lc (i+1) title word(titles, i+1), \
             datafile index nblocks using 1:2 with linespoints dt 2 lw 2 lc rgb "black" title "read_DRAM probe"
    } else {
        plot for [i=0:nblocks-1] datafile index i using 1:ycol with linespoints lw 2 pt (i%7)+4 lc (i+1) title word(titles, i+1)
    }
    unset output
}
