"""answerx's version: the one place it is written (hatchling reads it from here for the
package metadata), importable without loading the package root and what it imports."""

__version__ = "0.1.0"
