# attack: become root: setuid(0)/setresuid, the setuid-root binaries of the system
#   (su, passwd, newgrp, ...) run with stdin closed, and a setuid copy of python
#   made in the work dir; euid stays non-zero, no_new_privs is set, no capability.
# language: python
# expect: accepted
# expected_output: "setuid denied\nsetresuid denied\nnonewprivs 1\ncaps 0000000000000000\nnot root"
# limits: {"time_limit_s": 2, "wall_time_limit_s": 3, "memory_limit_mb": 64}
import os
import shutil
import subprocess
import sys

for name, call in (("setuid", lambda: os.setuid(0)), ("setresuid", lambda: os.setresuid(0, 0, 0))):
    try:
        call()
        print(name, "allowed")
    except OSError:
        print(name, "denied")
status = dict(l.split(":", 1) for l in open("/proc/self/status") if ":" in l)
no_new_privs = status.get("NoNewPrivs", "").strip()
if not no_new_privs:  # gVisor's /proc/self/status has no such line: ask prctl(PR_GET_NO_NEW_PRIVS)
    import ctypes
    no_new_privs = str(ctypes.CDLL(None, use_errno=True).prctl(39, 0, 0, 0, 0))
print("nonewprivs", no_new_privs)
print("caps", status["CapEff"].strip())
probe = "import os; print(os.geteuid(), os.getuid())"
became_root = False
for tool in ("su", "sudo", "passwd", "newgrp", "chsh", "chfn", "mount", "ping", "pkexec"):
    path = shutil.which(tool)
    if not path:
        continue
    argv = {"su": [path, "-c", "id -u", "root"], "sudo": [path, "-n", "id", "-u"],
            "newgrp": [path, "root"], "mount": [path, "-t", "tmpfs", "x", "/tmp"]}.get(tool, [path])
    try:
        out = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=0.5).stdout
    except (OSError, subprocess.TimeoutExpired):
        continue
    if out.strip().split()[:1] == ["0"]:
        became_root = True
try:
    shutil.copy(sys.executable, "./py")
    os.chmod("./py", 0o4755)
    out = subprocess.run(["./py", "-c", probe], capture_output=True, text=True, timeout=1).stdout.split()
    became_root = became_root or (out[:1] == ["0"])
except (OSError, subprocess.TimeoutExpired):
    pass
print("root" if became_root or os.geteuid() == 0 else "not root")
