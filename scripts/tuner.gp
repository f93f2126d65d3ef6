# tuner.gp - `mpbench plot tuner`: the landscape a tune run explored for one
# variant and problem.  Numeric spaces: median time of every evaluated setting
# against the parameter with the most values (x), one colour per value of a
# second parameter.  Switch-like spaces (settings = 1): every setting ranked by
# time, labelled with the parameters that vary.  The default setting and the
# best found are marked.
# Inputs (gnuplot -e): datafile outpng outsvg nblocks titles havedef xlab logx
# settings logy plottitle subtitle.  Blocks: nblocks of evaluations, default, best.
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
    set title plottitle."\n".subtitle
    if (logx) { set logscale x 2 } else { unset logscale x }
    if (logy) { set logscale y } else { unset logscale y }
    set offsets graph 0.05, graph 0.05, graph 0.08, graph 0.08
    set xlabel (settings ? xlab : "parameter ".xlab)
    set ylabel "median time per call (us, lower is better)"
    set grid xtics ytics lc rgb "#dddddd"
    set key outside right top box
    if (settings) {
        set xtics rotate by -40 font ",9"
        set bmargin 12
        if (havedef) {
            plot datafile index 0 using 1:2:xtic(3) with linespoints pt 7 ps 1.3 lc 1 title "evaluations", \
                 datafile index 1 using 1:2 with points pt 6 ps 3.5 lw 2 lc rgb "black" title "default", \
                 datafile index 2 using 1:2 with points pt 3 ps 3.5 lw 2 lc rgb "red" title "best found"
        } else {
            plot datafile index 0 using 1:2:xtic(3) with linespoints pt 7 ps 1.3 lc 1 title "evaluations", \
                 datafile index 2 using 1:2 with points pt 3 ps 3.5 lw 2 lc rgb "red" title "best found"
        }
    } else {
        set xtics norotate
        if (havedef) {
            plot for [i=0:nblocks-1] datafile index i using 1:2 with points pt 7 ps 1.3 lc (i+1) title word(titles, i+1), \
                 datafile index nblocks using 1:2 with points pt 6 ps 3.5 lw 2 lc rgb "black" title "default", \
                 datafile index nblocks+1 using 1:2 with points pt 3 ps 3.5 lw 2 lc rgb "red" title "best found"
        } else {
            plot for [i=0:nblocks-1] datafile index i using 1:2 with points pt 7 ps 1.3 lc (i+1) title word(titles, i+1), \
                 datafile index nblocks+1 using 1:2 with points pt 3 ps 3.5 lw 2 lc rgb "red" title "best found"
        }
    }
    unset output
}
