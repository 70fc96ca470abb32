"""What the look-alike generator swaps in: symbols by class, synonyms with a second sense,
tool and package names, and other forms of the same digit.

Every swap here changes what a request asks, so the gate must call each result a different
request. The lists are written for the generator and are not the gate's: a word the gate
forgives (a greeting, "please") is never swapped, and no bank lists one.
"""

from __future__ import annotations

SYMBOL_CLASSES: dict[str, tuple[str, ...]] = {
    "arithmetic": ("+", "−", "×", "÷", "-", "*", "/", "±", "·", "^", "%", "√"),
    "comparison": ("<", ">", "≤", "≥", "=", "≠", "≈", "≡", "∝", "≪", "≫"),
    "sets and logic": ("∈", "∉", "⊂", "⊆", "∪", "∩", "∧", "∨", "¬", "∀", "∃", "∅"),
    "currency": ("$", "€", "£", "¥", "₹", "₽", "₩", "₺", "₪", "₿", "¢", "₫", "฿"),
    "arrows": ("→", "←", "↑", "↓", "↔", "⇒", "⇐", "⇔", "↦"),
    "brackets": ("(", ")", "[", "]", "{", "}", "⟨", "⟩"),
    "sigils": ("@", "#", "_", "~", "\\", "|", "&", "$", "`"),
    "greek": ("π", "φ", "θ", "λ", "μ", "σ", "Σ", "Δ", "Ω", "α", "β", "γ"),
    "units": ("°", "′", "″", "‰", "µ", "Å"),
    "emoji": ("😀", "😢", "👍", "👎", "❤️", "💔", "✅", "❌", "🔥", "❄️", "👨‍👩‍👧", "👍🏿"),
}
"""Symbols a request can carry, grouped so that a swap stays plausible (a currency for a
currency); a swap within a class always changes the answer."""

CARRIERS: dict[str, str] = {
    "arithmetic": " (12 {s} 4)",
    "comparison": " (is 5 {s} 3?)",
    "sets and logic": " (A {s} B)",
    "currency": " (500{s})",
    "arrows": " (A {s} B)",
    "brackets": " {s}x",
    "sigils": " {s}tag",
    "greek": " ({s} = 2)",
    "units": " (40{s})",
    "emoji": " {s}",
}
"""Where a request without a symbol of the class carries one: both sides get the carrier,
with different symbols."""

SYNONYMS: tuple[tuple[str, str], ...] = (
    ("film", "movie"), ("films", "movies"), ("telephone", "phone"), ("cellphone", "phone"),
    ("quick", "fast"), ("quickest", "fastest"), ("shop", "store"), ("shops", "stores"),
    ("begin", "start"), ("commence", "start"), ("buy", "purchase"), ("car", "automobile"),
    ("big", "large"), ("small", "little"), ("photo", "picture"), ("sick", "ill"),
    ("job", "work"), ("house", "home"), ("rich", "wealthy"), ("smart", "clever"),
    ("angry", "mad"), ("happy", "glad"), ("show", "display"), ("error", "mistake"),
    ("fix", "repair"), ("delete", "remove"), ("make", "create"), ("use", "utilise"),
    ("cheap", "inexpensive"), ("hard", "difficult"), ("easy", "simple"), ("end", "finish"),
    ("get", "obtain"), ("help", "assist"), ("need", "require"), ("try", "attempt"),
    ("watch", "observe"), ("choose", "pick"), ("answer", "reply"), ("ask", "request"),
    ("close", "shut"), ("near", "close"), ("right", "correct"), ("wrong", "incorrect"),
    ("mistake", "fault"), ("trip", "journey"), ("travel", "journey"), ("speed", "velocity"),
    ("weight", "mass"), ("doctor", "physician"), ("lawyer", "attorney"), ("child", "kid"),
    ("children", "kids"), ("money", "cash"), ("film", "picture"), ("colour", "color"),
    ("flat", "apartment"), ("lift", "elevator"), ("holiday", "vacation"), ("rubbish", "trash"),
    ("biscuit", "cookie"), ("autumn", "fall"), ("queue", "line"), ("petrol", "gas"),
    ("mobile", "cellphone"), ("pavement", "sidewalk"), ("trousers", "pants"),
    ("chips", "fries"), ("postcode", "zipcode"), ("motorway", "highway"), ("boot", "trunk"),
    ("tyre", "tire"), ("metre", "meter"), ("programme", "program"), ("cheque", "check"),
    ("licence", "license"), ("centre", "center"), ("grey", "gray"), ("mum", "mom"),
    ("maths", "math"), ("football", "soccer"), ("jumper", "sweater"), ("torch", "flashlight"),
)
"""Pairs one word of which has a sense the other lacks ("develop film", "phone" for a
landline, "fast" from food, a spelling that means something else in one country)."""

TOOLS: tuple[str, ...] = (
    "deno", "bun", "npm", "pnpm", "yarn", "pip", "uv", "poetry", "conda", "cargo", "rustc",
    "go", "gcc", "clang", "make", "cmake", "bazel", "git", "hg", "svn", "vim", "emacs", "nano",
    "jq", "yq", "sed", "awk", "grep", "curl", "wget", "ssh", "scp", "rsync", "tar", "zip",
    "node", "redis", "kafka", "spark", "flask", "django", "rails", "react", "vue", "svelte",
    "numpy", "pandas", "torch", "keras", "jax", "dask", "ray", "helm", "kind", "k3s",
    "terraform", "ansible", "puppet", "chef", "salt", "docker", "podman", "nginx", "caddy",
    "vite", "jest", "mocha", "chai", "lodash", "axios", "express", "koa", "nest", "next",
    "nuxt", "remix", "astro", "hugo", "jekyll", "gatsby", "ruff", "black", "mypy", "pytest",
    "tox", "nox", "lyft", "uber", "slack", "zoom", "notion", "figma", "excel", "word",
)
"""Tool, package and product names, many of them one letter from an English word."""

DIGIT_FORMS: dict[str, str] = {
    "full-width": "０１２３４５６７８９",
    "Arabic-Indic": "٠١٢٣٤٥٦٧٨٩",
    "Persian": "۰۱۲۳۴۵۶۷۸۹",
    "Devanagari": "०१२३४५६७८९",
    "Bengali": "০১২৩৪৫৬৭৮৯",
    "Thai": "๐๑๒๓๔๕๖๗๘๙",
    "superscript": "⁰¹²³⁴⁵⁶⁷⁸⁹",
    "subscript": "₀₁₂₃₄₅₆₇₈₉",
    "mathematical bold": "𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗",
}
"""Other ways to write the digits 0-9: `٣` and `३` are three, `³` is a power, `₃` an index."""
ROMAN = ("", "Ⅰ", "Ⅱ", "Ⅲ", "Ⅳ", "Ⅴ", "Ⅵ", "Ⅶ", "Ⅷ", "Ⅸ", "Ⅹ", "Ⅺ", "Ⅻ")
CIRCLED = "⓪①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten", "eleven", "twelve")

ARTICLES = ("the", "a", "an")

UNTOUCHED = frozenset({
    "hi", "hello", "hey", "hiya", "thanks", "thank", "please", "cheers", "ok", "okay", "um",
    "umm", "uh", "erm", "hmm", "sorry", "dear", "good", "morning", "afternoon", "evening",
    "team", "all", "everyone", "there", "quick", "question", "you", "alright", "excuse", "me",
    "can", "could", "would", "will", "thx", "ty", "ta",
})
"""Words the generator never edits: a swap inside a greeting or a thanks ("Hi" for "Hey")
is an edit the gate forgives, not one it must catch."""
