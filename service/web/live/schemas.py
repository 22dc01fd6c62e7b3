"""The streams' query."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.web.fields import MAX_INT32


class StreamQuerySchema(ma.Schema):
    after = fields.Integer(
        validate=validate.Range(min=0, max=MAX_INT32),
        metadata={
            "description": "resume: start with every event after this `seq` (as "
            "`Last-Event-ID` does; the header wins when both are given)"
        },
    )
