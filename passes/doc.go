// Package passes holds the IR-to-IR transformations and the pass table that
// orders them. Each pass is one file; adding a pass is adding a row to the
// table, with any order constraints it needs.
package passes
