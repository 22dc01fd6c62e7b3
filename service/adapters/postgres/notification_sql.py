"""The statements of service/adapters/postgres/notifications.py that are more than a
line: a commit's pushes, the worker's claims, reminders and digests."""

from __future__ import annotations

import functools

FAN_OUT = (
    "INSERT INTO outbox (kind, game_id, payload, created_at, available_at) "
    "SELECT 'push', %s, jsonb_build_object('type', n.type, 'game_id', %s::text, "
    "'version', %s::int, 'urgent', n.urgent, 'player_id', sp.player_id, "
    "'subscription_id', s.id), %s, %s "
    "FROM (VALUES {notices}) AS n(type, seat, urgent) "
    "JOIN (SELECT seat, player_id FROM seat_players WHERE game_id = %s{bound}"
    ") AS sp(seat, player_id) ON sp.seat = n.seat "
    "JOIN push_subscriptions AS s ON s.player_id = sp.player_id "
    "WHERE NOT EXISTS (SELECT FROM notification_settings AS c "
    "WHERE c.player_id = sp.player_id AND NOT c.push) "
    "ON CONFLICT DO NOTHING RETURNING 1"
)

NOTICE = "(%s::text, %s::smallint, %s::boolean)"

CLAIM_PUSHES = (
    # The oldest due pushes (skipping those another worker is claiming), each due again
    # at the lease's end unless recorded first; with its subscription and whether its
    # player has a stream of the game, or their player stream, open (seen since
    # ``watched_since``). Committed without waiting for the disk: a claim lost in a crash
    # leaves its rows due as they were.
    "WITH lazy AS (SELECT set_config('synchronous_commit', 'off', true)), "
    "f AS MATERIALIZED (SELECT id FROM outbox WHERE kind = 'push' AND done_at IS NULL "
    "AND available_at <= %s ORDER BY available_at, id LIMIT %s FOR UPDATE SKIP LOCKED) "
    "UPDATE outbox AS o SET available_at = %s FROM lazy "
    "WHERE o.id = ANY(ARRAY(SELECT id FROM f)) "
    "RETURNING o.id, o.game_id, o.payload, o.created_at, o.attempts, "
    "(SELECT to_jsonb(s) FROM push_subscriptions AS s "
    "WHERE s.id = (o.payload->>'subscription_id')::uuid), "
    "EXISTS (SELECT FROM watchers AS w WHERE w.player_id = (o.payload->>'player_id')::uuid "
    "AND (w.game_id IS NULL OR w.game_id = o.game_id) AND w.seen_at >= %s), "
    "EXISTS (SELECT FROM notification_settings AS c "
    "WHERE c.player_id = (o.payload->>'player_id')::uuid AND NOT c.push)"
)

REMIND = (
    # Each turn a player must act on whose clock has their reminder's minutes left (the
    # inbox entry: ``my_turn`` with a deadline), found from the players who asked for
    # reminders (the inbox's primary key leads with the player); once per player, game
    # and deadline (``reminded``: the versions of a turn while the others pass share its
    # deadline); a push per subscription if pushes are on, a mail if this server sends
    # mail and the player's is on and verified. Parameters: whether the server sends
    # mail, then now, seven times.
    "WITH due AS (SELECT i.player_id, i.game_id, i.version, i.deadline, "
    "c.push AS by_push, %s::boolean AND c.mail AND c.email_verified AS by_mail "
    "FROM notification_settings AS c JOIN inbox AS i ON i.player_id = c.player_id "
    "WHERE c.reminder_minutes IS NOT NULL AND i.my_turn AND i.deadline > %s "
    "AND i.deadline - make_interval(mins => c.reminder_minutes) <= %s), "
    "fresh AS (INSERT INTO reminded (player_id, game_id, deadline, at) "
    "SELECT player_id, game_id, deadline, %s FROM due ON CONFLICT DO NOTHING "
    "RETURNING player_id, game_id, deadline), "
    "pushes AS (INSERT INTO outbox (kind, game_id, payload, created_at, available_at) "
    "SELECT 'push', d.game_id, jsonb_build_object('type', 'reminder', 'game_id', "
    "d.game_id::text, 'version', d.version, 'urgent', true, 'player_id', d.player_id, "
    "'subscription_id', s.id), %s, %s FROM fresh AS f JOIN due AS d USING "
    "(player_id, game_id, deadline) JOIN push_subscriptions AS s ON s.player_id = d.player_id "
    "WHERE d.by_push ON CONFLICT DO NOTHING RETURNING 1), "
    "mails AS (INSERT INTO outbox (kind, game_id, payload, created_at, available_at) "
    "SELECT 'mail', d.game_id, jsonb_build_object('type', 'reminder', 'player_id', "
    "d.player_id, 'version', d.version, 'deadline', d.deadline), %s, %s "
    "FROM fresh AS f JOIN due AS d USING (player_id, game_id, deadline) WHERE d.by_mail "
    "RETURNING 1), "
    "told AS (SELECT pg_notify('yokai_jobs', 'outbox') "
    "WHERE EXISTS (SELECT FROM pushes) OR EXISTS (SELECT FROM mails)) "
    "SELECT (SELECT count(*) FROM fresh), (SELECT count(*) FROM told)"
)

QUEUE_DIGESTS = (
    # Every player with a digest, mail on, a verified address, no digest since their
    # period began (UTC hours or days) and a game waiting on them: marked, and a digest
    # queued (its games are read as it is sent). Parameters: now, now, now, now.
    "WITH due AS (SELECT c.player_id, c.digest FROM notification_settings AS c "
    "WHERE c.digest <> 'off' AND c.mail AND c.email_verified "
    "AND (c.digest_sent_at IS NULL OR c.digest_sent_at < date_trunc("
    "CASE c.digest WHEN 'hourly' THEN 'hour' ELSE 'day' END, %s::timestamptz, 'UTC')) "
    "AND EXISTS (SELECT FROM inbox AS i WHERE i.player_id = c.player_id AND i.my_turn) "
    "FOR UPDATE OF c SKIP LOCKED), "
    "marked AS (UPDATE notification_settings AS c SET digest_sent_at = %s FROM due "
    "WHERE c.player_id = due.player_id RETURNING c.player_id, c.digest), "
    "queued AS (INSERT INTO outbox (kind, payload, created_at, available_at) "
    "SELECT 'mail', jsonb_build_object('type', 'digest', 'player_id', player_id, "
    "'period', digest), %s, %s FROM marked RETURNING 1), "
    "told AS (SELECT pg_notify('yokai_jobs', 'outbox') WHERE EXISTS (SELECT FROM queued)) "
    "SELECT (SELECT count(*) FROM queued), (SELECT count(*) FROM told)"
)

CLAIM_MAIL = (
    # The oldest due messages, leased like pushes; with the player's address when mail
    # is on and it is verified (else null), their language and one-click token.
    "WITH f AS MATERIALIZED (SELECT id FROM outbox WHERE kind = 'mail' AND done_at IS NULL "
    "AND available_at <= %s ORDER BY available_at, id LIMIT %s FOR UPDATE SKIP LOCKED) "
    # The ids handed on as an array, not joined (webhooks.py's claim says why).
    "UPDATE outbox AS o SET available_at = %s WHERE o.id = ANY(ARRAY(SELECT id FROM f)) "
    "RETURNING o.id, o.game_id, o.payload, o.created_at, o.attempts, "
    "(SELECT CASE WHEN c.mail AND c.email_verified THEN c.email END "
    "FROM notification_settings AS c WHERE c.player_id = (o.payload->>'player_id')::uuid), "
    "coalesce((SELECT c.lang FROM notification_settings AS c "
    "WHERE c.player_id = (o.payload->>'player_id')::uuid), 'en'), "
    "(SELECT c.unsubscribe_token FROM notification_settings AS c "
    "WHERE c.player_id = (o.payload->>'player_id')::uuid)"
)


@functools.lru_cache(maxsize=32)
def fan_out_sql(notices: int, bound: int) -> str:
    return FAN_OUT.format(
        notices=", ".join([NOTICE] * notices),
        bound=" UNION ALL VALUES " + ", ".join(["(%s::smallint, %s::uuid)"] * bound)
        if bound
        else "",
    )
