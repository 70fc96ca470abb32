"""What the copy actions put on the clipboard: a whole answer, one code block, one JSON object.

Pure functions of an answer's text and record, so what a user pastes is tested without a
terminal: code comes without its fences (it should run as pasted) and a JSON answer comes
as one valid object, never as the bare member lines the cache stores.
"""

from __future__ import annotations

import json

from stepchat.core.jsonextract import extract_object
from stepchat.core.tasks.text_task import segment_text


def code_blocks(text: str) -> list[str]:
    """The code inside each fenced block of `text`, in order, fences removed."""
    blocks = []
    for step in segment_text(text):
        if step.kind != "code":
            continue
        lines = step.text.splitlines()[1:]
        if lines and lines[-1].strip() and set(lines[-1].strip()) <= {"`", "~"}:
            lines = lines[:-1]
        blocks.append("\n".join(lines))
    return blocks


def json_object(text: str) -> str | None:
    """The answer's JSON object, pretty-printed and valid, or None when it has none.

    A JSON answer's text is the stitched object; open text may carry one in a code block
    or among prose, which the engine's own extractor finds.
    """
    obj = extract_object(text)
    return None if obj is None else json.dumps(obj, indent=2, ensure_ascii=False)
