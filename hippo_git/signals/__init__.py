"""Signals from transcripts: the rollup, its rules, and the views over it (overview, fleet, incidents, xray, card)."""
