# inputs.sh -- sourced by tests/views/jobs.sh and tests/views/mpi-engine.sh,
# which compare pal-view's outputs read in several ways on the same traces:
# how those traces are made. The caller sets tmp (a directory of its own),
# top_srcdir and top_builddir, and defines bad (a failure said, the test
# going on); a trace that cannot be made exits 99.
edlc="$top_builddir/edl/edlc"
mpirun=${ECL_TEST_MPIRUN:-mpirun}

# one_stream_inputs CMD: CMD NAME PAL-VIEW-ARGS... for each trace of one
# stream: toymp (a format no code knows), the PICL excerpt and the PICL
# traces of shared/data when there, a foreign trace (otf2-req)
one_stream_inputs() {
    sh "$top_srcdir/examples/toymp/toymp-ring" 4 3 >"$tmp/ring.log" || exit 99
    "$1" toymp -d "$top_srcdir/edl/formats/toymp.edl" "$tmp/ring.log"
    "$edlc" -o "$tmp/picl.dict" "$top_srcdir/edl/formats/picl.edl" || exit 99
    "$1" "picl excerpt" -d "$tmp/picl.dict" "$top_srcdir/tests/edl/samples/mpicl_test.excerpt.ttf"
    for f in "$top_srcdir"/../shared/data/picl/*.ttf; do
        [ -f "$f" ] && "$1" "picl $(basename "$f")" -d "$tmp/picl.dict" "$f"
    done
    "$1" "otf2-req" -d "$top_srcdir/tests/views/otf2-req.edl" "$top_srcdir/tests/views/otf2-req.trace"
}

# vwprog_trace: sets trace to the ECL trace of tests/views/vwprog (its main
# thread and 2 workers)
vwprog_trace() {
    ECL_DIR="$tmp" ECL_PREFIX=vw "$top_builddir/tests/views/vwprog" >/dev/null 2>&1 || exit 99
    trace=$(ls "$tmp"/vw.*.ecl 2>/dev/null | head -1)
    [ -n "$trace" ] || { echo "vwprog wrote no trace"; exit 99; }
}

# mpi_env: Open MPI run as root, and none of the caller's ECL_ settings but
# the tests' own (ECL_TEST_*)
mpi_env() {
    OMPI_ALLOW_RUN_AS_ROOT=1
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    for v in $(env | sed -n 's/^\(ECL_[A-Za-z0-9_]*\)=.*/\1/p'); do
        case $v in ECL_TEST_*) ;; *) unset "$v" ;; esac
    done
}

# run_mpi NAME RANKS PROGRAM [ARGS]: PROGRAM (an absolute path) under mpirun,
# traced into $tmp/NAME (per-rank files and the run file)
run_mpi() {
    ex=$1 np=$2
    shift 2
    mkdir "$tmp/$ex"
    (cd "$tmp/$ex" && ECL_DIR="$tmp/$ex" ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
        timeout 300 "$mpirun" --oversubscribe -np "$np" "$@") \
        >"$tmp/$ex.out" 2>&1 || { cat "$tmp/$ex.out"; echo "mpirun $ex failed"; exit 99; }
}

# damaged_run FROM DIR: DIR gets the 16 per-rank files of FROM damaged
# three ways: a flipped chunk in rank 5's, rank 6's cut inside a chunk,
# rank 9's missing
damaged_run() {
    mkdir "$2"
    cp "$1"/trace.[0-9]*.ecl "$2/"
    sz=$(wc -c <"$2/trace.5.ecl")
    printf '\377\377\377\377' | dd of="$2/trace.5.ecl" bs=1 seek=$((sz / 2)) conv=notrunc 2>/dev/null
    head -c $((sz / 2)) "$1/trace.6.ecl" >"$2/trace.6.ecl"
    rm "$2/trace.9.ecl"
}

# otf2_archive CMD: CMD NAME ARCHIVE on the run of examples/mpi/collectives
# ($tmp/collectives) exported as an OTF2 archive (a foreign format whose
# communicator ids are global), when ECL was built with OTF2
otf2_archive() {
    [ "${ECL_TEST_HAVE_OTF2:-no}" = yes ] || return 0
    if "$top_builddir/views/pal-view" --export otf2 -o "$tmp/coll.otf2" \
        "$tmp/collectives/trace.ecl" >/dev/null 2>&1; then
        "$1" "collectives (OTF2 archive)" "$tmp/coll.otf2/traces.otf2"
    else
        bad "pal-view --export otf2"
    fi
}
