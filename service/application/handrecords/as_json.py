"""A record as JSON (the HandRecord schema of the contract)."""

from __future__ import annotations

from typing import Any

from service.application.handrecords.model import FORMAT, HandRecord, Move


def _move_json(m: Move) -> dict[str, Any]:
    match m.kind:
        case "pass":
            return {"type": "pass", "seat": m.seats[0], "cards": list(m.cards)}
        case "play":
            return {"type": "play", "seat": m.seats[0], "card": m.cards[0]}
        case "leave":
            return {"type": "leave", "seat": m.seats[0], "bot": m.option}
        case "resign":
            return {"type": "resign", "seat": m.seats[0]}
    return {"type": "timeout", "seats": list(m.seats), "outcome": m.option}


def to_json(record: HandRecord) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "players": record.players,
        "scoring": record.scoring,
        "variant": record.variant,
        "clock": None
        if record.clock is None
        else {"turn_seconds": record.clock[0], "on_timeout": record.clock[1]},
        "seats": [
            {"name": s.name, "bot": s.bot, "client_seed": s.client_seed} for s in record.seats
        ],
        "fairness": {
            "algorithm": record.fairness,
            "commitment": record.commitment,
            "server_seed": record.server_seed,
        },
        "status": record.status,
        "winners": None if record.winners is None else list(record.winners),
        "scores": list(record.scores),
        "rounds": [
            {
                "number": r.number,
                "hands": [None if h is None else list(h) for h in r.hands],
                "trump": r.trump,
                "moves": [_move_json(m) for m in r.moves],
                "tricks": list(r.tricks),
                "result": None
                if r.result is None
                else {
                    "reason": r.result.reason,
                    "winners": list(r.result.winners),
                    "points": list(r.result.points),
                    "bosses": list(r.result.bosses),
                },
            }
            for r in record.rounds
        ],
    }
