"""Health checks."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields


class HealthSchema(ma.Schema):
    status = fields.String()
    detail = fields.String()


for _name in ("status", "detail"):
    HealthSchema._declared_fields[_name].required = True
