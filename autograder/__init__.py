"""Grading and checking for the PyTorch course notebooks."""

__version__ = "0.1.0"
