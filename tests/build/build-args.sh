# build-args.sh -- sourced by the install tests (install.sh,
# install-default.sh): sets args to the arguments this build was configured
# with, quoted for the shell, less the build's own directories and prefix
# (make distcheck gives some; config.status quotes an argument only when it
# needs quoting). Skips (77) in a sanitizer or fuzz build: the plain build
# runs the install tests.
args=$("$top_builddir/config.status" --config) || exit 99
case $args in
*--enable-asan*|*--enable-ubsan*|*--enable-fuzz*)
    echo "SKIP: a sanitizer or fuzz build ($args); the plain build runs the install test"
    exit 77 ;;
esac
dirs='\(prefix\|exec-prefix\|srcdir\|bindir\|libdir\|includedir\|datarootdir\|datadir\|mandir\|docdir\|sysconfdir\|localstatedir\)'
args=$(printf '%s\n' "$args" | sed -e "s/'--$dirs=[^']*'//g" -e "s/\(^\| \)--$dirs=[^ ']*//g")
