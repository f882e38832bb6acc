"""Statement-level program dependence of TypeScript/JavaScript functions (tree-sitter)."""
