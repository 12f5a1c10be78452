"""Renderers: the probe summary (summary.py), the check in text, markdown and JSON
(check_*.py), rule listings (rules_text.py), and the registry of --format choices
(registry.py)."""
