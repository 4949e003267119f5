# gen.awk -- generates the MPI profiling layer's repetitive code from
# ecl/mpi/mpi.spec (its header documents the line format and the roles) and
# the record ids of ecl/mpi/mpi.ids.
# POSIX awk only (mawk, gawk, busybox awk): every Debian build has one, so the
# generated files are built, not committed (doc/mpi.md, "Generated code").
#
#   awk -v out=WHAT [-v families="F ..."] -f gen.awk mpi.ids mpi.spec > FILE
#     out=h        gen-records.h   record type ids, field counts of custom wrappers
#     out=c        gen-wrappers.c  C wrappers (PMPI_*) and the record type table
#     out=fortran  gen-fortran.c   Fortran wrappers (mpi_x_, mpi_x, mpi_x__, MPI_X)
#     out=sym      gen-exports.sym every exported wrapper symbol, one a line, of
#                                  the ungated functions and of the families named
#                                  in `families` (those configure found)
#     out=md       the record table of doc/mpi.md
#     out=ids      mpi.ids with an id for every record type of the spec: the
#                  ids it has, then new ones (doc/mpi.md, "Record ids")
#     out=funcs    every C function the spec wraps: its family ("-" none), its
#                  group, and whether its C wrapper is generated or custom
#     out=families the families of the spec, one a line
#
# Wrappers of a gated family (MPI-4 functions: `%family NAME` in the spec)
# are emitted inside `#ifdef ECL_HAVE_MPI_<NAME>`, which configure defines
# when the MPI library has the family's functions.

function die(msg) {
    printf "%s:%d: error: %s\n", FILENAME, FNR, msg > "/dev/stderr"
    failed = 1
    exit 1
}

function trim(s) {
    sub(/^[ \t]+/, "", s)
    sub(/[ \t]+$/, "", s)
    return s
}

# ---- fields of a record type ----
function addfield(i, name, kind, etype, unit, desc, expr,    k) {
    for (k = 1; k <= nf[i]; k++)
        if (fld_name[i, k] == name)
            die("field '" name "' twice in " fname[i])
    k = ++nf[i]
    fld_name[i, k] = name
    fld_kind[i, k] = kind      # u i s f
    fld_type[i, k] = etype     # EDL type
    fld_unit[i, k] = unit
    fld_desc[i, k] = desc
    fld_expr[i, k] = expr
}

function hasfield(i, name,    k) {
    for (k = 1; k <= nf[i]; k++)
        if (fld_name[i, k] == name)
            return k
    return 0
}

function param_index(i, name,    j) {
    for (j = 1; j <= np[i]; j++)
        if (pname[i, j] == name)
            return j
    return 0
}

function need_param(i, name) {
    if (!param_index(i, name))
        die("MPI_" fname[i] " has no parameter '" name "'")
    return name
}

# ---- parsing ----
function parse_params(i, text,    n, parts, j, p, nm) {
    np[i] = 0
    text = trim(text)
    if (text == "void" || text == "")
        return
    n = split(text, parts, ",")
    for (j = 1; j <= n; j++) {
        p = trim(parts[j])
        if (!match(p, /[A-Za-z_][A-Za-z0-9_]*(\[[0-9]*\])*$/))
            die("cannot read parameter '" p "' of " fname[i])
        nm = substr(p, RSTART, RLENGTH)
        ptype[i, j] = trim(substr(p, 1, RSTART - 1))
        if (match(nm, /\[/)) {
            ptype[i, j] = ptype[i, j] substr(nm, RSTART)
            nm = substr(nm, 1, RSTART - 1)
        }
        pname[i, j] = nm
        pdecl[i, j] = p
    }
    np[i] = n
}

function field_of_key(i, key, val,    t, nm, at) {
    nm = substr(key, 3)
    t = substr(key, 1, 1)
    at = index(nm, "@")
    if (at > 0) {
        want_role[i, substr(nm, 1, at - 1)] = froleid(substr(nm, at + 1))
        nm = substr(nm, 1, at - 1)
    }
    if (t == "i")
        addfield(i, nm, "i", "EDL_INT64", "", "", val == "" ? "" : "(int64_t)(" val ")")
    else if (t == "u")
        addfield(i, nm, "u", "EDL_UINT64", "", "", val == "" ? "" : "(uint64_t)(" val ")")
    else if (t == "s")
        addfield(i, nm, "s", "EDL_STRING", "", "", val)
    else
        addfield(i, nm, "f", "EDL_FLOAT64", "", "", val)
}

function role_fields(i,    k, key, val, c, t, pos) {
    for (k = 1; k <= nr[i]; k++) {
        key = rkey[i, k]
        val = rval[i, k]
        if (key == "comm") {
            commp[i] = need_param(i, val)
            addfield(i, "comm", "u", "EDL_UINT32", "", "communicator id (0 MPI_COMM_WORLD, 1 MPI_COMM_SELF)", "ci->id")
        } else if (key == "peer") {
            peerp[i] = need_param(i, val)
            addfield(i, "peer", "i", "EDL_INT32", "", "world rank of the peer (-1 MPI_PROC_NULL, -2 MPI_ANY_SOURCE, -3 unknown)", "ecl_mpi_peer(ci, " val ")")
        } else if (key == "target") {
            need_param(i, val)
            addfield(i, "peer", "i", "EDL_INT32", "", "world rank of the target (-1 MPI_PROC_NULL)", "ecl_mpi_peer(ci, " val ")")
        } else if (key == "tag") {
            tagp[i] = need_param(i, val)
            addfield(i, "tag", "i", "EDL_INT32", "", "message tag (-1 MPI_ANY_TAG)", "ecl_mpi_tag(" val ")")
        } else if (key == "bytes") {
            pos = index(val, ":")
            if (pos == 0)
                die("bytes= needs COUNT:DATATYPE")
            c = substr(val, 1, pos - 1)
            t = substr(val, pos + 1)
            if (c !~ /^[0-9]+$/ && c !~ /\*/)
                need_param(i, c)
            need_param(i, t)
            addfield(i, "bytes", "u", "EDL_UINT64", "bytes", "bytes of the message or transfer", "B(" c ", " t ")")
        } else if (key == "root") {
            need_param(i, val)
            addfield(i, "root", "i", "EDL_INT32", "", "world rank of the root", "ecl_mpi_root(ci, " val ")")
        } else if (key == "status") {
            statusp[i] = need_param(i, val)
            if (!hasfield(i, "bytes"))
                addfield(i, "bytes", "u", "EDL_UINT64", "bytes", "bytes received (from the status)", "0")
        } else if (key == "rstatus") {
            rstatusp[i] = need_param(i, val)
            addfield(i, "source", "i", "EDL_INT32", "", "world rank the message was received from", "")
            addfield(i, "recvtag", "i", "EDL_INT32", "", "tag of the message received", "")
            addfield(i, "recvbytes", "u", "EDL_UINT64", "bytes", "bytes received", "")
        } else if (key == "source") {
            need_param(i, val)
            addfield(i, "source", "i", "EDL_INT32", "", "world rank to receive from (-2 MPI_ANY_SOURCE)", "ecl_mpi_peer(ci, " val ")")
        } else if (key == "recvtag") {
            need_param(i, val)
            addfield(i, "recvtag", "i", "EDL_INT32", "", "tag to receive (-1 MPI_ANY_TAG)", "ecl_mpi_tag(" val ")")
        } else if (key == "recvbytes") {
            pos = index(val, ":")
            if (pos == 0)
                die("recvbytes= needs COUNT:DATATYPE")
            addfield(i, "recvbytes", "u", "EDL_UINT64", "bytes", "bytes to receive", "B(" substr(val, 1, pos - 1) ", " substr(val, pos + 1) ")")
        } else if (key == "flag") {
            flagp[i] = need_param(i, val)
            addfield(i, "flag", "u", "EDL_UINT8", "", "flag returned by the call", "(uint64_t)(*" val " != 0)")
        } else if (key == "request") {
            requestp[i] = need_param(i, val)
            outp[i, val] = 1
            addfield(i, "request", "u", "EDL_UINT64", "", "id of the request created (0 none)", "f_request")
        } else if (key == "reqfree" || key == "reqcancel" || key == "reqref") {
            reqpre[i] = need_param(i, val)
            reqprekind[i] = key
            addfield(i, "request", "u", "EDL_UINT64", "", "id of the request", "f_request")
        } else if (key == "kind") {
            if (val != "send" && val != "recv" && val != "coll" && val != "io" && val != "rma" && val != "comm" && val != "greq")
                die("kind must be send, recv, coll, io, rma, comm or greq")
            kind[i] = val
        } else if (key == "newcomm") {
            newcommp[i] = need_param(i, val)
            outp[i, val] = 1
            addfield(i, "newcomm", "u", "EDL_UINT32", "", "id of the communicator created (0 MPI_COMM_NULL)", "f_newcomm")
        } else if (key == "idup") {
            idupp[i] = need_param(i, val)
            outp[i, val] = 1
            addfield(i, "newcomm", "u", "EDL_UINT32", "", "id the communicator will have once the request completes", "f_newcomm")
        } else if (key == "localcomm") {
            localcommp[i] = need_param(i, val)
            outp[i, val] = 1
            addfield(i, "newcomm", "u", "EDL_UINT32", "", "local id of the communicator created (not agreed: doc/mpi.md)", "f_newcomm")
        } else if (key == "freecomm") {
            freecommp[i] = need_param(i, val)
            addfield(i, "comm", "u", "EDL_UINT32", "", "id of the communicator freed", "f_comm")
        } else if (key == "newgroup") {
            newgroupp[i] = need_param(i, val)
            outp[i, val] = 1
            addfield(i, "newgroup", "u", "EDL_UINT32", "", "per-process id of the group created (0 MPI_GROUP_NULL)", "f_newgroup")
        } else if (key == "freegroup") {
            freegroupp[i] = need_param(i, val)
            addfield(i, "group", "u", "EDL_UINT32", "", "per-process id of the group freed", "f_group")
        } else if (key == "group") {
            need_param(i, val)
            addfield(i, "group", "u", "EDL_UINT32", "", "per-process id of the group (mpi_group definition)", "ecl_mpi_group_id(" val ")")
        } else if (key == "message") {
            messagep[i] = need_param(i, val)
            outp[i, val] = 1
            addfield(i, "message", "u", "EDL_UINT64", "", "per-process id of the message matched (0 none)", "f_message")
        } else if (key == "mrecv") {
            mrecvp[i] = need_param(i, val)
            addfield(i, "comm", "u", "EDL_UINT32", "", "communicator id of the message", "ci->id")
            addfield(i, "peer", "i", "EDL_INT32", "", "world rank of the sender", "mi_.peer")
            addfield(i, "tag", "i", "EDL_INT32", "", "message tag", "mi_.tag")
            if (!hasfield(i, "bytes"))
                addfield(i, "bytes", "u", "EDL_UINT64", "bytes", "bytes of the message", "mi_.bytes")
            addfield(i, "message", "u", "EDL_UINT64", "", "per-process id of the message received", "mi_.id")
        } else if (key == "win") {
            winp[i] = need_param(i, val)
            addfield(i, "win", "u", "EDL_UINT32", "", "window id", "wi->id")
        } else if (key == "newwin") {
            newwinp[i] = need_param(i, val)
            outp[i, val] = 1
            addfield(i, "win", "u", "EDL_UINT32", "", "id of the window created", "f_win")
        } else if (key == "freewin") {
            freewinp[i] = need_param(i, val)
            addfield(i, "win", "u", "EDL_UINT32", "", "id of the window freed", "f_win")
        } else if (key == "file") {
            filep[i] = need_param(i, val)
            addfield(i, "file", "u", "EDL_UINT32", "", "file id", "ecl_mpi_file_id(" val ")")
        } else if (key == "newfile") {
            newfilep[i] = need_param(i, val)
            outp[i, val] = 1
            addfield(i, "file", "u", "EDL_UINT32", "", "id of the file opened", "f_file")
        } else if (key == "freefile") {
            freefilep[i] = need_param(i, val)
            addfield(i, "file", "u", "EDL_UINT32", "", "id of the file closed", "f_file")
        } else if (key == "sent") {
            addfield(i, "sent", "u", "EDL_UINT64", "bytes", "bytes this process sends", "(uint64_t)(" val ")")
        } else if (key == "recvd") {
            addfield(i, "recvd", "u", "EDL_UINT64", "bytes", "bytes this process receives", "(uint64_t)(" val ")")
        } else if (key ~ /^[iusf]:[a-z_0-9]+(@[a-z_]+)?$/) {
            field_of_key(i, key, val)
        } else if (key == "role") {
            continue
        } else if (key == "op") {
            opname[i] = val
        } else {
            die("unknown role '" key "'")
        }
    }
    if (requestp[i] != "" && kind[i] == "")
        die("request= needs kind=")
    if ((peerp[i] != "" || hasfield(i, "root")) && commp[i] == "" && winp[i] == "")
        die("peer= and root= need comm=")
    if ((newwinp[i] != "" || newfilep[i] != "" || idupp[i] != "") && commp[i] == "")
        die("idup=, newwin= and newfile= need comm=")
}

# ---- meaning: record and field roles (doc/edl.md, "Roles") ----
function roleid(r) {
    if (r !~ /^(enter|leave|call|overhead|marker|counter|definition|metadata|lost|process_begin|process_end|thread_begin|thread_end|state|pause|resume|request_complete|request_start|message|send|recv|collective|communication|idle|untimed|rma_put|rma_get|rma_atomic|rma_win_create|rma_win_free|rma_sync|rma_lock|rma_unlock)$/)
        die("unknown record role '" r "'")
    return "EDL_ROLE_" toupper(r)
}

function froleid(r) {
    if (r !~ /^(timestamp|process|thread|duration|region|peer|dest|source|tag|recv_tag|communicator|bytes_sent|bytes_received|bytes|root|request|value|counter|name|unit|text|count|size|members|state|remote_members|window|lock_type)$/)
        die("unknown field role '" r "'")
    return r
}

function is_qualifier(r) { return r ~ /^(send|recv|collective|communication|idle|untimed|rma_[a-z_]+)$/ }

function setrole(i, r, wf, wv) {
    if ((i, r) in rset)
        die("role '" r "' twice in " fname[i])
    rset[i, r] = 1
    rwf[i, r] = wf
    rwv[i, r] = wv
}

# The field roles the spec's roles give their fields: each field the
# generator makes for a role (comm=, peer=, ...) has the EDL role of the
# same meaning; i:/u:/s: fields only what their @ROLE says.
function field_role(i, nm,    uncond_send, uncond_recv) {
    if ((i, nm) in want_role)
        return want_role[i, nm]
    uncond_send = ((i, "send") in rset) && rwf[i, "send"] == ""
    uncond_recv = ((i, "recv") in rset) && rwf[i, "recv"] == ""
    if (nm == "duration") return "duration"
    if (nm == "comm") return "communicator"
    if (nm == "peer") return uncond_send && uncond_recv ? "dest" : "peer"
    if (nm == "tag") return "tag"
    if (nm == "source") return "source"
    if (nm == "recvtag") return "recv_tag"
    if (nm == "recvbytes") return "bytes_received"
    if (nm == "bytes") return uncond_send ? "bytes_sent" : uncond_recv ? "bytes_received" : "bytes"
    if (nm == "sent") return "bytes_sent"
    if (nm == "recvd") return "bytes_received"
    if (nm == "root") return "root"
    if (nm == "request") return "request"
    if (nm == "win") return "window"
    return ""
}

# Record roles of type i: the line's role= words; a call is, unless a
# role= says otherwise (MPI_Init: process_begin), a `call` of the region
# MPI_<Name> spent communicating, and a blocking collective (group coll,
# no request) is also `collective` and `idle`.
function meaning(i,    r, v, c, wf, wv, prim) {
    prim = ""
    for (r = 1; r <= nr[i]; r++) {
        if (rkey[i, r] != "role")
            continue
        if (same[i] != "")
            die("same= lines have the roles of the record they write")
        v = rval[i, r]
        wf = ""
        wv = ""
        c = index(v, ":")
        if (c > 0) {
            wf = substr(v, c + 1)
            v = substr(v, 1, c - 1)
            c = index(wf, "=")
            if (c == 0)
                die("expected role=ROLE:FIELD=VALUE")
            wv = substr(wf, c + 1)
            wf = substr(wf, 1, c - 1)
            if (!hasfield(i, wf))
                die("role " v ": " fname[i] " has no field '" wf "'")
        }
        roleid(v)
        if (!is_qualifier(v)) {
            if (prim != "")
                die("two roles say what " fname[i] " is: " prim " and " v)
            prim = v
        }
        setrole(i, v, wf, wv)
    }
    if (prim == "" && ftype[i] == "call") {
        prim = "call"
        setrole(i, "call", "", "")
        setrole(i, "communication", "", "")
        if (group[i] == "coll" && requestp[i] == "") {
            setrole(i, "collective", "", "")
            setrole(i, "idle", "", "")
        }
    }
    if (prim == "")
        die("record " recname(i) " needs a role=")
    primary[i] = prim
    region[i] = prim == "call" ? "MPI_" fname[i] : ""
}

# ---- the record ids (mpi.ids) ----
FILENAME ~ /\.ids$/ {
    if ($0 ~ /^[ \t]*(#|$)/)
        next
    if (NF != 2 || $1 !~ /^mpi_[a-z0-9_]+$/ || $2 !~ /^[0-9]+$/)
        die("expected 'mpi_NAME ID'")
    if ($2 + 0 < ID_FIRST || $2 + 0 > ID_LAST)
        die("id " $2 " is outside " ID_FIRST ".." ID_LAST)
    if (($2 + 0) in id_owner)
        die("id " $2 " given twice")
    if ($1 in id_of)
        die($1 " has two ids")
    id_of[$1] = $2 + 0
    id_owner[$2 + 0] = $1
    id_order[++nids] = $1
    next
}

# ---- the spec ----
/^[ \t]*(#|$)/ { next }

/^%group[ \t]/ {
    if ($2 !~ /^(env|p2p|coll|rma|io|comm)$/)
        die("unknown group '" $2 "' (env, p2p, coll, rma, io, comm)")
    cur_group = $2
    next
}

/^%family[ \t]/ {
    if ($2 == "-") {
        cur_family = ""
        next
    }
    if ($2 !~ /^[a-z0-9_]+$/ || NF != 3 || $3 !~ /^MPI_[A-Za-z0-9_]+$/)
        die("expected '%family NAME MPI_FUNCTION' (the function configure checks for) or '%family -'")
    cur_family = $2
    if (!($2 in fam_rep)) {
        fam_order[++nfam] = $2
        fam_rep[$2] = $3
    }
    next
}

/^%/ { die("unknown directive " $1) }

{
    line = $0
    if (!match(line, /^[A-Za-z_][A-Za-z0-9_]*/))
        die("expected a NAME")
    if (cur_group == "")
        die("no %group before the first function")
    i = ++nfunc
    nm = substr(line, 1, RLENGTH)
    rest = substr(line, RLENGTH + 1)
    fname[i] = nm
    group[i] = cur_group
    family[i] = cur_family
    if (("MPI_" nm) in func_index)
        die("MPI_" nm " twice")
    func_index["MPI_" nm] = i
    if (rest ~ /^[ \t]+record([ \t]|$)/) {
        ftype[i] = "record"
        rest = substr(rest, index(rest, "record") + 6)
    } else {
        ftype[i] = "call"
        lp = index(rest, "(")
        rp = index(rest, ")")
        if (lp != 1 || rp < lp)
            die("expected the parameter list of " nm)
        parse_params(i, substr(rest, lp + 1, rp - lp - 1))
        rest = substr(rest, rp + 1)
    }
    nr[i] = 0
    n = split(trim(rest), toks, /[ \t]+/)
    for (k = 1; k <= n; k++) {
        tk = toks[k]
        if (tk == "")
            continue
        if (tk == "custom") { custom[i] = 1; continue }
        if (tk == "fcustom") { fcustom[i] = 1; continue }
        if (tk == "nofortran") { nofortran[i] = 1; continue }
        if (tk == "persistent") { persistent[i] = 1; continue }
        if (tk ~ /^same=/) { same[i] = substr(tk, 6); continue }
        pos = index(tk, "=")
        r = ++nr[i]
        if (pos == 0) {
            rkey[i, r] = tk
            rval[i, r] = ""
        } else {
            rkey[i, r] = substr(tk, 1, pos - 1)
            rval[i, r] = substr(tk, pos + 1)
        }
    }
    # the record type this line writes: its own, or that of `same=`
    if (same[i] != "") {
        if (!(("MPI_" same[i]) in func_index))
            die("same=" same[i] ": no such function above")
        rec[i] = func_index["MPI_" same[i]]
        if (same[rec[i]] != "")
            die("same=" same[i] " names a function that writes another's record")
    } else {
        rec[i] = i
    }
    nf[i] = 0
    if (ftype[i] == "call")
        addfield(i, "duration", "u", "EDL_UINT64", "ticks", "time from the call to its return (the record time)", "now_ - t0_")
    if (ftype[i] == "record" || custom[i]) {
        for (r = 1; r <= nr[i]; r++) {
            key = rkey[i, r]
            if (key ~ /^[iusf]:[a-z_0-9]+(@[a-z_]+)?$/)
                field_of_key(i, key, "")
            else if (key == "role")
                continue
            else if (key == "comm")
                addfield(i, "comm", "u", "EDL_UINT32", "", "communicator id", "")
            else
                die("role '" key "' in a custom or record line")
        }
    } else {
        role_fields(i)
    }
    if (rec[i] != i) {
        s1 = ""
        s2 = ""
        for (k = 1; k <= nf[i]; k++)
            s1 = s1 " " fld_name[i, k] "/" fld_kind[i, k]
        for (k = 1; k <= nf[rec[i]]; k++)
            s2 = s2 " " fld_name[rec[i], k] "/" fld_kind[rec[i], k]
        if (s1 != s2)
            die("MPI_" nm " writes the record of MPI_" same[i] " but its fields differ:" s1 " vs" s2)
        if (group[rec[i]] != group[i])
            die("MPI_" nm " and MPI_" same[i] " are in different groups")
    }
    if (rec[i] == i)
        meaning(i)
    else
        for (r = 1; r <= nr[i]; r++)
            if (rkey[i, r] == "role")
                die("same= lines have the roles of the record they write")
    if (rec[i] == i && !(recname(i) in id_of))
        missing_id[++nmissing] = recname(i)
}

# ---------------------------------------------------------------- output

function upper(s) { return toupper(s) }
function recname(i) { return "mpi_" tolower(fname[i]) }
function recid(i) { return "ECL_MPI_REC_" upper(fname[rec[i]]) }
function gbit(i) { return "ECL_MPI_G_" upper(group[i]) }

function arglist(i,    j, s) {
    s = ""
    for (j = 1; j <= np[i]; j++)
        s = s (j > 1 ? ", " : "") pname[i, j]
    return s
}

function declist(i,    j, s) {
    if (np[i] == 0)
        return "void"
    s = ""
    for (j = 1; j <= np[i]; j++)
        s = s (j > 1 ? ", " : "") pdecl[i, j]
    return s
}

function generated_banner(what) {
    print "/* " what " -- GENERATED by ecl/mpi/gen.awk from ecl/mpi/mpi.spec and mpi.ids."
    print " * Do not edit: change the spec or the generator (doc/mpi.md). */"
}

function gate_open(i) {
    if (family[i] != "")
        print "#ifdef ECL_HAVE_MPI_" upper(family[i])
}

function gate_close(i) {
    if (family[i] != "")
        print "#endif /* ECL_HAVE_MPI_" upper(family[i]) " */"
}

function out_h(    i, k, s) {
    generated_banner("gen-records.h: MPI record type ids and custom field lists")
    print "#ifndef ECL_MPI_GEN_RECORDS_H"
    print "#define ECL_MPI_GEN_RECORDS_H"
    print ""
    print "enum {"
    for (i = 1; i <= nfunc; i++)
        if (rec[i] == i)
            printf "    %s = %d,\n", recid(i), id_of[recname(i)]
    print "};"
    print ""
    print "/* Fields of records written by hand (ecl/mpi/mpi.c, requests.c), in order: */"
    for (i = 1; i <= nfunc; i++) {
        if (ftype[i] != "record" && !custom[i])
            continue
        s = ""
        for (k = 1; k <= nf[i]; k++)
            s = s " " fld_name[i, k]
        printf "/*   %-14s%s */\n", recname(i), s
        printf "#define %s_NEED (ECL_BUF_HEADER_MAX + %d)\n", recid(i), 10 * nf[i] + 10
    }
    print "#endif"
}

function cstr(s) {
    gsub(/\\/, "\\\\", s)
    gsub(/"/, "\\\"", s)
    return "\"" s "\""
}

function enc_of(k) {
    if (k == "u") return "EDL_ENC_ULEB"
    if (k == "i") return "EDL_ENC_SLEB"
    if (k == "s") return "EDL_ENC_LSTRING"
    return "EDL_ENC_FIXED"
}

# The functions that write record type i, for its description.
function writers(i,    j, s) {
    if (ftype[i] == "record")
        return "ECL MPI layer: " fname[i]
    s = "MPI_" fname[i]
    for (j = 1; j <= nfunc; j++)
        if (j != i && rec[j] == i)
            s = s ", MPI_" fname[j]
    return s
}

# Roles in a fixed order: what the record is, then the qualifiers.
function role_list(i,    s, k, r, n) {
    n = split(primary[i] " send recv collective communication idle untimed rma_put rma_get " \
              "rma_atomic rma_win_create rma_win_free rma_sync rma_lock rma_unlock", ord, " ")
    s = ""
    for (k = 1; k <= n; k++) {
        r = ord[k]
        if (k > 1 && r == primary[i])
            continue
        if ((i, r) in rset)
            s = s (s == "" ? "" : " ") r
    }
    return s
}

function meaning_table(i,    n, k, r, fr, lst, nfm, nm) {
    nm = tolower(fname[i])
    n = split(role_list(i), lst, " ")
    printf "static const edl_role roles_%s[] = {\n", nm
    for (k = 1; k <= n; k++) {
        r = lst[k]
        if (rwf[i, r] == "")
            printf "    { %s, NULL, NULL },\n", roleid(r)
        else
            printf "    { %s, %s, %s },\n", roleid(r), cstr(rwf[i, r]), cstr(rwv[i, r])
    }
    print "};"
    nfm = 0
    for (k = 1; k <= nf[i]; k++)
        if (field_role(i, fld_name[i, k]) != "")
            nfm++
    if (nfm > 0) {
        printf "static const edl_field_meaning fmeaning_%s[] = {\n", nm
        for (k = 1; k <= nf[i]; k++) {
            fr = field_role(i, fld_name[i, k])
            if (fr != "")
                printf "    { %s, EDL_FROLE_%s, { NULL, NULL, 0 } },\n", cstr(fld_name[i, k]), toupper(fr)
        }
        print "};"
    }
    if (opname[i] != "" && !((i, "collective") in rset))
        die("op= is for collectives: " fname[i])
    # conditional arguments in parentheses: POSIX (and original-awk) parse
    # no unparenthesized comparison in a printf argument list
    printf "static const edl_meaning meaning_%s = { roles_%s, %d, %s, %s, %d, %s };\n", nm, nm, n, (region[i] == "" ? "NULL" : cstr(region[i])), (nfm ? "fmeaning_" nm : "NULL"), nfm, (opname[i] == "" ? "NULL" : cstr(opname[i]))
}

function out_table(    i, k) {
    print "/* ---------------- record types (defined when the library loads) ---------------- */"
    print ""
    for (i = 1; i <= nfunc; i++) {
        if (rec[i] != i)
            continue
        gate_open(i)
        printf "static const ecl_trace_field fields_%s[] = {\n", tolower(fname[i])
        for (k = 1; k <= nf[i]; k++)
            printf "    { %s, %s, %s, %s, %s },\n", cstr(fld_name[i, k]), fld_type[i, k], enc_of(fld_kind[i, k]), (fld_unit[i, k] == "" ? "NULL" : cstr(fld_unit[i, k])), (fld_desc[i, k] == "" ? "NULL" : cstr(fld_desc[i, k]))
        print "};"
        meaning_table(i)
        gate_close(i)
    }
    print ""
    print "const ecl_mpi_rectype ecl_mpi_rectypes[] = {"
    for (i = 1; i <= nfunc; i++) {
        if (rec[i] != i)
            continue
        gate_open(i)
        printf "    { %d, %s, %s, fields_%s, %d, &meaning_%s },\n", id_of[recname(i)], cstr(recname(i)), cstr(writers(i)), tolower(fname[i]), nf[i], tolower(fname[i])
        gate_close(i)
    }
    print "};"
    print "const size_t ecl_mpi_nrectypes = sizeof ecl_mpi_rectypes / sizeof ecl_mpi_rectypes[0];"
}

function put_field(i, k, var) {
    if (fld_kind[i, k] == "u")
        printf "        p_ = ecl_buf_put_uleb(p_, %s);\n", var
    else if (fld_kind[i, k] == "i")
        printf "        p_ = ecl_buf_put_sleb(p_, %s);\n", var
    else if (fld_kind[i, k] == "s")
        printf "        p_ = ecl_buf_put_str(p_, s_%s, n_%s);\n", fld_name[i, k], fld_name[i, k]
    else
        printf "        p_ = ecl_buf_put_f64(p_, %s);\n", var
}

function ctype_of(k) {
    if (k == "u") return "uint64_t"
    if (k == "i") return "int64_t"
    return "double"
}

# Whether a wrapper registers something (a communicator, window, file,
# group, message or request whose later use needs it) and so must run its
# bookkeeping even when its event group is switched off.
function registers(i) {
    return newcommp[i] != "" || idupp[i] != "" || localcommp[i] != "" || newwinp[i] != "" || newfilep[i] != "" || newgroupp[i] != "" || freecommp[i] != "" || freewinp[i] != "" || freefilep[i] != "" || freegroupp[i] != "" || kind[i] == "comm"
}

# Fields computed before the record (their values known after the call).
function is_set_elsewhere(i, nm) {
    if (nm == "duration" || nm == "request")
        return 1
    if (nm == "newcomm" || nm == "newgroup" || nm == "message" && messagep[i] != "")
        return 1
    if (nm == "win" && (newwinp[i] != "" || freewinp[i] != "") || nm == "file" && (newfilep[i] != "" || freefilep[i] != ""))
        return 1
    if (nm == "comm" && freecommp[i] != "" || nm == "group" && freegroupp[i] != "")
        return 1
    return 0
}

function out_wrapper(i,    j, k, args, pargs, nm, st, nstr, fn, reg, hf) {
    fn = "MPI_" fname[i]
    reg = registers(i)
    printf "\n/* %s (%s):", fn, group[i]
    for (k = 1; k <= nr[i]; k++)
        printf " %s%s%s", rkey[i, k], (rval[i, k] == "" ? "" : "="), rval[i, k]
    if (persistent[i]) printf " persistent"
    print " */"
    printf "ECL_MPI_API int %s(%s)\n{\n", fn, declist(i)
    args = arglist(i)
    if (reg) {
        # bookkeeping runs whatever the groups; the record only when on
        printf "    if (ECL_MPI_PASS(ECL_MPI_G_ENV))\n        return P%s(%s);\n", fn, args
        printf "    int on_ = ecl_mpi_on(%s);\n", gbit(i)
    } else {
        printf "    if (ECL_MPI_PASS(%s))\n        return P%s(%s);\n", gbit(i), fn, args
    }
    # before the call
    if (commp[i] != "")
        printf "    const ecl_mpi_comm *ci = ecl_mpi_comm_of(%s);\n    (void)ci;\n", commp[i]
    if (winp[i] != "") {
        printf "    const ecl_mpi_win *wi = ecl_mpi_win_of(%s);\n", winp[i]
        printf "    const ecl_mpi_comm *ci = wi->ci;\n"
        print "    (void)ci;"
    }
    if (mrecvp[i] != "") {
        printf "    ecl_mpi_msg mi_;\n    ecl_mpi_msg_take(*%s, &mi_);\n", mrecvp[i]
        print "    const ecl_mpi_comm *ci = mi_.ci;"
    }
    if (freecommp[i] != "")
        printf "    MPI_Comm h_comm = *%s;\n    uint64_t f_comm = ecl_mpi_comm_of(h_comm)->id;\n", freecommp[i]
    if (freewinp[i] != "")
        printf "    MPI_Win h_win = *%s;\n    uint64_t f_win = ecl_mpi_win_of(h_win)->id;\n", freewinp[i]
    if (freefilep[i] != "")
        printf "    MPI_File h_file = *%s;\n    uint64_t f_file = ecl_mpi_file_id(h_file);\n", freefilep[i]
    if (freegroupp[i] != "")
        printf "    MPI_Group h_group = *%s;\n    uint64_t f_group = ecl_mpi_group_id(h_group);\n", freegroupp[i]
    if (reqpre[i] != "") {
        if (reqprekind[i] == "reqfree")
            printf "    uint64_t f_request = ecl_mpi_req_freed(*%s);\n", reqpre[i]
        else if (reqprekind[i] == "reqcancel")
            printf "    uint64_t f_request = ecl_mpi_req_cancelled(*%s);\n", reqpre[i]
        else
            printf "    uint64_t f_request = ecl_mpi_req_id(%s);\n", reqpre[i]
    }
    if (idupp[i] != "")
        printf "    uint64_t f_newcomm = ecl_mpi_comm_derived_id(ci);\n"
    pargs = args
    st = statusp[i] != "" ? statusp[i] : rstatusp[i]
    if (st != "") {
        printf "    MPI_Status st_ignored_, *st_ = %s == MPI_STATUS_IGNORE ? &st_ignored_ : %s;\n", st, st
        pargs = ""
        for (j = 1; j <= np[i]; j++)
            pargs = pargs (j > 1 ? ", " : "") (pname[i, j] == st ? "st_" : pname[i, j])
    }
    print "    uint64_t t0_ = ecl_mpi_begin();"
    printf "    int rc_ = P%s(%s);\n", fn, pargs
    print "    ecl_mpi_end();"
    # after the call
    if (st != "") {
        if (flagp[i] != "")
            printf "    int st_ok_ = rc_ == MPI_SUCCESS && *%s;\n", flagp[i]
        else
            print "    int st_ok_ = rc_ == MPI_SUCCESS;"
    }
    for (k = 1; k <= nf[i]; k++) {
        nm = fld_name[i, k]
        if (is_set_elsewhere(i, nm))
            continue
        if (fld_kind[i, k] == "s") {
            printf "    const char *s_%s = %s != NULL ? %s : \"\";\n", nm, fld_expr[i, k], fld_expr[i, k]
            printf "    size_t n_%s = ecl_mpi_strlen(s_%s);\n", nm, nm
            continue
        }
        if (st == statusp[i] && st != "" && nm == "peer")
            printf "    int64_t f_peer = st_ok_ ? ecl_mpi_peer(ci, st_->MPI_SOURCE) : %s;\n", fld_expr[i, k]
        else if (st == statusp[i] && st != "" && nm == "tag")
            printf "    int64_t f_tag = st_ok_ && st_->MPI_SOURCE != MPI_PROC_NULL ? (int64_t)st_->MPI_TAG : %s;\n", fld_expr[i, k]
        else if (st == statusp[i] && st != "" && nm == "bytes")
            printf "    uint64_t f_bytes = st_ok_ ? ecl_mpi_status_bytes(st_) : %s;\n", fld_expr[i, k]
        else if (nm == "source" && rstatusp[i] != "")
            printf "    int64_t f_source = st_ok_ ? ecl_mpi_peer(ci, st_->MPI_SOURCE) : ecl_mpi_peer(ci, source);\n"
        else if (nm == "recvtag" && rstatusp[i] != "")
            printf "    int64_t f_recvtag = st_ok_ ? (int64_t)st_->MPI_TAG : ecl_mpi_tag(recvtag);\n"
        else if (nm == "recvbytes" && rstatusp[i] != "")
            printf "    uint64_t f_recvbytes = st_ok_ ? ecl_mpi_status_bytes(st_) : 0;\n"
        else
            printf "    %s f_%s = %s;\n", ctype_of(fld_kind[i, k]), nm, fld_expr[i, k]
    }
    if (messagep[i] != "") {
        printf "    uint64_t f_message = %s ? ecl_mpi_msg_new(*%s, ci, f_peer, f_tag, f_bytes) : 0;\n", (flagp[i] != "" ? "st_ok_" : "rc_ == MPI_SUCCESS"), messagep[i]
    }
    hf = "ci, " (hasfield(i, "peer") ? "f_peer" : "-1") ", " (hasfield(i, "tag") ? "f_tag" : "0") ", " (hasfield(i, "bytes") ? "f_bytes" : "0")
    if (hasfield(i, "source") && rstatusp[i] == "")
        hf = "ci, f_source, f_recvtag, f_recvbytes"
    if (commp[i] == "" && winp[i] == "" && mrecvp[i] == "")
        hf = "NULL" substr(hf, 3)
    if (idupp[i] != "")
        printf "    uint64_t f_request = rc_ == MPI_SUCCESS ? ecl_mpi_req_idup(*%s, ci, *%s, (uint32_t)f_newcomm) : 0;\n", requestp[i], idupp[i]
    else if (requestp[i] != "")
        printf "    int imm_ = 0;\n    uint64_t f_request = rc_ == MPI_SUCCESS ? ecl_mpi_req_new(*%s, ECL_MPI_KIND_%s, %d, %s, &imm_) : 0;\n", requestp[i], upper(kind[i]), (persistent[i] ? 1 : 0), hf
    if (newcommp[i] != "")
        printf "    uint64_t f_newcomm = rc_ == MPI_SUCCESS ? ecl_mpi_comm_created(%s, *%s) : 0;\n", (commp[i] != "" ? "ci" : "NULL"), newcommp[i]
    if (localcommp[i] != "")
        printf "    uint64_t f_newcomm = rc_ == MPI_SUCCESS ? ecl_mpi_comm_of(*%s)->id : 0;\n", localcommp[i]
    if (newgroupp[i] != "")
        printf "    uint64_t f_newgroup = rc_ == MPI_SUCCESS ? ecl_mpi_group_id(*%s) : 0;\n", newgroupp[i]
    if (newwinp[i] != "")
        printf "    uint64_t f_win = rc_ == MPI_SUCCESS ? ecl_mpi_win_created(*%s, %s, ci) : 0;\n", newwinp[i], commp[i]
    if (newfilep[i] != "")
        printf "    uint64_t f_file = rc_ == MPI_SUCCESS ? ecl_mpi_file_opened(*%s, %s, ci) : 0;\n", newfilep[i], commp[i]
    if (freecommp[i] != "")
        print "    if (rc_ == MPI_SUCCESS)\n        ecl_mpi_comm_forget(h_comm);"
    if (freewinp[i] != "")
        print "    if (rc_ == MPI_SUCCESS)\n        ecl_mpi_win_forget(h_win);"
    if (freefilep[i] != "")
        print "    if (rc_ == MPI_SUCCESS)\n        ecl_mpi_file_forget(h_file);"
    if (freegroupp[i] != "")
        print "    if (rc_ == MPI_SUCCESS)\n        ecl_mpi_group_forget(h_group);"
    # the record
    nstr = ""
    for (k = 1; k <= nf[i]; k++)
        if (fld_kind[i, k] == "s")
            nstr = nstr " + n_" fld_name[i, k]
    if (reg)
        print "    if (on_) {"
    else
        print "    {"
    print "    ecl_buf_hot *t_;"
    print "    uint64_t now_;"
    printf "    uint8_t *p_ = ecl_buf_begin(%s, ECL_BUF_HEADER_MAX + %d%s, &t_, &now_);\n", recid(i), 10 * nf[i], nstr
    print "    if (ECL_LIKELY(p_ != NULL)) {"
    for (k = 1; k <= nf[i]; k++)
        put_field(i, k, fld_name[i, k] == "duration" ? "now_ - t0_" : "f_" fld_name[i, k])
    print "        ecl_buf_commit(t_, p_, now_);"
    print "    }"
    print "    }"
    if (requestp[i] != "" && idupp[i] == "")
        printf "    if (imm_)\n        ecl_mpi_req_immediate(f_request, ECL_MPI_KIND_%s, %s);\n", upper(kind[i]), hf
    print "    return rc_;"
    print "}"
}

function out_c(    i) {
    generated_banner("gen-wrappers.c: the C wrappers of the MPI functions in ecl/mpi/mpi.spec")
    print "#include <config.h>"
    print ""
    print "#include \"ecl/mpi/mpi-internal.h\""
    print ""
    print "/* Helpers the spec's expressions use (ecl/mpi/mpi.spec, \"Roles\"). */"
    print "#define B(c, t) ecl_mpi_tbytes((int64_t)(c), (t))"
    print "#define N ecl_mpi_nsize(ci)"
    print "#define LN ((uint64_t)ci->size)"
    print "#define ME (ci->rank)"
    print "#define ATROOT(x) (ecl_mpi_at_root(ci, root) ? (x) : 0)"
    print "#define NOTROOT(x) (ecl_mpi_from_root(ci, root) ? (x) : 0)"
    print "#define INPLACE(b) ((const void *)(b) == MPI_IN_PLACE)"
    print "#define SUMB(cs, t) ECL_MPI_SUMB((cs), ecl_mpi_nsize(ci), (t))"
    print "#define SUMW(cs, ts) ECL_MPI_SUMW((cs), ecl_mpi_nsize(ci), (ts))"
    print "#define IND ecl_mpi_degree(comm, 0)"
    print "#define OUTD ecl_mpi_degree(comm, 1)"
    print "#define SUMBN(cs, n, t) ECL_MPI_SUMB((cs), (n), (t))"
    print "#define SUMWN(cs, n, ts) ECL_MPI_SUMW((cs), (n), (ts))"
    print "#define GID(g) ecl_mpi_group_id(g)"
    print ""
    out_table()
    for (i = 1; i <= nfunc; i++) {
        if (ftype[i] == "call" && !custom[i]) {
            gate_open(i)
            out_wrapper(i)
            gate_close(i)
        }
    }
}

# ---- Fortran ----
# Fortran form of parameter j of function i: sets fdecl, fpre, farg, fpost;
# returns 0 when the type has no generic form.
function fparam(i, j,    t, n, h, inout) {
    t = ptype[i, j]
    n = pname[i, j]
    fpre = ""
    fpost = ""
    if (t == "const void *" || t == "void *") {
        fdecl = "void *" n
        farg = "ecl_mpi_f_buf(" n ")"
        return 1
    }
    if (t == "int") {
        fdecl = "MPI_Fint *" n
        farg = "(int)*" n
        return 1
    }
    if (t == "int *") {
        fdecl = "MPI_Fint *" n
        fpre = "    int c_" n " = 0;\n"
        farg = "&c_" n
        fpost = "    *" n " = (MPI_Fint)c_" n ";\n"
        return 1
    }
    if (t == "const int[]") {
        fdecl = "MPI_Fint *" n
        farg = "(const int *)" n
        return 1
    }
    if (t == "int[][3]") {
        fdecl = "MPI_Fint *" n
        farg = "(int (*)[3])" n
        return 1
    }
    if (t == "MPI_Aint" || t == "MPI_Offset" || t == "MPI_Count") {
        fdecl = t " *" n
        farg = "*" n
        return 1
    }
    if (t == "MPI_Aint *" || t == "MPI_Offset *" || t == "const MPI_Aint[]") {
        fdecl = (t == "MPI_Offset *" ? "MPI_Offset" : "MPI_Aint") " *" n
        farg = n
        return 1
    }
    h = t
    sub(/^MPI_/, "", h)
    if (h == "Datatype") h = "Type"
    if (t ~ /^MPI_(Comm|Datatype|Op|Group|Info|Win|File|Request|Message)$/) {
        fdecl = "MPI_Fint *" n
        farg = "PMPI_" h "_f2c(*" n ")"
        return 1
    }
    if (t ~ /^MPI_(Comm|Win|File|Request|Group|Message) \*$/) {
        sub(/ \*$/, "", h)
        inout = !((i, n) in outp)
        fdecl = "MPI_Fint *" n
        if (inout)
            fpre = "    MPI_" h " c_" n " = PMPI_" h "_f2c(*" n ");\n"
        else
            fpre = "    MPI_" h " c_" n " = MPI_" upper(h) "_NULL;\n"
        farg = "&c_" n
        fpost = "    *" n " = PMPI_" h "_c2f(c_" n ");\n"
        return 1
    }
    if (t == "MPI_Status *") {
        fdecl = "MPI_Fint *" n
        fpre = "    MPI_Status c_" n " = {0};\n    int ign_" n " = ecl_mpi_f_status_ignore(" n ");\n"
        farg = "ign_" n " ? MPI_STATUS_IGNORE : &c_" n
        fpost = "    if (!ign_" n " && rc == MPI_SUCCESS)\n        PMPI_Status_c2f(&c_" n ", " n ");\n"
        return 1
    }
    return 0
}

function fortran_ok(i,    j) {
    if (ftype[i] != "call" || nofortran[i] || fcustom[i])
        return 0
    for (j = 1; j <= np[i]; j++)
        if (!fparam(i, j))
            return 0
    return 1
}

function out_fortran(    i, j, lo, decl, pre, args, post, why) {
    generated_banner("gen-fortran.c: Fortran wrappers of the MPI functions in ecl/mpi/mpi.spec")
    print "#include <config.h>"
    print ""
    print "#include \"ecl/mpi/mpi-internal.h\""
    for (i = 1; i <= nfunc; i++) {
        if (ftype[i] != "call")
            continue
        lo = tolower(fname[i])
        if (!fortran_ok(i)) {
            why = fcustom[i] ? "written by hand in ecl/mpi/fortran.c" : "no Fortran wrapper"
            printf "\n/* MPI_%s: %s */\n", fname[i], why
            continue
        }
        decl = ""
        pre = ""
        args = ""
        post = ""
        for (j = 1; j <= np[i]; j++) {
            fparam(i, j)
            decl = decl fdecl ", "
            pre = pre fpre
            args = args (j > 1 ? ", " : "") farg
            post = post fpost
        }
        print ""
        gate_open(i)
        printf "static void f_%s(%sMPI_Fint *ierr)\n{\n", lo, decl
        printf "%s", pre
        printf "    int rc = MPI_%s(%s);\n", fname[i], args
        printf "%s", post
        print "    if (ierr != NULL)\n        *ierr = (MPI_Fint)rc;\n}"
        printf "ECL_MPI_F_ALIASES(%s, %s, %s(%sMPI_Fint *ierr))\n", lo, upper(lo), "", decl
        gate_close(i)
    }
}

function fortran_names(i,    lo) {
    lo = tolower(fname[i])
    print "mpi_" lo
    print "mpi_" lo "_"
    print "mpi_" lo "__"
    print "MPI_" upper(lo)
    print "ompi_" lo "_f"
}

function out_sym(    i, fams, n, k, on) {
    n = split(families, fams, /[ \t,]+/)
    for (k = 1; k <= n; k++)
        on[fams[k]] = 1
    for (i = 1; i <= nfunc; i++) {
        if (ftype[i] != "call" || (family[i] != "" && !(family[i] in on)))
            continue
        print "MPI_" fname[i]
        if (fortran_ok(i) || fcustom[i])
            fortran_names(i)
    }
}

function out_md(    i, j, k, s, f, fn) {
    print "| id | record | group | C functions | Fortran | fields after `type`, `time`, `duration` |"
    print "|---|---|---|---|---|---|"
    for (i = 1; i <= nfunc; i++) {
        if (rec[i] != i)
            continue
        s = ""
        for (k = 1; k <= nf[i]; k++) {
            if (fld_name[i, k] == "duration")
                continue
            s = s (s == "" ? "" : ", ") "`" fld_name[i, k] "`"
        }
        if (ftype[i] == "record") {
            printf "| %d | `%s` | | (not a call) | | %s |\n", id_of[recname(i)], recname(i), s
            continue
        }
        fn = "`MPI_" fname[i] "`" (family[i] != "" ? " (" family[i] ")" : "")
        for (j = 1; j <= nfunc; j++)
            if (j != i && rec[j] == i)
                fn = fn ", `MPI_" fname[j] "`" (family[j] != "" ? " (" family[j] ")" : "")
        f = fortran_ok(i) || fcustom[i] ? "yes" : "no"
        printf "| %d | `%s` | %s | %s | %s | %s |\n", id_of[recname(i)], recname(i), group[i], fn, f, (s == "" ? "--" : s)
    }
}

# mpi.ids as it must be: its lines, then an id for each new record type --
# the first free one from ID_NEW (2-byte ULEB keys; ids below 128 are full).
function out_ids(    k, id, nm) {
    print "# mpi.ids -- record type ids of the MPI layer: NAME ID, one a line."
    print "# Assigned once by ecl/mpi/gen.awk (out=ids) and never changed, so a"
    print "# record type keeps its id across versions; a type no longer in the spec"
    print "# keeps its line, so its id is never given to another. tests/mpi/gen.sh"
    print "# fails when this file is not what the generator gives (doc/mpi.md)."
    for (k = 1; k <= nids; k++)
        printf "%s %d\n", id_order[k], id_of[id_order[k]]
    id = ID_NEW
    for (k = 1; k <= nmissing; k++) {
        nm = missing_id[k]
        while (id in id_owner)
            id++
        if (id > ID_LAST) {
            print "gen.awk: no free record id left below " ID_LAST + 1 > "/dev/stderr"
            exit 1
        }
        id_owner[id] = nm
        printf "%s %d\n", nm, id
    }
}

function out_funcs(    i) {
    for (i = 1; i <= nfunc; i++)
        if (ftype[i] == "call")
            printf "MPI_%s %s %s %s\n", fname[i], (family[i] == "" ? "-" : family[i]), group[i], (custom[i] ? "custom" : "generated")
}

function out_families(    k) {
    for (k = 1; k <= nfam; k++)
        printf "%s %s\n", fam_order[k], fam_rep[fam_order[k]]
}

BEGIN {
    # ECL_REC_RESERVED_FIRST..ECL_REC_RESERVED_LAST of ecl/core/core.h
    ID_FIRST = 14
    ID_LAST = 1023
    ID_NEW = 128
}

END {
    if (failed)
        exit 1
    if (out == "ids") {
        out_ids()
        exit 0
    }
    if (nmissing > 0) {
        printf "gen.awk: %s has no record id in mpi.ids: add the new ids with\n  awk -v out=ids -f ecl/mpi/gen.awk ecl/mpi/mpi.ids ecl/mpi/mpi.spec > ids.new && mv ids.new ecl/mpi/mpi.ids\n", missing_id[1] > "/dev/stderr"
        exit 1
    }
    if (out == "h") out_h()
    else if (out == "c") out_c()
    else if (out == "fortran") out_fortran()
    else if (out == "sym") out_sym()
    else if (out == "md") out_md()
    else if (out == "funcs") out_funcs()
    else if (out == "families") out_families()
    else {
        print "gen.awk: set out to h, c, fortran, sym, md, ids, funcs or families" > "/dev/stderr"
        exit 1
    }
}
