"""Live capture: the watcher, capture thresholds, the outbox (DESIGN §5)."""
