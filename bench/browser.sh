# browser.sh -- sourced by views.sh and report.sh: headless Chromium and
# playwright-core for their measuring scripts. browser_setup DIR finds them
# (playwright-core in $PLAYWRIGHT_CORE_DIR, ./node_modules or npm's global
# root; chromium or chromium-browser on PATH), links playwright-core into
# DIR/node_modules so that a script copied into DIR imports it, and sets
# $chromium; it returns 1 when node, playwright-core or chromium is missing.
browser_setup() {
    pw=""
    for d in "${PLAYWRIGHT_CORE_DIR:-}" "node_modules/playwright-core" \
             "$(npm root -g 2>/dev/null)/playwright-core"; do
        [ -n "$d" ] && [ -f "$d/package.json" ] && { pw=$d; break; }
    done
    chromium=$(command -v chromium || command -v chromium-browser || true)
    if [ -z "$pw" ] || [ -z "$chromium" ] || ! command -v node >/dev/null 2>&1; then
        return 1
    fi
    mkdir -p "$1/node_modules" && ln -s "$(cd "$pw" && pwd)" "$1/node_modules/playwright-core"
}
