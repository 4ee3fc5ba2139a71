// Package frontend owns everything between .tle text and the tile IR: the
// grammar and syntax tree (ast, parser), the checker (check), the canonical
// formatter (format) and the lowering to IR (lower).
package frontend
