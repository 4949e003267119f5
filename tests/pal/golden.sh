# golden.sh -- sourced by the pal-dump golden tests (not a test itself).
# Needs: dump (the pal-dump binary), golden (directory), tmp (scratch
# directory), top_srcdir, and fail=0 set by the caller.
#
# check NAME EXPECTED-STATUS ARGS...: runs pal-dump ARGS; stdout must equal
# golden/NAME, stderr (scratch and source paths replaced by TMP and SRC) must
# equal golden/NAME.err, or be empty when that file does not exist.
# UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
check() {
    name=$1 want=$2
    shift 2
    "$dump" "$@" >"$tmp/out" 2>"$tmp/err.raw"
    st=$?
    sed "s|$tmp|TMP|g; s|$top_srcdir|SRC|g" "$tmp/err.raw" >"$tmp/err"
    if [ "$st" -ne "$want" ]; then
        echo "FAIL: $name: exit status $st, expected $want"
        cat "$tmp/err"
        fail=1
    fi
    if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$tmp/out" "$golden/$name"
        if [ -s "$tmp/err" ]; then cp "$tmp/err" "$golden/$name.err"; else rm -f "$golden/$name.err"; fi
        return
    fi
    if ! cmp -s "$tmp/out" "$golden/$name"; then
        echo "FAIL: $name: output differs from golden/$name"
        diff -u "$golden/$name" "$tmp/out" | head -20
        fail=1
    fi
    if [ -f "$golden/$name.err" ]; then
        if ! cmp -s "$tmp/err" "$golden/$name.err"; then
            echo "FAIL: $name: stderr differs from golden/$name.err"
            diff -u "$golden/$name.err" "$tmp/err" | head -20
            fail=1
        fi
    elif [ -s "$tmp/err" ]; then
        echo "FAIL: $name: unexpected stderr:"
        cat "$tmp/err"
        fail=1
    fi
}
