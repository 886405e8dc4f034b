"""Experiment runs: datasets x approaches x providers, stored, scored and reported."""
