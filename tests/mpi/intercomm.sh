#!/bin/sh
# intercomm.sh -- intercommunicators: MPI_Comm_dup, _split, _create and _idup
# of an intercommunicator end as they do untraced (they used to deadlock in
# the id agreement) and make intercommunicators whose members agree on the
# id; messages and a rooted collective (MPI_ROOT) across them record remote
# peers as world ranks; merge and MPI_Comm_create_group.
. "$top_srcdir/tests/mpi/common.sh"

# a hang is a failure within a minute, untraced and traced
RUN_TIMEOUT=60
ECL_ENABLE=0 run 4 "$ex/intercomm"
no_errors
[ ! -e "$tmp/trace.ecl" ] || fail "ECL_ENABLE=0 wrote a trace"
run 4 "$ex/intercomm"
no_errors
per_rank_files 4
check --ranks 4 --order --match \
    --each mpi_intercomm_create=1 --each mpi_comm_dup=1 --each mpi_comm_split=2 \
    --each mpi_comm_create=1 --each mpi_comm_idup=1 --each mpi_intercomm_merge=1 \
    --count mpi_comm_create_group=2 --count mpi_send=10 --count mpi_recv=10 \
    --same mpi_intercomm_create.newcomm --same mpi_comm_dup.newcomm \
    --same mpi_comm_create.newcomm --same mpi_comm_idup.newcomm \
    --same mpi_intercomm_merge.newcomm --same mpi_comm_create_group.newcomm \
    --has-n 5 'mpi_send process=0 peer=1' --has-n 5 'mpi_send process=0 peer=3' \
    --has-n 5 'mpi_recv process=3 peer=0' \
    --has 'mpi_bcast process=0 root=0 sent=4' --has 'mpi_bcast process=2 root=-1 sent=0 recvd=0' \
    --has 'mpi_bcast process=1 root=0 recvd=4' --has 'mpi_bcast process=3 root=0 recvd=4' \
    --has-n 4 'mpi_complete kind=6' \
    --has-n 0 'mpi_send comm=4294967295' \
    "$tmp/trace.ecl"
# the dup of the intercommunicator is defined as one, with the other half
"$paldump" -t mpi_comm -p 1 "$tmp/trace.ecl" | grep -q 'size=2 inter=1 ranks="1 3" remote="0 2"' ||
    fail "no definition of an intercommunicator of world 1 3 with remote group 0 2"
# the id MPI_Comm_idup announced is the one its completion names
idup=$("$paldump" -t mpi_comm_idup -p 2 "$tmp/trace.ecl" | sed 's/.*newcomm=\([0-9]*\).*/\1/')
"$paldump" -t mpi_complete -p 2 "$tmp/trace.ecl" | grep -q "kind=6 .*comm=$idup " ||
    fail "the completion of MPI_Comm_idup does not name communicator $idup"
echo "PASS"
