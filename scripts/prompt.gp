# prompt.gp - `mpbench plot prompt`: GOPS against N (tokens per call: prompt
# length or batch) for one shape, one line per variant, like seed 001 Fig. 12.
# Inputs (gnuplot -e): datafile outpng outsvg nblocks titles nmin nmax plottitle.
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
    set logscale x 2
    set xrange [nmin/1.3:nmax*1.3]
    set yrange [0:*]
    set offsets 0, 0, graph 0.08, 0
    set xlabel "N (tokens per call)"
    set ylabel "GOPS (2*M*K*N / median time)"
    set grid xtics ytics lc rgb "#dddddd"
    set key outside right top box
    plot for [i=0:nblocks-1] datafile index i using 1:2 with linespoints lw 2 pt (i%7)+4 lc (i+1) title word(titles, i+1)
    unset output
}
