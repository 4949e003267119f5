# expect-waits.awk -- the waits that tests/diag/lateness really injected,
# from its lateness.RANK.times files ("PATTERN CALL#INSTANCE ROLE RANK
# SECONDS", each rank's clock just before the call), computed by the
# definitions of doc/views.md, "Wait states", independently of any trace:
#   late_sender    per message: send - recv (when positive)
#   late_receiver  per message: recv - send (when positive)
#   wait_barrier, wait_nxn   per member: last member - member
#   late_broadcast per member other than the root: root - member
#   early_reduce   on the root: first member - root
#   wait_fence     as wait_barrier
#   late_post      per member (origin): root (the target's post) - member
#   lock_contention per member (an exclusive lock request): root (the
#                  holder's unlock) - member
#   early_wait     on the root (the target's wait): last member's complete - root
# Prints "PATTERN CALL SECONDS WAITS" per pattern and call (CALL without
# the #INSTANCE), WAITS being the number of positive waits summed; and from
# the "slept" lines (REGION REGION#0 slept RANK SECONDS) per region
# "imbalance REGION MAX-MEAN RANK-OF-MAX" over the ranks that noted anything
# and "slept REGION TOTAL".
{ rank[$4] = 1 }
$3 == "slept" { slept[$1, $4] += $5; region[$1] = 1; next }
{
    key = $1 SUBSEP $2
    pat[key] = $1
    if ($3 == "send") snd[key] = $5
    else if ($3 == "recv") rcv[key] = $5
    else if ($3 == "root") root[key] = $5
    else { n[key]++; mem[key, n[key]] = $5 }
}
function add(k, w,    c) {
    c = k; sub(/^[^\034]*\034/, "", c); sub(/#.*/, "", c)
    if (w > 0) { sum[pat[k] " " c] += w; cnt[pat[k] " " c]++ }
    else if (!((pat[k] " " c) in sum)) sum[pat[k] " " c] = 0
}
END {
    for (k in pat) {
        p = pat[k]
        if (p == "late_sender") add(k, snd[k] - rcv[k])
        else if (p == "late_receiver") add(k, rcv[k] - snd[k])
        else if (p == "wait_barrier" || p == "wait_nxn" || p == "wait_fence") {
            last = mem[k, 1]
            for (i = 2; i <= n[k]; i++) if (mem[k, i] > last) last = mem[k, i]
            for (i = 1; i <= n[k]; i++) add(k, last - mem[k, i])
        } else if (p == "early_wait") {
            last = mem[k, 1]
            for (i = 2; i <= n[k]; i++) if (mem[k, i] > last) last = mem[k, i]
            add(k, last - root[k])
        } else if (p == "late_broadcast" || p == "late_post" ||
                   p == "lock_contention") {
            for (i = 1; i <= n[k]; i++) add(k, root[k] - mem[k, i])
        } else if (p == "early_reduce") {
            first = mem[k, 1]
            for (i = 2; i <= n[k]; i++) if (mem[k, i] < first) first = mem[k, i]
            add(k, first - root[k])
        }
    }
    for (x in sum) printf "%s %.9f %d\n", x, sum[x], cnt[x] + 0
    for (g in region) {
        nr = 0; tot = 0; mx = -1
        for (r in rank) {
            nr++; tot += slept[g, r]
            if (slept[g, r] > mx) { mx = slept[g, r]; at = r }
        }
        printf "imbalance %s %.9f %d\n", g, mx - tot / nr, at
        printf "slept %s %.9f\n", g, tot
    }
}
