/* output.c -- output files of every tool (merged traces, dictionaries,
 * reports, exports): a new regular file is written under a temporary name
 * beside the target and renamed over it once complete, so that a failed or
 * interrupted write (a full disk, a kill) never leaves a partial or empty
 * file under the target's name; a target that is not a regular file -- a
 * device, a FIFO, a symbolic link -- is refused unless the caller asks to
 * write through it. */
#include <config.h>

#include "container/container.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ecc_out {
    char *path, *tmp;                /* tmp NULL: writing through to path */
    int fd;
};

static const char *kind_of(mode_t m)
{
    if (S_ISLNK(m))
        return "a symbolic link";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISDIR(m))
        return "a directory";
    return "not a regular file";
}

/* The one rule for a name an output will take: 0 when it does not exist or
 * is a regular file; 1 when it is something else that ECC_OUT_THROUGH lets
 * the caller write into; -1 with a message otherwise. */
static int out_target(const char *path, unsigned flags, char *err, size_t errlen)
{
    struct stat sb;
    if (lstat(path, &sb) != 0 || S_ISREG(sb.st_mode))
        return 0;
    if (S_ISDIR(sb.st_mode) || !(flags & ECC_OUT_THROUGH)) {
        snprintf(err, errlen, "cannot write '%s': it is %s%s", path, kind_of(sb.st_mode),
                 S_ISDIR(sb.st_mode) ? "" : " (--through writes into it)");
        return -1;
    }
    return 1;
}

int ecc_out_check(const char *path, unsigned flags, char *err, size_t errlen)
{
    return out_target(path, flags, err, errlen) < 0 ? -1 : 0;
}

int ecc_out_dir(const char *dir, unsigned flags, int *created, char *err, size_t errlen)
{
    struct stat sb;
    *created = 0;
    if (mkdir(dir, 0777) == 0) {
        *created = 1;
        return 0;
    }
    if (errno != EEXIST) {
        snprintf(err, errlen, "cannot create directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    if (lstat(dir, &sb) != 0) {
        snprintf(err, errlen, "cannot write into '%s': %s", dir, strerror(errno));
        return -1;
    }
    if (S_ISDIR(sb.st_mode))
        return 0;
    struct stat tb;
    if (S_ISLNK(sb.st_mode) && (flags & ECC_OUT_THROUGH)) {
        if (stat(dir, &tb) == 0 && S_ISDIR(tb.st_mode))
            return 0;
        snprintf(err, errlen, "cannot write into '%s': it is a symbolic link to no directory",
                 dir);
        return -1;
    }
    snprintf(err, errlen, "cannot write into '%s': it is %s, not a directory%s", dir,
             kind_of(sb.st_mode),
             S_ISLNK(sb.st_mode) ? " (--through writes into it)" : "");
    return -1;
}

int ecc_out_open(const char *path, unsigned flags, ecc_out **out, char *err, size_t errlen)
{
    *out = NULL;
    ecc_out *o = calloc(1, sizeof *o);
    if (!o || !(o->path = strdup(path))) {
        free(o);
        snprintf(err, errlen, "cannot write '%s': out of memory", path);
        return -1;
    }
    o->fd = -1;
    int t = out_target(path, flags, err, errlen);
    if (t < 0)
        goto fail;
    if (t > 0) {
        o->fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (o->fd < 0) {
            snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
            goto fail;
        }
        *out = o;
        return 0;
    }
    size_t n = strlen(path) + 32;
    if (!(o->tmp = malloc(n))) {
        snprintf(err, errlen, "cannot write '%s': out of memory", path);
        goto fail;
    }
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(o->tmp, n, "%s.tmp.%ld.%d", path, (long)getpid(), attempt);
        o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (o->fd >= 0 || errno != EEXIST)
            break;
    }
    if (o->fd < 0) {
        /* named as the user named it: the temporary name is ours, and the
         * reason (a missing directory, no permission) is the same for both */
        snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
        goto fail;
    }
    *out = o;
    return 0;
fail:
    free(o->tmp);
    free(o->path);
    free(o);
    return -1;
}

int ecc_out_fd(const ecc_out *o)
{
    return o->fd;
}

const char *ecc_out_name(const ecc_out *o)
{
    return o->tmp ? o->tmp : o->path;
}

int ecc_out_write_at(ecc_out *o, const void *buf, size_t n, uint64_t off, char *err,
                     size_t errlen)
{
    const uint8_t *b = buf;
    while (n > 0) {
        ssize_t k = pwrite(o->fd, b, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            snprintf(err, errlen, "cannot write '%s': %s", o->path,
                     k < 0 ? strerror(errno) : "short write");
            return -1;
        }
        b += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

int ecc_out_write(ecc_out *o, const void *buf, size_t n, char *err, size_t errlen)
{
    const uint8_t *b = buf;
    while (n > 0) {
        ssize_t k = write(o->fd, b, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            snprintf(err, errlen, "cannot write '%s': %s", o->path,
                     k < 0 ? strerror(errno) : "short write");
            return -1;
        }
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

static void out_free(ecc_out *o)
{
    free(o->tmp);
    free(o->path);
    free(o);
}

int ecc_out_commit(ecc_out *o, char *err, size_t errlen)
{
    int rc = 0;
    if (o->tmp && fsync(o->fd) != 0 && errno != EINVAL) {
        snprintf(err, errlen, "cannot write '%s': %s", o->path, strerror(errno));
        rc = -1;
    }
    if (close(o->fd) != 0 && rc == 0) {
        snprintf(err, errlen, "cannot write '%s': %s", o->path, strerror(errno));
        rc = -1;
    }
    o->fd = -1;
    if (o->tmp) {
        if (rc == 0 && rename(o->tmp, o->path) != 0) {
            snprintf(err, errlen, "cannot rename '%s' to '%s': %s", o->tmp, o->path,
                     strerror(errno));
            rc = -1;
        }
        if (rc != 0)
            unlink(o->tmp);
    }
    out_free(o);
    return rc;
}

void ecc_out_abort(ecc_out *o)
{
    if (!o)
        return;
    if (o->fd >= 0)
        close(o->fd);
    if (o->tmp)
        unlink(o->tmp);
    out_free(o);
}
