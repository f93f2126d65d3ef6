# roofline.gp - `mpbench plot roofline`: measured GOPS of every variant x shape x N
# against arithmetic intensity (ops per byte of packed weights, 2*M*K*N / bytes),
# under the machine's roofs from `mpbench probe`: bandwidth (read_DRAM GB/s x AI)
# and compute (int8 dot-product peak x threads), and per method its own compute
# ceiling (the probe's in-cache measurement of its best variant x threads, in the
# method's colour; issue 16: both roofs of seed 003's model).  Log-log.
# Inputs (gnuplot -e): datafile outpng outsvg nblocks titles ceils bw peak xmin
# xmax ymin ymax plottitle.  The data has one block per method (index i).
roof(x) = (bw > 0 ? (peak > 0 ? (bw*x < peak ? bw*x : peak) : bw*x) : peak)
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
    set logscale xy
    set xrange [xmin:xmax]
    set yrange [ymin:ymax]
    set xlabel "arithmetic intensity (int ops per byte of packed weights)"
    set ylabel "GOPS (2*M*K*N / median time)"
    set grid xtics ytics mxtics mytics lc rgb "#dddddd"
    set key outside right top box
    set samples 400
    plot roof(x) with lines lw 3 lc rgb "black" title "roof", \
         (bw > 0 ? bw*x : 1/0) with lines dt 2 lc rgb "gray40" title (bw > 0 ? sprintf("read_DRAM %.1f GB/s x AI", bw) : ""), \
         (peak > 0 ? peak : 1/0) with lines dt 3 lc rgb "gray40" title (peak > 0 ? sprintf("int8 dot %.0f GOPS", peak) : ""), \
         for [i=0:nblocks-1] datafile index i using 1:2 with points pt (i%7)+4 ps 1.4 lc (i+1) title word(titles, i+1), \
         for [i=0:nblocks-1] (word(ceils, i+1) + 0 > 0 ? word(ceils, i+1) + 0 : 1/0) with lines dt 3 lw 1.5 lc (i+1) notitle
    unset output
}
