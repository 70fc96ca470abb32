"""A conversation as Markdown: readable, and with every answer's code and JSON copyable.

Each step is tagged with where it came from in an HTML comment, which Markdown viewers do
not show. A tag must never land inside a fenced code block (the copied code would not run),
so code stays whole, and a JSON answer is written as one object in a `json` block with its
members' statuses on a line below it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from stepchat.core.conversation import dropped_note
from stepchat.core.tasks.text_task import fence_after
from stepchat.core.types import Answer
from stepchat.paths import ensure_private_dir
from stepchat.tui.history import Conversation, HistoryError, Turn
from stepchat.tui.sanitize import clean, one_line

_MD_ANYWHERE = re.compile(r"([\\`*_\[\]<>!|~])")
_MD_LINE_START = re.compile(r"^(\s*)(\d*)((?<![0-9])[#+=-]|(?<=[0-9])[.)](?=\s|$))", re.M)
_OPENS_FENCE = re.compile(r"\s*(```|~~~)")


def md_literal(text: str) -> str:
    """`text` for a Markdown file, shown as written: controls and escapes removed, and the
    characters that would start emphasis, links, images, HTML, code, tables, headings or
    lists backslash-escaped (so a prompt cannot add a link or hide text in a comment)."""
    text = _MD_ANYWHERE.sub(r"\\\1", clean(text))
    return _MD_LINE_START.sub(lambda m: f"{m.group(1)}{m.group(2)}\\{m.group(3)}", text)


def _tokens_line(answer: Answer) -> str:
    return f"*{answer.tokens.generated} tokens generated, {answer.tokens.saved} saved*"


def _fence_for(text: str) -> str:
    """A backtick fence longer than any backtick run inside `text`, so the text cannot
    close it early and the block copies whole."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def member_statuses(answer: Answer) -> str:
    """'name: reused · age: fallback', with each member's check where the answer has one."""
    parts = []
    for step in answer.steps:
        label = f"{md_literal(step.key or '?')}: {step.status}"
        if step.check:
            label += f" ({md_literal(step.check)})"
        parts.append(label)
    return " · ".join(parts)


def is_json_answer(answer: Answer) -> bool:
    steps = answer.steps
    return answer.task == "json" or (bool(steps) and all(s.kind == "member" for s in steps))


def _steps(answer: Answer) -> list[str]:
    """Tagged steps; a step continuing an open fence (a record written before code blocks
    were kept whole) is appended untagged so the block still closes around real code.

    Code is written as it is (only terminal controls removed) so it copies whole; prose is
    escaped so that it shows as written and cannot add links, images or hidden comments."""
    lines: list[str] = []
    fence = ""
    for step in answer.steps:
        text = clean(step.text)
        if not fence:
            lines.append(f"<!-- {step.status} -->")
        lines += [text if fence or _OPENS_FENCE.match(text) else md_literal(text), ""]
        fence = fence_after(text, fence)
    if fence:
        lines += [fence, ""]
    return lines


def _answer(answer: Answer) -> list[str]:
    lines = [f"## stepchat ({md_literal(answer.path)})", ""]
    if answer.skip_reason:
        lines += [f"*skip-reuse: {md_literal(one_line(answer.skip_reason))}*", ""]
    if is_json_answer(answer):
        text = clean(answer.text).strip()
        fence = _fence_for(text)
        lines += [f"{fence}json", text, fence, ""]
        lines += [f"*{member_statuses(answer)}*", ""]
    else:
        lines += _steps(answer)
    return [*lines, _tokens_line(answer), ""]


def _turn(turn: Turn) -> list[str]:
    lines = ["## You", ""]
    prompt = md_literal(turn.prompt).splitlines()
    lines += [f"> {line}" if line else ">" for line in prompt] or [">"]
    lines.append("")
    if turn.dropped:
        lines += [f"*{dropped_note(turn.dropped)}*", ""]
    if turn.answer is not None:
        lines += _answer(turn.answer)
    else:
        if turn.partial:
            ended = "cancelled" if turn.cancelled else "cut off"
            lines += [f"## stepchat ({ended})", "", clean(turn.partial).strip(), ""]
            if fence := fence_after(turn.partial):
                lines += [fence, ""]
        if turn.cancelled:
            lines += ["*cancelled*", ""]
        elif turn.error:
            lines += [f"*error: {md_literal(one_line(turn.error))}*", ""]
    return lines


def to_markdown(conversation: Conversation) -> str:
    """The transcript as Markdown, each step tagged with where it came from."""
    title, model = md_literal(conversation.title), md_literal(conversation.model)
    lines = [f"# {title}", "", f"Model: {model}", ""]
    for turn in conversation.turns:
        lines += _turn(turn)
    return "\n".join(lines).rstrip() + "\n"


def export_markdown(conversation: Conversation, directory: Path) -> Path:
    """Write the transcript to `directory/<id>.md` (private) and return the path."""
    try:
        ensure_private_dir(directory)
        target = directory / f"{conversation.id}.md"
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(to_markdown(conversation))
        return target
    except OSError as exc:
        raise HistoryError(f"cannot export to {directory}: {exc.strerror}") from None
