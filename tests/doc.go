// Package tests holds end-to-end and golden tests and the import-rule test.
package tests
