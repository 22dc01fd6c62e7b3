"""Importing a hand record: a new game whose events replay the recorded one through the
rules' own commands, in one transaction (nothing is created when any line fails)."""

from __future__ import annotations

from uuid import UUID, uuid4

from service import rules
from service.application.commands import ImportRecord
from service.application.errors import InvalidInputError
from service.application.games.cache import Loaded
from service.application.games.codec import decode
from service.application.handrecords.build import build
from service.application.handrecords.model import HandRecord, RecordError
from service.application.handrecords.parse import parse
from service.application.handrecords.replay import mismatch, replay_of
from service.application.identity.principals import Principal, actor_of, require_operator
from service.application.ports import Actor
from service.application.results import Created
from service.application.write.dealing import DealerError
from service.application.write.transaction import Transaction


def authorize_import(cmd: ImportRecord, principal: Principal) -> Actor:
    require_operator(principal)
    return actor_of(principal)


def _refused(error: RecordError, code: str) -> InvalidInputError:
    return InvalidInputError(str(error), code=code)


def import_record(cmd: ImportRecord, actor: Actor, tx: Transaction) -> Created:
    """422 ``invalid_record`` for text that is not a complete record, ``illegal_move``
    for a move the rules refuse, ``record_mismatch`` for a result the rules do not give;
    each names the line."""
    try:
        record = parse(cmd.text)
        replay = replay_of(record)
    except RecordError as exc:
        raise _refused(exc, "invalid_record") from None
    _check_deals(record, replay.create)
    game_id = uuid4()
    first = record.rounds[0].line if record.rounds else 1
    after = _step(tx, game_id, tx.new_game(), replay.create, actor, first)
    for join in replay.joins:
        after = _step(tx, game_id, after, join, actor, first)
    for line, command in replay.moves:
        after = _step(tx, game_id, after, command, actor, line)
        dealt = after.state.round.number if after.state.round is not None else 0
        if dealt > len(record.rounds):
            raise _refused(_short(line, dealt), "invalid_record")
    if after.state.phase is not rules.Phase.FINISHED:  # cut short: named at its last line
        end = RecordError(record.lines["end"], "the record ends before the game does")
        raise _refused(end, "invalid_record")
    if replay.reveal is not None:
        after = _step(tx, game_id, after, replay.reveal, actor, record.lines.get("ServerSeed", 1))
    events = [decode(row) for row in tx.appended[game_id]]
    problem = mismatch(record, build(events, after.state, rules.OPERATOR))
    if problem is not None:
        raise _refused(problem, "record_mismatch")
    unfair = rules.unfair_deal(events)
    if unfair is not None:
        line = record.lines.get("ServerSeed", 1)
        raise _refused(RecordError(line, unfair[1]), "record_mismatch")
    tx.flush()
    return Created(game_id, after.version)


def _check_deals(record: HandRecord, create: rules.CreateGame) -> None:
    """Each round's recorded deal is a deal of this game (a record cut inside one is
    not), named at the round's last Deal line."""
    config = rules.GameConfig(create.players, create.scoring, create.variant)
    for r, deal in zip(record.rounds, create.deals or (), strict=True):
        problem = rules.deal_problem(config, deal.hands, deal.trump)
        if problem is not None:
            line = max((r.line, *r.hand_lines))
            error = RecordError(line, f"round {r.number}'s deal: {problem}")
            raise _refused(error, "invalid_record")


def _step(
    tx: Transaction, game_id: UUID, game: Loaded, command: rules.Command, actor: Actor, line: int
) -> Loaded:
    try:
        return tx.decide(game_id, game, command, actor)
    except DealerError:  # a fair game's next round, not in the record
        number = len(game.state.results) + 2  # the command ended round results + 1
        raise _refused(_short(line, number), "invalid_record") from None
    except rules.RuleViolationError as exc:
        error = RecordError(line, f"the rules refuse it ({exc.code}): {exc.detail}")
        raise _refused(error, "illegal_move") from None


def _short(line: int, number: int) -> RecordError:
    return RecordError(line, f"the game goes on to round {number}, which the record does not hold")
