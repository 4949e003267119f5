#!/bin/sh
# split.sh -- communicators: peers in split, duplicated, created, Cartesian
# and inter-communicators are recorded as world ranks, and every member of a
# communicator records the same communicator id.
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/split"
per_rank_files 4
check --ranks 4 --order --match \
    --each mpi_comm_split=1 --each mpi_comm_dup=1 --each mpi_comm_create=1 \
    --each mpi_cart_create=1 --each mpi_cart_sub=1 --each mpi_intercomm_create=1 \
    --each mpi_intercomm_merge=1 --each mpi_sendrecv=1 \
    --has 'mpi_comm_split process=2 color=0 key=-2' \
    --has 'mpi_send process=2 peer=0 tag=7' --has 'mpi_recv process=0 peer=2 tag=7' \
    --has 'mpi_send process=3 peer=1 tag=7' --has 'mpi_recv process=1 peer=3 tag=7' \
    --has 'mpi_send process=2 peer=3 tag=12' --has 'mpi_recv process=3 peer=2 tag=12' \
    --has 'mpi_sendrecv process=0 peer=1 tag=9 source=3 recvtag=9 recvbytes=4' \
    --has 'mpi_bcast process=1 root=0' \
    --has 'mpi_comm_create process=2 newcomm=0' --has 'mpi_comm_create process=3 newcomm=0' \
    --has-n 7 'mpi_comm_free process=0' --has-n 6 'mpi_comm_free process=3' \
    --same mpi_cart_create.newcomm --same mpi_intercomm_create.newcomm \
    --same mpi_intercomm_merge.newcomm --same mpi_cart_sub.newcomm \
    --has-n 0 'mpi_send comm=4294967295' \
    "$tmp/trace.ecl"
# the halves' communicators: the same id on both members, another per half
for r in 0 2; do
    "$paldump" -t mpi_comm_split -p $r "$tmp/trace.ecl" | sed 's/.*newcomm=//' > "$tmp/split.$r"
done
cmp -s "$tmp/split.0" "$tmp/split.2" || fail "ranks 0 and 2 disagree on their half's id"
"$paldump" -t mpi_comm_split -p 1 "$tmp/trace.ecl" | sed 's/.*newcomm=//' > "$tmp/split.1"
cmp -s "$tmp/split.0" "$tmp/split.1" && fail "both halves have the same id"
# mpi_comm definitions list world ranks
"$paldump" -t mpi_comm -p 0 "$tmp/trace.ecl" | grep -q 'size=2 inter=0 ranks="2 0"' ||
    fail "no definition of the even half with world ranks 2 0"
echo "PASS"
