# tuner.gp - `mpbench plot tuner`: the landscape a tune run explored for one
# variant and problem: median time of every evaluated setting against the
# parameter with the most values (x), one colour per value of a second
# parameter, the default setting and the best found marked.
# Inputs (gnuplot -e): datafile outpng outsvg nblocks titles havedef xlab logx
# plottitle subtitle.  Blocks: nblocks of evaluations, then default, then best.
do for [term=1:2] {
    if (term == 1) {
        set terminal pngcairo size 1200,800 font "sans,11" noenhanced
        set output outpng
    } else {
        set terminal svg size 1200,800 font "sans,11" noenhanced
        set output outsvg
    }
    set title plottitle."\n".subtitle
    if (logx) { set logscale x 2 } else { unset logscale x }
    set offsets graph 0.05, graph 0.05, graph 0.08, graph 0.08
    set xlabel "parameter ".xlab
    set ylabel "median time per call (us, lower is better)"
    set grid xtics ytics lc rgb "#dddddd"
    set key outside right top box
    if (havedef) {
        plot for [i=0:nblocks-1] datafile index i using 1:2 with points pt 7 ps 1.3 lc (i+1) title word(titles, i+1), \
             datafile index nblocks using 1:2 with points pt 6 ps 3.5 lw 2 lc rgb "black" title "default", \
             datafile index nblocks+1 using 1:2 with points pt 3 ps 3.5 lw 2 lc rgb "red" title "best found"
    } else {
        plot for [i=0:nblocks-1] datafile index i using 1:2 with points pt 7 ps 1.3 lc (i+1) title word(titles, i+1), \
             datafile index nblocks+1 using 1:2 with points pt 3 ps 3.5 lw 2 lc rgb "red" title "best found"
    }
    unset output
}
