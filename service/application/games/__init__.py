"""Games: their commands, their queries, and what loads, folds and schedules them."""
