#!/usr/bin/env bash
# generate.sh - the battery's generated cases (scripts/battery.sh runs it and
# reads its rows with those of tests/battery/*.tsv): the combinations a table
# would spell out row by row - every writing command x every way an output can
# name an input, every output x every way a write can fail, every command that
# runs long x signal x moment, every integer option x class of bad value, every
# field of every file format x bad value.  Rows: CLASS ID EXPECT NEEDS
# DIRECTIVES COMMAND, tab-separated (tests/battery/README.md).
#
# Needs FIX (the fixture folder), FP (this machine's fingerprint), GE (the
# gguf-edit tool), from scripts/battery.sh.
set -u
: "${FIX:?}" "${FP:?}" "${GE:?}"

q() { printf '%q' "$1"; }
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:--}" "${5:--}" "$6"; }
# a value as a word of a case id
tok() {
    local v=$1
    [ -z "$v" ] && { echo empty; return; }
    v=${v//-/m} v=${v//,/c} v=${v//./p} v=${v// /s} v=${v//\//d} v=${v//=/e} v=${v//\*/x}
    v=${v//+/plus} v=${v//:/k}
    echo "${v//[^A-Za-z0-9_]/x}"
}
# DEFAULTS without --OPT and its value
without() {
    local out=() skip=0 w
    for w in $1; do
        if [ $skip = 1 ]; then
            skip=0
            [[ $w == --* ]] || continue
        fi
        [ "$w" = "--$2" ] && { skip=1; continue; }
        out+=("$w")
    done
    echo "${out[*]}"
}
# what stderr must name for OPT VALUE: the option, and the value when it is
# distinctive (the last item of a list)
vneeds() {
    local o=$1 v=${2##*,}
    case $2 in
    '' | *,) echo "$o" ;;
    *) if [ ${#v} -ge 3 ]; then echo "$o && $v"; else echo "$o"; fi ;;
    esac
}

# ---- the commands, each with cheap valid defaults ---------------------------------------
RUN="--variant i2_s.scalar --shape 64x128 --reps 1 --min-time 0 --warm --no-db"
SWEEP="--variant i2_s.scalar --shape 64x128 --reps 1 --min-time 0 --warm --counters none --quiet --db new.db"
TUNE="--variant i2_s.scalar --shape 64x128 --strategy random --budget 2 --reps 9 --warm --quiet --db new.db --out new.conf"
E2E="--model ./m.txt --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --no-db"
E2EL="--lossless --model ./m.txt --variant i2_s.scalar --prompts 1 --tokens 2 --no-db"
PROBE="--quick --threads 1 --no-ceilings --no-db"
PROBEC="--quick --threads 1 --ceiling-variants i2_s.scalar --ceiling-time 0.01 --no-db"
PLOT="roofline --db r.db --outdir pl"
PACK="--variant i2_s.scalar --shape 64x128 --seed 1 --out w.bin"
REPORT="--db r.db --out R.md --csv csvd --claims c.tsv"

# =========================================================================================
# a-outputs: an output that is an input, or a special file -> exit 2 naming both
# =========================================================================================
# PAIR: name | command with {IN} {OUT} | the input file | how the input is spelled | needs
A_PAIRS=(
    "pack.out-weights|pack --variant i2_s.scalar --shape 64x128 --weights {IN} --out {OUT}|w.int8|w.int8|--out && --weights"
    "pack.ggufout-model|pack --gguf-out {OUT} --model {IN}|m.txt|./m.txt|--gguf-out && --model"
    "pack.ggufout-gguf|pack --gguf-out {OUT} --model {IN}|g.gguf|./g.gguf|--gguf-out && --model"
    "report.out-db|report --db {IN} --out {OUT} --csv csvd --claims c.tsv|r.db|r.db|--out && --db"
    "report.out-claims|report --db r.db --out {OUT} --csv csvd --claims {IN}|c.tsv|c.tsv|--out && --claims"
    "tune.out-db|tune --variant i2_s.scalar --shape 64x128 --strategy random --budget 2 --reps 9 --warm --quiet --db {IN} --out {OUT}|tn.db|tn.db|--out && --db"
    "tune.db-model|tune --variant i2_s.scalar --model {IN} --strategy random --budget 1 --reps 9 --warm --quiet --db {OUT} --out new.conf|m.txt|./m.txt|--db && --model"
    "tune.out-model|tune --variant i2_s.scalar --model {IN} --strategy random --budget 1 --reps 9 --warm --quiet --db new.db --out {OUT}|m.txt|./m.txt|--out && --model"
    "tune.out-gguf|tune --variant i2_s.scalar --gguf {IN} --strategy random --budget 1 --reps 9 --warm --quiet --db new.db --out {OUT}|g.gguf|g.gguf|--out && --gguf"
    "merge.out-in|merge {OUT} {IN}|s.db|s.db|s.db"
    "merge.out-in2|merge {OUT} u.db {IN}|s.db|s.db|s.db"
    "run.db-model|run --variant i2_s.scalar --model {IN} --reps 1 --min-time 0 --warm --db {OUT}|m.txt|./m.txt|--db && --model"
    "run.db-gguf|run --variant i2_s.scalar --gguf {IN} --reps 1 --min-time 0 --warm --db {OUT}|g.gguf|g.gguf|--db && --gguf"
    "sweep.db-model|sweep --variant i2_s.scalar --model {IN} --reps 1 --min-time 0 --warm --counters none --quiet --db {OUT}|m.txt|./m.txt|--db && --model"
    "sweep.db-gguf|sweep --variant i2_s.scalar --gguf {IN} --reps 1 --min-time 0 --warm --counters none --quiet --db {OUT}|g.gguf|g.gguf|--db && --gguf"
    "e2e.db-model|e2e --model {IN} --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --db {OUT}|m.txt|./m.txt|--db && --model"
    "e2e.db-gguf|e2e --gguf {IN} --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --db {OUT}|g.gguf|g.gguf|--db && --gguf"
    "e2e.db-tuned|e2e --model ./m.txt --tuned {IN} --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --db {OUT}|t.conf|t.conf|--db && --tuned"
)
for p in "${A_PAIRS[@]}"; do
    IFS='|' read -r name tmpl f in needs <<<"$p"
    # the output spelled seven ways: the same word, with or without ./, through
    # a/.., absolute, a symlink, a hard link, a symlinked folder
    dot=./$in
    [[ $in == ./* ]] && dot=${in#./}
    forms=("same|$in|-" "dot|$dot|-" "dotdot|sub/../$f|mkdir:sub" "abs|\$D/$f|-"
        "symlink|ln-$f|symlink:ln-$f>$f" "hardlink|hl-$f|hardlink:hl-$f>$f" "dirlink|sd/$f|symlink:sd>.")
    for fm in "${forms[@]}"; do
        IFS='|' read -r how o dirs <<<"$fm"
        c=${tmpl//\{IN\}/$in}
        c=${c//\{OUT\}/$o}
        row a-outputs "$name.$how" 2 "$needs" "$dirs ; timeout:20" "$c"
    done
done
# an output folder that holds the input under the name of one of its outputs
for fm in "same|pl|-" "dot|./pl|-" "dotdot|sub/../pl|mkdir:sub" "abs|\$D/pl|-" "symlink|ln-pl|symlink:ln-pl>pl"; do
    IFS='|' read -r how o dirs <<<"$fm"
    row a-outputs "plot.outdir-db.$how" 2 "--outdir && --db" "copy:r.db>pl/roofline.dat ; $dirs" \
        "plot roofline --db pl/roofline.dat --outdir $o"
done
row a-outputs plot.outdir-db.all 2 "--outdir && --db" "copy:r.db>pl/threads.svg" "plot all --db pl/threads.svg --outdir pl"
row a-outputs plot.outdir-db.gbps 2 "--outdir && --db" "copy:r.db>pl/gbps.png" "plot gbps --db pl/gbps.png --outdir ./pl"
for fm in "same|csvd|-" "dot|./csvd|-" "symlink|ln-csvd|symlink:ln-csvd>csvd"; do
    IFS='|' read -r how o dirs <<<"$fm"
    row a-outputs "report.csv-db.$how" 2 "--csv && --db" "copy:r.db>csvd/kernel-results.csv ; $dirs" \
        "report --db csvd/kernel-results.csv --out R.md --csv $o --claims c.tsv"
done
row a-outputs report.out-db.in-csv 2 "--out && --db" "copy:r.db>csvd/R.md" \
    "report --db csvd/R.md --out csvd/R.md --csv csvd --claims c.tsv"
row a-outputs tune.fromsweep-out-db 2 "--out && --db" "copy:s.db>cf/$FP.conf" \
    "tune --from-sweep --db cf/$FP.conf --out cf"
# special files as outputs: a FIFO (a writer would block), a character device
# (made here: c 1 3, a null device; a rename would replace the node), a symlink
# to one
A_OUTS=(
    "pack.out|pack --variant i2_s.scalar --shape 64x128 --seed 1 --out {OUT}|--out"
    "pack.ggufout|pack --gguf-out {OUT} --model ./m.txt|--gguf-out"
    "report.out|report --db r.db --out {OUT} --csv csvd --claims c.tsv|--out"
    "tune.out|tune --variant i2_s.scalar --shape 64x128 --strategy random --budget 2 --reps 9 --warm --quiet --db new.db --out {OUT}|--out"
    "tune.db|tune --variant i2_s.scalar --shape 64x128 --strategy random --budget 2 --reps 9 --warm --quiet --db {OUT} --out new.conf|--db"
    "merge.out|merge {OUT} s.db|sp"
    "run.db|run --variant i2_s.scalar --shape 64x128 --reps 1 --min-time 0 --warm --db {OUT}|--db"
    "sweep.db|sweep --variant i2_s.scalar --shape 64x128 --reps 1 --min-time 0 --warm --counters none --quiet --db {OUT}|--db"
    "e2e.db|e2e --model ./m.txt --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --db {OUT}|--db"
    "probe.db|probe --quick --threads 1 --no-ceilings --db {OUT}|--db"
)
for p in "${A_OUTS[@]}"; do
    IFS='|' read -r name tmpl needs <<<"$p"
    c=${tmpl//\{OUT\}/sp}
    row a-outputs "special.$name.fifo" 2 "$needs" "fifo:sp ; timeout:6" "$c"
    row a-outputs "special.$name.chardev" 2 "$needs" "chardev:sp" "$c"
    row a-outputs "special.$name.link-chardev" 2 "$needs" "chardev:nul ; symlink:sp>nul" "$c"
done
row a-outputs special.report.csv.fifo "2|3" "--csv" "fifo:sp ; timeout:6" "report --db r.db --out R.md --csv sp --claims c.tsv"
row a-outputs special.plot.outdir.fifo "2|3" "--outdir" "fifo:sp ; timeout:6" "plot roofline --db r.db --outdir sp"
row a-outputs special.e2e.cache.fifo "0|2|3" "--weight-cache" "fifo:sp ; timeout:6 ; err:sp" \
    "e2e --model ./m.txt --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --no-db --weight-cache sp"

# =========================================================================================
# b-writes: every output x every way a write fails -> exit 3 naming the path and
# the reason, nothing half-written, inputs untouched
# =========================================================================================
# WRITER: name | command with {OUT} | file, db or dir | the option (stderr names it for '')
B_W=(
    "pack.out|pack --variant i2_s.scalar --shape 64x128 --seed 1 --out {OUT}|file|--out|bin"
    "pack.ggufout|pack --gguf-out {OUT} --model ./m.txt|file|--gguf-out|gguf"
    "report.out|report --db r.db --out {OUT} --csv csvd --claims c.tsv|file|--out|md"
    "report.csv|report --db r.db --out R.md --csv {OUT} --claims c.tsv|dir|--csv|-"
    "tune.out|tune --variant i2_s.scalar --shape 64x128 --strategy random --budget 2 --reps 9 --warm --quiet --db tn2.db --out {OUT}|file|--out|conf"
    "tune.db|tune --variant i2_s.scalar --shape 64x128 --strategy random --budget 2 --reps 9 --warm --quiet --db {OUT} --out new.conf|db|--db|db"
    "plot.outdir|plot roofline --db r.db --outdir {OUT}|dir|--outdir|-"
    "merge.out|merge {OUT} s.db|db|merge|db"
    "sweep.db|sweep --variant i2_s.scalar --shape 64x128 --reps 1 --min-time 0 --warm --counters none --quiet --db {OUT}|db|--db|db"
    "run.db|run --variant i2_s.scalar --shape 64x128 --reps 1 --min-time 0 --warm --db {OUT}|db|--db|db"
    "e2e.db|e2e --model ./m.txt --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --db {OUT}|db|--db|db"
    "probe.db|probe --quick --threads 1 --no-ceilings --db {OUT}|db|--db|db"
    "e2e.cache|e2e --model ./m.txt --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --no-db --weight-cache {OUT}|dir|--weight-cache|-"
)
NOSPACE="No space || is full || disk full"
RO="Read-only || read-only"
for w in "${B_W[@]}"; do
    IFS='|' read -r name tmpl kind opt ext <<<"$w"
    file=x.$ext
    [ "$kind" = dir ] && file=sub
    # the weight cache is a cache: a run that cannot keep it may go on (0) saying so
    X3=3
    [ "$name" = e2e.cache ] && X3="0|3"
    c() { local o=$1; echo "${tmpl//\{OUT\}/$o}"; }
    # no such folder, two levels up (a database's own folder may be created: 0 is
    # right then, not for a missing grandparent; an output folder may be made
    # with its parents, like mkdir -p)
    if [ "$kind" = dir ]; then
        row b-writes "nodir.$name" "0|3" "nodir && No such file" "-" "$(c nodir/sub/$file)"
    else
        row b-writes "nodir.$name" 3 "nodir && No such file" "-" "$(c nodir/sub/$file)"
    fi
    # a folder where a file goes, a file where a folder goes
    if [ "$kind" = dir ]; then
        row b-writes "notdir.$name" "$X3" "afile && directory || folder" "file:afile=not a folder\n" "$(c afile)"
    else
        row b-writes "isdir.$name" 3 "adir && directory || folder" "mkdir:adir" "$(c adir)"
    fi
    # a read-only folder: a new output in it, an existing one
    if [ "$kind" = dir ]; then
        row b-writes "ro.$name" "$X3" "rodir && $RO" "ro:rodir" "$(c rodir)"
        row b-writes "ro-sub.$name" "$X3" "rodir && $RO" "ro:rodir" "$(c rodir/sub)"
    else
        row b-writes "ro.$name" 3 "rodir && $RO" "ro:rodir" "$(c rodir/$file)"
        src=$file
        [ "$kind" = db ] && src=s.db
        [ "$name" = tune.out ] && src=t.conf
        [ "$kind" = file ] && [ "$name" != tune.out ] && src=w.int8
        row b-writes "ro-existing.$name" 3 "rodir && $RO" "copy:$src>rodir/$file ; ro:rodir" "$(c rodir/$file)"
    fi
    # a full disk: a tmpfs filled to the last block; and a database that grows on it
    row b-writes "full.$name" "$X3" "disk && $NOSPACE" "tmpfs:disk=256k ; fill:disk" "$(c disk/$file)"
    if [ "$kind" = db ]; then
        row b-writes "full-existing.$name" 3 "disk && $NOSPACE" \
            "tmpfs:disk=4m ; copy:s.db>disk/$file ; fill:disk ; may:disk/$file-wal ; may:disk/$file-shm ; may:disk/$file-journal" \
            "$(c disk/$file)"
    fi
    # a nearly full disk: the database opens, then a write fails part way (what
    # was stored before stays, the file stays whole; exit 3, never "stored")
    # (or it fits: exit 0, and then what it says it stored is in the file, and it
    # does not say the disk was full)
    if [ "$kind" = db ] && [ "$name" != probe.db ]; then
        last="(SELECT max(id) FROM runs)"
        case $name in
        tune.db) stored="SELECT count(*) > 0 FROM tuned" ;;
        e2e.db) stored="SELECT count(*) > 0 FROM e2e WHERE run_id = $last" ;;
        merge.out) stored="SELECT count(*) = 2 FROM runs" ;;
        *) stored="SELECT count(*) > 0 FROM results WHERE run_id = $last" ;;
        esac
        for kb in 56 64; do
            cc=$(c disk/$file)
            [ "$name" = merge.out ] && cc="merge disk/$file u.db"
            row b-writes "nearly-full$kb.$name" "0|3" "disk && $NOSPACE" \
                "tmpfs:disk=4m ; copy:s.db>disk/$file ; fill:disk=$kb ; may:disk/$file* ; may:new.conf ; dbint:disk/$file ; sql0:disk/$file=$stored ; noerr0:is full ; needs:sqlite3" \
                "$cc"
        done
    fi
    # ulimit -f: SIGXFSZ must not kill it (exit 153): the write fails, exit 3
    if [ "$name" != probe.db ]; then
        lim=1
        [ "$name" = pack.ggufout ] && lim=64
        row b-writes "ulimit.$name" "$X3" "-" "ulimit-f:$lim" "$(c $file)"
        if [ "$kind" = db ]; then
            # the database exists (40 KiB); writes past 8 KiB fail: its pages must stay
            row b-writes "ulimit-existing.$name" 3 "-" \
                "copy:s.db>$file ; ulimit-f:8 ; may:$file-wal ; may:$file-shm" "$(c $file)"
        fi
    fi
    # an empty name is bad input, not a file failure
    row b-writes "empty.$name" 2 "$opt" "-" "$(c "''")"
done
# stdout on a full device (a node made here, c 1 7): the output cannot be written
for sc in "list-variants|list variants" "list-formats|list formats" "list-models|list models" \
    "list-machine|list machine --db s.db" "list-gguf|list gguf g.gguf --tensors" "run|run $RUN" \
    "sweep-dry|sweep --variant i2_s.scalar --shape 64x128 --dry-run" "compare|compare --base s.db --new s.db" \
    "tune-report|tune --report --db tn.db" "e2e|e2e $E2E" "help|--help"; do
    IFS='|' read -r name c <<<"$sc"
    row b-writes "stdout-full.$name" 3 "stdout || standard output" "chardev:fulldev=1,7 ; stdout:fulldev" "$c"
done

# =========================================================================================
# c-signals: SIGTERM and SIGINT at each moment -> 130 with a message, the database
# whole, nothing half-written
# =========================================================================================
C_CMDS=(
    "sweep|sweep --variant i2_s.scalar --shape 64x128,32x256 --warm --reps 2 --min-time 30 --counters none --db sg.db"
    "run|run --variant i2_s.scalar --shape 64x128 --warm --reps 2 --min-time 30 --db sg.db"
    "tune|tune --variant vlut_i2.scalar --shape 64x128 --strategy exhaustive --reps 9 --warm --db sg.db --out sg.conf"
    "e2e|e2e --model ./m.txt --variant i2_s.scalar --pp 200 --tg 50 --reps 1000 --db sg.db"
    "e2e-lossless|e2e --lossless --model ./m.txt --variant i2_s.scalar --prompts 100000 --tokens 64 --db sg.db"
    "probe|probe --quick --threads 1 --ceiling-variants i2_s.scalar --ceiling-n 1 --ceiling-time 60 --db sg.db"
)
CDIRS="may:sg.db ; may:sg.db-wal ; may:sg.db-shm ; may:sg.conf ; dbok:sg.db ; timeout:6"
for cc in "${C_CMDS[@]}"; do
    IFS='|' read -r name c <<<"$cc"
    mid=db:sg.db
    [ "$name" = probe ] && mid=+1.5
    for s in TERM INT; do
        # early: 50 ms after the loader mapped the libraries (the handlers must be
        # installed first thing in main); soon: 0.3 s after exec; mid-run: once a
        # run is stored (probe: 1.5 s)
        for m in "early|main+0.05" "soon|+0.3" "mid|$mid"; do
            IFS='|' read -r mn when <<<"$m"
            row c-signals "$name.$s.$mn" 130 "stop || interrupt" "signal:$s@$when ; $CDIRS" "$c"
        done
    done
    # a second signal exits at once (still 130; the run may stay 'running' until
    # the next open marks it interrupted, as after kill -9: the file must be whole)
    D2=${CDIRS/dbok:/dbint:}
    row c-signals "$name.INT.twice" 130 "stop || interrupt" "signal:INT@$mid ; signal2:INT@+0.2 ; $D2" "$c"
    row c-signals "$name.TERM-INT" 130 "stop || interrupt" "signal:TERM@$mid ; signal2:INT@+0.2 ; $D2" "$c"
done
# short commands told to stop at once: they finish (0) or stop (130), never die
# of the signal, and leave nothing half-written
for sc in "merge|merge m2.db s.db" "pack-gguf|pack --gguf-out sg.gguf --model ./m.txt" \
    "report|report $REPORT" "list|list variants" "compare|compare --base s.db --new s.db" \
    "plot|plot roofline --db r.db --outdir pl"; do
    IFS='|' read -r name c <<<"$sc"
    for s in TERM INT; do
        row c-signals "short.$name.$s" "0|130" "stop || interrupt" "signal:$s@main+0.05 ; timeout:20" "$c"
    done
done

# =========================================================================================
# d-integers: every integer option, file field and variable x bad values -> exit 2
# naming the input
# =========================================================================================
VINT=(4294967297 99999999999 -1 abc 1e3 '' 12junk)
VEXTRA=(18446744073709551617 0x10 1.5 2147483648 ' 7')
# int_cases CMD-WORD ID-WORD DEFAULTS OPT int|list LO HI [x: the extra values]
int_cases() {
    local cmd=$1 cid=$2 defs=$3 o=$4 kind=$5 lo=$6 hi=$7 extra=${8:-} base v
    local vals=("${VINT[@]}")
    base="$cmd $(without "$defs" "$o")"
    [ "$lo" -ge 1 ] && vals+=(0)
    [ "$hi" -lt 2147483647 ] && vals+=($((hi + 1)))
    [ "$extra" = x ] && vals+=("${VEXTRA[@]}")
    [ "$kind" = list ] && vals+=('1,,2' ',' '1,4294967297' '1,abc')
    # a probe that takes a bad value runs for seconds: 6 s says enough
    local t=20
    [ "$cmd" = probe ] && t=6
    for v in "${vals[@]}"; do
        row d-integers "cli.$cid.$o.$(tok "$v")" 2 "$(vneeds "--$o" "$v")" "timeout:$t" "$base --$o $(q "$v")"
    done
}
int_cases run run "$RUN" n list 1 65536
int_cases run run "$RUN" threads list 1 1024
int_cases run run "$RUN" reps int 1 1000000 x
int_cases run run "$RUN" seed int 0 2147483647
int_cases sweep sweep "$SWEEP" n list 1 65536 x
int_cases sweep sweep "$SWEEP" threads list 1 1024
int_cases sweep sweep "$SWEEP" reps int 1 1000000
int_cases sweep sweep "$SWEEP" seed int 0 2147483647 x
int_cases tune tune "$TUNE" n list 1 65536
int_cases tune tune "$TUNE" threads list 1 1024
int_cases tune tune "$TUNE" budget int 1 100000 x
int_cases tune tune "$TUNE" reps int 9 100000
int_cases tune tune "$TUNE" seed int 0 2147483647
int_cases e2e e2e "$E2E" pp int 0 65536
int_cases e2e e2e "$E2E" tg int 0 65536
int_cases e2e e2e "$E2E" batch list 1 1024
int_cases e2e e2e "$E2E" threads int 1 1024 x
int_cases e2e e2e "$E2E" reps int 1 1000
int_cases e2e e2e "$E2E" layers int 1 100000
int_cases e2e e2e "$E2E" seed int 0 2147483647
int_cases e2e e2el "$E2EL" prompts int 1 100000
int_cases e2e e2el "$E2EL" tokens int 1 4096
int_cases plot plot "$PLOT" threads int 1 1024
int_cases plot plot "$PLOT" n int 1 65536 x
int_cases probe probe "$PROBE" threads list 1 64 x
int_cases probe probe "$PROBEC" ceiling-n list 1 4096
int_cases pack pack "$PACK" seed int 0 2147483647
# tune's --reps has its own lower bound (the rank test)
row d-integers cli.tune.reps.8 2 "--reps && 9" - "tune $(without "$TUNE" reps) --reps 8"

# shapes
SHAPES=(64x x128 64x128x 0x128 64x0 -64x128 64x-128 4294967360x128 64x4294967424 64x128x0
    64x128x4294967297 '64*128' abc '' 64x128junk 1e2x128 64.0x128 99999999999x128
    '64x128,' ',64x128' '64x128,,32x256')
for cd in "run|$RUN" "tune|$TUNE" "sweep|$SWEEP" "pack|$PACK"; do
    IFS='|' read -r cmd defs <<<"$cd"
    for v in "${SHAPES[@]}"; do
        [ "$cmd" = sweep ] && [[ $v == 64x128x* ]] && continue
        row d-integers "shape.$cmd.$(tok "$v")" 2 "$(vneeds --shape "$v")" "timeout:20" \
            "$cmd $(without "$defs" shape) --shape $(q "$v")"
    done
done
row d-integers shape.sweep.n-suffix 2 "--shape" "timeout:20" "sweep $(without "$SWEEP" shape) --shape 64x128x2"
# --params values (i2_s has pf)
PARAMS=(pf=abc pf=4294967297 pf=-1 pf= pf '=8192' pf=1e3 pf=99999999999 pf=8192junk 'pf=8192,' nosuch=1 pf=0x2000)
for cd in "run|$RUN" "pack|$PACK"; do
    IFS='|' read -r cmd defs <<<"$cd"
    for v in "${PARAMS[@]}"; do
        n=--params
        case $v in
        nosuch=1) n="--params && nosuch" ;;
        pf=???*) n="--params && pf && ${v#pf=}" ;;
        esac
        row d-integers "params.$cmd.$(tok "$v")" 2 "$n" "timeout:20" "$cmd $defs --params $(q "$v")"
    done
done
# --shard I/N
for v in 0/2 3/2 1/0 1/4294967297 4294967297/4294967298 a/b 1 1/ /2 -1/2 1/2x 1/1000001 '1/2,1/2'; do
    row d-integers "shard.$(tok "$v")" 2 "$(vneeds --shard "$v")" - "sweep $SWEEP --shard $(q "$v")"
done
# numbers that are not integers: seconds, percentages, scales, levels
dbl() { # CMD-WORD ID DEFAULTS OPT VALUES...
    local cmd=$1 cid=$2 defs=$3 o=$4 v
    shift 4
    for v in "$@"; do
        row d-integers "num.$cid.$o.$(tok "$v")" 2 "$(vneeds "--$o" "$v")" "timeout:20" \
            "$cmd $(without "$defs" "$o") --$o $(q "$v")"
    done
}
dbl run run "$RUN" min-time nan inf -1 3601 abc '' 1e400 1s
dbl sweep sweep "$SWEEP" min-time nan -inf -0.5 99999999999 ''
dbl run run "$RUN" clock-gate 49 101 nan abc '' 90% 4294967297
dbl sweep sweep "$SWEEP" clock-gate 0 -90 inf
dbl e2e e2e "$E2E" clock-gate 49.9 100.1 abc
dbl pack pack "$PACK" scale nan inf 0 -1 abc '' 1e39
dbl tune tune "$TUNE" margin -1 91 nan abc ''
dbl tune tune "$TUNE" alpha 0 1 -0.5 2 nan abc ''
dbl compare compare "--base s.db --new s.db" threshold -1 1001 nan abc '' inf
dbl compare compare "--base s.db --new s.db" stat p0 p100 p101 pabc p p-1 p4294967297 p1e1 mean ''
dbl probe probe "$PROBEC" ceiling-time 0 61 -1 nan abc ''
# run numbers in DB:RUN
for v in abc 0 -1 4294967297 99999999999 '' 1x 99; do
    n="--base && s.db"
    [ ${#v} -ge 2 ] && n="$n && $v"
    row d-integers "runid.base.$(tok "$v")" 2 "$n" - "compare --base $(q "s.db:$v") --new s.db"
    row d-integers "runid.new.$(tok "$v")" 2 "${n/--base/--new}" - "compare --base s.db --new $(q "s.db:$v")"
done
# list gguf --llama P[,G]
for v in 0 1001 4294967297 1,4294967297 abc '' 1, 1,2,3 -1 1,0 1,201; do
    row d-integers "llama.$(tok "$v")" 2 "$(vneeds --llama "$v")" "timeout:20" "list gguf g.gguf --llama $(q "$v")"
done

# ---- MPBENCH_* variables that hold numbers, each with a command that reads it --------------
envc() { # VAR ID-WORD COMMAND VALUES... (ENVC_DIRS: more directives)
    local var=$1 cid=$2 c=$3 v
    shift 3
    for v in "$@"; do
        local n="$var"
        [ ${#v} -ge 3 ] && n="$var && $v"
        row d-integers "env.$var.$cid.$(tok "$v")" 2 "$n" "env:$var=$v ; timeout:20${ENVC_DIRS:-}" "$c"
    done
}
COLD="run --variant i2_s.scalar --shape 64x128 --reps 1 --min-time 0 --no-db"
envc MPBENCH_ROTATE_MB run "$COLD" abc -1 0 1e3 '' 12junk 99999999999999999999 4294967297
envc MPBENCH_ROTATE_MB sweep "sweep $(without "$SWEEP" warm)" abc -1 ''
envc MPBENCH_MEM_LIMIT_MB run "run $RUN" abc -1 0 1e3 '' 12junk 99999999999999999999 4294967297
envc MPBENCH_MEM_LIMIT_MB e2e "e2e $E2E" abc -1 ''
envc MPBENCH_E2E_MEM_LIMIT e2e "e2e $E2E" abc -1 0 1e9 '' 12junk 99999999999999999999 18446744073709551616
envc MPBENCH_E2E_MEM_LIMIT e2el "e2e $E2EL" abc -1
PEER="run --variant llamacpp.tq2_0 --shape 64x256 --reps 1 --min-time 0 --warm --no-db"
ENVC_DIRS=" ; needs:peer" envc MPBENCH_GGML_POLL run "$PEER" abc -1 101 4294967297 '' 1e1 50junk
envc MPBENCH_HUGEPAGES run "run $RUN" 2 -1 abc yes '' 1junk
envc MPBENCH_HUGEPAGES sweep "sweep $(without "$SWEEP" warm)" 2 abc
envc MPBENCH_E2E_HUGEPAGES e2e "e2e $E2E" 2 abc -1 ''
envc MPBENCH_E2E_SYNC e2e "e2e $E2E --profile" 2 abc ''
envc MPBENCH_EMULATED run "run $RUN" 2 abc -1 ''
envc MPBENCH_VERBOSE run "run $RUN" 2 abc ''
envc MPBENCH_MACHINE_TAG run "run $RUN" 'BAD TAG' abcdefghijklmnopq 'tag;rm'
# not a number: a bad word may be refused, or ignored with a warning naming it
for v in avx3 AVX2 'avx2,avx512'; do
    row d-integers "env.MPBENCH_MAX_ISA.run.$(tok "$v")" "0|2" "MPBENCH_MAX_ISA" \
        "env:MPBENCH_MAX_ISA=$v ; err:MPBENCH_MAX_ISA && $v" "run $RUN"
done
# the Slurm scripts' variables (exit 2 naming the variable and its value)
SL="MPBENCH_BIN=\"\$BIN\" MPBENCH_SLURM_DIR=. "
for v in abc -1 0 99999 '' 1e3 4294967297 ' 2'; do
    row d-integers "slurm.merge.shards.$(tok "$v")" 2 "MPBENCH_SLURM_SHARDS" "-" \
        "!${SL}MPBENCH_SLURM_SHARDS=$(q "$v") \"\$REPO/scripts/slurm/merge.sbatch\""
    row d-integers "slurm.array.shards.$(tok "$v")" 2 "MPBENCH_SLURM_SHARDS" "-" \
        "!${SL}MPBENCH_SLURM_SHARDS=$(q "$v") SLURM_ARRAY_TASK_ID=0 \"\$REPO/scripts/slurm/array.sbatch\" --variant i2_s.scalar --shape 64x128 --dry-run"
done
for v in abc -1 2 4294967297 ''; do
    row d-integers "slurm.array.task.$(tok "$v")" 2 "SLURM_ARRAY_TASK_ID" "-" \
        "!${SL}MPBENCH_SLURM_SHARDS=2 SLURM_ARRAY_TASK_ID=$(q "$v") \"\$REPO/scripts/slurm/array.sbatch\" --variant i2_s.scalar --shape 64x128 --dry-run"
done
for v in abc -1 1e3; do
    row d-integers "slurm.array.restart.$(tok "$v")" 2 "SLURM_RESTART_COUNT" "-" \
        "!${SL}MPBENCH_SLURM_SHARDS=2 SLURM_ARRAY_TASK_ID=0 SLURM_RESTART_COUNT=$(q "$v") \"\$REPO/scripts/slurm/array.sbatch\" --variant i2_s.scalar --shape 64x128 --dry-run"
done

# ---- tuned configs: each field of a line x bad values (e2e --tuned reads them) ---------------
# tconf ID EXPECT NEEDS LINE [COMMAND]
E2ET="e2e --model ./m.txt --tuned bad.conf --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --no-db"
tconf() {
    row d-integers "tuned.$1" "$2" "bad.conf${3:+ && $3}" "file:bad.conf=fingerprint $FP\n$4\n ; timeout:20" "${5:-$E2ET}"
}
for v in 128x4294967424 4294967424x128 128x-128 -128x128 0x128 128x0 abcx128 128xabc 1e2x128 128x x128 \
    128x128x1 '128*128' 99999999999x128 128x128junk; do
    tconf "shape.$(tok "$v")" 2 "$v" "i2_s.scalar $v n=1 threads=1 pf=8192"
done
for f in n threads; do
    for v in 99999999999 4294967297 -1 0 abc 1e3 '' 1junk 65537 2147483648; do
        [ "$f" = threads ] && [ "$v" = 65537 ] && v=1025
        if [ $f = n ]; then line="i2_s.scalar 128x128 n=$v threads=1 pf=8192"; else line="i2_s.scalar 128x128 n=1 threads=$v pf=8192"; fi
        nd="$f=$v"
        [ ${#v} -lt 2 ] && nd=$f
        tconf "$f.$(tok "$v")" 2 "$nd" "$line"
    done
done
for v in pf=4294967297 pf=-1 pf=abc pf= pf=1e3 pf=99999999999 pf '=1' nosuch=1 pf=8192junk; do
    case $v in
    nosuch=1) n=nosuch ;;
    pf=???*) n="pf && ${v#pf=}" ;;
    pf*) n=pf ;;
    *) n= ;;
    esac
    tconf "params.$(tok "$v")" 2 "$n" "i2_s.scalar 128x128 n=1 threads=1 $v"
done
row d-integers tuned.no-fingerprint-line 2 "nofp.conf && fingerprint" "file:nofp.conf=i2_s.scalar 128x128 n=1 threads=1 pf=8192\n" \
    "e2e --model ./m.txt --tuned nofp.conf --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --no-db"
tconf fields-4 2 "" "i2_s.scalar 128x128 n=1 threads=1"
tconf fields-6 2 "" "i2_s.scalar 128x128 n=1 threads=1 pf=8192 extra"
tconf N-upper 2 "N=1" "i2_s.scalar 128x128 N=1 threads=1 pf=8192"
tconf unknown-variant 2 "nosuch.scalar" "nosuch.scalar 128x128 n=1 threads=1 -"
tconf k-not-multiple 2 "128x100" "i2_s.scalar 128x100 n=1 threads=1 pf=8192"
tconf long-line 2 "" "i2_s.scalar 128x128 n=1 threads=1 pf=8192$(printf ',pf=8192%.0s' {1..700})"
row d-integers tuned.fingerprint-empty-value 2 "fpe.conf && fingerprint" "file:fpe.conf=fingerprint\ni2_s.scalar 128x128 n=1 threads=1 pf=8192\n" \
    "e2e --model ./m.txt --tuned fpe.conf --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --no-db"
# tune reads the config it is told to extend: a bad one is refused before measuring, untouched
for v in 128x4294967424 n=99999999999 threads=4294967297 pf=-1; do
    case $v in
    n=*) line="i2_s.scalar 128x128 $v threads=1 pf=8192" ;;
    threads=*) line="i2_s.scalar 128x128 n=1 $v pf=8192" ;;
    pf=*) line="i2_s.scalar 128x128 n=1 threads=1 $v" ;;
    *) line="i2_s.scalar $v n=1 threads=1 pf=8192" ;;
    esac
    tconf "tune-out.$(tok "$v")" 2 "$v" "$line" "tune $(without "$TUNE" out) --out bad.conf"
done
# the two lines of a sharded tune config merged: duplicates
tconf duplicate-key "0|2" "" "i2_s.scalar 128x128 n=1 threads=1 pf=8192\ni2_s.scalar 128x128 n=1 threads=1 pf=4096"

# ---- model files: every integer key x bad values ----------------------------------------
MODEL_CMDS=("list shapes --model ./bad.txt" "e2e --model ./bad.txt --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --no-db"
    "run --variant i2_s.scalar --model ./bad.txt --reps 1 --min-time 0 --warm --no-db"
    "sweep --variant i2_s.scalar --model ./bad.txt --dry-run")
i=0
for key in hidden intermediate layers heads kv_heads vocab head_dim max_pos; do
    vals=(4294967297 99999999999 -1 0 abc 1e2 '' 12junk)
    case $key in hidden | heads | max_pos) vals+=(0x80 1.5 100000001 2147483648) ;; esac
    for v in "${vals[@]}"; do
        if [ "$key" = head_dim ]; then e="\$a head_dim $v"; else e="s/^$key .*/$key $v/"; fi
        c=${MODEL_CMDS[$((i % 4))]}
        i=$((i + 1))
        n="bad.txt && $key"
        row d-integers "model.$key.$(tok "$v")" 2 "$n" "edit:m.txt>bad.txt=$e ; timeout:20" "$c"
    done
done
for key in tied sub_norm; do
    for v in 2 -1 abc 1e0 '' 0x1 4294967297; do
        c=${MODEL_CMDS[$((i % 4))]}
        i=$((i + 1))
        row d-integers "model.$key.$(tok "$v")" 2 "bad.txt && $key" "edit:m.txt>bad.txt=s/^$key .*/$key $v/ ; timeout:20" "$c"
    done
done
for key in rope_theta norm_eps; do
    for v in nan inf -1 0 abc 1e999 ''; do
        c=${MODEL_CMDS[$((i % 4))]}
        i=$((i + 1))
        row d-integers "model.$key.$(tok "$v")" 2 "bad.txt && $key" "edit:m.txt>bad.txt=s/^$key .*/$key $v/ ; timeout:20" "$c"
    done
done
# a bad file among the models folder: list models names it
for v in 4294967297 abc; do
    row d-integers "model.folder.layers.$(tok "$v")" 2 "bad.txt && layers" \
        "mkdir:mf ; copy:m.txt>mf/good.txt ; edit:m.txt>mf/bad.txt=s/^layers .*/layers $v/ ; env:MPBENCH_MODELS=mf" "list models"
    row d-integers "model.folder-sweep.layers.$(tok "$v")" 2 "bad.txt && layers" \
        "mkdir:mf ; copy:m.txt>mf/good.txt ; edit:m.txt>mf/bad.txt=s/^layers .*/layers $v/ ; env:MPBENCH_MODELS=mf" \
        "sweep --variant i2_s.scalar --model all --dry-run"
done

# ---- GGUF: every integer field of the header, the key-values and the tensor infos ----------
declare -A OFF W VAL
gguf_fields() { # FILE PREFIX
    local name off w val
    while read -r name off w val; do
        OFF[$2$name]=$off W[$2$name]=$w VAL[$2$name]=$val
    done < <("$GE" fields "$1")
}
gguf_fields "$FIX/g.gguf" g:
gguf_fields "$FIX/gtq.gguf" t:
gguf_fields "$FIX/gr.gguf" r:
# gset FILE PREFIX FIELD VALUE EXPECT NEEDS COMMAND-WITH-{F}
gcase() {
    local file=$1 pre=$2 field=$3 v=$4 expect=$5 needs=$6 c=$7 id
    [ -n "${OFF[$pre$field]+x}" ] || { echo "generate.sh: no GGUF field $field in $file" >&2; return; }
    id="gguf.${file%.gguf}.$field.$(tok "$v")"
    c=${c//\{F\}/bad.gguf}
    row d-integers "$id" "$expect" "$needs" \
        "copy:$file>bad.gguf ; patch:bad.gguf@${OFF[$pre$field]}:${W[$pre$field]}=$v ; timeout:20" "$c"
}
LG="list gguf {F}"
U64=18446744073709551615
for pre in g t; do
    file=g.gguf
    [ $pre = t ] && file=gtq.gguf
    for v in 0 1 4 4294967295; do gcase $file $pre: header.version $v 2 bad.gguf "$LG"; done
    nt=${VAL[${pre}:header.n_tensors]} nk=${VAL[${pre}:header.n_kv]}
    for v in $((nt + 1)) 4294967297 9223372036854775808 $U64; do gcase $file $pre: header.n_tensors $v 2 bad.gguf "$LG"; done
    for v in $((nk + 1)) 9223372036854775808 $U64; do gcase $file $pre: header.n_kv $v 2 bad.gguf "$LG"; done
done
for v in 0 4294967297 $U64; do gcase g.gguf g: kv.general.architecture.key_len $v 2 bad.gguf "$LG"; done
for v in 13 99 4294967295; do gcase g.gguf g: kv.general.architecture.type $v 2 bad.gguf "$LG"; done
for v in $U64 4294967301 0; do gcase g.gguf g: kv.general.architecture.str_len $v 2 bad.gguf "$LG"; done
for v in 13 99; do gcase g.gguf g: kv.tokenizer.ggml.tokens.arr_type $v 2 bad.gguf "$LG"; done
for v in 4611686018427387904 $U64 513; do gcase g.gguf g: kv.tokenizer.ggml.tokens.arr_len $v 2 bad.gguf "$LG"; done
for v in 99 4294967295; do gcase g.gguf g: kv.llama.block_count.type $v 2 bad.gguf "$LG"; done
for v in 4611686018427387904 $U64; do gcase g.gguf g: kv.tokenizer.ggml.scores.arr_len $v 2 bad.gguf "$LG"; done
for pt in "g|g.gguf|token_embd.weight" "g|g.gguf|blk.0.attn_q.weight" "g|g.gguf|blk.1.ffn_down.weight" \
    "t|gtq.gguf|blk.0.ffn_up.weight" "r|gr.gguf|blk.2.ffn_down.weight"; do
    IFS='|' read -r pre file tn <<<"$pt"
    for v in 0 64 $U64; do gcase $file $pre: "tensor.$tn.name_len" $v 2 bad.gguf "$LG"; done
    for v in 0 5 4294967295; do gcase $file $pre: "tensor.$tn.n_dims" $v 2 bad.gguf "$LG"; done
    for v in 0 9223372036854775808 $U64 4294967424; do gcase $file $pre: "tensor.$tn.ne0" $v 2 bad.gguf "$LG"; done
    for v in 4294967297 $U64; do gcase $file $pre: "tensor.$tn.ne1" $v 2 bad.gguf "$LG"; done
    for v in 99 4294967295 2147483648; do gcase $file $pre: "tensor.$tn.type" $v 2 bad.gguf "$LG"; done
    o=${VAL[$pre:tensor.$tn.offset]}
    for v in $((o + 1)) 9223372036854775808 $((U64 - 31)); do gcase $file $pre: "tensor.$tn.offset" $v 2 bad.gguf "$LG"; done
done
# the model's integers: a structurally valid file the runner cannot run
RG="e2e --gguf {F} --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --no-db"
SG="list shapes --gguf {F}"
for kv in "block_count|0 4294967295 3" "embedding_length|0 4294967295 127" "attention.head_count|0 4294967295 3" \
    "attention.head_count_kv|0 3 4294967295" "feed_forward_length|0 4294967295 255" "context_length|0 4294967295" \
    "vocab_size|0 4294967295 511" "rope.dimension_count|0 4294967295 33"; do
    IFS='|' read -r k vs <<<"$kv"
    j=0
    for v in $vs; do
        c=$RG
        [ $((j % 2)) = 1 ] && c=$SG
        j=$((j + 1))
        gcase g.gguf g: "kv.llama.$k.value" $v 2 "bad.gguf && ${k##*.} || tensor" "$c"
    done
done
for kv in "block_count|0 4294967295" "attention.head_count|0 4294967295"; do
    IFS='|' read -r k vs <<<"$kv"
    for v in $vs; do gcase gr.gguf r: "kv.bitnet.$k.value" $v 2 "bad.gguf && ${k##*.} || tensor" "$RG"; done
done

# ---- the claims file: each number of a claim x bad values (report --claims) -------------------
REP="report --db r.db --out R.md --csv csvd --claims bad.tsv"
claim() { # ID NEEDS SED-EXPRESSION
    row d-integers "claims.$1" 2 "bad.tsv${2:+ && $2}" "edit:c.tsv>bad.tsv=$3 ; timeout:20" "$REP"
}
for v in 4294967424 99999999999 -1 1e3 128junk ''; do
    n=$v
    [ ${#v} -lt 3 ] && n=
    claim "kernel-n.$(tok "$v")" "$n" "s/LLAMACPP_TQ2_0 128 1\t/LLAMACPP_TQ2_0 $v 1\t/"
done
for v in 4294967297 -1 abc; do
    n=$v
    [ ${#v} -lt 3 ] && n=
    claim "kernel-t.$(tok "$v")" "$n" "s/LLAMACPP_TQ2_0 128 1\t/LLAMACPP_TQ2_0 128 $v\t/"
    claim "e2e-t.$(tok "$v")" "$n" "s/e2e I2_S LLAMACPP_F16 tg 0 /e2e I2_S LLAMACPP_F16 tg $v /"
    claim "e2eshare-t.$(tok "$v")" "$n" "s/e2eshare I2_S tg 0/e2eshare I2_S tg $v/"
done
for v in abc nan '' 1.7junk; do
    n=$v
    [ ${#v} -lt 3 ] && n=
    claim "lo.$(tok "$v")" "$n" "s/\tmedian\t1.7\t2.9\t/\tmedian\t$v\t2.9\t/"
    claim "hi.$(tok "$v")" "$n" "s/\tmedian\t1.7\t2.9\t/\tmedian\t1.7\t$v\t/"
done
for v in abc 4.08junk; do
    claim "paper.$(tok "$v")" "" "s/paper=700m:4.08,/paper=700m:$v,/"
done
claim fields-11 "" "s/\tmedian\t1.7\t2.9\t/\tmedian\t1.7\t/"
claim fields-13 "" "s/\tmedian\t1.7\t2.9\t/\tmedian\t1.7\t2.9\textra\t/"
claim metric-unknown "kernal" "s/\tkernel VLUT_I2 LLAMACPP_TQ2_0 128 1\t/\tkernal VLUT_I2 LLAMACPP_TQ2_0 128 1\t/"
claim metric-words "" "s/LLAMACPP_TQ2_0 128 1\t/LLAMACPP_TQ2_0\t/"

# ---- the database's own numbers: the schema version in meta ------------------------------------
DBC=("sweep|sweep $(without "$SWEEP" db) --db x.db"
    "report|report --db x.db --out R.md --csv csvd --claims c.tsv"
    "compare|compare --base x.db --new s.db"
    "merge|merge m2.db x.db"
    "plot|plot roofline --db x.db --outdir pl"
    "list-machine|list machine --db x.db")
for v in 99999 -1 abc 4294967297 1e1 ''; do
    for dc in "${DBC[@]}"; do
        IFS='|' read -r name c <<<"$dc"
        row d-integers "db.schema.$name.$(tok "$v")" "2|3" "x.db" \
            "copy:s.db>x.db ; sql:x.db=UPDATE meta SET value='$v' WHERE key='schema_version' ; needs:sqlite3" "$c"
    done
done

# =========================================================================================
# e-repeats (generated part): help everywhere, unknown words, files people have
# =========================================================================================
for cmd in run list sweep tune probe compare merge pack e2e report plot; do
    row e-repeats "help.$cmd" 0 - "out:usage" "$cmd --help"
    row e-repeats "help.$cmd.h" 0 - "out:usage" "$cmd -h"
    row e-repeats "unknown-option.$cmd" 2 "--nosuch" - "$cmd --nosuch"
done
for k in gguf shapes variants machine models formats; do
    row e-repeats "help.list-$k" 0 - "out:usage" "list $k --help"
done
row e-repeats help.word 0 - "out:usage" "help"
row e-repeats help.dash 0 - "out:usage" "--help"
row e-repeats help.none 2 "usage" - ""
row e-repeats unknown-command 2 "nosuch" - "nosuch"
row e-repeats unknown-list-kind 2 "nosuch" - "list nosuch"
row e-repeats unknown-plot-kind 2 "nosuch" - "plot nosuch --db r.db --outdir pl"
# a GGUF file with a tensor of a type mpbench does not run (K-quants: most published
# files): list gguf lists it; run and e2e refuse it naming the tensor
for tt in "3|q4_1" "6|q5_0" "7|q5_1" "9|q8_1" "10|q2_K" "11|q3_K" "12|q4_K" "13|q5_K" "14|q6_K" "15|q8_K" \
    "16|iq2_xxs" "20|iq4_nl" "23|iq4_xs" "24|i8" "25|i16" "26|i32" "28|f64"; do
    IFS='|' read -r t nm <<<"$tt"
    up=$(echo "$nm" | tr a-z A-Z) lo=$(echo "$nm" | tr A-Z a-z)
    row e-repeats "kquant.list.$lo" 0 - "retype:g.gguf>kq.gguf@blk.0.ffn_down.weight=$t ; if0:$nm || $up || $lo || type $t" \
        "list gguf kq.gguf --tensors"
    case $t in 12 | 14 | 10 | 24 | 28)
        row e-repeats "kquant.run.$lo" 2 "kq.gguf && blk.0.ffn_down.weight" \
            "retype:g.gguf>kq.gguf@blk.0.ffn_down.weight=$t ; timeout:20" \
            "run --variant i2_s.scalar --gguf kq.gguf --reps 1 --min-time 0 --warm --no-db"
        row e-repeats "kquant.e2e.$lo" 2 "kq.gguf && blk.0.ffn_down.weight" \
            "retype:g.gguf>kq.gguf@blk.0.ffn_down.weight=$t ; timeout:20" \
            "e2e --gguf kq.gguf --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --no-db" ;;
    esac
done
row e-repeats kquant.list.embd-q4_1 0 - "retype:g.gguf>kq.gguf@token_embd.weight=3 ; if0:q4_1 || Q4_1 || type 3" "list gguf kq.gguf"
row e-repeats kquant.list-shapes.q4_k "0|2" "kq.gguf && blk.0.ffn_down.weight" \
    "retype:g.gguf>kq.gguf@blk.0.ffn_down.weight=12" "list shapes --gguf kq.gguf"
# an architecture nobody runs: "llama" -> "llamb", "bitnet" -> "bitneu" (same length):
# list gguf lists the file and says why it cannot run on stderr; the runners refuse it
ARCH_AT=$((${OFF[g:kv.general.architecture.str_len]} + 8 + 4))
ARCH_R=$((${OFF[r:kv.general.architecture.str_len]} + 8 + 5))
for ac in "llamb|g.gguf|$ARCH_AT|98" "bitneu|gr.gguf|$ARCH_R|117"; do
    IFS='|' read -r an file at byte <<<"$ac"
    d="copy:$file>ua.gguf ; patch:ua.gguf@$at:1=$byte ; timeout:20"
    row e-repeats "arch.$an.list-gguf" "0|2" "$an" "$d ; err:$an" "list gguf ua.gguf"
    row e-repeats "arch.$an.list-shapes" 2 "ua.gguf && $an" "$d" "list shapes --gguf ua.gguf"
    row e-repeats "arch.$an.run" 2 "ua.gguf && $an" "$d" "run --variant i2_s.scalar --gguf ua.gguf --reps 1 --min-time 0 --warm --no-db"
    row e-repeats "arch.$an.e2e" 2 "ua.gguf && $an" "$d" "e2e --gguf ua.gguf --variant i2_s.scalar --pp 4 --tg 2 --reps 1 --no-db"
    row e-repeats "arch.$an.sweep" 2 "ua.gguf && $an" "$d" "sweep --variant i2_s.scalar --gguf ua.gguf --dry-run"
    row e-repeats "arch.$an.tune" 2 "ua.gguf && $an" "$d" "tune $(without "$TUNE" shape) --gguf ua.gguf"
done
