# many-ranks.awk -- a run of N ranks and S steps in tests/views/many-ranks.edl
# (tests/views/html-groups.sh):  awk -v N=100 -v S=6 -f many-ranks.awk | sort -n -s -k1,1
# Every step: thread 0 of each rank computes ("work", skewed by rank),
# exchanges with its ring neighbours (MPI_Irecv, MPI_Isend, completions,
# MPI_Waitall), enters MPI_Allreduce (late ranks make an entry spread) and
# MPI_Bcast from root s % N; every tenth rank has a helper thread 1 that
# works throughout. One allreduce and one bcast instance per step.
BEGIN {
  for (r = 0; r < N; r++) printf "0 %d 0 comm 0 %d 0-%d\n", r, N, N - 1;
  for (s = 0; s < S; s++) {
    base = 100 + s * 1000;
    for (r = 0; r < N; r++) {
      l = (r + N - 1) % N; rr = (r + 1) % N; j = (r * 7 + s * 13) % 50;
      t = base + 100 + j;
      printf "%d %d 0 work %d\n", t, r, 100 + j;
      printf "%d %d 0 irecv 2 0 %d 1 %d\n", t + 2, r, l, 10 * r + 1;
      printf "%d %d 0 isend 3 0 %d 1 4096 %d\n", t + 6, r, rr, 10 * r + 2;
      printf "%d %d 0 complete %d 0 0 %d 1 4096\n", t + 100, r, 10 * r + 2, rr;
      printf "%d %d 0 complete %d 1 0 %d 1 4096\n", t + 101, r, 10 * r + 1, l;
      printf "%d %d 0 waitall %d\n", t + 110, r, 100;
      w = 300 - j - (r % 9) * 10;
      printf "%d %d 0 allreduce %d 0 8 8\n", t + 120 + (r % 9) * 10 + w, r, w;
      printf "%d %d 0 bcast %d 0 %d 1024\n", base + 900 + (r % 5), r, 60 + (r % 5), s % N;
      if (r % 10 == 0) printf "%d %d 1 work %d\n", base + 950, r, 850;
    }
  }
}
