# scaling.awk -- a run of P ranks in tests/views/many-ranks.edl whose
# per-call times follow known laws of the process count (for
# tests/diag/predict.sh):  awk -v P=8 -f scaling.awk | sort -n -s -k1,1
# Each rank, 10 times: "work" of 64000/P us (mean time ~ 1/p, calls per
# rank constant), then MPI_Allreduce of 100 log2(P) us (~ log2 p);
# P times in all, "setup" of 50 us (calls per rank ~ p, mean constant).
BEGIN {
  lg = 0; for (q = P; q > 1; q /= 2) lg++;
  for (r = 0; r < P; r++) printf "0 %d 0 comm 0 %d 0-%d\n", r, P, P - 1;
  for (r = 0; r < P; r++) {
    t = 100;
    for (i = 0; i < P; i++) { t += 50; printf "%d %d 0 setup %d\n", t, r, 50 }
    for (i = 0; i < 10; i++) {
      t += 64000 / P; printf "%d %d 0 work %d\n", t, r, 64000 / P;
      t += 100 * lg; printf "%d %d 0 allreduce %d 0 8 8\n", t, r, 100 * lg;
    }
  }
}
