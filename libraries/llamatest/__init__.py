"""llamatest: the behaviour behind the keyword libraries, importable without Robot Framework.

Subpackages: ``server`` (binary, processes, pid registry, presets), ``models`` (generated and
packaged GGUF models), ``http`` (responses, JSON paths, the RequestsLibrary session adapter),
``streaming`` (SSE parsing and the streamed-request client), ``report`` (all HTML that goes into
log.html). The ``*Library.py`` files next to this package are thin Robot facades over it.
"""
