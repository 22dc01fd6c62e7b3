"""Integrity's keys and files outside the database: the chain key and anchor files."""
