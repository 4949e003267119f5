#!/bin/sh
# api-names.sh HEADER -- prints the functions a public header declares, one
# per line, sorted: the identifier before the "(" of every declaration that
# starts with the header's export macro (ECL_API, EDL_API, PAL_API), however
# many lines it takes. Used by exports.sh and man.sh, so that export lists
# and man pages are checked against the header itself.
set -eu
awk '
    /^[A-Z]+_API[ \t]/ { decl = ""; on = 1 }
    on { decl = decl " " $0 }
    on && /;/ {
        on = 0
        sub(/\(.*/, "", decl)            # up to the parameter list
        n = split(decl, w, /[ \t*]+/)
        print w[n]
    }' "$1" | sort -u
