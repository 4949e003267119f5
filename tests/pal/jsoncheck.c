/* jsoncheck.c -- validates JSON Lines on stdin: every line one complete JSON
 * value (RFC 8259, UTF-8). Exit 0 if all are valid, else 1 naming the line.
 * Small on purpose: the tests must not depend on python or jq. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char *p, *end;

static void ws(void)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
}

static int value(int depth);

static int lit(const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(end - p) < n || memcmp(p, s, n) != 0)
        return 0;
    p += n;
    return 1;
}

static int hex4(void)
{
    for (int i = 0; i < 4; i++, p++)
        if (p >= end || !strchr("0123456789abcdefABCDEF", *p) || !*p)
            return 0;
    return 1;
}

static int string(void)
{
    if (p >= end || *p != '"')
        return 0;
    p++;
    while (p < end && *p != '"') {
        unsigned char c = *p;
        if (c < 0x20)
            return 0;
        if (c == '\\') {
            p++;
            if (p >= end)
                return 0;
            if (*p == 'u') {
                p++;
                if (!hex4())
                    return 0;
                continue;
            }
            if (!strchr("\"\\/bfnrt", *p) || !*p)
                return 0;
            p++;
            continue;
        }
        int len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (!len || c == 0xc0 || c == 0xc1 || c > 0xf4 || end - p < len)
            return 0;
        for (int i = 1; i < len; i++)
            if ((p[i] & 0xc0) != 0x80)
                return 0;
        p += len;
    }
    if (p >= end)
        return 0;
    p++;
    return 1;
}

static int number(void)
{
    const unsigned char *s = p;
    if (p < end && *p == '-')
        p++;
    if (p < end && *p == '0')
        p++;
    else if (p < end && *p >= '1' && *p <= '9')
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    else
        return 0;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || *p < '0' || *p > '9')
            return 0;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || *p < '0' || *p > '9')
            return 0;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    return p > s;
}

static int value(int depth)
{
    if (depth > 64)
        return 0;
    ws();
    if (p >= end)
        return 0;
    switch (*p) {
    case '{':
        p++;
        ws();
        if (p < end && *p == '}') {
            p++;
            return 1;
        }
        for (;;) {
            ws();
            if (!string())
                return 0;
            ws();
            if (p >= end || *p++ != ':')
                return 0;
            if (!value(depth + 1))
                return 0;
            ws();
            if (p < end && *p == ',') {
                p++;
                continue;
            }
            if (p < end && *p == '}') {
                p++;
                return 1;
            }
            return 0;
        }
    case '[':
        p++;
        ws();
        if (p < end && *p == ']') {
            p++;
            return 1;
        }
        for (;;) {
            if (!value(depth + 1))
                return 0;
            ws();
            if (p < end && *p == ',') {
                p++;
                continue;
            }
            if (p < end && *p == ']') {
                p++;
                return 1;
            }
            return 0;
        }
    case '"':
        return string();
    case 't':
        return lit("true");
    case 'f':
        return lit("false");
    case 'n':
        return lit("null");
    default:
        return number();
    }
}

int main(void)
{
    static char line[1 << 20];
    unsigned long n = 0, bad = 0;
    while (fgets(line, sizeof line, stdin)) {
        size_t len = strlen(line);
        n++;
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        p = (const unsigned char *)line;
        end = p + len;
        if (!value(0) || (ws(), p != end)) {
            fprintf(stderr, "jsoncheck: line %lu: invalid JSON near byte %ld\n", n,
                    (long)(p - (const unsigned char *)line));
            bad++;
        }
    }
    printf("%lu lines, %lu invalid\n", n, bad);
    return bad ? 1 : 0;
}
