"""`stepchat config`: where the config file is, what is in effect, and where it came from.

A user who wants to add a model, share a cache or point `llama_cpp.server` at the bundled
GGUF needs three facts no other command prints: the path of config.toml, the models as
resolved (each with the file it came from), and the path of each GGUF. `--edit` opens the
file (created from a commented template if it is not there) and checks it on the way out.
This command works with a broken config too: that is when it is needed most.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from stepchat.config import Config, ConfigError, ModelSpec, config_file_path, load_config
from stepchat.core.safetext import one_line
from stepchat.core.scope import scope_tag
from stepchat.options import add_model_option
from stepchat.output import say
from stepchat.paths import ensure_private_dir, user_paths

TEMPLATE = """\
# stepchat's config file. Every key is optional; `stepchat config` shows what is in effect
# and where each model comes from. A wrong key or value stops stepchat with one line
# naming it.

# default = "smollm2-135m"      # the model to run when none is given
# system_prompt = ""            # the system message every chat starts with
# threads = 2                   # CPU threads for local models

# A local GGUF file:
# [[models]]
# id = "my-model"
# name = "My local model"
# source = "~/models/model.Q4_K_M.gguf"
# context = 4096
# max_tokens = 256

# A model behind any OpenAI-compatible server (llama.cpp's server, Ollama, vLLM, ...):
# [[models]]
# id = "big"
# name = "A bigger model"
# kind = "openai"
# base_url = "http://127.0.0.1:8080/v1"
# model = "qwen2.5-7b-instruct"
# api_key_env = "BIG_API_KEY"   # the variable holding the key, never the key itself

# [cache]
# uri = "s3://team-bucket/stepchat"   # one cache shared through a bucket
"""


DESCRIPTION = (
    "Show where the config file (config.toml) is, the models in effect with the file each "
    "came from, the path of every GGUF, and where the cache lives."
)


def register(subparsers: Any) -> argparse.ArgumentParser:
    summary = "show the config file, the models and where each came from"
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "config", help=summary, description=DESCRIPTION
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--edit", action="store_true",
        help="open config.toml in $VISUAL or $EDITOR (created from a template if missing), "
        "then check it",
    )
    action.add_argument("--path", action="store_true", help="print the config file's path only")
    add_model_option(parser, listed=False)
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    paths = user_paths()
    path = config_file_path(paths)  # a missing STEPCHAT_CONFIG or a stray models.toml: error
    if args.path:
        say(str(path))
        return 0
    if args.edit:
        return _edit(path)
    try:
        config = load_config(paths)
    except ConfigError as exc:
        say(f"config file    {path}")
        print(f"stepchat: {one_line(str(exc))}", file=sys.stderr)
        return 2
    show(config)
    return 0


def show(config: Config) -> None:
    """Everything in effect, one fact a line."""
    path = config.config_file
    exists = path is not None and path.exists()
    state = "" if exists else "  (not created yet: stepchat config --edit)"
    if os.environ.get("STEPCHAT_CONFIG"):
        state += "  (from STEPCHAT_CONFIG)"
    say(f"config file    {path}{state}")
    say(f"data           {config.paths.data_dir}")
    say(f"cache          {config.cache_location.uri}")
    system = config.pipeline.system_prompt
    say(f"system prompt  {one_line(system, 70) if system else '(none)'}")
    say(f"default model  {config.default_model}  (from {config.origins.get('default', '?')})")
    say(f"cache scope    {scope_tag(config.scope())}  (the default model, this system prompt)")
    say()
    say("models")
    for model_id, spec in config.models.items():
        mark = "*" if model_id == config.default_model else " "
        say(f"{mark} {model_id}  {one_line(spec.name, 60)}")
        say(f"      from     {config.origins.get(model_id, '?')}")
        if isinstance(spec, ModelSpec):
            say(f"      GGUF     {_gguf(spec)}")
        else:
            say(f"      server   {spec.base_url}  (model {spec.model})")


def _gguf(spec: ModelSpec) -> str:
    """The GGUF's full path, the one to give `python -m llama_cpp.server --model` or
    ollama's Modelfile; or why there is none."""
    try:
        return str(spec.gguf_path())
    except ConfigError as exc:
        return f"missing: {exc}"


def _edit(path: Path) -> int:
    """Open the file in the user's editor, then check what they wrote."""
    editor = _editor(path)
    if not path.exists():
        ensure_private_dir(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(TEMPLATE)
    try:
        done = subprocess.run([*shlex.split(editor), str(path)], check=False)
    except OSError as exc:
        raise ConfigError(
            f"cannot start the editor {editor!r}: {exc.strerror or exc} "
            f"(fix: set VISUAL or EDITOR, or edit {path} yourself)"
        ) from None
    if done.returncode != 0:
        raise ConfigError(f"the editor {editor!r} exited with status {done.returncode}")
    load_config()  # a mistake is one line naming the key, from main's handler
    say(f"{path}: checked, no mistakes")
    return 0


def _editor(path: Path) -> str:
    """The user's editor, else vi, which only a terminal can drive: from a script or a pipe
    it would paint escapes into the output and wait for keys that never come."""
    chosen = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if chosen:
        return chosen
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise ConfigError(
            "no editor to open: $VISUAL and $EDITOR are unset and vi needs a terminal "
            f"(fix: set EDITOR, or open {path} yourself)"
        )
    return "vi"
