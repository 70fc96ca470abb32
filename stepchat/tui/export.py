"""A conversation as Markdown: readable, and with every answer's code and JSON copyable.

Where an answer came from is said in the app's own words (the path as the answer's first
line shows it, the badges ✓ reused, ✎ patched, ✚ new, ∑ solver). An answer whose steps all
came from one place says so once; only an answer that mixes them tags each step, in an
HTML comment viewers do not show. A tag must never land inside a fenced code block (the
copied code would not run), so code stays whole, and a JSON answer is written as one
object in a `json` block with its members' statuses on a line below it. Prose keeps its
inline code spans as written; everything else is escaped so it shows as written. The file
is named after the conversation's title, then its id.
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
from stepchat.tui.widgets.badges import BADGES
from stepchat.tui.widgets.steps import route_label

_MD_ANYWHERE = re.compile(r"([\\`*_\[\]<>!|~])")
_MD_LINE_START = re.compile(r"^(\s*)(\d*)((?<![0-9])[#+=-]|(?<=[0-9])[.)](?=\s|$))", re.M)
_OPENS_FENCE = re.compile(r"\s*(```|~~~)")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_SLUG_WORDS = re.compile(r"[a-z0-9]+")


def md_literal(text: str) -> str:
    """`text` for a Markdown file, shown as written: controls and escapes removed, and the
    characters that would start emphasis, links, images, HTML, code, tables, headings or
    lists backslash-escaped (so a prompt cannot add a link or hide text in a comment)."""
    text = _MD_ANYWHERE.sub(r"\\\1", clean(text))
    return _MD_LINE_START.sub(lambda m: f"{m.group(1)}{m.group(2)}\\{m.group(3)}", text)


def md_prose(text: str) -> str:
    """Prose for a Markdown file: `md_literal` outside inline code spans, which are kept as
    written (nothing inside a code span is a link or markup, and `\\`d\\`` read badly)."""
    text = clean(text)
    parts, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        if "\n\n" in span.group(2):
            continue  # not a span: a blank line ends a paragraph first
        parts += [md_literal(text[last:span.start()]), span.group(0)]
        last = span.end()
    return "".join([*parts, md_literal(text[last:])])


def _tokens_line(answer: Answer) -> str:
    return f"*{answer.tokens.generated} tokens written, {answer.tokens.saved} saved*"


def _fence_for(text: str) -> str:
    """A backtick fence longer than any backtick run inside `text`, so the text cannot
    close it early and the block copies whole."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def member_statuses(answer: Answer) -> str:
    """'name: ✓ reused · age: ∑ solver (stated)', with each member's check where the
    answer has one: the badges the app shows."""
    parts = []
    for step in answer.steps:
        label = f"{md_literal(step.key or '?')}: {BADGES[step.status]}"
        if step.check:
            label += f" ({md_literal(step.check)})"
        parts.append(label)
    return " · ".join(parts)


def is_json_answer(answer: Answer) -> bool:
    """Whether the answer is one JSON document (its kind's `delivery` says so), written
    whole in a `json` block."""
    return answer.delivery.document == "json"


def _steps(answer: Answer) -> list[str]:
    """Tagged steps; a step continuing an open fence (a record written before code blocks
    were kept whole) is appended untagged so the block still closes around real code.

    Code is written as it is (only terminal controls removed) so it copies whole; prose is
    escaped so that it shows as written and cannot add links, images or hidden comments."""
    statuses = [BADGES[step.status] for step in answer.steps]
    mixed = len(set(statuses)) > 1
    lines: list[str] = []
    if statuses and not mixed:
        lines += [f"*{statuses[0]}*", ""]
    fence = ""
    for step, status in zip(answer.steps, statuses, strict=True):
        text = clean(step.text)
        if mixed and not fence:
            lines.append(f"<!-- {status} -->")
        lines += [text if fence or _OPENS_FENCE.match(text) else md_prose(text), ""]
        fence = fence_after(text, fence)
    if fence:
        lines += [fence, ""]
    return lines


def _answer(answer: Answer) -> list[str]:
    label = route_label(answer.path, answer.notes)
    lines = [f"## stepchat · {md_literal(label)}", ""]
    if answer.skip_reason:
        lines += [f"*skip-reuse: {md_literal(one_line(answer.skip_reason))}*", ""]
    lines += [f"*{md_literal(one_line(note))}*" for note in answer.notes]
    lines += [""] if answer.notes else []
    if is_json_answer(answer):
        text = clean(answer.text).strip()
        fence = _fence_for(text)
        lines += [f"{fence}json", text, fence, ""]
        lines += [f"*{member_statuses(answer)}*", ""]
    else:
        lines += _steps(answer)
    return [*lines, _tokens_line(answer), ""]


_CODE_OPENS = re.compile(r" {0,3}(`{3,}(?=[^`]*$)|~{3,})")
"""A line CommonMark reads as opening fenced code (a backtick fence's info string has no
backtick: "```a``` [x](y)" is a code span and a link)."""


def _code_closes(line: str, fence: str) -> bool:
    """CommonMark's closing fence: at most three spaces, then only the opening character,
    at least as many, then only spaces."""
    mark = line.strip(" ")
    indent = len(line) - len(line.lstrip(" "))
    return indent <= 3 and len(mark) >= len(fence) and set(mark) == {fence[0]}


def _prompt_lines(prompt: str) -> list[str]:
    """The prompt's lines, shown as written: code in a fence stays code (escaped, a pasted
    ```python block read as backslashes and never as code), a fence left open is closed
    before the answer, and everything else is `md_literal`. A line is kept as typed only
    where CommonMark reads it as code, so no prompt adds a link or a comment."""
    lines: list[str] = []
    fence = ""
    for line in clean(prompt).splitlines():
        if fence:
            lines.append(line)
            fence = "" if _code_closes(line, fence) else fence
        elif (opening := _CODE_OPENS.match(line)) is not None:
            lines.append(line)
            fence = opening.group(1)
        else:
            lines.append(md_literal(line))
    return [*lines, fence] if fence else lines


def _turn(turn: Turn) -> list[str]:
    lines = ["## You", ""]
    prompt = _prompt_lines(turn.prompt)
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
    if conversation.system_prompt:
        lines += [f"System prompt: {md_literal(one_line(conversation.system_prompt))}", ""]
    for turn in conversation.turns:
        lines += _turn(turn)
    return "\n".join(lines).rstrip() + "\n"


def export_name(conversation: Conversation) -> str:
    """`<the title's first words>-<id>.md`: found by what it is about, unique, and the same
    file again when the same conversation is exported again."""
    kept: list[str] = []
    for word in _SLUG_WORDS.findall(conversation.title.lower()):
        if kept and len("-".join([*kept, word])) > 40:
            break  # whole words only: `…-works-in-deta-…` reads as a typo
        kept.append(word[:40])
    slug = "-".join(kept) or "conversation"
    return f"{slug}-{conversation.id}.md"


def export_markdown(conversation: Conversation, directory: Path) -> Path:
    """Write the transcript to `directory/<export_name>` (private) and return the path."""
    try:
        ensure_private_dir(directory)
        target = directory / export_name(conversation)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(to_markdown(conversation))
        return target
    except OSError as exc:
        raise HistoryError(f"cannot export to {directory}: {exc.strerror}") from None
