"""`python -m stepchat.bench ...`: the bench without the rest of the CLI."""

from stepchat.bench.command import main

raise SystemExit(main())
