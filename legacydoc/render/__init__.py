"""Renderers: the probe summary now; text, markdown and JSON reports later."""
