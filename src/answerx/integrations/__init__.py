"""Plug-ins for the frameworks answerx's users run; each module imports its framework lazily."""
