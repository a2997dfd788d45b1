# attack: read the environment for secrets (API keys, Redis URL, host names): it must
#   hold only the allow-list, for a python program (run in a fork of the warm executor).
# language: python
# expect: accepted
# expected_output: HOME LANG LC_ALL PATH PYTHONDONTWRITEBYTECODE PYTHONIOENCODING TMPDIR
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import os

print(*sorted(os.environ))
