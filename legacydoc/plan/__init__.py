"""From facts (and a project) to one plan: what to install, in what order, and the config.
See planner.py; project.py reads the legacy project, wheels.py the wheel table."""
