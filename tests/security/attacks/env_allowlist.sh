# attack: read the environment of an execve'd program (bash) for secrets; bash adds
#   its own PWD, SHLVL and _ (not secrets); everything else must be the allow-list.
# language: bash
# expect: accepted
# expected_output: HOME LANG LC_ALL PATH PYTHONDONTWRITEBYTECODE PYTHONIOENCODING TMPDIR
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
env | cut -d= -f1 | grep -v -x -e PWD -e SHLVL -e _ | sort | tr '\n' ' '
echo
