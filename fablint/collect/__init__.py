"""Live collection: pull the outputs fablint reads from devices over SSH into a snapshot folder.

The package is importable without netmiko (the optional ``collect`` extra): only
``fablint.collect.runner`` needs it, and imports it when a collection starts. ``snapshot`` is
also read by ``fablint.ingest`` to lint a snapshot like a configuration repository.
"""
