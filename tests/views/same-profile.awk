# same-profile.awk -- two pal-view text profiles are the same: awk -f
# same-profile.awk A B exits 0 when their lines pair up and their words are
# equal, numbers within one unit of their last printed digit (times turned
# into seconds from another zero round differently); the lines that differ
# are printed. Used by tests/views/otf2-roundtrip.sh and bench/otf2-lulesh.sh.
function unit(w,   d) { d = index(w, "."); return d ? 10 ^ -(length(w) - d) : 1 }
function num(w) { return w ~ /^-?[0-9]+(\.[0-9]+)?$/ }
FNR == NR { a[FNR] = $0; na = FNR; next }
{ nb = FNR
  n = split(a[FNR], x, / +/); m = split($0, y, / +/); ok = n == m
  for (i = 1; ok && i <= n; i++) {
      if (x[i] == y[i]) continue
      if (!num(x[i]) || !num(y[i])) { ok = 0; break }
      d = x[i] - y[i]; if (d < 0) d = -d
      u = unit(x[i]) > unit(y[i]) ? unit(x[i]) : unit(y[i])
      if (d > u * 1.01) ok = 0
  }
  if (!ok) { print "- " a[FNR]; print "+ " $0; bad = 1 } }
END { if (na != nb) { print "lines: " na " and " nb; bad = 1 }; exit bad }
