"""Rule packs and knowledge tables (TOML data), shipped as ``legacydoc.rules``."""
