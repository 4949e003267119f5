#!/bin/sh
# io.sh -- the I/O group (ECL_GROUPS=io) under ecl-run: a program writes
# 8123 bytes to a file (write, pwrite) and reads them back (read, pread);
# the io_call records of that file sum to exactly those bytes, per call
# kind, and name the file's path.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/auto/common.sh"
cd "$WORK" || exit 99
$CC -g -O0 -pthread "$S/threads.c" -o threads || fail "cannot build threads"
run_traced "io" env ECL_GROUPS=io $ECLRUN ./threads "$WORK/data.bin"
grep -q '^read 8123 bytes$' "$WORK/out" || fail "the program did not read 8123 bytes"
"$PALDUMP" --type io_call "$TRACE" > calls
sum() {   # sum FUNCTION: bytes of the calls of FUNCTION on data.bin
    awk -v f="region=\"$1\"" -v p="file=\"$WORK/data.bin\"" \
        '$5 == f && index($0, p) { sub(/.*bytes=/, ""); n += $1 } END { print n + 0 }' calls
}
expect "write bytes" "$(sum write)" 7000
expect "pwrite bytes" "$(sum pwrite)" 1123
expect "read bytes" "$(sum read)" 8123
expect "pread bytes" "$(sum pread)" 1000
expect "opens of data.bin" "$(grep -c "region=\"open\" .*file=\"$WORK/data.bin\"" calls)" 2
expect "closes of data.bin" "$(grep -c "region=\"close\" .*file=\"$WORK/data.bin\"" calls)" 2
expect "fsync of data.bin" "$(grep -c "region=\"fsync\" .*file=\"$WORK/data.bin\"" calls)" 1
expect "io_file definitions of data.bin" "$(count "$TRACE" io_file "file=1 path=\"$WORK/data.bin\"")" 1

run_traced "io off" $ECLRUN ./threads "$WORK/data.bin"
expect "io off: io_call" "$(count "$TRACE" io_call)" 0
exit 0
