# attack: raise every hard rlimit the sandbox set (CPU, NPROC, NOFILE, FSIZE, ...)
#   above its value, and lower-then-raise it; raising a hard limit must fail.
# language: python
# expect: accepted
# expected_output: all denied
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import resource

raised = []
for name in ("RLIMIT_CPU", "RLIMIT_NOFILE", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_STACK", "RLIMIT_CORE", "RLIMIT_AS"):
    res = getattr(resource, name)
    soft, hard = resource.getrlimit(res)
    if hard == resource.RLIM_INFINITY:
        continue
    for want in (hard + 1, resource.RLIM_INFINITY):
        try:
            resource.setrlimit(res, (want, want))
            raised.append(name)
        except (ValueError, OSError):
            pass
print("all denied" if not raised else f"raised {raised}")
