# ruff: noqa: RUF001  (Chinese punctuation is full-width, as the presets mean it)
"""What a chat message may say: one of the presets, in four languages, or a text of 1 to
280 characters after trimming, in NFC, without control characters (Unicode category
Cc). In a rated four-player game the table channel takes presets only: partners must not
signal (lichess's rule for its team games)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from service.application.errors import InvalidInputError
from service.application.privacy import sealing

LONGEST = 280


@dataclass(frozen=True, slots=True)
class Preset:
    id: str
    en: str
    fr: str
    de: str
    zh: str

    def text(self) -> dict[str, str]:
        return {"en": self.en, "fr": self.fr, "de": self.de, "zh": self.zh}


PRESETS: tuple[Preset, ...] = (
    Preset("hello", "Hello!", "Bonjour !", "Hallo!", "你好！"),
    Preset("good_luck", "Good luck!", "Bonne chance !", "Viel Glück!", "祝你好运！"),
    Preset("have_fun", "Have fun!", "Amusez-vous bien !", "Viel Spaß!", "玩得开心！"),
    Preset("well_played", "Well played!", "Bien joué !", "Gut gespielt!", "打得好！"),
    Preset("nice_trick", "Nice trick!", "Joli pli !", "Schöner Stich!", "这墩漂亮！"),
    Preset("oops", "Oops!", "Oups !", "Hoppla!", "哎呀！"),
    Preset("sorry", "Sorry!", "Désolé !", "Entschuldigung!", "抱歉！"),
    Preset("thanks", "Thanks!", "Merci !", "Danke!", "谢谢！"),
    Preset(
        "one_moment",
        "One moment, please.",
        "Un instant, s'il vous plaît.",
        "Einen Moment, bitte.",
        "请稍等。",
    ),
    Preset("good_game", "Good game!", "Bonne partie !", "Gutes Spiel!", "好局！"),
    Preset("rematch", "Rematch?", "Une revanche ?", "Revanche?", "再来一局？"),
    Preset("bye", "Bye!", "Au revoir !", "Tschüss!", "再见！"),
)
BY_ID = {p.id: p for p in PRESETS}


def checked_text(text: str) -> str:
    """The text as stored: trimmed and in NFC, or why it cannot be (422
    ``invalid_text``)."""
    clean = unicodedata.normalize("NFC", text.strip())
    if not clean:
        raise InvalidInputError("text: empty once trimmed", "invalid_text")
    if len(clean) > LONGEST:
        raise InvalidInputError(f"text: at most {LONGEST} characters", "invalid_text")
    if any(unicodedata.category(c) == "Cc" for c in clean):
        raise InvalidInputError("text: no control characters", "invalid_text")
    if sealing.TOKEN.search(clean):
        # It would be opened as the answer leaves (a null, or "[erased]"): a text of a
        # seat no player holds is kept as written.
        raise InvalidInputError("text: not the form of a sealed value", "invalid_text")
    return clean


def checked_preset(preset: str) -> str:
    if preset not in BY_ID:
        raise InvalidInputError(f"no preset {preset!r}: GET /v1/chat/presets", "unknown_preset")
    return preset
