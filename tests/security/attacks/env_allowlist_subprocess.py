# attack: the environment a python program's subprocess inherits (execve'd `env`)
#   must hold only the allow-list too.
# language: python
# expect: accepted
# expected_output: HOME LANG LC_ALL PATH PYTHONDONTWRITEBYTECODE PYTHONIOENCODING TMPDIR
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import subprocess

out = subprocess.run(["env"], capture_output=True, text=True).stdout
print(*sorted(line.split("=", 1)[0] for line in out.splitlines()))
