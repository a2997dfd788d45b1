"""One module per training framework, each speaking that framework's own
reward contract: trl, verl (and the gateway's /openrlhf, /slime and
SandboxFusion /run_code endpoints for remote reward models)."""
