"""fablint: lint GPU-cluster fabric configurations for lossless RoCEv2 and InfiniBand."""

__version__ = "0.1.0"
