"""`stepchat bench`: the step-level cache against no cache and peer caches, in one run.

Why it exists: the product's claim (faster and never wrong where it can check) is only
true if anyone can reproduce it on their own machine, against the same model with no
cache and with the caches people use today, on the same requests.

Modules, one job each:
- `workload`, `linear_gen`, `json_gen`, `records`: the seeded workload in the shared JSONL
  format `{"id", "prompt", "check"}` (see DESIGN.md, "Bench workload format"). Per seed:
  10 linear and 10 JSON base prompts, each followed by k=3 variants of 5 perturbation
  kinds, so 2 x 10 x (1 + 5 x 3) = 320 requests (the paper's own count is 222).
  `--quick` keeps 2 bases per task and 1 variant per kind: 24 requests, one seed.
- `algebra`, `checker`: judge served answers without any code from `stepchat.core`.
- `arms`, `gptcache_arm`: nocache, exact, gptcache, stepcache-paper, stepcache.
- `runner`, `metrics`, `report`: serve, judge, summarise, write results.json,
  requests.jsonl, report.md and latency.png.
- `scale`: `--scale 1000,10000,100000`, the store at many entries.
- `command`: the `bench` subcommand (`register`, `run`); `python -m stepchat.bench` too.
"""
