"""The rule for the names people give (a seat's, a player's): 1 to NAME_MAX characters,
printable, not only spaces. One definition, for the join and the player's schemas (as a
pattern the contract publishes) and for the names a hand record brings in."""

from __future__ import annotations

import re

NAME_MAX = 40

# What a name may not hold: control characters (C0, DEL, C1), format characters (soft
# hyphen, bidirectional and zero-width controls, tags...), separators other than the
# space, private-use characters and noncharacters (the code points of Unicode 14 in those
# categories). Written out, so the contract's pattern and the service's check are the
# same text whatever Unicode version a validator knows; code points unassigned in Unicode
# 14 pass, and lone surrogates (which JSON Schema never sees) are refused besides.
_NOT_IN_NAMES = (
    (0x0, 0x1F), (0x7F, 0xA0), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C),
    (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x1680, 0x1680),
    (0x180E, 0x180E), (0x2000, 0x200F), (0x2028, 0x202F), (0x205F, 0x2064),
    (0x2066, 0x206F), (0x3000, 0x3000), (0xE000, 0xF8FF), (0xFDD0, 0xFDEF),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0xFFFE, 0xFFFF), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    *((plane + 0xFFFE, plane + 0xFFFF) for plane in range(0x10000, 0xE0000, 0x10000)),
    (0xE0001, 0xE0001), (0xE0020, 0xE007F), (0xEFFFE, 0x10FFFF),
)  # fmt: skip


def _class_char(code: int) -> str:
    # `\uXXXX` reads the same in ECMA-262, Python and Rust; a character beyond the BMP
    # stands for itself (every engine that reads code points agrees on it).
    return f"\\u{code:04X}" if code <= 0xFFFF else chr(code)


_EXCLUDED = "".join(
    _class_char(lo) if lo == hi else f"{_class_char(lo)}-{_class_char(hi)}"
    for lo, hi in _NOT_IN_NAMES
)


NAME_PATTERN = f"^[^{_EXCLUDED}]*[^ {_EXCLUDED}][^{_EXCLUDED}]*$"
"""1 or more characters, none of the above, not only spaces."""

_NAME = re.compile(NAME_PATTERN)
_CHARACTER = re.compile(f"[^ {_EXCLUDED}]")


def printable_name(value: str) -> bool:
    """Whether ``value`` matches NAME_PATTERN (its length is checked apart), holding no
    lone surrogate (which a pattern cannot say for every engine)."""
    return bool(_NAME.fullmatch(value)) and not any("\ud800" <= ch <= "\udfff" for ch in value)


def valid_name(value: str) -> bool:
    """Whether a join or a new player may take ``value`` as a name."""
    return 1 <= len(value) <= NAME_MAX and printable_name(value)


def cleaned(value: str | None) -> str | None:
    """A name offered by someone else (an ID token's claim) made to follow the rule:
    the characters no name may hold dropped, runs of spaces made one, cut to NAME_MAX;
    None when nothing is left."""
    if value is None:
        return None
    kept = "".join(ch for ch in value if ch == " " or _CHARACTER.fullmatch(ch))
    kept = " ".join(kept.split())[:NAME_MAX].strip()
    return kept if kept and valid_name(kept) else None
