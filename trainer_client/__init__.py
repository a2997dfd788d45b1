"""rewardbox trainer client (RewardClient, framework adapters, GRPO loop).

Not built yet: it needs the HTTP gateway. Until then use the library API
(``service.judge.judge.Judge``) or the CLI (``rewardbox score``).
"""
