"""Hand reviews: what the expert would have played (docs/api.md "Hand review")."""
