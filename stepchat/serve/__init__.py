"""`stepchat serve`: the step cache behind an OpenAI-compatible HTTP API, for any client.

protocol (request and response shapes), turns (messages to cache key and history),
lanes (who runs what, and when), pool (the models served), textstream (streaming text
that equals the final answer), limits (a request's max_tokens and stop), app (the HTTP
routes and their safety), command (the CLI).
"""
