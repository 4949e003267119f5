/* vwcheck.c -- structural checks for pal-view outputs.
 *   vwcheck json FILE   validates one JSON document; prints "X=n s=n f=n i=n M=n",
 *                       the number of trace events per phase ("ph")
 *   vwcheck xml FILE    checks XML well-formedness (balanced, properly nested
 *                       tags, quoted attributes); prints "elements=n"
 * Exit 0 when valid, 1 with a message otherwise. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *buf;
static size_t len, pos;
static unsigned long counts[128];
static const char *err;

static void ws(void)
{
    while (pos < len && (buf[pos] == ' ' || buf[pos] == '\n' || buf[pos] == '\t' || buf[pos] == '\r'))
        pos++;
}

static int jstring(char *out, size_t outlen)
{
    size_t o = 0;
    if (buf[pos] != '"')
        return err = "expected string", -1;
    pos++;
    while (pos < len && buf[pos] != '"') {
        unsigned char c = (unsigned char)buf[pos];
        if (c < 0x20)
            return err = "control character in string", -1;
        if (c == '\\') {
            pos++;
            if (pos >= len || !strchr("\"\\/bfnrtu", buf[pos]))
                return err = "bad escape", -1;
            if (buf[pos] == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (pos + k >= len || !isxdigit((unsigned char)buf[pos + k]))
                        return err = "bad \\u escape", -1;
                pos += 4;
            }
        }
        if (out && o + 1 < outlen)
            out[o++] = buf[pos];
        pos++;
    }
    if (pos >= len)
        return err = "unterminated string", -1;
    pos++;
    if (out)
        out[o] = '\0';
    return 0;
}

static int jvalue(int depth);

static int jobject(int depth)
{
    char key[64], ph[8] = "";
    pos++;
    ws();
    if (buf[pos] == '}') {
        pos++;
        return 0;
    }
    for (;;) {
        ws();
        if (jstring(key, sizeof key))
            return -1;
        ws();
        if (buf[pos] != ':')
            return err = "expected ':'", -1;
        pos++;
        ws();
        if (strcmp(key, "ph") == 0 && buf[pos] == '"') {
            size_t p0 = pos;
            if (jstring(ph, sizeof ph))
                return -1;
            (void)p0;
        } else if (jvalue(depth + 1)) {
            return -1;
        }
        ws();
        if (buf[pos] == ',') {
            pos++;
            continue;
        }
        if (buf[pos] == '}') {
            pos++;
            if (ph[0] && !ph[1])
                counts[(unsigned char)ph[0] & 127]++;
            return 0;
        }
        return err = "expected ',' or '}'", -1;
    }
}

static int jvalue(int depth)
{
    ws();
    if (depth > 64)
        return err = "too deep", -1;
    if (pos >= len)
        return err = "unexpected end", -1;
    char c = buf[pos];
    if (c == '{')
        return jobject(depth);
    if (c == '[') {
        pos++;
        ws();
        if (buf[pos] == ']') {
            pos++;
            return 0;
        }
        for (;;) {
            if (jvalue(depth + 1))
                return -1;
            ws();
            if (buf[pos] == ',') {
                pos++;
                continue;
            }
            if (buf[pos] == ']') {
                pos++;
                return 0;
            }
            return err = "expected ',' or ']'", -1;
        }
    }
    if (c == '"')
        return jstring(NULL, 0);
    if (strncmp(buf + pos, "true", 4) == 0 || strncmp(buf + pos, "null", 4) == 0) {
        pos += 4;
        return 0;
    }
    if (strncmp(buf + pos, "false", 5) == 0) {
        pos += 5;
        return 0;
    }
    if (c == '-' || isdigit((unsigned char)c)) {
        char *end;
        strtod(buf + pos, &end);
        if (end == buf + pos)
            return err = "bad number", -1;
        if (strchr("nN", buf[pos + (buf[pos] == '-')]))
            return err = "nan", -1;
        pos = (size_t)(end - buf);
        return 0;
    }
    return err = "unexpected character", -1;
}

static int xml(unsigned long *elements)
{
    char stack[256][64];
    int depth = 0, root_done = 0;
    while (pos < len) {
        if (buf[pos] != '<') {
            if (buf[pos] == '&') {
                const char *semi = memchr(buf + pos, ';', len - pos < 10 ? len - pos : 10);
                if (semi == NULL)
                    return err = "bare '&'", -1;
            }
            if (depth == 0 && !isspace((unsigned char)buf[pos]))
                return err = "text outside the root element", -1;
            pos++;
            continue;
        }
        if (strncmp(buf + pos, "<?", 2) == 0) {
            char *e = strstr(buf + pos, "?>");
            if (!e)
                return err = "unterminated <?", -1;
            pos = (size_t)(e - buf) + 2;
            continue;
        }
        if (strncmp(buf + pos, "<!--", 4) == 0) {
            char *e = strstr(buf + pos, "-->");
            if (!e)
                return err = "unterminated comment", -1;
            pos = (size_t)(e - buf) + 3;
            continue;
        }
        int closing = buf[pos + 1] == '/';
        pos += closing ? 2 : 1;
        char name[64];
        size_t n = 0;
        while (pos < len && (isalnum((unsigned char)buf[pos]) || strchr(":-_.", buf[pos])))
            if (n + 1 < sizeof name)
                name[n++] = buf[pos++];
            else
                pos++;
        name[n] = '\0';
        if (n == 0)
            return err = "bad tag name", -1;
        if (closing) {
            ws();
            if (buf[pos] != '>')
                return err = "bad closing tag", -1;
            pos++;
            if (depth == 0 || strcmp(stack[depth - 1], name))
                return err = "mismatched closing tag", -1;
            if (--depth == 0)
                root_done = 1;
            continue;
        }
        if (root_done)
            return err = "second root element", -1;
        (*elements)++;
        for (;;) {
            ws();
            if (buf[pos] == '>') {
                pos++;
                if (depth >= 256)
                    return err = "too deep", -1;
                strcpy(stack[depth++], name);
                break;
            }
            if (buf[pos] == '/' && buf[pos + 1] == '>') {
                pos += 2;
                if (depth == 0)
                    root_done = 1;
                break;
            }
            size_t a = pos;
            while (pos < len && (isalnum((unsigned char)buf[pos]) || strchr(":-_.", buf[pos])))
                pos++;
            if (pos == a || buf[pos] != '=')
                return err = "bad attribute", -1;
            pos++;
            char q = buf[pos];
            if (q != '"' && q != '\'')
                return err = "unquoted attribute", -1;
            char *e = memchr(buf + pos + 1, q, len - pos - 1);
            if (!e)
                return err = "unterminated attribute", -1;
            if (memchr(buf + pos + 1, '<', (size_t)(e - buf - pos - 1)))
                return err = "'<' in attribute", -1;
            pos = (size_t)(e - buf) + 1;
        }
    }
    if (depth || !root_done)
        return err = "unclosed element or no root", -1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return fprintf(stderr, "usage: vwcheck json|xml FILE\n"), 2;
    FILE *f = fopen(argv[2], "rb");
    if (!f)
        return perror(argv[2]), 2;
    size_t cap = 1 << 16;
    buf = malloc(cap + 1);
    size_t k;
    while (buf && (k = fread(buf + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
    }
    fclose(f);
    if (!buf)
        return 2;
    buf[len] = '\0';
    if (strcmp(argv[1], "json") == 0) {
        if (jvalue(0) == 0) {
            ws();
            if (pos != len)
                err = "trailing data";
        }
        if (err) {
            fprintf(stderr, "%s: byte %zu: %s\n", argv[2], pos, err);
            return 1;
        }
        printf("X=%lu s=%lu f=%lu i=%lu M=%lu\n", counts['X'], counts['s'], counts['f'],
               counts['i'], counts['M']);
    } else {
        unsigned long el = 0;
        if (xml(&el)) {
            fprintf(stderr, "%s: byte %zu: %s\n", argv[2], pos, err);
            return 1;
        }
        printf("elements=%lu\n", el);
    }
    free(buf);
    return 0;
}
