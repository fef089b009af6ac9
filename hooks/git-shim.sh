#!/bin/sh
# hippo-git managed hook (shim v2): installed by `git hippo init`, removed by `git hippo hooks uninstall`.
# A hook that was here before hippo is kept beside this one as "<hook>.legacy" and runs first.
hook=@HOOK@
legacy="$0.legacy"
if [ -x "$legacy" ]; then
    "$legacy" "$@" || exit $?
fi
py=@PYTHON@
if [ -x "$py" ] && [ -f @PKGDIR@/_githook.py ]; then
    # -S: python starts without site (a third of its start-up); _githook.py finds the package.
    exec "$py" -S @PKGDIR@/_githook.py "$hook" "$@"
elif [ -x "$py" ] && [ -d @PKGDIR@ ]; then
    exec "$py" -m hippo_git hook "$hook" "$@"
elif command -v git-hippo >/dev/null 2>&1; then
    exec git-hippo hook "$hook" "$@"
fi
echo "hippo-git: git-hippo is not installed any more; skipped the $hook check (run 'git hippo hooks uninstall' or reinstall hippo_git)" >&2
exit 0
