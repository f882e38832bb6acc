"""TypeScript and JavaScript indexing: tree-sitter extraction, module and call resolution,
Jest/Vitest/Mocha test discovery, the AST change classifier.

Modules: ``facts`` (the picklable per-file records), ``parse`` (one pass over the syntax
tree), ``modules`` (module names, specifier → file, ``tsconfig.json`` and workspace
packages), ``resolve`` (binding, exports, receivers), ``emit`` (nodes and edges),
``changes`` (atomic changes between two versions), ``frontend`` (the seam object).
"""
