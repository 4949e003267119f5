! fring.f90 -- a Fortran MPI program (the `mpi` module): a blocking ring, a
! nonblocking neighbour exchange completed with MPI_Waitall, a reduction and a
! broadcast, matched probes, a nonblocking duplication and a group. Plain
! MPI: ECL traces it through its Fortran wrappers, linked with -lecl or
! preloaded by ecl-run.
!
!   mpirun -np 4 ./fring
! Per rank: ROUNDS sends and receives, 2 isends, 2 irecvs, 1 waitall,
! 1 allreduce, 1 bcast, 2 barriers, 1 comm_idup and its wait, 1 comm_group,
! 1 group_incl, 2 group_free; ranks > 0 send tag 200 + rank to rank 0, which
! takes in rank order with MPI_Mprobe (MPI_ANY_SOURCE, tag 200 + r) and
! MPI_Mrecv.
program fring
  use mpi
  implicit none
  integer, parameter :: rounds = 5
  integer :: rank, size, next, prev, r, ierr, total
  integer :: token(rounds)
  integer :: sbuf(2), rbuf(2), reqs(4)
  integer :: status(MPI_STATUS_SIZE)
  integer :: statuses(MPI_STATUS_SIZE, 4)
  integer :: msg, dup, req, wgroup, g0, x

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  next = mod(rank + 1, size)
  prev = mod(rank + size - 1, size)
  token = 0

  do r = 1, rounds
    if (rank == 0) then
      token(r) = r
      call MPI_Send(token, r, MPI_INTEGER, next, r, MPI_COMM_WORLD, ierr)
      call MPI_Recv(token, r, MPI_INTEGER, prev, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Recv(token, r, MPI_INTEGER, prev, r, MPI_COMM_WORLD, status, ierr)
      call MPI_Send(token, r, MPI_INTEGER, next, r, MPI_COMM_WORLD, ierr)
    end if
  end do

  sbuf = rank
  call MPI_Irecv(rbuf(1), 1, MPI_INTEGER, prev, 100, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(rbuf(2), 1, MPI_INTEGER, next, 101, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Isend(sbuf(1), 1, MPI_INTEGER, next, 100, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Isend(sbuf(2), 1, MPI_INTEGER, prev, 101, MPI_COMM_WORLD, reqs(4), ierr)
  call MPI_Waitall(4, reqs, statuses, ierr)
  if (rbuf(1) /= prev .or. rbuf(2) /= next) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)

  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Bcast(total, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  if (rank == 0) then
    do r = 1, size - 1
      call MPI_Mprobe(MPI_ANY_SOURCE, 200 + r, MPI_COMM_WORLD, msg, status, ierr)
      call MPI_Mrecv(x, 1, MPI_INTEGER, msg, status, ierr)
      if (x /= status(MPI_SOURCE) .or. status(MPI_TAG) /= 200 + x) call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
    end do
  else
    call MPI_Send(rank, 1, MPI_INTEGER, 0, 200 + rank, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Comm_idup(MPI_COMM_WORLD, dup, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Barrier(dup, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_group(MPI_COMM_WORLD, wgroup, ierr)
  call MPI_Group_incl(wgroup, 1, [0], g0, ierr)
  call MPI_Group_free(g0, ierr)
  call MPI_Group_free(wgroup, ierr)
  if (rank == 0) print '(a,i0,a,i0)', 'fring: ranks ', size, ', sum of ranks ', total
  call MPI_Finalize(ierr)
end program fring
