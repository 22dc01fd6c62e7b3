"""Blocks and follows: a player's lists of the players they blocked and follow."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields

from service.web.fields import always_present
from service.web.players.schemas import TokensQuerySchema


class RelationsQuerySchema(TokensQuerySchema):
    """A page: `cursor` (the `next_cursor` of the page before) and `limit`."""


@always_present
class BlockedSchema(ma.Schema):
    player_id = fields.UUID()
    name = fields.String(metadata={"description": 'the player\'s name ("erased player")'})
    since = fields.DateTime(metadata={"description": "when they were blocked"})


@always_present
class BlockListSchema(ma.Schema):
    players = fields.List(fields.Nested(BlockedSchema))
    next_cursor = fields.String(allow_none=True)


@always_present
class FollowedSchema(ma.Schema):
    player_id = fields.UUID()
    name = fields.String()
    since = fields.DateTime(metadata={"description": "when they were followed"})
    online = fields.Boolean(
        metadata={
            "description": "a stream of theirs (a game's, or their player stream) is open: "
            "seen within the last 90 seconds"
        }
    )
    playing = fields.List(
        fields.UUID(),
        metadata={"description": "the public games they sit in that are not over, oldest first"},
    )


@always_present
class FollowListSchema(ma.Schema):
    players = fields.List(fields.Nested(FollowedSchema))
    next_cursor = fields.String(allow_none=True)
