"""Quantscope's bridge to the user's PyTorch + transformers (see docs/bridge.md)."""

__version__ = "1"
